"""Move and Battle (4.0, 4.1, 4.1.1, 4.1.2, 4.2.1, 11.statue-of-zeus, 6.3): turn order, movement, stages."""

from __future__ import annotations

import pytest

from mncore.core.dice import Rng, seeded_secret
from mncore.core.errors import RuleViolation
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.flow import pending
from mncore.rulesets.empires.ids import Empire, TileId
from mncore.rulesets.empires.rules import military
from support import FIVE, Play, new_game, of_type

# --- arranging positions from real events (build events before the phase begins, ours after) --------


def legions(empire: Empire, province: str, count: int = 1) -> ev.UnitBuilt:
    return ev.UnitBuilt(empire=empire, kind="legion", place=province, paid={}, count=count)


def triremes(empire: Empire, sea: str, count: int = 1) -> ev.UnitBuilt:
    return ev.UnitBuilt(empire=empire, kind="trireme", place=sea, paid={}, count=count)


def fortress(empire: Empire, province: str) -> ev.UnitBuilt:
    return ev.UnitBuilt(empire=empire, kind="fortress", place=province, paid={})


def control(empire: Empire, province: str) -> ev.ControlBuilt:
    return ev.ControlBuilt(empire=empire, province=province, paid={})


def building(empire: Empire, province: str, space: str, kind: str) -> ev.BuildingBuilt:
    return ev.BuildingBuilt(empire=empire, province=province, space=space, kind=kind,  # type: ignore[arg-type]
                            paid={})


def gains(empire: Empire, tile: TileId, copied: TileId | None = None) -> ev.TileGained:
    return ev.TileGained(empire=empire, tile=tile, paid={}, rank=2, copied=copied)


def lose(empire: Empire, place: str, legions: int = 0, fortress: bool = False,
         triremes: int = 0) -> ev.UnitsLost:
    return ev.UnitsLost(empire=empire, place=place, legions=legions, fortress=fortress,
                        triremes=triremes)


CARTHAGE_LEAVES_AFRICUM = ev.TriremesMoved(empire="carthage", from_sea="mare-africum",
                                           to_sea="mare-sardoum", count=1)


def move_phase(*arrange: ev.AnyEvent, players: dict[Empire, str] = FIVE, round: int = 1) -> Play:
    """A new game, arranged with the given events, at the start of the Move and Battle phase."""
    play = new_game(players)
    return play.given(*arrange, ev.PhaseBegan(round=round, phase="move"))


def example_1(*more: ev.AnyEvent) -> Play:
    """4.1.2 Example 1: 2 Roman legions in Italia, 1 in Creta, 2 triremes in Mare Ionium; an Egyptian
    trireme in Mare Africum; Egypt's legion and fortress in Cyrenaica (its set-up)."""
    return move_phase(legions("rome", "italia", 2), legions("rome", "creta"),
                      triremes("rome", "mare-ionium", 2), CARTHAGE_LEAVES_AFRICUM,
                      triremes("egypt", "mare-africum"), *more)


def seed_for(play: Play, rolls: tuple[int, ...]) -> str:
    """A seed under which the next order's rng rolls these land dice first (faces 1..6)."""
    for i in range(200_000):
        seed = f"dice-{i}"
        rng = Rng(seeded_secret(seed), f"{len(play.events):064d}")
        if all(rng.roll((1, 2, 3, 4, 5, 6)) == r for r in rolls):
            return seed
    raise AssertionError(f"no seed rolls {rolls}")


def with_dice(play: Play, *rolls: int) -> Play:
    """Make the next order's rng roll these dice, in the order the battle rolls them."""
    play.seed = seed_for(play, rolls)
    return play


def refused(play: Play, empire: Empire, line: str) -> RuleViolation:
    """The order is refused with a RuleViolation, and nothing is written."""
    before, count = play.state, len(play.events)
    with pytest.raises(RuleViolation) as info:
        play.order(empire, line)
    assert play.state == before and len(play.events) == count
    return info.value


