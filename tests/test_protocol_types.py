"""The optional capabilities take each ruleset's own types: mypy checks every seam against those it offers."""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from mncore.core.protocol import Audits, Changes, Conceals, Defaults, Maps, Pictures, Reports
from mncore.rulesets.classic import commands as ccm
from mncore.rulesets.classic import events as cev
from mncore.rulesets.classic.seam import RULESET as CLASSIC
from mncore.rulesets.classic.seam import Classic
from mncore.rulesets.classic.state import State
from mncore.rulesets.empires import commands as ecm
from mncore.rulesets.empires import events as eev
from mncore.rulesets.empires.seam import RULESET as EMPIRES
from mncore.rulesets.empires.seam import Empires
from mncore.rulesets.empires.state import GameState

OPTIONAL = (Audits, Changes, Conceals, Defaults, Maps, Pictures, Reports)


def empires_offers(r: Empires) -> tuple[Audits[GameState, eev.AnyEvent, ecm.AnyCommand],
                                        Changes[GameState, eev.AnyEvent], Conceals[GameState],
                                        Defaults[GameState, eev.AnyEvent], Maps, Pictures[GameState],
                                        Reports[GameState]]:
    """What mypy --strict holds Empires' seam to, with its own state, events and commands."""
    return r, r, r, r, r, r, r


def classic_offers(r: Classic) -> tuple[Audits[State, cev.AnyEvent, ccm.AnyCommand], Conceals[State], Maps,
                                        Pictures[State]]:
    """What mypy --strict holds the 2003 game's seam to."""
    return r, r, r, r


def test_each_seam_is_what_it_declares_itself_to_offer() -> None:
    assert isinstance(EMPIRES, Empires) and isinstance(CLASSIC, Classic)
    assert [p.__name__ for p in OPTIONAL if isinstance(EMPIRES, p)] == [p.__name__ for p in OPTIONAL]
    assert [p.__name__ for p in OPTIONAL if isinstance(CLASSIC, p)] == ["Audits", "Conceals", "Maps", "Pictures"]
    assert len(empires_offers(EMPIRES)) == 7 and len(classic_offers(CLASSIC)) == 4


@pytest.mark.parametrize("capability", OPTIONAL, ids=lambda p: p.__name__)
def test_no_optional_capability_takes_or_gives_any_but_a_json_document(capability: type[Any]) -> None:
    """Every parameter and result is a ruleset's type or a precise one; a JSON document (a view, a
    position's document) is the one place Any stays: its values are whatever the ruleset writes."""
    for name, method in inspect.getmembers(capability, inspect.isfunction):
        if name.startswith("_"):
            continue
        for part, annotation in inspect.get_annotations(method).items():
            text = str(annotation)
            assert "Any" not in text.replace("dict[str, Any]", ""), f"{capability.__name__}.{name} {part}: {text}"
