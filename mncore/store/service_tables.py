"""mn serve's tables in either store: mails applied, the outbox and its states, per-side marks, leases.

The same SQL in SQLite and PostgreSQL ('?' marks rewritten for psycopg). Every write is one
transaction of the store's own connection, so a process killed at any moment leaves each step done
or not done. Why a mail is sent at most once: a row goes queued -> sending in one committed
transaction before the SMTP server sees it (PostgreSQL: the row chosen FOR UPDATE SKIP LOCKED, so
two processes never take the same one); a row left in `sending` by a process that died is never sent
again, only marked failed (it may have gone).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import msgspec

from mncore.core.errors import StoreError
from mncore.store.base import Store

STATES = ("queued", "sending", "sent", "failed")

_PG_TABLES = (
    "create table if not exists mail_seen (key text primary key, game_id text, at text, outcome text)",
    "create table if not exists mail_out (id bigserial primary key, key text not null unique, game_id text, "
    "side text, kind text, recipient text, subject text, message bytea not null, state text not null, "
    "attempts integer, next_try text, error text, created_at text, sent_at text, owner text)",
    "create index if not exists mail_out_state on mail_out (state, next_try)",
    "create table if not exists mail_marks (game_id text, side text, name text, value text, "
    "primary key (game_id, side, name))",
    "create table if not exists mail_status (name text primary key, value text)",
    "create table if not exists mail_leases (name text primary key, owner text, until double precision)",
)
_PG_LOCK = 0x6D6E5F6D  # "mn_m": one process makes the service's tables, the others wait


class NewMail(msgspec.Struct, frozen=True, kw_only=True):
    """A mail to queue: its key makes it unique (the same key queued twice is one mail)."""

    key: str
    game_id: str
    side: str
    kind: str  # answer, report, notice, digest, reminder
    recipient: str
    subject: str
    message: bytes


class Outgoing(msgspec.Struct, frozen=True, kw_only=True):
    """A mail claimed for sending."""

    id: int
    key: str
    recipient: str
    message: bytes
    attempts: int


class Mark(msgspec.Struct, frozen=True):
    """A per-side value the policy keeps (last event mailed, last acknowledged, last phase mailed)."""

    game_id: str
    side: str
    name: str
    value: str


class ServiceTables:
    """The service's rows in a store (SQLite or PostgreSQL), through the store's own connection."""

    def __init__(self, store: Store) -> None:
        from mncore.store.sqlite import SqliteStore
        self.store = store
        self.pg = not isinstance(store, SqliteStore)
        self.conn: Any = store.conn  # type: ignore[attr-defined]
        if self.pg:
            with self._tx() as conn:
                conn.execute("select pg_advisory_xact_lock(%s)", [_PG_LOCK])
                for sql in _PG_TABLES:
                    conn.execute(sql)
        else:
            with self._tx():  # a database of an older version gets the tables by its migration
                pass

    def _sql(self, sql: str) -> str:
        return sql.replace("?", "%s") if self.pg else sql

    @contextmanager
    def _tx(self) -> Iterator[Any]:
        try:
            if self.pg:
                with self.conn.transaction():
                    yield self.conn
            else:
                with self.store._write() as conn:  # type: ignore[attr-defined]
                    yield conn
        except StoreError:
            raise
        except Exception as err:
            if type(err).__module__.startswith(("psycopg", "sqlite3")):
                raise StoreError(f"{self.store.path}: the service's tables cannot be written ({err})") from None
            raise

    def _run(self, conn: Any, sql: str, args: Sequence[object] = ()) -> list[Any]:
        cur = conn.execute(self._sql(sql), list(args))
        return list(cur.fetchall()) if cur.description else []

    def _read(self, sql: str, args: Sequence[object] = ()) -> list[Any]:
        if self.pg:
            return self._run(self.conn, sql, args)
        return [tuple(r) for r in self.conn.execute(sql, list(args)).fetchall()]

    # --- mails read -------------------------------------------------------------------------------

    def seen(self, key: str) -> bool:
        return bool(self._read("select 1 from mail_seen where key = ?", [key]))

    def record(self, key: str, game_id: str, outcome: str, at: str, mails: Sequence[NewMail],
               marks: Sequence[Mark]) -> bool:
        """A mail read: recorded as applied with its answer and marks, in one transaction; False (and
        nothing written) if another process recorded it first."""
        with self._tx() as conn:
            if self._run(conn, "select 1 from mail_seen where key = ?", [key]):
                return False
            self._run(conn, "insert into mail_seen (key, game_id, at, outcome) values (?, ?, ?, ?)",
                      [key, game_id, at, outcome])
            self._queue(conn, mails, at)
            self._marks(conn, marks)
        return True

    # --- the outbox -------------------------------------------------------------------------------

    def enqueue(self, mails: Sequence[NewMail], marks: Sequence[Mark], at: str) -> int:
        """Queue the mails (a key already queued is skipped) and set the marks, in one transaction;
        how many were new."""
        with self._tx() as conn:
            n = self._queue(conn, mails, at)
            self._marks(conn, marks)
        return n

    def _queue(self, conn: Any, mails: Sequence[NewMail], at: str) -> int:
        n = 0
        for m in mails:
            found = self._run(conn, "insert into mail_out (key, game_id, side, kind, recipient, subject, message, "
                                    "state, attempts, next_try, error, created_at, sent_at, owner) values "
                                    "(?, ?, ?, ?, ?, ?, ?, 'queued', 0, ?, '', ?, '', '') "
                                    "on conflict (key) do nothing returning id",
                              [m.key, m.game_id, m.side, m.kind, m.recipient, m.subject, m.message, at, at])
            n += bool(found)
        return n

    def _marks(self, conn: Any, marks: Sequence[Mark]) -> None:
        for m in marks:
            self._run(conn, "insert into mail_marks (game_id, side, name, value) values (?, ?, ?, ?) "
                            "on conflict (game_id, side, name) do update set value = excluded.value",
                      [m.game_id, m.side, m.name, m.value])

    def claim(self, owner: str, now: str) -> Outgoing | None:
        """The oldest queued mail due now, moved to `sending` and committed before it is sent."""
        skip = " for update skip locked" if self.pg else ""
        with self._tx() as conn:
            found = self._run(conn, "update mail_out set state = 'sending', owner = ?, next_try = ?, "
                                    "attempts = attempts + 1 where id = (select id from mail_out where "
                                    f"state = 'queued' and next_try <= ? order by id limit 1{skip}) "
                                    "returning id, key, recipient, message, attempts", [owner, now, now])
        if not found:
            return None
        r = found[0]
        return Outgoing(id=r[0], key=r[1], recipient=r[2], message=bytes(r[3]), attempts=r[4])

    def sent(self, mail_id: int, at: str) -> None:
        with self._tx() as conn:
            self._run(conn, "update mail_out set state = 'sent', sent_at = ?, error = '' where id = ?", [at, mail_id])

    def failed(self, mail_id: int, error: str, retry_at: str | None) -> None:
        """A send that failed: queued again for retry_at, or failed for good (None)."""
        with self._tx() as conn:
            if retry_at is None:
                self._run(conn, "update mail_out set state = 'failed', error = ? where id = ?", [error, mail_id])
            else:
                self._run(conn, "update mail_out set state = 'queued', error = ?, next_try = ? where id = ?",
                          [error, retry_at, mail_id])

    def interrupted(self, before: str) -> int:
        """Mails left `sending` since before `before` by a process that died: failed, never resent
        (the server may have taken them)."""
        with self._tx() as conn:
            found = self._run(conn, "update mail_out set state = 'failed', error = 'interrupted while being "
                                    "sent: it may have gone; not sent again' where state = 'sending' and "
                                    "next_try < ? returning id", [before])
        return len(found)

    def requeue(self, mail_id: int, at: str) -> bool:
        """The host's choice: a failed mail queued again (mn serve --retry)."""
        with self._tx() as conn:
            found = self._run(conn, "update mail_out set state = 'queued', next_try = ?, error = '' "
                                    "where id = ? and state = 'failed' returning id", [at, mail_id])
        return bool(found)

    def counts(self) -> dict[str, int]:
        out = dict.fromkeys(STATES, 0)
        for state, n in self._read("select state, count(*) from mail_out group by state"):
            out[str(state)] = int(n)
        return out

    def mails(self, state: str | None = None, limit: int = 50) -> list[tuple[Any, ...]]:
        """(id, kind, recipient, subject, state, attempts, error, sent_at) of the latest mails."""
        where = "where state = ? " if state else ""
        return self._read("select id, kind, recipient, subject, state, attempts, error, sent_at from mail_out "
                          f"{where}order by id desc limit ?", [*([state] if state else []), limit])

    def sizes(self) -> list[tuple[str, str, int]]:
        """(side, kind, bytes) of every mail queued, for the measures."""
        return [(str(r[0]), str(r[1]), int(r[2])) for r in
                self._read("select side, kind, length(message) from mail_out order by id")]

    # --- marks, status, leases --------------------------------------------------------------------

    def marks(self, game_id: str) -> dict[tuple[str, str], str]:
        return {(str(r[0]), str(r[1])): str(r[2])
                for r in self._read("select side, name, value from mail_marks where game_id = ?", [game_id])}

    def set_status(self, values: dict[str, str]) -> None:
        with self._tx() as conn:
            for name, value in values.items():
                self._run(conn, "insert into mail_status (name, value) values (?, ?) on conflict (name) "
                                "do update set value = excluded.value", [name, value])

    def status(self) -> dict[str, str]:
        return {str(r[0]): str(r[1]) for r in self._read("select name, value from mail_status order by name")}

    def lease(self, name: str, owner: str, now: float, seconds: float) -> bool:
        """Hold the named lease until now + seconds, if it is free, expired, or already ours."""
        with self._tx() as conn:
            found = self._run(conn, "insert into mail_leases (name, owner, until) values (?, ?, ?) "
                                    "on conflict (name) do update set owner = excluded.owner, until = excluded.until "
                                    "where mail_leases.until < ? or mail_leases.owner = excluded.owner "
                                    "returning owner", [name, owner, now + seconds, now])
        return bool(found)

    def release(self, name: str, owner: str) -> None:
        with self._tx() as conn:
            self._run(conn, "delete from mail_leases where name = ? and owner = ?", [name, owner])
