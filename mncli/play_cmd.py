"""mn play: the player's command-line client: read the latest report, pick or type orders, check, sign, send."""

from __future__ import annotations

import os
import sys
import tempfile

import click

from mncli.sign_cmds import checked, signed_text
from mncore.client import checklines, exported
from mncore.client import play as plays
from mncore.core.errors import CommandRejected, InvalidCommand, SigningRefused
from mncore.pbem import report as reports
from mncore.pbem import signing
from mncore.pbem.mail.outbox import smtp_address
from mncore.service.config import Inbox


@click.command("play")
@click.argument("source", metavar="REPORT.eml|MAILDIR", required=False)
@click.option("--imap", default=None, metavar="HOST[:PORT]",
              help="Read your reports from your IMAP mailbox instead (login: MN_IMAP_USER and "
                   "MN_IMAP_PASSWORD from the environment); it is left as it was.")
@click.option("--imap-security", type=click.Choice(["ssl", "starttls"]), default="ssl", show_default=True,
              help="TLS for --imap: from the start, or STARTTLS.")
@click.option("--imap-folder", default="INBOX", show_default=True, metavar="FOLDER",
              help="The folder your reports arrive in.")
@click.option("--imap-ca", default=None, type=click.Path(dir_okay=False, exists=True), metavar="FILE",
              help="A CA bundle to trust instead of the system's (a server with its own certificate).")
@click.option("--key", "key_file", required=True, type=click.Path(dir_okay=False), metavar="FILE",
              help="Your key file: it names your game and empire.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Write the signed block to FILE (to paste into a reply) instead of stdout.")
@click.option("--smtp", default=None, metavar="HOST:PORT",
              help="Send the signed block as a reply to the report over SMTP (AUTH: MN_SMTP_USER and "
                   "MN_SMTP_PASSWORD from the environment).")
@click.option("--smtp-security", type=click.Choice(["starttls", "ssl", "none"]), default="starttls",
              show_default=True, help="TLS for --smtp: STARTTLS, SSL from the start, or none (loopback).")
@click.option("--smtp-ca", default=None, type=click.Path(dir_okay=False, exists=True), metavar="FILE",
              help="A CA bundle to trust for --smtp instead of the system's (a server with its own certificate).")
@click.option("--from", "sender", default=None, metavar="ADDRESS",
              help="Your address, for --smtp [default: the report's To].")
@click.option("--kept", "kept_file", default=None, type=click.Path(dir_okay=False, exists=True),
              metavar="EXPORT", help="Your export from before, to join to a report that carries only what "
                                     "came since (mn serve's delta); a Maildir joins its reports itself.")
@click.option("--force", is_flag=True, help="Sign even lines the report shows to be wrong (says so).")
@click.option("--nonce", default=None, hidden=True, help="A fixed nonce (tests).")
def play(source: str | None, imap: str | None, imap_security: str, imap_folder: str, imap_ca: str | None,
         key_file: str, output: str | None, smtp: str | None, smtp_security: str, smtp_ca: str | None,
         sender: str | None, kept_file: str | None, force: bool, nonce: str | None) -> None:
    """Your turn, from your latest report mail: the board, your decision, your legal orders by number.

    \b
    Type one order a line on stdin (a number picks from the list; `queue ORDER` answers your coming
    decisions of the round; a blank line or end of input finishes). Every line is then read with the
    game's grammar and held to the report's legal orders; all problems are listed at once and nothing
    is signed (exit 1). Otherwise the signed block is written (stdout, -o FILE) or sent as a reply
    (--smtp). REPORT.eml may be a Maildir: its latest report for your key's game and empire is read.
    The report's export is verified against its receipt first (exit 4 if it fails).
    """
    key = signing.read_key_file(key_file)
    if (source is None) == (imap is None):
        raise click.UsageError("give your report (REPORT.eml or a Maildir), or --imap HOST, not both")
    with tempfile.TemporaryDirectory(prefix="mn-play-") as fetched:
        if imap is not None:
            host, _, at = imap.rpartition(":") if ":" in imap else (imap, "", "0")
            if not host or not at.isdigit() or int(at) > 65535:
                raise InvalidCommand(f"--imap {imap}: write HOST or HOST:PORT, e.g. imap.example.org:993")
            port = int(at)  # 0: the usual port for its security (993, or 143 with STARTTLS)
            box = Inbox(kind="imap", host=host, port=port, security=imap_security, folder=imap_folder,
                        user=os.environ.get(plays.IMAP_USER, ""),
                        password=os.environ.get(plays.IMAP_PASSWORD, ""), ca_file=imap_ca or "")
            source = os.path.join(fetched, "Maildir")
            plays.from_imap(box, key.game, key.side, source)
        assert source is not None
        _play(source, key, output, smtp, smtp_security, smtp_ca, sender, kept_file, force, nonce)


