"""The SQLite schema, every table of it, as sqlite-utils migrations from the first version on."""

from __future__ import annotations

import sqlite3

from sqlite_utils import Database, Migrations

# The name of our set in sqlite-utils' `_sqlite_migrations` table (sqlite.py counts its rows there).
SET = "mare-nostrum"
MIGRATIONS = Migrations(SET)

# Each migration makes its tables only if they are missing: a database from before migrations were
# recorded already holds those of the versions it was made by, and records each as applied.


@MIGRATIONS()
def games_and_events(db: Database) -> None:
    """The first version: the games and their logs, whose key on (game, seq) refuses a second writer."""
    db.table("games").create({"id": str, "created_at": str, "secret": str, "schema": int}, pk="id",
                             if_not_exists=True)
    db.table("events").create(
        {"game_id": str, "seq": int, "type": str, "payload": str, "recorded_at": str, "actor": str,
         "command": str, "batch": int, "hash": str},
        pk=("game_id", "seq"), not_null={"payload", "hash", "type"}, if_not_exists=True)


@MIGRATIONS()
def heads(db: Database) -> None:
    """Log format 2: the last hash each write left, apart from the events, so that deleting a log's
    last rows shows."""
    db.table("heads").create({"game_id": str, "seq": int, "hash": str}, pk="game_id", if_not_exists=True)


@MIGRATIONS()
def salts(db: Database) -> None:
    """Committed hidden fields: the salts that open each row's, kept apart (an imported game has no
    secret to derive them from)."""
    db.table("salts").create({"game_id": str, "seq": int, "salts": str}, pk=("game_id", "seq"),
                             if_not_exists=True)


@MIGRATIONS()
def snapshots(db: Database) -> None:
    """Folded states cached along a log (game.current); mn verify checks them, never folds from them."""
    db.table("snapshots").create(
        {"game_id": str, "seq": int, "head_hash": str, "engine": str, "draw_head": str, "batches": int,
         "ledger": str, "state": bytes, "digest": str},
        pk=("game_id", "seq"), if_not_exists=True)


@MIGRATIONS()
def mail_service(db: Database) -> None:
    """mn serve's own tables (mncore/store/service_tables.py): mails applied, the outbox with its states,
    per-side marks (last mailed, last acknowledged), what the service is doing, and leases."""
    db.table("mail_seen").create({"key": str, "game_id": str, "at": str, "outcome": str}, pk="key",
                                 if_not_exists=True)
    db.table("mail_out").create(
        {"id": int, "key": str, "game_id": str, "side": str, "kind": str, "recipient": str, "subject": str,
         "message": bytes, "state": str, "attempts": int, "next_try": str, "error": str, "created_at": str,
         "sent_at": str, "owner": str},
        pk="id", not_null={"key", "state", "message"}, if_not_exists=True)
    db.execute("create unique index if not exists mail_out_key on mail_out (key)")
    db.execute("create index if not exists mail_out_state on mail_out (state, next_try)")
    db.table("mail_marks").create({"game_id": str, "side": str, "name": str, "value": str},
                                  pk=("game_id", "side", "name"), if_not_exists=True)
    db.table("mail_status").create({"name": str, "value": str}, pk="name", if_not_exists=True)
    db.table("mail_leases").create({"name": str, "owner": str, "until": float}, pk="name",
                                   if_not_exists=True)


@MIGRATIONS()
def snapshot_nonces(db: Database) -> None:
    """Snapshot format 7: the nonces of a game by mail's ledger in a column of their own beside their digest,
    so that a command that checks no signed block neither reads nor hashes them (mncore/games/reading.py)."""
    columns = db.table("snapshots").columns_dict
    for name in ("nonces", "nonces_digest"):
        if name not in columns:
            db.table("snapshots").add_column(name, str)


def migrate(conn: sqlite3.Connection) -> None:
    """Apply every pending migration, inside the write transaction the caller holds (each one a
    savepoint of it), so that concurrent openers wait for the lock and then find nothing to do."""
    # no plugins, no pragmas: this connection is the store's, set up by it
    MIGRATIONS.apply(Database(conn, recursive_triggers=False, execute_plugins=False))

