"""Mail out: reports and answers as ready-to-send messages in a Maildir, and sending them over SMTP."""

from __future__ import annotations

import email.policy
import email.utils
import mailbox
import os
import smtplib
from email.message import EmailMessage
from html import escape

import msgspec

from mncore.core.errors import DataError, InvalidCommand
from mncore.games import reading, transfer
from mncore.pbem import report as reports
from mncore.pbem.mail import limits as mail_limits
from mncore.pbem.mail.book import DEFAULT_FROM, GameBook
from mncore.pbem.mail.inbox import Letter, Outcome, arrival, entries
from mncore.pictures import changes, raster
from mncore.secrecy import boundary


def host_address(page: GameBook | None) -> str:
    return (page.host if page is not None else "") or DEFAULT_FROM


def report_message(r: reports.TurnReport, to: str, sender: str, svg: str | None,
                   export: bytes | None) -> EmailMessage:
    """A report as a mail: the text in the body and, with a picture, an HTML part showing the board
    inline as a PNG; the report as JSON and the side's own export (for mn verify --head) attached.
    The SVG itself is not attached: the player draws it, or the whole page, from that export
    (mn draw MAIL.eml, mn html MAIL.eml), which is the larger part of a mail's bytes saved."""
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = f"[mn {r.game}] {r.phase}: report for {r.name}"
    msg["Date"] = email.utils.formatdate(localtime=False)
    msg["Message-ID"] = email.utils.make_msgid(domain="mare-nostrum")
    msg["X-MN-Game"] = r.game
    msg["X-MN-Side"] = r.side
    msg["X-MN-Receipt"] = f"{r.receipt.seq} {r.receipt.head}"
    msg.set_content(reports.text(r))
    if svg is not None:
        _add_html(msg, r, svg)
    msg.add_attachment(msgspec.json.format(msgspec.json.encode(reports.doc(r))) + b"\n",
                       maintype="application", subtype="json",
                       filename=f"{r.game}-{r.side}-{r.receipt.seq}.json")
    if export is not None:
        msg.add_attachment(export, maintype="application", subtype="x-ndjson",
                           filename=f"{r.game}-{r.side}.jsonl")
    return msg


def _add_html(msg: EmailMessage, r: reports.TurnReport, svg: str) -> None:
    """The report's HTML part beside its text: the same text, then the board inline as a PNG that the
    HTML names by Content-ID (many mail programs show no SVG attachment), and how to draw it larger."""
    cid = email.utils.make_msgid(domain="mare-nostrum")
    html = (f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>{escape(msg["Subject"])}</title></head>'
            f'<body><pre style="font-size:13px">{escape(reports.text(r))}</pre>'
            f'<p><img src="cid:{cid[1:-1]}" alt="The board as {escape(r.name)} sees it, event {r.receipt.seq}" '
            'style="max-width:100%;height:auto"></p>'
            '<p style="font-size:12px">The board to zoom, or the whole game as a page: save this mail as '
            'MAIL.eml, then <code>mn draw MAIL.eml -o board.svg</code> or <code>mn html MAIL.eml -o '
            'game.html</code>, no database needed (add <code>--kept EXPORT</code>, your export as you keep '
            'it, when this mail carries only the new events).</p></body></html>\n')
    msg.add_alternative(html, subtype="html")
    html_part = msg.get_body(("html",))
    assert isinstance(html_part, EmailMessage)  # the part just added, of the default policy
    html_part.add_related(raster.png(svg), maintype="image", subtype="png", cid=cid,
                          filename=f"{r.game}-{r.side}-{r.receipt.seq}.png", disposition="inline")


def _outcome_lines(n: int, o: Outcome) -> list[str]:
    where = f"Block {n}" + (f" ({o.side} in game {o.game})" if o.game else "")
    orders = [f"    {line}" for line in o.orders]
    if o.applied:
        return [f"{where}: APPLIED, all its orders as one batch.", *orders, "", "What happened:",
                *o.events, *([f"Note: {o.note}"] if o.note else []), "",
                f"Receipt: game {o.game}, event {o.seq}, head {o.head}", *_next_lines(o, True), ""]
    rule = f" [rule {o.rule}]" if o.rule and f"[rule {o.rule}]" not in o.message else ""
    every = (["Every line the rules refuse:", *(f"    {p}" for p in o.problems)]
             if len(o.problems) > 1 else [])
    return [f"{where}: REFUSED (exit {o.code}): {o.message}{rule}", *orders, *every,
            "Nothing was written: none of its orders was applied.", *_next_lines(o, False), ""]


def _next_lines(o: Outcome, applied: bool) -> list[str]:
    """The ready command lines to answer with next (issue 25): against the game's head now."""
    if not (o.game and o.seq and o.head):
        return []
    why = ("Your next orders, when the game waits for you (your next report says so)" if applied
           else "Sign again against the game's head now")
    return ["", f"{why}:",
            "  mn play --key KEYFILE REPORT.eml       (your latest report: board, legal orders, checks)",
            f"  {reports.SIGN_LINE.format(game=o.game, seq=o.seq, head=o.head)}"]


