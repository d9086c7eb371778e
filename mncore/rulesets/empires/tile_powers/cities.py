"""The Legendary City expansions' powers that the rules call as code (the others are holder queries)."""

from __future__ import annotations

from collections.abc import Callable

from mncore.rulesets.empires.game_data import Tile
from mncore.rulesets.empires.ids import Empire
from mncore.rulesets.empires.state import GameState
from mncore.rulesets.empires.tile_powers.hooks import Point, calls, power
from mncore.rulesets.empires.tile_powers.points import INCOME, Income

# What a power takes off the price of a hero, a wonder or the Pyramids (3.1.3).
TileDiscount = Callable[[GameState, Empire, Tile, Tile], int]
TILE_DISCOUNT: Point[TileDiscount] = Point("tile_discount")


@power("imhotep", on=TILE_DISCOUNT)
def _imhotep(state: GameState, empire: Empire, target: Tile, t: Tile) -> int:
    """Wonders and the Pyramids, not heroes, cost 1 resource less (10.imhotep)."""
    return 1 if target.kind in ("wonder", "pyramids") else 0


def tile_discount(state: GameState, empire: Empire, target: Tile) -> dict[str, int]:
    """What the empire's powers take off the target tile's price, by tile."""
    found = {t.id: fn(state, empire, target, t) for t, fn in calls(state, empire, TILE_DISCOUNT)}
    return {k: n for k, n in found.items() if n}


@power("jason", on=TILE_DISCOUNT)
def _jason(state: GameState, empire: Empire, target: Tile, t: Tile) -> int:
    """Once a round, heroes, not wonders or the Pyramids, cost 1 resource less (10.jason)."""
    return 1 if target.kind == "hero" and t.id not in state.empires[empire].used else 0


@power("midas", on=INCOME)
def _midas(state: GameState, empire: Empire, t: Tile) -> Income:
    """Two gold from the reserves every round (10.midas, ruling R211)."""
    return {"gold": 2}, [f"{t.name}: 2 gold"]
