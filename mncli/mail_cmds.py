"""mn mail: the host's mail loop: addresses, reading orders from mail, writing and sending reports."""

from __future__ import annotations

import os
import sys

import click

from mncli.common import open_store
from mncore.core.errors import InvalidCommand
from mncore.core.name_matching import resolve_side_in_game
from mncore.games import reading, transfer
from mncore.pbem.mail import book as books
from mncore.pbem.mail import inbox, outbox
from mncore.pbem.mail.limits import Limits


@click.group("mail")
def mail() -> None:
    """Play by email: mail addresses, orders read from mail, reports written and sent (docs/pbem.md).

    \b
    mn mail address GAME EMPIRE ADDRESS    where an empire's reports go (host: the From address)
    mn mail ingest PATH|- --outbox DIR     apply the signed blocks in a .eml, an mbox or a Maildir
    mn mail outbox GAME --dir DIR          each empire's report, ready to send, into a Maildir
    mn mail send --dir DIR --smtp HOST:PORT  send what waits in DIR/new, moving each sent to DIR/cur
    mn mail open REPORT.eml                for a player: read a mailed report, verify its export
    """


@mail.command("address")
@click.argument("game_id", metavar="GAME")
@click.argument("side_text", metavar="EMPIRE|host")
@click.argument("address", metavar="ADDRESS")
@click.pass_context
def address(ctx: click.Context, game_id: str, side_text: str, address: str) -> None:
    """Record where EMPIRE's reports go (or, for 'host', the address the host's mail comes from).

    Kept beside the database (DB.mail.json), not in the game's log.
    """
    loaded = reading.current(open_store(ctx), game_id)
    checked = books.checked_address(address)
    path = books.path_for(ctx.obj["db"])
    book = books.load(path)
    page = book.page(game_id)
    if side_text == books.HOST_KEY:
        page.host = checked
        click.echo(f"Game {game_id}: the host writes from {checked}")
    else:
        side = resolve_side_in_game(loaded.ruleset, loaded.state, side_text)
        page.addresses[side] = checked
        click.echo(f"Game {game_id}: {loaded.ruleset.side_name(side)} is mailed at {checked}")
    books.save(path, book)


_LIMITS = Limits()


@mail.command("ingest")
@click.argument("source", metavar="PATH|-")
@click.option("--outbox", "outbox_dir", required=True, type=click.Path(file_okay=False), metavar="DIR",
              help="The Maildir the answers are written to (made if missing).")
@click.option("--max-bytes", type=click.IntRange(min=1), default=_LIMITS.max_bytes, show_default=True,
              metavar="BYTES", help="A larger mail is refused unread (answered with the limit).")
@click.option("--max-line", type=click.IntRange(min=1), default=_LIMITS.max_line, show_default=True,
              metavar="BYTES", help="A mail with a longer line (or Content-Type header) is refused unread.")
@click.option("--max-lines", type=click.IntRange(min=1), default=_LIMITS.max_lines, show_default=True,
              metavar="N", help="A mail of more lines is refused unread.")
@click.option("--max-parts", type=click.IntRange(min=1), default=_LIMITS.max_parts, show_default=True,
              metavar="N", help="A mail of more MIME parts is refused unread.")
@click.option("--max-depth", type=click.IntRange(min=1), default=_LIMITS.max_depth, show_default=True,
              metavar="N", help="A mail whose MIME parts nest deeper is refused unread.")
@click.pass_context
def ingest(ctx: click.Context, source: str, outbox_dir: str, max_bytes: int, max_line: int, max_lines: int,
           max_parts: int, max_depth: int) -> None:
    """Read mail (.eml, mbox, or a Maildir's unseen messages), apply every signed block in it, each
    whole or not at all, and write an answer to each message: applied with its receipt, or refused
    with the rule or reason (nothing written for a refused block).

    Each mail is read in chunks within the limits below, before it is parsed: one that passes a limit
    is not parsed at all, and its answer names the limit (docs/pbem.md, "Mail limits").

    Exits 0 when every message was read, whatever became of its blocks: the answers say that.
    """
    store = open_store(ctx)
    box = outbox.maildir(outbox_dir)
    book = books.load(books.path_for(ctx.obj["db"]))
    limits = Limits(max_bytes=max_bytes, max_line=max_line, max_lines=max_lines, max_parts=max_parts,
                           max_depth=max_depth)
    count = 0
    for where, mail in inbox.messages(source, sys.stdin.buffer if source == "-" else None, limits):
        letter = inbox.letter_of(store, mail)
        games = {o.game for o in letter.outcomes if o.game}
        page = book.games.get(next(iter(games))) if len(games) == 1 else None
        outbox.put(box, outbox.answer_message(letter, outbox.host_address(page)))
        count += 1
        for o in letter.outcomes:
            what = (f"applied, receipt event {o.seq} head {o.head}" if o.applied
                    else f"refused (exit {o.code}): {o.message}")
            who = f"{o.side} " if o.side else ""
            click.echo(f"{where}: {who}{what}")
    click.echo(f"{count} message(s) read, {count} answer(s) written to {outbox_dir}/new")


