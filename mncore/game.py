"""The game service: create, load, give commands (and answer for the sides), verify, export/import, fork, reveal."""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import secrets as pysecrets
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, overload

import msgspec
from msgspec.structs import replace

from mncore import __version__, pbem, redaction, trust
from mncore import logs as log
from mncore.bounds import MAX_NUMBER, number_text, out_of_bounds
from mncore.chain import CURRENT, GENESIS_HASH, VERSIONS, CommitError, content_link, link
from mncore.dice import Rng, commitment
from mncore.errors import CommandRejected, DataError, IntegrityFailure, InvalidCommand, StoreError
from mncore.host import (
    UNDO_TYPES,
    ConsentUndo,
    CorrectBatch,
    DefaultOrders,
    OrderBatch,
    PublishKeys,
    RevealSecret,
    SetPace,
    SetStandingOrders,
    SignedOrders,
    UndoBatch,
    UpgradeLog,
)
from mncore.logread import collector_paused, content_head, decode_rows, decoded, fold, ruleset_of
from mncore.protocol import HOST, ForkRef, Meta, Ruleset
from mncore.sealing import CHECKED, EXPORT_FORMAT, HeaderEdited, chain_version, header_problem, sealed, sealed_only
from mncore.sealing import ExportHeader as ExportHeader
from mncore.store import NewRow, Row, Snapshot, Store
from mncore.verify import Head, Report, verify_rows, verify_side_rows


def utc_now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="microseconds")


class Loaded(msgspec.Struct, kw_only=True):
    """A game read from the store: its ruleset, rows, decoded events and the state they fold into."""

    game_id: str
    ruleset: Any  # a Ruleset (the protocol is not a type msgspec can hold)
    version: int  # the log format (chain.py)
    rows: list[Row]
    events: list[Any]
    state: Any
    draw_head: str  # the content chain's head, which keys the next command's draws

    @property
    def head(self) -> tuple[int, str]:
        return (self.rows[-1].seq, self.rows[-1].hash) if self.rows else (0, GENESIS_HASH)

    @property
    def meta(self) -> Meta:
        meta: Meta = self.ruleset.meta(self.state)
        return meta


class Current(msgspec.Struct, kw_only=True):
    """A game's state at its head (or at `upto`), folded from its last good snapshot and the rows
    after it: all that a command needs that reads or extends the present only."""

    game_id: str
    ruleset: Any  # a Ruleset
    version: int  # the log format (chain.py)
    state: Any
    head: tuple[int, str]  # the last seq and its chain hash
    draw_head: str  # the content chain's head, which keys the next command's draws
    batches: int  # how many batches the log holds
    ledger: trust.Ledger  # what the log says about signing (trust.ledger_of)
    snapshot_seq: int = 0  # the seq of the snapshot it started from (0: the log's start)
    # the game's secret as the store holds it, read at the first order and kept for the next ones
    secret: bytes | None | msgspec.UnsetType = msgspec.UNSET

    @property
    def meta(self) -> Meta:
        meta: Meta = self.ruleset.meta(self.state)
        return meta


SNAPSHOT_EVERY = 256  # events between snapshots; $MN_SNAPSHOT_EVERY overrides it (0: none written)


def snapshot_every() -> int:
    """How many events a log grows before a command that appends caches its state again."""
    text = os.environ.get("MN_SNAPSHOT_EVERY", "")
    return int(text) if text.isdigit() else SNAPSHOT_EVERY


# --- reading ---------------------------------------------------------------------------------------------

def load(store: Store, game_id: str, upto: int | None = None) -> Loaded:
    """The game as of event `upto` (the whole log by default)."""
    store.require_game(game_id)
    rows = store.rows(game_id, 1, upto)
    ruleset, events = decode_rows(rows, f"game {game_id}")
    if ruleset is None:
        raise IntegrityFailure(1, f"game {game_id} has no events")
    state = ruleset.named(_replayed(ruleset, rows, events), game_id)
    return Loaded(game_id=game_id, ruleset=ruleset, version=store.log_version(game_id), rows=rows,
                  events=events, state=state, draw_head=content_head(rows))


def current(store: Store, game_id: str, upto: int | None = None) -> Current:
    """The game at its head (or as of event `upto`): its last snapshot that still matches the log
    (the stored row at its seq has its head hash, this engine made it, its digest holds), then the
    rows after it, streamed; a snapshot that does not match is ignored. mn verify never comes here."""
    store.require_game(game_id)
    first = store.row_at(game_id, 1)
    if first is None:
        raise IntegrityFailure(1, f"game {game_id} has no events")
    ruleset = ruleset_of(first.payload, f"game {game_id}")
    snap = store.latest_snapshot(game_id, upto, engine_of(ruleset))
    cur = _thawed(store, game_id, ruleset, snap) if snap is not None else None
    if cur is None:
        cur = Current(game_id=game_id, ruleset=ruleset, version=store.log_version(game_id),
                      state=ruleset.initial(""), head=(0, GENESIS_HASH), draw_head=GENESIS_HASH,
                      batches=0, ledger=trust.Ledger())
    state, draw_head, head, batches = cur.state, cur.draw_head, cur.head, cur.batches
    undo_seen = False  # an undo after the snapshot: the state is folded again from the start (K1)
    with collector_paused():
        for row, event in decoded(ruleset, store.stream_rows(game_id, head[0] + 1, upto),
                                  "cannot decode the stored event"):
            undo_seen = undo_seen or row.type in UNDO_TYPES
            # past an undo, this fold still holds what it took back, with which a later event need not
            # agree (a legendary commodity drawn again): the state is folded again below, without it
            if not undo_seen:
                try:
                    state = ruleset.evolve(state, event)
                except Exception as err:  # as in load: an edited database, whatever the error
                    raise IntegrityFailure(row.seq, f"does not replay ({type(err).__name__}: {err}); "
                                                    "run mn verify") from None
            if row.batch == row.seq:
                batches += 1
            trust.note_row(cur.ledger, ruleset, row, batches)
            draw_head = content_link(draw_head, row.payload)
            head = (row.seq, row.hash)
    if head[0] == 0:
        raise IntegrityFailure(1, f"game {game_id} has no events")
    if undo_seen:
        state = _replayed(ruleset, *_decoded(store, game_id, upto))
    cur.state, cur.draw_head, cur.head, cur.batches = ruleset.named(state, game_id), draw_head, head, batches
    return cur


