"""turns.Log of a game at its head answered from its Current and the store, without reading the whole log."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from mncore.core.kernel_state import undone_seqs
from mncore.games.log_reading import decoded
from mncore.games.reading import Current, Loaded, _log, _StoredLog, load, snapshot_at_or_before
from mncore.pbem import turns
from mncore.store import Row, Store

_UNREADABLE = "cannot decode the stored event"


class LiveLog(turns.Log, kw_only=True):
    """turns.Log of a stored game up to the head of `cur`: the record of play by email and the state
    from the Current, the waits from the snapshots back to where each began (waited), the rows from a
    batch on streamed from the store, the state before a batch folded from the snapshot at or before
    it; the whole log read only where events were taken back, which the snapshots before do not know."""

    store: Any  # the Store it is read from
    cur: Any  # the Current at the log's end

    def now(self, ruleset: Any) -> Any:
        return self.cur.state

    def waited(self, ruleset: Any) -> tuple[Any, turns.Since]:
        return waited(self.store, self.cur)

    def state_before(self, ruleset: Any, batch: int) -> Any:
        if self.cur.kernel.email.undone:
            return _log(load(self.store, self.cur.game_id, self.cur.head[0])).state_before(ruleset, batch)
        start = snapshot_at_or_before(self.store, self.cur.game_id, ruleset, batch - 1)
        at, state = (start.head[0], start.state) if start is not None else (0, ruleset.initial(""))
        pairs = decoded(ruleset, self.store.stream_rows(self.cur.game_id, at + 1, batch - 1), _UNREADABLE)
        return turns.fold_before(ruleset, state, pairs, batch, ())

    def rows_from(self, seq: int) -> Iterator[Row]:
        return self.store.stream_rows(self.cur.game_id, max(seq, 1), self.cur.head[0])  # type: ignore[no-any-return]

    def pairs_from(self, seq: int) -> Iterator[tuple[Row, Any]]:
        return decoded(self.cur.ruleset, self.rows_from(seq), _UNREADABLE)


def log_of(store: Store, game: Loaded | Current) -> turns.Log:
    """The log before the game's next batch as play by email reads it: a Loaded's own, a Current's from the store."""
    if isinstance(game, Loaded):
        return _log(game)
    rows = _LiveRows(store, game)
    return LiveLog(rows=rows, events=_StoredEvents(store, game.ruleset, rows), game_id=game.game_id,
                   email=game.kernel.email, store=store, cur=game)


class _LiveRows(_StoredLog):
    """A Current's log as rows read when asked for, with the events its undos took back from the kernel's
    record (`taken_back`, which draw_keys.service_key reads instead of scanning the rows), read back from
    the end a chunk at a time (_StoredLog's reversed: service_key looks there for the side's last signed block)."""

    def __init__(self, store: Store, cur: Current) -> None:
        super().__init__(store, cur.game_id, cur.head[0])
        self.taken_back = undone_seqs(cur.kernel.email)


class _StoredEvents(Sequence[Any]):
    """The events of a _StoredLog's rows, each decoded when asked for."""

    def __init__(self, store: Store, ruleset: Any, rows: _StoredLog) -> None:
        self._store, self._ruleset, self._rows = store, ruleset, rows

    def __len__(self) -> int:
        return len(self._rows)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        return self._ruleset.decode_event(self._rows[index].payload)

    def __iter__(self) -> Iterator[Any]:
        return (e for _, e in decoded(self._ruleset, iter(self._rows), _UNREADABLE))


def waited(store: Store, cur: Current) -> tuple[Any, turns.Since]:
    """The state at the head of `cur` and since when each side has been waited for (turns.Log.waited):
    read back from the head only as far as each wait began, one snapshot further at a time. A log that
    took back events is read whole: what an undo or a correction took back changes no state before it
    either (K1, K3), which the snapshots taken before it do not know."""
    ruleset, game_id, head = cur.ruleset, cur.game_id, cur.head[0]
    if cur.kernel.email.undone:
        return _log(load(store, game_id, head)).waited(ruleset)
    before = head
    while True:
        start = snapshot_at_or_before(store, game_id, ruleset, before)
        at, state = (start.head[0], start.state) if start is not None else (0, ruleset.initial(""))
        rows = store.rows(game_id, at + 1, head)
        events = [e for _, e in decoded(ruleset, rows, _UNREADABLE)]
        # a side waited for at the snapshot: its wait began there or before (_BEFORE), unless it changes
        since: turns.Since = {s: (_BEFORE, "", texts) for s, texts in turns.pending_texts(ruleset, state).items()
                              } if at else {}
        # each batch's time: its first row's, read with it (a snapshot is taken at a batch's end)
        times = {r.seq: r.recorded_at for r in rows if r.batch == r.seq}
        state, since = turns.waits(ruleset, state, since, rows, events, (), _time_of(times))
        if at == 0 or all(seq != _BEFORE for seq, _, _ in since.values()):
            return state, since
        before = at - 1


_BEFORE = -1  # a wait that began at or before the snapshot read from: read from the one before


def _time_of(times: dict[int, str]) -> Callable[[Row], str]:
    return lambda row: times[row.batch]
