"""mn verify of a stored game read in chunks, never all held: each check one pass over the log in order,
the commands decided again in segments of it, one process per core; the report is verify_rows'."""

from __future__ import annotations

import multiprocessing
from collections import deque
from collections.abc import Iterator, Sequence
from typing import Any

import msgspec

from mncore import trust, verify
from mncore.chain import GENESIS_HASH, LOG_V1, content_link
from mncore.dice import commitment
from mncore.errors import IntegrityFailure
from mncore.host import PBEM_COMMANDS, UNDO_TYPES, OrderBatch, SignedOrders
from mncore.kernelstate import secret_in
from mncore.logread import collector_paused, decoded
from mncore.protocol import Ruleset
from mncore.store import Row, Store
from mncore.verify import (
    Head,
    Report,
    _check_chain,
    _check_heads_at,
    _check_hidden_pairs,
    _check_upgrade,
    _command,
    _fold,
    _proven,
    _redecide_span,
    _replay_into,
    _ruleset,
    _secret_of,
    _Span,
    _workers,
    verify_rows,
)

CHUNK = 500  # rows read from the store at a time
SEGMENT_ROWS = 500  # rows a worker decides again at a time (a segment ends where a batch does)
_CONTEXT: tuple[Ruleset, bytes | None, int] | None = None  # the ruleset, secret, fork point: set before forking


class _WholeLog(Exception):
    """A log whose checks read the log before each batch (keys, undos, play by email): verify_rows."""


class _Survey(msgspec.Struct, kw_only=True):
    count: int = 0
    head: str = GENESIS_HASH
    undoes: bool = False
    keyed: bool = False
    secret: bytes | None = None  # what the first SecretRevealed says
    revealed_at: int = 0
    revealed: str | None = None  # what the last one says: the kernel's (KernelState.secret)
    reveals: int = 0


def verify_stored(store: Store, game_id: str, heads: Sequence[Head], workers: int | None = None) -> Report:
    """verify_rows of the game's log, read from the store pass by pass; a log of play by email (its
    checks read what came before each batch) is read whole and given to verify_rows."""
    version = store.log_version(game_id)
    try:
        return _streamed(store, game_id, version, heads, _workers(workers))
    except _WholeLog:
        return verify_rows(store.rows(game_id), version, heads, workers)


def _chunks(store: Store, game_id: str, last: int) -> Iterator[Row]:
    for first in range(1, last + 1, CHUNK):
        yield from store.rows(game_id, first, min(first + CHUNK - 1, last))


def _survey(rows: Iterator[Row]) -> _Survey:
    out = _Survey()
    second = False  # the second batch's first row seen
    for r in rows:
        out.count, out.head = out.count + 1, r.hash
        out.undoes = out.undoes or r.type in UNDO_TYPES
        if r.batch == r.seq and out.count > 1 and not second:
            second, out.keyed = True, r.type == "KeysPublished"
        if r.type == "SecretRevealed" and not out.revealed_at:
            out.secret, out.revealed_at = _secret_of(r), r.seq
        out.revealed = secret_in(r) or out.revealed
        out.reveals += r.type == "SecretRevealed"
    return out


def _streamed(store: Store, game_id: str, version: int, heads: Sequence[Head], workers: int) -> Report:
    last = store.head(game_id)[0]

    def stream() -> Iterator[Row]:
        return _chunks(store, game_id, last)

    survey = _survey(stream())
    # a second reveal is refused against the first, which a segment after it does not hold
    if survey.undoes or survey.keyed or survey.reveals > 1:
        raise _WholeLog
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
        final = _replay_into(ruleset, stream(), set(), None)
        first_event = next(e for _, e in decoded(ruleset, [first], "the payload is not a valid event"))
        if version != LOG_V1:
            _check_hidden_pairs(ruleset, decoded(ruleset, stream(), "the payload is not a valid event"),
                                survey.secret, first_event, report, None)
        _redecide_streamed(ruleset, stream, first_event, final, survey, report, workers)
    except IntegrityFailure as err:
        report.ok, report.first_bad, report.reason = False, err.seq, err.reason
        return report
    report.proven = _proven(report)
    return report


