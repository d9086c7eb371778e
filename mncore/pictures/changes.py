"""The board picture of a game for a viewer, marked with what changed since an event (mn draw --since, reports)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mncore.core.protocol import Changes, Pictures, Ruleset
from mncore.games.reading import Loaded
from mncore.pbem import turns
from mncore.secrecy import boundary
from mncore.store import Row


def picture(loaded: Loaded, viewer: str | None, since: int | None = None) -> str | None:
    """The board at the loaded state as viewer sees it; with `since`, marked with what the events after
    it did, each event as viewer may see it (the one boundary, boundary.seen_event). None: no pictures."""
    return drawn(loaded.ruleset, loaded.state, viewer, loaded.meta.secret is not None, loaded.rows,
                 loaded.events, since)


def drawn(ruleset: Ruleset, state: Any, viewer: str | None, opened: bool, rows: Sequence[Row],
          events: Sequence[Any], since: int | None = None) -> str | None:
    """picture() of a state and the rows and events that led to it (a stored game's, or a side's
    export's: mncore/client/exported.py)."""
    if not isinstance(ruleset, Pictures):
        return None
    seen = boundary.seen_state(ruleset, state, viewer)
    if since is None or not isinstance(ruleset, Changes):
        return str(ruleset.draw_svg(seen))
    gone = turns.undone_seqs(rows)
    marked = [boundary.seen_event(ruleset, event, viewer, opened)
              for row, event in zip(rows, events) if row.seq > since and row.seq not in gone]
    return str(ruleset.draw_changes(seen, marked))
