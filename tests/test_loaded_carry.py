"""A Loaded extended by writing carries its kernel state and batch count: equal to a count over its rows."""

from __future__ import annotations

import random
from pathlib import Path

from classic_signed import new_game, play_until
from mncore.core.dice import Rng, seeded_secret
from mncore.games import reading, writing
from mncore.pbem import trust
from mncore.rulesets.empires.board import load_board
from mncore.rulesets.empires.commands import CreateGame
from mncore.rulesets.empires.players.autoplay import choose
from mncore.rulesets.empires.seam import RULESET
from mncore.store import open_store


def _same_as_counted(loaded: reading.Loaded) -> None:
    assert reading._batches(loaded) == sum(1 for r in loaded.rows if r.batch == r.seq)
    assert reading._ledger(loaded) == trust.ledger_of(loaded.ruleset, loaded.rows)
    assert loaded.kernel == trust.kernel_of(loaded.ruleset, loaded.rows)


def test_an_unkeyed_game_given_orders_on_a_loaded_carries_what_its_rows_count(tmp_path: Path) -> None:
    store = open_store(str(tmp_path / "g.db"), create=True)
    cmd = CreateGame(board=load_board(), players={"rome": "A", "greece": "B", "carthage": "C"},
                     display="experienced", fair_play=False)
    secret = seeded_secret("carry")
    loaded = writing.create(store, RULESET, cmd, secret)
    rand = random.Random("carry")
    carried = 0
    for _ in range(60):
        choice = choose(loaded.state, rand, Rng(secret, loaded.head[1]), style="random")
        assert choice is not None
        loaded = writing.give(store, loaded, choice.order, answer=False).after
        assert isinstance(loaded, reading.Loaded)
        _same_as_counted(loaded)
        carried += loaded.batches is not None
    assert carried == 60


def test_a_keyed_game_of_signed_blocks_on_a_loaded_carries_what_its_rows_count(tmp_path: Path) -> None:
    store, loaded = new_game(tmp_path / "c.db", draws=1)
    rand = random.Random(3)
    seen: list[int] = []

    def stop(state: object) -> bool:
        seen.append(0)
        return len(seen) > 25

    loaded = play_until(store, loaded, stop, rand)
    assert isinstance(loaded, reading.Loaded) and loaded.batches is not None and loaded.kernel.ledger.published
    _same_as_counted(loaded)
