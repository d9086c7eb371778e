"""The Punic War's Barbarians (atlas.barbarians): where they stand and whom they are at peace with."""

from __future__ import annotations

from mncore.rulesets.empires import atlas
from mncore.rulesets.empires.board import geo
from mncore.rulesets.empires.game_data import Tile, load_ruleset
from mncore.rulesets.empires.ids import Empire, ProvinceId, Token, commodity_of
from mncore.rulesets.empires.state import Barbarians, GameState

SECTION = "atlas.barbarians"


def in_play(state: GameState) -> bool:
    return state.barbarians is not None


def horde(state: GameState) -> Barbarians:
    assert state.barbarians is not None, "the Barbarians are in the Punic War only"
    return state.barbarians


def units(state: GameState, place: str) -> int:
    """Barbarian units at a place: triremes at sea; legions and fortress on land."""
    if state.barbarians is None:
        return 0
    b = state.barbarians
    if place in state.seas:
        return b.triremes.get(place, 0)
    return b.legions.get(place, 0) + (1 if place in b.fortresses else 0)


def at_peace(state: GameState, empire: Empire) -> bool:
    """A Statue of Zeus peace with the Barbarians binds this round (ruling R67)."""
    return state.barbarians is not None and empire in state.barbarians.peace


def build_block(state: GameState, pid: ProvinceId) -> str | None:
    """Barbarian units in a province stop builds there as an opponent's do (3.1.1, 3.1.2; ruling R63)."""
    if not units(state, pid):
        return None
    return (f"{geo(state.geo_board).province(pid).name} holds Barbarian units (ruling R63); only a capital's "
            "province may be built in then")


def punic_war(state: GameState) -> bool:
    """Whether the game plays the Punic War, whose wonders change (atlas.punic-wonders)."""
    return punic_setup(state.options.setup)


def punic_setup(setup: str) -> bool:
    chosen = atlas.variant(setup)
    return chosen is not None and chosen.barbarians is not None


def power_text(setup: str, tile: Tile) -> str:
    """A tile's power as it acts under that set-up: the Punic War's own where it changes it (R67, R68)."""
    return tile.punic_power if tile.punic_power and punic_setup(setup) else tile.power


def changed_powers(setup: str) -> list[Tile]:
    """The tiles whose power the set-up changes: the Punic War's wonders (atlas.punic-wonders)."""
    return [t for t in load_ruleset().tiles if t.punic_power] if punic_setup(setup) else []


GARDENS_GOLD = 3  # "a total of 3 Gold in addition to the 2 Coins" (HANGING GARDENS, ruling R68)


def gardens_problem(kept: tuple[Token, ...]) -> str | None:
    """The Punic War's Hanging Gardens keep up to 3 gold, a legendary gold counting as gold (ruling R68)."""
    if any(commodity_of(t) != "gold" for t in kept):
        return "in the Punic War the Hanging Gardens keep gold only (ruling R68)"
    if len(kept) > GARDENS_GOLD:
        return f"in the Punic War the Hanging Gardens keep at most {GARDENS_GOLD} gold (ruling R68)"
    return None


def gardens_choices(held: dict[Token, int]) -> list[str]:
    """What the Hanging Gardens may keep in the Punic War: one, two or three of the gold held."""
    gold = sorted(t for t, n in held.items() for _ in range(n) if commodity_of(t) == "gold")
    return [" ".join(gold[:k]) for k in range(1, min(GARDENS_GOLD, len(gold)) + 1)]
