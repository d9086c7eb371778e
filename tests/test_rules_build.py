"""Phase 3, Build (3.0–3.2), its heroes and wonders, and victories 6.1 and 6.2, through the engine."""

from __future__ import annotations

import itertools

import pytest

from mncore.core.errors import InvalidCommand, RuleViolation
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.commands import BuildTile, BuildUnit, EndBuildTurn, KeepCommodities
from mncore.rulesets.empires.flow import pending
from mncore.rulesets.empires.ids import Empire
from mncore.rulesets.empires.projections import level
from mncore.rulesets.empires.render import view
from mncore.rulesets.empires.rules import build
from mncore.rulesets.empires.rules.powers import has_power
from mncore.rulesets.empires.state import Bag, bag_add
from mncore.rulesets.empires.text import format_order, parse_order
from mncore.secrecy.boundary import as_host
from support import FIVE, FOUR, Play, new_game, of_type, said_to, seen_by

# --- arranging situations ------------------------------------------------------------------------------

def at_build(players: dict[Empire, str] = FIVE, display: str = "experienced", round: int = 1) -> Play:
    """A new game moved on to the Build phase (the Collect and Trade phases are not this file's)."""
    return new_game(players, display=display).given(ev.PhaseBegan(round=round, phase="build"))


def holding(play: Play, empire: Empire, bag: Bag) -> Play:
    """The empire holds exactly bag: what it held was discarded, then bag was collected."""
    held = play.state.empires[empire].resources
    if held:
        play.given(ev.ResourcesDiscarded(empire=empire, discarded=held, count=sum(held.values())))
    return play.given(ev.ResourcesCollected(empire=empire, gained=bag))


def building(play: Play, empire: Empire) -> Play:
    """The Culture Leader named empire to build."""
    leader = play.state.titles["culture"]
    return play.given(ev.BuilderChosen(empire=leader, builder=empire))


def gains(play: Play, empire: Empire, *tiles: str) -> Play:
    """The empire gained these heroes/wonders in earlier rounds."""
    for t in tiles:
        rank = len(play.state.empires[empire].tiles) + 1
        play.given(ev.TileGained(empire=empire, tile=t, paid={}, rank=rank))  # type: ignore[arg-type]
    return play


def new_round(play: Play) -> Play:
    """The next round's Collect then Build phases began (round-start control is taken anew)."""
    rnd = play.state.round + 1
    return play.given(ev.PhaseBegan(round=rnd, phase="collect"), ev.PhaseBegan(round=rnd, phase="build"))


def greek_example() -> Play:
    """3.1.1's picture: Greece held Achaea, Thracia and Dacia at the start of the round and has no
    trireme; Rome controls Dalmatia; Macedonia is uncontrolled with a Roman legion in it."""
    play = new_game()
    play.given(
        ev.ControlBuilt(empire="greece", province="dacia", paid={}),
        ev.ControlBuilt(empire="rome", province="dalmatia", paid={}),
        ev.UnitBuilt(empire="rome", kind="legion", place="dalmatia", paid={}),
        ev.LegionsMoved(empire="rome", from_province="dalmatia", to_province="macedonia", count=1),
        ev.ControlConverted(empire="rome", province="macedonia", previous="greece", replaced=False),
        ev.UnitsLost(empire="greece", place="mare-aegaeum", triremes=1))
    return new_round(play)


def refused(play: Play, empire: Empire, line: str, section: str) -> str:
    """The order is refused citing section, and nothing changes; returns the reason."""
    state, events = play.state, list(play.events)

    with pytest.raises(RuleViolation) as err:
        play.order(empire, line)

    assert err.value.section == section, err.value.message
    assert play.state == state
    assert play.events == events
    return err.value.reason


# --- 3.0: order and payment ------------------------------------------------------------------------------

def test_3_0_the_culture_leader_names_each_builder_once() -> None:
    """Only the Culture Leader names builders, himself included, and each empire builds once."""
    play = at_build()

    refused(play, "rome", "builder rome", "3.0")
    play.order("egypt", "builder egypt")
    refused(play, "egypt", "builder rome", "3.0")
    play.order("egypt", EndBuildTurn(empire="egypt"))

    assert play.state.step.done == ("egypt",)  # type: ignore[union-attr]
    refused(play, "egypt", "builder egypt", "3.0")
    assert [p.kind for p in pending(play.state)] == ["builder"]


def test_3_0_only_the_active_builder_builds() -> None:
    """An empire that is not the active builder may not build."""
    play = building(holding(at_build(), "rome", {"coin": 3}), "greece")

    reason = refused(play, "rome", "build legion in latium pay coin coin coin", "3.0")

    assert "Greece's build turn" in reason


def test_3_0_david_builds_with_three_sets_of_three() -> None:
    """David's nine resources make three 3-sets: 3 coins, grain+wood+sheep, grain+gold+gladiator."""
    play = building(holding(at_build(), "rome", {"coin": 3, "grain": 2, "wood": 1, "sheep": 1,
                                                   "gold": 1, "gladiator": 1}), "rome")

    play.orders("rome", "build caravan in italia at caravan-metal pay coin coin coin",
                "build legion in latium pay grain wood sheep",
                "build legion in gallia pay grain gold gladiator")

    assert play.state.empires["rome"].resources == {}
    assert play.state.provinces["italia"].buildings["caravan-metal"] == "caravan"
    assert play.state.provinces["latium"].legions["rome"] == 2
    assert play.state.provinces["gallia"].legions["rome"] == 1