# 2: snapshots of format 1 written after a signed order lost the ledger's pbem flag (trust.advanced),
# and with it every forced answer and standing order after them: they are not read again
# 3: the ledger holds the log's draw scheme (K10); a ledger of format 2 encodes without it
# 4: the kernel folds its own events (mncore/envelope.py), no longer the rulesets: states cached by
# the rulesets' folds are not trusted to agree
SNAPSHOT_FORMAT = 4


def engine_of(ruleset: Ruleset) -> str:
    """What a snapshot is only good for: this engine's, its snapshots' and this ruleset's versions."""
    return f"mncore {__version__} snapshots {SNAPSHOT_FORMAT}; {ruleset.id}@{ruleset.version}"


def _digest(snap: Snapshot) -> str:
    head = msgspec.msgpack.encode([snap.seq, snap.head_hash, snap.engine, snap.draw_head, snap.batches,
                                   snap.ledger])
    return hashlib.sha256(head + snap.state).hexdigest()


def _thawed(store: Store, game_id: str, ruleset: Ruleset, snap: Snapshot) -> Current | None:
    """The snapshot as a Current, or None if it is damaged (its digest or its blob)."""
    if _digest(snap) != snap.digest:
        return None
    try:
        state = ruleset.decode_state(snap.state)
        ledger = msgspec.json.decode(snap.ledger, type=trust.Ledger)
    except (msgspec.DecodeError, msgspec.ValidationError, ValueError, TypeError):
        return None
    return Current(game_id=game_id, ruleset=ruleset, version=store.log_version(game_id), state=state,
                   head=(snap.seq, snap.head_hash), draw_head=snap.draw_head, batches=snap.batches,
                   ledger=ledger, snapshot_seq=snap.seq)


def _snapshot(store: Store, cur: Current) -> int:
    """Cache cur as the game's snapshot if its log has grown snapshot_every() events past the last
    one; the seq of the game's last snapshot after. A failure to cache never fails the command."""
    every = snapshot_every()
    if every <= 0 or cur.head[0] - cur.snapshot_seq < every:
        return cur.snapshot_seq
    try:
        snap = Snapshot(seq=cur.head[0], head_hash=cur.head[1], engine=engine_of(cur.ruleset),
                        draw_head=cur.draw_head, batches=cur.batches,
                        ledger=msgspec.json.encode(cur.ledger).decode(),
                        state=cur.ruleset.encode_state(cur.state), digest="")
        store.put_snapshot(cur.game_id, msgspec.structs.replace(snap, digest=_digest(snap)))
    except Exception as err:  # a cache: the events are written, the next command folds them
        log.info("snapshot not written", game=cur.game_id, seq=cur.head[0], error=str(err))
        return cur.snapshot_seq
    return cur.head[0]


def _decoded(store: Store, game_id: str, upto: int | None) -> tuple[list[Row], list[Any]]:
    rows = store.rows(game_id, 1, upto)
    return rows, decode_rows(rows, f"game {game_id}")[1]


def _replayed(ruleset: Ruleset, rows: Sequence[Row], events: Sequence[Any]) -> Any:
    """The fold of a stored log, without the events taken back (K1); a row that does not replay is
    an IntegrityFailure at its seq."""
    state, evolve = ruleset.initial(""), ruleset.evolve
    with collector_paused():
        for row, event in pbem.live(rows, events):
            try:
                state = evolve(state, event)
            except Exception as err:  # an edited database, whatever the error: mn verify says more
                raise IntegrityFailure(row.seq, f"does not replay ({type(err).__name__}: {err}); "
                                                "run mn verify") from None
    return state


# --- writing ---------------------------------------------------------------------------------------------

def _new_rows(ruleset: Ruleset, events: Iterable[Any], actor: str, command: Any, now: str,
              first_seq: int, secret: bytes | None) -> list[NewRow]:
    """The rows to append, each with the salts of its hidden fields (the store hashes their
    commitments); numbered from first_seq, which the store's expected seq guarantees."""
    encoded = ruleset.encode_command(command).decode()
    out = []
    for i, e in enumerate(events):
        cmd = command if i == 0 else None
        out.append(NewRow(type=ruleset.event_type_of(e), payload=ruleset.encode_event(e).decode(),
                          recorded_at=now, actor=actor, command=encoded if i == 0 else None,
                          salts=redaction.salts_for(ruleset, secret, first_seq + i, e, cmd)))
    return out


def new_game_id() -> str:
    return "g" + pysecrets.token_hex(4)


def creation(ruleset: Ruleset, cmd: Any, secret: bytes) -> tuple[list[Any], Any]:
    """The events of a creation command and the state they fold into; nothing is stored.

    `mn new` reads the sides in play here before it makes their keys (they may be drawn at random).
    """
    events, state = ruleset.decide(ruleset.initial(commitment(secret)), cmd, Rng(secret, GENESIS_HASH))
    return list(events), state