@mail.command("outbox")
@click.argument("game_id", metavar="GAME")
@click.option("--dir", "outbox_dir", required=True, type=click.Path(file_okay=False), metavar="DIR",
              help="The Maildir the reports are written to (made if missing).")
@click.option("--as", "only", multiple=True, metavar="EMPIRE",
              help="Only this empire's report (repeat for several) [default: every empire with news].")
@click.option("--waiting", is_flag=True,
              help="Only the empires the game waits for now (the others read the news in their next).")
@click.pass_context
def outbox_cmd(ctx: click.Context, game_id: str, outbox_dir: str, only: tuple[str, ...],
               waiting: bool) -> None:
    """Write each empire's report since its last one, as a ready-to-send mail, into DIR/new.

    An empire with nothing new since its last report gets none (unless named with --as). Every
    empire needs an address first (mn mail address); nothing is written if one is missing.
    """
    loaded = reading.load(open_store(ctx), game_id)
    ruleset = loaded.ruleset
    path = books.path_for(ctx.obj["db"])
    book = books.load(path)
    page = book.page(game_id)
    sides = ([resolve_side_in_game(ruleset, loaded.state, s) for s in only] if only
             else [s for s in loaded.meta.sides if page.reported.get(s, 0) < loaded.head[0]])
    if waiting:
        pending = {p.empire for p in ruleset.pending(loaded.state)}
        sides = [s for s in sides if s in pending]
    made = [outbox.report_mail(loaded, side, page.reported.get(side, 0), page) for side in sides]
    box = outbox.maildir(outbox_dir)
    for side, (r, msg) in zip(sides, made, strict=True):
        outbox.put(box, msg)
        page.reported[side] = r.receipt.seq
        click.echo(f"{msg['To']}: {msg['Subject']}")
    books.save(path, book)
    if not made:
        click.echo(f"Nothing new for any empire of game {game_id} since its last report.")


@mail.command("send")
@click.option("--dir", "outbox_dir", required=True, type=click.Path(file_okay=False), metavar="DIR",
              help="The outbox Maildir.")
@click.option("--smtp", "smtp", required=True, metavar="HOST:PORT", help="The SMTP server to hand them to.")
def send(outbox_dir: str, smtp: str) -> None:
    """Send every mail waiting in DIR/new over SMTP, moving each one sent to DIR/cur."""
    host, port = outbox.smtp_address(smtp)
    if not outbox_dir or not os.path.isdir(outbox_dir):
        raise InvalidCommand(f"--dir {outbox_dir}: no such outbox (mn mail outbox or ingest make one)")
    sent = outbox.send(outbox_dir, host, port)
    for _, to, subject in sent:
        click.echo(f"sent to {to}: {subject}")
    click.echo(f"{len(sent)} mail(s) sent")


@mail.command("open")
@click.argument("message", metavar="MESSAGE.eml", type=click.Path(dir_okay=False))
@click.option("--head", "held", default=None, metavar="HASH",
              help="A head you kept from an earlier report: the log mailed now must still hold it.")
@click.option("--save", "save_dir", default=None, type=click.Path(file_okay=False), metavar="DIR",
              help="Also write the attachments (report JSON, your export) into DIR.")
@click.option("--kept", "kept", default=None, type=click.Path(dir_okay=False, exists=True), metavar="EXPORT",
              help="Your export as you keep it: a mail carrying only its new events (a delta, from mn serve) "
                   "is joined to it, verified whole, and saved whole with --save.")
def open_cmd(message: str, held: str | None, save_dir: str | None, kept: str | None) -> None:
    """For a player: read a report mailed by the host, and check the export it carries (no database).

    Prints the report, then verifies the attached export of your empire against the head in the
    report's receipt and, with --head, against a head you kept from before; exit 4 if it fails.
    """
    msg = outbox.read_message(message)
    part = msg.get_body(("plain",))
    click.echo("" if part is None else str(part.get_content()), nl=False)
    files = outbox.attachments(msg)
    if save_dir is not None:
        os.makedirs(save_dir, exist_ok=True)
        for name, data in files.items():
            with open(os.path.join(save_dir, os.path.basename(name)), "wb") as f:
                f.write(data)
    export = next((name for name in files if name.endswith(".jsonl")), None)
    receipt = str(msg.get("X-MN-Receipt") or "").split()
    if export is None or len(receipt) != 2:
        click.echo("This mail carries no export to verify.")
        return
    delta = str(msg.get("X-MN-Export") or "")
    if delta.startswith("delta"):
        if kept is None:
            click.echo(f"{export}: your export's {delta} only: give --kept YOUR-EXPORT.jsonl to join it and "
                       "verify it whole")
            return
        from mncore.service.policy import merge_delta
        with open(kept, "rb") as f:
            files[export] = merge_delta(f.read(), files[export])
        if save_dir is not None:
            with open(os.path.join(save_dir, os.path.basename(export)), "wb") as f:
                f.write(files[export])
    for head in [receipt[1], *([held] if held else [])]:
        report = transfer.verify_export(files[export], export, head)
        if not report.ok:
            click.echo(f"{export}: FAILED against head {head[:16]}…: {report.reason}", err=True)
            raise click.exceptions.Exit(4)
        click.echo(f"{export}: verified against head {head}, {report.events} events")


GROUPS = [mail]