def _redecide_streamed(ruleset: Ruleset, stream: Any, first_event: Any, folded: Any, survey: _Survey,
                       report: Report, workers: int) -> None:
    """verify._redecide, a segment at a time: the segments' states and ledgers folded here, each
    segment decided again by a worker; the first failure in log order stops it, as in one pass."""
    created = ruleset.meta(ruleset.evolve(ruleset.initial(""), first_event))
    final = ruleset.meta(folded)
    secret = bytes.fromhex(survey.revealed) if survey.revealed else None
    report.secret_revealed = secret is not None
    if secret is not None and commitment(secret) != created.commitment:
        raise IntegrityFailure(survey.revealed_at, "the revealed secret does not match the commitment of event 1")
    report.inherited = final.forked_at
    _check_batches(stream())
    global _CONTEXT
    _CONTEXT = (ruleset, secret, final.forked_at)
    ledger = trust.Ledger()
    tasks = _tasks(ruleset, stream(), ruleset.initial(created.commitment), ledger, final.forked_at)
    try:
        # a short log is decided here: starting processes would cost more than they save
        if workers < 2 or survey.count < verify.SPLIT_MIN or "fork" not in multiprocessing.get_all_start_methods():
            for task in tasks:
                _merge(report, _decide_segment(task))
        else:
            with multiprocessing.get_context("fork").Pool(workers) as pool:
                waiting: deque[Any] = deque()
                for task in tasks:  # one segment a worker in flight, and one more: memory stays bounded
                    waiting.append(pool.apply_async(_decide_segment, (task,)))
                    while len(waiting) > workers + 1:
                        _merge(report, waiting.popleft().get())
                while waiting:
                    _merge(report, waiting.popleft().get())
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


_Task = tuple[int, list[Row], Any, trust.Ledger, str]  # first batch number, rows, state, ledger, content head


def _tasks(ruleset: Ruleset, rows: Iterator[Row], state: Any, ledger: trust.Ledger, forked_at: int) -> Iterator[_Task]:
    """The segments, each with the state, ledger and content head before it, folded and noted here as
    the one pass does between its decisions (`ledger` is left as after the last)."""
    buf: list[Row] = []
    number, content = 1, GENESIS_HASH
    for r in rows:
        if r.batch == r.seq and len(buf) >= SEGMENT_ROWS:
            task, stop, state, content = _advance(ruleset, number, buf, state, ledger, content, forked_at)
            yield task
            if stop:
                return
            number, buf = number + _batch_count(buf), []
        buf.append(r)
    if buf:
        yield _advance(ruleset, number, buf, state, ledger, content, forked_at)[0]


def _batch_count(rows: Sequence[Row]) -> int:
    return sum(1 for r in rows if r.batch == r.seq)


def _advance(ruleset: Ruleset, number: int, rows: list[Row], state: Any, ledger: trust.Ledger, content: str,
             forked_at: int) -> tuple[_Task, bool, Any, str]:
    """The segment's task; True if a command in it cannot be read (its worker stops there with the
    failure: nothing after it is decided); the state and content head after it (`ledger` advanced)."""
    task: _Task = (number, rows, state, msgspec.json.decode(msgspec.json.encode(ledger), type=trust.Ledger), content)
    events = [e for _, e in decoded(ruleset, rows, "the payload is not a valid event")]
    stop = False
    with collector_paused():
        for start, end in _spans(rows):
            batch = rows[start:end]
            try:
                cmd = _command(ruleset, batch, lenient=batch[0].seq <= forked_at)
            except IntegrityFailure:
                stop = True
                break
            if isinstance(cmd, (*PBEM_COMMANDS, SignedOrders)) and not isinstance(cmd, OrderBatch):
                raise _WholeLog
            state = _fold(ruleset, events[start:end], state)
            if cmd is not None:
                trust.note(ledger, ruleset, cmd, batch[0].seq)
    for r in rows:
        content = content_link(content, r.payload)
    return task, stop, state, content


def _spans(rows: Sequence[Row]) -> list[tuple[int, int]]:
    """(start, end) index ranges of the batches of a segment (it starts with one: _check_batches)."""
    out: list[tuple[int, int]] = []
    for i, r in enumerate(rows):
        if r.batch == r.seq:
            out.append((i, i + 1))
        else:
            out[-1] = (out[-1][0], i + 1)
    return out


def _decide_segment(task: _Task) -> tuple[tuple[int, int, int, int], tuple[int, str] | None]:
    """Decide one segment again (in a worker, or here): its counts and its first failure (seq, reason)."""
    assert _CONTEXT is not None, "a segment is decided within _redecide_streamed"
    ruleset, secret, forked_at = _CONTEXT
    number, rows, state, ledger, content = task
    events = [e for _, e in decoded(ruleset, rows, "the payload is not a valid event")]
    contents = [content]
    for r in rows:
        contents.append(content_link(contents[-1], r.payload))
    span = _Span(ruleset=ruleset, rows=rows, events=events, contents=contents, commands={}, secret=secret,
                 forked_at=forked_at, keyed=False)
    part = Report(ok=True, events=0, head_hash="")
    failure = None
    try:
        _redecide_span(span, _spans(rows), number, state, ledger, part)
    except IntegrityFailure as err:
        failure = (err.seq, err.reason)
    return (part.commands_checked, part.random_unchecked, part.signed_checked, part.on_log), failure


def _merge(report: Report, result: tuple[tuple[int, int, int, int], tuple[int, str] | None]) -> None:
    counts, failure = result
    report.commands_checked += counts[0]
    report.random_unchecked += counts[1]
    report.signed_checked += counts[2]
    report.on_log += counts[3]
    if failure is not None:
        raise IntegrityFailure(*failure)
