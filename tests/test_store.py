"""The store contract, run over SQLite and PostgreSQL: hash chain, expected-sequence appends, atomicity,
refusals of bad databases."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from msgspec.structs import replace

from mncore.core.chain import link
from mncore.core.errors import Conflict, StoreError, UnknownGame
from mncore.store import GameRow, NewRow, Snapshot, SnapshotHead, open_store
from pg import PgServer

ROOT = Path(__file__).resolve().parent.parent


def _rows(n: int, start: int = 0) -> list[NewRow]:
    return [NewRow(type="PhaseBegan", payload=f'{{"n":{start + i}}}', recorded_at="t", actor="host")
            for i in range(n)]


def test_rows_are_numbered_and_hash_chained(new_db: Callable[[str], str]) -> None:
    """Each row's hash is SHA-256 of the previous hash and the whole row (log format 2)."""
    store = open_store(new_db("a"), create=True)

    rows = store.create_game("g", "t", "00", _rows(3))

    assert [r.seq for r in rows] == [1, 2, 3]
    assert rows[0].hash == link(2, "0" * 64, seq=1, type="PhaseBegan", actor="host", batch=1,
                                recorded_at="t", command=None, payload=rows[0].payload)
    assert rows[2].hash == link(2, rows[1].hash, seq=3, type="PhaseBegan", actor="host", batch=1,
                                recorded_at="t", command=None, payload=rows[2].payload)
    assert {r.batch for r in rows} == {1}


def test_append_at_a_stale_sequence_is_a_conflict_and_writes_nothing(new_db: Callable[[str], str]) -> None:
    """An append that expects an older head is refused with where the game stands."""
    store = open_store(new_db("a"), create=True)
    store.create_game("g", "t", "00", _rows(2))

    with pytest.raises(Conflict) as err:
        store.append("g", 1, _rows(1))

    assert err.value.actual == 2 and "now stands at event 2" in err.value.message
    assert len(store.rows("g")) == 2


def test_a_refused_append_inside_a_bulk_undoes_only_itself(new_db: Callable[[str], str]) -> None:
    """In one bulk transaction, an append refused at a stale sequence leaves the appends before it."""
    url = new_db("a")
    store = open_store(url, create=True)
    store.create_game("g", "t", "00", _rows(1))

    with store.bulk():
        store.append("g", 1, _rows(1, 1))
        with pytest.raises(Conflict):
            store.append("g", 1, _rows(1, 2))
        store.append("g", 2, _rows(1, 3))

    assert [r.payload for r in open_store(url).rows("g")] == ['{"n":0}', '{"n":1}', '{"n":3}']


def test_a_bulk_that_raises_writes_nothing(new_db: Callable[[str], str]) -> None:
    """A bulk transaction is all or nothing: an error inside it undoes every append it made."""
    url = new_db("a")
    store = open_store(url, create=True)
    store.create_game("g", "t", "00", _rows(1))

    with pytest.raises(RuntimeError), store.bulk():
        store.append("g", 1, _rows(2, 1))
        raise RuntimeError("stop")

    assert len(open_store(url).rows("g")) == 1


def test_a_sqlite_store_opened_in_one_thread_is_closed_from_another(tmp_path: Path) -> None:
    """The collector runs a store's finalizer in whichever thread it collects in (mn serve's listener's,
    aiosmtpd's): its connection closes there too, instead of SQLite refusing a foreign thread."""
    opened: list[object] = []
    worker = threading.Thread(target=lambda: opened.append(open_store(str(tmp_path / "t.db"), create=True)))
    worker.start()
    worker.join()
    store = opened[0]
    store.close()  # type: ignore[attr-defined]
    with pytest.raises(sqlite3.ProgrammingError, match="closed"):
        store.conn.execute("select 1")  # type: ignore[attr-defined]


def test_a_missing_database_is_not_created_by_a_read(tmp_path: Path) -> None:
    """Opening a missing file for reading fails and leaves no file behind."""
    path = tmp_path / "none.db"

    with pytest.raises(StoreError, match="no database at"):
        open_store(str(path))

    assert not path.exists()


def test_a_file_that_is_not_sqlite_is_refused(tmp_path: Path) -> None:
    """A non-SQLite file is named as such and left untouched."""
    path = tmp_path / "x.db"
    path.write_bytes(b"hello, not a database")

    with pytest.raises(StoreError, match="not a SQLite database"):
        open_store(str(path), create=True)

    assert path.read_bytes() == b"hello, not a database"


def test_a_sqlite_file_of_another_program_is_refused_for_reading(tmp_path: Path) -> None:
    """A SQLite file without our tables is not mistaken for an empty game database."""
    import sqlite3
    path = tmp_path / "other.db"
    sqlite3.connect(path).execute("create table t (x)").connection.close()

    with pytest.raises(StoreError, match="not a mare-nostrum database"):
        open_store(str(path))


