"""The leak search over the Atlas expansion's games: Atlantis's screen, offers and draws stay hidden."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from mncore.core.dice import new_secret
from mncore.core.protocol import NewGame
from mncore.games import reading, writing
from mncore.rulesets.empires import atlas
from mncore.rulesets.empires.players.autoplay import play_stored
from mncore.rulesets.empires.seam import RULESET
from mncore.store import open_store
from test_leaks import _assert_no_leak, _outputs, _truncated_copy, mn


def _played(tmp: Path, setup: str, seed: int, orders: int) -> Path:
    """A fair-play game of the set-up played by the scripted players."""
    chosen = atlas.variant(setup)
    assert chosen is not None
    db = tmp / f"{setup}.db"
    store = open_store(str(db), create=True)
    cmd = RULESET.new_game(NewGame(sides=chosen.empires, options={"setup": setup}))
    loaded = writing.create(lambda: open_store(str(db)), RULESET, cmd, new_secret(), "g")
    secret = bytes.fromhex(store.secret("g") or "")
    play_stored(store, loaded, secret, random.Random(seed), orders)
    return db


@pytest.mark.parametrize("setup,seed", [("atlantis", 21),
                                        pytest.param("alternative-4", 22, marks=pytest.mark.slow),
                                        pytest.param("alternative-3", 23, marks=pytest.mark.slow),
                                        # the Punic War: offers face down around the Foreign Trade claims
                                        ("punic-war", 24)])
def test_atlas_no_output_made_for_a_side_holds_another_sides_hidden_fact(
        tmp_path: Path, setup: str, seed: int) -> None:
    """Games of the Atlas set-ups, at two points: every output made for each empire, Atlantis and the
    Punic War's two included, holds no other empire's hidden value, plainly or as a hash of any candidate."""
    db = _played(tmp_path, setup, seed, 150)
    rows = len(open_store(str(db)).rows("g"))
    for stop in sorted({rows // 2, rows}):
        at = tmp_path / f"at{stop}.db"
        _truncated_copy(db, "g", stop, at)
        state = reading.load(open_store(str(at)), "g").state
        for viewer in state.empires:
            _assert_no_leak(at, "g", viewer, _outputs(at, "g", viewer, tmp_path))


def test_atlas_punic_barbarian_moves_and_battles_leak_nothing(tmp_path: Path) -> None:
    """The Punic War's Barbarians (atlas.barbarians): right after a move paid from a hidden screen (R64) and
    right after a battle with them (R65, R66), every output made for each empire, the explanation of that
    very event included, holds no other empire's hidden value."""
    from mncore.core.dice import seeded_secret
    from mncore.rulesets.empires import events as ev

    # a known secret, so that the game (and the moment of its first Barbarian battle) is the same each run
    db = tmp_path / "punic.db"
    store = open_store(str(db), create=True)
    cmd = RULESET.new_game(NewGame(sides=("rome", "carthage"), options={"setup": "punic-war"}))
    loaded = writing.create(store, RULESET, cmd, seeded_secret("4"), "g")
    play_stored(store, loaded, seeded_secret("4"), random.Random(4), 400)
    rows = open_store(str(db)).rows("g")
    kinds = [type(ev.decode_event(r.payload)) for r in rows]
    stops = [kinds.index(ev.BarbariansMoved) + 1, kinds.index(ev.BarbarianBattleFought) + 1]
    for stop in stops:
        at = tmp_path / f"at{stop}.db"
        _truncated_copy(db, "g", stop, at)
        state = reading.load(open_store(str(at)), "g").state
        assert state.barbarians is not None
        for viewer in state.empires:
            outputs = _outputs(at, "g", viewer, tmp_path)
            outputs["explain barbarians"] = mn(at, "explain", "g", str(stop), "--as", viewer, "--json")
            _assert_no_leak(at, "g", viewer, outputs)
