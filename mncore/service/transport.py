"""Mail in and out for mn serve: SMTP with STARTTLS or SSL and AUTH; IMAP over TLS, a Maildir or an mbox.

Every message fetched is read through the mail limits (mncore/pbem/mail/limits.py) before it is parsed;
an IMAP message over the size limit is not even downloaded (its size is asked first).
"""

from __future__ import annotations

import email.policy
import hashlib
import imaplib
import re
import smtplib
import ssl
from collections.abc import Callable, Iterator
from email.message import EmailMessage

from mncore.core.errors import DataError
from mncore.pbem.mail import inbox
from mncore.pbem.mail import limits as mail_limits
from mncore.service.config import Account, Inbox

_PORTS = {"smtp": {"starttls": 587, "ssl": 465, "none": 25}, "imap": {"starttls": 143, "ssl": 993, "none": 143}}
_BARE_LF = re.compile(rb"(?<!\r)\n")
_SIZE = re.compile(rb"RFC822\.SIZE (\d+)")


def _context(acc: Account) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=acc.ca_file or None)


def port(acc: Account, kind: str) -> int:
    return acc.port or _PORTS[kind][acc.security]


class Smtp:
    """One SMTP session for a run of mails (opened on first use, closed by close())."""

    def __init__(self, acc: Account) -> None:
        self.acc = acc
        self.conn: smtplib.SMTP | None = None

    def _open(self) -> smtplib.SMTP:
        acc, at = self.acc, port(self.acc, "smtp")
        conn: smtplib.SMTP
        if acc.security == "ssl":
            conn = smtplib.SMTP_SSL(acc.host, at, timeout=acc.timeout, context=_context(acc))
        else:
            conn = smtplib.SMTP(acc.host, at, timeout=acc.timeout)
            if acc.security == "starttls":
                conn.starttls(context=_context(acc))
        if acc.user:
            conn.login(acc.user, acc.password)
        return conn

    def send(self, sender: str, recipient: str, message: bytes) -> None:
        """Hand one mail to the server; smtplib.SMTPException or OSError if it is not taken."""
        if self.conn is None:
            self.conn = self._open()
        # SMTP ends lines with CRLF; smtplib leaves a bytes message as it is
        refused = self.conn.sendmail(sender, [recipient], _BARE_LF.sub(b"\r\n", message))
        if refused:
            raise smtplib.SMTPRecipientsRefused(refused)

    def close(self) -> None:
        if self.conn is not None:
            try:
                self.conn.quit()
            except (smtplib.SMTPException, OSError):
                pass
            self.conn = None


Fetched = tuple[str, str, "inbox.Mail", Callable[[], None]]  # (key, where, mail, mark it read)


def key_of(mail: inbox.Mail, raw: bytes | None = None) -> str:
    """What makes a fetched mail the same mail when it is fetched again: the hash of its bytes
    (of the headers a refused one kept)."""
    if isinstance(mail, mail_limits.Refusal):
        text = f"{mail.reason}|{mail.sender}|{mail.subject}|{mail.message_id}".encode()
        return "r:" + hashlib.sha256(text).hexdigest()
    data = raw if raw is not None else mail.as_bytes(policy=email.policy.default)
    return "m:" + hashlib.sha256(data).hexdigest()


def search(box: Inbox, limits: mail_limits.Limits, *criteria: str) -> Iterator[Fetched]:
    """The messages of an IMAP folder that meet the SEARCH criteria, read or not, left as they are
    (a player's own mailbox: mn play)."""
    yield from _imap(box, limits, *criteria)


def fetch(box: Inbox, limits: mail_limits.Limits) -> Iterator[Fetched]:
    """Each new message of the inbox; its callback marks it read (seen) once it is recorded."""
    if box.kind == "imap":
        yield from _imap(box, limits)
    elif box.kind in ("maildir", "mbox"):
        yield from _local(box.path, limits)


def _local(path: str, limits: mail_limits.Limits) -> Iterator[Fetched]:
    # a Maildir entry is marked seen by the reader itself once the next one is asked for; an mbox is
    # read whole each time and each mail in it is taken once by its key
    for where, mail in inbox.messages(path, None, limits):
        yield key_of(mail), where, mail, lambda: None


