"""K4: since when each side has been waited for, read back from the head through the snapshots only as far
as each wait began (by_mail.waiting), is what the whole log says (turns.waiting), after every batch."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from mncore.core.dice import Rng, seeded_secret
from mncore.games import by_mail, reading, writing
from mncore.games.reading import _log
from mncore.pbem import turns
from mncore.rulesets.empires.board import load_board
from mncore.rulesets.empires.commands import CreateGame
from mncore.rulesets.empires.players.autoplay import choose
from mncore.rulesets.empires.seam import RULESET
from mncore.store import SqliteStore

SECRET = seeded_secret("waiting since")


def _whole(store: SqliteStore, gid: str) -> dict[str, turns.Waiting]:
    loaded = reading.load(store, gid)
    return turns.waiting(loaded.ruleset, _log(loaded))


@pytest.mark.parametrize("every", [7, 40])
def test_K4_the_waits_read_back_through_the_snapshots_are_the_whole_logs(tmp_path: Path, every: int,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MN_SNAPSHOT_EVERY", str(every))
    store = SqliteStore(str(tmp_path / "g.db"), create=True)
    created = writing.create(store, RULESET, CreateGame(board=load_board(), players={"rome": "A", "greece": "B",
                                                                                      "carthage": "C"},
                                                         display="experienced", fair_play=False), SECRET)
    gid = created.game_id
    by_mail.set_pace(store, gid, 48, {"build": 72}, False, now="2030-01-01T00:00:00Z")
    rand = random.Random(every)
    read_back = 0
    for _ in range(160):
        cur = reading.current(store, gid)
        choice = choose(cur.state, rand, Rng(SECRET, cur.head[1]))
        if choice is None:
            break
        writing.give(store, gid, choice.order)
        expected = _whole(store, gid)
        assert by_mail.waiting(store, gid) == expected
        read_back += store.last_snapshot_seq(gid) > 0
    assert read_back > 100  # most were read back from a snapshot, not from the log's start
    assert store.last_snapshot_seq(gid) > 4 * every
