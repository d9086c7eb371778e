"""Battles (4.2): the one roll, modifiers and their sources, fortress, hits and chosen losses; hero powers."""

from __future__ import annotations

from mncore.core.dice import Rng, seeded_secret
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.flow import pending
from mncore.rulesets.empires.rules.battle import resolve_battle, roll_battle
from support import Play, of_type
from test_rules_military import (
    babylon_in_cilicia,
    control,
    example_1,
    fortress,
    gains,
    legions,
    move_phase,
    refused,
    with_dice,
)


def example_1_in_cyrenaica(*more: ev.AnyEvent) -> Play:
    """Example 1 after its moves: 3 Roman legions in Cyrenaica against Egypt's legion and fortress."""
    play = example_1(*more)
    play.order("rome", "mover rome")
    play.orders("rome", "move trireme mare-ionium to mare-africum", "move 2 legions italia to cyrenaica",
                "move legion creta to cyrenaica")
    return play


def test_4_2_example_1_arithmetic_three_hits_to_one() -> None:
    """V, IV, III with Caesar's +1 per die make 15: 3 hits, one negated by the fortress; Egypt's III
    plus its fortress's 5 make 8: 1 hit."""
    play = example_1_in_cyrenaica()

    fought = resolve_battle(play.state, "cyrenaica", "rome", "egypt", {"rome": (5, 4, 3), "egypt": (3,)})

    assert fought.attacker.modifiers == {"caesar": 3}
    assert (fought.attacker.total, fought.attacker.scored, fought.attacker.negated) == (15, 3, 1)
    assert fought.defender.modifiers == {"fortress": 5}
    assert (fought.defender.total, fought.defender.hits) == (8, 1)
    assert fought.losses == {"rome": 1, "egypt": 2}


def test_4_2_example_1_through_the_engine() -> None:
    """With the rulebook's dice the Egyptians lose their legion and fortress, Rome one legion."""
    play = with_dice(example_1_in_cyrenaica(), 5, 4, 3, 3)

    out = play.order("rome", "attack egypt in cyrenaica")

    assert of_type(out, ev.BattleFought)[0].attacker.dice == (5, 4, 3)
    assert {(e.empire, e.legions, e.fortress) for e in of_type(out, ev.UnitsLost)} == {
        ("rome", 1, False), ("egypt", 1, True)}
    cyrenaica = play.state.provinces["cyrenaica"]
    assert cyrenaica.legions == {"rome": 2} and cyrenaica.fortress is None


def test_4_2_decide_draws_the_dice_from_the_rng() -> None:
    """The dice recorded are those the order's rng rolls: attacker's first, one per legion."""
    play = example_1_in_cyrenaica()
    rng = Rng(seeded_secret(play.seed), f"{len(play.events):064d}")
    expected = tuple(rng.roll((1, 2, 3, 4, 5, 6)) for _ in range(4))

    out = play.order("rome", "attack egypt in cyrenaica")

    fought = of_type(out, ev.BattleFought)[0]
    assert fought.attacker.dice + fought.defender.dice == expected


def test_4_2_roll_battle_accepts_fixed_dice() -> None:
    """Sandboxes may fix the dice: the arithmetic is the same as with rolled ones."""
    play = example_1_in_cyrenaica()

    fought = roll_battle(play.state, "cyrenaica", "rome", "egypt", Rng(None, "0" * 64),
                         fixed={"rome": (5, 4, 3), "egypt": (3,)})

    assert fought.losses == {"rome": 1, "egypt": 2}


def test_4_2_owner_chooses_losses_when_it_has_a_choice() -> None:
    """One hit on two legions and a fortress: Babylon chooses, and the game waits for it."""
    play = babylon_in_cilicia()
    play.order("rome", "mover babylon")
    with_dice(play, 1, 1, 5, 5)  # Babylon 2 + 5 = 7: one hit; Egypt 10: two, one negated

    play.order("babylon", "attack egypt in cilicia")
    waiting = [(p.empire, p.kind) for p in pending(play.state)]
    play.order("babylon", "lose fortress in cilicia")

    assert waiting == [("babylon", "losses")]
    assert play.state.provinces["cilicia"].fortress is None
    assert play.state.provinces["cilicia"].legions["babylon"] == 2


def test_4_2_losses_must_match_the_hits() -> None:
    """Two units for one hit are refused, and nothing changes."""
    play = babylon_in_cilicia()
    play.order("rome", "mover babylon")
    with_dice(play, 1, 1, 5, 5)
    play.order("babylon", "attack egypt in cilicia")

    err = refused(play, "babylon", "lose legion fortress in cilicia")

    assert err.section == "4.2"


