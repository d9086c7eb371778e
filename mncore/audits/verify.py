"""Verification of a log: the hash chain, a full replay, and the re-decision of every command."""

from __future__ import annotations

import os
from bisect import bisect_right
from collections.abc import Callable, Container, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import msgspec

from mncore.core import chain
from mncore.core.chain import GENESIS_HASH, LOG_V1, CommitError, content_link, link
from mncore.core.dice import SecretNeeded, commitment
from mncore.core.errors import CommandRejected, IntegrityFailure, MareNostrumError
from mncore.core.kernel_acts import PBEM_COMMANDS, UNDO_TYPES, DefaultOrders, OrderBatch, RevealSecret, SignedOrders
from mncore.core.kernel_state import secret_of
from mncore.core.protocol import HOST, Pending, Ruleset
from mncore.games.log_reading import collector_paused, decoded, ruleset_of
from mncore.pbem import draw_keys, trust, turns
from mncore.secrecy import boundary
from mncore.store import LogPrefix, Row


class Report(msgspec.Struct, kw_only=True):
    """What verification found: ok or the first bad event, and what was proven."""

    ok: bool
    events: int
    head_hash: str
    first_bad: int | None = None
    reason: str | None = None
    secret_revealed: bool = False
    commands_checked: int = 0  # commands re-decided to the same events
    random_unchecked: int = 0  # commands that drew at random, unchecked until the secret is out
    signed_checked: int = 0  # signed order blocks checked against the published keys
    on_log: int = 0  # undos, consents, corrections and the service's acts decided on the log before them
    inherited: int = 0  # events a fork copied from its parent (checked in the parent)
    version: int = 0  # the log format checked (chain.py)
    heads_checked: list[str] = []  # where the head hash came from that the log was held to
    upgraded_from: str | None = None  # the format-1 head of a log rewritten by mn upgrade
    hidden: int = 0  # hidden fields hashed as their salted commitments
    opened: int = 0  # of those, the ones this log or export opens (its salts)
    made_for: str | None = None  # an export made for one side: what it could check
    draws: int = 0  # the draw scheme the log records (mncore/pbem/draw_keys.py; ruling K10)
    proven: list[str] = []


class Divergence(IntegrityFailure):
    """A command decided again does not give its stored events: what differs, and the rule or ruling
    a refusal cites (mn check-upgrade reports them; verify reports the seq and reason alone)."""

    def __init__(self, seq: int, reason: str, *, section: str | None = None, difference: str = "") -> None:
        super().__init__(seq, reason)
        self.section = section
        self.difference = difference


class Head(msgspec.Struct, frozen=True, kw_only=True):
    """A head hash held apart from the log (recorded by the store, in an export header, published)."""

    source: str  # "the database's head record", "the export header", "the head you hold"
    hash: str
    seq: int | None = None  # the event it is the hash of, where the holder says
    last: bool = True  # the log must end there (a record or header); False: only reach it


def verify_rows(rows: Sequence[Row], version: int, heads: Sequence[Head] = (), workers: int | None = None) -> Report:
    """Check a whole log in its format; the first failure stops the check and is named by its seq.

    `heads` are head hashes held apart from the log: each must be in the chain (and, for a record
    or a header, be its end), so that deleting the last rows or rewriting the log is caught.
    `workers`: processes that decide the commands again, each a segment of the log (every core by
    default; 1: one pass). The report is the one pass's, whatever the number.
    """
    head = rows[-1].hash if rows else GENESIS_HASH
    report = Report(ok=True, events=len(rows), head_hash=head, version=version)
    try:
        _check_chain(rows, version)
        _check_heads(rows, heads, report)
        contents = _content_chain(rows)
        _check_upgrades(rows, contents, report)
        ruleset, events, final = _replay(rows)
        commands: dict[int, Any] = {}
        if version != LOG_V1:
            _check_hidden(ruleset, rows, events, report, commands)
        if not _redecide_split(ruleset, rows, events, final, report, contents, commands, workers):
            _redecide(ruleset, rows, events, final, report, contents, commands=commands)
    except IntegrityFailure as err:
        report.ok, report.first_bad, report.reason = False, err.seq, err.reason
        return report
    report.proven = _proven(report)
    return report


def first_divergence(rows: Sequence[Row], version: int, secret: bytes | None = None) -> IntegrityFailure | None:
    """Replay a log and decide every command again under the installed engine: None if each gives
    exactly its stored events, else the first failure (a Divergence where the rules now decide
    otherwise). With the host's `secret`, commands that drew at random are decided again too."""
    try:
        _check_chain(rows, version)
        ruleset, events, final = _replay(rows)
        _redecide(ruleset, rows, events, final, Report(ok=True, events=len(rows), head_hash=""),
                  _content_chain(rows), held=secret)
    except IntegrityFailure as err:
        return err
    return None


