"""The classic game's choices the texts give a player (issue 29): which units he loses (6.9, ruling C9)
and which buildings his occupying units claim (6.11 b, ruling C7). Exact refusals, options, words."""

from __future__ import annotations

from typing import Any

import pytest

from mncore.errors import RuleViolation
from mncore.rulesets.classic import events as ev, text
from mncore.rulesets.classic.seam import RULESET
from test_classic_cases import Table

HELD: dict[str, Any] = {
    "section": "6.9", "title": "Greece owes three losses of two kinds",
    "position": {"phase": "military", "turns": {"order": ["rome", "greece", "carthage"], "assessed": True},
                 "lands": {"etruria": {"units": {"rome": {"legion": 0, "creature": 3}}},
                           "cisalpina": {"influence": "greece",
                                         "units": {"greece": {"creature": 2, "fortress": 2}}}}}}


def _held() -> Table:
    table = Table(HELD)
    table.order("rome", "march 3 creature from etruria to cisalpina", 0)
    return table


def _refusal(table: Table, civ: str, line: str) -> str:
    with pytest.raises(RuleViolation) as refused:
        table.order(civ, line, 9)
    return str(refused.value)


def test_6_9_the_losses_owed_are_pending_with_every_way_to_take_them_the_old_order_first() -> None:
    """6.9, C9: Greece is waited for; its options list legions, fortresses, creatures first (the default)."""
    table = _held()

    pending = RULESET.pending(table.state)
    options = [o.order for o in RULESET.options(table.state, "greece")]

    assert [(p.empire, p.kind, p.text) for p in pending] == [
        ("greece", "losses", "choose the 3 unit(s) lost in Gallia Cisalpina")]
    assert options == ["lose 2 fortress 1 creature in cisalpina", "lose 1 fortress 2 creature in cisalpina"]
    assert RULESET.options(table.state, "rome") == []


def test_6_9_a_wrong_number_of_losses_is_refused_with_the_number_owed() -> None:
    """6.9: exactly the hits scored are lost, of units the owner has there; nothing else is played first."""
    table = _held()

    assert _refusal(table, "greece", "lose 1 creature in cisalpina") == (
        "Greece must lose exactly 3 unit(s) in Gallia Cisalpina, not 1 [rule classic:6.9]")
    assert _refusal(table, "greece", "lose 3 creature in cisalpina") == (
        "Greece has only 2 creature(s) in Gallia Cisalpina [rule classic:6.9]")
    assert _refusal(table, "rome", "lose 3 creature in cisalpina") == (
        "Rome has no losses to choose in Gallia Cisalpina [rule classic:6.9]")
    assert _refusal(table, "rome", "done") == (
        "Greece first chooses the 3 unit(s) it loses in Gallia Cisalpina: "
        "'lose N legion|fortress|creature ... in cisalpina' [rule classic:6.9]")


def test_6_9_the_order_reads_and_writes_back_and_the_log_says_what_was_chosen() -> None:
    """6.9: `lose 1 creature 2 fortresses in cisalpina` round-trips; the event's sentence names the units."""
    table = _held()

    order = RULESET.parse_order("lose 1 creatures 2 fortresses in cisalpina", table.state, "greece")
    events = table.order("greece", "lose 2 fortress 1 creature in cisalpina", 1)

    assert RULESET.format_order(order) == "lose 2 fortress 1 creature in cisalpina"
    assert [text.describe(e) for e in events] == ["Greece chose its losses in Gallia Cisalpina: 1 creature, 2 fortress"]
    battle = next(e for e in table.events if isinstance(e, ev.GroundBattle))
    assert text.describe(battle).endswith("Greece rolled [] + 4 six(es), to choose 3 unit(s) to lose")


@pytest.mark.parametrize("line, message", [
    ("lose two legion in cisalpina", "'two' is not a number"),
    ("lose 1 legion 1 legion in cisalpina", "'lose': legion is named twice"),
    ("lose 1 in cisalpina", "write 'lose N legion|fortress|creature ... in PROVINCE', a number before each "
                            "kind, not 'lose 1'"),
])
def test_6_9_a_malformed_loss_order_says_what_is_wrong(line: str, message: str) -> None:
    """The grammar: a number before each kind, each kind once."""
    table = _held()

    with pytest.raises(Exception) as bad:
        RULESET.parse_order(line, table.state, "greece")

    assert str(bad.value) == message


def test_6_9_a_neutral_has_no_player_and_loses_legions_then_fortresses_then_creatures() -> None:
    """C9: a neutral civilisation (1.6) chooses nothing; its losses are taken in the ruling's order at once."""
    case = {**HELD, "position": {**HELD["position"], "lands": {
        "etruria": {"units": {"rome": {"legion": 0, "creature": 3}}},
        "cisalpina": {"influence": "egypt", "units": {"egypt": {"creature": 3, "fortress": 1}}}}}}
    table = Table(case)

    table.order("rome", "march 3 creature from etruria to cisalpina", 0)

    battle = next(e for e in table.events if isinstance(e, ev.GroundBattle))
    assert battle.owed == {} and battle.losses["egypt"].fortress == 1 and battle.losses["egypt"].creature == 2
    assert table.state.owed == ()
