"""The SQLite store: with sqlite_schema.py the only code that touches SQLite, WAL mode."""

from __future__ import annotations

import os
import re
import sqlite3
import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import wraps
from typing import Concatenate, ParamSpec, TypeVar

import msgspec

from mncore.core.chain import CURRENT, GENESIS_HASH
from mncore.core.errors import Conflict, StoreError
from mncore.store.base import (
    NONCES_PIECE,
    SNAPSHOT_AT_SQL,
    SNAPSHOT_NONCES_SQL,
    SNAPSHOTS_SQL,
    GameRow,
    NewRow,
    Row,
    Snapshot,
    SnapshotHead,
    chained,
    decode_salts,
    encode_salts,
    latest_snapshot_sql,
    snapshot_head_of,
    snapshot_of,
    unknown_game,
)

# How many migrations sqlite_schema.py holds (a test keeps the two equal): a database that records
# as many in sqlite-utils' table is current, known without importing sqlite-utils.
MIGRATION_COUNT = 6


def _applied(conn: sqlite3.Connection) -> int:
    """How many of our migrations the database records (0: new, or from before migrations)."""
    try:
        found = conn.execute("select count(*) from _sqlite_migrations where migration_set = 'mare-nostrum'")
    except sqlite3.OperationalError:  # no such table
        return 0
    return int(found.fetchone()[0])


def _table_names(conn: sqlite3.Connection) -> set[str]:
    return {r[0] for r in conn.execute("select name from sqlite_master where type = 'table'")}