def test_3_0_david_cannot_make_a_six_set() -> None:
    """With 5 different commodities and coins that do not mix, David cannot pay a 6-cost temple."""
    play = building(holding(at_build(), "rome", {"coin": 3, "grain": 2, "wood": 1, "sheep": 1,
                                                   "gold": 1, "gladiator": 1}), "rome")

    duplicate = refused(play, "rome", "build temple in latium pay grain grain wood sheep gold gladiator",
                        "3.0")
    mixed = refused(play, "rome", "build temple in latium pay coin wood sheep gold gladiator grain",
                    "3.0")

    assert "grain" in duplicate and "different" in duplicate
    assert "do not mix" in mixed


def test_3_0_a_legendary_commodity_counts_as_its_type() -> None:
    """Legendary sheep and sheep are a duplicate in a commodity set (1.2)."""
    play = building(holding(at_build(), "rome", {"sheep": 1, "legendary-sheep": 1, "wood": 1}), "rome")

    reason = refused(play, "rome", "build legion in latium pay sheep legendary-sheep wood", "3.0")

    assert "legendary" in reason


def test_3_0_a_set_must_be_exactly_the_cost_and_held() -> None:
    """Paying more or less than the cost, or with tokens not held, is refused."""
    play = building(holding(at_build(), "rome", {"coin": 4}), "rome")

    refused(play, "rome", "build legion in latium pay 4 coin", "3.0")
    refused(play, "rome", "build legion in latium pay coin coin", "3.0")
    refused(play, "rome", "build legion in latium pay wine oil grain", "3.0")


def test_3_0_spent_resources_return_to_the_reserves() -> None:
    """Spent coins and commodities go back to the reserve, legendary ones to the discard (Q&A: the
    game's resources are limited to those supplied)."""
    play = building(holding(at_build(), "rome", {"coin": 3, "wood": 1, "legendary-wine": 1,
                                                   "grain": 1}), "rome")
    supply = dict(play.state.supply)

    play.orders("rome", "build legion in latium pay 3 coin", "build legion in latium pay wood "
                "legendary wine grain")

    assert play.state.supply == bag_add(supply, {"coin": 3, "wood": 1, "grain": 1})
    assert play.state.legendary_discard == ("wine",)


def test_10_hannibal_pays_a_six_set_with_one_type_twice() -> None:
    """David with Hannibal makes a 6-set: 2 grain + sheep + gladiator + gold + wood (a temple)."""
    play = building(holding(at_build(), "carthage", {"coin": 3, "grain": 2, "wood": 1, "sheep": 1,
                                                       "gold": 1, "gladiator": 1}), "carthage")

    play.order("carthage", "build temple in africa pay grain grain sheep gladiator gold wood")

    assert play.state.provinces["africa"].buildings["temple"] == "temple"
    assert play.state.empires["carthage"].resources == {"coin": 3}


def test_10_hannibal_allows_only_one_type_twice() -> None:
    """Hannibal's set may not use a type three times, nor two types twice."""
    play = building(holding(at_build(), "carthage", {"grain": 3, "wood": 2, "sheep": 1}), "carthage")

    refused(play, "carthage", "build legion in africa pay grain grain grain", "10.hannibal")
    refused(play, "carthage", "build temple in africa pay grain grain wood wood sheep coin", "3.0")
    play.order("carthage", "build legion in africa pay grain grain wood")


def test_10_cleopatra_substitutes_one_token_per_set() -> None:
    """Cleopatra may put one coin in a commodity set and one commodity in a coin set, not two."""
    play = building(holding(at_build(), "egypt", {"coin": 6, "wine": 2, "oil": 2, "gold": 1,
                                                    "grain": 1}), "egypt")

    play.order("egypt", "build legion in aegyptus pay coin wine oil")
    play.order("egypt", "build legion in aegyptus pay coin coin wine")
    reason = refused(play, "egypt", "build trireme in mare-aegyptium pay coin coin", "3.0")
    refused(play, "egypt", "build market in aegyptus pay coin coin coin oil gold grain", "10.cleopatra")

    assert "costs 3" in reason
    assert play.state.provinces["aegyptus"].legions["egypt"] == 2


def test_10_cleopatra_a_coin_set_with_two_commodities_names_both_substitutions() -> None:
    """Refusing 4 coins with wine and oil, the message says Cleopatra allows one commodity among coins as well
    as one coin among commodities, and what was paid."""
    play = building(holding(at_build(), "egypt", {"coin": 4, "wine": 1, "oil": 1}), "egypt")

    reason = refused(play, "egypt", "build market in aegyptus pay coin coin coin coin wine oil", "10.cleopatra")

    assert "one commodity among coins" in reason and "one coin among commodities" in reason
    assert "4 coins and 2 commodities" in reason


def test_10_cleopatra_not_for_others() -> None:
    """Without Cleopatra a coin does not stand in for a commodity."""
    play = building(holding(at_build(), "greece", {"coin": 1, "wine": 1, "oil": 1}), "greece")

    refused(play, "greece", "build legion in achaea pay coin wine oil", "3.0")


# --- 3.1.1 control --------------------------------------------------------------------------------------

def test_3_1_1_greek_may_build_control_in_germania_through_dacia() -> None:
    """Germania is adjacent to Dacia, which Greece controlled at the start of the round."""
    play = building(holding(greek_example(), "greece", {"coin": 3}), "greece")

    play.order("greece", "build control in germania pay 3 coin")

    assert play.state.provinces["germania"].controller == "greece"


def test_3_1_1_greek_may_not_build_control_in_asia_without_a_trireme() -> None:
    """Asia is neither adjacent to nor adjoining Thracia or Achaea without a Greek trireme."""
    play = building(holding(greek_example(), "greece", {"coin": 3}), "greece")

    reason = refused(play, "greece", "build control in asia pay 3 coin", "3.1.1")

    assert "adjoining" in reason


