"""Heroes' and wonders' powers as hooks: the points where the rules ask, and each tile's code."""

from __future__ import annotations

from mncore.rulesets.empires.tile_powers import cities, heroes, wonders  # registers their powers
from mncore.rulesets.empires.tile_powers.cities import TILE_DISCOUNT, tile_discount
from mncore.rulesets.empires.tile_powers.hooks import Point, has_at, holders_at, ids_at, names_at, power, powers_of
from mncore.rulesets.empires.tile_powers.points import FUNCTION_POINTS as BASE_POINTS
from mncore.rulesets.empires.tile_powers.points import (
                                                   PillageYield,
                                                   SetRules,
                                                   Side,
                                                   battle_bonus,
                                                   caravan_legions,
                                                   extra_dice,
                                                   income,
                                                   pillage,
                                                   set_rules,
)

FUNCTION_POINTS = (*BASE_POINTS, TILE_DISCOUNT)

__all__ = ["FUNCTION_POINTS", "PillageYield", "Point", "SetRules", "Side", "battle_bonus",
           "caravan_legions", "cities", "extra_dice", "has_at", "heroes", "holders_at", "ids_at", "income",
           "names_at", "pillage", "power", "powers_of", "set_rules", "tile_discount", "wonders"]
