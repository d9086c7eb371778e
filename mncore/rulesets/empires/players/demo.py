"""The demonstration game: scripted players on the reference board, played to a win and verified."""

from __future__ import annotations

import random
from collections.abc import Callable

from mncore.core.dice import seeded_secret
from mncore.core.protocol import Demo, Ruleset
from mncore.games import writing
from mncore.games.demonstration import Script, run
from mncore.games.reading import Current, Loaded
from mncore.rulesets.empires.board import load_board
from mncore.rulesets.empires.commands import CreateGame
from mncore.rulesets.empires.game_data import RULESET_ID
from mncore.rulesets.empires.ids import EMPIRES, Empire
from mncore.rulesets.empires.players.autoplay import play_stored
from mncore.rulesets.empires.players.sampler import draw
from mncore.rulesets.empires.projections import tracks
from mncore.rulesets.empires.rules.setup import playable_empires
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
    return writing.create(store, ruleset, demo_command(players), seeded_secret(seed)).game_id


def play_demo(ruleset: Ruleset, store: Store, players: int, seed: str, max_orders: int, echo: Callable[[str], None]) -> str:
    """Play a scripted game to a win (or max_orders), reveal and verify it; returns its id."""
    cmd = demo_command(players)
    styles: dict[Empire, str] = dict(zip(cmd.players, STYLES))
    rand = random.Random(seed)

    def play(store: Store, loaded: Loaded, secret: bytes, on_order: Callable[[Loaded | Current], None]) -> Loaded:
        return play_stored(store, loaded, secret, rand, max_orders, styles=styles, on_order=on_order, pick=draw)

    script = Script(command=cmd, cast=", ".join(f"{title(e)} ({p}, {styles[e]})" for e, p in cmd.players.items()),
                    play=play, mark=lambda state: state.round, line=_round_line,
                    closing=lambda state: _round_line(state, "ends"), won=lambda state: state.winner is not None,
                    result=_result)
    return run(ruleset, store, script, seed, max_orders, echo)


def _result(state: GameState) -> str:
    w = state.winner
    assert w is not None
    return f"Result: {' and '.join(title(e) for e in w.empires)} won by {w.condition} in round {w.round}. {w.detail}".rstrip()


def _round_line(state: GameState, when: str = "begins") -> str:
    """The levels and titles as a round begins (the last round's also as it ends: the final table's)."""
    levels = tracks(state)
    parts = [f"{title(e)} {levels[e]['trade']}/{levels[e]['culture']}/{levels[e]['military']}"
             for e in EMPIRES if e in levels]
    held = ", ".join(f"{t} {title(e)}" for t, e in state.titles.items())
    return f"Round {state.round} {when}: levels (trade/culture/military) {'; '.join(parts)}; titles: {held}"


# found by mncore.rulesets.players_by_id (the seam may not name it: this module plays through the service)
DEMO = Demo(ruleset_id=RULESET_ID, players=(3, 5), play=play_demo, create=create_demo)
