"""Heroes' and wonders' powers as hooks: the points where the rules ask, and each tile's code."""

from __future__ import annotations

from mncore.rulesets.empires.powers import heroes, wonders  # registers their powers
from mncore.rulesets.empires.powers.points import (FUNCTION_POINTS, PillageYield, SetRules, Side,
                                                   battle_bonus, caravan_legions, extra_dice, income,
                                                   pillage, set_rules)
from mncore.rulesets.empires.powers.registry import (Point, has_at, holders_at, ids_at, names_at, power,
                                                     powers_of)

__all__ = ["FUNCTION_POINTS", "PillageYield", "Point", "SetRules", "Side", "battle_bonus",
           "caravan_legions", "extra_dice", "has_at", "heroes", "holders_at", "ids_at", "income",
           "names_at", "pillage", "power", "powers_of", "set_rules", "wonders"]
