"""Appends given the head they extend (as a game's Current holds it): no read first, and still refused
when the log has moved on, over SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from mncore.core.chain import CURRENT
from mncore.core.errors import Conflict
from mncore.store import NewRow, open_store
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