def create(store: Store | Callable[[], Store], ruleset: Ruleset, cmd: Any, secret: bytes,
           game_id: str | None = None, keys: PublishKeys | None = None) -> Loaded:
    """Decide a creation command and store the new game's first events with its secret; with `keys`,
    the host publishes each side's public key as the second batch, in the same transaction.

    The command is decided before the store is opened (when given as a callable that opens it), so
    a refused one writes nothing, not even a new database file.
    """
    events, state = creation(ruleset, cmd, secret)
    now = utc_now()
    batches = [_new_rows(ruleset, events, HOST, cmd, now, 1, secret)]
    if keys is not None:
        published, _ = trust.decide(ruleset, state, keys, secret=secret, draw_head=GENESIS_HASH,
                                    ledger=trust.Ledger(), batch=2)
        batches.append(_new_rows(ruleset, published, HOST, keys, now, len(events) + 1, secret))
    if not isinstance(store, Store):
        store = store()
    gid = game_id or new_game_id()
    rows = store.create_game(gid, now, secret.hex(), *batches)
    log.info("game created", game=gid, ruleset=ruleset.short, events=len(rows), keys=keys is not None)
    return load(store, gid)


@dataclass(frozen=True)
class Outcome:
    """What giving one command did: the rows written for it, the rows the service then answered by
    itself for the sides (forced answers K5, standing orders K6, queued orders K9), and the game after
    both (as it was given, a Loaded or a Current, or the Loaded the answers were folded onto)."""

    written: list[Row]
    answered: list[Row]
    after: Loaded | Current

    @property
    def rows(self) -> list[Row]:
        return self.written + self.answered

    @property
    def opened(self) -> bool:
        """Whether the game's secret is revealed: every side may then read every field."""
        return self.after.meta.secret is not None


def give(store: Store, game: Loaded | Current | str, command: Any, now: str | None = None, *,
         answer: bool = True) -> Outcome:
    """The one way a command enters a game: decided (a signed block checked first: trust.check_block),
    appended as one batch, then, with `answer`, whatever the service answers by itself after it
    (advance). Nothing written if it is refused.

    `game`: a full Loaded, its Current, or its id (loaded whole: the commands of play by email that
    read the log, mncore/pbem.py). In a game with published keys an order that is not a signed block
    is recorded as the host's, and refused if the game takes signed orders only. `now`: the time
    recorded (the caller's clock for the deadline's acts; the machine's by default).
    """
    start = load(store, game) if isinstance(game, str) else game
    if isinstance(command, SignedOrders):
        after, written = _submit_block(store, start, command)
    else:
        after, written = _submit_command(store, start, command, now)
    if not answer:
        return Outcome(written=written, answered=[], after=after)
    answered, after = _answers(store, after, now)
    return Outcome(written=written, answered=answered, after=after)


def batch_command(cur: Loaded | Current, side: str, lines: Sequence[str]) -> Any:
    """The command of a side's order lines given together (`mn order GAME --as SIDE 'o1' 'o2'`): one
    order line as the ruleset's order, several (or a `queue` line) as one OrderBatch, decided in turn
    on the evolving state and written as one batch or not at all."""
    if len(lines) == 1 and not pbem.is_queue_line(lines[0]):
        return cur.ruleset.parse_order(lines[0], cur.state, side)
    return OrderBatch(side=side, orders=tuple(lines))


# --- the compatible names of give() (callers on other branches; each writes no service answer) -------

@overload
def submit(store: Store, loaded: Loaded, command: Any, now: str | None = None) -> tuple[Loaded, list[Row]]: ...
@overload
def submit(store: Store, loaded: Current, command: Any, now: str | None = None) -> tuple[Current, list[Row]]: ...
def submit(store: Store, loaded: Loaded | Current, command: Any,
           now: str | None = None) -> tuple[Loaded | Current, list[Row]]:
    """give() without the service's answers: the game as it was given, one batch longer, and the rows."""
    outcome = give(store, loaded, command, now, answer=False)
    return outcome.after, outcome.written


@overload
def submit_signed(store: Store, loaded: Loaded, block: SignedOrders) -> tuple[Loaded, list[Row]]: ...
@overload
def submit_signed(store: Store, loaded: Current, block: SignedOrders) -> tuple[Current, list[Row]]: ...
def submit_signed(store: Store, loaded: Loaded | Current,
                  block: SignedOrders) -> tuple[Loaded | Current, list[Row]]:
    """give() of a signed block, without the service's answers."""
    outcome = give(store, loaded, block, answer=False)
    return outcome.after, outcome.written


def submit_batch(store: Store, loaded: Current, side: str, lines: Sequence[str],
                 now: str | None = None) -> tuple[Current, list[Row]]:
    """give() of a side's order lines (batch_command), without the service's answers."""
    outcome = give(store, loaded, batch_command(loaded, side, lines), now, answer=False)
    return outcome.after, outcome.written  # type: ignore[return-value]


def submit_logged(store: Store, game_id: str, command: Any,
                  now: str | None = None) -> tuple[Loaded, list[Row]]:
    """give() on the whole log (the commands of play by email), without the service's answers."""
    outcome = give(store, game_id, command, now, answer=False)
    return outcome.after, outcome.written  # type: ignore[return-value]


def _submit_command(store: Store, loaded: Loaded | Current, command: Any,
                    now: str | None) -> tuple[Loaded | Current, list[Row]]:
    """Decide one command that is not a signed block and append its events (trust.decide)."""
    ruleset = loaded.ruleset
    ledger = _ledger(loaded)
    secret = _secret(store, loaded)
    read = pbem.Log(rows=loaded.rows, events=loaded.events, game_id=loaded.game_id) if isinstance(loaded, Loaded) else None
    events, state = trust.decide(ruleset, loaded.state, command, secret=secret,
                                 draw_head=loaded.draw_head, ledger=ledger, batch=_batches(loaded) + 1,
                                 log=read, rows=_stored(store, loaded))
    return _append(store, loaded, ledger, command, events, state,
                   trust.recorded_actor(ruleset, ledger, command), secret, now)


