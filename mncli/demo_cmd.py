"""mn demo: a demonstration game between scripted players, played to a win and verified."""

from __future__ import annotations

import click

from mncli.common import open_store, ruleset_option
from mncore.bots.choosing import DEFAULT_BUDGET, LEVELS, MAX_BUDGET
from mncore.bots.seated import play_seated
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
@click.option("--bot", "level", type=click.Choice(LEVELS), default=None,
              help="Hand every seat to a bot of this level instead (mn seat; docs/bots.md).")
@click.option("--budget", type=click.IntRange(1, MAX_BUDGET), default=None,
              help="The bots' sampled worlds (heuristic) or playouts (search) "
                   f"[default: {DEFAULT_BUDGET['heuristic']} and {DEFAULT_BUDGET['search']}].")
@ruleset_option
@click.pass_context
def demo(ctx: click.Context, players: int, seed: str, max_orders: int, level: str | None, budget: int | None,
         ruleset_name: str) -> None:
    """Play a demonstration game between scripted players to a win, then verify its log.

    With --bot LEVEL the host hands every seat to a bot (ruling K14) and the game's service plays
    it to a win, each decision marked [bot LEVEL, budget N] in mn log; exit 4 if it did not verify.
    """
    if budget is not None and level is None:
        raise InvalidCommand("--budget is the bots': give it with --bot LEVEL")
    ruleset = registry.by_name(ruleset_name)
    demo = scripted.demo_for(ruleset)
    if demo is None:
        raise InvalidCommand(f"{ruleset.name} has no demonstration game")
    low, high = demo.players
    if not low <= players <= high:
        raise InvalidCommand(f"--players {players}: {ruleset.name} plays {low} to {high}")
    store = open_store(ctx, create=True)
    if level is None:
        demo.play(ruleset, store, players, seed, max_orders, click.echo)
        return
    if demo.create is None:
        raise InvalidCommand(f"{ruleset.name}'s demonstration game cannot be played by bots")
    game_id = demo.create(ruleset, store, players, seed)
    if not play_seated(store, game_id, level, budget or DEFAULT_BUDGET[level], max_orders, click.echo):
        ctx.exit(4)


COMMANDS = [demo]
