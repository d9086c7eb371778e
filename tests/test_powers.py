"""Heroes' and wonders' powers as hooks: data and registered code agree, and the rules name no tile."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

import msgspec
import pytest

from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires import tile_powers
from mncore.rulesets.empires.game_data import HOOK_POINTS, load_ruleset, tiles_at, validate_ruleset
from mncore.rulesets.empires.ids import TILE_IDS
from mncore.rulesets.empires.rules import battle
from support import new_game

EMPIRES_PKG = Path(__file__).resolve().parent.parent / "mncore" / "rulesets" / "empires"
FUNCTION_POINTS = {p.name: p for p in tile_powers.FUNCTION_POINTS}


def test_every_function_point_calls_exactly_the_tiles_the_data_hooks_there() -> None:
    """A tile hooked at a point where code is called has its function there, and only those do."""
    rs = load_ruleset()

    mismatched = {name: (sorted(p.functions), sorted(t.id for t in tiles_at(rs, name)))
                  for name, p in FUNCTION_POINTS.items()
                  if sorted(p.functions) != sorted(t.id for t in tiles_at(rs, name))}

    assert mismatched == {}


def test_every_registered_power_is_a_tile_of_the_data() -> None:
    """No function is registered under an id the ruleset does not have."""
    known = {t.id for t in load_ruleset().tiles}

    registered = {tile for p in tile_powers.FUNCTION_POINTS for tile in p.functions}

    assert registered <= known
    assert registered


def test_points_that_only_ask_who_holds_a_power_have_no_code() -> None:
    """Every hook point is either a function point or a holder query, and each is used by a tile."""
    rs = load_ruleset()

    asked_only = [h for h in HOOK_POINTS if h not in FUNCTION_POINTS]

    assert set(FUNCTION_POINTS) <= set(HOOK_POINTS)
    assert all(tiles_at(rs, h) for h in HOOK_POINTS)
    assert asked_only


def test_every_tile_whose_power_acts_is_hooked_somewhere() -> None:
    """A hero or wonder that acts in a phase is asked at some hook point; Hercules only adds his bonus."""
    unhooked = [t.id for t in load_ruleset().tiles if t.kind != "pyramids" and t.phase and not t.hooks]

    assert unhooked == []


def _tile_ids_named(path: Path) -> list[str]:
    """Tile ids a module tests against: in comparisons, match cases, or as a call's argument."""
    found: list[ast.Constant] = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if not any(isinstance(s, ast.Attribute) and s.attr == "kind" for s in sides):
                found += [c for s in sides for c in ast.walk(s) if isinstance(c, ast.Constant)]
        elif isinstance(node, ast.MatchValue) and isinstance(node.value, ast.Constant):
            found.append(node.value)
        elif isinstance(node, ast.Call):
            found += [a for a in node.args if isinstance(a, ast.Constant)]
    return [f"{path.name}:{c.lineno}: {c.value}" for c in found if c.value in TILE_IDS]


@pytest.mark.parametrize("path", sorted((EMPIRES_PKG / "rules").glob("*.py")), ids=lambda p: p.name)
def test_no_rule_module_names_a_tile(path: Path) -> None:
    """No branch on a tile id outside the powers' code: the rules ask hook points instead.

    The order grammar's verbs (perseus, colossus) and the option kinds are words, not branches.
    """

    named = _tile_ids_named(path)

    assert named == []


def test_the_reducer_names_no_tile() -> None:
    """evolve reads what a power did from the event and the data (the Queen of Sheba's once a round)."""
    tree = ast.parse((EMPIRES_PKG / "evolve.py").read_text())

    named = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and n.value in TILE_IDS]

    assert named == []


def test_a_power_is_registered_once_at_a_point() -> None:
    """Registering a second function for the same tile at the same point fails loudly."""
    point: tile_powers.Point[Callable[[], None]] = tile_powers.Point("battle_bonus")
    tile_powers.power("caesar", on=point)(lambda: None)

    with pytest.raises(ValueError, match="caesar already has a power at battle_bonus"):
        tile_powers.power("caesar", on=point)(lambda: None)


def test_a_copied_hero_power_is_called_for_the_copier() -> None:
    """Castor & Pollux copying Ramses roll his extra die: hooks follow has_power (10.castor-pollux)."""
    play = new_game().given(ev.TileGained(empire="rome", tile="castor-pollux", paid={}, rank=2,
                                          copied="ramses"))

    _, extra = battle.dice_count(play.state, "latium", "rome")

    assert extra == {"ramses": 1}


def test_the_ruleset_refuses_numbers_that_do_not_fit() -> None:
    """tiles_to_win must match the tile costs, and a cheap unit needs its hook (validation)."""
    rs = load_ruleset()
    spartacus = next(t for t in rs.tiles if t.id == "spartacus")
    bad = msgspec.structs.replace(
        rs, numbers=msgspec.structs.replace(rs.numbers, tiles_to_win=6),
        tiles=tuple(msgspec.structs.replace(t, hooks=()) if t is spartacus else t for t in rs.tiles))

    problems = validate_ruleset(bad)

    assert validate_ruleset(rs) == []
    assert any("tiles_to_win" in p for p in problems)
    assert any("spartacus" in p and "cheap" in p for p in problems)