def _check_chain(rows: Iterable[Row], version: int) -> int:
    """The chain of the rows, read once in order; how many there are."""
    previous = GENESIS_HASH
    i = 0
    for i, r in enumerate(rows, start=1):
        previous = _chain_row(r, i, previous, version)
    if i == 0:
        raise IntegrityFailure(1, "the log is empty")
    return i


def _chain_row(r: Row, i: int, previous: str, version: int) -> str:
    """The i-th row checked against the chain's hash before it; its own hash."""
    if r.seq != i:
        raise IntegrityFailure(i, f"event {i} is missing (the next stored event is {r.seq})")
    try:
        expected = link(version, previous, seq=r.seq, type=r.type, actor=r.actor, batch=r.batch,
                        recorded_at=r.recorded_at, command=r.command, payload=r.payload, salts=r.salts)
    except (CommitError, msgspec.DecodeError, ValueError) as err:
        raise IntegrityFailure(i, f"a salted hidden field cannot be committed ({err})") from None
    if expected != r.hash:
        what = "its payload" if version == LOG_V1 else "its row (seq, type, actor, batch, time, command, payload)"
        raise IntegrityFailure(i, f"its hash does not match {what} and the chain before it "
                                  "(edited or corrupted)")
    return r.hash


def _check_hidden(ruleset: Ruleset, rows: Sequence[Row], events: Sequence[Any], report: Report,
                  commands: dict[int, Any]) -> None:
    """Every field the ruleset hides is hashed as a commitment (it has a salt), and nothing else is;
    once the secret is out, every salt is the one it derives. Each command decoded is kept in
    `commands` by its seq, for the re-decision."""
    _check_hidden_pairs(ruleset, zip(rows, events, strict=True), _revealed(rows), events[0], report, commands)


def _check_hidden_pairs(ruleset: Ruleset, pairs: Iterable[tuple[Row, Any]], secret: bytes | None, first: Any,
                        report: Report, commands: dict[int, Any] | None) -> None:
    """_check_hidden over (row, event) pairs read once; `secret`: the one the log reveals, `first` its
    first event; commands kept only if `commands` is given."""
    secret = _salting_secret(ruleset, secret, first)
    for r, e in pairs:
        command = _check_hidden_row(ruleset, r, e, secret, report)
        if command is not None and commands is not None:
            commands[r.seq] = command
    report.opened = report.hidden


def _salting_secret(ruleset: Ruleset, secret: bytes | None, first: Any) -> bytes | None:
    """The revealed secret the salts are checked against: none if it is not the one event 1 commits to
    (the re-decision names that)."""
    created = ruleset.meta(ruleset.evolve(ruleset.initial(""), first))
    return None if secret is not None and commitment(secret) != created.commitment else secret


def _check_hidden_row(ruleset: Ruleset, r: Row, e: Any, secret: bytes | None, report: Report) -> Any:
    """_check_hidden_pairs of one row and its event; the row's command decoded (None if it has none)."""
    try:
        command = ruleset.decode_command(r.command) if r.command is not None else None
    except (msgspec.DecodeError, msgspec.ValidationError) as err:
        raise IntegrityFailure(r.seq, f"its recorded command is not valid ({err})") from None
    declared = boundary.declared(ruleset, e, command)
    if not declared and not r.salts:  # most rows: nothing hidden, nothing salted
        return command
    fields = {h.field for h in boundary.committed(declared, r.salts)}
    for f in sorted(fields - set(r.salts)):
        raise IntegrityFailure(r.seq, f"its hidden field {f} is not committed (no salt): "
                                      "it was hashed bare, or its salt was left out")
    for f in sorted(set(r.salts) - fields):
        raise IntegrityFailure(r.seq, f"carries a salt for {f}, which the ruleset does not hide")
    if secret is not None:
        for f, s in sorted(r.salts.items()):
            if s != chain.salt(secret, r.seq, f):
                raise IntegrityFailure(r.seq, f"the salt of {f} is not the one the revealed "
                                              "secret gives")
    report.hidden += len(fields)
    return command


def _revealed(rows: Sequence[Row]) -> bytes | None:
    """The secret a log reveals (its SecretRevealed event), or None."""
    for r in rows:
        if r.type == "SecretRevealed":
            return _secret_of(r)
    return None


def _secret_of(row: Row) -> bytes | None:
    try:
        return bytes.fromhex(str(msgspec.json.decode(row.payload)["secret"]))
    except (ValueError, KeyError, TypeError, msgspec.DecodeError):
        return None


