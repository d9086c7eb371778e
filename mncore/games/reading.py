"""Reading a game: the whole log (Loaded) or its state at the head from the last snapshot (Current)."""

from __future__ import annotations

import datetime as dt
import hashlib
import os
from collections.abc import Container, Iterator, Sequence
from typing import Any

import msgspec
from msgspec.structs import replace

from mncore import __version__
from mncore.core import log_lines as log
from mncore.core.chain import GENESIS_HASH, content_link
from mncore.core.errors import IntegrityFailure
from mncore.core.kernel_acts import (
    UNDO_TYPES,
)
from mncore.core.kernel_state import KernelState, undone_seqs
from mncore.core.protocol import Meta, Ruleset
from mncore.games.log_reading import (
    collector_paused,
    content_head,
    decode_row,
    decode_rows,
    decoded,
    fold_rows,
    ruleset_of,
)
from mncore.pbem import trust, turns
from mncore.store import LogPrefix, Row, Snapshot, Store


def utc_now() -> str:
    """The game service's one clock (tests set reading.utc_now): every row it writes is stamped by it."""
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
    kernel: KernelState  # the kernel's own state beside the ruleset's (trust.kernel_of the rows)
    # carried when writing extends a Loaded by one batch (else counted from the rows when asked)
    batches: int | None = None
    snapshot_seq: int | None = None  # the last snapshot's seq, as writing left it (None: ask the store)
    secret: bytes | None | msgspec.UnsetType = msgspec.UNSET  # as Current's: the store's, once read

    @property
    def head(self) -> tuple[int, str]:
        return (self.rows[-1].seq, self.rows[-1].hash) if self.rows else (0, GENESIS_HASH)

    @property
    def meta(self) -> Meta:
        return _meta(self.ruleset, self.state, self.kernel)


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
    kernel: KernelState  # the kernel's own state beside the ruleset's (trust.kernel_step)
    snapshot_seq: int = 0  # the seq of the snapshot it started from (0: the log's start)
    # (seq, digest) of the snapshot whose nonces the kernel's ledger still lacks: it holds only those used
    # after it until a command that needs them all reads them (read_nonces); None: the ledger holds all
    unread_nonces: tuple[int, str] | None = None
    # the game's secret as the store holds it, read at the first order and kept for the next ones
    secret: bytes | None | msgspec.UnsetType = msgspec.UNSET
    # snapshot_every() as the first order written on it read it, kept for the next ones: looking up a variable
    # the environment does not set cost more than all the rest of an order's snapshot check
    snapshot_every: int | None = None

    @property
    def meta(self) -> Meta:
        return _meta(self.ruleset, self.state, self.kernel)

    @property
    def ledger(self) -> trust.Ledger:
        """What the log says about signing (the kernel's state's), its nonces perhaps unread (read_nonces)."""
        return self.kernel.ledger


def _meta(ruleset: Ruleset, state: Any, kernel: KernelState) -> Meta:
    """What the kernel reads of a game: the ruleset's Meta with the secret the kernel folded."""
    meta: Meta = ruleset.meta(state)
    return replace(meta, secret=kernel.secret) if kernel.secret is not None else meta


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
                  events=events, state=state, draw_head=content_head(rows), kernel=trust.kernel_of(ruleset, rows))


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
                      batches=0, kernel=KernelState())
    state, draw_head, head, batches = cur.state, cur.draw_head, cur.head, cur.batches
    kernel = trust.KernelFold(cur.kernel)
    undo_seen = False  # an undo after the snapshot: the state is folded again without what it took back (K1)
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
            kernel.step(ruleset, row, batches)
            draw_head = content_link(draw_head, row.payload)
            head = (row.seq, row.hash)
    if head[0] == 0:
        raise IntegrityFailure(1, f"game {game_id} has no events")
    if undo_seen:
        state = _refolded(store, game_id, ruleset, kernel.kernel, head[0])
    cur.state, cur.draw_head, cur.head, cur.batches = ruleset.named(state, game_id), draw_head, head, batches
    cur.kernel = kernel.kernel
    return cur


