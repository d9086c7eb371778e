"""The event store: hash chain, expected-sequence appends, atomicity, and refusals of bad files."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from mncore.errors import Conflict, StoreError
from mncore.chain import link
from mncore.store import NewRow, Store

ROOT = Path(__file__).resolve().parent.parent


def _rows(n: int, start: int = 0) -> list[NewRow]:
    return [NewRow(type="PhaseBegan", payload=f'{{"n":{start + i}}}', recorded_at="t", actor="host")
            for i in range(n)]


def test_rows_are_numbered_and_hash_chained(tmp_path: Path) -> None:
    """Each row's hash is SHA-256 of the previous hash and the whole row (log format 2)."""
    store = Store(str(tmp_path / "a.db"), create=True)

    rows = store.create_game("g", "t", "00", _rows(3))

    assert [r.seq for r in rows] == [1, 2, 3]
    assert rows[0].hash == link(2, "0" * 64, seq=1, type="PhaseBegan", actor="host", batch=1,
                                recorded_at="t", command=None, payload=rows[0].payload)
    assert rows[2].hash == link(2, rows[1].hash, seq=3, type="PhaseBegan", actor="host", batch=1,
                                recorded_at="t", command=None, payload=rows[2].payload)
    assert {r.batch for r in rows} == {1}


def test_append_at_a_stale_sequence_is_a_conflict_and_writes_nothing(tmp_path: Path) -> None:
    """An append that expects an older head is refused with where the game stands."""
    store = Store(str(tmp_path / "a.db"), create=True)
    store.create_game("g", "t", "00", _rows(2))

    with pytest.raises(Conflict) as err:
        store.append("g", 1, _rows(1))

    assert err.value.actual == 2 and "now stands at event 2" in err.value.message
    assert len(store.rows("g")) == 2


def test_a_refused_append_inside_a_bulk_undoes_only_itself(tmp_path: Path) -> None:
    """In one bulk transaction, an append refused at a stale sequence leaves the appends before it."""
    store = Store(str(tmp_path / "a.db"), create=True)
    store.create_game("g", "t", "00", _rows(1))

    with store.bulk():
        store.append("g", 1, _rows(1, 1))
        with pytest.raises(Conflict):
            store.append("g", 1, _rows(1, 2))
        store.append("g", 2, _rows(1, 3))

    assert [r.payload for r in Store(str(tmp_path / "a.db")).rows("g")] == [
        '{"n":0}', '{"n":1}', '{"n":3}']


def test_a_bulk_that_raises_writes_nothing(tmp_path: Path) -> None:
    """A bulk transaction is all or nothing: an error inside it undoes every append it made."""
    store = Store(str(tmp_path / "a.db"), create=True)
    store.create_game("g", "t", "00", _rows(1))

    with pytest.raises(RuntimeError), store.bulk():
        store.append("g", 1, _rows(2, 1))
        raise RuntimeError("stop")

    assert len(Store(str(tmp_path / "a.db")).rows("g")) == 1


def test_a_missing_database_is_not_created_by_a_read(tmp_path: Path) -> None:
    """Opening a missing file for reading fails and leaves no file behind."""
    path = tmp_path / "none.db"

    with pytest.raises(StoreError, match="no database at"):
        Store(str(path))

    assert not path.exists()


def test_a_file_that_is_not_sqlite_is_refused(tmp_path: Path) -> None:
    """A non-SQLite file is named as such and left untouched."""
    path = tmp_path / "x.db"
    path.write_bytes(b"hello, not a database")

    with pytest.raises(StoreError, match="not a SQLite database"):
        Store(str(path), create=True)

    assert path.read_bytes() == b"hello, not a database"


def test_a_sqlite_file_of_another_program_is_refused_for_reading(tmp_path: Path) -> None:
    """A SQLite file without our tables is not mistaken for an empty game database."""
    import sqlite3
    path = tmp_path / "other.db"
    sqlite3.connect(path).execute("create table t (x)").connection.close()

    with pytest.raises(StoreError, match="not a mare-nostrum database"):
        Store(str(path))


_RACER = textwrap.dedent("""
    import os, sys, time
    from mncore.game import load, submit
    from mncore.store import Store
    from mncore.rulesets.empires.text import parse_order
    from mncore.errors import MareNostrumError
    db, game_id, go = sys.argv[1:4]
    store = Store(db)
    loaded = load(store, game_id)
    order = parse_order("trade 3", loaded.state, "carthage")
    print("ready", flush=True)
    while not os.path.exists(go):
        time.sleep(0.001)
    try:
        submit(store, loaded, order)
    except MareNostrumError as err:
        print(err.message, file=sys.stderr)
        sys.exit(err.exit_code)
""")


def test_two_processes_appending_at_the_same_sequence_one_wins_one_gets_exit_3(tmp_path: Path) -> None:
    """Two real writers at the same expected sequence: exactly one succeeds, the other exits 3."""
    from mncli.cli import main
    from click.testing import CliRunner
    db = str(tmp_path / "race.db")
    game_id = CliRunner().invoke(main, ["--db", db, "new", "--empire", "rome", "--empire", "greece",
                                        "--empire", "carthage", "--seed", "race"]).stdout.strip()
    go = tmp_path / "go"
    procs = [subprocess.Popen([sys.executable, "-c", _RACER, db, game_id, str(go)], cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    for p in procs:
        assert p.stdout is not None and p.stdout.readline().strip() == "ready"

    go.touch()
    codes = sorted(p.wait(timeout=60) for p in procs)

    assert codes == [0, 3]
    rows = Store(db).rows(game_id)
    assert [r.seq for r in rows] == list(range(1, len(rows) + 1))
    assert sum(1 for r in rows if r.type == "ExchangeMarkerPlayed") == 1


_SLOW_APPENDER = textwrap.dedent("""
    import sys
    from mncore.store import NewRow, Store
    store = Store(sys.argv[1])
    rows = [NewRow(type="PhaseBegan", payload='{"n":%d}' % i, recorded_at="t", actor="host")
            for i in range(200000)]
    print("appending", flush=True)
    store.append("g", 1, rows)
    print("done", flush=True)
""")


def test_a_process_killed_while_appending_leaves_the_log_before_or_after_never_between(
        tmp_path: Path) -> None:
    """SIGKILL in the middle of a large append: the log holds all of it or none of it."""
    db = str(tmp_path / "kill.db")
    Store(db, create=True).create_game("g", "t", "00", _rows(1))
    proc = subprocess.Popen([sys.executable, "-c", _SLOW_APPENDER, db], cwd=ROOT,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "appending"

    time.sleep(0.2)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)

    count = len(Store(db).rows("g"))
    assert count in (1, 200001)