def _imap(box: Inbox, limits: mail_limits.Limits, *criteria: str) -> Iterator[Fetched]:
    """The messages of the folder that meet the IMAP SEARCH criteria (the unread ones by default),
    each read within the limits; none is marked read unless its callback is called."""
    conn = _imap_open(box)
    try:
        status, _ = conn.select(box.folder)
        if status != "OK":
            raise DataError(f"imap {box.host}", [f"no folder {box.folder}"])
        _, found = conn.uid("SEARCH", *(criteria or ("UNSEEN",)))
        for uid in (found[0] or b"").split():
            yield _imap_one(conn, uid.decode(), box, limits)
    finally:
        try:
            conn.logout()
        except (imaplib.IMAP4.error, OSError):
            pass


def _imap_open(box: Inbox) -> imaplib.IMAP4:
    at = port(box, "imap")
    try:
        conn: imaplib.IMAP4
        if box.security == "ssl":
            conn = imaplib.IMAP4_SSL(box.host, at, ssl_context=_context(box), timeout=box.timeout)
        else:
            conn = imaplib.IMAP4(box.host, at, timeout=box.timeout)
            if box.security == "starttls":
                conn.starttls(ssl_context=_context(box))
        if box.user:
            conn.login(box.user, box.password)
        return conn
    except (imaplib.IMAP4.error, OSError) as err:
        raise DataError(f"imap {box.user or '-'}@{box.host}:{at}", [f"{type(err).__name__}: {err}"]) from None


def _imap_one(conn: imaplib.IMAP4, uid: str, box: Inbox, limits: mail_limits.Limits) -> Fetched:
    def seen() -> None:
        conn.uid("STORE", uid, "+FLAGS", "(\\Seen)")

    where = f"imap {box.folder} uid {uid}"
    _, meta = conn.uid("FETCH", uid, "(RFC822.SIZE)")
    size = _SIZE.search(b" ".join(m if isinstance(m, bytes) else m[0] for m in meta if m))
    if size and int(size[1]) > limits.max_bytes:
        _, head = conn.uid("FETCH", uid, "(BODY.PEEK[HEADER.FIELDS (FROM REPLY-TO SUBJECT MESSAGE-ID)])")
        h = email.message_from_bytes(_payload(head)[:8192], policy=email.policy.default)
        refused = mail_limits.Refusal(
            reason=f"the mail is over the {mail_limits.size_text(limits.max_bytes)} limit on its size (max_bytes)",
            sender=str(h.get("Reply-To") or h.get("From") or ""), subject=str(h.get("Subject") or "")[:200],
            message_id=str(h.get("Message-ID") or ""))
        return key_of(refused) + ":" + uid, where, refused, seen
    _, data = conn.uid("FETCH", uid, "(BODY.PEEK[])")
    raw = _payload(data)
    read = mail_limits.gated((raw[i:i + mail_limits.CHUNK] for i in range(0, len(raw), mail_limits.CHUNK)), limits)
    if isinstance(read, mail_limits.Refusal):
        return key_of(read) + ":" + uid, where, read, seen
    msg = email.message_from_bytes(read, policy=email.policy.default)
    assert isinstance(msg, EmailMessage)
    return key_of(msg, raw), where, msg, seen


def _payload(data: list[object]) -> bytes:
    for item in data:
        if isinstance(item, tuple) and len(item) >= 2 and isinstance(item[1], bytes):
            return item[1]
    return b""


def idle(box: Inbox, seconds: float) -> bool:
    """Wait for new mail with IMAP IDLE, at most `seconds`: True if an unread mail is already there or the
    server said a mail came, False when the time ran out (or the server has no IDLE: then at once)."""
    conn = _imap_open(box)
    try:
        conn.select(box.folder)
        # a mail that came after the caller last read the folder, before IDLE began, says no EXISTS
        # while idling: an unread one there is news now (the service marks each mail it reads)
        found, unseen = conn.search(None, "UNSEEN")
        if found == "OK" and unseen and unseen[0].split():
            return True
        if "IDLE" not in conn.capabilities:
            return False
        conn.send(conn._new_tag() + b" IDLE\r\n")
        conn.readline()  # "+ idling"
        conn.sock.settimeout(seconds)
        try:
            came = b"EXISTS" in conn.readline()  # an untagged "* N EXISTS" when a mail comes
        except (TimeoutError, OSError):
            came = False
        conn.sock.settimeout(box.timeout)
        conn.send(b"DONE\r\n")
        return came
    except (imaplib.IMAP4.error, OSError) as err:
        raise DataError(f"imap {box.user or '-'}@{box.host}", [f"IDLE: {type(err).__name__}: {err}"]) from None
    finally:
        try:
            conn.logout()
        except (imaplib.IMAP4.error, OSError):
            pass
