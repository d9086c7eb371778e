"""The hook registry: a power's function registered under its tile's id at a named point of the rules."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

from mncore.core.cache import ObjectCache
from mncore.rulesets.empires.game_data import HookPoint, Ruleset, Tile, load_ruleset, tiles_at
from mncore.rulesets.empires.ids import EMPIRES, Empire, TileId
from mncore.rulesets.empires.rules.powers import has_power
from mncore.rulesets.empires.state import EmpireState, GameState

F = TypeVar("F", bound=Callable[..., Any])


class Point(Generic[F]):
    """A point where the rules call the powers' code: its name, and one function per tile there."""

    def __init__(self, name: HookPoint) -> None:
        self.name = name
        self.functions: dict[TileId, F] = {}

    def __repr__(self) -> str:
        return f"Point({self.name!r})"


def power(tile: TileId, on: Point[F]) -> Callable[[F], F]:
    """Register the decorated function as the tile's power at the point `on`."""
    def register(fn: F) -> F:
        if tile in on.functions:
            raise ValueError(f"{tile} already has a power at {on.name}")
        on.functions[tile] = fn
        return fn
    return register


def powers_of(state: GameState, empire: Empire, at: HookPoint) -> list[Tile]:
    """The tiles whose power the empire may use at that point (held or copied), in the data's order."""
    if not has_at(state, empire, at):  # most empires hold no power at most points: ask the few it holds
        return []
    return [t for t in tiles_at(load_ruleset(), at) if has_power(state, empire, t.id)]


def has_at(state: GameState, empire: Empire, at: HookPoint) -> bool:
    """Whether the empire may use a power at that point (it holds or copied one of its tiles)."""
    es = state.empires.get(empire)
    # one lookup of the point's ids per ruleset (paying, collecting and offering ask it every time)
    return es is not None and _holds(es, _point_ids(load_ruleset()).get(at, _NONE))


def _holds(es: EmpireState, ids: frozenset[TileId]) -> bool:
    return es.copied in ids or not ids.isdisjoint(es.tiles)


# the ids of a point's tiles, made once per tuple of tiles (tiles_at keeps one per ruleset and point)
_ids_of: ObjectCache[tuple[Tile, ...], frozenset[TileId]] = ObjectCache(
    lambda tiles: frozenset(t.id for t in tiles), limit=256)

_NONE: frozenset[TileId] = frozenset()


def _ids_by_point(ruleset: Ruleset) -> dict[str, frozenset[TileId]]:
    points: dict[str, set[TileId]] = {}
    for t in ruleset.tiles:
        for point in t.hooks:
            points.setdefault(point, set()).add(t.id)
    return {point: frozenset(ids) for point, ids in points.items()}


# per ruleset: each point's tile ids, as _ids_of(tiles_at(ruleset, point)) gives them
_point_ids: ObjectCache[Ruleset, dict[str, frozenset[TileId]]] = ObjectCache(_ids_by_point, limit=8)


def holders_at(state: GameState, at: HookPoint) -> list[Empire]:
    """The empires that may use a power at that point, in the fixed empire order (found once per
    empires dict and point: who acts next asks it after every order, and most leave the tiles as
    they were)."""
    known = _holders(state.empires)
    found = known.get(at)
    if found is None:
        ids = _ids_of(tiles_at(load_ruleset(), at))  # asked once for every empire
        found = known[at] = tuple(e for e in EMPIRES if e in state.empires and _holds(state.empires[e], ids)) if ids else ()
    return list(found)


# per empires dict (frozen with its state): point -> the empires holding a power there
_holders: ObjectCache[dict[Empire, EmpireState], dict[HookPoint, tuple[Empire, ...]]] = ObjectCache(
    lambda empires: {}, limit=64)


def ids_at(at: HookPoint) -> tuple[TileId, ...]:
    """The ids of the tiles with a power at that point, whoever holds them."""
    return tuple(t.id for t in tiles_at(load_ruleset(), at))


def names_at(at: HookPoint) -> str:
    """The display names of the tiles with a power at that point, for messages: 'Perseus'."""
    return " or ".join(t.name for t in tiles_at(load_ruleset(), at))


def calls(state: GameState, empire: Empire, on: Point[F]) -> list[tuple[Tile, F]]:
    """The functions the empire's powers registered at the point, each with its tile's data."""
    # an owner's tile may act with a shipped tile's code and its own numbers (docs/tiles.md)
    return [(t, on.functions[t.acts_as.get(on.name, t.id)]) for t in powers_of(state, empire, on.name)]