# 2: snapshots of format 1 written after a signed order lost the ledger's pbem flag (trust.advanced),
# and with it every forced answer and standing order after them: they are not read again
# 3: the ledger holds the log's draw scheme (K10); a ledger of format 2 encodes without it
# 4: the kernel folds its own events (mncore/core/envelope.py), no longer the rulesets: states cached by
# the rulesets' folds are not trusted to agree
# 5: the kernel's state (mncore/core/kernel_state.py) in the ledger's place, the secret out of the rulesets' states
# 6: a 2003 game's hands, debts and losses folded in the log's order (its JSON sorts a dict's keys) as its
# orders are given, where they were folded in the deciding side's: a snapshot written then did not match a replay
# 7: the ledger's nonces (every signed block's) kept apart in a column of their own, the digest covering them
# through theirs: a command that checks no block neither reads, hashes nor decodes them (read_nonces)
SNAPSHOT_FORMAT = 7


def engine_of(ruleset: Ruleset) -> str:
    """What a snapshot is only good for: this engine's, its snapshots' and this ruleset's versions."""
    return f"mncore {__version__} snapshots {SNAPSHOT_FORMAT}; {ruleset.id}@{ruleset.version}"


def _digest(snap: Snapshot) -> str:
    """SHA-256 of the msgpack of [seq, head hash, engine, draw head, batches, ledger, nonces' digest], then
    the state: the nonces are covered by their own digest, so that the rest is checked without them."""
    head = msgspec.msgpack.encode([snap.seq, snap.head_hash, snap.engine, snap.draw_head, snap.batches,
                                   snap.ledger, snap.nonces_digest])
    return hashlib.sha256(head + snap.state).hexdigest()


def nonces_digest(text: bytes) -> str:
    """The digest of a snapshot's nonces (their JSON object's UTF-8 bytes)."""
    return hashlib.sha256(text).hexdigest()


NO_NONCES = nonces_digest(b"{}")  # a snapshot of a game without signed blocks: nothing to read


def stands(snap: Current, kernel: KernelState) -> bool:
    """Whether a snapshot's state is the fold, up to it, of every event but those taken back as of
    `kernel` (the game's kernel later on): whatever was taken back after it starts after it (K1, K3)."""
    then, now = snap.kernel.email.undone, kernel.email.undone
    return now[:len(then)] == then and all(first > snap.head[0] for first, _ in now[len(then):])


def _refolded(store: Store, game_id: str, ruleset: Ruleset, kernel: KernelState, head: int) -> Any:
    """The state at event `head` less what was taken back as of `kernel` (turns.live): folded from the
    last snapshot at or before it that stands, else from the first event."""
    gone = undone_seqs(kernel.email)
    snap = standing_snapshot(store, game_id, ruleset, head, kernel)
    pairs = decoded(ruleset, store.stream_rows(game_id, snap.head[0] + 1 if snap else 1, head),
                    "cannot decode the stored event")
    return fold_rows(ruleset, ((r, e) for r, e in pairs if r.seq not in gone), snap.state if snap else None)


def standing_snapshot(store: Store, game_id: str, ruleset: Ruleset, seq: int, kernel: KernelState) -> Current | None:
    """The last good snapshot at or before seq that stands as of `kernel` (stands), or None."""
    while (snap := snapshot_at_or_before(store, game_id, ruleset, seq)) is not None and not stands(snap, kernel):
        seq = snap.head[0] - 1
    return snap


def snapshot_at_or_before(store: Store, game_id: str, ruleset: Ruleset, seq: int) -> Current | None:
    """The game as its last good snapshot at or before seq holds it (a batch's end), or None."""
    snap = store.latest_snapshot(game_id, seq, engine_of(ruleset)) if seq > 0 else None
    return _thawed(store, game_id, ruleset, snap) if snap is not None else None


def _thawed(store: Store, game_id: str, ruleset: Ruleset, snap: Snapshot) -> Current | None:
    """The snapshot as a Current, or None if it is damaged (its digest or its blob)."""
    if _digest(snap) != snap.digest:
        return None
    try:
        state = ruleset.decode_state(snap.state)
        kernel = msgspec.json.decode(snap.ledger, type=KernelState)
    except (msgspec.DecodeError, msgspec.ValidationError, ValueError, TypeError):
        return None
    if kernel.ledger.nonces:  # this format keeps them apart: not a snapshot this engine wrote
        return None
    return Current(game_id=game_id, ruleset=ruleset, version=store.log_version(game_id), state=state,
                   head=(snap.seq, snap.head_hash), draw_head=snap.draw_head, batches=snap.batches,
                   kernel=kernel, snapshot_seq=snap.seq,
                   unread_nonces=None if snap.nonces_digest == NO_NONCES else (snap.seq, snap.nonces_digest))