def verify_side_rows(rows: Sequence[Row], version: int, withheld: dict[int, dict[str, str]],
                     heads: Sequence[Head], made_for: str) -> Report:
    """Check an export made for one side: the whole chain, each hidden field it may see against its
    commitment (by its salt), each withheld field a well-formed commitment; no replay is possible."""
    head = rows[-1].hash if rows else GENESIS_HASH
    report = Report(ok=True, events=len(rows), head_hash=head, version=version, made_for=made_for)
    try:
        for r in rows:
            for f, hex_ in sorted(withheld.get(r.seq, {}).items()):
                root, parts = chain.split_field(f)
                text = r.payload if root == chain.PAYLOAD else r.command
                try:
                    found = chain.get_path(msgspec.json.decode(text or "null"), parts)
                except (CommitError, msgspec.DecodeError) as err:
                    raise IntegrityFailure(r.seq, f"withholds {f}, which is not there ({err})") from None
                if found != {chain.COMMIT_KEY: hex_}:
                    raise IntegrityFailure(r.seq, f"withholds {f} but does not hold its commitment there")
            report.hidden += len(r.salts) + len(withheld.get(r.seq, {}))
            report.opened += len(r.salts)
        _check_chain(rows, version)
        _check_heads(rows, heads, report)
    except IntegrityFailure as err:
        report.ok, report.first_bad, report.reason = False, err.seq, err.reason
        return report
    report.proven = [
        f"the hash chain of all {report.events} events is intact, log format v{version} covering "
        f"whole rows (head {head[:16]})",
        *(f"it holds the head hash given by {src}" for src in report.heads_checked),
        f"{report.opened} hidden fields {made_for} may see match their commitments in the chain",
        f"{report.hidden - report.opened} hidden fields stay committed (mn reveal opens them); "
        "this export cannot be replayed or its commands decided again: a full export can"]
    return report


def _check_heads(rows: Sequence[Row], heads: Sequence[Head], report: Report) -> None:
    wanted = {h.hash for h in heads}  # only these: a map of every hash would grow with the log
    _check_heads_at({r.hash: r.seq for r in rows if r.hash in wanted}, len(rows), heads, report)


def _check_heads_at(at: dict[str, int], count: int, heads: Sequence[Head], report: Report) -> None:
    """The heads held against `at`, the seq of each of their hashes found in a log of `count` rows."""
    for h in heads:
        seq = at.get(h.hash)
        if seq is None:
            raise IntegrityFailure(count + 1 if h.last else count,
                                   f"{h.source} names head {h.hash[:16]}"
                                   + (f" at event {h.seq}" if h.seq else "")
                                   + ", which is not in this log: it was cut short or rewritten")
        if h.seq is not None and seq != h.seq:
            raise IntegrityFailure(seq, f"{h.source} puts head {h.hash[:16]} at event {h.seq}, "
                                        f"but it is the hash of event {seq}")
        if h.last and seq != count:
            raise IntegrityFailure(seq + 1, f"{h.source} says the log ends at event {seq}, but it "
                                            f"goes on to event {count}")
        report.heads_checked.append(h.source)


def _content_chain(rows: Sequence[Row]) -> list[str]:
    """The content chain's head before each row, and after the last (the format-1 hashes, which
    also key each command's draws): hashed once for every check that needs it."""
    heads = [GENESIS_HASH]
    for r in rows:
        heads.append(content_link(heads[-1], r.payload))
    return heads


def _check_upgrades(rows: Sequence[Row], contents: Sequence[str], report: Report) -> None:
    """Each LogUpgraded names the old head of the events before it: the content chain recomputes it."""
    for r, head in zip(rows, contents, strict=False):
        if r.type == "LogUpgraded":
            _check_upgrade(r, head, report)


def _check_upgrade(r: Row, head: str, report: Report) -> None:
    try:
        old = msgspec.json.decode(r.payload, type=dict[str, object]).get("previous_head")
    except msgspec.DecodeError:
        raise IntegrityFailure(r.seq, "the payload is not JSON") from None
    if old != head:
        raise IntegrityFailure(r.seq, "the old head it records is not the format-1 hash of the "
                                      "events before it (the rewritten log is not the old one)")
    report.upgraded_from = str(old)


def _replay(rows: Sequence[Row]) -> tuple[Ruleset, list[Any], Any]:
    """The log's ruleset, its events (each in its canonical encoding) and the state they fold into."""
    ruleset = _ruleset(rows[0])
    events: list[Any] = []
    state = _replay_into(ruleset, rows, _undone(rows), events)
    return ruleset, events, state


def _ruleset(first: Row) -> Ruleset:
    try:
        return ruleset_of(first.payload, "log")
    except MareNostrumError as err:
        raise IntegrityFailure(1, err.message) from None


def _replay_into(ruleset: Ruleset, rows: Iterable[Row], gone: Container[int], events: list[Any] | None) -> Any:
    """The fold of rows read once, each event checked canonical; kept in `events` if it is given."""
    state = ruleset.initial("")
    with collector_paused():
        for r, event in decoded(ruleset, rows, "the payload is not a valid event"):
            state = _replay_row(ruleset, r, event, state, r.seq in gone)
            if events is not None:
                events.append(event)
    return state