def test_3_1_1_greek_may_not_build_control_in_dalmatia_or_macedonia() -> None:
    """Dalmatia is under Roman control; Macedonia has a Roman legion in it."""
    play = building(holding(greek_example(), "greece", {"coin": 3}), "greece")

    dalmatia = refused(play, "greece", "build control in dalmatia pay 3 coin", "3.1.1")
    macedonia = refused(play, "greece", "build control in macedonia pay 3 coin", "3.1.1")

    assert "controlled by Rome" in dalmatia
    assert "units of Rome" in macedonia


def test_3_1_1_control_needs_round_start_control_not_new_control() -> None:
    """A province controlled only since this Build turn does not extend the reach (3.1.1)."""
    play = building(holding(at_build(), "babylon", {"coin": 6}), "babylon")
    play.order("babylon", "build control in cappadocia pay 3 coin")

    reason = refused(play, "babylon", "build control in asia pay 3 coin", "3.1.1")

    assert "start of the round" in reason


def test_3_1_1_no_control_in_own_province_and_only_seven_markers() -> None:
    """Control in one's own province is refused; 7 markers, the capital's printed one aside (R30)."""
    play = building(holding(at_build(), "rome", {"coin": 6}), "rome")
    refused(play, "rome", "build control in gallia pay 3 coin", "3.1.1")
    for pid in ("dalmatia", "germania", "sicilia", "creta", "cilicia"):
        play.given(ev.ControlBuilt(empire="rome", province=pid, paid={}))
    play = building(new_round(play), "rome")

    reason = refused(play, "rome", "build control in dacia pay 3 coin", "3.1.1")

    assert build.markers_left(play.state, "rome") == 0
    assert "R30" in reason


def test_3_1_1_the_view_counts_seven_markers_besides_the_capitals() -> None:
    """mn show's control_markers_left is what the rules allow: 7 less the provinces controlled besides
    the capital's, whose marker is printed (ruling R30)."""
    play = building(holding(at_build(), "rome", {"coin": 3}), "rome")
    play.order("rome", "build control in dalmatia pay 3 coin")

    shown = view(as_host(play.state))["empires"]

    assert {e: shown[e]["control_markers_left"] for e in shown} == {
        e: build.markers_left(play.state, e) for e in play.state.empires}
    assert shown["rome"]["control_markers_left"] == 7 - 3  # Gallia, Italia (set-up) and Dalmatia


def test_10_hammurabi_builds_one_free_control_marker_each_round() -> None:
    """Hammurabi places one control marker free, once per round, under the usual placement rules."""
    play = building(holding(at_build(), "babylon", {}), "babylon")

    play.order("babylon", "build control in cappadocia with hammurabi")
    again = refused(play, "babylon", "build control in armenia with hammurabi", "10.hammurabi")
    refused(play, "babylon", "build control in creta with hammurabi", "3.1.1")

    assert play.state.provinces["cappadocia"].controller == "babylon"
    assert "already used this round" in again
    play = building(new_round(play), "babylon")
    play.order("babylon", "build control in armenia with hammurabi")
    assert play.state.provinces["armenia"].controller == "babylon"


# --- 3.1.2 units and buildings --------------------------------------------------------------------------

def test_3_1_2_trireme_then_control_then_legendary_city_in_asia() -> None:
    """Greece builds a trireme in Mare Aegaeum, then control in Asia through it, then Troia; 3.2: its
    Military and Culture levels each rise by one."""
    play = building(holding(greek_example(), "greece", {"coin": 9}), "greece")
    military = level(play.state, "greece", "military")
    culture = level(play.state, "greece", "culture")

    play.orders("greece", "build trireme in mare-aegaeum pay 3 coin", "build control in asia pay 3 coin",
                "build legendary in asia pay 3 coin")

    assert play.state.provinces["asia"].controller == "greece"
    assert play.state.provinces["asia"].buildings == {"troia": "legendary"}
    assert level(play.state, "greece", "military") == military + 1
    assert level(play.state, "greece", "culture") == culture + 1
    refused(play, "greece", "build caravan in asia pay 3 coin", "3.1.2")


def test_3_1_2_no_units_where_opponents_stand_except_the_capital() -> None:
    """A Roman legion in Macedonia and one in Achaea: Greece may still build in Achaea, its capital's
    province (3.1.1 exception, 4.3.5), but not in Macedonia."""
    play = new_game().given(
        ev.ControlBuilt(empire="rome", province="dalmatia", paid={}),
        ev.UnitBuilt(empire="rome", kind="legion", place="dalmatia", paid={}, count=2),
        ev.LegionsMoved(empire="rome", from_province="dalmatia", to_province="macedonia", count=2),
        ev.LegionsMoved(empire="rome", from_province="macedonia", to_province="achaea", count=1))
    play = building(holding(new_round(play), "greece", {"coin": 9}), "greece")

    reason = refused(play, "greece", "build legion in macedonia pay 3 coin", "3.1.2")
    play.orders("greece", "build legion in achaea pay 3 coin", "build trireme in mare-ionium pay 3 coin")

    assert "at war" in reason
    assert play.state.provinces["achaea"].legions["greece"] == 2


def test_3_1_2_units_and_buildings_only_in_controlled_provinces() -> None:
    """Legions, fortresses and buildings go in provinces the builder controls; triremes in a sea
    touching one."""
    play = building(holding(at_build(), "rome", {"coin": 9}), "rome")

    refused(play, "rome", "build legion in dalmatia pay 3 coin", "3.1.2")
    refused(play, "rome", "build caravan in dalmatia at caravan-wood pay 3 coin", "3.1.2")
    refused(play, "rome", "build trireme in mare-aegaeum pay 3 coin", "3.1.2")
    play.order("rome", "build trireme in mare-hadriaticum pay 3 coin")

    assert play.state.seas["mare-hadriaticum"] == {"rome": 1}


