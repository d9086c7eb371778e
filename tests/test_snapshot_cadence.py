"""Orders given one after another on a game's Current write a snapshot each time the log has grown
$MN_SNAPSHOT_EVERY events past the last one: the cadence is read at the first order and carried."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from mncore.core.dice import Rng, seeded_secret
from mncore.games import reading, writing
from mncore.rulesets.empires.board import load_board
from mncore.rulesets.empires.commands import CreateGame
from mncore.rulesets.empires.players.autoplay import choose
from mncore.rulesets.empires.seam import RULESET
from mncore.store import SqliteStore

SECRET = seeded_secret("cadence")


@pytest.mark.parametrize("every", [5, 13])
def test_a_snapshot_follows_each_order_that_grows_the_log_every_events_past_the_last(
        every: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MN_SNAPSHOT_EVERY", str(every))
    store = SqliteStore(str(tmp_path / "g.db"), create=True)
    cmd = CreateGame(board=load_board(), players={"rome": "A", "greece": "B", "carthage": "C"},
                     display="experienced", fair_play=False)
    gid = writing.create(store, RULESET, cmd, SECRET).game_id
    cur = reading.current(store, gid)
    rand = random.Random("cadence")
    expected, last = [], cur.snapshot_seq
    for _ in range(60):
        choice = choose(cur.state, rand, Rng(SECRET, cur.draw_head))
        assert choice is not None
        cur = writing.give(store, cur, choice.order, answer=False).after
        if cur.head[0] - last >= every:
            expected.append(last := cur.head[0])

    assert cur.snapshot_every == every
    assert expected[-2:] == [s.seq for s in store.snapshots(gid)]  # the store keeps the two latest
    assert cur.snapshot_seq == expected[-1]
    assert reading.current(store, gid).state == reading.load(store, gid).state