def read_nonces(store: Store, game: Loaded | Current) -> trust.Ledger:
    """The game's ledger with every nonce a signed block used (trust.check_block), kept in the game from then
    on: a Current folded from a snapshot holds only those used after it until asked, when the snapshot's are
    read and held to their digest; if they do not hold, or the snapshot is gone, they are folded from the log."""
    if isinstance(game, Loaded) or game.unread_nonces is None:
        return game.kernel.ledger
    seq, digest = game.unread_nonces
    ledger = game.kernel.ledger
    ledger = replace(ledger, nonces={**_snapshot_nonces(store, game, seq, digest), **ledger.nonces})
    game.kernel, game.unread_nonces = replace(game.kernel, ledger=ledger), None
    return ledger


def _snapshot_nonces(store: Store, game: Current, seq: int, digest: str) -> dict[str, int]:
    """The nonces of the snapshot at seq if they hold to its digest, else those of the log up to seq."""
    text = store.snapshot_nonces(game.game_id, seq)
    if text is not None:
        data = text.encode()
        if nonces_digest(data) == digest:
            try:
                return msgspec.json.decode(data, type=dict[str, int])
            except (msgspec.DecodeError, msgspec.ValidationError):
                pass
    log.info("snapshot nonces not read; folded from the log", game=game.game_id, seq=seq)
    return trust.kernel_of(game.ruleset, store.stream_rows(game.game_id, 1, seq)).ledger.nonces


def _snapshot(store: Store, cur: Current) -> int:
    """Cache cur as the game's snapshot if its log has grown snapshot_every() events past the last
    one; the seq of the game's last snapshot after. A failure to cache never fails the command."""
    if cur.snapshot_every is None:
        cur.snapshot_every = snapshot_every()
    every = cur.snapshot_every
    if every <= 0 or cur.head[0] - cur.snapshot_seq < every:
        return cur.snapshot_seq
    try:
        ledger = read_nonces(store, cur)
        nonces = msgspec.json.encode(ledger.nonces)
        bare = replace(cur.kernel, ledger=replace(ledger, nonces={}))
        snap = Snapshot(seq=cur.head[0], head_hash=cur.head[1], engine=engine_of(cur.ruleset),
                        draw_head=cur.draw_head, batches=cur.batches, ledger=msgspec.json.encode(bare).decode(),
                        state=cur.ruleset.encode_state(cur.state), digest="", nonces=nonces.decode(),
                        nonces_digest=nonces_digest(nonces))
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
    return fold_rows(ruleset, turns.live(rows, events))


class _StoredLog(LogPrefix):
    """A stored log's first `length` rows, each read when asked for."""

    def __init__(self, store: Store, game_id: str, length: int) -> None:
        super().__init__(length)
        self._store, self._game_id = store, game_id

    def _row(self, index: int) -> Row | None:
        return self._store.row_at(self._game_id, index + 1)

    def __iter__(self) -> Iterator[Row]:
        return self._store.stream_rows(self._game_id, 1, self._length)

    def __reversed__(self) -> Iterator[Row]:
        """The rows from the last back, read a chunk at a time (what is looked for there, a side's last
        signed block, is most often near the end: draw_keys.service_key)."""
        end = self._length
        while end > 0:
            start = max(1, end - _BACK + 1)
            yield from reversed(self._store.rows(self._game_id, start, end))
            end = start - 1


_BACK = 64  # rows read at a time from a stored log's end


_UNREADABLE = "cannot decode the stored event"  # a stored row that does not decode