_RACER = textwrap.dedent("""
    import os, sys, time
    from mncore.games.reading import load
    from mncore.games.writing import give
    from mncore.store import open_store
    from mncore.rulesets.empires.text import parse_order
    from mncore.core.errors import MareNostrumError
    db, game_id, go = sys.argv[1:4]
    store = open_store(db)
    loaded = load(store, game_id)
    order = parse_order("trade 3", loaded.state, "carthage")
    print("ready", flush=True)
    while not os.path.exists(go):
        time.sleep(0.001)
    try:
        give(store, loaded, order, answer=False)
    except MareNostrumError as err:
        print(err.message, file=sys.stderr)
        sys.exit(err.exit_code)
""")


def test_two_processes_appending_at_the_same_sequence_one_wins_one_gets_exit_3(
        new_db: Callable[[str], str], tmp_path: Path) -> None:
    """Two real writers at the same expected sequence: exactly one succeeds, the other exits 3."""
    from click.testing import CliRunner

    from mncli.cli import main
    db = new_db("race")
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
    rows = open_store(db).rows(game_id)
    assert [r.seq for r in rows] == list(range(1, len(rows) + 1))
    assert sum(1 for r in rows if r.type == "ExchangeMarkerPlayed") == 1


_SLOW_APPENDER = textwrap.dedent("""
    import sys
    from mncore.store import NewRow, open_store
    store = open_store(sys.argv[1])
    rows = [NewRow(type="PhaseBegan", payload='{"n":%d}' % i, recorded_at="t", actor="host")
            for i in range(200000)]
    print("appending", flush=True)
    store.append("g", 1, rows)
    print("done", flush=True)
""")


def test_a_process_killed_while_appending_leaves_the_log_before_or_after_never_between(
        new_db: Callable[[str], str]) -> None:
    """SIGKILL in the middle of a large append: the log holds all of it or none of it."""
    db = new_db("kill")
    open_store(db, create=True).create_game("g", "t", "00", _rows(1))
    proc = subprocess.Popen([sys.executable, "-c", _SLOW_APPENDER, db], cwd=ROOT,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "appending"

    time.sleep(0.2)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)

    count = len(open_store(db).rows("g"))
    assert count in (1, 200001)


def _snap(seq: int, head: str, engine: str = "e") -> Snapshot:
    return Snapshot(seq=seq, head_hash=head, engine=engine, draw_head="d", batches=1, ledger="{}",
                    state=b"\x00state\xff", digest="x")


def test_every_read_gives_back_what_was_written(new_db: Callable[[str], str]) -> None:
    """Rows (with the salts of their hidden fields), head, recorded head, format, secret, games list."""
    store = open_store(new_db("a"), create=True)
    salted = NewRow(type="PhaseBegan", payload='{"n":9}', recorded_at="t", actor="host", salts={"payload/n": "ab"})

    made = store.create_game("g", "2026-01-01", "c0ffee", _rows(2), [salted])

    assert store.rows("g") == made and made[2].salts == {"payload/n": "ab"} and made[2].batch == 3
    assert store.row_at("g", 3) == made[2] and store.row_at("g", 4) is None
    assert [r.hash for r in store.stream_rows("g", 2)] == [made[1].hash, made[2].hash]
    assert store.head("g") == store.recorded_head("g") == (3, made[2].hash)
    assert (store.log_version("g"), store.secret("g"), store.has_game("g"), store.has_game("h")) == (2, "c0ffee", True, False)
    assert store.games() == [GameRow(id="g", created_at="2026-01-01", events=3, head_hash=made[2].hash)]


def test_a_stream_longer_than_a_chunk_comes_whole_and_in_order(new_db: Callable[[str], str]) -> None:
    """Streaming reads a chunk at a time; every row still comes once, in order, up to `end`."""
    store = open_store(new_db("a"), create=True)
    store.create_game("g", "t", "00", _rows(1300))

    assert [r.seq for r in store.stream_rows("g")] == list(range(1, 1301))
    assert [r.seq for r in store.stream_rows("g", 500, 1100)] == list(range(500, 1101))


def test_an_unknown_game_is_named_with_the_games_there_are(new_db: Callable[[str], str]) -> None:
    """require_game names the missing game and the ones the database holds (exit 2)."""
    store = open_store(new_db("a"), create=True)
    store.create_game("g", "t", "00", _rows(1))

    with pytest.raises(UnknownGame, match="no game 'h' in .*; games here: g"):
        store.require_game("h")


def test_a_game_id_is_made_or_imported_once(new_db: Callable[[str], str]) -> None:
    """A second game under a taken id is refused and the first is untouched."""
    store = open_store(new_db("a"), create=True)
    rows = store.create_game("g", "t", "00", _rows(2))

    with pytest.raises(StoreError, match="already exists"):
        store.create_game("g", "t", "00", _rows(1))
    with pytest.raises(StoreError, match="import it into another --db"):
        store.import_rows("g", "t", rows, 2)

    assert store.rows("g") == rows


