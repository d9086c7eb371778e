"""Where a loadable position may be taken: where the game rested, or where a phase began."""

from __future__ import annotations

from typing import Any

from mncore.core.errors import InvalidCommand
from mncore.games import reading
from mncore.games.log_reading import fold
from mncore.store import Store


def check_resting(store: Store, loaded: reading.Loaded) -> None:
    """Refuse a position inside one command's outcome unless a phase began there (ruling K12).

    Inside an outcome the game never rested: a phase's work may be half done (some empires collected,
    others not), which a position cannot say, so a game started from it would do that work again.
    """
    last = loaded.rows[-1]
    after = store.row_at(loaded.game_id, last.seq + 1)
    if after is None or after.batch != last.batch:
        return
    first, began = last.batch, _phase_starts(loaded)
    if last.seq in began:
        return
    end = last.seq
    while (nxt := store.row_at(loaded.game_id, end + 1)) is not None and nxt.batch == last.batch:
        end = nxt.seq
    start = max((s for s in began if s >= first), default=first - 1)
    instead = f"--at {end}, after it" + (
        f", or --at {start}, where its phase began" if start >= first else
        f", or --at {start}, before it" if start >= 1 else "")
    raise InvalidCommand(
        f"--at {last.seq}: event {last.seq} is inside the outcome of one command (events {first} to "
        f"{end}), where the game never rested: a game started there would do again the work done "
        f"before it (such as collecting) [rule kernel:K12]; take {instead}")


def _phase_starts(loaded: reading.Loaded) -> set[int]:
    """The events of the last outcome, up to the loaded one, at which the game's phase changed."""
    ruleset, rows, events = loaded.ruleset, loaded.rows, loaded.events
    cut = next(i for i, r in enumerate(rows) if r.seq == rows[-1].batch)
    state: Any = fold(ruleset, events[:cut]) if cut else None
    phase, out = (ruleset.meta(state).phase if state is not None else ""), set()
    for row, event in zip(rows[cut:], events[cut:]):
        state = ruleset.evolve(state if state is not None else ruleset.initial(""), event)
        now = ruleset.meta(state).phase
        if phase and now != phase:  # a game's creation sets its first phase without starting it
            out.add(row.seq)
        phase = now
    return out