def test_3_1_2_at_most_one_fortress_per_province() -> None:
    """Latium already has Rome's fortress; a second is refused."""
    play = building(holding(at_build(), "rome", {"coin": 6}), "rome")

    refused(play, "rome", "build fortress in latium pay 3 coin", "3.1.2")
    play.order("rome", "build fortress in gallia pay 3 coin")

    assert play.state.provinces["gallia"].fortress == "rome"


def test_3_1_2_buildings_only_on_free_printed_spaces() -> None:
    """Only free printed spaces of the building's kind are built on; a choice of two must be named."""
    play = new_game().given(ev.ControlBuilt(empire="rome", province="dalmatia", paid={}))
    play = building(holding(new_round(play), "rome", {"coin": 9}), "rome")

    refused(play, "rome", "build temple in gallia pay 6 coin", "3.1.2")
    refused(play, "rome", "build caravan in latium pay 3 coin", "3.1.2")
    refused(play, "rome", "build caravan in gallia at market pay 3 coin", "3.1.2")
    with pytest.raises(InvalidCommand, match="at caravan-wood"):
        play.order("rome", "build caravan in dalmatia pay 3 coin")
    play.orders("rome", "build caravan in gallia pay 3 coin",
                "build caravan in dalmatia at caravan-gladiator pay 3 coin")

    assert play.state.provinces["gallia"].buildings["caravan-sheep"] == "caravan"
    assert play.state.provinces["dalmatia"].buildings == {"caravan-gladiator": "caravan"}


def test_9_0_no_ninth_legion() -> None:
    """Q&A: units are limited to those supplied: with 8 legions on the board a 9th is refused."""
    play = new_game().given(ev.UnitBuilt(empire="rome", kind="legion", place="latium", paid={}, count=7))
    play = building(holding(new_round(play), "rome", {"coin": 3}), "rome")

    reason = refused(play, "rome", "build legion in latium pay 3 coin", "3.1.2")

    assert "no more than the game supplies" in reason


def test_9_0_buildings_are_limited_to_the_supply() -> None:
    """Q&A: with all 8 regular cities on the board, none can be built."""
    play = new_game()
    for pid in ("cilicia", "armenia", "media"):
        play.given(ev.ControlBuilt(empire="babylon", province=pid, paid={}))
    for pid in ("cilicia", "armenia"):
        play.given(ev.BuildingBuilt(empire="babylon", province=pid, space="city", kind="city", paid={}))
    play.given(ev.ControlBuilt(empire="egypt", province="creta", paid={}),
               ev.BuildingBuilt(empire="egypt", province="creta", space="city", kind="city", paid={}))
    play = building(holding(new_round(play), "babylon", {"coin": 3}), "babylon")

    reason = refused(play, "babylon", "build city in media pay 3 coin", "3.1.2")

    assert "every city building" in reason


# --- special costs --------------------------------------------------------------------------------------

def test_10_spartacus_one_legion_for_a_gladiator_once_a_round() -> None:
    """Spartacus builds one legion for 1 coin or 1 gladiator, once per round."""
    play = building(holding(gains(at_build(), "rome", "spartacus"), "rome", {"gladiator": 2, "coin": 1}),
                    "rome")

    play.order("rome", "build legion in latium with spartacus pay gladiator")
    refused(play, "rome", "build legion in latium with spartacus pay coin", "10.spartacus")
    refused(play, "rome", "build trireme in mare-tyrrhenum with spartacus pay coin", "3.1.2")

    assert play.state.provinces["latium"].legions["rome"] == 2
    play = building(holding(new_round(play), "rome", {"coin": 1}), "rome")
    play.order("rome", "build legion in latium with spartacus pay coin")


def test_10_gilgamesh_one_fortress_for_a_stone() -> None:
    """Gilgamesh builds one fortress for 1 coin or 1 stone, once per round; not for wood."""
    play = building(holding(gains(at_build(), "babylon", "gilgamesh"), "babylon", {"stone": 1, "wood": 1,
                                                                                    "coin": 1}), "babylon")

    refused(play, "babylon", "build fortress in syria with gilgamesh pay wood", "10.gilgamesh")
    play.order("babylon", "build fortress in syria with gilgamesh pay stone")
    refused(play, "babylon", "build fortress in mesopotamia with gilgamesh pay coin", "10.gilgamesh")

    assert play.state.provinces["syria"].fortress == "babylon"


def test_11_pharos_one_trireme_for_a_wood() -> None:
    """The Lighthouse of Pharos builds one trireme for 1 coin or 1 wood, once per round."""
    play = building(holding(gains(at_build(), "carthage", "pharos"), "carthage", {"wood": 1, "coin": 1}),
                    "carthage")

    play.order("carthage", "build trireme in mare-sardoum with pharos pay wood")
    refused(play, "carthage", "build trireme in mare-sardoum with pharos pay coin", "11.pharos")

    assert play.state.seas["mare-sardoum"] == {"carthage": 1}


def test_10_penthesilea_one_free_legion_per_occupied_province() -> None:
    """With Roman legions in Macedonia and Thracia, Penthesilea places 2 free legions in Achaea, once."""
    play = gains(new_game(), "greece", "penthesilea").given(
        ev.ControlBuilt(empire="rome", province="dalmatia", paid={}),
        ev.UnitBuilt(empire="rome", kind="legion", place="dalmatia", paid={}, count=2),
        ev.LegionsMoved(empire="rome", from_province="dalmatia", to_province="macedonia", count=2),
        ev.LegionsMoved(empire="rome", from_province="macedonia", to_province="thracia", count=1))
    play = building(new_round(play), "greece")

    refused(play, "greece", "build legion in thracia with penthesilea", "3.1.2")
    refused(play, "greece", "build legion in macedonia with penthesilea", "3.1.2")
    out = play.order("greece", "build legion in achaea with penthesilea")
    refused(play, "greece", "build legion in achaea with penthesilea", "10.penthesilea")

    assert of_type(out, ev.UnitBuilt)[0].count == 2
    assert play.state.provinces["achaea"].legions["greece"] == 3


