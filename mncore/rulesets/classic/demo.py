"""The demonstration game: scripted civilisations on the reconstructed board, to a win, verified."""

from __future__ import annotations

import random
from collections.abc import Callable

from mncore import game, redaction
from mncore.dice import seeded_secret
from mncore.errors import InvalidCommand
from mncore.protocol import Demo, Ruleset
from mncore.rulesets.classic.autoplay import play_stored
from mncore.rulesets.classic.commands import CreateGame
from mncore.rulesets.classic.components import game_data, load_board
from mncore.rulesets.classic.ids import RULESET_ID
from mncore.rulesets.classic.render import show_text, view
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
    return game.create(store, ruleset, demo_command(players), seeded_secret(seed)).game_id


def play_demo(ruleset: Ruleset, store: Store, players: int, seed: str, max_orders: int,
              echo: Callable[[str], None]) -> str:
    """Play a scripted game to a win (or max_orders), reveal and verify it; returns its id."""
    cmd = demo_command(players)
    styles = dict(zip(cmd.civs, STYLES))
    secret = seeded_secret(seed)
    loaded = game.create(store, ruleset, cmd, secret)
    echo(f"Demo game {loaded.game_id} in {store.path}: "
         + ", ".join(f"{ruleset.side_name(c)} ({p}, {styles[c]})" for c, p in cmd.players.items()))
    seen = {0}

    def progress(current: object) -> None:
        # the hands are counted once the Commerce phase has filled them (3.1), not as the round
        # begins, when the last Construction phase has spent them
        state: State = current.state  # type: ignore[attr-defined]
        if state.round not in seen and state.phase in ("construction", "military"):
            seen.add(state.round)
            echo(_round_line(ruleset, state))

    loaded = play_stored(store, loaded, secret, random.Random(seed), max_orders, styles, progress)
    state = loaded.state
    echo("")
    echo(show_text(view(redaction.as_host(state))))
    echo("")
    if state.winner is None:
        echo(f"No winner after {len(loaded.rows)} events (stopped at --max-orders {max_orders}).")
    else:
        w = state.winner
        echo(f"Result: {ruleset.side_name(w.civ)} won by classic:{w.condition} in round {w.round}: {w.detail}.")
        game.reveal(store, loaded.game_id)
    report = game.verify_game(store, loaded.game_id)
    echo(f"Verify: {'ok' if report.ok else 'FAILED'} — " + "; ".join(report.proven or [report.reason or ""]))
    echo(f"Read it with: mn log {loaded.game_id} | mn show {loaded.game_id} | mn verify {loaded.game_id}")
    return str(loaded.game_id)


def _round_line(ruleset: Ruleset, state: State) -> str:
    held = "; ".join(f"{ruleset.side_name(c)} {_count(state.hand_size(c), 'card')}, "
                     f"{_count(sum(1 for x in state.lands.values() if x.influence == c), 'province')}"
                     + (f", {_count(len(state.cards[c]), 'hero or wonder', 'heroes and wonders')}"
                        if state.cards.get(c) else "")
                     for c in state.civs)
    return f"Round {state.round}, after commerce: {held}"


def _count(n: int, word: str, words: str = "") -> str:
    return f"{n} {word if n == 1 else words or word + 's'}"


# found by mncore.players (the seam may not name it: this module plays through the service)
DEMO = Demo(ruleset_id=RULESET_ID, players=(3, 6), play=play_demo, create=create_demo)
