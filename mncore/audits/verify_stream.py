"""mn verify of a stored game read in chunks, never all held: each check one pass over the log in order,
the commands decided again in segments of it, one process per core; the report is verify_rows'.

A keyed log (play by email, signed blocks) and one that reveals twice are streamed too: what their checks
read of the log before each batch is carried forward, bounded (mncore/audits/verify_carry.py). A log with
an undo, a correction or another act decided on the log before it (mncore/pbem/turns.py) is streamed as
well, its commands decided again in one pass here, not split: each act reads the log before it from the
store as it asks for it (mncore/audits/verify_acts.py)."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Sequence
from contextlib import ExitStack
from itertools import chain
from types import TracebackType
from typing import Any

import msgspec

from mncore.audits import verify, verify_acts
from mncore.audits.verify import (
    Head,
    Report,
    _can_fork,
    _chain_row,
    _check_chain,
    _check_heads_at,
    _check_hidden_pairs,
    _check_hidden_row,
    _check_upgrade,
    _command,
    _fold,
    _fork_pool,
    _on_log,
    _proven,
    _redecide_span,
    _replay_into,
    _replay_row,
    _ruleset,
    _secret_of,
    _Span,
    _undone,
    _workers,
)
from mncore.audits.verify_acts import spans
from mncore.audits.verify_carry import Carried, Carry, Needs, carry_batch, forget_nonce, survey_row
from mncore.core.chain import GENESIS_HASH, LOG_V1, content_link
from mncore.core.dice import commitment
from mncore.core.errors import IntegrityFailure
from mncore.core.kernel_acts import UNDO_TYPES
from mncore.core.kernel_state import secret_in
from mncore.core.protocol import Ruleset
from mncore.games.log_reading import collector_paused, decoded
from mncore.pbem import trust
from mncore.store import Row, Store

CHUNK = 500  # rows read from the store at a time
SEGMENT_ROWS = 500  # rows a worker decides again at a time (a segment ends where a batch does)
LAST_ROWS = 50  # the shortest segment (the first, and the last ones: _segment_rows)
QUEUED = 3  # segments each worker holds at most, the one it decides included (memory stays bounded)
# the ruleset, secret, fork point and what later batches read (the survey's): set before forking
_CONTEXT: tuple[Ruleset, bytes | None, int, Needs] | None = None


class _WholeLog(Exception):
    """A log whose checks read the log before a batch however far back (undos, acts of play by email):
    decided again in one pass (verify_acts), not split."""


class _Survey(msgspec.Struct, kw_only=True):
    count: int = 0
    head: str = GENESIS_HASH
    undoes: bool = False
    secret: bytes | None = None  # what the first SecretRevealed says
    revealed_at: int = 0
    revealed: str | None = None  # what the last one says: the kernel's (KernelState.secret)
    reveals: int = 0
    needs: Needs = msgspec.field(default_factory=Needs)  # what later batches read of earlier ones


def verify_stored(store: Store, game_id: str, heads: Sequence[Head], workers: int | None = None) -> Report:
    """verify_rows of the game's log, read from the store pass by pass; a log with an undo or another act
    decided on the log before it is decided again in one pass here (verify_acts), the log before each
    act read from the store as it is asked for."""
    version = store.log_version(game_id)
    try:
        return _streamed(store, game_id, version, heads, _workers(workers), False)
    except _WholeLog:  # the survey found no act that the decoder finds: the one pass takes it
        return _streamed(store, game_id, version, heads, _workers(workers), True)


def _chunks(store: Store, game_id: str, last: int) -> Iterator[Row]:
    for first in range(1, last + 1, CHUNK):
        yield from store.rows(game_id, first, min(first + CHUNK - 1, last))


def _survey(rows: Iterator[Row]) -> _Survey:
    out = _Survey()
    for r in rows:
        out.count, out.head = out.count + 1, r.hash
        out.undoes = out.undoes or r.type in UNDO_TYPES
        if r.type == "SecretRevealed" and not out.revealed_at:
            out.secret, out.revealed_at = _secret_of(r), r.seq
        out.revealed = secret_in(r) or out.revealed
        out.reveals += r.type == "SecretRevealed"
        survey_row(out.needs, r)
    out.needs.done()
    return out


def _streamed(store: Store, game_id: str, version: int, heads: Sequence[Head], workers: int, acts: bool) -> Report:
    """The passes one by one (or the one read, _fused); `acts`: decide again in one pass (verify_acts)."""
    last = store.head(game_id)[0]

    def stream() -> Iterator[Row]:
        return _chunks(store, game_id, last)

    survey = _survey(store.stream_rows(game_id, 1, last))  # through a cursor: it reads no salt
    acts = acts or survey.undoes or survey.needs.on_log
    # the one read checks the salts and decides again with one secret: a log that reveals twice (the
    # salts are the first's, the draws the last's) is left to the passes one by one
    if survey.reveals < 2 and not acts:
        try:
            return _fused(stream(), survey, version, heads, workers)
        except _Fallback:
            pass  # something to report, or a log the passes one by one must take: they name it
    report = Report(ok=True, events=survey.count, head_hash=survey.head, version=version)
    try:
        _check_chain(stream(), version)
        wanted = {h.hash for h in heads}
        _check_heads_at({r.hash: r.seq for r in stream() if r.hash in wanted}, survey.count, heads, report)
        content = GENESIS_HASH
        for r in stream():
            if r.type == "LogUpgraded":
                _check_upgrade(r, content, report)
            content = content_link(content, r.payload)
        first = next(stream())
        ruleset = _ruleset(first)
        final = _replay_into(ruleset, stream(), _undone(stream()) if survey.undoes else set(), None)
        first_event = next(e for _, e in decoded(ruleset, [first], "the payload is not a valid event"))
        if version != LOG_V1:
            _check_hidden_pairs(ruleset, decoded(ruleset, stream(), "the payload is not a valid event"),
                                survey.secret, first_event, report, None)
        _redecide_streamed(ruleset, stream, first_event, final, survey, report, workers,
                           (store, game_id) if acts else None)
    except IntegrityFailure as err:
        report.ok, report.first_bad, report.reason = False, err.seq, err.reason
        return report
    report.proven = _proven(report)
    return report


class _Fallback(Exception):
    """The one read found a failure, or a log it does not take: the passes one by one decide the report."""


def _fused(rows: Iterator[Row], survey: _Survey, version: int, heads: Sequence[Head], workers: int) -> Report:
    """Every check of the passes one by one in a single read of the log (each row read, decoded and
    folded once here), each segment handed to a worker as soon as it is folded.

    Any failure raises _Fallback: the passes one by one report the failure that comes first in their
    order (a broken chain late in the log before a bad hidden field early), so a clean log alone is
    reported from here, with the very report they give (tests/test_verify_split.py)."""
    try:
        return _fused_checks(rows, survey, version, heads, workers)
    except (IntegrityFailure, _WholeLog):
        raise _Fallback from None


def _fused_checks(rows: Iterator[Row], survey: _Survey, version: int, heads: Sequence[Head],
                  workers: int) -> Report:
    report = Report(ok=True, events=survey.count, head_hash=survey.head, version=version)
    first = next(rows, None)
    if first is None:
        raise _Fallback
    ruleset = _ruleset(first)
    first_event = next(e for _, e in decoded(ruleset, [first], "the payload is not a valid event"))
    created = ruleset.meta(ruleset.evolve(ruleset.initial(""), first_event))
    secret, forked_at = survey.secret, created.forked_at
    if secret is not None and commitment(secret) != created.commitment:
        raise _Fallback
    start = ruleset.initial(created.commitment)  # the re-decision's start; the replay's is initial("")
    if ruleset.evolve(start, first_event) != ruleset.evolve(ruleset.initial(""), first_event):
        raise _Fallback  # the two folds differ: fold them apart
    global _CONTEXT
    _CONTEXT = (ruleset, secret, forked_at, survey.needs)
    try:
        with _Hands(ruleset, report, workers, survey) as hand:
            return _fused_pass(ruleset, chain([first], rows), start, survey, version, heads, report, hand)
    finally:
        _CONTEXT = None


def _fused_pass(ruleset: Ruleset, rows: Iterator[Row], state: Any, survey: _Survey, version: int,
                heads: Sequence[Head], report: Report, hand: _Hands) -> Report:
    assert _CONTEXT is not None
    forked_at = _CONTEXT[2]
    wanted, at = {h.hash for h in heads}, {}
    front = _Front(state, hand, version)
    batch, buf = 0, list[Row]()
    before = previous = GENESIS_HASH  # the chain's hash before the segment read now, and before the row read now
    contents = [GENESIS_HASH]  # the content chain's heads in the segment read now: its worker reads them
    i = 0
    with collector_paused():
        for i, r in enumerate(rows, start=1):
            if r.seq != i:
                raise _Fallback
            if r.hash in wanted:
                at[r.hash] = r.seq
            if r.type == "LogUpgraded":
                _check_upgrade(r, contents[-1], report)
            if r.batch == r.seq:
                batch = r.seq
                if len(buf) >= _segment_rows(survey.count - r.seq + 1, front.number == 1):
                    front.segment(buf, contents, before)
                    buf, contents, before = [], [contents[-1]], previous
            elif not (batch and r.batch == batch):
                raise _Fallback
            buf.append(r)
            contents.append(content_link(contents[-1], r.payload))
            previous = r.hash
        if i != survey.count:
            raise _Fallback
        front.segment(buf, contents, before)
    hand.finish()
    _check_heads_at(at, i, heads, report)
    # the secret is the kernel's (the survey read it from the log's SecretRevealed), not the fold's
    if ruleset.meta(front.state).forked_at != forked_at:
        raise _Fallback
    report.opened = report.hidden
    report.secret_revealed = _CONTEXT[1] is not None
    report.inherited = forked_at
    report.draws = front.ledger.draws
    report.proven = _proven(report)
    return report


class _Front:
    """What the one read carries from a segment to the next: the state, ledger and carry before it, and
    the number of its first batch. A segment handed to a worker is folded here for the next one; one
    decided here gives the state after it itself, and the reader neither decodes nor folds it."""

    def __init__(self, state: Any, hand: _Hands, version: int) -> None:
        self.state, self.ledger, self.carry, self.number = state, trust.Ledger(), Carry(), 1
        self._hand, self._version = hand, version

    def segment(self, rows: list[Row], contents: list[str], previous: str) -> None:
        """The segment `rows`, read whole (`previous`: the chain's hash before it)."""
        assert _CONTEXT is not None
        needs = _CONTEXT[3]
        self.carry.drop_before(needs, rows[0].seq)
        try:
            self.state = self._next(rows, contents, previous)
        except (IntegrityFailure, _WholeLog):
            raise
        except Exception:  # a stored event that does not fold: the passes one by one name it
            raise _Fallback from None
        self.number += _batch_count(rows)

    def _next(self, rows: list[Row], contents: list[str], previous: str) -> Any:
        """The state after the segment, handed to a worker and folded here, or decided here."""
        assert _CONTEXT is not None
        ruleset, _, forked_at, needs = _CONTEXT
        check = (previous, self._version)
        if not self._hand.to_worker():
            state = self._hand.here((self.number, rows, self.state, self.ledger, contents, check, self.carry))
            # only a nonce given again is looked up (trust.check_block): the others would grow with the log
            self.ledger.nonces = {n: s for n, s in self.ledger.nonces.items() if needs.repeated(n)}
            return state
        self._hand.send((self.number, rows, self.state, _copy(self.ledger), contents, check, self.carry.copy()))
        stop, state = _fold_segment(ruleset, rows, self.state, self.ledger, forked_at, (self.carry, needs))
        if stop:  # a command that cannot be read: the passes one by one name it
            raise _Fallback
        return state


def _copy(ledger: trust.Ledger) -> trust.Ledger:
    return msgspec.json.decode(msgspec.json.encode(ledger), type=trust.Ledger)


def _redecide_streamed(ruleset: Ruleset, stream: Any, first_event: Any, folded: Any, survey: _Survey,
                       report: Report, workers: int, acts: tuple[Store, str] | None) -> None:
    """verify._redecide, a segment at a time: the segments' states and ledgers folded here, each
    segment decided again by a worker; the first failure in log order stops it, as in one pass.
    `acts`: the store and game of a log with acts of play by email, decided again here in one pass."""
    created = ruleset.meta(ruleset.evolve(ruleset.initial(""), first_event))
    final = ruleset.meta(folded)
    secret = bytes.fromhex(survey.revealed) if survey.revealed else None
    report.secret_revealed = secret is not None
    if secret is not None and commitment(secret) != created.commitment:
        raise IntegrityFailure(survey.revealed_at, "the revealed secret does not match the commitment of event 1")
    report.inherited = final.forked_at
    _check_batches(stream())
    if acts is not None:
        verify_acts.redecide(*acts, stream(), ruleset.initial(created.commitment), ruleset,
                             (secret, final.forked_at, survey.needs), report)
        return
    global _CONTEXT
    _CONTEXT = (ruleset, secret, final.forked_at, survey.needs)
    ledger = trust.Ledger()
    tasks = _tasks(ruleset, stream(), ruleset.initial(created.commitment), ledger, final.forked_at, survey)
    try:
        with _Hands(ruleset, report, workers, survey) as hand:
            for task in tasks:
                hand(task)
            hand.finish()
    finally:
        _CONTEXT = None
    report.draws = ledger.draws


def _check_batches(rows: Iterator[Row]) -> None:
    """verify._batches read once: each row opens a batch or belongs to the one it follows."""
    start = 0
    for r in rows:
        if r.batch == r.seq:
            start = r.seq
        elif not (start and r.batch == start):
            raise IntegrityFailure(r.seq, f"belongs to batch {r.batch}, which does not lead to it")


# first batch number, rows, state, ledger, the content chain's heads before each row and after the last; for the one read (_fused), the chain's hash
# before the segment and the log's format: the worker checks its rows as the passes one by one would;
# for the passes one by one, what the log before the segment left that its checks read, and the survey's
_Task = tuple[int, list[Row], Any, trust.Ledger, list[str], tuple[str, int] | None, Carry | None]
_Counts = tuple[int, int, int, int, int]  # commands checked, random unchecked, signed, on the log, hidden fields


def _tasks(ruleset: Ruleset, rows: Iterator[Row], state: Any, ledger: trust.Ledger, forked_at: int,
           survey: _Survey) -> Iterator[_Task]:
    """The segments, each with the state, ledger, content head and carry before it, folded and noted here
    as the one pass does between its decisions (`ledger` is left as after the last)."""
    buf: list[Row] = []
    number, content, needs = 1, GENESIS_HASH, survey.needs
    carry = Carry()
    for r in rows:
        if r.batch == r.seq and len(buf) >= _segment_rows(survey.count - r.seq + 1, number == 1):
            task, stop, state, content = _advance(ruleset, number, buf, state, ledger, content, forked_at,
                                                  (carry, needs))
            yield task
            if stop:
                return
            number, buf = number + _batch_count(buf), []
            carry.drop_before(needs, r.seq)
        buf.append(r)
    if buf:
        yield _advance(ruleset, number, buf, state, ledger, content, forked_at, (carry, needs))[0]


def _segment_rows(left: int, first: bool) -> int:
    """The rows of a segment that starts with `left` rows still to read: the first is short (the reader
    decides it before the workers are forked), and near the end each is a quarter of what is left, so
    that no process is still deciding a long segment while the others wait."""
    return LAST_ROWS if first else min(SEGMENT_ROWS, max(LAST_ROWS, left // 4))


def _batch_count(rows: Sequence[Row]) -> int:
    return sum(1 for r in rows if r.batch == r.seq)


def _advance(ruleset: Ruleset, number: int, rows: list[Row], state: Any, ledger: trust.Ledger, content: str,
             forked_at: int, carried: tuple[Carry, Needs]) -> tuple[_Task, bool, Any, str]:
    """The segment's task; True if a command in it cannot be read (its worker stops there with the
    failure: nothing after it is decided); the state and content head after it (`ledger` and the carry
    advanced)."""
    carry, needs = carried
    contents = [content]
    for r in rows:
        contents.append(content_link(contents[-1], r.payload))
    task: _Task = (number, rows, state, _copy(ledger), contents, None, carry.copy())
    stop, state = _fold_segment(ruleset, rows, state, ledger, forked_at, carried)
    return task, stop, state, contents[-1]


def _fold_segment(ruleset: Ruleset, rows: list[Row], state: Any, ledger: trust.Ledger, forked_at: int,
                  carried: tuple[Carry, Needs]) -> tuple[bool, Any]:
    """The segment folded, its commands noted in `ledger` and the carry advanced, as the one pass does
    between its decisions: True if a command in it cannot be read (stopped there), and the state after."""
    carry, needs = carried
    events = [e for _, e in decoded(ruleset, rows, "the payload is not a valid event")]
    with collector_paused():
        for start, end in spans(rows):
            batch = rows[start:end]
            try:
                cmd = _command(ruleset, batch, lenient=batch[0].seq <= forked_at)
            except IntegrityFailure:
                return True, state
            if _on_log(cmd):  # the survey found none: a guard, should it and the decoder disagree
                raise _WholeLog
            state = _fold(ruleset, events[start:end], state)
            if cmd is not None:
                trust.note(ledger, ruleset, cmd, batch[0].seq)
                forget_nonce(ledger, needs, cmd)
            carry_batch(carry, needs, ruleset, batch, state)
    return False, state


_PACKED = msgspec.msgpack.Decoder(tuple[list[Row], msgspec.Raw])


def _packed(ruleset: Ruleset, task: _Task) -> tuple[Any, ...]:
    """A task as the pool sends it: its rows and state in one msgpack blob, which both ends write and read
    in a fifth of pickle's time (pickle takes each Struct apart field by field); one blob, not two: two
    left the reader's peak RSS 4 MiB higher on a 100k-event log (how the allocator reuses them)."""
    number, rows, state, *rest = task
    return (number, msgspec.msgpack.encode((rows, msgspec.Raw(ruleset.encode_state(state)))), *rest)


def _decide_packed(packed: tuple[Any, ...]) -> tuple[_Counts, tuple[int, str] | None]:
    """_decide_segment of a task sent by _packed."""
    assert _CONTEXT is not None, "a segment is decided within _redecide_streamed"
    number, blob, *rest = packed
    rows, state = _PACKED.decode(blob)
    task: _Task = (number, rows, _CONTEXT[0].decode_state(state), *rest)
    return _decide_segment(task)


def _decide_segment(task: _Task) -> tuple[_Counts, tuple[int, str] | None]:
    """Decide one segment again (in a worker, or here): its counts and its first failure (seq, reason)."""
    return _decided(task)[0]


def _decided(task: _Task) -> tuple[tuple[_Counts, tuple[int, str] | None], Any]:
    """_decide_segment's answer, and the state after the segment (meaningless after a failure)."""
    assert _CONTEXT is not None, "a segment is decided within _redecide_streamed"
    ruleset, secret, forked_at, needs = _CONTEXT
    number, rows, state, ledger, contents, rowcheck, carry = task
    try:
        events = [e for _, e in decoded(ruleset, rows, "the payload is not a valid event")]
        commands: dict[int, Any] = {}
        hidden = _check_rows(ruleset, rows, events, secret, rowcheck, commands) if rowcheck is not None else 0
    except IntegrityFailure as err:
        return ((0, 0, 0, 0, 0), (err.seq, err.reason)), state
    _guard(ruleset, rows, commands)
    span = _Span(ruleset=ruleset, rows=rows, events=events, contents=contents, commands=commands, secret=secret,
                 forked_at=forked_at, keyed=False)
    part = Report(ok=True, events=0, head_hash="")
    failure = None
    try:
        context = Carried(carry, needs, rows, rows[0].seq - 1) if carry is not None else None
        state = _redecide_span(span, spans(rows), number, state, ledger, part, context)
    except IntegrityFailure as err:
        failure = (err.seq, err.reason)
    return ((part.commands_checked, part.random_unchecked, part.signed_checked, part.on_log, hidden), failure), state


def _guard(ruleset: Ruleset, rows: Sequence[Row], commands: dict[int, Any]) -> None:
    """No command of the segment is decided on the log before it (the survey found none: a guard, should
    it and the decoder disagree; a segment the reader decides itself is not folded by it first)."""
    for r in rows:
        if r.batch == r.seq and r.command is not None:
            cmd = commands[r.seq] if r.seq in commands else _command(ruleset, [r], lenient=True)
            if _on_log(cmd):
                raise _WholeLog


def _check_rows(ruleset: Ruleset, rows: Sequence[Row], events: Sequence[Any], secret: bytes | None,
                rowcheck: tuple[str, int], commands: dict[int, Any]) -> int:
    """The checks of each row alone, for _fused: its chain link, its hidden fields, its event's type
    and canonical encoding (the reader folded it already); the hidden fields counted, each command
    decoded kept in `commands` by its seq (the re-decision reads it)."""
    previous, version = rowcheck
    part = Report(ok=True, events=0, head_hash="")
    for r, e in zip(rows, events, strict=True):
        previous = _chain_row(r, r.seq, previous, version)
        if version != LOG_V1:
            commands[r.seq] = _check_hidden_row(ruleset, r, e, secret, part)
        _replay_row(ruleset, r, e, None, True)
    return part.hidden


class _Hands:
    """Where each segment is decided again: by a worker while the workers hold fewer than QUEUED each,
    else here by the reader, which would otherwise wait for them. The first is decided here before the
    workers are forked, so that they share what deciding it imported and cached. A log with keys is
    decided by the workers alone: deciding its signed blocks beside the reader's work and the pool
    held this process above issue 27's 40 MiB at 100,000 events. The results are merged into the
    report in log order, so that the first failure in the log is the one raised, as in one pass."""

    def __init__(self, ruleset: Ruleset, report: Report, workers: int, survey: _Survey) -> None:
        self._ruleset, self._report = ruleset, report
        self._decides = not survey.needs.keyed  # whether this process decides segments beside its workers
        # one process per core in all; none forked for a short log, where starting them would cost more
        # than they save
        split = workers >= 2 and survey.count >= verify.SPLIT_MIN and _can_fork()
        self._workers = (workers - self._decides) if split else 0
        self._pool: Any = None
        self._stack = ExitStack()
        self._waiting: deque[Any] = deque()  # in log order: a worker's AsyncResult, or a result decided here

    def __enter__(self) -> _Hands:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self._stack.__exit__(kind, error, trace)  # the pool closed and joined, or terminated if this raised

    def __call__(self, task: _Task) -> None:
        if self.to_worker():
            self.send(task)
        else:
            self.here(task)

    def to_worker(self) -> bool:
        """Whether the next segment goes to a worker (where this process decides none, once one is free)."""
        self._merge_ready()
        if self._decides:
            return self._pool is not None and self._held() < QUEUED * self._workers
        if self._pool is None and self._workers:
            self._pool = self._stack.enter_context(_fork_pool(self._workers))
        while self._pool is not None and self._held() > self._workers:  # one a worker, and one more
            _merge(self._report, _result(self._waiting.popleft()))
        return self._pool is not None

    def _held(self) -> int:
        return sum(not isinstance(w, tuple) for w in self._waiting)

    def send(self, task: _Task) -> None:
        self._waiting.append(self._pool.apply_async(_decide_packed, (_packed(self._ruleset, task),)))

    def here(self, task: _Task) -> Any:
        """Decide the segment here: the state after it (the task's ledger and carry advanced)."""
        result, state = _decided(task)
        self._waiting.append(result)
        if result[1] is not None:  # a failure: those before it are merged first, and the first raised
            self.finish()
        self._merge_ready()
        if self._pool is None and self._workers:
            self._pool = self._stack.enter_context(_fork_pool(self._workers))
        return state

    def finish(self) -> None:
        """Wait for the workers, merging every result left."""
        while self._waiting:
            _merge(self._report, _result(self._waiting.popleft()))

    def _merge_ready(self) -> None:
        while self._waiting and (isinstance(self._waiting[0], tuple) or self._waiting[0].ready()):
            _merge(self._report, _result(self._waiting.popleft()))


def _result(waited: Any) -> tuple[_Counts, tuple[int, str] | None]:
    return waited if isinstance(waited, tuple) else waited.get()


def _merge(report: Report, result: tuple[_Counts, tuple[int, str] | None]) -> None:
    counts, failure = result
    report.commands_checked += counts[0]
    report.random_unchecked += counts[1]
    report.signed_checked += counts[2]
    report.on_log += counts[3]
    report.hidden += counts[4]
    if failure is not None:
        raise IntegrityFailure(*failure)