def answer_message(letter: Letter, sender: str) -> EmailMessage:
    """The answer to one message read: each block applied with its receipt, or refused with why."""
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = letter.sender or sender
    subject = letter.subject or "your orders"
    msg["Subject"] = subject if subject.lower().startswith("re:") else f"Re: {subject}"
    msg["Date"] = email.utils.formatdate(localtime=False)
    msg["Message-ID"] = email.utils.make_msgid(domain="mare-nostrum")
    if letter.message_id:
        msg["In-Reply-To"] = letter.message_id
        msg["References"] = letter.message_id
    applied = sum(o.applied for o in letter.outcomes)
    msg["X-MN-Outcome"] = f"{applied} applied, {len(letter.outcomes) - applied} refused"
    lines = [f"Your message '{subject}' was read: {applied} block(s) applied, "
             f"{len(letter.outcomes) - applied} refused.", ""]
    for n, o in enumerate(letter.outcomes, start=1):
        lines += _outcome_lines(n, o)
    msg.set_content("\n".join(lines))
    return msg


def read_message(path: str, limits: mail_limits.Limits | None = None) -> EmailMessage:
    """A mail from a .eml file, read within the mail limits (mn mail open: a player's mail may be
    hostile too); DataError if it cannot be read or passes a limit."""
    try:
        with open(path, "rb") as f:
            data = mail_limits.gated(iter(lambda: f.read(mail_limits.CHUNK), b""), limits or mail_limits.Limits())
    except OSError as err:
        raise DataError(path, [f"cannot read it ({err.strerror})"]) from None
    if isinstance(data, mail_limits.Refusal):
        raise DataError(path, [data.reason])
    msg = email.message_from_bytes(data, policy=email.policy.default)
    if not isinstance(msg, EmailMessage) or not msg.keys():
        raise DataError(path, ["not a mail (no headers)"])
    return msg


def attachments(msg: EmailMessage, limits: mail_limits.Limits | None = None) -> dict[str, bytes]:
    """A mail's attachments by file name, as bytes; a gzipped one (NAME.gz: mn serve packs the report's
    JSON and the export) unpacked under NAME, within limits.max_unpacked for the whole mail (DataError
    past it, or if it is no gzip)."""
    room = (limits or mail_limits.Limits()).max_unpacked
    out: dict[str, bytes] = {}
    for part in msg.iter_attachments():
        name = part.get_filename()
        data = part.get_payload(decode=True)
        if not name or not isinstance(data, bytes):
            continue
        if name.endswith(".gz"):
            name = name.removesuffix(".gz")
            data = mail_limits.gunzip(data, room, f"the attachment {name}.gz")
            room -= len(data)
        out[name] = data
    return out


def maildir(path: str) -> mailbox.Maildir:
    """The Maildir at path, made if there is none; DataError if path is something else."""
    if os.path.exists(path) and not os.path.isdir(path):
        raise DataError(path, ["not a folder: an outbox is a Maildir"])
    try:
        return mailbox.Maildir(path, create=True)
    except OSError as err:
        raise DataError(path, [f"cannot make the Maildir ({err.strerror})"]) from None


def put(box: mailbox.Maildir, msg: EmailMessage) -> str:
    """Add a message to the outbox's new/ (ready to send); its key."""
    return box.add(mailbox.MaildirMessage(msg))


def smtp_address(text: str) -> tuple[str, int]:
    """HOST:PORT as typed; InvalidCommand otherwise."""
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise InvalidCommand(f"--smtp {text}: write HOST:PORT, e.g. localhost:25")
    return host, int(port)


def send(path: str, host: str, port: int, timeout: float = 30.0) -> list[tuple[str, str, str]]:
    """Send every message waiting in the outbox's new/ and move each sent one to cur/ (seen);
    (key, to, subject) of each sent. A message the server refuses stays in new/ and stops the run."""
    box = maildir(path)
    waiting = sorted((k for k, sub, _ in entries(path) if sub == "new"), key=arrival)
    sent: list[tuple[str, str, str]] = []
    if not waiting:
        return sent
    try:
        with smtplib.SMTP(host, port, timeout=timeout) as smtp:
            for key in waiting:
                stored = box.get_message(key)
                msg = email.message_from_bytes(box.get_bytes(key), policy=email.policy.default)
                smtp.send_message(msg)
                stored.set_subdir("cur")
                stored.add_flag("S")
                box[key] = stored
                sent.append((key, str(msg["To"]), str(msg["Subject"])))
    except (smtplib.SMTPException, OSError) as err:
        raise DataError(f"--smtp {host}:{port}", [
            f"{type(err).__name__}: {err}; {len(sent)} sent and moved to cur/, "
            f"{len(waiting) - len(sent)} still waiting in new/"]) from None
    return sent


def report_mail(loaded: reading.Loaded, side: str, since: int, page: GameBook) -> tuple[reports.TurnReport,
                                                                                    EmailMessage]:
    """A side's report and its mail, To: its address in the book (InvalidCommand if it has none)."""
    ruleset = loaded.ruleset
    to = page.addresses.get(side)
    if not to:
        raise InvalidCommand(f"game {loaded.game_id} has no address for {ruleset.side_name(side)}: "
                             f"mn mail address {loaded.game_id} {side} ADDRESS")
    r = reports.of_game(loaded, side, since)
    viewer = boundary.viewer_of(loaded.meta, side)
    svg = changes.picture(loaded, viewer, since)  # marked with what changed since the last report
    export = b"".join(line + b"\n" for line in transfer.export_lines(loaded, side))
    return r, report_message(r, to, host_address(page), svg, export)
