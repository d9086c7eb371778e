"""The 2003 game's flow looks each phase's rules up in one table, as Empires' does."""

from __future__ import annotations

from typing import get_args

from mncore.rulesets.classic.flow import PHASE_RULES
from mncore.rulesets.classic.ids import PHASES, Phase


def test_every_phase_has_its_rules_in_the_table() -> None:
    """Set-up and the four phases of a round (3): each has an entry; before creation there is no phase."""
    assert set(PHASE_RULES) == set(get_args(Phase)) - {""} == {"setup", *PHASES}


def test_the_phases_that_end_a_turn_by_done_are_offering_construction_military_and_setup() -> None:
    """Commerce has no `done` (its turns end as trades do); the others take one (rule 2)."""
    assert {p for p, rules in PHASE_RULES.items() if rules.end_turn is not None} == {
        "setup", "offering", "construction", "military"}