def test_snapshots_keep_the_two_latest_and_only_while_the_log_still_holds_their_head(
        new_db: Callable[[str], str]) -> None:
    """A snapshot is found by engine and seq while its row keeps its hash; a rewrite drops them all."""
    store = open_store(new_db("a"), create=True)
    rows = store.create_game("g", "t", "00", _rows(5))

    for seq in (2, 3, 4):
        store.put_snapshot("g", _snap(seq, rows[seq - 1].hash))
    store.put_snapshot("g", _snap(5, "not the row's hash"))

    assert store.latest_snapshot("g", None, "e") == _snap(4, rows[3].hash)
    assert store.latest_snapshot("g", 3, "e") is None  # 3 was dropped: only the two latest stay
    assert store.latest_snapshot("g", None, "another engine") is None
    assert store.last_snapshot_seq("g") == 5
    store.rewrite_log("g", (5, rows[4].hash), rows[:3], 2)
    assert store.last_snapshot_seq("g") == 0 and store.head("g") == (3, rows[2].hash)


def test_a_games_snapshots_are_listed_whatever_their_engine_or_head_and_one_can_be_dropped(
        new_db: Callable[[str], str]) -> None:
    """snapshots() lists every snapshot kept of a game, by seq, without its blobs, and snapshot_at reads one
    whole (mn verify checks them against the log); drop_snapshot deletes one, and no other game's."""
    store = open_store(new_db("a"), create=True)
    assert store.snapshots("g") == [] and store.snapshot_at("g", 3) is None  # no snapshots table yet
    rows = store.create_game("g", "t", "00", _rows(5))
    store.create_game("h", "t", "00", _rows(5))
    store.put_snapshot("h", _snap(4, "hh"))
    store.put_snapshot("g", _snap(5, "not the row's hash"))
    store.put_snapshot("g", _snap(3, rows[2].hash, "another engine"))

    assert store.snapshots("g") == [_head(_snap(3, rows[2].hash, "another engine")), _head(_snap(5, "not the row's hash"))]
    assert store.snapshot_at("g", 5) == _snap(5, "not the row's hash") and store.snapshot_at("g", 4) is None
    store.drop_snapshot("g", 5)
    store.drop_snapshot("g", 99)
    assert store.snapshots("g") == [_head(_snap(3, rows[2].hash, "another engine"))]
    assert store.snapshots("h") == [_head(_snap(4, "hh"))] and store.snapshot_at("g", 5) is None


def test_a_snapshots_nonces_are_kept_apart_and_read_whole_or_a_piece_at_a_time(new_db: Callable[[str], str]) -> None:
    """A snapshot's nonces (a game by mail's: every nonce a block used) are written with it but left out of every
    read of it, their digest read with the rest; snapshot_nonces reads them whole, nonces_pieces as their UTF-8
    bytes in pieces of at most 64 KiB; no snapshot, no nonces."""
    store = open_store(new_db("a"), create=True)
    rows = store.create_game("g", "t", "00", _rows(5))
    nonces = "{" + ",".join(f'"{n:032x}é":{n}' for n in range(6_000)) + "}"
    store.put_snapshot("g", replace(_snap(5, rows[4].hash), nonces=nonces, nonces_digest="nd"))

    pieces = list(store.nonces_pieces("g", 5))

    assert b"".join(pieces) == nonces.encode() and len(pieces) > 3 and max(map(len, pieces)) <= 1 << 16
    assert store.snapshot_nonces("g", 5) == nonces
    assert store.snapshot_at("g", 5) == store.latest_snapshot("g", None, "e") == replace(
        _snap(5, rows[4].hash), nonces_digest="nd")
    assert list(store.nonces_pieces("g", 4)) == [] and list(store.nonces_pieces("h", 5)) == []
    assert store.snapshot_nonces("g", 4) is None and store.snapshot_nonces("h", 5) is None


def _head(snap: Snapshot) -> SnapshotHead:
    return SnapshotHead(seq=snap.seq, head_hash=snap.head_hash, engine=snap.engine)


def test_a_rewrite_from_a_head_that_moved_on_is_a_conflict(new_db: Callable[[str], str]) -> None:
    """mn upgrade's rewrite holds to the head it read, like an append."""
    store = open_store(new_db("a"), create=True)
    rows = store.create_game("g", "t", "00", _rows(2))
    store.append("g", 2, _rows(1, 2))

    with pytest.raises(Conflict):
        store.rewrite_log("g", (2, rows[1].hash), rows, 2)

    assert store.head("g")[0] == 3