def test_4_2_nothing_else_before_losses_are_chosen() -> None:
    """The active empire may not end its turn while losses are open."""
    play = babylon_in_cilicia()
    play.order("rome", "mover babylon")
    with_dice(play, 1, 1, 5, 5)
    play.order("babylon", "attack egypt in cilicia")

    err = refused(play, "babylon", "done")

    assert err.section == "4.2"


def test_4_2_fortress_alone_fights_with_five() -> None:
    """A fortress alone rolls no die but adds 5: one hit, and it negates one hit against it."""
    play = move_phase(control("babylon", "cilicia"), fortress("babylon", "cilicia"),
                      legions("egypt", "cilicia", 2))

    fought = resolve_battle(play.state, "cilicia", "babylon", "egypt", {"babylon": (), "egypt": (5, 5)})

    assert (fought.attacker.total, fought.attacker.hits) == (5, 1)
    assert (fought.defender.scored, fought.defender.hits) == (2, 1)


def test_4_2_sea_battles_use_triremes_only() -> None:
    """At sea each trireme rolls one die; no hero bonus (Caesar's is for legions, R42)."""
    play = example_1()
    play.order("rome", "mover rome")
    play.order("rome", "move trireme mare-ionium to mare-africum")

    fought = resolve_battle(play.state, "mare-africum", "rome", "egypt", {"rome": (5,), "egypt": (4,)})

    assert fought.kind == "sea" and fought.attacker.modifiers == {}
    assert fought.losses == {"rome": 0, "egypt": 1}


def test_10_caesar_only_when_active() -> None:
    """Defending, Caesar's legions get no bonus."""
    play = move_phase(legions("egypt", "latium", 2))

    fought = resolve_battle(play.state, "latium", "egypt", "rome", {"egypt": (1, 1), "rome": (4,)})

    assert fought.defender.modifiers == {"fortress": 5}


def test_10_pericles_adds_two_per_die_when_not_active() -> None:
    """Greek legions defending Achaea add 2 per die with Pericles, plus the fortress's 5."""
    play = move_phase(legions("rome", "achaea", 2))

    fought = resolve_battle(play.state, "achaea", "rome", "greece", {"rome": (1, 1), "greece": (1,)})

    assert fought.defender.modifiers == {"pericles": 2, "fortress": 5}
    assert fought.defender.total == 8


def test_10_pericles_not_when_active() -> None:
    """Attacking, Pericles gives nothing."""
    play = move_phase(legions("rome", "dacia"), legions("greece", "dacia"))

    fought = resolve_battle(play.state, "dacia", "greece", "rome", {"greece": (3,), "rome": (3,)})

    assert fought.attacker.modifiers == {}


def test_10_nebuchadnezzar_adds_five_in_a_province_he_controls() -> None:
    """Babylon with Nebuchadnezzar defending Cilicia, which it controls, adds 5."""
    play = move_phase(gains("babylon", "nebuchadnezzar"), control("babylon", "cilicia"),
                      legions("babylon", "cilicia"), legions("egypt", "cilicia"))

    fought = resolve_battle(play.state, "cilicia", "egypt", "babylon", {"egypt": (3,), "babylon": (1,)})

    assert fought.defender.modifiers == {"nebuchadnezzar": 5}


def test_10_nebuchadnezzar_not_outside_his_provinces() -> None:
    """In a province Babylon does not control, no bonus."""
    play = move_phase(gains("babylon", "nebuchadnezzar"), legions("babylon", "dacia"),
                      legions("greece", "dacia"))

    fought = resolve_battle(play.state, "dacia", "greece", "babylon", {"greece": (3,), "babylon": (1,)})

    assert fought.defender.modifiers == {}


def test_10_ramses_rolls_one_more_die_on_land() -> None:
    """Egypt with Ramses II rolls two dice for one legion, and the engine draws them."""
    play = move_phase(gains("egypt", "ramses"), legions("rome", "dacia"), legions("egypt", "dacia"))
    play.order("rome", "mover rome")

    out = play.order("rome", "attack egypt in dacia")

    fought = of_type(out, ev.BattleFought)[0]
    assert len(fought.defender.dice) == 2 and fought.defender.extra_dice == {"ramses": 1}


def test_10_castor_pollux_copies_a_battle_power() -> None:
    """Carthage copying Caesar with Castor & Pollux adds 1 per die when active."""
    play = move_phase(gains("carthage", "castor-pollux", copied="caesar"), legions("carthage", "dacia"),
                      legions("greece", "dacia"))

    fought = resolve_battle(play.state, "dacia", "carthage", "greece", {"carthage": (3,), "greece": (3,)})

    assert fought.attacker.modifiers == {"caesar": 1}