def _replay_row(ruleset: Ruleset, r: Row, event: Any, state: Any, gone: bool) -> Any:
    """The state after one row of _replay_into (unchanged if the row was taken back), its event checked."""
    if ruleset.event_type_of(event) != r.type:
        raise IntegrityFailure(r.seq, f"stored as {r.type} but the payload is "
                                      f"{ruleset.event_type_of(event)}")
    if ruleset.encode_event(event) != r.payload.encode():
        # the chain covers hidden fields through their commitments, so the text must be the
        # one canonical encoding: no edit, not even of spacing, may pass unseen
        raise IntegrityFailure(r.seq, "the payload is not in its canonical encoding (edited)")
    try:
        if not gone:  # events taken back stay in the log; replay skips them (K1)
            state = ruleset.evolve(state, event)
    except Exception as err:  # a log that does not fold is corrupt, whatever the error
        raise IntegrityFailure(r.seq, f"does not replay ({type(err).__name__}: {err})") from None
    return state


def _undone(rows: Iterable[Row]) -> Taken:
    """The seqs an undo or a correction took back (turns.undone_seqs), rows read once; an undo that
    names no such events is corrupt."""
    undos = [r for r in rows if r.type in UNDO_TYPES]
    try:
        return Taken(turns.undone_ranges(undos))
    except (msgspec.DecodeError, KeyError, TypeError, ValueError):
        raise IntegrityFailure(undos[0].seq, "an undo that names no events it takes back") from None


class Taken(Container[int]):
    """The seqs that runs (first, through) of events taken back cover, as turns.undone_seqs gives them,
    looked up by bisection: a set of each seq would grow with what a correction takes back."""

    def __init__(self, ranges: Iterable[tuple[int, int]]) -> None:
        merged: list[list[int]] = []
        for first, through in sorted(r for r in ranges if r[0] <= r[1]):
            if merged and first <= merged[-1][1] + 1:
                merged[-1][1] = max(merged[-1][1], through)
            else:
                merged.append([first, through])
        self._firsts, self._throughs = [m[0] for m in merged], [m[1] for m in merged]

    def __contains__(self, seq: object) -> bool:
        if not isinstance(seq, int):
            return False
        i = bisect_right(self._firsts, seq) - 1
        return i >= 0 and seq <= self._throughs[i]


def _batches(rows: Sequence[Row]) -> list[tuple[int, int]]:
    """(start, end) index ranges of the rows appended by one command each."""
    out: list[tuple[int, int]] = []
    for i, r in enumerate(rows):
        if r.batch == r.seq:
            out.append((i, i + 1))
        elif out and r.batch == out[-1][0] + 1:
            out[-1] = (out[-1][0], i + 1)
        else:
            raise IntegrityFailure(r.seq, f"belongs to batch {r.batch}, which does not lead to it")
    return out


def _redecide(ruleset: Ruleset, rows: Sequence[Row], events: list[Any], folded: Any, report: Report,
              contents: Sequence[str], held: bytes | None = None, commands: dict[int, Any] | None = None) -> None:
    start = _redecision(ruleset, rows, events, folded, report, held)
    keyed = trust.publishes_keys(rows)
    _redecide_span(_Span(ruleset=ruleset, rows=rows, events=events, contents=contents, commands=commands or {},
                         secret=start.secret, forked_at=start.forked_at, keyed=keyed),
                   start.batches, 1, start.state, trust.Ledger(), report, Before(rows, keyed, events, start.state))


class _Start(msgspec.Struct, kw_only=True):
    """Where the re-decision starts: the secret it draws with, the batches, the state before the first."""

    secret: bytes | None
    forked_at: int
    batches: list[tuple[int, int]]
    state: Any


def _redecision(ruleset: Ruleset, rows: Sequence[Row], events: list[Any], folded: Any, report: Report,
                held: bytes | None) -> _Start:
    """The secret checked against the commitment of event 1, and the batches of the log."""
    created = ruleset.meta(ruleset.evolve(ruleset.initial(""), events[0]))
    final = ruleset.meta(folded)  # the state _replay folded the log into
    revealed = secret_of(rows)  # the kernel's (KernelState.secret)
    secret = bytes.fromhex(revealed) if revealed else None
    report.secret_revealed = secret is not None
    secret = secret or held
    if secret is not None and commitment(secret) != created.commitment:
        seq = next(r.seq for r in rows if r.type == "SecretRevealed")
        raise IntegrityFailure(seq, "the revealed secret does not match the commitment of event 1")
    report.inherited = final.forked_at
    return _Start(secret=secret, forked_at=final.forked_at, batches=_batches(rows),
                  state=ruleset.initial(created.commitment))


class _Span(msgspec.Struct, kw_only=True):
    """What the re-decision of any run of batches reads (the whole log's)."""

    ruleset: Any
    rows: Sequence[Row]
    events: list[Any]
    contents: Sequence[str]
    commands: dict[int, Any]
    secret: bytes | None
    forked_at: int
    keyed: bool