def end_turns(play: Play, *empires: Empire) -> None:
    for emp in empires:
        play.order("rome", f"mover {emp}")
        play.order(emp, "done")


# --- 4.0 turn order -----------------------------------------------------------------------------------

def test_4_0_military_leader_names_each_active_empire() -> None:
    """The Military Leader (Rome at the start) names the next active empire, possibly himself."""
    play = move_phase()

    waiting = pending(play.state)
    play.order("rome", "mover greece")

    assert [(p.empire, p.kind) for p in waiting] == [("rome", "mover")]
    assert play.state.step.active == "greece"  # type: ignore[union-attr]


def test_4_0_only_the_military_leader_names_the_mover() -> None:
    """Another empire may not name the active empire."""
    play = move_phase()

    err = refused(play, "greece", "mover greece")

    assert err.section == "4.0"


def test_4_0_each_empire_has_one_turn() -> None:
    """An empire that has had its turn this round may not be named again."""
    play = move_phase()
    end_turns(play, "greece")

    err = refused(play, "rome", "mover greece")

    assert err.section == "4.0"


def test_4_0_phase_ends_when_every_empire_has_had_its_turn() -> None:
    """After the last empire's turn the phase closes and Claim Leadership begins."""
    play = move_phase()

    end_turns(play, "rome", "greece", "babylon", "egypt", "carthage")

    assert play.state.phase == "leadership"


def test_4_0_orders_only_from_the_active_empire() -> None:
    """Only the active empire moves."""
    play = move_phase()
    play.order("rome", "mover rome")

    err = refused(play, "greece", "move trireme mare-aegaeum to mare-ionium")

    assert err.section == "4.0"


# --- 4.1, 4.1.1, 4.1.2 movement -------------------------------------------------------------------------

def test_4_1_2_example_1_legions_are_transported_through_a_chain_of_triremes() -> None:
    """Example 1: a trireme to Mare Africum; 2 legions from Italia and 1 from Creta reach Cyrenaica by
    sea, without attacking the Egyptian trireme."""
    play = example_1()
    play.order("rome", "mover rome")

    play.order("rome", "move trireme mare-ionium to mare-africum")
    moved = play.orders("rome", "move 2 legions italia to cyrenaica", "move legion creta to cyrenaica")

    assert play.state.seas["mare-africum"] == {"egypt": 1, "rome": 1}
    assert [e.by_sea for e in of_type(moved, ev.LegionsMoved)] == [True, True]
    assert play.state.provinces["cyrenaica"].legions == {"egypt": 1, "rome": 3}


def test_4_1_1_trireme_moves_only_to_an_adjacent_sea() -> None:
    """Mare Tyrrhenum does not touch Mare Africum."""
    play = move_phase()
    play.order("rome", "mover rome")

    err = refused(play, "rome", "move trireme mare-tyrrhenum to mare-africum")

    assert err.section == "4.1.1"


def test_4_1_2_legion_moves_only_to_an_adjacent_or_adjoining_province() -> None:
    """Without triremes linking them, Latium cannot reach Cyrenaica."""
    play = move_phase()
    play.order("rome", "mover rome")

    err = refused(play, "rome", "move legion latium to cyrenaica")

    assert err.section == "4.1.2"


def test_4_1_legion_moves_to_an_adjacent_province() -> None:
    """Latium borders Gallia: a legion moves there by land."""
    play = move_phase()
    play.order("rome", "mover rome")

    moved = play.order("rome", "move legion latium to gallia")

    assert of_type(moved, ev.LegionsMoved)[0].by_sea is False
    assert play.state.provinces["gallia"].legions == {"rome": 1}


def test_4_1_a_legion_does_not_move_twice_in_a_turn() -> None:
    """A legion that moved to Gallia may not go on to Germania the same turn."""
    play = move_phase()
    play.order("rome", "mover rome")
    play.order("rome", "move legion latium to gallia")

    err = refused(play, "rome", "move legion gallia to germania")

    assert err.section == "4.1"


