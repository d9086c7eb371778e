"""The War cards that last for the next battle at a place (ruling R235), as the battle rules ask them."""

from __future__ import annotations

from mncore.rulesets.empires.board import geo
from mncore.rulesets.empires.cities import card_info
from mncore.rulesets.empires.ids import Empire
from mncore.rulesets.empires.state import GameState


def effects(state: GameState, place: str, empire: Empire) -> set[str]:
    """The effects of the War cards the empire readied for the next battle at the place."""
    if state.cities is None or not state.cities.tactics:
        return set()
    return {card_info(t.played)[1].effect for t in state.cities.tactics if t.place == place and t.empire == empire}


def siege_dice(state: GameState, place: str, empire: Empire) -> dict[str, int]:
    """Siege Vessels: one die for each of the empire's triremes in a sea next to the province."""
    if "siege" not in effects(state, place, empire):
        return {}
    n = sum(state.seas.get(s, {}).get(empire, 0) for s in sorted(geo(state.geo_board).province(place).seas))
    return {"siege-vessels": n} if n else {}


def divisor(state: GameState, place: str, target: Empire, usual: int) -> int:
    """What the opponent's total is divided by for the hits against the target (Greek Phalanxes)."""
    if "phalanx" not in effects(state, place, target):
        return usual
    assert state.cities is not None
    return max(card_info(t.played)[1].amount for t in state.cities.tactics
               if t.place == place and t.empire == target and card_info(t.played)[1].effect == "phalanx")


def sure_fives(state: GameState, place: str, empire: Empire) -> bool:
    """War Elephants: the empire's legion dice show 5 without rolling in this battle."""
    return "sure-fives" in effects(state, place, empire)
