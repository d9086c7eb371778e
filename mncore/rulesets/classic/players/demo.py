"""The demonstration game: scripted civilisations on the reconstructed board, to a win, verified."""

from __future__ import annotations

import random
from collections.abc import Callable

from mncore.core.dice import seeded_secret
from mncore.core.errors import InvalidCommand
from mncore.core.protocol import Demo, Ruleset
from mncore.games import writing
from mncore.games.demonstration import Script, run
from mncore.games.reading import Current, Loaded
from mncore.rulesets.classic.commands import CreateGame
from mncore.rulesets.classic.components import game_data, load_board
from mncore.rulesets.classic.ids import RULESET_ID
from mncore.rulesets.classic.players.autoplay import play_stored
from mncore.rulesets.classic.rules.setup import leave_out
from mncore.rulesets.classic.state import State
from mncore.store import Store

PLAYERS = ("Ann", "Ben", "Cat", "Dee", "Eve", "Fay")
STYLES = ("heroes", "pyramids", "general", "heroes", "pyramids", "general")


def demo_civs(players: int) -> tuple[str, ...]:
    """The civilisations a demonstration of this many plays: the summary's advice left out."""
    if not 3 <= players <= 6:
        raise InvalidCommand(f"the classic game is played by 3 to 6 players, not {players}")
    out = tuple(c.id for c in game_data().civ if c.id not in leave_out(players))
    return out[:players]


def demo_command(players: int, variant: str = "standard", setup: str = "basic") -> CreateGame:
    civs = demo_civs(players)
    return CreateGame(board=load_board(), civs=civs, players=dict(zip(civs, PLAYERS)),
                      variant="long" if variant == "long" else "standard",
                      setup="advanced" if setup == "advanced" else "basic", fair_play=False)


def create_demo(ruleset: Ruleset, store: Store, players: int, seed: str) -> str:
    """The demonstration game, created from the seed and not played (`mn demo --bot`); its id."""
    return writing.create(store, ruleset, demo_command(players), seeded_secret(seed)).game_id


def play_demo(ruleset: Ruleset, store: Store, players: int, seed: str, max_orders: int,
              echo: Callable[[str], None]) -> str:
    """Play a scripted game to a win (or max_orders), reveal and verify it; returns its id."""
    cmd = demo_command(players)
    styles = dict(zip(cmd.civs, STYLES))
    rand = random.Random(seed)

    def play(store: Store, loaded: Loaded, secret: bytes, on_order: Callable[[Loaded | Current], None]) -> Loaded:
        return play_stored(store, loaded, secret, rand, max_orders, styles, on_order)

    def mark(state: State) -> int | None:
        # the hands are counted once the Commerce phase has filled them (3.1), not as the round
        # begins, when the last Construction phase has spent them
        return state.round if state.phase in ("construction", "military") and state.round else None

    def result(state: State) -> str:
        w = state.winner
        assert w is not None
        return f"Result: {ruleset.side_name(w.civ)} won by classic:{w.condition} in round {w.round}: {w.detail}."

    script = Script(command=cmd, cast=", ".join(f"{ruleset.side_name(c)} ({p}, {styles[c]})" for c, p in cmd.players.items()),
                    play=play, mark=mark, line=lambda state: _round_line(ruleset, state),
                    won=lambda state: state.winner is not None, result=result)
    return run(ruleset, store, script, seed, max_orders, echo)


def _round_line(ruleset: Ruleset, state: State) -> str:
    held = "; ".join(f"{ruleset.side_name(c)} {_count(state.hand_size(c), 'card')}, "
                     f"{_count(sum(1 for x in state.lands.values() if x.influence == c), 'province')}"
                     + (f", {_count(len(state.cards[c]), 'hero or wonder', 'heroes and wonders')}"
                        if state.cards.get(c) else "")
                     for c in state.civs)
    return f"Round {state.round}, after commerce: {held}"


def _count(n: int, word: str, words: str = "") -> str:
    return f"{n} {word if n == 1 else words or word + 's'}"


# found by mncore.rulesets.players_by_id (the seam may not name it: this module plays through the service)
DEMO = Demo(ruleset_id=RULESET_ID, players=(3, 6), play=play_demo, create=create_demo)