def test_4_1_a_trireme_does_not_move_twice_in_a_turn() -> None:
    """A trireme that moved to Mare Sardoum may not go on to Mare Africum the same turn."""
    play = move_phase()
    play.order("rome", "mover rome")
    play.order("rome", "move trireme mare-tyrrhenum to mare-sardoum")

    err = refused(play, "rome", "move trireme mare-sardoum to mare-africum")

    assert err.section == "4.1"


def test_4_1_triremes_move_before_legions() -> None:
    """Once a legion has moved, no trireme may move."""
    play = move_phase()
    play.order("rome", "mover rome")
    play.order("rome", "move legion latium to gallia")

    err = refused(play, "rome", "move trireme mare-tyrrhenum to mare-sardoum")

    assert err.section == "4.1"


def test_4_1_1_sea_battle_comes_before_any_legion_move() -> None:
    """Once a legion has moved, the active empire may no longer attack at sea."""
    play = example_1()
    play.order("rome", "mover rome")
    play.order("rome", "move trireme mare-ionium to mare-africum")
    play.order("rome", "move legion italia to latium")

    err = refused(play, "rome", "attack egypt in mare-africum")

    assert err.section == "4.1.1"


def test_4_1_1_sea_battle_is_optional() -> None:
    """Sharing a sea with an opponent's trireme, the active empire may end its turn without a battle."""
    play = example_1()
    play.order("rome", "mover rome")
    play.order("rome", "move trireme mare-ionium to mare-africum")

    play.order("rome", "done")

    assert "rome" in play.state.step.done  # type: ignore[union-attr]


def test_4_1_1_a_sunk_trireme_breaks_the_chain() -> None:
    """Rome's only trireme in Mare Africum is sunk at sea: its legions in Italia can no longer reach
    Cyrenaica (4.1.1 note)."""
    play = example_1()
    play.given(triremes("egypt", "mare-africum"))
    play.order("rome", "mover rome")
    play.order("rome", "move trireme mare-ionium to mare-africum")
    with_dice(play, 1, 3, 4)  # Rome rolls 1: no hit; Egypt rolls 3+4 = 7: one hit

    play.order("rome", "attack egypt in mare-africum")
    err = refused(play, "rome", "move legion italia to cyrenaica")

    assert "rome" not in play.state.seas["mare-africum"]
    assert err.section == "4.1.2"


def test_4_1_2_covered_provinces_cannot_be_entered() -> None:
    """With three players the Egyptian region is covered: Roman legions may not enter Cyrenaica."""
    play = move_phase(legions("rome", "italia"), triremes("rome", "mare-ionium"),
                      triremes("rome", "mare-africum"),
                      players={"rome": "Ann", "greece": "Ben", "carthage": "Cat"})
    play.order("rome", "mover rome")

    err = refused(play, "rome", "move legion italia to cyrenaica")

    assert err.section == "setup.players"


# --- 4.1.2 mandatory land battles, Example 2 ---------------------------------------------------------------

def babylon_in_cilicia() -> Play:
    """Example 2: Babylon's 2 legions and fortress in Cilicia with 2 Egyptian legions; an Egyptian
    fortress in Judea."""
    return move_phase(control("babylon", "cilicia"), legions("babylon", "cilicia", 2),
                      fortress("babylon", "cilicia"), legions("egypt", "cilicia", 2),
                      control("egypt", "judea"), fortress("egypt", "judea"))


def test_4_1_2_example_2_legions_leave_and_the_fortress_fights_alone() -> None:
    """Babylon moves both legions to Judea: it must battle in Judea and, with its fortress alone, in
    Cilicia."""
    play = babylon_in_cilicia()
    play.order("rome", "mover babylon")

    play.order("babylon", "move 2 legions cilicia to judea")

    assert military.required_battles(play.state) == ["cilicia", "judea"]


def test_4_1_2_example_2_one_legion_to_asia_leaves_one_battle() -> None:
    """Babylon moves one legion into Asia: only Cilicia must see a battle."""
    play = babylon_in_cilicia()
    play.order("rome", "mover babylon")

    play.order("babylon", "move legion cilicia to asia")

    assert military.required_battles(play.state) == ["cilicia"]


