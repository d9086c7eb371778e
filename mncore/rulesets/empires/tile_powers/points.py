"""The points where the rules call the powers' code: the context each passes, and how the rules ask."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from mncore.core.cache import ObjectCache
from mncore.rulesets.empires.board import Province
from mncore.rulesets.empires.game_data import Tile
from mncore.rulesets.empires.ids import BuildingKind, Empire, ProvinceId, TileId
from mncore.rulesets.empires.state import Bag, GameState, ProvinceState, bag_add
from mncore.rulesets.empires.tile_powers.hooks import Point, calls, has_at


class Side(NamedTuple):
    """One side of a land battle, as a power sees it."""

    place: ProvinceId
    empire: Empire
    active: bool  # the active empire's side (the attacker)
    legions: int  # its legion dice


class SetRules(NamedTuple):
    """How a set of resources may be paid (3.0), as the powers relax it."""

    coin_swap: bool = False  # one coin for one commodity, or the reverse (10.cleopatra)
    one_type_twice: bool = False  # one commodity type twice in a commodity set (10.hannibal)


class PillageYield(NamedTuple):
    """What pillaging a building pays (4.3.1)."""

    coins: int = 0
    commodities: int = 0
    legendaries: int = 0


# What a power adds to a collection: resources, and the lines that say where they came from.
Income = tuple[Bag, list[str]]

ExtraDice = Callable[[GameState, ProvinceId, Empire, Tile], int]
BattleBonus = Callable[[GameState, Side, Tile], int]
PaymentSet = Callable[[SetRules, Tile], SetRules]
EmpireIncome = Callable[[GameState, Empire, Tile], Income]
CaravanLegions = Callable[[GameState, Province, ProvinceState, Empire, bool, Tile], Income]
PillageIncome = Callable[[BuildingKind, Tile], PillageYield]

EXTRA_DICE: Point[ExtraDice] = Point("extra_dice")  # dice rolled besides the legions' (4.2)
BATTLE_BONUS: Point[BattleBonus] = Point("battle_bonus")  # added to a land battle's total (4.2)
PAYMENT_SET: Point[PaymentSet] = Point("payment_set")  # what a set of resources may hold (3.0)
INCOME: Point[EmpireIncome] = Point("income")  # collected besides the buildings (1.1)
CARAVAN_LEGIONS: Point[CaravanLegions] = Point("caravan_legions")  # a province's extra yield (1.1)
PILLAGE: Point[PillageIncome] = Point("pillage")  # what a pillage pays instead (4.3.1)

# The points where code is called; every other hook point only asks who holds a power there
# (registry.has_at, holders_at), the rule itself being the same for every tile at that point.
FUNCTION_POINTS: tuple[Point[Any], ...] = (EXTRA_DICE, BATTLE_BONUS, PAYMENT_SET, INCOME,
                                           CARAVAN_LEGIONS, PILLAGE)


def extra_dice(state: GameState, place: ProvinceId, empire: Empire) -> dict[str, int]:
    """The extra dice the empire's powers give it in a land battle, by tile."""
    found = {t.id: fn(state, place, empire, t) for t, fn in calls(state, empire, EXTRA_DICE)}
    return {k: n for k, n in found.items() if n}


def battle_bonus(state: GameState, side: Side) -> dict[str, int]:
    """What the side's powers add to its land battle total, by tile."""
    found = {t.id: fn(state, side, t) for t, fn in calls(state, side.empire, BATTLE_BONUS)}
    return {k: n for k, n in found.items() if n}


_PLAIN = SetRules()  # a set as 3.0 has it (a NamedTuple: shared, never changed)


def set_rules(state: GameState, empire: Empire) -> SetRules:
    """How the empire may pay a set of resources, its powers considered. Found once per tiles tuple and
    copied power (all the powers read of the empire: every payment hint and payment asks)."""
    es = state.empires.get(empire)
    if es is None:
        return _PLAIN
    known = _set_rules(es.tiles)
    found = known.get(es.copied)
    if found is None:
        found = known[es.copied] = _count_set_rules(state, empire)
    return found


def _count_set_rules(state: GameState, empire: Empire) -> SetRules:
    if not has_at(state, empire, PAYMENT_SET.name):  # most empires hold no such power
        return _PLAIN
    rules = SetRules()
    for t, fn in calls(state, empire, PAYMENT_SET):
        rules = fn(rules, t)
    return rules


# per tuple of an empire's tiles (kept by evolve while they stay as they were): its copied power (None
# for none) -> its set rules
_set_rules: ObjectCache[tuple[TileId, ...], dict[TileId | None, SetRules]] = ObjectCache(lambda tiles: {}, limit=64)


def income(state: GameState, empire: Empire) -> Income:
    """What the empire's powers add to its collection, whatever its buildings."""
    gained: Bag = {}
    sources: list[str] = []
    for t, fn in calls(state, empire, INCOME):
        bag, lines = fn(state, empire, t)
        gained, sources = bag_add(gained, bag), sources + lines
    return gained, sources


def caravan_legions(state: GameState, province: Province, ps: ProvinceState, empire: Empire,
                    market: bool) -> Income:
    """What the empire's powers add to a province's yield; `market`: it holds a market there."""
    gained: Bag = {}
    sources: list[str] = []
    for t, fn in calls(state, empire, CARAVAN_LEGIONS):
        bag, lines = fn(state, province, ps, empire, market, t)
        gained, sources = bag_add(gained, bag), sources + lines
    return gained, sources


def pillage(state: GameState, empire: Empire, kind: BuildingKind) -> PillageYield | None:
    """What a pillage of that kind of building pays the empire through a power; None: no power."""
    found = calls(state, empire, PILLAGE)
    if not found:
        return None
    t, fn = found[0]
    return fn(kind, t)
