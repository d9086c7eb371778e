"""The demonstration game: scripted players on the reference board, played to a win and verified."""

from __future__ import annotations

import random
from collections.abc import Callable

from mncore import game, redaction
from mncore.dice import seeded_secret
from mncore.protocol import Demo, Ruleset
from mncore.rulesets.empires.autoplay import play_stored
from mncore.rulesets.empires.board import load_board
from mncore.rulesets.empires.commands import CreateGame
from mncore.rulesets.empires.ids import EMPIRES, Empire
from mncore.rulesets.empires.projections import tracks
from mncore.rulesets.empires.render import show_text, view
from mncore.rulesets.empires.rules.setup import playable_empires
from mncore.rulesets.empires.ruleset import RULESET_ID
from mncore.rulesets.empires.sampler import draw
from mncore.rulesets.empires.state import GameState
from mncore.rulesets.empires.text import title
from mncore.store import Store

PLAYERS = ("Ann", "Ben", "Cat", "Dee", "Eve")
STYLES = ("builder", "general", "random", "builder", "general")


def demo_command(players: int) -> CreateGame:
    """The demonstration game's creation: the first empires that play with this many players."""
    board = load_board()
    empires = playable_empires(board, players)
    return CreateGame(board=board, players=dict(zip(empires, PLAYERS)), display="first-game", fair_play=False)


def create_demo(ruleset: Ruleset, store: Store, players: int, seed: str) -> str:
    """The demonstration game, created from the seed and not played (`mn demo --bot`); its id."""
    return game.create(store, ruleset, demo_command(players), seeded_secret(seed)).game_id


def play_demo(ruleset: Ruleset, store: Store, players: int, seed: str, max_orders: int, echo: Callable[[str], None]) -> str:
    """Play a scripted game to a win (or max_orders), reveal and verify it; returns its id."""
    cmd = demo_command(players)
    styles: dict[Empire, str] = dict(zip(cmd.players, STYLES))
    secret = seeded_secret(seed)
    loaded = game.create(store, ruleset, cmd, secret)
    echo(f"Demo game {loaded.game_id} in {store.path}: "
         + ", ".join(f"{title(e)} ({p}, {styles[e]})" for e, p in cmd.players.items()))
    rounds_seen = {loaded.state.round}
    echo(_round_line(loaded.state))

    def progress(current: object) -> None:
        state = current.state  # type: ignore[attr-defined]
        if state.round not in rounds_seen:
            rounds_seen.add(state.round)
            echo(_round_line(state))

    loaded = play_stored(store, loaded, secret, random.Random(seed), max_orders, styles=styles,
                         on_order=progress, pick=draw)  # type: ignore[assignment]
    state = loaded.state
    echo(_round_line(state, "ends"))
    echo("")
    echo(show_text(view(redaction.as_host(state))))
    echo("")
    if state.winner is None:
        echo(f"No winner after {len(loaded.rows)} events (stopped at --max-orders {max_orders}).")
    else:
        w = state.winner
        echo(f"Result: {' and '.join(title(e) for e in w.empires)} won by {w.condition} in round "
             f"{w.round}. {w.detail}".rstrip())
        game.reveal(store, loaded.game_id)
    report = game.verify_game(store, loaded.game_id)
    echo(f"Verify: {'ok' if report.ok else 'FAILED'} — " + "; ".join(report.proven or [report.reason or ""]))
    echo(f"Read it with: mn log {loaded.game_id} | mn show {loaded.game_id} | mn verify {loaded.game_id}")
    return loaded.game_id


def _round_line(state: GameState, when: str = "begins") -> str:
    """The levels and titles as a round begins (the last round's also as it ends: the final table's)."""
    levels = tracks(state)
    parts = [f"{title(e)} {levels[e]['trade']}/{levels[e]['culture']}/{levels[e]['military']}"
             for e in EMPIRES if e in levels]
    held = ", ".join(f"{t} {title(e)}" for t, e in state.titles.items())
    return f"Round {state.round} {when}: levels (trade/culture/military) {'; '.join(parts)}; titles: {held}"


# found by mncore.players (the seam may not name it: this module plays through the service)
DEMO = Demo(ruleset_id=RULESET_ID, players=(3, 5), play=play_demo, create=create_demo)
