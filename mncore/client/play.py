"""mn play's library: the latest report found, the orders offered by number, the reply written and sent."""

from __future__ import annotations

import email.parser
import email.policy
import email.utils
import os
import re
import smtplib
import ssl
from collections.abc import Mapping, Sequence
from email.message import EmailMessage

import msgspec

from mncore.client import checklines, exported
from mncore.core.errors import DataError, InvalidCommand
from mncore.pbem.mail import limits
from mncore.pbem.mail.outbox import read_message
from mncore.service.config import Inbox

MAX_CHOICES = 60  # numbered orders shown; a longer list is typed from its template
_PART = re.compile(r"\{(\w+)\}")
# the environment variables mn play reads for SMTP (never a file, never the command line)
SMTP_USER, SMTP_PASSWORD = "MN_SMTP_USER", "MN_SMTP_PASSWORD"
IMAP_USER, IMAP_PASSWORD = "MN_IMAP_USER", "MN_IMAP_PASSWORD"


class _Found(msgspec.Struct, frozen=True):
    """A report mail of the Maildir, as its headers describe it."""

    path: str
    seq: int  # its receipt's event
    after: int  # its export holds the events after this one (a delta); 0: the whole export
    exported: bool  # it carries an export (a reminder of mn serve does not)


HEADER_BYTES = 64 * 1024  # a report's headers are a few hundred bytes: more is no report of ours


def latest_report(source: str, game: str, side: str) -> tuple[str, bytes | None]:
    """The path of side's latest report mail in game, and the export its earlier reports hold: source
    itself (a .eml; no earlier export), or in a Maildir the report with the highest receipt (of two
    with one receipt, the one carrying an export: a report, not its reminder), with the exports of the
    earlier reports it needs joined in order (those of `mn serve` are deltas, each holding the events
    after the head last acknowledged: exported.export_of). The Maildir's mails are told apart by their
    headers alone; only the reports joined are read whole. DataError if there is none."""
    if not os.path.isdir(source):
        return source, None
    found: dict[int, _Found] = {}
    for path in _maildir_files(source):
        one = _report_headers(path, game, side)
        if one is not None and (one.seq not in found or one.exported):
            found[one.seq] = one
    if not found:
        raise DataError(source, [f"no report of {side} in game {game} in this Maildir"])
    latest = found[max(found)]
    kept: bytes | None = None
    for earlier in _needed(latest, [f for f in found.values() if f.exported and f.seq < latest.seq]):
        kept = exported.export_of(earlier.path, kept)[0]
    return latest.path, kept


def _needed(latest: _Found, earlier: list[_Found]) -> list[_Found]:
    """The earlier reports whose exports, joined in order, hold every event before the latest's delta:
    going back, each time the report that reaches that far and starts earliest; all of them, in order,
    if that chain breaks (a Maildir missing a report: export_of then says what is missing)."""
    chain: list[_Found] = []
    need = latest.after
    while need > 0:
        reach = [f for f in earlier if f.seq >= need and f.after < need and f not in chain]
        if not reach:
            return sorted(earlier, key=lambda f: f.seq)
        best = min(reach, key=lambda f: (f.after, -f.seq))
        chain.insert(0, best)
        need = best.after
    return chain


def _report_headers(path: str, game: str, side: str) -> _Found | None:
    """The mail at path as a report of side in game, by its headers; None if it is not one."""
    try:
        with open(path, "rb") as f:
            head = f.read(HEADER_BYTES)
    except OSError:
        return None  # gone, or not ours to read: not a report either
    h = email.parser.BytesHeaderParser(policy=email.policy.default).parsebytes(head)
    receipt = str(h.get("X-MN-Receipt") or "").split()
    if (str(h.get("X-MN-Game") or ""), str(h.get("X-MN-Side") or "")) != (game, side):
        return None
    if len(receipt) != 2 or not receipt[0].isdigit():
        return None
    delta = str(h.get("X-MN-Export") or "").split()
    after = int(delta[-1]) if len(delta) == 4 and delta[-1].isdigit() else 0
    return _Found(path=path, seq=int(receipt[0]), after=after, exported=str(h.get("X-MN-Kind")) != "reminder")


