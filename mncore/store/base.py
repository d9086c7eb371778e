"""The Store protocol every event store keeps, the rows it holds, and what all stores share."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Protocol, overload, runtime_checkable

import msgspec

from mncore.core.chain import link
from mncore.core.errors import StoreError, UnknownGame


class Row(msgspec.Struct, frozen=True, kw_only=True):
    """One stored event: its place in the game's log, its canonical payload and its chain hash."""

    seq: int
    type: str
    payload: str  # canonical JSON of the event
    recorded_at: str
    actor: str  # who caused it: an empire, "host", or "system"
    command: str | None = None  # the command that caused the batch, on the batch's first row
    batch: int  # seq of the first event appended by the same command
    hash: str
    salts: dict[str, str] = {}  # hidden field (payload/offer) -> salt: what opens its commitment


class LogPrefix(Sequence[Row]):
    """The first `length` rows of a log as a sequence, none copied (a slice per batch would make a
    pass over the log quadratic): a subclass gives the i-th row, 0-based, or None past its end."""

    def __init__(self, length: int) -> None:
        self._length = length

    def _row(self, index: int) -> Row | None:
        raise NotImplementedError

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> Row: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Row]: ...
    def __getitem__(self, index: int | slice) -> Row | Sequence[Row]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._length))]
        row = self._row(index + self._length if index < 0 else index) if -self._length <= index < self._length else None
        if row is None:
            raise IndexError(index)
        return row


class NewRow(msgspec.Struct, frozen=True, kw_only=True):
    """An event to append; the store numbers and chains it."""

    type: str
    payload: str
    recorded_at: str
    actor: str
    command: str | None = None
    salts: dict[str, str] = {}  # the salts of its hidden fields, from the service (chain.committed)


class GameRow(msgspec.Struct, frozen=True, kw_only=True):
    """A game as listed: its id, when it was made, how far its log goes."""

    id: str
    created_at: str
    events: int
    head_hash: str


class Snapshot(msgspec.Struct, frozen=True, kw_only=True):
    """A cached fold of a game's log up to `seq`: only a cache, never trusted over the log.

    The service keeps one only while the row at `seq` still has `head_hash` and `engine` is its own.
    """

    seq: int
    head_hash: str
    engine: str  # the engine and ruleset versions that folded it
    draw_head: str  # the content chain's head at seq
    batches: int  # how many batches the log holds up to seq
    ledger: str  # the kernel's state at seq (JSON), its ledger's nonces left out: they are kept apart
    state: bytes  # the ruleset's encode_state
    digest: str  # SHA-256 over all the above and nonces_digest: a damaged blob is seen and ignored
    # the nonces every signed block used, as their JSON object (megabytes in a long game by mail), in a column
    # of their own that only the commands needing them read (snapshot_nonces, nonces_pieces): a read snapshot
    # leaves them out (""); their SHA-256, read with the rest, lets the rest be checked without them
    nonces_digest: str = ""
    nonces: str = ""


class SnapshotHead(msgspec.Struct, frozen=True, kw_only=True):
    """What a listing of a game's snapshots says of each, without its blobs."""

    seq: int
    head_hash: str
    engine: str


@runtime_checkable
class Store(Protocol):
    """A database of games, each an append-only, hash-chained log of rows numbered from 1.

    Every implementation keeps the same contract (tests/test_store.py runs it over each): a unique
    (game, seq) so that of two appends after the same seq one wins and the other is a Conflict
    (exit 3) that wrote nothing; writes all or nothing; the head of each write recorded beside the
    log; a game's secret and its rows' salts kept apart from the events; snapshots only a cache.
    A player's public keys are events of the log (PublishKeys), so no store keeps them apart.
    """

    path: str  # how messages name the database (a file, or a URL without its password)

    def close(self) -> None: ...

    # reads
    def games(self) -> list[GameRow]:
        """Every game, oldest first, with how many events it holds and its last hash."""
    def has_game(self, game_id: str) -> bool: ...
    def require_game(self, game_id: str) -> None:
        """UnknownGame (exit 2) naming a few of the games there are, unless the game is here."""
    def log_version(self, game_id: str) -> int:
        """The log format of a game (1: payload-only hashes; 2: the whole row hashed)."""
    def recorded_head(self, game_id: str) -> tuple[int, str] | None:
        """The head the last write recorded beside the log, or None (a database from before heads)."""
    def secret(self, game_id: str) -> str | None:
        """The game's secret (hex), or None/"" when this database does not hold it."""
    def head(self, game_id: str) -> tuple[int, str]:
        """The last sequence number and hash (0 and the genesis hash for an empty log)."""
    def rows(self, game_id: str, start: int = 1, end: int | None = None) -> list[Row]:
        """The rows from start to end (inclusive), in order, with their salts."""
    def row_at(self, game_id: str, seq: int) -> Row | None:
        """One stored row with its salts, or None."""
    def stream_rows(self, game_id: str, start: int = 1, end: int | None = None) -> Iterator[Row]:
        """The rows in order, read a chunk at a time, never all held; without their salts."""
    def latest_snapshot(self, game_id: str, upto: int | None, engine: str) -> Snapshot | None:
        """The last snapshot at or before upto by this engine whose head hash is still the stored
        row's at its seq, or None."""
    def last_snapshot_seq(self, game_id: str) -> int:
        """The seq of the game's last snapshot (0: none)."""
    def snapshots(self, game_id: str) -> list[SnapshotHead]:
        """Every snapshot the store keeps of a game, by seq, whatever its engine or head (mn verify
        checks them against the log), without its blobs; a row that does not read as one is left out."""
    def snapshot_at(self, game_id: str, seq: int) -> Snapshot | None:
        """The snapshot kept at seq, whatever its engine or head, or None (none, or a row that does not
        read as a snapshot); without its nonces, as every read of one."""
    def snapshot_nonces(self, game_id: str, seq: int) -> str | None:
        """The nonces of the snapshot kept at seq, whole (a signed block's check needs them), or None."""
    def nonces_pieces(self, game_id: str, seq: int) -> Iterator[bytes]:
        """The UTF-8 bytes of the nonces of the snapshot kept at seq, a piece at a time, never all held
        (mn verify); nothing if there is none."""

    # writes
    def create_game(self, game_id: str, created_at: str, secret: str | None,
                    rows: Sequence[NewRow], *more: Sequence[NewRow]) -> list[Row]:
        """Make a game (current log format) and append its first batches, in one transaction."""
    def append(self, game_id: str, expected_seq: int, rows: Sequence[NewRow], *,
               head: str | None = None, version: int | None = None) -> list[Row]:
        """Append after expected_seq, all or nothing; Conflict if the log has moved on. `head` (the
        hash at expected_seq) and `version` (the log format), when the caller holds them, spare a
        store the reads: the write still fails on a stale head."""
    def import_rows(self, game_id: str, created_at: str, rows: Sequence[Row], version: int,
                    secret: str | None = None) -> None:
        """Store rows already numbered and chained in log format `version` (import, fork, copy)."""
    def rewrite_log(self, game_id: str, expected: tuple[int, str], rows: Sequence[Row],
                    version: int) -> None:
        """Replace a game's whole log atomically (mn upgrade); Conflict if it moved from expected."""
    def put_snapshot(self, game_id: str, snap: Snapshot) -> None:
        """Cache a fold (replacing one at the same seq), keeping only the game's two latest."""
    def drop_snapshot(self, game_id: str, seq: int) -> None:
        """Delete the game's snapshot at seq, if there is one (a forged one: mn verify)."""
    def bulk(self) -> AbstractContextManager[None]:
        """Many writes as one transaction (self-play, the demo): durable together at the end, none if
        the block raises; each write inside undone alone if it fails."""


