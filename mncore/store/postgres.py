"""The PostgreSQL store (psycopg 3): the same tables, chain and contract as SQLite, for many hosts."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import wraps
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar
from urllib.parse import urlsplit, urlunsplit

import msgspec

from mncore.core.chain import CURRENT, GENESIS_HASH
from mncore.core.errors import Conflict, MareNostrumError, StoreError
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

if TYPE_CHECKING:
    import psycopg

# bigint seqs; text columns as SQLite has them; the state blob as bytea
_SCHEMA = (
    "create table if not exists games (id text primary key, created_at text, secret text, schema integer)",
    "create table if not exists events (game_id text not null, seq bigint not null, type text not null, "
    "payload text not null, recorded_at text, actor text, command text, batch bigint, hash text not null, "
    "primary key (game_id, seq))",
    "create table if not exists heads (game_id text primary key, seq bigint, hash text)",
    "create table if not exists salts (game_id text, seq bigint, salts text, primary key (game_id, seq))",
    "create table if not exists snapshots (game_id text, seq bigint, head_hash text, engine text, "
    "draw_head text, batches bigint, ledger text, state bytea, digest text, primary key (game_id, seq))",
    # snapshot format 7: a game by mail's nonces apart from the rest (mncore/games/reading.py)
    "alter table snapshots add column if not exists nonces text",
    "alter table snapshots add column if not exists nonces_digest text",
)
_SCHEMA_LOCK = 0x6D6E5F73  # "mn_s": one `mn new` at a time makes the tables, the others wait
_COLUMNS = "seq, type, payload, recorded_at, actor, command, batch, hash"
_CHUNK = 512
_INSERT_CHUNK = 500  # rows per insert statement: 9 columns each stays far below the 65,535 parameters


def shown(url: str) -> str:
    """The URL as messages show it: without its password."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)
    return urlunsplit(parts._replace(netloc=f"{parts.username or ''}:***@{netloc[-1]}"))


def _row(r: Sequence[Any]) -> Row:
    return Row(seq=r[0], type=r[1], payload=r[2], recorded_at=r[3], actor=r[4], command=r[5],
               batch=r[6], hash=r[7])


