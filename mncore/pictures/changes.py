"""The board picture of a game for a viewer, marked with what changed since an event (mn draw --since, reports)."""

from __future__ import annotations

from mncore.core.kernel_state import undone_seqs
from mncore.core.protocol import Changes, Pictures, Ruleset
from mncore.games.reading import Loaded
from mncore.secrecy import boundary


def picture(loaded: Loaded, viewer: str | None, since: int | None = None) -> str | None:
    """The board at the loaded state as viewer sees it; with `since`, marked with what the events after
    it did, each event as viewer may see it (the one boundary, boundary.seen_event). None: no pictures."""
    ruleset: Ruleset = loaded.ruleset
    if not isinstance(loaded.ruleset, Pictures):
        return None
    seen = boundary.seen_state(ruleset, loaded.state, viewer)
    if since is None or not isinstance(loaded.ruleset, Changes):
        return str(loaded.ruleset.draw_svg(seen))
    opened = loaded.meta.secret is not None
    gone = undone_seqs(loaded.kernel.email)
    events = [boundary.seen_event(ruleset, event, viewer, opened)
              for row, event in zip(loaded.rows, loaded.events) if row.seq > since and row.seq not in gone]
    return str(loaded.ruleset.draw_changes(seen, events))
