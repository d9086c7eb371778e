"""mn explain: the order behind an event, the rules and rulings applied, and every figure."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from both import IDS, SPECS, Spec
from mncli.cli import main
from mncore.rulesets.empires.position import position_state, write_position
from mncore.rulesets.empires.seam import RULESET
from mncore.secrecy import boundary
from mncore.secrecy.boundary import as_host
from mncore.store import open_store

CYRENAICA = """
round = 2
phase = "move"
titles = { military = "rome" }
[step]
active = "rome"
stage = "land"
[empires.rome]
tiles = ["caesar"]
[empires.greece]
[empires.egypt]
tiles = ["cleopatra"]
[empires.carthage]
[empires.babylon]
[provinces.cyrenaica]
controller = "egypt"
buildings = ["caravan-papyrus", "market", "city"]
legions = { egypt = 1, rome = 3 }
fortress = "egypt"
"""


def explain(rows: Any, seq: int) -> Any:
    """The host's explanation of event seq, through the boundary as `mn explain` asks it."""
    return boundary.explain(RULESET, rows, seq, None, False)


def mn(db: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["--db", str(db), *args])


@pytest.fixture()
def battle(tmp_path: Path) -> tuple[Path, int]:
    """Rome's three legions with Caesar attack Egypt's legion and fortress in Cyrenaica (4.2)."""
    db, path = tmp_path / "mn.db", tmp_path / "p.toml"
    path.write_text(CYRENAICA)
    assert mn(db, "new", "--position", str(path), "--seed", "a", "--id", "c").exit_code == 0
    assert mn(db, "order", "c", "--as", "rome", "attack egypt in cyrenaica").exit_code == 0
    seq = next(r.seq for r in open_store(str(db)).rows("c") if r.type == "BattleFought")
    return db, seq


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    db = tmp_path_factory.mktemp("explain") / "mn.db"
    assert mn(db, "demo", "--players", "3", "--seed", "ex", "--max-orders", "120").exit_code == 0
    return db, open_store(str(db)).games()[0].id


def test_4_2_a_battle_is_explained_die_by_die_with_every_modifier(battle: tuple[Path, int]) -> None:
    """Caesar's +1 per die, the fortress's +5 and its negated hit, totals and hits, all shown."""
    db, seq = battle

    x = explain(open_store(str(db)).rows("c"), seq)

    assert x.command == "attack egypt in cyrenaica" and x.actor == "rome" and x.direct
    assert [c.id for c in x.sections] == ["4.2", "10.caesar"]
    rome, egypt = x.details[1], x.details[3]
    assert rome.startswith("Rome (attacker): 3 legion(s); dice ") and "+3 Caesar (10.caesar)" in rome
    assert egypt.startswith("Egypt (defender): 1 legion(s); dice ") and "+5 fortress (4.2)" in egypt
    assert x.details[2].startswith("  Egypt's fortress negates 1 of them (4.2)")


def test_4_2_losses_with_no_choice_are_said_to_be_forced(battle: tuple[Path, int]) -> None:
    """Rome, with legions only, has no choice: its losses are forced; Egypt chooses between its legion
    and its fortress (seed "a": Rome takes 2 hits, Egypt 1)."""
    db, seq = battle

    x = explain(open_store(str(db)).rows("c"), seq)

    assert "Rome must lose 2 unit(s): 2 legion(s), forced, Rome having no other choice (4.2)" in x.details
    assert "Egypt must lose 1 unit(s), chosen by Egypt (4.2)" in x.details


def test_r7_a_long_ruling_is_named_not_pasted_whole(tmp_path: Path) -> None:
    """A battle with fixed dice cites ruling R7 by its title and points to mn rules R7, without its
    whole decision."""
    db, path = tmp_path / "mn.db", tmp_path / "p.toml"
    path.write_text(CYRENAICA)
    assert mn(db, "new", "--position", str(path), "--seed", "a", "--id", "c").exit_code == 0
    assert mn(db, "order", "c", "--as", "rome", "attack egypt in cyrenaica dice rome=6,6,6 egypt=1").exit_code == 0
    seq = next(r.seq for r in open_store(str(db)).rows("c") if r.type == "BattleFought")

    shown = mn(db, "explain", "c", str(seq)).stdout

    assert "  R7                 Fixed outcomes only in sandboxes (the whole ruling: mn rules R7)" in shown
    assert "fix legendary COMMODITY" not in shown