def _submit_block(store: Store, loaded: Loaded | Current, block: SignedOrders) -> tuple[Loaded | Current, list[Row]]:
    """Check a signed block (trust.check_block: this game, its side's key, unedited, new, still
    pending), decide its orders in turn and append them as one batch.

    From a Current, the rows the check reads are read one by one, and the decision pending when
    the block was signed is folded from the snapshot before it."""
    ruleset = loaded.ruleset
    if pbem.act_kind(block.orders) is not None and isinstance(loaded, Current):
        # undo, consent and standing orders are decided on the whole log (mncore/pbem.py)
        _, written = _submit_block(store, load(store, loaded.game_id), block)
        return current(store, loaded.game_id), written
    ledger = _ledger(loaded)
    rows: Sequence[Row] = (loaded.rows if isinstance(loaded, Loaded)
                           else _StoredLog(store, loaded.game_id, loaded.head[0]))

    def pending_at(seq: int) -> Sequence[Any]:
        if isinstance(loaded, Loaded):
            return ruleset.pending(pbem.fold_live(  # type: ignore[no-any-return]
                ruleset, loaded.rows[:seq], loaded.events[:seq]))
        return ruleset.pending(current(store, loaded.game_id, seq).state)  # type: ignore[no-any-return]

    trust.check_block(ruleset, block, ledger=ledger, rows=rows, game_id=loaded.game_id,
                      pending_at=pending_at, pending_now=ruleset.pending(loaded.state))
    secret = _secret(store, loaded)
    read = pbem.Log(rows=loaded.rows, events=loaded.events, game_id=loaded.game_id) if isinstance(loaded, Loaded) else None
    events, state = trust.decide(ruleset, loaded.state, block, secret=secret,
                                 draw_head=loaded.draw_head, ledger=ledger, batch=_batches(loaded) + 1,
                                 log=read, rows=rows)
    return _append(store, loaded, ledger, block, events, state, block.side, secret)


class _StoredLog(Sequence[Row]):
    """A stored log as a sequence of its first `length` rows, each read when asked for."""

    def __init__(self, store: Store, game_id: str, length: int) -> None:
        self._store, self._game_id, self._length = store, game_id, length

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> Row: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Row]: ...
    def __getitem__(self, index: int | slice) -> Row | Sequence[Row]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._length))]
        seq = (index + self._length if index < 0 else index) + 1
        row = self._store.row_at(self._game_id, seq) if 1 <= seq <= self._length else None
        if row is None:
            raise IndexError(index)
        return row

    def __iter__(self) -> Iterator[Row]:
        return self._store.stream_rows(self._game_id, 1, self._length)


def _stored(store: Store, loaded: Loaded | Current) -> Sequence[Row]:
    """The log before the next batch, each row read only if asked for (a K11 settle count)."""
    return loaded.rows if isinstance(loaded, Loaded) else _StoredLog(store, loaded.game_id, loaded.head[0])


def _ledger(loaded: Loaded | Current) -> trust.Ledger:
    return trust.ledger_of(loaded.ruleset, loaded.rows) if isinstance(loaded, Loaded) else loaded.ledger


def _secret(store: Store, loaded: Loaded | Current) -> bytes | None:
    """The game's secret, read from the store once per Current (it never changes once created)."""
    if isinstance(loaded, Current) and not isinstance(loaded.secret, msgspec.UnsetType):
        return loaded.secret
    found = store.secret(loaded.game_id)
    secret = bytes.fromhex(found) if found else None
    if isinstance(loaded, Current):
        loaded.secret = secret
    return secret


def _batches(loaded: Loaded | Current) -> int:
    if isinstance(loaded, Current):
        return loaded.batches
    return sum(1 for r in loaded.rows if r.batch == r.seq)


def _append(store: Store, loaded: Loaded | Current, ledger: trust.Ledger, command: Any,
            events: list[Any], state: Any, actor: str,
            secret: bytes | None, now: str | None = None) -> tuple[Loaded | Current, list[Row]]:
    seq, _ = loaded.head
    ruleset = loaded.ruleset
    rows = store.append(loaded.game_id, seq,
                        _new_rows(ruleset, events, actor, command, now or utc_now(), seq + 1, secret),
                        head=loaded.head[1], version=loaded.version)
    log.info("order accepted", game=loaded.game_id, actor=actor, order=type(command).__name__,
             events=len(rows), head=rows[-1].seq if rows else seq)
    batches = _batches(loaded) + (1 if rows else 0)
    after = trust.advanced(ledger, ruleset, rows[0], batches) if rows else ledger  # ledger: unchanged
    cur = Current(game_id=loaded.game_id, ruleset=ruleset, version=loaded.version, state=state,
                  head=(rows[-1].seq, rows[-1].hash) if rows else loaded.head,
                  draw_head=content_head(rows, loaded.draw_head), batches=batches, ledger=after,
                  snapshot_seq=(loaded.snapshot_seq if isinstance(loaded, Current)
                                else store.last_snapshot_seq(loaded.game_id)), secret=secret)
    cur.snapshot_seq = _snapshot(store, cur)
    if isinstance(loaded, Loaded):
        return Loaded(game_id=loaded.game_id, ruleset=ruleset, version=loaded.version,
                      rows=loaded.rows + rows, events=loaded.events + events, state=state,
                      draw_head=cur.draw_head), rows
    return cur, rows