def test_10_penthesilea_needs_an_occupied_province() -> None:
    """Without opponent legions in its provinces, Penthesilea places nothing (ruling R32)."""
    play = building(gains(at_build(), "greece", "penthesilea"), "greece")

    reason = refused(play, "greece", "build legion in achaea with penthesilea", "10.penthesilea")

    assert "R32" in reason


# --- 3.1.3 heroes and wonders ------------------------------------------------------------------------

def test_3_1_3_heroes_and_wonders_cost_7_8_9_10() -> None:
    """The second tile costs 7, the third 8; a tile gives its leader bonus at once (3.2)."""
    play = building(holding(at_build(), "rome", {"coin": 15}), "rome")
    trade = level(play.state, "rome", "trade")

    refused(play, "rome", "recruit hercules pay 8 coin", "3.0")
    play.order("rome", "recruit hercules pay 7 coin")
    refused(play, "rome", "build colossus pay 7 coin", "3.0")
    play.order("rome", "build colossus pay 8 coin")

    assert play.state.empires["rome"].tiles == ("caesar", "hercules", "colossus")
    assert level(play.state, "rome", "trade") == trade + 2
    assert all(d.tile not in ("hercules", "colossus") for d in play.state.display)


def test_3_2_egypt_builds_circe_trade_and_military_rise() -> None:
    """Egypt recruits Circe: its Trade and Military levels each rise by one."""
    play = building(holding(at_build(), "egypt", {"coin": 7}), "egypt")
    before = {t: level(play.state, "egypt", t) for t in ("trade", "culture", "military")}

    play.order("egypt", "recruit circe pay 7 coin")

    after = {t: level(play.state, "egypt", t) for t in ("trade", "culture", "military")}
    assert after == {"trade": before["trade"] + 1, "culture": before["culture"],
                     "military": before["military"] + 1}


def test_3_1_3_only_face_up_tiles_not_held() -> None:
    """A face-down tile, a held tile and a starting hero cannot be built."""
    play = building(holding(at_build(display="first-game"), "rome", {"coin": 7}), "rome")
    down = next(d.tile for d in play.state.display if not d.face_up)
    up = next(d.tile for d in play.state.display if d.face_up and d.tile != "pyramids")
    gains(play, "greece", up)

    assert "face down" in refused(play, "rome", f"recruit {down} pay 7 coin", "3.1.3")
    assert "Greece already has" in refused(play, "rome", f"recruit {up} pay 7 coin", "3.1.3")
    assert "Greece already has" in refused(play, "rome", "recruit pericles pay 7 coin", "3.1.3")


def test_5_0_level_above_fifteen_keeps_counting() -> None:
    """Rome with 5 fortresses, 5 triremes and 4 legions (XIV) builds 4 legions: 14 -> 18 (15+3)."""
    play = new_game()
    for pid in ("dalmatia", "germania"):
        play.given(ev.ControlBuilt(empire="rome", province=pid, paid={}))
    for pid in ("italia", "gallia", "dalmatia", "germania"):
        play.given(ev.UnitBuilt(empire="rome", kind="fortress", place=pid, paid={}))
    play.given(ev.UnitBuilt(empire="rome", kind="trireme", place="mare-tyrrhenum", paid={}, count=4),
               ev.UnitBuilt(empire="rome", kind="legion", place="latium", paid={}, count=3))
    play = building(holding(new_round(play), "rome", {"coin": 12}), "rome")
    assert level(play.state, "rome", "military") == 14

    play.orders("rome", *["build legion in latium pay 3 coin"] * 4)

    assert level(play.state, "rome", "military") == 18


# --- Castor & Pollux ------------------------------------------------------------------------------------

def test_10_castor_pollux_copies_another_empires_hero_without_its_bonus() -> None:
    """Castor & Pollux copy Greece's Circe: Rome gains the power but not Circe's leader bonus."""
    play = building(holding(gains(at_build(), "greece", "circe"), "rome", {"coin": 7}), "rome")
    trade = level(play.state, "rome", "trade")

    play.order("rome", "recruit castor-pollux copy circe pay 7 coin")

    assert play.state.empires["rome"].copied == "circe"
    assert has_power(play.state, "rome", "circe")
    assert level(play.state, "rome", "trade") == trade


def test_10_castor_pollux_may_not_copy_starting_heroes_wonders_or_perseus() -> None:
    """Starting heroes, wonders, Perseus, and heroes nobody else holds are refused; a copy is required
    while one is available."""
    play = gains(at_build(), "greece", "perseus", "colossus")
    play = building(holding(gains(play, "babylon", "hercules"), "rome", {"coin": 7}), "rome")

    assert "starting" in refused(play, "rome", "recruit castor-pollux copy pericles pay 7 coin",
                                 "10.castor-pollux")
    assert "wonder" in refused(play, "rome", "recruit castor-pollux copy colossus pay 7 coin",
                               "10.castor-pollux")
    assert "Perseus" in refused(play, "rome", "recruit castor-pollux copy perseus pay 7 coin",
                                "10.castor-pollux")
    refused(play, "rome", "recruit castor-pollux copy circe pay 7 coin", "10.castor-pollux")
    refused(play, "rome", "recruit castor-pollux pay 7 coin", "10.castor-pollux")
    refused(play, "rome", "recruit hercules copy circe pay 7 coin", "3.1.3")


