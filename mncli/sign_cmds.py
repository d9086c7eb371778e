"""mn sign and mn keygen: what a player does on their own machine, with no database."""

from __future__ import annotations

import sys

import click

from mncli.common import order_lines
from mncore.client import checklines, exported
from mncore.core.errors import SigningRefused
from mncore.pbem import signing


@click.command("sign")
@click.argument("orders", nargs=-1, required=True, metavar="ORDER...|-")
@click.option("--key", "key_file", required=True, type=click.Path(dir_okay=False), metavar="FILE",
              help="Your key file (from the host's mn new --keys-dir, or mn keygen).")
@click.option("--game", "game_id", default=None, metavar="GAME",
              help="The game, as your report shows it [default: the key file's].")
@click.option("--report", "report_file", default=None, type=click.Path(dir_okay=False), metavar="REPORT.eml",
              help="Your latest report mail: every line is checked against it before signing, and "
                   "--seq and --head default to its receipt.")
@click.option("--kept", "kept_file", default=None, type=click.Path(dir_okay=False, exists=True),
              metavar="EXPORT", help="Your export from before, joined to a --report that carries only what "
                                     "came since (mn serve's delta).")
@click.option("--force", is_flag=True, help="Sign even lines the report shows to be wrong (says so).")
@click.option("--seq", type=int, default=None, metavar="N",
              help="The event your orders answer: the receipt's event in your latest report.")
@click.option("--head", default=None, metavar="HASH", help="That event's hash (the report's receipt).")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Write the block to this file instead of stdout.")
@click.option("--nonce", default=None, hidden=True,
              help="A fixed nonce (tests, reproducible games): it helps no one but the signer.")
def sign(orders: tuple[str, ...], key_file: str, game_id: str | None, report_file: str | None,
         kept_file: str | None, force: bool, seq: int | None, head: str | None, output: str | None,
         nonce: str | None) -> None:
    """Turn your orders into a signed order block to send the host (needs no database).

    \b
    mn sign --key FILE --report REPORT.eml 'ORDER' ['ORDER' ...]
    mn sign --key FILE --game GAME --seq N --head HASH 'ORDER' ['ORDER' ...]
    mn sign --key FILE --seq N --head HASH - < orders.txt
    With --report, each line is read with the game's grammar and the lines answering the decision
    the report asks for are held to its legal orders: every problem is listed (with its rule or a
    did-you-mean), nothing is signed, exit 1 (--force signs anyway).
    The block carries a fresh random nonce: its dice are fixed by your signature and the game's
    secret, so the host cannot change them and you cannot foresee them (docs/security.md).
    All its orders are applied together or not at all, once.
    """
    key = signing.read_key_file(key_file)
    if game_id is not None and game_id != key.game:
        raise SigningRefused(f"{key_file} is the key of {key.side} in game {key.game}, "
                             f"not in game {game_id}")
    lines = order_lines(orders)
    if report_file is not None:
        latest = checklines.open_report(report_file,
                                        None if kept_file is None else exported.read_bytes(kept_file))
        _same_game(latest, key, report_file)
        seq = latest.report.receipt.seq if seq is None else seq
        head = latest.report.receipt.head if head is None else head
        checked(latest, lines, force)
    if seq is None or head is None:
        raise click.UsageError("give --report REPORT.eml, or --seq and --head from its receipt")
    text = signed_text(key, seq, head, lines, nonce)
    if output:
        with open(output, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


def _same_game(latest: checklines.Latest, key: signing.KeyFile, where: str) -> None:
    r = latest.report
    if (r.game, r.side) != (key.game, key.side):
        raise SigningRefused(f"{where} is the report of {r.side} in game {r.game}; the key is of "
                             f"{key.side} in game {key.game}")


def checked(latest: checklines.Latest, lines: list[str], force: bool) -> None:
    """Every problem of the lines on stderr; exit 1 and nothing signed, unless forced (said so)."""
    found = checklines.problems(latest, lines)
    for p in found:
        where = f"line {p.line} ('{p.text}')" if p.line else "the block"
        click.echo(f"{where}: {p.message}", err=True)
    if found and not force:
        click.echo(f"{len(found)} problem(s): nothing was signed (--force signs anyway)", err=True)
        raise click.exceptions.Exit(1)
    if found:
        click.echo(f"--force: signed with {len(found)} problem(s); the host will refuse the block "
                   "if the game does", err=True)


def signed_text(key: signing.KeyFile, seq: int, head: str, lines: list[str], nonce: str | None) -> str:
    """The armoured block of lines signed with key."""
    block = signing.sign(key.private, game=key.game, side=key.side, seq=seq, head=head.strip().lower(),
                         orders=lines, nonce=nonce)
    return signing.armour(block)


@click.command("keygen")
@click.option("--game", "game_id", required=True, metavar="GAME",
              help="The game the key is for: agree its id with the host, who creates it with mn new --id GAME.")
@click.option("--side", required=True, metavar="SIDE", help="Your side's id in that game.")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False), metavar="FILE",
              help="Where to write your private key (mode 0600; never overwritten).")
def keygen(game_id: str, side: str, output: str) -> None:
    """Make your own key pair: the private key goes to FILE, the public key is printed for the host.

    The game need not exist yet: agree its id with the host first, who then creates it with
    mn new --id GAME --public-key SIDE=HEX and never holds your private key, so that no one but
    you can sign your orders (docs/security.md).
    """
    private, public = signing.new_keypair()
    signing.write_key_file(output, signing.KeyFile(game=game_id, side=side, public=public,
                                                   private=private))
    click.echo(public)


COMMANDS = [sign, keygen]