def verify_game(store: Store, game_id: str, held: str | None = None) -> Report:
    """Verify a stored game, holding it to the head its store recorded and to a head a player kept."""
    store.require_game(game_id)
    heads: list[Head] = []
    recorded = store.recorded_head(game_id)
    if recorded is not None:
        heads.append(Head(source="the database's head record", seq=recorded[0], hash=recorded[1]))
    if held is not None:
        heads.append(Head(source="the head you hold", hash=held, last=False))
    from mncore.verifystream import verify_stored
    return verify_stored(store, game_id, heads)


def verify_export(data: bytes, source: str, held: str | None = None) -> Report:
    """Verify an export file, holding it to its header's count and head, and to a head a player kept.

    An export made for one side (some fields withheld) is checked as far as its reader can: the
    whole chain, every hidden field it may see against its commitment; the rest stay committed.
    """
    parsed = _parse(data, source)
    header = parsed.header
    try:
        _check_header(parsed, source)
    except HeaderEdited as err:
        return Report(ok=False, events=len(parsed.rows), head_hash=header.head_hash, first_bad=0,
                      reason=err.reason, version=header.version, made_for=header.made_for)
    heads = [Head(source="the export header", seq=header.events, hash=header.head_hash)]
    if held is not None:
        heads.append(Head(source="the head you hold", hash=held, last=False))
    if parsed.withheld:
        report = verify_side_rows(parsed.rows, header.version, parsed.withheld, heads,
                                  header.made_for or "one side")
    else:
        report = verify_rows(parsed.rows, header.version, heads)
    if report.ok:
        report.proven.append(_header_proof(header))
    return report


def _header_proof(header: ExportHeader) -> str:
    """What the header's check proved: every field, or all but those an older mn left unsealed."""
    if header.seal:
        return (f"every field of its header holds: {', '.join(CHECKED)} against the log; "
                f"{', '.join(sealed_only()[:-1])} by its seal (game {header.game})")
    return (f"its header's {', '.join(CHECKED)} hold against the log; it has no seal (an export of an "
            f"older mn), so nothing vouches for its game id {header.game}")


def upgrade(store: Store, game_id: str) -> Loaded:
    """Rewrite a format-1 game into format 2, all at once, with an event recording its old head.

    The game is verified first (nothing is rewritten from a log that fails) and again after.
    """
    loaded = load(store, game_id)
    if loaded.version == CURRENT:
        raise InvalidCommand(f"game {game_id} is already in log format {CURRENT}")
    report = verify_game(store, game_id)
    if not report.ok:
        raise IntegrityFailure(report.first_bad or 1, f"{report.reason}; nothing was rewritten")
    seq, old_head = loaded.head
    command = UpgradeLog(from_version=loaded.version, previous_head=old_head)
    ruleset = loaded.ruleset
    events = trust.host_events(ruleset, loaded.state, trust.Ledger(), command, _batches(loaded) + 1)
    secret_hex = store.secret(game_id) or loaded.meta.secret  # an imported game may have revealed it
    secret = bytes.fromhex(secret_hex) if secret_hex else None
    added = [Row(seq=n_seq, type=n.type, payload=n.payload, recorded_at=n.recorded_at, actor=HOST,
                 batch=seq + 1, hash="", command=n.command, salts=n.salts)
             for n_seq, n in enumerate(_new_rows(ruleset, events, HOST, command, utc_now(), seq + 1,
                                                 secret), start=seq + 1)]
    # format 2 hashes hidden fields as salted commitments: the old rows get their salts now
    old = [replace(r, salts=redaction.salts_for(
        ruleset, secret, r.seq, e, ruleset.decode_command(r.command) if r.command else None))
        for r, e in zip(loaded.rows, loaded.events, strict=True)]
    store.rewrite_log(game_id, (seq, old_head), rechain([*old, *added], CURRENT), CURRENT)
    log.info("log upgraded", game=game_id, old_head=old_head, events=seq + len(added))
    after = verify_game(store, game_id)
    if not after.ok:
        raise IntegrityFailure(after.first_bad or 1, f"the rewritten log fails: {after.reason}")
    return load(store, game_id)


def reveal(store: Store, game_id: str, force: bool = False) -> list[Row]:
    """Append the game's secret so that anyone can recompute every draw."""
    loaded = current(store, game_id)
    secret = store.secret(game_id)
    if not secret:
        raise StoreError(f"this database does not hold the secret of game {game_id} "
                         "(an imported game: only the database it was created in has it)")
    if not loaded.meta.over and not force:
        raise InvalidCommand(f"game {game_id} is still running: revealing the secret now lets every "
                             "player foresee the remaining draws; pass --force to reveal anyway (ruling K8)")
    return give(store, loaded, RevealSecret(secret=secret), answer=False).written


def fork(store: Store, game_id: str, at: int, new_id: str, secret: bytes) -> Loaded:
    """A sandbox copy of events 1..at of a game, marked as a fork; the original is untouched.

    The fork draws from its own new secret, never the original's (ruling K7).
    """
    src = load(store, game_id, at)
    if at < 1 or at > len(src.rows):
        raise InvalidCommand(f"game {game_id} has events 1 to {len(store.rows(game_id))}; "
                             f"cannot fork at {at}")
    ruleset = src.ruleset
    ref = ForkRef(game=game_id, at=at, head_hash=src.rows[-1].hash,
                  commitment=ruleset.meta(fold(ruleset, src.events[:1])).commitment)
    created = ruleset.fork_created(src.events[0], commitment(secret), ref)
    payloads = [ruleset.encode_event(created).decode()] + [r.payload for r in src.rows[1:]]
    events = [created, *src.events[1:]]
    # the fork's hidden fields are salted from its own secret, as its later events will be
    rows = rechain([replace(r, payload=p, salts=redaction.salts_for(
        ruleset, secret, r.seq, e, ruleset.decode_command(r.command) if r.command else None))
        for r, p, e in zip(src.rows, payloads, events, strict=True)], CURRENT)
    store.import_rows(new_id, utc_now(), rows, CURRENT, secret=secret.hex())
    return load(store, new_id)