class SqliteStore:
    """A mare-nostrum SQLite database file (the default store, embedded: no server)."""

    def __init__(self, path: str, *, create: bool = False) -> None:
        self.path = path
        self._current = False  # every migration applied: every table there
        if os.path.isdir(path):
            raise StoreError(f"{path} is a directory, not a database file")
        if not create and not os.path.exists(path):
            raise StoreError(f"no database at {path}: create a game first (mn new), "
                             "or point --db / MN_DB at an existing file")
        try:
            # any thread may close it: the collector runs the finalizer below in whichever thread it
            # collects in (mn serve's listener's, aiosmtpd's); each store is still used by one thread
            conn = sqlite3.connect(path, isolation_level=None, timeout=10.0, check_same_thread=False)
            conn.execute("PRAGMA busy_timeout = 10000")
            conn.row_factory = sqlite3.Row
            self.conn = conn
            # closed when the store goes, or at exit if it has not: a connection is in a cycle with its
            # statement cache, which only the collector would free, and a file's write-ahead log is
            # folded into it only as its last connection closes (a copy of the file alone holds all)
            self._closer = weakref.finalize(self, conn.close)
            self._current = _applied(conn) >= MIGRATION_COUNT  # one query: all a current database costs
            tables = set() if self._current else _table_names(conn)
        except (sqlite3.DatabaseError, UnicodeDecodeError) as err:
            raise StoreError(f"{path} is not a SQLite database ({err})") from None
        if self._current:
            return
        if {"games", "events"} <= tables:
            self._upgrade()
            return
        if not create and not self._empty():
            raise StoreError(f"{path} is a SQLite file but not a mare-nostrum database "
                             "(no games or events table)")
        self._migrate()

    def _upgrade(self) -> None:
        """An older database brought to the current schema; one this process cannot write to (a
        read-only file, a lock held too long) is read as it is, and migrated by its next write."""
        try:
            self._migrate()
        except StoreError:
            pass

    def _empty(self) -> bool:
        """Nothing at all in the file: an empty database (an `mn new`, `mn import` or `mn copy-db`
        killed before its first commit leaves one; sqlite makes the file before any table)."""
        return not self.conn.execute("select 1 from sqlite_master limit 1").fetchall()

    def _migrate(self) -> None:
        try:
            self._apply_migrations()
        except sqlite3.Error as err:  # a read-only file or folder: say so, not a traceback
            raise StoreError(f"{self.path}: cannot make the tables of a mare-nostrum database ({err})") from None
        self._current = True

    def _query(self, sql: str, args: Sequence[object] = ()) -> list[sqlite3.Row]:
        """Reads go through plain sqlite3: the hot path of every command pays for nothing more."""
        return self.conn.execute(sql, args).fetchall()

    def _has(self, table: str) -> bool:
        """The table is there (only a database this process could not migrate may lack one)."""
        return self._current or table in _table_names(self.conn)

    def _apply_migrations(self) -> None:
        """Every pending migration in one transaction: of several `mn new` on a missing file, one
        makes the tables, the others wait for its lock and find nothing left to do."""
        from mncore.store.sqlite_schema import migrate  # rare: only then is sqlite-utils imported

        try:
            # outside the transaction (SQLite will not switch journals inside one); a racer that
            # holds the file may leave it in rollback mode for this connection, which is still correct
            self.conn.execute("PRAGMA journal_mode = WAL")
        except sqlite3.OperationalError:
            pass
        with self._write(migrating=True) as conn:
            migrate(conn)

    def close(self) -> None:
        self._closer()

    @contextmanager
    def bulk(self) -> Iterator[None]:
        """Many writes as one transaction (the demo, self-play): durable together at the end, none
        if the block raises; each write inside is a savepoint, undone alone if it fails."""
        with self._write():
            yield

    @contextmanager
    def _write(self, *, migrating: bool = False) -> Iterator[sqlite3.Connection]:
        """One write transaction on the current schema (an older database is migrated first, unless
        this is the migration's), taking the write lock at once so that a racer waits or loses."""
        conn = self.conn
        if conn.in_transaction:  # inside bulk(): the outer transaction holds the lock already
            conn.execute("SAVEPOINT write")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK TO write")
                conn.execute("RELEASE write")
                raise
            conn.execute("RELEASE write")
            return
        if not (self._current or migrating):
            self._migrate()
        self._begin(conn)
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def _begin(self, conn: sqlite3.Connection) -> None:
        """Take the write lock at once, so that a racer waits or loses."""
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as err:
            raise StoreError(f"{self.path}: cannot write ({err})") from None

    # --- reads ---------------------------------------------------------------------------------

    def games(self) -> list[GameRow]:
        # a log's seqs run 1..n, so its last row (one primary-key probe) says how many it holds
        sql = ("select g.id, g.created_at, "
               "(select max(seq) from events where game_id = g.id) as n, "
               "(select hash from events where game_id = g.id order by seq desc limit 1) as head "
               "from games g order by g.created_at, g.id")
        rows = self._query(sql)
        if any(not isinstance(r["id"], str) or not isinstance(r["created_at"], str) for r in rows):
            # a damaged page (or a hand edit) can leave a game's cells NULL: refused as any damage is (_guarded)
            raise sqlite3.DatabaseError("a game's row has no id or no creation time")
        return [GameRow(id=r["id"], created_at=r["created_at"], events=r["n"] or 0,
                        head_hash=r["head"] or GENESIS_HASH) for r in rows]

    def has_game(self, game_id: str) -> bool:
        return bool(self._query("select 1 from games where id = ?", [game_id]))

    def require_game(self, game_id: str) -> None:
        if not self.has_game(game_id):
            raise unknown_game(self, game_id)

    def log_version(self, game_id: str) -> int:
        """The log format of a game (1: payload-only hashes; 2: the whole row hashed)."""
        rows = self._query("select schema from games where id = ?", [game_id])
        return int(rows[0]["schema"]) if rows else CURRENT

    def recorded_head(self, game_id: str) -> tuple[int, str] | None:
        """The head the last write recorded beside the log, or None (a database from before heads)."""
        if not self._has("heads"):
            return None
        rows = self._query("select seq, hash from heads where game_id = ?", [game_id])
        return (rows[0]["seq"], rows[0]["hash"]) if rows else None

    def secret(self, game_id: str) -> str | None:
        """The game's secret (hex), or None/"" when this database does not hold it."""
        rows = self._query("select secret from games where id = ?", [game_id])
        found = rows[0]["secret"] if rows else None
        if found and not (isinstance(found, str) and re.fullmatch(r"(?:[0-9a-f]{2})+", found)):
            raise StoreError(f"{self.path}: the secret stored for game {game_id} is damaged "
                             "(not hexadecimal); nothing was written")
        return found

    def head(self, game_id: str) -> tuple[int, str]:
        """The last sequence number and hash (0 and the genesis hash for an empty log)."""
        rows = self._query(
            "select seq, hash from events where game_id = ? order by seq desc limit 1", [game_id])
        return (rows[0]["seq"], rows[0]["hash"]) if rows else (0, GENESIS_HASH)

    def rows(self, game_id: str, start: int = 1, end: int | None = None) -> list[Row]:
        sql = ("select seq, type, payload, recorded_at, actor, command, batch, hash from events "
               "where game_id = ? and seq >= ?" + (" and seq <= ?" if end is not None else "")
               + " order by seq")
        args: list[object] = [game_id, start] + ([end] if end is not None else [])
        found = [Row(seq=r[0], type=r[1], payload=r[2], recorded_at=r[3], actor=r[4], command=r[5],
                     batch=r[6], hash=r[7]) for r in self._query(sql, args)]
        if not found or not self._has("salts"):
            return found
        salts = {r["seq"]: decode_salts(r["salts"], r["seq"]) for r in self._query(
            "select seq, salts from salts where game_id = ? and seq >= ? and seq <= ?",
            [game_id, found[0].seq, found[-1].seq])}
        return [msgspec.structs.replace(r, salts=salts[r.seq]) if r.seq in salts else r for r in found]

    def row_at(self, game_id: str, seq: int) -> Row | None:
        """One stored row with its salts, or None."""
        found = self.rows(game_id, seq, seq)
        return found[0] if found else None

    def stream_rows(self, game_id: str, start: int = 1, end: int | None = None) -> Iterator[Row]:
        """The rows from start (to end), read through a cursor, never all held: without their salts,
        which a fold does not need (rows() has them)."""
        sql = ("select seq, type, payload, recorded_at, actor, command, batch, hash from events "
               "where game_id = ? and seq >= ?" + (" and seq <= ?" if end is not None else "")
               + " order by seq")
        args: list[object] = [game_id, start] + ([end] if end is not None else [])
        try:
            cursor = self.conn.execute(sql, args)
            while chunk := cursor.fetchmany(512):
                for r in chunk:
                    yield Row(seq=r[0], type=r[1], payload=r[2], recorded_at=r[3], actor=r[4],
                              command=r[5], batch=r[6], hash=r[7])
        except (sqlite3.DatabaseError, UnicodeDecodeError) as err:
            raise StoreError(f"{self.path}: the database cannot be read ({err})") from None

    def latest_snapshot(self, game_id: str, upto: int | None, engine: str) -> Snapshot | None:
        """The last snapshot at or before upto made by this engine whose head hash is still the hash
        of the stored row at its seq (a rewritten or edited log leaves it behind), or None."""
        if not self._has_snapshots():
            return None
        rows = self._query(latest_snapshot_sql("?"), [game_id, upto if upto is not None else 2**62, engine])
        return snapshot_of(tuple(rows[0])) if rows else None

    def last_snapshot_seq(self, game_id: str) -> int:
        """The seq of the game's last snapshot (0: none)."""
        if not self._has("snapshots"):
            return 0
        rows = self._query("select max(seq) from snapshots where game_id = ?", [game_id])
        return int(rows[0][0] or 0)

    def snapshots(self, game_id: str) -> list[SnapshotHead]:
        """Every snapshot kept of the game, by seq, without its blobs (a row that does not read as one left out)."""
        if not self._has("snapshots"):
            return []
        found = (snapshot_head_of(tuple(r)) for r in self._query(SNAPSHOTS_SQL.format(mark="?"), [game_id]))
        return [s for s in found if s is not None]

    def snapshot_at(self, game_id: str, seq: int) -> Snapshot | None:
        """The snapshot kept at seq, whatever its engine or head, or None; without its nonces."""
        if not self._has_snapshots():
            return None
        rows = self._query(SNAPSHOT_AT_SQL.format(mark="?"), [game_id, seq])
        return snapshot_of(tuple(rows[0])) if rows else None

    def snapshot_nonces(self, game_id: str, seq: int) -> str | None:
        """The snapshot's nonces, whole, or None (no snapshot at seq, or none of this format)."""
        if not self._has_snapshots():
            return None
        rows = self._query(SNAPSHOT_NONCES_SQL.format(mark="?"), [game_id, seq])
        return rows[0][0] if rows and isinstance(rows[0][0], str) else None

    def nonces_pieces(self, game_id: str, seq: int) -> Iterator[bytes]:
        """The snapshot's nonces read from its pages a piece at a time (SQLite's incremental blob I/O)."""
        found = self._query("select rowid from snapshots where game_id = ? and seq = ? and nonces is not null",
                            [game_id, seq]) if self._has_snapshots() else []
        if not found:
            return
        try:
            with self.conn.blobopen("snapshots", "nonces", found[0][0], readonly=True) as blob:
                while piece := blob.read(NONCES_PIECE):
                    yield piece
        except sqlite3.DatabaseError as err:
            raise StoreError(f"{self.path}: the database cannot be read ({err})") from None

    def _has_snapshots(self) -> bool:
        """The snapshots table is there with this version's columns (a database this process could not
        migrate may hold one without the nonces: it holds no snapshot this engine reads)."""
        if self._current:
            return True
        return "snapshots" in _table_names(self.conn) and any(
            r[1] == "nonces_digest" for r in self.conn.execute("pragma table_info(snapshots)"))

    # --- writes --------------------------------------------------------------------------------

    def create_game(self, game_id: str, created_at: str, secret: str | None,
                    rows: Sequence[NewRow], *more: Sequence[NewRow]) -> list[Row]:
        """Make a game (in the current log format) and append its first events, in one transaction:
        the creation's batch, then each further batch given (the keys the host publishes)."""
        with self._write() as conn:
            if conn.execute("select 1 from games where id = ?", [game_id]).fetchone():
                raise StoreError(f"a game '{game_id}' already exists in {self.path}")
            conn.execute("insert into games (id, created_at, secret, schema) values (?, ?, ?, ?)",
                         [game_id, created_at, secret or "", CURRENT])
            out = self._insert(conn, game_id, 0, GENESIS_HASH, rows, CURRENT)
            for batch in more:
                out += self._insert(conn, game_id, out[-1].seq, out[-1].hash, batch, CURRENT)
            return out

    def append(self, game_id: str, expected_seq: int, rows: Sequence[NewRow], *,
               head: str | None = None, version: int | None = None) -> list[Row]:
        """Append after expected_seq, all or nothing; Conflict if the log has moved on.

        With the head hash and log format the caller holds, no read comes first: the head record
        moves from (expected_seq, head) to the new head only if it still stands there (a stale head
        changes no row), and the events' primary key (game, seq) refuses a seq written meanwhile.
        """
        if head is None or version is None or not rows:
            with self._write() as conn:
                return self._after_read(conn, game_id, expected_seq, rows)
        conn = self.conn
        if conn.in_transaction or not self._current:  # inside bulk(), or a database to migrate first
            with self._write() as conn:
                return self._after_head(conn, game_id, expected_seq, head, rows, version)
        # one order, one transaction (mn order's): what _write does, without its generator's frames
        self._begin(conn)
        try:
            written = self._after_head(conn, game_id, expected_seq, head, rows, version)
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        return written

    def _after_read(self, conn: sqlite3.Connection, game_id: str, expected_seq: int,
                    rows: Sequence[NewRow]) -> list[Row]:
        """The rows written after the log's head as read now; Conflict if it is not at expected_seq."""
        found = conn.execute("select seq, hash from events where game_id = ? "
                             "order by seq desc limit 1", [game_id]).fetchone()
        seq, found_head = (found[0], found[1]) if found else (0, GENESIS_HASH)
        if seq != expected_seq:
            raise Conflict(game_id, expected_seq, seq)
        version = conn.execute("select schema from games where id = ?", [game_id]).fetchone()[0]
        return self._insert(conn, game_id, seq, found_head, rows, int(version))

    def _after_head(self, conn: sqlite3.Connection, game_id: str, seq: int, head: str, rows: Sequence[NewRow],
                    version: int) -> list[Row]:
        """The rows written after (seq, head) if the head record stands there; if it does not (moved
        on, or a game from before head records), nothing is written by it and the log's head is read."""
        out = chained(seq, head, rows, version)
        moved = conn.execute("update heads set seq = ?, hash = ? where game_id = ? and seq = ? and hash = ?",
                             [out[-1].seq, out[-1].hash, game_id, seq, head]).rowcount
        if moved != 1:
            return self._after_read(conn, game_id, seq, rows)
        try:
            self._put_events(conn, game_id, out)
        except sqlite3.IntegrityError:  # a seq taken although the head record said otherwise
            raise Conflict(game_id, seq, self._stored_seq(conn, game_id)) from None
        return out

    @staticmethod
    def _stored_seq(conn: sqlite3.Connection, game_id: str) -> int:
        found = conn.execute("select max(seq) from events where game_id = ?", [game_id]).fetchone()
        return int(found[0] or 0)

    def import_rows(self, game_id: str, created_at: str, rows: Sequence[Row], version: int,
                    secret: str | None = None) -> None:
        """Store rows already numbered and chained in log format `version` (import, fork, upgrade).

        The caller verified them.
        """
        with self._write() as conn:
            if conn.execute("select 1 from games where id = ?", [game_id]).fetchone():
                raise StoreError(f"a game '{game_id}' already exists in {self.path}; "
                                 "import it into another --db")
            conn.execute("insert into games (id, created_at, secret, schema) values (?, ?, ?, ?)",
                         [game_id, created_at, secret or "", version])
            self._put_rows(conn, game_id, rows)

    def rewrite_log(self, game_id: str, expected: tuple[int, str], rows: Sequence[Row],
                    version: int) -> None:
        """Replace a game's whole log by rows chained in format `version` (mn upgrade), atomically.

        Conflict if the log has moved on from `expected` (seq, hash) since it was read.
        """
        with self._write() as conn:
            found = conn.execute("select seq, hash from events where game_id = ? "
                                 "order by seq desc limit 1", [game_id]).fetchone()
            if found is None or (found[0], found[1]) != expected:
                raise Conflict(game_id, expected[0], found[0] if found else 0)
            conn.execute("delete from events where game_id = ?", [game_id])
            conn.execute("delete from salts where game_id = ?", [game_id])
            conn.execute("delete from snapshots where game_id = ?", [game_id])
            conn.execute("update games set schema = ? where id = ?", [version, game_id])
            self._put_rows(conn, game_id, rows)

    def put_snapshot(self, game_id: str, snap: Snapshot) -> None:
        """Cache a fold (replacing one at the same seq), and keep only the game's two latest."""
        with self._write() as conn:
            conn.execute("insert or replace into snapshots (game_id, seq, head_hash, engine, draw_head, "
                         "batches, ledger, state, digest, nonces, nonces_digest) "
                         "values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                         [game_id, snap.seq, snap.head_hash, snap.engine, snap.draw_head, snap.batches,
                          snap.ledger, snap.state, snap.digest, snap.nonces, snap.nonces_digest])
            conn.execute("delete from snapshots where game_id = ? and seq not in (select seq from "
                         "snapshots where game_id = ? order by seq desc limit 2)", [game_id, game_id])

    def drop_snapshot(self, game_id: str, seq: int) -> None:
        """Delete the game's snapshot at seq, if there is one."""
        if not self._has("snapshots"):
            return
        with self._write() as conn:
            conn.execute("delete from snapshots where game_id = ? and seq = ?", [game_id, seq])

    def _put_rows(self, conn: sqlite3.Connection, game_id: str, rows: Sequence[Row]) -> None:
        self._put_events(conn, game_id, rows)
        if rows:
            self._set_head(conn, game_id, rows[-1].seq, rows[-1].hash)

    def _put_events(self, conn: sqlite3.Connection, game_id: str, rows: Sequence[Row]) -> None:
        """The rows and their salts (the head record is the caller's)."""
        conn.executemany(
            "insert into events (game_id, seq, type, payload, recorded_at, actor, command, batch, hash)"
            " values (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(game_id, r.seq, r.type, r.payload, r.recorded_at, r.actor, r.command, r.batch, r.hash)
             for r in rows])
        salted = [(game_id, r.seq, encode_salts(r.salts)) for r in rows if r.salts]
        if salted:
            conn.executemany("insert into salts (game_id, seq, salts) values (?, ?, ?)", salted)

    def _set_head(self, conn: sqlite3.Connection, game_id: str, seq: int, head: str) -> None:
        conn.execute("insert into heads (game_id, seq, hash) values (?, ?, ?) on conflict(game_id) "
                     "do update set seq = excluded.seq, hash = excluded.hash", [game_id, seq, head])

    def _insert(self, conn: sqlite3.Connection, game_id: str, seq: int, head: str,
                rows: Sequence[NewRow], version: int) -> list[Row]:
        out = chained(seq, head, rows, version)
        self._put_rows(conn, game_id, out)
        return out


_P = ParamSpec("_P")
_T = TypeVar("_T")


def _guarded(method: Callable[Concatenate[SqliteStore, _P], _T]) -> Callable[Concatenate[SqliteStore, _P], _T]:
    """A damaged file (truncated, overwritten, locked for good) is bad input, not a crash: a text
    cell overwritten with bytes that are not UTF-8 fails in the decoder, not in SQLite."""
    @wraps(method)
    def wrapper(self: SqliteStore, /, *args: _P.args, **kwargs: _P.kwargs) -> _T:
        try:
            return method(self, *args, **kwargs)
        except (sqlite3.DatabaseError, UnicodeDecodeError) as err:
            raise StoreError(f"{self.path}: the database cannot be read or written ({err}); "
                             "nothing was written") from None
    return wrapper


# the steps of an append, called only from guarded methods: one guard an append is enough
_APPEND_STEPS = ("_begin", "_after_head", "_after_read", "_put_events")

for _name, _method in list(vars(SqliteStore).items()):
    if (callable(_method) and not isinstance(_method, staticmethod) and not _name.startswith("__")
            and _name not in ("_write", "bulk", *_APPEND_STEPS)):
        setattr(SqliteStore, _name, _guarded(_method))
