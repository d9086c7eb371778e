"""mn verify of a stored log with acts of play by email decided on the log before them: one pass, the log
before each act read from the store as it is asked for."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, cast

from mncore.audits.verify import Before, Report, Taken, _redecide_span, _Span
from mncore.audits.verify_carry import Carry, Needs, carry_batch
from mncore.core.chain import GENESIS_HASH, content_link
from mncore.core.errors import IntegrityFailure
from mncore.core.kernel_acts import KERNEL_EVENTS, UNDO_TYPES
from mncore.core.kernel_state import PlayByEmail, email_step
from mncore.core.protocol import Pending, Ruleset
from mncore.games.log_reading import decoded
from mncore.games.reading import StoredEvents, StoredPrefix
from mncore.pbem import draw_keys, trust, turns
from mncore.store import Row, Store

_INVALID = "the payload is not a valid event"  # verify's words for a row that does not decode

SEGMENT = 500  # rows decided again at a time (a segment ends where a batch does)


def redecide(store: Store, game_id: str, rows: Iterator[Row], start: Any, ruleset: Ruleset,
             drawn: tuple[bytes | None, int, Needs], report: Report) -> None:
    """verify._redecide of the stored log `rows` (its batches checked), from the state `start`, in this
    process: an undo, a correction or a deadline's default reads the log before it (mncore/pbem/turns.py),
    however far back, and what it changes (a state taken back to, consents, standing orders) bears on
    every batch after it, so the log is not split. `drawn`: the secret the draws are decided with,
    the last event a fork copied, and what the survey found later batches read."""
    secret, forked_at, needs = drawn
    context = StoredBefore(store, game_id, ruleset, start, needs)
    ledger, state, number, content = trust.Ledger(), start, 1, GENESIS_HASH
    try:
        for segment in _segments(rows):
            contents = [content]
            for r in segment:
                contents.append(content_link(contents[-1], r.payload))
            events = [e for _, e in decoded(ruleset, segment, _INVALID)]
            span = _Span(ruleset=ruleset, rows=segment, events=events, contents=contents, commands={},
                         secret=secret, forked_at=forked_at, keyed=False)
            context.enter(segment)
            batches = spans(segment)
            state = _redecide_span(span, batches, number, state, ledger, report, context)
            number, content = number + len(batches), contents[-1]
            # only a nonce given again is looked up (trust.check_block): the others would grow with the log
            ledger.nonces = {n: s for n, s in ledger.nonces.items() if needs.repeated(n)}
    except IntegrityFailure:
        report.draws = 0  # as one pass over the whole log leaves it when a batch fails
        raise


def _segments(rows: Iterator[Row]) -> Iterator[list[Row]]:
    buf: list[Row] = []
    for r in rows:
        if r.batch == r.seq and len(buf) >= SEGMENT:
            yield buf
            buf = []
        buf.append(r)
    if buf:
        yield buf


def spans(rows: Sequence[Row]) -> list[tuple[int, int]]:
    """(start, end) index ranges of the batches of a segment (it starts with one: its batches were checked)."""
    out: list[tuple[int, int]] = []
    for i, r in enumerate(rows):
        if r.batch == r.seq:
            out.append((i, i + 1))
        else:
            out[-1] = (out[-1][0], i + 1)
    return out


class StoredBefore(Before):
    """verify.Before of a stored log decided again a segment at a time: the rows and events before a
    batch read from the store when asked (StoredPrefix, StoredEvents), the record of play by email and
    the undos carried as the segments pass, what a signed block reads carried bounded (verify_carry);
    what the acts ask of the log (turns.Log) carried too (CarriedLog): the state now, since when each
    side has been waited for, and the state before each batch that a later act names (only those)."""

    def __init__(self, store: Store, game_id: str, ruleset: Ruleset, start: Any, needs: Needs) -> None:
        super().__init__((), False, (), start)
        self._store, self._game_id, self._ruleset, self._needs = store, game_id, ruleset, needs
        self._carry = Carry()
        self._email = PlayByEmail()
        self._undos: list[tuple[int, int, int]] = []  # each undo's seq, and the first and last event it took back
        self._taken = Taken(())
        self._orders = 0  # K11's count of the players' order batches in play (draw_keys.orders_before)
        self._offset = 0
        self._now = start
        # turns.waits of the log so far; None once an undo went where the carried states cannot follow
        self._since: turns.Since | None = {}
        self._before: dict[int, tuple[Any, turns.Since | None]] = {}  # by batch named later: the state and waits before it
        if needs.named_until(1):
            self._before[1] = (start, {})

    def enter(self, segment: Sequence[Row]) -> None:
        """The segment decided next, its batches' starts counted from its first row."""
        self._offset = segment[0].seq - 1
        self._carry.drop_before(self._needs, segment[0].seq)
        self._before = {b: kept for b, kept in self._before.items() if self._needs.named_until(b) >= segment[0].seq}

    def prior(self, start: int) -> StoredPrefix:
        return StoredPrefix(self._store, self._game_id, self._offset + start,
                            self._orders if self._needs.keyed else None, self._taken)

    def revealed(self, start: int) -> str | None:
        return self._carry.revealed

    def pending_at(self, seq: int) -> list[Pending]:
        return self._carry.pending.get(seq, [])

    def log(self, start: int) -> turns.Log:
        rows = self.prior(start)
        events = StoredEvents(self._store, self._ruleset, rows, _INVALID)
        if self._since is None:
            return turns.Log(rows=rows, events=events, email=self._email)
        return CarriedLog(rows=rows, events=events, email=self._email, state=self._now, since=self._since,
                          before={b: state for b, (state, _) in self._before.items()})

    def state_before(self, batch: int, ruleset: Ruleset) -> Any:
        if batch in self._before:
            return self._before[batch][0]
        row = self._store.row_at(self._game_id, batch) if batch >= 1 else None
        if row is None or row.batch != batch:
            return None
        gone = Taken((first, through) for seq, first, through in self._undos if seq < batch)
        pairs = decoded(ruleset, self._store.stream_rows(self._game_id, 1, batch - 1), _INVALID)
        return turns.fold_before(ruleset, self._start, pairs, batch, gone)

    def passed(self, ruleset: Ruleset, batch: Sequence[Row], state: Any) -> None:
        carry_batch(self._carry, self._needs, ruleset, batch, state)
        first = batch[0]
        if self._needs.keyed and first.command is not None and first.seq not in self._taken \
                and draw_keys.counts(first.command):
            self._orders += 1
        undos = [r for r in batch if r.type in UNDO_TYPES]
        for r in batch:
            self._email = email_step(self._email, r)
            if r.type in UNDO_TYPES:
                self._undo(r)
        self._wait(ruleset, batch, undos, state)

    def _wait(self, ruleset: Ruleset, batch: Sequence[Row], undos: Sequence[Row], state: Any) -> None:
        """turns.waits carried over a batch that ended in `state`. After an undo the waits are those
        before the batch it took back (what it took back changes no state, K1 and K3) where the undo
        is one this pass can follow: one per batch, after nothing but the kernel's own events, taking
        back a batch whose state was kept through the event before its own; else no longer carried."""
        since = self._since
        if undos and since is not None:
            since = self._since_before(batch, undos)
        self._since = None if since is None else turns.waited_since(
            ruleset, state, since, batch[-1], lambda _: batch[0].recorded_at)
        self._now = state
        after = batch[-1].seq + 1
        if self._needs.named_until(after):
            self._before[after] = (state, self._since)

    def _since_before(self, batch: Sequence[Row], undos: Sequence[Row]) -> turns.Since | None:
        if len(undos) > 1:
            return None
        ((first, through),) = turns.undone_ranges(undos)
        kept = self._before.get(first)
        plain = all(r.type in _KERNEL for r in batch if r.seq < undos[0].seq)
        if kept is None or not plain or through != batch[0].seq - 1 or first >= batch[0].seq:
            return None
        return kept[1]

    def _undo(self, row: Row) -> None:
        """An undo or a correction passed: its run taken back, and K11's count without the batches in it."""
        ((first, through),) = turns.undone_ranges([row])
        if self._needs.keyed and first <= through:
            for r in self._store.stream_rows(self._game_id, max(first, 1), min(through, row.seq)):
                if (r.batch == r.seq and r.command is not None and r.seq not in self._taken
                        and draw_keys.counts(r.command)):
                    self._orders -= 1
        self._undos.append((row.seq, first, through))
        self._taken = Taken((f, t) for _, f, t in self._undos)


_KERNEL = frozenset(t.__name__ for t in KERNEL_EVENTS)


class CarriedLog(turns.Log, kw_only=True):
    """turns.Log of a stored log's first rows whose answers to the acts were carried as the pass read
    them (StoredBefore): the state it folds into, since when each side has been waited for, and the
    states before the batches later acts name; the rows from a batch on read from the store."""

    state: Any
    since: turns.Since
    before: dict[int, Any]

    def now(self, ruleset: Ruleset) -> Any:
        return self.state

    def waited(self, ruleset: Ruleset) -> tuple[Any, turns.Since]:
        return self.state, self.since

    def state_before(self, ruleset: Ruleset, batch: int) -> Any:
        if batch in self.before:
            return self.before[batch]
        return super().state_before(ruleset, batch)  # a batch no act was seen to name: folded from the store

    def rows_from(self, seq: int) -> Iterator[Row]:
        return cast(StoredEvents, self.events).rows_from(seq)

    def pairs_from(self, seq: int) -> Iterator[tuple[Row, Any]]:
        return cast(StoredEvents, self.events).pairs_from(seq)
