"""mn demo: a demonstration game between scripted players, played to a win and verified."""

from __future__ import annotations

import random

import click

from mncli.common import open_store
from mncore.rulesets.empires.render import show_text, view
from mncore import game
from mncore.rulesets.empires.autoplay import play_stored
from mncore.rulesets.empires.board import load_board
from mncore.rulesets.empires.commands import CreateGame
from mncore.dice import seeded_secret
from mncore.rulesets.empires.ids import EMPIRES, Empire
from mncore.rulesets.empires.projections import tracks
from mncore.rulesets.empires.rules.setup import playable_empires
from mncore.rulesets.empires.text import title
from mncore.verify import verify_rows

PLAYERS = ("Ann", "Ben", "Cat", "Dee", "Eve")


@click.command("demo")
@click.option("--players", type=click.IntRange(3, 5), default=3, show_default=True)
@click.option("--seed", default="demo", show_default=True,
              help="The demo's known secret and the scripted players' choices.")
@click.option("--max-orders", type=int, default=20000, show_default=True,
              help="Stop after this many orders even if nobody has won.")
@click.pass_context
def demo(ctx: click.Context, players: int, seed: str, max_orders: int) -> None:
    """Play a demonstration game between scripted players to a win, then verify its log."""
    board = load_board()
    empires = playable_empires(board, players)
    styles: dict[Empire, str] = {e: s for e, s in zip(empires, ("builder", "general", "random",
                                                               "builder", "general"))}
    cmd = CreateGame(board=board, players={e: p for e, p in zip(empires, PLAYERS)},
                     display="first-game", fair_play=False)
    secret = seeded_secret(seed)
    store = open_store(ctx, create=True)
    loaded = game.create(store, cmd, secret, game.creation_events(cmd, secret))
    click.echo(f"Demo game {loaded.game_id} in {store.path}: "
               + ", ".join(f"{title(e)} ({p}, {styles[e]})" for e, p in cmd.players.items()))
    rounds_seen: set[int] = set()

    def progress(current: object) -> None:
        state = current.state  # type: ignore[attr-defined]
        if state.round not in rounds_seen:
            rounds_seen.add(state.round)
            _round_line(state)

    _round_line(loaded.state)
    rounds_seen.add(loaded.state.round)
    loaded = play_stored(store, loaded, secret, random.Random(seed), max_orders, styles=styles,
                         on_order=progress)  # type: ignore[assignment]
    state = loaded.state
    click.echo("")
    click.echo(show_text(view(state, None)))
    click.echo("")
    if state.winner is None:
        click.echo(f"No winner after {len(loaded.rows)} events (stopped at --max-orders {max_orders}).")
    else:
        w = state.winner
        click.echo(f"Result: {' and '.join(title(e) for e in w.empires)} won by {w.condition} in round "
                   f"{w.round}. {w.detail}".rstrip())
        game.reveal(store, loaded.game_id)
    report = verify_rows(store.rows(loaded.game_id))
    click.echo(f"Verify: {'ok' if report.ok else 'FAILED'} — " + "; ".join(report.proven or
                                                                        [report.reason or ""]))
    click.echo(f"Read it with: mn log {loaded.game_id} | mn show {loaded.game_id} | "
               f"mn verify {loaded.game_id}")


def _round_line(state: object) -> None:
    from mncore.rulesets.empires.state import GameState
    assert isinstance(state, GameState)
    levels = tracks(state)
    parts = [f"{title(e)} {levels[e]['trade']}/{levels[e]['culture']}/{levels[e]['military']}"
             for e in EMPIRES if e in levels]
    held = ", ".join(f"{t} {title(e)}" for t, e in state.titles.items())
    click.echo(f"Round {state.round}: levels (trade/culture/military) {'; '.join(parts)}; titles: {held}")


COMMANDS = [demo]