def test_a_postgresql_database_without_our_tables_is_refused_for_reading(pg_server: PgServer) -> None:
    """Reading an empty PostgreSQL database makes no tables; `mn new` (create) makes them."""
    url = pg_server.new_database()

    with pytest.raises(StoreError, match="is not a mare-nostrum database"):
        open_store(url)
    assert open_store(url, create=True).games() == []


def test_a_postgresql_database_of_the_previous_version_gets_the_nonces_columns(pg_server: PgServer) -> None:
    """Tables made before snapshots kept their nonces apart: opening the database adds the two columns, its
    game and snapshots stay, and a snapshot with nonces is written and read."""
    import psycopg

    url = pg_server.new_database()
    rows = open_store(url, create=True).create_game("g", "t", "00", _rows(5))
    open_store(url).put_snapshot("g", _snap(5, rows[4].hash))
    with psycopg.connect(url, autocommit=True) as pg:
        for column in ("nonces", "nonces_digest"):
            pg.execute(f"alter table snapshots drop column {column}")

    store = open_store(url)
    store.put_snapshot("g", replace(_snap(4, rows[3].hash), nonces='{"a":1}', nonces_digest="nd"))

    assert store.rows("g") == rows and store.snapshot_at("g", 5) == _snap(5, rows[4].hash)
    assert store.snapshot_nonces("g", 4) == '{"a":1}' and store.latest_snapshot("g", 4, "e") == replace(
        _snap(4, rows[3].hash), nonces_digest="nd")


def test_an_unreachable_server_is_a_clear_error_without_the_password() -> None:
    """A server nobody listens on: a StoreError (exit 2) naming the URL, its password hidden."""
    with pytest.raises(StoreError, match=r"cannot connect to postgresql://mn:\*\*\*@127\.0\.0\.1:9/x") as err:
        open_store("postgresql://mn:hunter2@127.0.0.1:9/x?connect_timeout=2")

    assert "hunter2" not in err.value.message and err.value.exit_code == 2


def test_the_db_option_takes_a_path_a_sqlite_url_or_a_postgresql_url(tmp_path: Path, pg_server: PgServer) -> None:
    """`--db` (or $MN_DB) chooses the store: a path, sqlite:///path, or postgresql://."""
    from click.testing import CliRunner

    from mncli.cli import main
    urls = [str(tmp_path / "a.db"), f"sqlite:///{tmp_path}/b.db", pg_server.new_database()]

    made = [CliRunner().invoke(main, ["--db", url, "new", "--ruleset", "toy", "--empire", "red", "--empire",
                                      "blue", "--seed", "s"]).stdout.strip() for url in urls]
    listed = [CliRunner().invoke(main, ["games"], env={"MN_DB": url}).stdout.split()[0] for url in urls]

    assert (tmp_path / "a.db").exists() and (tmp_path / "b.db").exists() and listed == made


def test_a_value_postgresql_refuses_is_a_store_error_and_writes_nothing(pg_server: PgServer) -> None:
    """Text PostgreSQL cannot hold (a NUL character) is exit 2 naming the database; no game is made."""
    store = open_store(pg_server.new_database(), create=True)

    with pytest.raises(StoreError, match="the database cannot be read or written") as err:
        store.create_game("g", "t", "00", [NewRow(type="PhaseBegan", payload='{"n":1}', recorded_at="t\x00",
                                                  actor="host")])

    assert err.value.exit_code == 2 and store.games() == []


def test_a_writer_that_takes_no_lock_is_still_stopped_by_the_game_and_seq_key(pg_server: PgServer) -> None:
    """A row written at the same seq by someone who skips the row lock (another program) and commits
    while our append waits on it: the primary key refuses ours, and that is the same Conflict."""
    import threading

    import psycopg
    url = pg_server.new_database()
    store = open_store(url, create=True)
    store.create_game("g", "t", "00", _rows(1))
    other = psycopg.connect(url)  # not autocommit: its insert stays uncommitted until the timer fires
    other.execute("insert into events (game_id, seq, type, payload, hash) values ('g', 2, 'X', '{}', 'h')")
    timer = threading.Timer(0.5, other.commit)
    timer.start()

    with pytest.raises(Conflict) as err:
        store.append("g", 1, _rows(1))

    timer.join()
    other.close()
    assert (err.value.expected, err.value.actual) == (1, 2) and store.rows("g")[1].hash == "h"


def test_without_server_binaries_the_postgresql_tests_skip_saying_why(monkeypatch: pytest.MonkeyPatch) -> None:
    """No initdb/pg_ctl anywhere: the reason names what to install."""
    import pg
    monkeypatch.setattr(pg, "server_bin", lambda: None)

    assert pg.why_no_server() == ("no PostgreSQL server binaries (initdb, pg_ctl) under "
                                  "/usr/lib/postgresql/*/bin or on PATH: apt-get install postgresql "
                                  "(.ci/run does)")
