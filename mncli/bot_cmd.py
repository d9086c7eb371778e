"""mn bot: what a bot would order for a side now, from what that side may see; it gives nothing."""

from __future__ import annotations

import click

from mncli.common import as_option, emit_json, json_option, open_store, to_builtins
from mncore.bots.choosing import DEFAULT_BUDGET, LEVELS, MAX_BUDGET, Decision, advise
from mncore.core.errors import InvalidCommand
from mncore.core.name_matching import resolve_side_in_game
from mncore.games import reading
from mncore.rulesets import players_by_id


@click.command("bot")
@click.argument("game_id", metavar="GAME")
@as_option(required=True, help="The side the bot would play.")
@click.option("--level", type=click.Choice(LEVELS), default="heuristic", show_default=True,
              help="heuristic: one-ply lookahead, fast; search: playouts over sampled worlds.")
@click.option("--budget", type=click.IntRange(1, MAX_BUDGET), default=None,
              help="Sampled worlds (heuristic) or playouts (search) "
                   f"[default: {DEFAULT_BUDGET['heuristic']} and {DEFAULT_BUDGET['search']}].")
@click.option("--seed", default="0", show_default=True, help="The bot's own seed: the same seed, view and "
                                                              "budget give the same advice.")
@json_option
@click.pass_context
def bot(ctx: click.Context, game_id: str, as_empire: str, level: str, budget: int | None, seed: str,
        as_json: bool) -> None:
    """Ask a bot what it would order for a side now, without acting: the order line and why.

    The bot reads only what the side may see: every hidden fact is a stand-in drawn from public facts
    and the seed (as `mn check` decides), never the game's secret. Exit 2 if the side is unknown, the
    game is over or nothing is pending for the side.
    """
    loaded = reading.current(open_store(ctx), game_id)
    side = resolve_side_in_game(loaded.ruleset, loaded.state, as_empire)
    tactics = players_by_id.tactics_for(loaded.ruleset)
    if tactics is None:
        raise InvalidCommand(f"no bot plays {loaded.ruleset.name}")
    decision = advise(loaded, side, tactics, level, budget, seed)
    if as_json:
        emit_json({"game": game_id, **to_builtins(decision)})
        return
    click.echo(_text(loaded.ruleset.side_name(side), decision))


def _text(name: str, d: Decision) -> str:
    head = f"{name}'s bot ({d.level}, budget {d.budget}, seed {d.seed}) would order:"
    why = f"Why: {d.why}; it weighed {d.considered} order(s) and this one is worth {d.value}"
    if d.runner_up is not None:
        why += f", the next best ('{d.runner_up}') {d.runner_up_value}"
    return "\n".join([head, *(f"  {line}" for line in d.lines), why + ".", "Nothing was given: advice only."])


COMMANDS = (bot,)
