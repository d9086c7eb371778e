"""The SQLite schema made and migrated by sqlite-utils: older databases are brought up to date, once."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from sqlite_utils import Database

from mncli.cli import main
from mncore.store import NewRow, open_store
from mncore.store.sqlite import MIGRATION_COUNT, SqliteStore
from mncore.store.sqlite_schema import MIGRATIONS

THREE = ["--empire", "rome", "--empire", "greece", "--empire", "carthage"]

# The tables as the hand-written SQL of each earlier version made them, before sqlite-utils recorded
# migrations: the first version (games and events), then the one just before this change.
FIRST = [
    "CREATE TABLE [games] ([id] TEXT PRIMARY KEY, [created_at] TEXT, [secret] TEXT, [schema] INTEGER)",
    "CREATE TABLE [events] ([game_id] TEXT, [seq] INTEGER, [type] TEXT NOT NULL, [payload] TEXT NOT NULL, "
    "[recorded_at] TEXT, [actor] TEXT, [command] TEXT, [batch] INTEGER, [hash] TEXT NOT NULL, "
    "PRIMARY KEY ([game_id], [seq]))",
]
PREVIOUS = FIRST + [
    "create table heads (game_id text primary key, seq integer, hash text)",
    "create table salts (game_id text, seq integer, salts text, primary key (game_id, seq))",
    "create table snapshots (game_id text, seq integer, head_hash text, engine text, draw_head text, "
    "batches integer, ledger text, state blob, digest text, primary key (game_id, seq))",
]
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
EVERY_TABLE = {"games", "events", "heads", "salts", "snapshots", "_sqlite_migrations", "mail_seen", "mail_out",
               "mail_marks", "mail_status", "mail_leases"}


def mn(db: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["--db", str(db), *args])


def _played(tmp_path: Path) -> Path:
    """A database made today holding game g with an order played."""
    db = tmp_path / "today.db"
    assert mn(db, "new", *THREE, "--seed", "s", "--id", "g").exit_code == 0
    assert mn(db, "order", "g", "--as", "carthage", "trade 3").exit_code == 0
    return db


def _older(source: Path, schema: list[str], tables: list[str]) -> Path:
    """A database with an earlier version's tables, holding the rows of those tables of a game."""
    old = source.parent / "old.db"
    with sqlite3.connect(old) as conn:
        conn.execute("PRAGMA journal_mode = WAL")  # as every version made its files
        for sql in schema:
            conn.execute(sql)
        conn.execute("attach database ? as src", [str(source)])
        for table in tables:
            conn.execute(f"insert into {table} select * from src.{table}")
    conn.close()
    return old


def _tables(db: Path) -> set[str]:
    with sqlite3.connect(db) as conn:
        return {r[0] for r in conn.execute("select name from sqlite_master where type = 'table'")}


def _head(db: Path) -> str:
    with sqlite3.connect(db) as conn:
        return str(conn.execute("select hash from events order by seq desc limit 1").fetchone()[0])