def test_4_1_2_example_2_staying_put_still_fights() -> None:
    """Babylon moves nothing: it must still battle the Egyptians in Cilicia before ending its turn."""
    play = babylon_in_cilicia()
    play.order("rome", "mover babylon")

    err = refused(play, "babylon", "done")

    assert err.section == "4.1.2"
    assert "Cilicia" in err.reason


def test_9_0_several_opponents_choose_one_and_battle_once() -> None:
    """Q&A: entering a province at war between Egypt and Greece, Rome chooses one opponent; no second
    battle there this turn."""
    play = move_phase(legions("rome", "italia", 3), triremes("rome", "mare-ionium"),
                      triremes("rome", "mare-africum"), legions("greece", "cyrenaica", 2))
    play.order("rome", "mover rome")
    play.order("rome", "move 3 legions italia to cyrenaica")
    with_dice(play, 1, 1, 1, 1, 1)

    fought = play.order("rome", "attack greece in cyrenaica")
    err = refused(play, "rome", "attack egypt in cyrenaica")

    assert of_type(fought, ev.BattleFought)[0].defender.empire == "greece"
    assert err.section == "9.0"
    play.order("rome", "done")


def test_4_1_2_first_land_battle_closes_movement() -> None:
    """After a land battle, no legion moves this turn."""
    play = babylon_in_cilicia()
    play.order("rome", "mover babylon")
    with_dice(play, 1, 1, 1, 1)
    play.order("babylon", "attack egypt in cilicia")

    err = refused(play, "babylon", "move legion cilicia to asia")

    assert err.section == "4.1.2"


# --- 4.2.1 at war -----------------------------------------------------------------------------------------

def test_4_2_1_both_sides_remaining_leave_the_province_at_war() -> None:
    """No hits on either side: Cilicia is at war, and a later mover may fight there."""
    play = babylon_in_cilicia()
    play.order("rome", "mover babylon")
    with_dice(play, 1, 1, 1, 1)  # Babylon 2 + 5 (fortress) = 7: one hit; Egypt 2: none

    play.order("babylon", "attack egypt in cilicia")

    assert play.state.provinces["cilicia"].legions == {"babylon": 2, "egypt": 1}
    assert military.at_war(play.state, "cilicia")
    play.order("babylon", "done")
    play.order("rome", "mover egypt")
    assert military.required_battles(play.state) == ["cilicia"]


# --- 11.statue-of-zeus ------------------------------------------------------------------------------------

def zeus_for_greece(*more: ev.AnyEvent) -> Play:
    return move_phase(gains("greece", "statue-of-zeus"), legions("rome", "macedonia", 2), *more)


def test_11_statue_of_zeus_peace_comes_first() -> None:
    """The holder decides on peace before the Military Leader names anyone."""
    play = zeus_for_greece()

    waiting = pending(play.state)
    err = refused(play, "rome", "mover rome")

    assert [(p.empire, p.kind) for p in waiting] == [("greece", "peace")]
    assert err.section == "11.statue-of-zeus"


def test_11_statue_of_zeus_peace_sends_legions_home() -> None:
    """Peace with Rome: its legions in Greek provinces return to Latium, Rome's capital province."""
    play = zeus_for_greece()

    play.order("greece", "peace with rome")

    assert "rome" not in play.state.provinces["macedonia"].legions
    assert play.state.provinces["latium"].legions["rome"] == 3


def test_11_statue_of_zeus_peace_forbids_entering_each_others_provinces() -> None:
    """At peace, Rome may not move into a province Greece controls."""
    play = zeus_for_greece(legions("rome", "dalmatia"))
    play.order("greece", "peace with rome")
    play.order("rome", "mover rome")

    err = refused(play, "rome", "move legion dalmatia to macedonia")

    assert err.section == "11.statue-of-zeus"


