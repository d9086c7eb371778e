"""The fold gives the very states it gave before the fold's pass (issue 27): recorded on main, after every event."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from fold_record import FIXTURES, FOLDS, digest, digests, golden_events
from mncore.games.log_reading import fold
from mncore.rulesets.empires.evolve import replay
from mncore.rulesets.empires.seam import RULESET

GOLDEN = json.loads((FOLDS / "golden.json").read_text())
RANDOM = sorted(FOLDS.glob("random-*.jsonl.gz"))


def test_every_golden_game_is_recorded() -> None:
    assert sorted(GOLDEN) == [p.name for p in FIXTURES]


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_the_state_after_every_event_of_a_golden_game_is_the_one_recorded(path: Path) -> None:
    events = golden_events(path)
    got, want = digests(events), GOLDEN[path.name]
    assert len(got) == len(want) > 100
    first = next((i for i, (g, w) in enumerate(zip(got, want, strict=True)) if g != w), None)
    assert first is None, f"{path.name}: the state after event {first} ({type(events[first]).__name__}) differs"
    # a log's fold (the ruleset's fold of many events, protocol.FoldsMany) ends where evolve does
    assert digest(fold(RULESET, events)) == want[-1]


@pytest.mark.parametrize("path", RANDOM, ids=lambda p: p.name.split(".")[0])
def test_the_state_after_every_event_of_a_random_game_is_the_one_recorded(path: Path) -> None:
    recorded = [json.loads(ln) for ln in gzip.decompress(path.read_bytes()).decode().splitlines()]
    events = [RULESET.decode_event(r["event"]) for r in recorded]
    got = digests(events)
    assert len(got) > 500
    first = next((i for i, (g, r) in enumerate(zip(got, recorded, strict=True)) if g != r["after"]), None)
    assert first is None, f"{path.name}: the state after event {first} ({type(events[first]).__name__}) differs"
    # the bulk folds (a replay of a decision's events, a log's fold) end where evolve does
    assert digest(replay(events)) == digest(fold(RULESET, events)) == recorded[-1]["after"]