def from_imap(box: Inbox, game: str, side: str, into: str) -> None:
    """The side's report mails of the game in an IMAP folder, copied into the Maildir `into` (each read
    within the mail limits; the mailbox left as it was)."""
    import mailbox

    from mncore.service import transport

    out = mailbox.Maildir(into, create=True)
    for _, where, mail, _ in transport.search(box, limits.Limits(), "HEADER", "X-MN-Game", game,
                                              "HEADER", "X-MN-Side", side):
        if isinstance(mail, limits.Refusal):
            raise DataError(where, [mail.reason])
        out.add(bytes(mail))
    if not out.keys():
        raise DataError(f"imap {box.user or '-'}@{box.host} {box.folder}",
                        [f"no report of {side} in game {game} in this folder"])


def _maildir_files(source: str) -> list[str]:
    """The message files of a Maildir (new/ and cur/), by name."""
    out = []
    for sub in ("new", "cur"):
        where = os.path.join(source, sub)
        if not os.path.isdir(where):
            raise DataError(source, ["a folder that is not a Maildir (no new/ and cur/)"])
        out += [os.path.join(where, n) for n in sorted(os.listdir(where)) if not n.startswith(".")]
    return out


def choices(latest: checklines.Latest) -> list[str]:
    """The legal orders now, each a whole line, in the report's order (templates of one part spelled
    out; a template of several parts is left to be typed); at most MAX_CHOICES."""
    out: list[str] = []
    for o in latest.report.options:
        if o.order:
            out.append(o.order)
            continue
        names = _PART.findall(o.template or "")
        if len(names) == 1:
            out += [(o.template or "").replace("{" + names[0] + "}", v) for v in o.parts.get(names[0], ())]
    return out[:MAX_CHOICES]


def templates(latest: checklines.Latest) -> list[str]:
    """The orders with several parts to fill, and the legal values of each, to type."""
    out: list[str] = []
    for o in latest.report.options:
        if o.order or len(_PART.findall(o.template or "")) < 2:
            continue
        out.append(o.template or "")
        out += [f"    {part}: {' | '.join(values)}" for part, values in o.parts.items()]
    return out


def picked(text: str, numbered: Sequence[str]) -> str:
    """An input line as an order: a number picks from the list; anything else is the order typed."""
    line = text.strip()
    if line.isdigit():
        n = int(line)
        if not 1 <= n <= len(numbered):
            raise InvalidCommand(f"{n}: pick a number from 1 to {len(numbered)}, or type the order")
        return numbered[n - 1]
    return line


def reply(report_path: str, block: str, sender: str) -> EmailMessage:
    """The signed block as a reply to the report mail: to its Reply-To or From, threaded under it."""
    msg = read_message(report_path)
    out = EmailMessage()
    to = str(msg.get("Reply-To") or msg.get("From") or "")
    if not to:
        raise DataError(report_path, ["the report mail has no From address to answer"])
    out["From"] = sender
    out["To"] = to
    subject = str(msg.get("Subject") or "orders")
    out["Subject"] = subject if subject.lower().startswith("re:") else f"Re: {subject}"
    out["Date"] = email.utils.formatdate(localtime=False)
    out["Message-ID"] = email.utils.make_msgid(domain="mare-nostrum")
    if msg.get("Message-ID"):
        out["In-Reply-To"] = str(msg["Message-ID"])
        out["References"] = str(msg["Message-ID"])
    out.set_content(block)
    return out


def send(msg: EmailMessage, host: str, port: int, security: str, env: Mapping[str, str],
         timeout: float = 30.0, ca_file: str | None = None) -> None:
    """Send one mail over SMTP: `security` "starttls", "ssl" or "none"; AUTH when MN_SMTP_USER is set
    (its password from MN_SMTP_PASSWORD); the server's certificate checked against `ca_file` if given,
    else the system's CAs. DataError naming the server's refusal."""
    user, password = env.get(SMTP_USER, ""), env.get(SMTP_PASSWORD, "")
    if user and security == "none":
        raise InvalidCommand(f"{SMTP_USER} is set: the password is sent only over TLS (--smtp-security "
                             "starttls or ssl)")
    context = ssl.create_default_context(cafile=ca_file)
    try:
        smtp = (smtplib.SMTP_SSL(host, port, timeout=timeout, context=context) if security == "ssl"
                else smtplib.SMTP(host, port, timeout=timeout))
        with smtp:
            if security == "starttls":
                smtp.starttls(context=context)
            if user:
                smtp.login(user, password)
            smtp.send_message(msg)
    except (OSError, smtplib.SMTPException) as err:
        raise DataError(f"{host}:{port}", [f"the mail was not sent: {err}"]) from None
