"""flow.waiting, the words-free question the rules and scripted players ask, agrees with flow.pending."""

from __future__ import annotations

from pathlib import Path

import pytest

from mncore.games.log_reading import decoded
from mncore.games.transfer import read_export
from mncore.rulesets.empires.flow import pending, waiting
from mncore.rulesets.empires.seam import RULESET

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
GAMES = sorted(p.name for p in FIXTURES.glob("*.jsonl") if not p.name.startswith(("classic-", "pbem-")))


@pytest.mark.parametrize("name", GAMES)
def test_waiting_names_whoever_pending_names(name: str) -> None:
    """After every event of every recorded Empires game (Atlas set-ups, the Punic War's Barbarians and
    the Legendary Cities included), waiting() gives pending()'s (empire, kind), in its order, and the
    same again when the state has kept it."""
    _, rows = read_export((FIXTURES / name).read_bytes(), name)
    state = RULESET.initial("")
    checked = 0
    for _, event in decoded(RULESET, rows, name):
        state = RULESET.evolve(state, event)
        expected = [(p.empire, p.kind) for p in pending(state)]
        first = waiting(state)
        assert first == expected, f"{name}, after {event}"
        first.clear()  # the caller's own list: what the state keeps is not changed by it
        assert waiting(state) == expected, f"{name}, after {event}: asked again of the same state"
        checked += 1
    assert checked == len(rows)
