"""Appends given the head they extend (as a game's Current holds it): no read first, and still refused
when the log has moved on, over SQLite and PostgreSQL."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from mncore.core.chain import CURRENT
from mncore.core.errors import Conflict, StoreError
from mncore.store import NewRow, SqliteStore, open_store
from mncore.store.base import chained


def _rows(n: int, start: int = 0) -> list[NewRow]:
    return [NewRow(type="PhaseBegan", payload=f'{{"n":{start + i}}}', recorded_at="t", actor="host")
            for i in range(n)]


def test_an_append_at_the_head_it_holds_chains_from_it(new_db: Callable[[str], str]) -> None:
    """The rows follow the head given, numbered and hashed as a read head would give them."""
    url = new_db("a")
    store = open_store(url, create=True)
    first = store.create_game("g", "t", "00", _rows(2))

    written = store.append("g", 2, _rows(2, 2), head=first[-1].hash, version=CURRENT)

    assert [r.seq for r in written] == [3, 4]
    assert open_store(url).rows("g")[2:] == written
    assert store.recorded_head("g") == (4, written[-1].hash)


def test_an_append_at_a_stale_head_is_a_conflict_and_writes_nothing(new_db: Callable[[str], str]) -> None:
    """A writer holding an older head (another wrote after it) is refused with where the game stands."""
    url = new_db("a")
    store = open_store(url, create=True)
    first = store.create_game("g", "t", "00", _rows(2))
    store.append("g", 2, _rows(1, 2), head=first[-1].hash, version=CURRENT)

    with pytest.raises(Conflict) as err:
        store.append("g", 2, _rows(1, 9), head=first[-1].hash, version=CURRENT)

    assert err.value.actual == 3
    assert [r.payload for r in open_store(url).rows("g")] == ['{"n":0}', '{"n":1}', '{"n":2}']


def test_an_append_at_a_head_hash_not_the_logs_writes_nothing(new_db: Callable[[str], str]) -> None:
    """The right seq with another hash (a log rewritten meanwhile) is not taken on trust: the head
    is read, and the rows chain from the stored one."""
    url = new_db("a")
    store = open_store(url, create=True)
    first = store.create_game("g", "t", "00", _rows(2))

    written = store.append("g", 2, _rows(1, 2), head="f" * 64, version=CURRENT)

    assert written == chained(2, first[-1].hash, _rows(1, 2), CURRENT)
    assert open_store(url).rows("g") == first + written


def test_an_append_at_a_head_whose_next_seq_is_taken_is_a_conflict_that_leaves_the_head_record(
        new_db: Callable[[str], str]) -> None:
    """A row written behind the head record's back (a writer of another version): the key refuses the
    rows, and the head record moved by the same transaction is moved back with it."""
    url = new_db("a")
    store = open_store(url, create=True)
    first = store.create_game("g", "t", "00", _rows(2))
    behind = chained(2, first[-1].hash, _rows(1, 7), CURRENT)
    store.import_rows("h", "t", behind, CURRENT)  # chained rows, written under another id...
    _move_rows(url, "h", "g")  # ...then moved under this game's, the head record not told

    with pytest.raises(Conflict) as err:
        store.append("g", 2, _rows(1, 2), head=first[-1].hash, version=CURRENT)

    assert err.value.actual == 3
    assert store.recorded_head("g") == (2, first[-1].hash)
    assert [r.payload for r in open_store(url).rows("g")] == ['{"n":0}', '{"n":1}', '{"n":7}']


def test_an_append_that_fails_inside_its_transaction_writes_nothing_and_is_a_store_error(tmp_path: Path) -> None:
    """SQLite's one-transaction append (no bulk around it): a statement failing after the head record
    moved rolls it back, and the failure is a StoreError, as any damaged file's."""
    path = str(tmp_path / "a.db")
    store = SqliteStore(path, create=True)
    first = store.create_game("g", "t", "00", _rows(2))
    store.conn.execute("alter table events rename to events_gone")  # the rows' table missing

    with pytest.raises(StoreError):
        store.append("g", 2, _rows(1, 2), head=first[-1].hash, version=CURRENT)

    assert not store.conn.in_transaction
    assert store.recorded_head("g") == (2, first[-1].hash)
    store.conn.execute("alter table events_gone rename to events")
    assert store.append("g", 2, _rows(1, 2), head=first[-1].hash, version=CURRENT)[0].seq == 3


def _move_rows(url: str, source: str, to: str) -> None:
    """Give a game's rows to another game id, in whichever store holds them."""
    if url.startswith("postgresql"):
        import psycopg

        with psycopg.connect(url) as pg:
            pg.execute("update events set game_id = %s where game_id = %s", [to, source])
        return
    with sqlite3.connect(url) as lite:
        lite.execute("update events set game_id = ? where game_id = ?", [to, source])
    lite.close()