def _redecide_span(span: _Span, batches: Sequence[tuple[int, int]], first: int, state: Any,
                   ledger: trust.Ledger, report: Report, context: Before | None = None) -> Any:
    """Decide again the batches given (numbered from `first`), from the state and ledger before them;
    the state after them. `context`: what the checks read of the log before each batch (the whole
    log's rows by default: a segment of a log without undos)."""
    ruleset, rows, events = span.ruleset, span.rows, span.events
    context = context if context is not None else Before(rows, span.keyed, events, None)
    undoes = any(r.type in UNDO_TYPES for r in rows)
    with collector_paused():
        for n, (start, end) in enumerate(batches, start=first):
            batch = rows[start:end]
            inherited = batch[0].seq <= span.forked_at
            cmd = _command(ruleset, batch, lenient=inherited, decoded=span.commands.get(batch[0].seq))
            after = None
            if not inherited:
                prior = context.prior(start)
                _check_giver(ruleset, ledger, prior, batch, cmd, state, context.pending_at, report)
                on_log = _on_log(cmd)
                read = context.log(start) if on_log else None
                report.on_log += on_log
                _check_time(batch, cmd)
                revealed = context.revealed(start) if isinstance(cmd, RevealSecret) else None  # a reveal's only
                after = _redecide_batch(ruleset, state, batch, cmd, span.secret, span.contents[start], ledger, n,
                                        report, read, prior, revealed)
            if undoes and any(r.type in UNDO_TYPES for r in batch):
                state = _fold_undoing(ruleset, events[start:end], batch, state, context.state_before)
            else:  # a batch decided again to its very events has its state already: not evolved twice
                state = after if after is not None else _fold(ruleset, events[start:end], state)
            if cmd is not None:
                trust.note(ledger, ruleset, cmd, batch[0].seq)
            context.passed(ruleset, batch, state)
    report.draws = ledger.draws  # the draws above were decided again under it (trust.decide)
    return state


def _on_log(cmd: Any) -> bool:
    """Whether a command is decided on the whole log before it: an act of play by email (a batch of
    orders aside), or a signed block of one."""
    if isinstance(cmd, SignedOrders):
        return turns.act_kind(cmd.orders) is not None
    found = _ON_LOG.get(type(cmd))
    if found is None:
        found = _ON_LOG[type(cmd)] = isinstance(cmd, PBEM_COMMANDS) and not isinstance(cmd, OrderBatch)
    return found


# each command type's answer to _on_log, found once: the tuple of 13 types costs a check each per batch
_ON_LOG: dict[type, bool] = {}


class Before:
    """What the checks of a batch read of the log before it, the whole log held: its rows (the event a
    signed block answers, K11's count of orders, the secret revealed so far), what each side was to
    decide after each batch (a keyed log), the log an act of play by email is decided on and the state
    an undo goes back to. mncore/audits/verify_carry.py carries the first ones, bounded;
    mncore/audits/verify_acts.py reads the others from the store."""

    def __init__(self, rows: Sequence[Row], keyed: bool, events: Sequence[Any], start: Any) -> None:
        """`start`: the state before the first of `rows` that the re-decision starts from (None: the
        rows are a segment of a log without undos, whose start no check reads)."""
        self._rows, self._keyed, self._events, self._start = rows, keyed, events, start
        self._pending: dict[int, list[Pending]] = {}
        # the log is held whole here: the states its undos go back to are kept as the re-decision passes
        # them (verify_acts.py, which holds no log, folds them again from the store instead)
        self._targets = turns.undo_targets(r for r in rows if r.type in UNDO_TYPES) if start is not None else set()
        self._kept: dict[int, Any] = {rows[0].seq: start} if rows and rows[0].seq in self._targets else {}

    def prior(self, start: int) -> Sequence[Row]:
        """The rows before the batch starting at index `start` of the rows decided."""
        return _Prefix(self._rows, start)

    def revealed(self, start: int) -> str | None:
        """The secret revealed before that batch (the kernel's: KernelState.secret)."""
        return secret_of(_Prefix(self._rows, start))

    def pending_at(self, seq: int) -> list[Pending]:
        """What each side was to decide after the batch ending at event `seq`."""
        return self._pending.get(seq, [])

    def passed(self, ruleset: Ruleset, batch: Sequence[Row], state: Any) -> None:
        """A batch decided (or folded), `state` the state after it."""
        if self._keyed:
            self._pending[batch[-1].seq] = list(ruleset.pending(state))
        if batch[-1].seq + 1 in self._targets:
            self._kept[batch[-1].seq + 1] = state

    def log(self, start: int) -> turns.Log:
        """The log before that batch, as an act of play by email is decided on it."""
        return turns.Log(rows=self._rows[:start], events=self._events[:start])

    def state_before(self, batch: int, ruleset: Ruleset) -> Any:
        """The state the re-decision had before the batch starting at event `batch`, an earlier one
        (kept as it passed); None if no batch starts there."""
        if self._start is None:
            raise RuntimeError("an undo in a segment decided apart: verify splits no log with undos")
        if not (1 <= batch <= len(self._rows) and self._rows[batch - 1].batch == batch):
            return None
        return self._kept.get(batch)


