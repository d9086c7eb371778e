"""The demonstration game of any ruleset: created, played by its scripted players, ended, revealed, verified."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from mncore.core.dice import seeded_secret
from mncore.core.protocol import Ruleset
from mncore.games import lifecycle, writing
from mncore.games.reading import Current, Loaded
from mncore.secrecy import boundary
from mncore.store import Store


@dataclass(frozen=True)
class Script:
    """What a ruleset's demonstration brings of its own: the game, who plays it and how, and its words."""

    command: Any  # the creation command
    cast: str  # who plays which side, and how (the first line)
    # the scripted players: (store, game, secret, on_order) -> the game once they stop
    play: Callable[[Store, Loaded, bytes, Callable[[Loaded | Current], None]], Loaded]
    # a progress line is printed once per distinct mark of a state (None: no line for this state)
    mark: Callable[[Any], Hashable | None]
    line: Callable[[Any], str]
    result: Callable[[Any], str]  # the line of a won game
    won: Callable[[Any], bool]
    closing: Callable[[Any], str] | None = None  # a last progress line of the final state


def run(ruleset: Ruleset, store: Store, script: Script, seed: str, max_orders: int,
        echo: Callable[[str], None]) -> str:
    """Play the script's game to a win (or max_orders), reveal its secret and verify it; its id."""
    secret = seeded_secret(seed)
    loaded = writing.create(store, ruleset, script.command, secret)
    echo(f"Demo game {loaded.game_id} in {store.path}: {script.cast}")
    seen: set[Hashable] = set()

    def progress(game: Loaded | Current) -> None:
        mark = script.mark(game.state)
        if mark is not None and mark not in seen:
            seen.add(mark)
            echo(script.line(game.state))

    progress(loaded)
    loaded = script.play(store, loaded, secret, progress)
    state = loaded.state
    if script.closing is not None:
        echo(script.closing(state))
    echo("")
    echo(ruleset.show_text(ruleset.view(boundary.as_host(state))))
    echo("")
    if script.won(state):
        echo(script.result(state))
        lifecycle.reveal(store, loaded.game_id)
    else:
        echo(f"No winner after {len(loaded.rows)} events (stopped at --max-orders {max_orders}).")
    report = lifecycle.verify_game(store, loaded.game_id)
    echo(f"Verify: {'ok' if report.ok else 'FAILED'} — " + "; ".join(report.proven or [report.reason or ""]))
    echo(f"Read it with: mn log {loaded.game_id} | mn show {loaded.game_id} | mn verify {loaded.game_id}")
    return loaded.game_id
