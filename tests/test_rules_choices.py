"""Choices the Empires texts give a hero's holder (issue 29): Ptolemy fights or refuses a sea battle
(10.ptolemy, ruling R212); Dido names the commodities she stores (10.dido, ruling R213)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mncore.core.errors import RuleViolation
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.defaults import default_orders, forced_orders
from mncore.rulesets.empires.flow import options as all_options
from mncore.rulesets.empires.flow import pending, rules_for
from mncore.rulesets.empires.text import describe, format_order, parse_order
from test_cases import Engine, load_case

CASES = Path(__file__).parent / "cases"


def _ptolemy() -> Engine:
    """Rome attacks Greece (Ptolemy's holder) in Mare Ionium: the attack waits for Greece's answer."""
    path = CASES / "10_ptolemy_refuses_sea_battles.toml"
    engine = Engine(load_case(path), path)
    engine.order("rome", "attack greece in mare-ionium")
    return engine


def _refusal(engine: Engine, empire: str, line: str) -> str:
    with pytest.raises(RuleViolation) as refused:
        engine.order(empire, line)
    return str(refused.value)


def test_10_ptolemy_the_attack_waits_for_the_holder_who_may_fight_or_refuse() -> None:
    """R212: Greece is waited for with two answers; the attack is in the log with no dice yet."""
    engine = _ptolemy()

    assert [(p.empire, p.kind, p.text) for p in pending(engine.state)] == [
        ("greece", "sea-battle", "Rome attacks your triremes in Mare Ionium: fight the sea battle or refuse "
                                 "it (Ptolemy: fight battle | refuse battle)")]
    assert [o.order for o in rules_for("move").options(engine.state, "greece")] == ["refuse battle", "fight battle"]
    assert describe(engine.events[-1], frozenset()) == (
        "Rome attacks Greece's triremes in Mare Ionium; Greece may fight or refuse the sea battle (Ptolemy).")


def test_10_ptolemy_an_overdue_answer_refuses_as_the_engine_did_before() -> None:
    """docs/defaults.md: the default is `refuse battle` (what R212 used to decide); it is no forced answer."""
    engine = _ptolemy()

    assert default_orders(engine.state, "greece") == ("refuse battle",)
    assert forced_orders(engine.state, "greece") is None


def test_10_ptolemy_refusals_name_who_answers_and_a_refused_sea_stays_closed() -> None:
    """R212: nobody plays on while the holder decides; another may not answer; a refused attack is not
    made again in that sea this turn."""
    engine = _ptolemy()

    assert _refusal(engine, "rome", "done") == (
        "Greece must first fight or refuse the attack in Mare Ionium (ruling R212) [rule 10.ptolemy]")
    assert _refusal(engine, "carthage", "fight battle") == (
        "Carthage has no attack at sea to fight or refuse [rule 10.ptolemy]")
    out = engine.order("greece", "refuse battle")
    assert describe(out[0], frozenset()) == "Greece refuses Rome's attack in Mare Ionium: no sea battle (Ptolemy)."
    assert _refusal(engine, "rome", "attack greece in mare-ionium") == (
        "Greece refused Rome's attack in Mare Ionium this turn (Ptolemy, ruling R212) [rule 10.ptolemy]")
    assert "attack greece in mare-ionium" not in [o.order for o in rules_for("move").options(engine.state, "rome")]


def test_10_ptolemy_fighting_rolls_the_battle_when_he_answers() -> None:
    """R212: `fight battle` rolls the battle then, on the order's rng; the losses follow as in 4.2."""
    engine = _ptolemy()

    out = engine.order("greece", "fight battle")

    assert [type(e).__name__ for e in out][:2] == ["SeaBattleAnswered", "BattleFought"]
    assert isinstance(out[1], ev.BattleFought) and out[1].kind == "sea"


@pytest.mark.parametrize("line", ["fight battle", "refuse battle"])
def test_10_ptolemy_the_answer_reads_and_writes_back(line: str) -> None:
    """The grammar: `fight battle`, `refuse battle`; anything more is refused with the usage."""
    engine = _ptolemy()

    assert format_order(parse_order(line, engine.state, "greece")) == line
    with pytest.raises(Exception) as bad:
        parse_order(line + " now", engine.state, "greece")
    assert str(bad.value) == "usage: fight battle | refuse battle   (Ptolemy's holder, attacked at sea)"


def _dido() -> Engine:
    """Build ends: Rome lost 2 wine and a grain, Carthage an oil; Greece holds Dido and is waited for."""
    path = CASES / "10_dido_takes_two_discarded_commodities.toml"
    engine = Engine(load_case(path), path)
    engine.order("carthage", "done")
    return engine


def test_10_dido_the_holder_is_waited_for_with_every_choice_the_old_one_first() -> None:
    """R213: Greece names up to two; its options list the most plentiful first (what the engine took
    before, and the default of an overdue answer), then the others, fewer, and none."""
    engine = _dido()

    options = [o.order for o in rules_for("move").options(engine.state, "greece")]

    assert [(p.empire, p.kind) for p in pending(engine.state)] == [("greece", "dido")]
    assert [o.order for o in all_options(engine.state, "greece")] == [
        "take wine wine", "take grain oil", "take grain wine", "take oil wine", "take grain", "take oil",
        "take wine", "take nothing"]
    assert options == []  # the phase's own options wait: Dido's choice comes first (ruling R200)
    assert default_orders(engine.state, "greece") == ("take wine wine",)
    assert forced_orders(engine.state, "greece") is None


def test_10_dido_refusals_say_how_many_and_what_was_lost() -> None:
    """R213: at most two, of what the opponents lost; another empire has nothing to take."""
    engine = _dido()

    assert _refusal(engine, "greece", "take wine grain oil") == (
        "Dido takes up to 2 commodities, not 3 [rule 10.dido]")
    assert _refusal(engine, "greece", "take oil oil") == (
        "the opponents lost 1 oil as Build ended, not 2 [rule 10.dido]")
    assert _refusal(engine, "rome", "take wine") == (
        "Rome has no commodities lost by opponents to take [rule 10.dido]")


def test_10_dido_what_was_lost_and_taken_is_the_holders_alone() -> None:
    """The pool and the choice are hidden from the other empires, as their discards are; taking
    nothing is a choice too, and the game goes on to Move and Battle."""
    from mncore.rulesets.empires.seam import RULESET
    engine = _dido()
    offered = next(e for e in engine.events if isinstance(e, ev.DiscardsOffered))

    out = engine.order("greece", "take nothing")

    assert describe(offered, frozenset()) == (
        "Greece may take up to 2 of the commodities the opponents lost (grain oil wine wine) with Dido.")
    assert describe(offered, frozenset({"payload/lost"})) == (
        "Greece may take up to 2 of the commodities the opponents lost with Dido.")
    assert [type(e).__name__ for e in out] == ["DiscardsTaken"]
    assert engine.state.cities is not None and engine.state.cities.discards == ()
    assert [p.kind for p in pending(engine.state)] == ["mover"]
    assert [(h.field, h.visible_to) for h in RULESET.hidden(offered)] == [("payload/lost", ("greece",))]
    assert [(h.field, h.visible_to) for h in RULESET.hidden_command(parse_order("take wine", engine.state, "greece"))] \
        == [("command/take", ("greece",))]