class PostgresStore:
    """Games in a PostgreSQL database (`postgresql://user@host:port/db`), one connection per store."""

    def __init__(self, url: str, *, create: bool = False) -> None:
        self.path = shown(url)
        try:
            import psycopg
        except ImportError:
            raise StoreError("a postgresql:// database needs psycopg: pip install 'mare-nostrum[postgres]'") from None
        try:
            self.conn = psycopg.connect(url, autocommit=True, connect_timeout=10)
        except psycopg.Error as err:
            raise StoreError(f"cannot connect to {self.path} ({_first_line(err)})") from None
        tables, current = self._has_tables()
        if current:
            return
        if tables:  # made by an earlier version: its snapshots lack the nonces' columns
            self._create_schema()
            return
        if not create:
            self.conn.close()
            raise StoreError(f"{self.path} is not a mare-nostrum database (no games or events table): "
                             "create a game first (mn new), or point --db / MN_DB at one")
        self._create_schema()

    def _create_schema(self) -> None:
        with self._write() as conn:
            conn.execute("select pg_advisory_xact_lock(%s)", [_SCHEMA_LOCK])
            for sql in _SCHEMA:
                conn.execute(sql)

    def _has_tables(self) -> tuple[bool, bool]:
        """Whether the games and events tables are there, and every table and column of this version."""
        found = self.conn.execute(
            "select to_regclass('games') is not null and to_regclass('events') is not null, "
            "exists (select 1 from pg_attribute where attrelid = to_regclass('snapshots') "
            "and attname = 'nonces_digest' and not attisdropped)").fetchone() or (False, False)
        return bool(found[0]), bool(found[0] and found[1])

    def _query(self, sql: str, args: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        return self.conn.execute(sql, args).fetchall()

    def close(self) -> None:
        self.conn.close()

    @contextmanager
    def bulk(self) -> Iterator[None]:
        """Many writes as one transaction: each write's own transaction() nests inside as a savepoint."""
        with self.conn.transaction():
            yield

    @contextmanager
    def _write(self) -> Iterator[psycopg.Connection[Any]]:
        """One transaction: committed whole when the block ends, rolled back if it raises."""
        with self.conn.transaction():
            yield self.conn

    # --- reads ---------------------------------------------------------------------------------

    def games(self) -> list[GameRow]:
        sql = ("select g.id, g.created_at, h.seq, h.hash from games g left join lateral "
               "(select seq, hash from events e where e.game_id = g.id order by seq desc limit 1) h on true "
               "order by g.created_at, g.id")
        return [GameRow(id=r[0], created_at=r[1] or "", events=r[2] or 0, head_hash=r[3] or GENESIS_HASH)
                for r in self._query(sql)]

    def has_game(self, game_id: str) -> bool:
        return bool(self._query("select 1 from games where id = %s", [game_id]))

    def require_game(self, game_id: str) -> None:
        if not self.has_game(game_id):
            raise unknown_game(self, game_id)

    def log_version(self, game_id: str) -> int:
        rows = self._query("select schema from games where id = %s", [game_id])
        return int(rows[0][0]) if rows else CURRENT

    def recorded_head(self, game_id: str) -> tuple[int, str] | None:
        rows = self._query("select seq, hash from heads where game_id = %s", [game_id])
        return (rows[0][0], rows[0][1]) if rows else None

    def secret(self, game_id: str) -> str | None:
        rows = self._query("select secret from games where id = %s", [game_id])
        found: str | None = rows[0][0] if rows else None
        if found and not re.fullmatch(r"(?:[0-9a-f]{2})+", found):
            raise StoreError(f"{self.path}: the secret stored for game {game_id} is damaged "
                             "(not hexadecimal); nothing was written")
        return found

    def head(self, game_id: str) -> tuple[int, str]:
        rows = self._query("select seq, hash from events where game_id = %s order by seq desc limit 1", [game_id])
        return (rows[0][0], rows[0][1]) if rows else (0, GENESIS_HASH)

    def _range(self, game_id: str, start: int, end: int | None, limit: int | None = None) -> list[Row]:
        sql = (f"select {_COLUMNS} from events where game_id = %s and seq >= %s"
               + (" and seq <= %s" if end is not None else "") + " order by seq"
               + (f" limit {int(limit)}" if limit is not None else ""))
        args: list[object] = [game_id, start] + ([end] if end is not None else [])
        return [_row(r) for r in self._query(sql, args)]

    def rows(self, game_id: str, start: int = 1, end: int | None = None) -> list[Row]:
        found = self._range(game_id, start, end)
        if not found:
            return found
        salts = {r[0]: decode_salts(r[1], r[0]) for r in self._query(
            "select seq, salts from salts where game_id = %s and seq >= %s and seq <= %s",
            [game_id, found[0].seq, found[-1].seq])}
        return [r if r.seq not in salts else _salted(r, salts[r.seq]) for r in found]

    def row_at(self, game_id: str, seq: int) -> Row | None:
        found = self.rows(game_id, seq, seq)
        return found[0] if found else None

    def stream_rows(self, game_id: str, start: int = 1, end: int | None = None) -> Iterator[Row]:
        # pages by seq (no cursor held open across the caller's work); _range is guarded
        while True:
            chunk = self._range(game_id, start, end, _CHUNK)
            yield from chunk
            if len(chunk) < _CHUNK:
                return
            start = chunk[-1].seq + 1

    def latest_snapshot(self, game_id: str, upto: int | None, engine: str) -> Snapshot | None:
        rows = self._query(latest_snapshot_sql("%s"), [game_id, upto if upto is not None else 2**62, engine])
        return snapshot_of(rows[0]) if rows else None

    def last_snapshot_seq(self, game_id: str) -> int:
        rows = self._query("select max(seq) from snapshots where game_id = %s", [game_id])
        return int(rows[0][0] or 0)

    def snapshots(self, game_id: str) -> list[SnapshotHead]:
        found = (snapshot_head_of(r) for r in self._query(SNAPSHOTS_SQL.format(mark="%s"), [game_id]))
        return [s for s in found if s is not None]

    def snapshot_at(self, game_id: str, seq: int) -> Snapshot | None:
        rows = self._query(SNAPSHOT_AT_SQL.format(mark="%s"), [game_id, seq])
        return snapshot_of(rows[0]) if rows else None

    def snapshot_nonces(self, game_id: str, seq: int) -> str | None:
        rows = self._query(SNAPSHOT_NONCES_SQL.format(mark="%s"), [game_id, seq])
        return rows[0][0] if rows and isinstance(rows[0][0], str) else None

    def nonces_pieces(self, game_id: str, seq: int) -> Iterator[bytes]:
        """The nonces' bytes a piece at a time, each cut out by the server."""
        at = 1
        while True:
            rows = self._query("select substring(convert_to(nonces, 'UTF8') from %s for %s) from snapshots "
                               "where game_id = %s and seq = %s", [at, NONCES_PIECE, game_id, seq])
            piece = bytes(rows[0][0]) if rows and rows[0][0] is not None else b""
            if not piece:
                return
            yield piece
            at += len(piece)

    # --- writes --------------------------------------------------------------------------------

    def create_game(self, game_id: str, created_at: str, secret: str | None,
                    rows: Sequence[NewRow], *more: Sequence[NewRow]) -> list[Row]:
        taken = f"a game '{game_id}' already exists in {self.path}"
        with self._unique(taken), self._write() as conn:
            self._new_game(conn, game_id, created_at, secret, CURRENT, taken)
            out = chained(0, GENESIS_HASH, rows, CURRENT)
            for batch in more:
                out += chained(out[-1].seq, out[-1].hash, batch, CURRENT)
            self._put_rows(conn, game_id, out)
            return out

    def append(self, game_id: str, expected_seq: int, rows: Sequence[NewRow], *,
               head: str | None = None, version: int | None = None) -> list[Row]:
        # the game's row is locked and read here anyway: what the caller holds is not needed
        import psycopg
        try:
            with self._write() as conn:
                # the game's row locked: a racer waits here, then reads our head and is told it moved on
                conn.execute("select 1 from games where id = %s for update", [game_id])
                seq, head = self._head_in(conn, game_id)
                if seq != expected_seq:
                    raise Conflict(game_id, expected_seq, seq)
                version = conn.execute("select schema from games where id = %s", [game_id]).fetchone()
                out = chained(seq, head, rows, int(version[0]) if version else CURRENT)
                self._put_rows(conn, game_id, out)
                return out
        except psycopg.errors.UniqueViolation:
            # a racer read the same head and committed first: the primary key (game, seq) refused us
            raise Conflict(game_id, expected_seq, self.head(game_id)[0]) from None

    def import_rows(self, game_id: str, created_at: str, rows: Sequence[Row], version: int,
                    secret: str | None = None) -> None:
        taken = f"a game '{game_id}' already exists in {self.path}; import it into another --db"
        with self._unique(taken), self._write() as conn:
            self._new_game(conn, game_id, created_at, secret, version, taken)
            self._put_rows(conn, game_id, rows)

    def rewrite_log(self, game_id: str, expected: tuple[int, str], rows: Sequence[Row], version: int) -> None:
        with self._write() as conn:
            # the game row locked first: a racing append waits, then finds the log rewritten
            conn.execute("select 1 from games where id = %s for update", [game_id])
            found = self._head_in(conn, game_id)
            if found[0] == 0 or found != expected:
                raise Conflict(game_id, expected[0], found[0])
            for table in ("events", "salts", "snapshots"):
                conn.execute(f"delete from {table} where game_id = %s", [game_id])
            conn.execute("update games set schema = %s where id = %s", [version, game_id])
            self._put_rows(conn, game_id, rows)

    def put_snapshot(self, game_id: str, snap: Snapshot) -> None:
        with self._write() as conn:
            conn.execute(
                "insert into snapshots (game_id, seq, head_hash, engine, draw_head, batches, ledger, state, "
                "digest, nonces, nonces_digest) values (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
                "on conflict (game_id, seq) do update set "
                "head_hash = excluded.head_hash, engine = excluded.engine, draw_head = excluded.draw_head, "
                "batches = excluded.batches, ledger = excluded.ledger, state = excluded.state, "
                "digest = excluded.digest, nonces = excluded.nonces, nonces_digest = excluded.nonces_digest",
                [game_id, snap.seq, snap.head_hash, snap.engine, snap.draw_head, snap.batches, snap.ledger,
                 snap.state, snap.digest, snap.nonces, snap.nonces_digest])
            conn.execute("delete from snapshots where game_id = %s and seq not in (select seq from snapshots "
                         "where game_id = %s order by seq desc limit 2)", [game_id, game_id])

    def drop_snapshot(self, game_id: str, seq: int) -> None:
        with self._write() as conn:
            conn.execute("delete from snapshots where game_id = %s and seq = %s", [game_id, seq])

    @staticmethod
    def _head_in(conn: psycopg.Connection[Any], game_id: str) -> tuple[int, str]:
        found = conn.execute("select seq, hash from events where game_id = %s order by seq desc limit 1",
                             [game_id]).fetchone()
        return (found[0], found[1]) if found else (0, GENESIS_HASH)

    def _new_game(self, conn: psycopg.Connection[Any], game_id: str, created_at: str, secret: str | None,
                  version: int, taken: str) -> None:
        if conn.execute("select 1 from games where id = %s", [game_id]).fetchone():
            raise StoreError(taken)
        conn.execute("insert into games (id, created_at, secret, schema) values (%s, %s, %s, %s)",
                     [game_id, created_at, secret or "", version])

    @contextmanager
    def _unique(self, message: str) -> Iterator[None]:
        """A racer that made the same game first (the games key refused us) is told so."""
        import psycopg
        try:
            yield
        except psycopg.errors.UniqueViolation:
            raise StoreError(message) from None

    @staticmethod
    def _put_rows(conn: psycopg.Connection[Any], game_id: str, rows: Sequence[Row]) -> None:
        _insert(conn, "events (game_id, seq, type, payload, recorded_at, actor, command, batch, hash)",
                [(game_id, r.seq, r.type, r.payload, r.recorded_at, r.actor, r.command, r.batch, r.hash)
                 for r in rows])
        _insert(conn, "salts (game_id, seq, salts)",
                [(game_id, r.seq, encode_salts(r.salts)) for r in rows if r.salts])
        if rows:
            conn.execute("insert into heads (game_id, seq, hash) values (%s, %s, %s) on conflict (game_id) "
                         "do update set seq = excluded.seq, hash = excluded.hash",
                         [game_id, rows[-1].seq, rows[-1].hash])


def _insert(conn: psycopg.Connection[Any], into: str, values: Sequence[tuple[object, ...]]) -> None:
    """Multi-row inserts of a few hundred rows each: few round trips, and (unlike executemany's
    pipeline) a refused key is one plain error, not a warning on stderr as well."""
    for start in range(0, len(values), _INSERT_CHUNK):
        chunk = values[start:start + _INSERT_CHUNK]
        row = "(" + ", ".join(["%s"] * len(chunk[0])) + ")"
        conn.execute(f"insert into {into} values " + ", ".join([row] * len(chunk)),
                     [v for r in chunk for v in r])


def _salted(row: Row, salts: dict[str, str]) -> Row:
    return msgspec.structs.replace(row, salts=salts)


def _first_line(err: BaseException) -> str:
    return (str(err).strip().splitlines() or [type(err).__name__])[0]


_P = ParamSpec("_P")
_T = TypeVar("_T")


def _guarded(method: Callable[Concatenate[PostgresStore, _P], _T]) -> Callable[Concatenate[PostgresStore, _P], _T]:
    """A lost connection or a value the server refuses is a clear StoreError (exit 2), not a crash."""
    @wraps(method)
    def wrapper(self: PostgresStore, /, *args: _P.args, **kwargs: _P.kwargs) -> _T:
        import psycopg
        try:
            return method(self, *args, **kwargs)
        except MareNostrumError:
            raise
        except psycopg.Error as err:
            raise StoreError(f"{self.path}: the database cannot be read or written ({_first_line(err)}); "
                             "nothing was written") from None
    return wrapper


for _name, _method in list(vars(PostgresStore).items()):
    if (callable(_method) and not isinstance(_method, staticmethod) and not _name.startswith("__")
            and _name not in ("_write", "_unique", "stream_rows", "bulk")):
        setattr(PostgresStore, _name, _guarded(_method))