# a log shorter than this is decided again in one pass: starting processes costs more than it saves
SPLIT_MIN = 3000
SEGMENTS_PER_WORKER = 4  # shorter segments even out the workers' loads
_JOB: tuple[_Span, list[tuple[int, int, Any, trust.Ledger]], list[tuple[int, int]]] | None = None


def _can_fork() -> bool:
    import multiprocessing  # here, not at the top: most commands never verify (a lean start)
    return "fork" in multiprocessing.get_all_start_methods()


@contextmanager
def _fork_pool(workers: int) -> Iterator[Any]:
    """A pool of forked workers, closed and joined when the work is done: its idle workers end on the
    sentinel and are reaped. Only a block that raises terminates it: a worker killed while it waits on
    the task queue holds that queue's lock, which the pool's own threads may then wait on at exit."""
    import multiprocessing
    pool = multiprocessing.get_context("fork").Pool(workers)
    try:
        yield pool
    except BaseException:
        pool.terminate()
        raise
    else:
        pool.close()
    finally:
        pool.join()


def _workers(asked: int | None) -> int:
    if asked is not None:
        return asked
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _redecide_split(ruleset: Ruleset, rows: Sequence[Row], events: list[Any], folded: Any, report: Report,
                    contents: Sequence[str], commands: dict[int, Any], asked: int | None) -> bool:
    """Decide the commands again in segments of the log, one process each, from the states and ledgers
    this pass folds itself before each segment; False (nothing done) where one pass must do it: a
    short log, one core, no fork, or a log of play by email (signed blocks, undos and the acts decided on
    the log before them read what the batches before left: pending decisions, states taken back)."""
    workers = _workers(asked)
    if (workers < 2 or len(rows) < SPLIT_MIN or not _can_fork()
            or trust.publishes_keys(rows) or any(r.type in UNDO_TYPES for r in rows)):
        return False
    start = _redecision(ruleset, rows, events, folded, report, None)
    span = _Span(ruleset=ruleset, rows=rows, events=events, contents=contents, commands=commands,
                 secret=start.secret, forked_at=start.forked_at, keyed=False)
    cuts = _segments(span, start, workers)
    if cuts is None:
        return False
    segments, batches, ledger = cuts
    global _JOB
    _JOB = (span, segments, batches)
    try:  # forked: the workers read the log, its events and the segments' states without a copy
        with _fork_pool(min(workers, len(segments))) as pool:
            results = pool.map(_segment, range(len(segments)), chunksize=1)
    finally:
        _JOB = None
    for counts, failure in results:
        report.commands_checked += counts[0]
        report.random_unchecked += counts[1]
        report.signed_checked += counts[2]
        report.on_log += counts[3]
        if failure is not None:
            raise IntegrityFailure(*failure)
    report.draws = ledger.draws
    return True