def test_11_statue_of_zeus_peace_forbids_battle() -> None:
    """At peace, Greek and Roman legions share Dacia without a battle."""
    play = zeus_for_greece(legions("rome", "dacia"), legions("greece", "dacia"))
    play.order("greece", "peace with rome")
    play.order("rome", "mover rome")

    err = refused(play, "rome", "attack greece in dacia")
    play.order("rome", "done")

    assert err.section == "11.statue-of-zeus"


def test_11_statue_of_zeus_never_the_same_opponent_two_rounds_running() -> None:
    """Peace with Rome last round: not again this round."""
    play = zeus_for_greece()
    play.order("greece", "peace with rome")
    play.given(ev.PhaseBegan(round=2, phase="collect"), ev.PhaseBegan(round=2, phase="move"))

    err = refused(play, "greece", "peace with rome")
    play.order("greece", "peace with egypt")

    assert err.section == "11.statue-of-zeus"


def test_11_statue_of_zeus_no_peace() -> None:
    """The holder may decline; turns then begin."""
    play = zeus_for_greece()

    play.order("greece", "no peace")

    assert [p.kind for p in pending(play.state)] == ["mover"]


# --- 6.3 -------------------------------------------------------------------------------------------------

def great_cities_for(empire: Empire) -> list[ev.AnyEvent]:
    """Control of Asia, Judea and Sicilia with their legendary cities: with a capital, four."""
    return [e for pid, space in (("asia", "troia"), ("judea", "ierusalem"), ("sicilia", "syracusae"))
            for e in (control(empire, pid), building(empire, pid, space, "legendary"))]


def test_6_3_four_great_cities_at_the_end_of_move_and_battle_win() -> None:
    """Rome holds Roma, Troia, Ierusalem and Syracusae when the phase ends: it wins."""
    play = move_phase(*great_cities_for("rome"))

    end_turns(play, "rome", "greece", "babylon", "egypt", "carthage")

    assert play.state.winner is not None
    assert play.state.winner.empires == ("rome",) and play.state.winner.condition == "6.3"


def occupies(empire: Empire, province: str, space: str) -> ev.BuildingsOccupied:
    return ev.BuildingsOccupied(empire=empire, province=province, spaces=(space,))


def test_6_3_occupied_cities_count() -> None:
    """Roma, Troia and Ierusalem controlled and Athenae occupied make four (4.3.2 note)."""
    play = move_phase(*great_cities_for("rome")[:4])
    play.given(occupies("rome", "achaea", "athenae"))

    won = military.end(play.state, Rng(None, "0" * 64))

    assert [(w.empires, w.condition) for w in won] == [(("rome",), "6.3")]


def test_6_3_three_great_cities_do_not_win() -> None:
    """Roma, Troia and Ierusalem are only three: the game goes on."""
    play = move_phase(*great_cities_for("rome")[:4])

    won = military.end(play.state, Rng(None, "0" * 64))

    assert won == []


def test_6_3_several_at_once_the_military_leader_wins() -> None:
    """Rome (Military Leader) and Greece both hold four: Rome wins alone (ruling R45)."""
    play = move_phase(*great_cities_for("rome"))
    play.given(occupies("greece", "aegyptus", "alexandria"), occupies("greece", "babylonia", "babylon"),
               occupies("greece", "africa", "carthago"))

    won = military.end(play.state, Rng(None, "0" * 64))

    assert [w.empires for w in won] == [("rome",)]


def test_6_3_several_without_the_military_leader_share_the_win() -> None:
    """Greece and Egypt hold four each, Rome (Military Leader) does not: they share the win (R45)."""
    play = move_phase(control("greece", "asia"), building("greece", "asia", "troia", "legendary"),
                      control("greece", "judea"), building("greece", "judea", "ierusalem", "legendary"),
                      control("egypt", "sicilia"),
                      building("egypt", "sicilia", "syracusae", "legendary"))
    play.given(occupies("greece", "latium", "roma"), occupies("egypt", "babylonia", "babylon"),
               occupies("egypt", "africa", "carthago"))

    won = military.end(play.state, Rng(None, "0" * 64))

    assert [w.empires for w in won] == [("greece", "egypt")]
