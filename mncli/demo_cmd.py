"""mn demo: a demonstration game between scripted players, played to a win and verified."""

from __future__ import annotations

import click

from mncli.common import open_store, ruleset_option
from mncore.core.errors import InvalidCommand
from mncore.rulesets import players_by_id as scripted
from mncore.rulesets import registry


@click.command("demo")
@click.option("--players", type=click.IntRange(3, 6), default=3, show_default=True,
              help="How many scripted players (3 to 5 for empires, 3 to 6 for classic).")
@click.option("--seed", default="demo", show_default=True,
              help="The demo's known secret and the scripted players' choices.")
@click.option("--max-orders", type=int, default=20000, show_default=True,
              help="Stop after this many orders even if nobody has won.")
@ruleset_option
@click.pass_context
def demo(ctx: click.Context, players: int, seed: str, max_orders: int, ruleset_name: str) -> None:
    """Play a demonstration game between scripted players to a win, then verify its log."""
    ruleset = registry.by_name(ruleset_name)
    demo = scripted.demo_for(ruleset)
    if demo is None:
        raise InvalidCommand(f"{ruleset.name} has no demonstration game")
    low, high = demo.players
    if not low <= players <= high:
        raise InvalidCommand(f"--players {players}: {ruleset.name} plays {low} to {high}")
    demo.play(ruleset, open_store(ctx, create=True), players, seed, max_orders, click.echo)


COMMANDS = [demo]
