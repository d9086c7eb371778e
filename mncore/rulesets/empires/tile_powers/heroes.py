"""The heroes' powers that need code, one section a hero (chapter 10); the others are data only."""

from __future__ import annotations

from mncore.rulesets.empires.board import Province
from mncore.rulesets.empires.display_names import title
from mncore.rulesets.empires.game_data import Tile
from mncore.rulesets.empires.ids import BuildingKind, Empire, ProvinceId
from mncore.rulesets.empires.state import Bag, GameState, ProvinceState, bag_add
from mncore.rulesets.empires.tile_powers.hooks import power
from mncore.rulesets.empires.tile_powers.points import (
    BATTLE_BONUS,
    CARAVAN_LEGIONS,
    EXTRA_DICE,
    PAYMENT_SET,
    PILLAGE,
    Income,
    PillageYield,
    SetRules,
    Side,
)

# Hammurabi (free_control), Castor & Pollux (copy_hero), Penthesilea (free_legions), Gilgamesh and
# Spartacus (cheap_unit), Perseus (build_first), the Queen of Sheba (convert_at_once) and Antigone
# (any_offer) only need to be found at their hook point: the rule there is written once for any tile.

# The heroes' bonus is per legion die (ruling R42): an extra die (Ramses) is not a legion's.


@power("caesar", on=BATTLE_BONUS)
def caesar(state: GameState, side: Side, tile: Tile) -> int:
    """10.caesar: while active, every legion die counts more."""
    return tile.die_bonus * side.legions if side.active else 0


@power("pericles", on=BATTLE_BONUS)
def pericles(state: GameState, side: Side, tile: Tile) -> int:
    """10.pericles: while another empire is active, every legion die counts more."""
    return 0 if side.active else tile.die_bonus * side.legions


@power("nebuchadnezzar", on=BATTLE_BONUS)
def nebuchadnezzar(state: GameState, side: Side, tile: Tile) -> int:
    """10.nebuchadnezzar: more on the total in a province the empire controls."""
    return tile.total_bonus if state.provinces[side.place].controller == side.empire else 0


@power("ramses", on=EXTRA_DICE)
def ramses(state: GameState, place: ProvinceId, empire: Empire, tile: Tile) -> int:
    """10.ramses: extra dice in every land battle."""
    return tile.extra_dice


@power("cleopatra", on=PAYMENT_SET)
def cleopatra(rules: SetRules, tile: Tile) -> SetRules:
    """10.cleopatra: one coin may stand in for one commodity in a set, or the reverse."""
    return rules._replace(coin_swap=True)


@power("hannibal", on=PAYMENT_SET)
def hannibal(rules: SetRules, tile: Tile) -> SetRules:
    """10.hannibal: a commodity set may hold one type twice."""
    return rules._replace(one_type_twice=True)


@power("circe", on=CARAVAN_LEGIONS)
def circe(state: GameState, province: Province, ps: ProvinceState, empire: Empire, market: bool,
          tile: Tile) -> Income:
    """10.circe: legions on empty caravan spaces collect as caravans."""
    gained: Bag = {}
    sources: list[str] = []
    if ps.legions.get(empire, 0) <= 0:
        return gained, sources
    spaces = {s.id: s for s in province.spaces}
    for sid, owner in sorted(ps.circe.items()):
        commodity = spaces[sid].commodity if sid in spaces else None
        if owner != empire or sid in ps.buildings or commodity is None:
            continue
        # a legion acting as a caravan is doubled by a market like a caravan (ruling R21)
        n = 2 if market else 1
        gained = bag_add(gained, {commodity: n})
        sources.append(f"{province.name}, {title(sid)}: {n} {commodity} ({tile.name}'s legion)"
                       + (" (doubled by the market)" if market else ""))
    return gained, sources


@power("hamilcar", on=PILLAGE)
def hamilcar(kind: BuildingKind, tile: Tile) -> PillageYield:
    """10.hamilcar: pillage pays double; a legendary city pays a coin and a legendary commodity."""
    times = tile.pillage_times
    if kind in ("city", "capital"):
        return PillageYield(coins=times)
    if kind == "caravan":
        return PillageYield(commodities=times)
    if kind == "legendary":
        return PillageYield(coins=1, legendaries=1)
    return PillageYield()

