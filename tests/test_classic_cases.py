"""The classic game's rule cases (tests/cases/classic/): each rule and example of the two texts, by section.

A case file holds `section`, `title`, optional `civs` (seat order; default Rome, Greece, Carthage),
`variant`, `setup`, `seed`, `[[power]]` (an owner's powers, as in a tiles file: docs/classic-tiles.md), a `[position]` deep-merged over the new game's state (each hand given replaces the hand) (a position, docs/classic.md:
only the fields the case needs), `[[orders]]` (`civ`, `order`, and `refused = "<section>"` when the
rules must refuse it) and `[expect]`: `events` (each a type and a subset of its fields that some event
after the position must match), `no_events` (types none may have), `view` (dotted paths into the host's
`mn show --json`, with their values) and `lengths` (dotted paths and their lengths).
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import msgspec
import pytest

from mncore.core.dice import GENESIS_HASH, Rng, commitment, seeded_secret
from mncore.core.errors import RuleViolation
from mncore.core.protocol import NewGame
from mncore.rulesets.classic import commands as cm
from mncore.rulesets.classic.card_powers import from_doc
from mncore.rulesets.classic.seam import RULESET
from mncore.rulesets.classic.state import State
from mncore.secrecy import boundary

CASES = sorted((Path(__file__).parent / "cases" / "classic").glob("*.toml"))


def merged(doc: Any, patch: Any, at: str = "") -> Any:
    """doc with patch laid over it: tables merged key by key (a hand is replaced whole), anything
    else replaced."""
    if isinstance(doc, dict) and isinstance(patch, dict) and not at.startswith("hands."):
        return {**doc, **{k: merged(doc.get(k), v, f"{at}.{k}" if at else k) for k, v in patch.items()}}
    return patch


def subset(doc: Any, wanted: Any) -> bool:
    if isinstance(wanted, dict) and isinstance(doc, dict):
        return all(k in doc and subset(doc[k], v) for k, v in wanted.items())
    return bool(doc == wanted)


def lookup(doc: Any, dotted: str) -> Any:
    for key in dotted.split("."):
        doc = doc[int(key)] if isinstance(doc, list) else doc[key]
    return doc


def full(obj: Any) -> Any:
    """An event with every field, defaults included, as JSON-like data."""
    if isinstance(obj, msgspec.Struct):
        out = {f: full(getattr(obj, f)) for f in obj.__struct_fields__}
        return {**out, "type": type(obj).__name__}
    if isinstance(obj, dict):
        return {k: full(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [full(v) for v in obj]
    return obj


class Table:
    """A case's sandbox game in memory: created, the position laid over it, then its orders."""

    def __init__(self, case: dict[str, Any]) -> None:
        self.secret = seeded_secret(case.get("seed", "case"))
        civs = tuple(case.get("civs", ("rome", "greece", "carthage")))
        options: dict[str, str] = {k: str(case[k]) for k in ("variant", "setup") if k in case}
        create = RULESET.new_game(NewGame(sides=civs, options=options, fair_play=False))
        if "power" in case:
            create = msgspec.structs.replace(create, powers=from_doc(case["power"], create.board))
        _, state = RULESET.decide(State(commitment=commitment(self.secret)), create, self.rng(0))
        doc = merged(json.loads(msgspec.json.encode(state)), case.get("position", {}))
        position = msgspec.convert(doc, type=State)
        self.events, self.state = RULESET.decide(State(commitment=state.commitment),
                                                 cm.CreateFromPosition(position=position), self.rng(1))
        self.events = self.events[2:]  # what followed the position by itself

    def rng(self, n: int) -> Rng:
        return Rng(self.secret, GENESIS_HASH[:-4] + f"{n:04d}")

    def order(self, civ: str, line: str, n: int) -> list[Any]:
        command = RULESET.parse_order(line, self.state, civ)
        events, self.state = RULESET.decide(self.state, command, self.rng(n + 2))
        self.events += events
        return events


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_case(path: Path) -> None:
    """Each case: its orders accepted or refused as the rules say, then its expectations hold."""
    case = tomllib.loads(path.read_text())
    table = Table(case)

    for n, o in enumerate(case.get("orders", [])):
        if "refused" in o:
            with pytest.raises(RuleViolation) as refused:
                table.order(o["civ"], o["order"], n)
            assert refused.value.section == f"classic:{o['refused']}", (o, refused.value.reason)
        else:
            table.order(o["civ"], o["order"], n)

    expect = case.get("expect", {})
    found = [full(e) for e in table.events]
    for wanted in expect.get("events", []):
        assert any(subset(e, wanted) for e in found), (wanted, [e["type"] for e in found])
    for kind in expect.get("no_events", []):
        assert all(e["type"] != kind for e in found), kind
    view = RULESET.view(boundary.as_host(table.state))
    for dotted, value in expect.get("view", {}).items():
        assert lookup(view, dotted) == value, dotted
    for dotted, n in expect.get("lengths", {}).items():
        assert len(lookup(view, dotted)) == n, dotted


def test_every_section_of_the_rules_index_has_a_case_or_a_test() -> None:
    """The corpus covers the rules: each numbered section but the headings has a case file."""
    covered = {tomllib.loads(p.read_text())["section"] for p in CASES}
    headings = {"game", "1", "2", "3", "3.2", "4", "5", "6", "7"}
    elsewhere = {"1.1", "1.3"}  # the board (test_classic_cli), the bank (no limit to its cards)
    missing = set(RULESET.rulebook.index) - covered - headings - elsewhere
    assert not missing, sorted(missing)


def test_1_6_a_log_recorded_before_the_adjacent_provinces_folds_as_it_was_played() -> None:
    """1.6, ruling C2: a GameCreated recorded before `neutral_lands` existed set up each neutral's home
    provinces; folded now, it gives the same board it was played on (Arabia empty with Babylon neutral)."""
    from mncore.rulesets.classic import events as ev
    from mncore.rulesets.classic.components import load_board
    from mncore.rulesets.classic.evolve import replay
    from mncore.rulesets.classic.rules.setup import create

    # given: a four-player game's creation with Babylon neutral, and the same event as an older log holds it
    civs = ("rome", "greece", "carthage", "egypt")
    cmd = cm.CreateGame(board=load_board(), civs=civs, players={c: c for c in civs})
    created = create(cmd, Rng(seeded_secret("c2"), GENESIS_HASH), "0" * 64)[0]
    assert isinstance(created, ev.GameCreated) and created.neutral_lands["babylon"] == ("arabia", "media",
                                                                                        "mesopotamia")
    older = msgspec.structs.replace(created, neutral_lands={})

    # when: each is folded
    now, then = replay([created], State()), replay([older], State())

    # then: the new one fills Arabia; the older one leaves it as it was played, with the home provinces set up
    assert now.lands["arabia"].influence == "babylon"
    assert "arabia" not in then.lands or then.lands["arabia"].influence is None
    assert then.lands["media"].influence == "babylon" and then.lands["mesopotamia"].influence == "babylon"