def test_2_2_the_two_empire_stop_cites_ruling_r27(tmp_path: Path) -> None:
    """The Trade phase's end when the last two empires have claimed from each other applies 2.2 as
    ruling R27 reads it: explain cites both."""
    case_path = Path(__file__).parent / "cases" / "2_2_two_empires_left_stop_trading.toml"
    case = tomllib.loads(case_path.read_text())
    db, path = tmp_path / "mn.db", tmp_path / "p.toml"
    path.write_text(write_position(as_host(position_state(case["position"], str(case_path), case_path.parent))))
    assert mn(db, "new", "--position", str(path), "--id", "t").exit_code == 0
    for step in case["orders"]:
        mn(db, "order", "t", "--as", step["empire"], step["order"])
    seq = next(r.seq for r in open_store(str(db)).rows("t") if r.type == "TradingEnded")

    x = explain(open_store(str(db)).rows("t"), seq)

    assert [c.id for c in x.sections] == ["2.2"] and [c.id for c in x.rulings] == ["R27"]


def test_events_that_follow_an_order_name_that_order(battle: tuple[Path, int]) -> None:
    """The losses after the battle were caused by Rome's attack, not ordered separately."""
    db, seq = battle

    x = explain(open_store(str(db)).rows("c"), seq + 1)

    assert x.batch == seq and not x.direct and x.command == "attack egypt in cyrenaica"


def test_1_1_a_collection_lists_each_building_that_contributed(demo: tuple[Path, str]) -> None:
    """Each caravan, city and the doubling market or temple are listed (the event's sources)."""
    db, gid = demo
    rows = open_store(str(db)).rows(gid)
    seq = next(r.seq for r in rows if r.type == "ResourcesCollected")

    x = explain(rows, seq)

    assert [c.id for c in x.sections][:2] == ["1.1", "1.2"]
    assert any("doubled by the market" in d for d in x.details)


def test_5_0_a_title_shows_each_empires_level_and_its_composition(demo: tuple[Path, str]) -> None:
    """The levels recorded in the event, each with what makes it up, recounted before the event."""
    db, gid = demo
    rows = open_store(str(db)).rows(gid)
    seq = next(r.seq for r in rows if r.type == "TitleClaimed")

    x = explain(rows, seq)

    assert x.sections[0].id == "5.0"
    assert len([d for d in x.details if d.startswith("  ")]) == 3
    assert any("Caravan" in d or "Legion" in d or "Capital" in d for d in x.details)


def test_mn_explain_prints_the_cause_rules_and_details(battle: tuple[Path, int]) -> None:
    """The text form starts with the event's sentence and its cause."""
    db, seq = battle

    result = mn(db, "explain", "c", str(seq))

    lines = result.stdout.splitlines()
    assert result.exit_code == 0
    assert lines[0].startswith(f"Event {seq} (BattleFought): Land battle in Cyrenaica")
    assert lines[1] == f"Caused by: Rome: 'attack egypt in cyrenaica' (batch starting at event {seq}); the order's own event."
    assert "Rules applied:" in lines and "Details:" in lines


def test_mn_explain_refuses_an_event_beyond_the_log(battle: tuple[Path, int]) -> None:
    """A sequence number past the end is bad input."""
    db, _ = battle

    result = mn(db, "explain", "c", "999")

    assert result.exit_code == 2 and "no event 999" in result.stderr


# --- the same over every ruleset -------------------------------------------------------------------

@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_mn_explain_names_the_order_behind_an_event_in_every_ruleset(tmp_path: Path, spec: Spec) -> None:
    """The first order's event: its sentence, then who ordered what, in the same layout for each game."""
    db = tmp_path / "mn.db"
    mn(db, "new", *spec.new, "--seed", "orders", "--id", "g")
    mn(db, "order", "g", "--as", spec.side, spec.legal)
    seq = spec.last_made + 1

    lines = mn(db, "explain", "g", str(seq)).stdout.splitlines()

    assert lines[0] == f"Event {seq} ({spec.legal_type}): {spec.legal_line[7:]}"
    assert lines[1] == f"Caused by: Carthage: '{spec.legal}' (batch starting at event {seq}); the order's own event."
    assert "Rules applied:" in lines


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_mn_explain_refuses_an_event_beyond_the_log_in_every_ruleset(tmp_path: Path, spec: Spec) -> None:
    """A sequence number past the end is bad input, said the same way."""
    db = tmp_path / "mn.db"
    mn(db, "new", *spec.new, "--seed", "orders", "--id", "g")

    result = mn(db, "explain", "g", "999")

    assert result.exit_code == 2
    assert result.stderr == f"Error: no event 999: the log has events 1 to {spec.last_made}\n"
