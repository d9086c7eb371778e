"""mn play's library: the latest report found, the orders offered by number, the reply written and sent."""

from __future__ import annotations

import email.utils
import os
import re
import smtplib
import ssl
from collections.abc import Mapping, Sequence
from email.message import EmailMessage

from mncore.client import checklines, exported
from mncore.errors import DataError, InvalidCommand
from mncore.mail import bounds, outbox
from mncore.mail.outbox import read_message
from mncore.service.config import Inbox

MAX_CHOICES = 60  # numbered orders shown; a longer list is typed from its template
_PART = re.compile(r"\{(\w+)\}")
# the environment variables mn play reads for SMTP (never a file, never the command line)
SMTP_USER, SMTP_PASSWORD = "MN_SMTP_USER", "MN_SMTP_PASSWORD"
IMAP_USER, IMAP_PASSWORD = "MN_IMAP_USER", "MN_IMAP_PASSWORD"


def latest_report(source: str, game: str, side: str) -> tuple[str, bytes | None]:
    """The path of side's latest report mail in game, and the export its earlier reports hold: source
    itself (a .eml; no earlier export), or in a Maildir the report with the highest receipt (of two
    with one receipt, the one carrying an export: a report, not its reminder), with the
    exports of the reports before it joined in order (those of `mn serve` may be deltas, each since the
    last head acknowledged: exported.export_of); DataError if there is none."""
    if not os.path.isdir(source):
        return source, None
    found: dict[int, str] = {}
    for path in _maildir_files(source):
        try:
            msg = read_message(path, bounds.Limits())
        except DataError:
            continue  # not a mail we can read: not a report either
        receipt = str(msg.get("X-MN-Receipt") or "").split()
        if (str(msg.get("X-MN-Game") or ""), str(msg.get("X-MN-Side") or "")) != (game, side):
            continue
        if len(receipt) == 2 and receipt[0].isdigit():
            # a reminder carries no export (mn serve keeps it small): the report of its event does
            if int(receipt[0]) not in found or any(n.endswith(".jsonl") for n in outbox.attachments(msg)):
                found[int(receipt[0])] = path
    if not found:
        raise DataError(source, [f"no report of {side} in game {game} in this Maildir"])
    *earlier, latest = [found[seq] for seq in sorted(found)]
    kept: bytes | None = None
    for path in earlier:
        kept = exported.export_of(path, kept)[0]
    return latest, kept


def from_imap(box: Inbox, game: str, side: str, into: str) -> None:
    """The side's report mails of the game in an IMAP folder, copied into the Maildir `into` (each read
    within the mail limits; the mailbox left as it was)."""
    import mailbox

    from mncore.service import transport

    out = mailbox.Maildir(into, create=True)
    for _, where, mail, _ in transport.search(box, bounds.Limits(), "HEADER", "X-MN-Game", game,
                                              "HEADER", "X-MN-Side", side):
        if isinstance(mail, bounds.Refusal):
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
