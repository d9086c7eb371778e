"""mn sign and mn keygen: what a player does on their own machine, with no database."""

from __future__ import annotations

import sys

import click

from mncli.common import order_lines
from mncore import signing
from mncore.errors import SigningRefused


@click.command("sign")
@click.argument("orders", nargs=-1, required=True, metavar="ORDER...|-")
@click.option("--key", "key_file", required=True, type=click.Path(dir_okay=False), metavar="FILE",
              help="Your key file (from the host's mn new --keys-dir, or mn keygen).")
@click.option("--game", "game_id", default=None, metavar="GAME",
              help="The game, as your report shows it [default: the key file's].")
@click.option("--seq", type=int, required=True, metavar="N",
              help="The event your orders answer: the last event of your report (mn status).")
@click.option("--head", required=True, metavar="HASH", help="That event's hash (mn status).")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Write the block to this file instead of stdout.")
@click.option("--nonce", default=None, hidden=True,
              help="A fixed nonce (tests, reproducible games): it helps no one but the signer.")
def sign(orders: tuple[str, ...], key_file: str, game_id: str | None, seq: int, head: str,
         output: str | None, nonce: str | None) -> None:
    """Turn your orders into a signed order block to send the host (needs no database).

    \b
    mn sign --key FILE --game GAME --seq N --head HASH 'ORDER' ['ORDER' ...]
    mn sign --key FILE --seq N --head HASH - < orders.txt
    The block carries a fresh random nonce: its dice are fixed by your signature and the game's
    secret, so the host cannot change them and you cannot foresee them (docs/security.md).
    All its orders are applied together or not at all, once.
    """
    key = signing.read_key_file(key_file)
    if game_id is not None and game_id != key.game:
        raise SigningRefused(f"{key_file} is the key of {key.side} in game {key.game}, "
                             f"not in game {game_id}")
    block = signing.sign(key.private, game=key.game, side=key.side, seq=seq, head=head.strip().lower(),
                         orders=order_lines(orders), nonce=nonce)
    text = signing.armour(block)
    if output:
        with open(output, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


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