class StoredPrefix(_StoredLog):
    """A stored log's first rows, each read when asked for, read back from the end a chunk at a time
    (draw_keys.service_key looks for a side's last block); `orders_in_play`: K11's count of them where
    it was counted as they were read (draw_keys.orders_before reads it), else None (counted on them);
    `taken_back`: the events their undos took back, where they were carried (None: read from them)."""

    def __init__(self, store: Store, game_id: str, length: int, orders: int | None,
                 taken: Container[int] | None = None) -> None:
        super().__init__(store, game_id, length)
        self.orders_in_play, self.taken_back = orders, taken
        self.last: Row | None = None  # the row its iteration gave last (StoredEvents decodes it)

    def __iter__(self) -> Iterator[Row]:
        for r in self._store.stream_rows(self._game_id, 1, self._length):
            self.last = r
            yield r

    @property
    def game_id(self) -> str:
        return self._game_id


class StoredEvents(Sequence[Any]):
    """The events of a StoredPrefix's rows, each decoded when asked for or as it is iterated: iterated
    beside the rows (turns zips them), each is decoded from the row the rows' iteration just read, not
    read from the store a second time. Each is decoded as decode_row decodes it: a row that does not
    decode, or holds a number beyond bounds, is an IntegrityFailure at its seq (`what` words it)."""

    def __init__(self, store: Store, ruleset: Ruleset, rows: StoredPrefix, what: str = _UNREADABLE) -> None:
        self._store, self._ruleset, self._rows, self._what = store, ruleset, rows, what
        self._game_id, self._length = rows.game_id, len(rows)

    def __len__(self) -> int:
        return self._length

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._length))]
        at = index + self._length if index < 0 else index
        row = self._store.row_at(self._game_id, at + 1) if 0 <= at < self._length else None
        if row is None:
            raise IndexError(index)
        return decode_row(self._ruleset, row, self._what)

    def rows_from(self, seq: int) -> Iterator[Row]:
        """The rows from event `seq` on, read from the store as they are asked for."""
        return self._store.stream_rows(self._game_id, max(seq, 1), self._length)

    def pairs_from(self, seq: int) -> Iterator[tuple[Row, Any]]:
        """Those rows with their events."""
        return decoded(self._ruleset, self.rows_from(seq), self._what)

    def __iter__(self) -> Iterator[Any]:
        ruleset, what, stream = self._ruleset, self._what, None
        for seq in range(1, self._length + 1):
            row = self._rows.last
            if row is not None and row.seq == seq:
                stream = None
            else:  # not read beside the rows: from the store
                stream = stream or self._store.stream_rows(self._game_id, seq, self._length)
                row = next(stream)
            yield decode_row(ruleset, row, what)


def _stored(store: Store, loaded: Loaded | Current) -> Sequence[Row]:
    """The log before the next batch, each row read only if asked for (a K11 settle count)."""
    return loaded.rows if isinstance(loaded, Loaded) else _StoredLog(store, loaded.game_id, loaded.head[0])


def _ledger(loaded: Loaded | Current) -> trust.Ledger:
    return loaded.kernel.ledger


def _log(loaded: Loaded) -> turns.Log:
    """The log as play by email reads it, with the kernel's record of it."""
    return turns.Log(rows=loaded.rows, events=loaded.events, game_id=loaded.game_id, email=loaded.kernel.email)


def _secret(store: Store, loaded: Loaded | Current) -> bytes | None:
    """The game's secret, read from the store once per Current or Loaded written on (it never changes
    once created)."""
    if not isinstance(loaded.secret, msgspec.UnsetType):
        return loaded.secret
    found = store.secret(loaded.game_id)
    secret = bytes.fromhex(found) if found else None
    if isinstance(loaded, Current):
        loaded.secret = secret
    return secret


def _batches(loaded: Loaded | Current) -> int:
    if isinstance(loaded, Current):
        return loaded.batches
    if loaded.batches is not None:
        return loaded.batches
    return sum(1 for r in loaded.rows if r.batch == r.seq)


def _full(game: Loaded | Current, store: Store | None = None) -> Loaded:
    """The game with its whole log beside its state: a Current's rows read and decoded, not folded."""
    if isinstance(game, Loaded):
        return game
    assert store is not None, "a Current is read whole from its store"
    read_nonces(store, game)
    rows, events = _decoded(store, game.game_id, None)
    return Loaded(game_id=game.game_id, ruleset=game.ruleset, version=game.version, rows=rows,
                  events=events, state=game.state, draw_head=game.draw_head, kernel=game.kernel)