def test_10_castor_pollux_without_anything_to_copy() -> None:
    """With no copyable hero in play, Castor & Pollux are recruited without a copy (ruling R34)."""
    play = building(holding(at_build(), "rome", {"coin": 7}), "rome")

    play.order("rome", "recruit castor-pollux pay 7 coin")

    assert play.state.empires["rome"].copied is None


# --- end of the phase -------------------------------------------------------------------------------

def every_empire_built(play: Play) -> Play:
    return play.given(*(ev.BuildTurnEnded(empire=e) for e in play.state.empires))


def test_3_0_at_the_end_only_two_coins_are_kept() -> None:
    """Unspent commodities go back to the reserve, legendary ones to the discard, and coins above two;
    no resource is lost or made (Q&A: the resources are those supplied)."""
    play = every_empire_built(holding(at_build(), "greece", {"coin": 5, "wine": 1, "legendary-oil": 1}))

    play.given(*build.end(play.state, play.rng()))

    assert play.state.empires["greece"].resources == {"coin": 2}
    assert all(set(es.resources) <= {"coin"} and es.resources.get("coin", 0) <= 2
               for es in play.state.empires.values())
    assert play.state.legendary_discard == ("oil",)
    assert _everything(play) == _everything(new_game())


def _everything(play: Play) -> Bag:
    total = bag_add(play.state.supply, {f"legendary-{c}": 1 for c in play.state.legendary_pile})
    total = bag_add(total, {f"legendary-{c}": 1 for c in play.state.legendary_discard})
    for es in play.state.empires.values():
        total = bag_add(total, es.resources)
    return total


def test_11_hanging_gardens_keep_two_different_commodities() -> None:
    """The Hanging Gardens holder keeps 2 coins and up to 2 different commodities of his choice."""
    play = gains(at_build(), "babylon", "hanging-gardens")
    play = building(holding(play, "babylon", {"coin": 4, "wine": 2, "oil": 1, "gold": 1}), "babylon")

    refused(play, "babylon", "done keep wine wine", "11.hanging-gardens")
    refused(play, "greece", "keep wine", "11.hanging-gardens")
    play.order("babylon", EndBuildTurn(empire="babylon", keep=("oil", "wine")))
    play.given(*(ev.BuildTurnEnded(empire=e) for e in play.state.empires if e != "babylon"))
    play.given(*build.end(play.state, play.rng()))

    assert play.state.empires["babylon"].resources == {"coin": 2, "wine": 1, "oil": 1}


def test_11_hanging_gardens_a_legendary_counts_as_its_type_when_kept() -> None:
    """keep legendary-oil oil is refused, and the message says why: a legendary oil is oil (1.2)."""
    play = gains(at_build(), "babylon", "hanging-gardens")
    play = holding(play, "babylon", {"legendary-oil": 1, "oil": 1})
    play.given(*(ev.BuildTurnEnded(empire=e) for e in play.state.empires))

    reason = refused(play, "babylon", "keep legendary-oil oil", "11.hanging-gardens")

    assert "a legendary commodity counts as its type (1.2" in reason and "oil is kept twice" in reason


def test_11_hanging_gardens_choice_is_pending_at_the_end() -> None:
    """A holder who ended his turn without choosing is asked before the phase ends."""
    play = gains(at_build(), "babylon", "hanging-gardens")
    play = holding(play, "babylon", {"wine": 2, "gold": 1})
    play.given(*(ev.BuildTurnEnded(empire=e) for e in play.state.empires))

    assert [(p.empire, p.kind) for p in pending(play.state)] == [("babylon", "keep")]
    play.order("babylon", KeepCommodities(empire="babylon", keep=("gold",)))
    assert play.state.empires["babylon"].resources == {"gold": 1}


def test_setup_5_tiles_turned_up_until_five_show() -> None:
    """First games: at the end of the Build phase face-down tiles are turned up until five show."""
    play = at_build(display="first-game")
    up = [d.tile for d in play.state.display if d.face_up and d.tile != "pyramids"]
    down = [d.tile for d in play.state.display if not d.face_up]
    gains(play, "rome", up[0])
    gains(play, "greece", up[1])
    every_empire_built(play)

    out = build.end(play.state, play.rng())

    assert of_type(out, ev.TilesTurnedUp) == [ev.TilesTurnedUp(tiles=tuple(down[:2]))]
    play.given(*out)
    assert sum(1 for d in play.state.display if d.face_up and d.tile != "pyramids") == 5


def test_3_0_the_last_builder_done_ends_the_phase() -> None:
    """When every empire has built, the phase ends: storage, then Move and Battle begins."""
    play = at_build(players=FOUR)
    for emp in ("rome", "greece", "carthage"):
        play.order("egypt", f"builder {emp}")
        play.order(emp, "done")
    play.order("egypt", "builder egypt")

    out = play.order("egypt", "done")

    assert of_type(out, ev.ResourcesDiscarded)
    assert ev.PhaseBegan(round=1, phase="move") in out


# --- victories --------------------------------------------------------------------------------------

def test_6_1_the_pyramids_win_at_once() -> None:
    """Building the Pyramids (12) wins at once; further orders are refused naming the winner."""
    play = building(holding(at_build(), "greece", {"coin": 12}), "greece")

    out = play.order("greece", "build pyramids pay 12 coin")

    assert of_type(out, ev.GameWon)[0].condition == "6.1"
    assert play.state.winner is not None and play.state.winner.empires == ("greece",)
    with pytest.raises(RuleViolation, match="Greece won by 6.1"):
        play.order("egypt", "builder rome")


