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


def migrate(conn: sqlite3.Connection) -> None:
    """Apply every pending migration, inside the write transaction the caller holds (each one a
    savepoint of it), so that concurrent openers wait for the lock and then find nothing to do."""
    # no plugins, no pragmas: this connection is the store's, set up by it
    MIGRATIONS.apply(Database(conn, recursive_triggers=False, execute_plugins=False))