def _play(source: str, key: signing.KeyFile, output: str | None, smtp: str | None, smtp_security: str,
          smtp_ca: str | None, sender: str | None, kept_file: str | None, force: bool, nonce: str | None) -> None:
    path, kept = plays.latest_report(source, key.game, key.side)
    if kept_file is not None:
        kept = exported.read_bytes(kept_file)
    latest = checklines.open_report(path, kept)
    r = latest.report
    if (r.game, r.side) != (key.game, key.side):
        raise SigningRefused(f"{path} is the report of {r.side} in game {r.game}; the key is of "
                             f"{key.side} in game {key.game}")
    numbered = plays.choices(latest)
    _screen(latest, numbered)
    if not r.decide or r.over:
        return
    lines = _read_orders(numbered)
    if not lines:
        click.echo("No orders given: nothing signed.")
        raise click.exceptions.Exit(1)
    checked(latest, lines, force)
    text = signed_text(key, r.receipt.seq, r.receipt.head, lines, nonce)
    if smtp is not None:
        host, port = smtp_address(smtp)
        msg = plays.reply(path, text, sender or _to_of(path))
        plays.send(msg, host, port, smtp_security, os.environ, ca_file=smtp_ca)
        click.echo(f"Sent to {msg['To']}: {msg['Subject']}")
    elif output is not None:
        with open(output, "w", encoding="utf-8") as f:
            f.write(text)
        click.echo(f"Signed block written to {output}: paste it into your reply to the host.")
    else:
        click.echo("Signed block (paste it into your reply to the host):")
        click.echo(text, nl=False)


def _screen(latest: checklines.Latest, numbered: list[str]) -> None:
    r = latest.report
    click.echo(reports.title_line(r))
    click.echo(f"(from {latest.source}; its export verified against head {r.receipt.head[:16]})")
    click.echo("")
    click.echo(r.board)
    if r.resources:
        click.echo(f"Your resources: {r.resources}")
    if r.over:
        click.echo(f"The game is over. {r.result}")
        return
    if not r.decide:
        waits = ", ".join(f"{w.name} ({w.kind})" for w in r.waiting_for) or "nobody"
        click.echo(f"Nothing to decide now: the game waits for {waits}.")
        return
    click.echo("You must decide:")
    for w in r.decide:
        click.echo(f"  {w.kind}: {w.text}")
    if r.deadline:
        click.echo(f"  Deadline: {r.deadline} (then the default of docs/defaults.md is taken)")
    click.echo("Your legal orders now:")
    for n, line in enumerate(numbered, start=1):
        click.echo(f"  {n:>2}. {line}")
    more = plays.templates(latest)
    if more:
        click.echo("Or type one of these, its parts filled:")
        for line in more:
            click.echo(f"  {line}")
    if r.queued:
        click.echo("Your queued orders: " + "; ".join(r.queued))
    click.echo("Orders, one a line (a number, or the order; blank line or end of input to finish):")


def _read_orders(numbered: list[str]) -> list[str]:
    """The order lines from stdin, numbers replaced by the orders they pick."""
    lines: list[str] = []
    for raw in sys.stdin:
        if not raw.strip():
            break
        if raw.lstrip().startswith("#"):
            continue
        try:
            lines.append(plays.picked(raw, numbered))
        except CommandRejected as err:
            raise click.UsageError(err.message) from None
    return lines


def _to_of(path: str) -> str:
    from mncore.pbem.mail.outbox import read_message
    return str(read_message(path).get("To") or "")


COMMANDS = [play]