def test_6_2_a_fifth_hero_wins_at_the_end_of_the_phase() -> None:
    """A fifth hero/wonder wins, but only when the Build phase ends."""
    play = gains(at_build(players=FOUR), "rome", "hercules", "circe", "colossus")
    play = building(holding(play, "rome", {"coin": 10}), "rome")

    play.order("rome", "recruit spartacus pay 10 coin")
    assert play.state.winner is None
    play.order("rome", "done")
    for emp in ("greece", "carthage", "egypt"):
        play.order("egypt", f"builder {emp}")
        out = play.order(emp, "done")

    assert of_type(out, ev.GameWon) == [ev.GameWon(empires=("rome",), condition="6.2",
                                                   detail="Rome gained a fifth hero or wonder.")]


def test_6_2_the_culture_leader_wins_a_tie_of_fifth_tiles() -> None:
    """Two fifth tiles in one phase: the Culture Leader (Egypt) wins if among them."""
    play = gains(gains(at_build(players=FOUR), "rome", "hercules", "circe", "colossus"),
                 "egypt", "ramses", "antigone", "pharos")
    play.given(ev.TileGained(empire="rome", tile="spartacus", paid={}, rank=5),
               ev.TileGained(empire="egypt", tile="gilgamesh", paid={}, rank=5))
    every_empire_built(play)

    out = build.end(play.state, play.rng())

    assert of_type(out, ev.GameWon)[0].empires == ("egypt",)


def test_6_2_without_the_culture_leader_the_win_is_shared() -> None:
    """Two fifth tiles in one phase, neither by the Culture Leader: both win."""
    play = gains(gains(at_build(players=FOUR), "rome", "hercules", "circe", "colossus"),
                 "greece", "ramses", "antigone", "pharos")
    play.given(ev.TileGained(empire="rome", tile="spartacus", paid={}, rank=5),
               ev.TileGained(empire="greece", tile="gilgamesh", paid={}, rank=5))
    every_empire_built(play)

    out = build.end(play.state, play.rng())

    assert of_type(out, ev.GameWon)[0].empires == ("rome", "greece")


def test_3_1_3_no_sixth_hero_or_wonder() -> None:
    """Costs run to the fifth tile; a sixth is refused."""
    play = gains(at_build(), "rome", "hercules", "circe", "colossus", "spartacus")
    play = building(holding(play, "rome", {"coin": 10}), "rome")

    refused(play, "rome", "recruit ramses pay 10 coin", "3.1.3")


def test_9_0_perseus_builds_first_and_wins_with_the_pyramids() -> None:
    """Q&A: the Culture Leader named an opponent first; the Perseus holder goes first, builds the
    Pyramids and wins at once."""
    play = holding(new_round(gains(at_build(), "carthage", "perseus")), "carthage", {"coin": 12})
    play.order("egypt", "builder rome")

    out = play.order("carthage", "perseus pyramids pay 12 coin")

    assert of_type(out, ev.GameWon)[0] == ev.GameWon(
        empires=("carthage",), condition="6.1",
        detail="Carthage built the Pyramids, building first with Perseus.")


def test_10_perseus_builds_first_a_fifth_hero_and_wins_at_once() -> None:
    """Perseus's fifth hero wins at once, not at the end of the phase."""
    play = new_round(gains(at_build(), "carthage", "perseus", "circe", "colossus"))
    play = holding(play, "carthage", {"coin": 10})

    out = play.order("carthage", "perseus hercules pay 10 coin")

    assert of_type(out, ev.GameWon)[0].condition == "6.2"
    assert play.state.winner is not None


def test_10_perseus_only_to_win_and_only_first() -> None:
    """Perseus may not build a non-winning tile, nor claim after something was built (R33)."""
    play = holding(new_round(gains(at_build(), "carthage", "perseus")), "carthage", {"coin": 12})
    play = holding(play, "rome", {"coin": 3})

    refused(play, "carthage", "perseus hercules pay 8 coin", "10.perseus")
    refused(play, "rome", "perseus pyramids pay 12 coin", "10.perseus")
    play.order("egypt", "builder rome")
    play.order("rome", "build legion in latium pay 3 coin")
    assert "R33" in refused(play, "carthage", "perseus pyramids pay 12 coin", "10.perseus")


# --- options and text -------------------------------------------------------------------------------

def _fill(option_template: str, parts: dict[str, tuple[str, ...]]) -> list[str]:
    keys = list(parts)
    return [option_template.format(**dict(zip(keys, values)))
            for values in itertools.product(*(parts[k] for k in keys))]


def _accepted(play: Play, empire: Empire) -> int:
    lines = 0
    for option in build.options(play.state, empire):
        candidates = [option.order] if option.order else _fill(option.template or "", option.parts)
        for line in candidates:
            trial = Play(seed=play.seed, events=list(play.events), state=play.state)
            trial.order(empire, line)
            lines += 1
    return lines


def test_3_0_every_option_is_accepted() -> None:
    """Every line the options list, and every template filled with listed parts, is accepted."""
    play = gains(greek_example(), "greece", "spartacus", "pharos")
    play = building(holding(play, "greece", {"coin": 4, "wine": 1, "gladiator": 1, "wood": 1,
                                              "oil": 2, "legendary-gems": 1, "grain": 1}), "greece")
    carthage = holding(new_round(gains(at_build(), "carthage", "perseus")), "carthage",
                       {"coin": 12, "grain": 2, "wood": 1})

    assert _accepted(play, "greece") > 20
    assert _accepted(carthage, "carthage") >= 1
    assert _accepted(carthage, "egypt") == 5