def chained(seq: int, head: str, rows: Sequence[NewRow], version: int) -> list[Row]:
    """New rows numbered after seq and hash-chained from head, as one batch (every store's append)."""
    out: list[Row] = []
    batch = seq + 1
    for r in rows:
        seq += 1
        head = link(version, head, seq=seq, type=r.type, actor=r.actor, batch=batch,
                    recorded_at=r.recorded_at, command=r.command, payload=r.payload, salts=r.salts)
        out.append(Row(seq=seq, type=r.type, payload=r.payload, recorded_at=r.recorded_at,
                       actor=r.actor, command=r.command, batch=batch, hash=head, salts=r.salts))
    return out


def unknown_game(store: Store, game_id: str) -> UnknownGame:
    """The refusal of a game the store does not hold, naming a few it does."""
    known = [g.id for g in store.games()]
    hint = f"; games here: {', '.join(known[:10])}" if known else "; this database has no games"
    return UnknownGame(f"no game '{game_id}' in {store.path}{hint}")


def encode_salts(salts: dict[str, str]) -> str:
    return msgspec.json.encode(salts).decode()


def decode_salts(text: str, seq: int) -> dict[str, str]:
    """The salts of event seq as stored; a damaged or edited column is a StoreError, not a crash."""
    try:
        return msgspec.json.decode(text, type=dict[str, str])
    except (msgspec.DecodeError, TypeError) as err:
        raise StoreError(f"the salts stored for event {seq} cannot be read ({err}): the database "
                         "is damaged or was edited") from None


def latest_snapshot_sql(mark: str) -> str:
    """The query of a game's last good snapshot, with the store's parameter mark ("?" or "%s"): made
    by this engine at or before a seq, its head hash still the hash of the stored row at its seq."""
    return ("select s.seq, s.head_hash, s.engine, s.draw_head, s.batches, s.ledger, s.state, s.digest, "
            "s.nonces_digest "
            "from snapshots s join events e on e.game_id = s.game_id and e.seq = s.seq "
            f"and e.hash = s.head_hash where s.game_id = {mark} and s.seq <= {mark} and s.engine = {mark} "
            "order by s.seq desc limit 1")


SNAPSHOTS_SQL = "select seq, head_hash, engine from snapshots where game_id = {mark} order by seq"
SNAPSHOT_AT_SQL = ("select seq, head_hash, engine, draw_head, batches, ledger, state, digest, nonces_digest "
                   "from snapshots where game_id = {mark} and seq = {mark}")
SNAPSHOT_NONCES_SQL = "select nonces from snapshots where game_id = {mark} and seq = {mark}"
NONCES_PIECE = 1 << 16  # bytes of a snapshot's nonces read at a time


def snapshot_head_of(r: Sequence[object]) -> SnapshotHead | None:
    """A row of SNAPSHOTS_SQL as a SnapshotHead; None if a column has the wrong type."""
    try:
        return SnapshotHead(seq=r[0], head_hash=r[1], engine=r[2])  # type: ignore[arg-type]
    except (TypeError, ValueError, msgspec.ValidationError):
        return None


def snapshot_of(r: Sequence[object]) -> Snapshot | None:
    """A row of latest_snapshot_sql as a Snapshot; None if a column has the wrong type (not a
    snapshot this engine wrote)."""
    try:
        return Snapshot(seq=r[0], head_hash=r[1], engine=r[2], draw_head=r[3], batches=r[4],  # type: ignore[arg-type]
                        ledger=r[5], state=bytes(r[6]), digest=r[7],  # type: ignore[arg-type,call-overload]
                        nonces_digest=r[8] or "")  # type: ignore[arg-type]
    except (TypeError, ValueError, msgspec.ValidationError):
        return None
