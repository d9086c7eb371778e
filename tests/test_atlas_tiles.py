"""An owner's Atlantean hero (docs/tiles.md, ruling R54): a tile entry that combines existing effects."""

from __future__ import annotations

import importlib.resources

import msgspec
import pytest

from mncore.core.dice import GENESIS_HASH, Rng, seeded_secret
from mncore.core.protocol import NewGame
from mncore.rulesets.empires import tile_powers
from mncore.rulesets.empires.game_data import Ruleset, expansion_tiles, load_ruleset, validate_ruleset
from mncore.rulesets.empires.rules import payment, setup
from mncore.rulesets.empires.seam import RULESET
from mncore.rulesets.empires.state import EmpireState, GameState
from mncore.rulesets.empires.tile_powers import hooks

OWNER_TILE = b'''
[[tiles]]
id = "atlantean-2"
name = "Example Atlantean"
kind = "hero"
expansion = "atlantis"
phase = "build"
power = "Every die your legions roll counts two more while you are active; triremes cost you 2."
hooks = ["battle_bonus", "unit_cost"]
acts_as = { battle_bonus = "caesar" }
die_bonus = 2
unit_costs = { trireme = 2 }
'''


def _with(extra: bytes) -> Ruleset:
    shipped = importlib.resources.files("mncore.rulesets.empires").joinpath("data", "ruleset.toml").read_bytes()
    ruleset = msgspec.toml.decode(shipped + extra, type=Ruleset)
    # as load_ruleset does: the Legendary City expansions' tiles join the shipped ones
    return msgspec.structs.replace(ruleset, tiles=ruleset.tiles + expansion_tiles())


@pytest.fixture
def owned(monkeypatch: pytest.MonkeyPatch) -> Ruleset:
    """The shipped data with the owner's tile added, as every module that reads tiles here sees it."""
    ruleset = _with(OWNER_TILE)
    for module in (hooks, setup, payment):
        monkeypatch.setattr(module, "load_ruleset", lambda: ruleset)
    return ruleset


def test_atlas_owner_tile_fills_a_slot_and_validates() -> None:
    """The shipped data leave the Atlantean slots empty; an owner's entry in one of them validates."""
    assert not any(t.id.startswith("atlantean-") for t in load_ruleset().tiles)
    assert validate_ruleset(_with(OWNER_TILE)) == []


def test_atlas_owner_tile_may_act_only_as_a_tile_hooked_there() -> None:
    """acts_as names a tile with a power at that hook point, and one of the tile's own hooks."""
    wrong = OWNER_TILE.replace(b'acts_as = { battle_bonus = "caesar" }', b'acts_as = { battle_bonus = "pharos" }')
    unhooked = OWNER_TILE.replace(b'hooks = ["battle_bonus", "unit_cost"]', b'hooks = ["unit_cost"]')

    assert validate_ruleset(_with(wrong)) == ["tiles.atlantean-2.acts_as: pharos has no power at battle_bonus"]
    assert validate_ruleset(_with(unhooked)) == [
        "tiles.atlantean-2.acts_as: battle_bonus is not one of its hooks"]


def test_atlas_owner_tile_combines_caesars_bonus_with_its_numbers_and_atlas_trireme_price(
        owned: Ruleset) -> None:
    """Its holder gets Caesar's battle bonus with the tile's own +2 a die, and 2-resource triremes."""
    state = GameState(empires={"rome": EmpireState(player="Ann", tiles=("caesar", "atlantean-2"))})

    active = tile_powers.battle_bonus(state, tile_powers.Side("latium", "rome", True, 3))
    waiting = tile_powers.battle_bonus(state, tile_powers.Side("latium", "rome", False, 3))

    assert active == {"caesar": 3, "atlantean-2": 6} and waiting == {}
    assert payment.unit_cost(state, "rome", "trireme") == 2
    assert payment.unit_cost(state, "rome", "legion") == 3


def test_atlas_owner_tile_is_mixed_into_the_display_with_the_atlantis_board(owned: Ruleset) -> None:
    """An Atlantean tile is in play with the Atlantis board (ruling R53), not without it."""
    sides = ("rome", "greece", "babylon", "egypt", "carthage", "atlantis")
    six = RULESET.new_game(NewGame(sides=sides, options={"setup": "atlantis"}))
    three = RULESET.new_game(NewGame(sides=("rome", "greece", "carthage")))
    rng = Rng(seeded_secret("s"), GENESIS_HASH)

    assert "atlantean-2" in {d.tile for d in setup.display(six, rng)}
    assert "atlantean-2" not in {d.tile for d in setup.display(three, rng)}


def test_atlas_options_offer_triremes_for_two_resources() -> None:
    """Atlas: mn options offers Atlantis a trireme paid with 2 resources (its example's 2 coins)."""
    from pathlib import Path

    from test_cases import Engine, load_case

    path = Path(__file__).parent / "cases" / "atlas_atlas_two_triremes_for_two_resources_each.toml"
    engine = Engine(load_case(path), path)

    trireme = [o for o in RULESET.options(engine.state, "atlantis")
               if (o.template or "").startswith("build trireme")]

    assert [o.template for o in trireme] == ["build trireme in {sea} pay {payment}"]
    assert "coin coin" in trireme[0].parts["payment"]
    assert all(len(p.split()) == 2 for p in trireme[0].parts["payment"])