def test_3_0_orders_round_trip_as_text() -> None:
    """Each build order's canonical line parses back to the same order."""
    play = at_build()
    lines = ["builder rome", "build control in dacia pay coin coin coin",
             "build control in dacia with hammurabi", "build legion in latium with spartacus pay gladiator",
             "build trireme in mare-tyrrhenum pay grain legendary-wood sheep",
             "build caravan in gallia at caravan-sheep pay coin coin coin",
             "recruit castor-pollux copy circe pay coin coin coin coin coin coin coin",
             "build hanging-gardens pay coin coin coin coin coin coin coin",
             "perseus pyramids pay coin coin coin coin coin coin coin coin coin coin coin coin",
             "done", "done keep oil wine", "keep nothing"]

    for line in lines:
        order = parse_order(line, play.state, "rome")
        assert format_order(order) == line
        assert parse_order(format_order(order), play.state, "rome") == order


def test_3_0_shorthand_payments() -> None:
    """'pay 3 coin' and 'legendary wine' are read as the tokens they name."""
    play = at_build()

    order = parse_order("build legion in Latium pay 2 coins legendary wine", play.state, "rome")

    assert order == BuildUnit(empire="rome", kind="legion", place="latium",
                              pay={"coin": 2, "legendary-wine": 1})
    assert parse_order("recruit Castor and Pollux copy Circe pay 7 coin", play.state, "rome") == \
        BuildTile(empire="rome", tile="castor-pollux", copy="circe", pay={"coin": 7})


def test_3_0_discards_are_hidden_from_other_empires() -> None:
    """Another empire sees how many resources were discarded, not which."""
    event = ev.ResourcesDiscarded(empire="rome", discarded={"wine": 2, "coin": 1}, count=3)

    assert seen_by(event, "greece") == ev.ResourcesDiscarded(empire="rome", discarded={}, count=3)
    assert seen_by(event, "rome") == event
    assert "wine" not in said_to(event, "greece")
    assert "wine" in said_to(event, "rome")


def test_4_2_1_no_trireme_in_a_sea_touching_only_a_province_at_war() -> None:
    """A Roman legion in Thracia: Greece may not build a trireme in Pontus Euxinus, whose only Greek
    coast is Thracia, but may in Mare Aegaeum, which touches Achaea (ruling R39)."""
    play = new_game().given(
        ev.ControlBuilt(empire="rome", province="dalmatia", paid={}),
        ev.UnitBuilt(empire="rome", kind="legion", place="dalmatia", paid={}),
        ev.LegionsMoved(empire="rome", from_province="dalmatia", to_province="macedonia", count=1),
        ev.LegionsMoved(empire="rome", from_province="macedonia", to_province="thracia", count=1))
    play = building(holding(new_round(play), "greece", {"coin": 6}), "greece")

    refused(play, "greece", "build trireme in pontus-euxinus pay 3 coin", "3.1.2")
    play.order("greece", "build trireme in mare-aegaeum pay 3 coin")

    assert play.state.seas["mare-aegaeum"] == {"greece": 2}


def test_3_0_build_events_read_as_sentences() -> None:
    """Every build event of a turn reads as a sentence in the log."""
    play = building(holding(greek_example(), "greece", {"coin": 16}), "greece")

    out = play.orders("greece", "build trireme in mare-aegaeum pay 3 coin", "build control in asia pay 3 coin",
                      "recruit hercules pay 7 coin", "done")

    lines = [said_to(e, "rome") for e in out]
    assert "Greece places a control marker in Asia, paying coin coin coin." in lines
    assert "Greece recruits Hercules (hero/wonder number 2), paying coin coin coin coin coin coin coin." in lines
    assert all(line.endswith(".") and not line.startswith(type(e).__name__) for line, e in zip(lines, out))


def _atlantis_first_game() -> Play:
    """A first game of the Atlantis set-up (six players, the Atlantis board joined), at its Build phase."""
    from mncore.core.dice import GENESIS_HASH, Rng, seeded_secret
    from mncore.rulesets.empires import atlas
    from mncore.rulesets.empires.board import load_board
    from mncore.rulesets.empires.commands import CreateGame
    from mncore.rulesets.empires.decide import create_game

    players = {e: e.title() for e in ("rome", "greece", "babylon", "egypt", "carthage", "atlantis")}
    cmd = CreateGame(board=atlas.board_for("atlantis", load_board()), players=players,  # type: ignore[arg-type]
                     display="first-game", fair_play=False, setup="atlantis")
    play = Play(seed="atlantis")
    play.given(*create_game(cmd, Rng(seeded_secret("atlantis"), GENESIS_HASH), "0" * 64))
    return play.given(ev.PhaseBegan(round=1, phase="build"))


def test_atlas_atlantis_the_display_is_refilled_to_six_after_a_build_phase() -> None:
    """6 PLAYER EXPANSION (ruling R53): "6 are placed face up", and set-up step 5 turns tiles up after each
    Build phase until as many show again: six with the Atlantis board, not the base game's five."""
    # given: a first Atlantis game whose display showed six tiles, two of them recruited this round
    play = _atlantis_first_game()
    up = [d.tile for d in play.state.display if d.face_up and d.tile != "pyramids"]
    down = [d.tile for d in play.state.display if not d.face_up]
    assert len(up) == 6
    gains(play, "rome", up[0])
    gains(play, "atlantis", up[1])
    every_empire_built(play)

    # when: the Build phase ends
    out = build.end(play.state, play.rng())

    # then: two face-down tiles are turned up, and six show again
    assert of_type(out, ev.TilesTurnedUp) == [ev.TilesTurnedUp(tiles=tuple(down[:2]))]
    play.given(*out)
    assert sum(1 for d in play.state.display if d.face_up and d.tile != "pyramids") == 6