def rechain(rows: Sequence[Row], version: int) -> list[Row]:
    """The rows with their hashes computed anew in log format `version`."""
    out: list[Row] = []
    head = GENESIS_HASH
    for r in rows:
        head = link(version, head, seq=r.seq, type=r.type, actor=r.actor, batch=r.batch,
                    recorded_at=r.recorded_at, command=r.command, payload=r.payload, salts=r.salts)
        out.append(replace(r, hash=head))
    return out


# --- export and import -----------------------------------------------------------------------------------

class ExportLine(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True,
                 omit_defaults=True):
    """One event of an export: its store row with the payload embedded as canonical JSON.

    A full export carries the salt of every hidden field (`salts`), so that it verifies without the
    secret. An export made for one side carries the salts of the hidden fields it may see; each of
    the others reads {"commit": hex} in payload or command and is named in `withheld`.
    """

    seq: int
    type: str
    recorded_at: str
    actor: str
    batch: int
    command: msgspec.Raw  # the command that caused the batch, on its first line; else null
    payload: msgspec.Raw
    hash: str
    redacted: bool = False  # some hidden field of this line is withheld (an export made for one side)
    salts: dict[str, str] = {}  # hidden field -> salt, for the fields the reader may open
    withheld: dict[str, str] = {}  # hidden field -> commitment, for the fields it may not


_LINE = msgspec.json.Encoder()


def _raw(text: str | None) -> msgspec.Raw:
    return msgspec.Raw(text.encode() if text is not None else b"null")


def export_line(loaded_ruleset: Ruleset, row: Row, viewer: str | None, opened: bool,
                version: int) -> ExportLine:
    """One row as an export line, for the host (viewer None: every salt) or one side."""
    if viewer is None:
        return ExportLine(seq=row.seq, type=row.type, recorded_at=row.recorded_at, actor=row.actor,
                          batch=row.batch, command=_raw(row.command), payload=_raw(row.payload),
                          hash=row.hash, salts=row.salts)
    side = redaction.side_row(loaded_ruleset, row, viewer, opened, version)
    return ExportLine(seq=row.seq, type=row.type, recorded_at=row.recorded_at, actor=row.actor,
                      batch=row.batch, command=_raw(side.command), payload=_raw(side.payload),
                      hash=row.hash, redacted=bool(side.withheld), salts=side.salts,
                      withheld=side.withheld)


def export_lines(loaded: Loaded, viewer: str | None = None) -> list[bytes]:
    """JSON Lines: a header, then one line per event with its sequence number and hash.

    Every line made for one side passes the redaction boundary (mncore/redaction.py).
    """
    rows, ruleset, meta = loaded.rows, loaded.ruleset, loaded.meta
    head = rows[-1].hash if rows else GENESIS_HASH
    header = sealed(ExportHeader(format=EXPORT_FORMAT, version=loaded.version, game=loaded.game_id,
                                 ruleset=f"{meta.ruleset_id}@{meta.ruleset_version}",
                                 events=len(rows), head_hash=head, made_for=viewer))
    opened = meta.secret is not None
    return [_LINE.encode(header)] + [
        _LINE.encode(export_line(ruleset, r, viewer, opened, loaded.version)) for r in rows]


class ParsedExport(msgspec.Struct, kw_only=True):
    """An export read line by line: its header, its rows, and the fields each line withholds."""

    header: ExportHeader
    rows: list[Row]
    withheld: dict[int, dict[str, str]]  # seq -> field -> commitment (an export made for one side)


def parse_export(data: bytes, source: str) -> tuple[ExportHeader, list[Row]]:
    """The header and rows of a full export, read line by line; DataError naming a line that is not one.

    The hash chain is not checked here: verify_rows() does that and names the first bad event.
    """
    parsed = _parse(data, source)
    _known_format(parsed.header, source)
    if parsed.withheld:
        seq = min(parsed.withheld)
        raise DataError(source, [f"line {seq + 1}: this export was made for "
                                 f"{parsed.header.made_for or 'one empire'} with hidden parts "
                                 "withheld; only a full export can be imported"])
    return parsed.header, parsed.rows


def _parse(data: bytes, source: str) -> ParsedExport:
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    if not lines:
        raise DataError(source, ["line 1: the file is empty"])
    try:
        header = msgspec.json.decode(lines[0], type=ExportHeader)
    except (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError, RecursionError) as err:
        raise DataError(source, [f"line 1: not a mare-nostrum export header ({err})"]) from None
    if not 0 <= header.events <= MAX_NUMBER:
        raise DataError(source, [f"line 1: events: {number_text(header.events)} is not a count of "
                                 f"events (0 to {MAX_NUMBER:,})"])
    rows: list[Row] = []
    withheld: dict[int, dict[str, str]] = {}
    for i, raw in enumerate(lines[1:], start=2):
        try:
            line = msgspec.json.decode(raw, type=ExportLine)
            payload = bytes(line.payload).decode()
            # every number bounded before it sizes a loop in a replay or reaches SQLite (64 bits)
            problems = [f"line {i}: {p}" for p in (
                *out_of_bounds({"seq": line.seq, "batch": line.batch}, ""),
                *out_of_bounds(msgspec.json.decode(line.payload), "$.payload"),
                *out_of_bounds(msgspec.json.decode(line.command), "$.command"))]
        except (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError, RecursionError) as err:
            raise DataError(source, [f"line {i}: malformed event line ({err})"]) from None
        if problems:
            raise DataError(source, problems)
        if line.redacted and not line.withheld:
            raise DataError(source, [f"line {i}: this export was made by an older mn for one empire, "
                                     "with hidden parts dropped; it cannot be imported or verified"])
        if line.withheld:
            withheld[line.seq] = line.withheld
        rows.append(Row(seq=line.seq, type=line.type, payload=payload, recorded_at=line.recorded_at,
                        actor=line.actor, batch=line.batch, hash=line.hash, salts=line.salts,
                        command=None if bytes(line.command) == b"null" else bytes(line.command).decode()))
    return ParsedExport(header=header, rows=rows, withheld=withheld)


