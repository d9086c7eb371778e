"""turns.Log of a game at its head answered from its Current and the store, without reading the whole log."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, cast

from mncore.core.kernel_acts import UNDO_TYPES
from mncore.core.kernel_state import undone_seqs
from mncore.games.log_reading import decoded
from mncore.games.reading import (
    _UNREADABLE,
    Current,
    Loaded,
    StoredEvents,
    StoredPrefix,
    _log,
    snapshot_at_or_before,
    standing_snapshot,
)
from mncore.pbem import turns
from mncore.store import Row, Store


class LiveLog(turns.Log, kw_only=True):
    """turns.Log of a stored game up to the head of `cur`: the record of play by email and the state
    from the Current, the waits from the snapshots back to where each began (waited), the rows from a
    batch on streamed from the store, the state before a batch folded from the snapshot at or before
    it that what was taken back later leaves standing (reading.stands)."""

    store: Any  # the Store it is read from
    cur: Any  # the Current at the log's end

    def now(self, ruleset: Any) -> Any:
        return self.cur.state

    def waited(self, ruleset: Any) -> tuple[Any, turns.Since]:
        return waited(self.store, self.cur)

    def state_before(self, ruleset: Any, batch: int) -> Any:
        # turns.Log.state_before skips what the undos before `batch` took back: from a snapshot, what those
        # after it took back, if none of them took back anything at or before it (else an earlier one)
        game_id, before, taken = self.cur.game_id, batch - 1, list[tuple[int, int]]()
        while True:
            start = snapshot_at_or_before(self.store, game_id, ruleset, before)
            at = start.head[0] if start is not None else 0
            if self.cur.kernel.email.undone:  # the undos between the snapshot and the batch, read first
                taken = turns.undone_ranges([r for r in self.store.stream_rows(game_id, at + 1, batch - 1)
                                             if r.type in UNDO_TYPES])
            if start is None or all(first > at for first, _ in taken):
                break
            before = at - 1
        state = start.state if start is not None else ruleset.initial("")
        gone = {s for first, through in taken for s in range(first, through + 1)}
        pairs = decoded(ruleset, self.store.stream_rows(game_id, at + 1, batch - 1), _UNREADABLE)
        return turns.fold_before(ruleset, state, pairs, batch, gone)

    def rows_from(self, seq: int) -> Iterator[Row]:
        return cast(StoredEvents, self.events).rows_from(seq)

    def pairs_from(self, seq: int) -> Iterator[tuple[Row, Any]]:
        return cast(StoredEvents, self.events).pairs_from(seq)


def log_of(store: Store, game: Loaded | Current) -> turns.Log:
    """The log before the game's next batch as play by email reads it: a Loaded's own, a Current's from the store."""
    if isinstance(game, Loaded):
        return _log(game)
    # the events its undos took back from the kernel's record, which draw_keys.service_key reads instead
    # of scanning the rows
    rows = StoredPrefix(store, game.game_id, game.head[0], None, undone_seqs(game.kernel.email))
    return LiveLog(rows=rows, events=StoredEvents(store, game.ruleset, rows), game_id=game.game_id,
                   email=game.kernel.email, store=store, cur=game)


def waited(store: Store, cur: Current) -> tuple[Any, turns.Since]:
    """The state at the head of `cur` and since when each side has been waited for (turns.Log.waited):
    read back from the head only as far as each wait began, one snapshot further at a time. What an undo
    or a correction took back changes no state before it either (K1, K3): the waits fold every event
    but those, and a snapshot taken before it that holds one of them is passed over (reading.standing_snapshot)."""
    ruleset, game_id, head = cur.ruleset, cur.game_id, cur.head[0]
    gone = undone_seqs(cur.kernel.email)
    before = head
    while True:
        start = standing_snapshot(store, game_id, ruleset, before, cur.kernel)
        at, state = (start.head[0], start.state) if start is not None else (0, ruleset.initial(""))
        rows = store.rows(game_id, at + 1, head)
        events = [e for _, e in decoded(ruleset, rows, _UNREADABLE)]
        # a side waited for at the snapshot: its wait began there or before (_BEFORE), unless it changes
        since: turns.Since = {s: (_BEFORE, "", texts) for s, texts in turns.pending_texts(ruleset, state).items()
                              } if at else {}
        # each batch's time: its first row's, read with it (a snapshot is taken at a batch's end)
        times = {r.seq: r.recorded_at for r in rows if r.batch == r.seq}
        state, since = turns.waits(ruleset, state, since, rows, events, gone, _time_of(times))
        if at == 0 or all(seq != _BEFORE for seq, _, _ in since.values()):
            return state, since
        before = at - 1


_BEFORE = -1  # a wait that began at or before the snapshot read from: read from the one before


def _time_of(times: dict[int, str]) -> Callable[[Row], str]:
    return lambda row: times[row.batch]
