"""The classic game's choices the texts give a player (issue 29): which units he loses (6.9, ruling C9)
and which buildings his occupying units claim (6.11 b, ruling C7). Exact refusals, options, words."""

from __future__ import annotations

from typing import Any

import pytest

from mncore.core.errors import RuleViolation
from mncore.rulesets.classic import events as ev
from mncore.rulesets.classic import text
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


OCCUPY: dict[str, Any] = {
    "section": "6.11", "title": "Rome occupies Cisalpina with one legion: two buildings to choose from",
    "position": {"phase": "military", "turns": {"order": ["rome", "greece", "carthage"], "assessed": True},
                 "lands": {"etruria": {"units": {"rome": {"legion": 2}}},
                           "cisalpina": {"influence": "greece",
                                         "buildings": [{"kind": "caravan", "resource": "wine"}, {"kind": "market"}]}}}}


def _occupied() -> Table:
    table = Table(OCCUPY)
    table.order("rome", "march 1 legion from etruria to cisalpina then occupy", 0)
    return table


def test_6_11_the_occupier_is_waited_for_with_each_choice_the_old_order_first() -> None:
    """6.11 b, C7: one legion, two buildings: Rome names one; the caravan (cities and caravans first) is listed first."""
    table = _occupied()

    assert [(p.empire, p.kind, p.text) for p in RULESET.pending(table.state)] == [
        ("rome", "claim", "name the buildings your 1 unit(s) claim in Gallia Cisalpina (claim BUILDING ... in cisalpina)")]
    assert [o.order for o in RULESET.options(table.state, "rome")] == [
        "claim caravan wine in cisalpina", "claim market in cisalpina"]


def test_6_11_claims_beyond_the_units_or_the_buildings_are_refused_with_the_reason() -> None:
    """6.11 b: a single unit on each building, of those the province has, by its occupier; nothing else first."""
    table = _occupied()

    assert _refusal(table, "rome", "claim caravan wine market in cisalpina") == (
        "Rome has 1 legion(s) and creature(s) in Gallia Cisalpina: a single one on each building claimed, "
        "not 2 [rule classic:6.11]")
    assert _refusal(table, "rome", "claim city in cisalpina") == "Gallia Cisalpina has no city [rule classic:6.11]"
    assert _refusal(table, "greece", "claim market in cisalpina") == (
        "Greece does not occupy Gallia Cisalpina [rule classic:6.11]")
    assert _refusal(table, "rome", "done") == (
        "Rome first names the buildings its units claim in Gallia Cisalpina: 'claim BUILDING ... in cisalpina' "
        "[rule classic:6.11]")


def test_6_11_more_units_later_claim_anew_in_the_occupiers_turn() -> None:
    """C7: a second legion arriving leaves a building unclaimed; in his turn Rome places both anew."""
    table = _occupied()
    table.order("rome", "claim market in cisalpina", 1)
    table.order("rome", "march 1 legion from etruria to cisalpina", 2)

    offered = [o.order for o in RULESET.options(table.state, "rome") if o.kind == "claim"]
    events = table.order("rome", "claim caravan wine market in cisalpina", 3)

    assert offered == ["claim caravan wine market in cisalpina"]
    assert [text.describe(e) for e in events] == [
        "Rome places its units in Gallia Cisalpina on: caravan wine market (rule classic:C7)"]
    assert RULESET.format_order(RULESET.parse_order("claim caravan wine market in cisalpina", table.state, "rome")) \
        == "claim caravan wine market in cisalpina"


def test_3_1_1_claims_named_first_are_kept_when_units_are_fewer() -> None:
    """C7: with fewer units than claims named (one was lost), the first named stand: a market alone pays nothing."""
    from mncore.rulesets.classic.rules.commerce import income
    from mncore.rulesets.classic.state import Built, Land, Units

    caravan, market = Built(kind="caravan", resource="wine"), Built(kind="market")
    land = Land(influence="greece", occupier="rome", buildings=(caravan, market), claims=(market, caravan),
                units={"rome": Units(legion=1)})

    assert income(land, "rome") == {}
    assert income(land, "greece") == {"wine": 1}


def test_6_11_mn_show_says_what_the_occupiers_units_stand_on() -> None:
    """C7: the view lists the claims; the text puts them after the occupier."""
    from mncore.secrecy import boundary
    table = _occupied()
    table.order("rome", "claim market in cisalpina", 1)

    doc = RULESET.view(boundary.as_host(table.state))

    assert doc["provinces"]["cisalpina"]["claims"] == ["market"]
    assert "  Gallia Cisalpina: Greece; caravan:wine, market; Rome 1 legion, occupier Rome (on market)" in (
        RULESET.show_text(doc).splitlines())