def _applied(db: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(db) as conn:
        return conn.execute("select name, applied_at from _sqlite_migrations order by id").fetchall()


def test_the_store_knows_how_many_migrations_there_are() -> None:
    """The count the store compares with, without importing sqlite-utils, is the migrations' number."""
    assert MIGRATION_COUNT == len(MIGRATIONS.pending(Database(memory=True)))


def test_a_new_database_records_every_migration_as_applied(tmp_path: Path) -> None:
    """mn new makes every table and records each migration by name."""
    db = _played(tmp_path)

    assert _tables(db) == EVERY_TABLE
    assert [name for name, _ in _applied(db)] == ["games_and_events", "heads", "salts", "snapshots",
                                                    "mail_service", "snapshot_nonces"]


def test_a_database_of_the_previous_version_is_migrated_and_its_game_plays_on(tmp_path: Path) -> None:
    """A database made before migrations were recorded is opened, recorded as migrated with its rows
    untouched, verifies, and takes the next order."""
    old = _older(_played(tmp_path), PREVIOUS, ["games", "events", "heads", "salts"])
    before = open_store(str(tmp_path / "today.db")).rows("g")

    assert open_store(str(old)).rows("g") == before
    assert _tables(old) == EVERY_TABLE and len(_applied(old)) == MIGRATION_COUNT
    assert mn(old, "verify", "g").exit_code == 0
    assert mn(old, "order", "g", "--as", "rome", "offer coin grain grain").exit_code == 0
    assert open_store(str(old)).recorded_head("g") == open_store(str(old)).head("g") == (9, _head(old))


def test_a_database_of_the_first_version_gets_the_later_tables_and_its_game_verifies(tmp_path: Path) -> None:
    """Games and events alone, holding a game of log format 1 (the first version's): the head record,
    salts and snapshots tables are made; the game, whose head was never recorded, still verifies."""
    imported = tmp_path / "imported.db"
    assert mn(imported, "import", str(FIXTURES / "game-6-2.jsonl")).exit_code == 0
    old = _older(imported, FIRST, ["games", "events"])

    store = open_store(str(old))

    assert _tables(old) == EVERY_TABLE
    assert store.recorded_head("golden-6-2") is None and store.log_version("golden-6-2") == 1
    assert mn(old, "verify", "golden-6-2").exit_code == 0


def test_opening_a_current_database_applies_nothing_again(tmp_path: Path) -> None:
    """Each migration is applied once: opening and writing again leaves their records as they were."""
    db = _played(tmp_path)
    applied = _applied(db)

    for _ in range(3):
        open_store(str(db)).close()
    assert mn(db, "status", "g").exit_code == 0

    assert _applied(db) == applied


def test_an_older_database_that_cannot_be_written_is_read_as_it_is_and_migrated_by_its_next_write(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A read-only file cannot be migrated: its games are still read; a later write migrates it."""
    old = _older(_played(tmp_path), FIRST, ["games", "events"])

    def refuse(self: SqliteStore) -> None:
        raise sqlite3.OperationalError("attempt to write a readonly database")

    with monkeypatch.context() as m:
        m.setattr(SqliteStore, "_apply_migrations", refuse)
        store = open_store(str(old))
        assert [g.id for g in store.games()] == ["g"]
        assert store.rows("g")[-1].seq == 8 and store.recorded_head("g") is None
        assert store.latest_snapshot("g", None, "any") is None and "heads" not in _tables(old)
    store.drop_snapshot("g", 1)  # nothing to drop: no write, still unmigrated
    assert "heads" not in _tables(old)

    written = store.append("g", 8, [NewRow(type="Noted", payload="{}", recorded_at="now", actor="host")])

    assert _tables(old) == EVERY_TABLE and len(_applied(old)) == MIGRATION_COUNT
    assert store.recorded_head("g") == (9, written[-1].hash)


# Each racer is ready with everything imported, then opens the database when the go file appears.
_OPENER = """
import os, sys, time
import mncore.store.sqlite_schema  # imported before the start, as the rest, so that they open at once
from mncore.store import open_store
db, go = sys.argv[1:3]
print("ready", flush=True)
while not os.path.exists(go):
    time.sleep(0.001)
print(open_store(db).head("g")[0])
"""


@pytest.mark.slow
def test_six_processes_opening_an_older_database_at_once_migrate_it_once_and_all_read_it(tmp_path: Path) -> None:
    """Six processes open a database of the previous version at the same moment: each reads it, and
    every migration is recorded once (the first takes the write lock, the others then find it done)."""
    old = _older(_played(tmp_path), PREVIOUS, ["games", "events", "heads", "salts"])
    go = tmp_path / "go"
    procs = [subprocess.Popen([sys.executable, "-c", _OPENER, str(old), str(go)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(6)]
    assert all(p.stdout and p.stdout.readline() == "ready\n" for p in procs)
    holder = sqlite3.connect(old, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # the write lock held, so that all six come to it before any migrates
    go.touch()
    time.sleep(0.5)  # (not a timing assertion: the test holds whether they all arrived or not)
    holder.execute("COMMIT")
    holder.close()
    outcomes = [(p.wait(timeout=120), p.stdout.read() if p.stdout else "", p.stderr.read() if p.stderr else "")
                for p in procs]

    assert outcomes == [(0, "8\n", "")] * 6
    assert [name for name, _ in _applied(old)] == ["games_and_events", "heads", "salts", "snapshots",
                                                    "mail_service", "snapshot_nonces"]