def _known_format(header: ExportHeader, source: str) -> None:
    """DataError for a file this mn cannot read (another format, or a log format it does not know)."""
    if header.format != EXPORT_FORMAT or header.version not in VERSIONS:
        raise DataError(source, [f"line 1: format {header.format} v{header.version} is not "
                                 f"{EXPORT_FORMAT} v{' or v'.join(map(str, VERSIONS))}"])


def _check_header(parsed: ParsedExport, source: str) -> None:
    """IntegrityFailure naming the header field that the rows below it contradict (edited).

    A version this mn does not know, with a chain in no format it knows, is a newer file: DataError.
    """
    header = parsed.header
    if header.version not in VERSIONS and chain_version(parsed.rows) is None:
        _known_format(header, source)
    problem = header_problem(header, parsed.rows, bool(parsed.withheld))
    if problem is not None:
        raise HeaderEdited(problem)


def read_export(data: bytes, source: str) -> tuple[ExportHeader, list[Row]]:
    """Parse and check an export line by line; DataError naming the first bad line."""
    header, rows = parse_export(data, source)
    head = GENESIS_HASH
    for i, row in enumerate(rows, start=2):
        expected_seq = i - 1
        if row.seq != expected_seq:
            raise DataError(source, [f"line {i}: event {row.seq} where event {expected_seq} was "
                                     "expected (reordered, missing or duplicated lines)"])
        try:
            kind = msgspec.json.decode(row.payload, type=dict).get("type")
        except msgspec.DecodeError as err:
            raise DataError(source, [f"line {i}: the payload is not JSON ({err})"]) from None
        if kind != row.type:
            raise DataError(source, [f"line {i}: type {row.type} but the payload is {kind}"])
        try:
            head = link(header.version, head, seq=row.seq, type=row.type, actor=row.actor,
                        batch=row.batch, recorded_at=row.recorded_at, command=row.command,
                        payload=row.payload, salts=row.salts)
        except CommitError as err:
            raise DataError(source, [f"line {i}: a salted field is not in the event ({err})"]) from None
        if head != row.hash:
            raise DataError(source, [f"line {i}: event {row.seq} hash does not match its payload "
                                     "and the chain before it (edited or corrupted)"])
    if len(rows) != header.events or head != header.head_hash:
        raise DataError(source, [f"line {len(rows) + 2}: the file ends after {len(rows)} events but "
                                 f"its header promises {header.events} ending in "
                                 f"{header.head_hash[:12]} (truncated?)"])
    return header, rows


def check_import(data: bytes, source: str) -> tuple[ExportHeader, list[Row]]:
    """Read an export and verify it whole (chain, replay, every command decided again), refusing it
    with the line at fault; nothing is stored."""
    header, rows = read_export(data, source)
    ruleset_of(rows[0].payload, source) if rows else None  # an unknown ruleset is bad input (exit 2)
    problem = header_problem(header, rows, False)
    if problem is not None:
        raise HeaderEdited(f"{source}, line 1: {problem}; nothing imported")
    report = verify_rows(rows, header.version)
    if not report.ok:
        raise IntegrityFailure(report.first_bad or 1, f"{source}, line {(report.first_bad or 1) + 1}: "
                                                      f"{report.reason}; nothing imported")
    return header, rows


def import_game(store: Store, header: ExportHeader, rows: list[Row],
                game_id: str | None = None) -> Loaded:
    """Store a checked export (from check_import) as a game."""
    gid = game_id or header.game
    store.import_rows(gid, utc_now(), rows, header.version)
    return load(store, gid)


# --- play by email: batches, undo, corrections, deadlines, forced answers, standing orders ----------

def undo(store: Store, game_id: str, side: str) -> tuple[list[Row], list[str]]:
    """Take back the side's last batch (K1) if it may alone, or ask for it by recording its own
    consent (K2), which takes it back at once if every side it needs consented before; the rows
    written and the sides whose consent is still wanted."""
    loaded = load(store, game_id)
    batch = last_batch(loaded, side)
    missing = undo_missing(loaded, batch)
    if side not in missing and missing:
        return [], missing  # asked already: nothing more to record
    act = ConsentUndo(side=side, batch=batch) if missing else UndoBatch(side=side, batch=batch)
    outcome = give(store, loaded, act)
    return outcome.rows, undo_missing(_full(outcome.after), batch) if missing else []


def last_batch(loaded: Loaded, side: str) -> int:
    """The first event of the side's last batch still in play (refused: K1 when there is none)."""
    return pbem.last_batch(loaded.ruleset, loaded.rows, side)