def _segments(span: _Span, start: _Start, workers: int
              ) -> tuple[list[tuple[int, int, Any, trust.Ledger]], list[tuple[int, int]], trust.Ledger] | None:
    """(first batch number, end batch number, state, ledger) before each segment, the batches, and the
    ledger after them all: the log folded and its commands noted, as the one pass does between its
    decisions; None if a command of play by email is met (the one pass decides those)."""
    ruleset, rows, events = span.ruleset, span.rows, span.events
    size = max(1, len(rows) // (workers * SEGMENTS_PER_WORKER))
    state, ledger = start.state, trust.Ledger()
    segments: list[tuple[int, int, Any, trust.Ledger]] = []
    batches = start.batches
    next_cut = 0
    with collector_paused():
        for n, (first, end) in enumerate(batches, start=1):
            if first >= next_cut:
                segments.append((n, len(batches) + 1, state, msgspec.json.decode(msgspec.json.encode(ledger),
                                                                                   type=trust.Ledger)))
                next_cut = first + size
            batch = rows[first:end]
            try:
                cmd = _command(ruleset, batch, lenient=batch[0].seq <= span.forked_at,
                               decoded=span.commands.get(batch[0].seq))
            except IntegrityFailure:  # the segment that holds it stops there, with this failure
                break
            if isinstance(cmd, (*PBEM_COMMANDS, SignedOrders)) and not isinstance(cmd, OrderBatch):
                return None
            state = _fold(ruleset, events[first:end], state)
            if cmd is not None:
                trust.note(ledger, ruleset, cmd, batch[0].seq)
    bounded = [(a, segments[i + 1][0] if i + 1 < len(segments) else b, s, led)
               for i, (a, b, s, led) in enumerate(segments)]
    return bounded, batches, ledger


def _segment(index: int) -> tuple[tuple[int, int, int, int], tuple[int, str] | None]:
    """Decide again one segment in a worker: its counts, and its first failure (seq, reason)."""
    assert _JOB is not None, "a segment is decided in a worker forked by _redecide_split"
    span, segments, batches = _JOB
    first, end, state, ledger = segments[index]
    part = Report(ok=True, events=0, head_hash="")
    failure = None
    try:
        _redecide_span(span, batches[first - 1:end - 1], first, state, ledger, part)
    except IntegrityFailure as err:
        failure = (err.seq, err.reason)
    return (part.commands_checked, part.random_unchecked, part.signed_checked, part.on_log), failure


class _Prefix(LogPrefix):
    """The first `length` rows of a log held in memory."""

    def __init__(self, rows: Sequence[Row], length: int) -> None:
        super().__init__(length)
        self._rows = rows

    def _row(self, index: int) -> Row:
        return self._rows[index]


def _fold(ruleset: Ruleset, events: Sequence[Any], state: Any) -> Any:
    for e in events:
        state = ruleset.evolve(state, e)
    return state


def _fold_undoing(ruleset: Ruleset, events: Sequence[Any], batch: Sequence[Row], state: Any,
                  state_before: Callable[[int, Ruleset], Any]) -> Any:
    """A batch that takes others back (K1, K3): at its undo, the state goes back to the one before
    the batch it names (`state_before`: kept as the re-decision passed it, or folded again from the
    store); a batch
    that starts at no earlier event, or a later one, leaves it."""
    first, at_start = batch[0].seq, state
    for e, r in zip(events, batch, strict=True):
        state = ruleset.evolve(state, e)
        if r.type in UNDO_TYPES:
            named = int(msgspec.json.decode(r.payload)["batch"])
            if named == first:
                state = at_start
            elif named < first:
                found = state_before(named, ruleset)
                state = found if found is not None else state
    return state


def _command(ruleset: Ruleset, rows: Sequence[Row], lenient: bool, decoded: Any = None) -> Any:
    """The command of a batch (on its first row only); None for an inherited batch without one.
    `decoded`: the command already decoded from that row (its encoding is checked all the same)."""
    seq = rows[0].seq
    try:
        if rows[0].command is None:
            raise IntegrityFailure(seq, "no command is recorded for the events it starts")
        try:
            cmd = decoded if decoded is not None else ruleset.decode_command(rows[0].command)
        except (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError, RecursionError) as err:
            raise IntegrityFailure(seq, f"its recorded command is not valid ({err})") from None
        if ruleset.encode_command(cmd).decode() != rows[0].command:
            raise IntegrityFailure(seq, "its recorded command is not in its canonical encoding (edited)")
        return cmd
    except IntegrityFailure:
        if lenient:  # a fork's copied events are checked in the game they were copied from
            return None
        raise


def _check_giver(ruleset: Ruleset, ledger: trust.Ledger, before: Sequence[Row], rows: Sequence[Row],
                 cmd: Any, state: Any, pending_at: Callable[[int], Sequence[Pending]], report: Report) -> None:
    """Each row of a batch names the actor its command is recorded under: a signed block's side only
    with a valid signature of the side's published key; an unsigned order the host once keys exist."""
    seq = rows[0].seq
    if isinstance(cmd, SignedOrders):
        try:
            trust.check_block(ruleset, cmd, ledger=ledger, rows=before, game_id=None,
                              pending_at=pending_at,
                              pending_now=ruleset.pending(state))
        except CommandRejected as err:
            raise IntegrityFailure(seq, f"its signed block is refused: {err.message}") from None
        report.signed_checked += 1
    elif ledger.signed_only and trust.giver(ruleset, cmd) != HOST and turns.service_actor(cmd) is None:
        raise IntegrityFailure(seq, "an order without a signature, in a game that takes signed "
                                    "orders only")
    actor = trust.recorded_actor(ruleset, ledger, cmd)
    for r in rows:
        if r.actor != actor:
            unsigned = ledger.published and not isinstance(cmd, SignedOrders) and r.actor != HOST
            raise IntegrityFailure(r.seq, f"is recorded as {r.actor}'s, but its command carries no "
                                          "signature: an unsigned order is the host's" if unsigned
                                   else f"is recorded as {r.actor}'s, but the command of its batch "
                                        f"is {actor}'s to give")
        if r.command is not None and r is not rows[0]:
            raise IntegrityFailure(r.seq, "carries a command although it is not the first event of "
                                          "its batch")


def _check_time(rows: Sequence[Row], cmd: Any) -> None:
    """The deadline's act is recorded at the time its command says it was taken (K4)."""
    if not isinstance(cmd, DefaultOrders):
        return
    try:
        same = turns.parse_time(cmd.at) == turns.parse_time(rows[0].recorded_at)
    except MareNostrumError:
        same = False
    if not same:
        raise IntegrityFailure(rows[0].seq, f"the deadline's act says it was taken at {cmd.at} but is "
                                            f"recorded at {rows[0].recorded_at}")


def _redecide_batch(ruleset: Ruleset, state: Any, rows: Sequence[Row], cmd: Any, secret: bytes | None,
                    previous: str, ledger: trust.Ledger, batch: int, report: Report,
                    read: turns.Log | None = None, prior: Sequence[Row] | None = None,
                    revealed: str | None = None) -> Any:
    """The state after the batch, its command decided again to exactly its stored events; None if
    its draws cannot be checked yet (no secret); IntegrityFailure if they differ. `read`: the log
    before the batch, for the acts of play by email decided on it; `prior`: the rows before it, which
    a K11 settle count reads; `revealed`: the secret revealed before it (a reveal's re-decision)."""
    seq = rows[0].seq
    try:
        produced, after = trust.decide(ruleset, state, cmd, secret=secret, draw_head=previous,
                                       ledger=ledger, batch=batch, log=read, rows=prior, revealed=revealed)
    except SecretNeeded:
        report.random_unchecked += 1
        return None
    except CommandRejected as err:
        raise Divergence(seq, f"its command is refused when decided again: {err.message}",
                         section=getattr(err, "section", None), difference="refused") from None
    except MareNostrumError:
        raise
    except Exception as err:  # a forged command the rules cannot even read is a bad log, not a crash
        raise IntegrityFailure(seq, f"its command cannot be decided again ({type(err).__name__}: "
                                    f"{err})") from None
    expected = [ruleset.encode_event(e).decode() for e in produced]
    stored = [r.payload for r in rows]
    for i, (want, got) in enumerate(zip(expected, stored, strict=False)):
        if want != got:
            raise Divergence(rows[i].seq, "differs from what its command produces when decided "
                                          "again (not what the rules or the dice give)",
                             difference=difference(got, want))
    if len(expected) != len(stored):
        raise Divergence(seq, f"its command produces {len(expected)} events when decided again, "
                              f"but {len(stored)} are stored", difference="another number of events")
    report.commands_checked += 1
    return after


def difference(stored: str, produced: str) -> str:
    """What differs between a stored event and the one decided again, in words: another event, a new
    field, a field no longer given, or the first field whose value changed."""
    was, now = msgspec.json.decode(stored), msgspec.json.decode(produced)
    if not (isinstance(was, dict) and isinstance(now, dict)):
        return "another event"
    if was.get("type") != now.get("type"):
        return f"another event: {now.get('type')} where {was.get('type')} is stored"
    added, dropped = sorted(now.keys() - was.keys()), sorted(was.keys() - now.keys())
    if added:
        return f"a new field: {added[0]} = {_short(now[added[0]])}"
    if dropped:
        return f"a field no longer given: {dropped[0]} (stored {_short(was[dropped[0]])})"
    key = next((k for k in sorted(now) if now[k] != was[k]), None)
    if key is None:
        return "the same fields, encoded otherwise"
    return f"field {key}: {_short(now[key])} where {_short(was[key])} is stored"


def _short(value: Any) -> str:
    text = msgspec.json.encode(value).decode()
    return text if len(text) <= 60 else text[:57] + "..."


def _proven(report: Report) -> list[str]:
    covers = "payloads" if report.version == LOG_V1 else "whole rows"
    out = [f"the hash chain of all {report.events} events is intact, log format v{report.version} "
           f"covering {covers} (head {report.head_hash[:16]})"]
    out += [f"it holds the head hash given by {src}" for src in report.heads_checked]
    if report.upgraded_from:
        out.append(f"it was rewritten from log format 1 by mn upgrade; the events before the "
                   f"upgrade recompute its old head {report.upgraded_from[:16]}")
    out += ["the whole log replays under the ruleset it was created with",
            f"{report.commands_checked} commands decided again give exactly the stored events, "
            "each given by the side its row names"]
    if report.hidden:
        out.append(f"{report.hidden} hidden fields are hashed as salted commitments, each opened by "
                   "its salt" + (" derived from the revealed secret" if report.secret_revealed else ""))
    if report.on_log:
        out.append(f"{report.on_log} acts of play by email (undo, consent, correction, pace, standing "
                   "and queued orders, defaults, forced answers, seats and bots' answers) decided again on "
                   "the log before them give exactly the stored events (rulings K1 to K6, K9, K14); "
                   "replay skips the events taken back")
    if report.signed_checked:
        out.append(f"{report.signed_checked} signed order blocks carry a valid signature of their "
                   "side's published key, each applied once and answering a decision then pending")
    if report.secret_revealed:
        out.append("the revealed secret matches the commitment, and every random outcome recomputes")
    elif report.random_unchecked:
        out.append(f"{report.random_unchecked} commands that drew at random cannot be checked until "
                   "the secret is revealed (mn reveal)")
    if report.draws:
        out.append("draws are keyed under ruling K10: each signed block's by its signature, each act "
                   "of the service for a side by that side's last signed block and the act's index "
                   "after it")
    if report.draws >= draw_keys.K11:
        out.append("draws made as a phase ends or begins are keyed under ruling K11: by the round, "
                   "the phase and the number of the players' order batches before, not by which "
                   "block ended it")
    if report.inherited:
        out.append(f"events 1 to {report.inherited} were copied from the game this one forks; "
                   "verify that game for them")
    return out
