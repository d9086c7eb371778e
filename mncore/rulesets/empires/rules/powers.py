"""Who may use a hero's or wonder's power: its holder, or an empire that copied it (10.castor-pollux)."""

from __future__ import annotations

from mncore.rulesets.empires.ids import Empire, TileId
from mncore.rulesets.empires.state import GameState


def has_power(state: GameState, empire: Empire, tile: TileId) -> bool:
    """True if the empire holds the tile or copied its power with Castor & Pollux."""
    es = state.empires.get(empire)
    return es is not None and (tile in es.tiles or es.copied == tile)