def undo_missing(loaded: Loaded, batch: int) -> list[str]:
    """The sides whose consent an undo of the batch still wants, its giver's request first; none once
    it is taken back (or when it stands alone, K1)."""
    if batch in pbem.undone_seqs(loaded.rows):
        return []
    ruleset = loaded.ruleset
    giver = next(s.giver for s in pbem.spans(ruleset, loaded.rows) if s.first == batch)
    _, needed = pbem.undo_needs(ruleset, pbem.Log(rows=loaded.rows, events=loaded.events, game_id=loaded.game_id), giver, batch)
    if not needed:
        return []
    consents = pbem.consents_of(loaded.rows, batch)
    return [s for s in [giver, *needed] if s not in consents]


def consent(store: Store, game_id: str, side: str, batch: int) -> tuple[list[Row], list[str]]:
    """Record the side's consent to undoing a batch (K2): the consent that completes them (its
    giver's request among them) takes the batch back in the same batch. The rows written and the
    consents still wanted."""
    outcome = give(store, game_id, ConsentUndo(side=side, batch=batch))
    return outcome.rows, undo_missing(_full(outcome.after), batch)


def advance(store: Store, game_id: str, limit: int = 200, cur: Current | None = None) -> list[Row]:
    """What the service answers by itself now (the rows written): give() answers after each command;
    this is for a caller that wrote without answers. `cur`: the game as just written, if the caller
    has it (saves a read)."""
    return _answers(store, cur if cur is not None else current(store, game_id), limit=limit)[0]


def _answers(store: Store, after: Loaded | Current, now: str | None = None,
             limit: int = 200) -> tuple[list[Row], Loaded | Current]:
    """What the service answers by itself, in turn, until it has nothing to answer: a decision with one
    legal answer when the pace takes them at once (K5), a side's standing order legal now (K6), a
    queued one (K9); the rows and the game after them, recorded at `now` as the batch they answer is
    (else a tick at a later time would record them before its own act, and the decisions they open
    would start in the past, overdue at once). Each answer is folded forward from the state the game
    is given in (the log read once beside it: the answers read it), never replayed."""
    out: list[Row] = []
    if not _ledger(after).pbem:
        return out, after  # no pace, standing or queued orders ever set: the service never answers
    loaded = _full(after, store)
    for _ in range(limit):
        command = _service_answer(loaded)
        if command is None:
            break
        try:
            loaded, rows = _submit_command(store, loaded, command, now)  # type: ignore[assignment]
        except CommandRejected as err:  # the ruleset's answer is refused: a bug, never the user's
            log.info("service answer refused", game=loaded.game_id, command=type(command).__name__,
                     error=err.message)
            break
        out += rows
    return out, loaded if out else after


def _full(game: Loaded | Current, store: Store | None = None) -> Loaded:
    """The game with its whole log beside its state: a Current's rows read and decoded, not folded."""
    if isinstance(game, Loaded):
        return game
    assert store is not None, "a Current is read whole from its store"
    rows, events = _decoded(store, game.game_id, None)
    return Loaded(game_id=game.game_id, ruleset=game.ruleset, version=game.version, rows=rows,
                  events=events, state=game.state, draw_head=game.draw_head)


def _service_answer(loaded: Loaded) -> Any:
    """The first answer the service gives now for a side, or None (pbem.service_answer)."""
    ruleset = loaded.ruleset
    for side in dict.fromkeys(p.empire for p in ruleset.pending(loaded.state)):
        answer = pbem.service_answer(ruleset, loaded.state, side, loaded.rows)
        if answer is not None:
            return answer
    return None


def tick(store: Store, game_id: str, now: str, limit: int = 200) -> list[Row]:
    """For every decision overdue at `now`, the ruleset's documented default, recorded as the
    deadline's act at `now` (K4), each followed by what the service answers by itself."""
    from mncore.protocol import Defaults
    out: list[Row] = []
    if not current(store, game_id).ledger.pbem:
        return out  # no pace was ever set: no deadline can have passed
    loaded = load(store, game_id)
    for _ in range(limit):
        ruleset, defaults = loaded.ruleset, loaded.ruleset
        if not isinstance(defaults, Defaults) or loaded.meta.over:
            return out
        late = pbem.overdue(ruleset, pbem.Log(rows=loaded.rows, events=loaded.events, game_id=loaded.game_id), now)
        answer = next(((w, defaults.default_orders(loaded.state, w.side)) for w in late
                       if defaults.default_orders(loaded.state, w.side)), None)
        if answer is None:
            return out
        w, orders = answer
        outcome = give(store, loaded, DefaultOrders(side=w.side, orders=tuple(orders), due=w.due or "", at=now),
                       now)
        out += outcome.rows
        loaded = _full(outcome.after)
    return out


def set_pace(store: Store, game_id: str, hours: int, phases: dict[str, int], forced: bool,
             now: str | None = None) -> list[Row]:
    """The host sets the deadlines and forced answers (K4, K5), then the service answers what it may."""
    return give(store, game_id, SetPace(hours=hours, phases=phases, forced=forced), now).rows


def set_standing(store: Store, game_id: str, side: str, orders: Sequence[str]) -> list[Row]:
    """A side's standing orders (K6), then whatever of them the service can apply at once."""
    return give(store, game_id, SetStandingOrders(side=side, orders=tuple(orders))).rows


def correct(store: Store, game_id: str, batch: int, reason: str) -> list[Row]:
    """The host's reasoned correction: the batch and every event after it taken back (K3), then what
    the service answers by itself in the state taken back to."""
    return give(store, game_id, CorrectBatch(batch=batch, reason=reason)).rows


def waiting(store: Store, game_id: str) -> dict[str, pbem.Waiting]:
    """Each side the game waits for, since when, and its deadline (K4)."""
    loaded = load(store, game_id)
    return pbem.waiting(loaded.ruleset, pbem.Log(rows=loaded.rows, events=loaded.events, game_id=loaded.game_id))
