"""The wonders' powers that need code, one section a wonder (chapter 11); the others are data only."""

from __future__ import annotations

from mncore.rulesets.empires.game_data import Tile
from mncore.rulesets.empires.ids import COIN, Empire
from mncore.rulesets.empires.state import GameState
from mncore.rulesets.empires.tile_powers.hooks import power
from mncore.rulesets.empires.tile_powers.points import INCOME, Income

# The Colossus of Rhodes (commodity_after_collect), the Hanging Gardens (keep_commodities), the
# Lighthouse of Pharos (cheap_unit) and the Statue of Zeus (peace) only need to be found at their hook
# point: the rule there is written once for any tile.


@power("temple-of-artemis", on=INCOME)
def temple_of_artemis(state: GameState, empire: Empire, tile: Tile) -> Income:
    """11.temple-of-artemis: more coins every round."""
    return {COIN: tile.coins}, [f"{tile.name}: {tile.coins} coin"]
