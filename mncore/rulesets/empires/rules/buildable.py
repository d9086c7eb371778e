"""What may be built where, and by whom (3.0–3.1.3): the queries behind Build's checks and options."""

from __future__ import annotations

import functools
from collections.abc import Iterable

from mncore.core.cache import ObjectCache
from mncore.rulesets.empires import atlas, tile_powers
from mncore.rulesets.empires.board import Board, geo
from mncore.rulesets.empires.display_names import title as name  # a display name, in messages
from mncore.rulesets.empires.game_data import Tile, load_ruleset, tile
from mncore.rulesets.empires.ids import EMPIRES, BuildingKind, Empire, ProvinceId, SeaId, TileId, UnitKind, commodity_of
from mncore.rulesets.empires.kept import kept
from mncore.rulesets.empires.kept import trireme_seas as kept_seas
from mncore.rulesets.empires.projections import unit_count
from mncore.rulesets.empires.rules import barbarians
from mncore.rulesets.empires.state import GameState, build_step

# --- who builds --------------------------------------------------------------------------------------

def culture_leader(state: GameState) -> Empire | None:
    return state.titles.get("culture")


def capital_of(state: GameState, empire: Empire) -> ProvinceId | None:
    """The province of the empire's capital city (printed control marker, 4.3.5)."""
    return _capitals(state.geo_board).get(empire)


def _first_capitals(board: Board) -> dict[Empire, ProvinceId]:
    out: dict[Empire, ProvinceId] = {}
    for s in board.setups:
        out.setdefault(s.empire, s.capital)  # the first set-up of an empire names its capital
    return out


# asked for every province a builder may build in: read once per board
_capitals: ObjectCache[Board, dict[Empire, ProvinceId]] = ObjectCache(_first_capitals)


def to_build(state: GameState) -> list[Empire]:
    """The empires that have not had their build turn this phase, in empire order."""
    done = build_step(state).done
    return [e for e in EMPIRES if e in state.empires and e not in done]


# --- where: control, units, buildings ------------------------------------------------------------------

def opponents_in(state: GameState, empire: Empire, pid: ProvinceId) -> list[Empire]:
    """Other empires with legions or a fortress in the province."""
    ps = state.provinces[pid]
    found = {e for e, n in ps.legions.items() if n > 0 and e != empire}
    if ps.fortress is not None and ps.fortress != empire:
        found.add(ps.fortress)
    return sorted(found, key=EMPIRES.index)


def build_place_problem(state: GameState, empire: Empire, pid: ProvinceId) -> str | None:
    """Why the empire may not build units or buildings in the province, or None (3.1.1, 3.1.2)."""
    if pid not in state.provinces:
        return f"{geo(state.geo_board).province(pid).name} is covered and out of play"
    if pid == capital_of(state, empire):
        return None  # the capital's province: always (3.1.1 exception, 4.3.5)
    ps = state.provinces[pid]
    where = geo(state.geo_board).province(pid).name
    if ps.controller != empire:
        owner = f"controlled by {name(ps.controller)}" if ps.controller else "not controlled by anyone"
        return f"{where} is {owner}; {name(empire)} builds units and buildings only in provinces it controls"
    others = opponents_in(state, empire, pid)
    if others and not _opened_to_build(state, empire, pid):
        return (f"{where} holds units of {', '.join(name(e) for e in others)} (occupied or at war); "
                "only a capital's province may be built in then")
    return barbarians.build_block(state, pid)  # the Punic War's Barbarians stop builds too (R63)


def may_build_in(state: GameState, empire: Empire, pid: ProvinceId) -> bool:
    """build_place_problem(state, empire, pid) is None, without wording the refusal: scripted players
    and the trireme check ask it of many provinces, most of them refused."""
    ps = state.provinces.get(pid)
    if ps is None:
        return False
    # a province of its own, free of opponents (or opened to build) and of Barbarians, whether its capital's
    # or not: the capital is looked for only where one of those refuses (most provinces asked pass them)
    if (ps.controller != empire
            or ((any(n > 0 and e != empire for e, n in ps.legions.items())
                 or (ps.fortress is not None and ps.fortress != empire)) and not _opened_to_build(state, empire, pid))
            or barbarians.units(state, pid)):  # opponents_in() is not empty, or barbarians.build_block() is not None
        return pid == capital_of(state, empire)
    return True


def _opened_to_build(state: GameState, empire: Empire, pid: ProvinceId) -> bool:
    """A card lets the empire build in its province whatever opponent units stand there this round
    (Ishtar, ruling R217)."""
    return state.cities is not None and any(
        o.empire == empire and o.province == pid and o.round == state.round for o in state.cities.opened)


def trireme_seas(state: GameState, empire: Empire) -> frozenset[SeaId]:
    return kept_seas(state, empire)


def trireme_sea_problem(state: GameState, empire: Empire, sea: SeaId) -> str | None:
    """Why the empire may not build a trireme in the sea, or None (3.1.2, 4.2.1, ruling R39)."""
    if may_build_trireme(state, empire, sea):
        return None
    return (f"{geo(state.geo_board).sea(sea).name} touches no province where {name(empire)} may build "
            "(one it controls free of opponent units, or its capital's province)")


def may_build_trireme(state: GameState, empire: Empire, sea: SeaId) -> bool:
    """trireme_sea_problem(state, empire, sea) is None, without wording the refusal."""
    return any(may_build_in(state, empire, p) for p in geo(state.geo_board).coasts_of(sea))


def markers_left(state: GameState, empire: Empire) -> int:
    """Control markers not on the board; the capital's is printed on the map (ruling R30)."""
    capital = capital_of(state, empire)
    mine = kept(state).controlled.get(empire, {})  # the provinces it controls, kept (kept.py)
    on_board = len(mine) - (capital in mine)
    return load_ruleset().components.control_markers - on_board


def control_problem(state: GameState, empire: Empire, pid: ProvinceId) -> str | None:
    """Why the empire may not place a control marker in the province, or None (3.1.1)."""
    board = geo(state.geo_board)
    where = board.province(pid).name
    if pid not in state.provinces:
        return f"{where} is covered and out of play"
    ps = state.provinces[pid]
    if ps.controller == empire:
        return f"{name(empire)} already controls {where}"
    if ps.controller is not None:
        return f"{where} is controlled by {name(ps.controller)}"
    others = opponents_in(state, empire, pid)
    if others:
        return f"{where} holds units of {', '.join(name(e) for e in others)}"
    if barbarians.units(state, pid):
        return f"{where} holds Barbarian units (ruling R63)"
    seas = trireme_seas(state, empire)
    start = state.round_start_control.get(empire, ())
    if not any(board.adjacent_or_adjoining(p, pid, seas) for p in start):
        return (f"{where} is neither adjacent to nor adjoining (through a chain of {name(empire)}'s "
                "triremes) a province it controlled at the start of the round")
    return None


def may_control(state: GameState, empire: Empire, pid: ProvinceId) -> bool:
    """control_problem(state, empire, pid) is None, without wording the refusal."""
    if not _free_to_control(state, empire, pid):
        return False
    board = geo(state.geo_board)
    seas = trireme_seas(state, empire)
    return any(board.adjacent_or_adjoining(p, pid, seas) for p in state.round_start_control.get(empire, ()))


def _free_to_control(state: GameState, empire: Empire, pid: ProvinceId) -> bool:
    """control_problem() finds nothing before asking where the empire's control reached (3.1.1)."""
    ps = state.provinces.get(pid)
    if ps is None or ps.controller is not None:
        return False
    if any(n > 0 and e != empire for e, n in ps.legions.items()) or (
            ps.fortress is not None and ps.fortress != empire):
        return False  # opponents_in() is not empty
    return not barbarians.units(state, pid)


def control_places(state: GameState, empire: Empire) -> list[ProvinceId]:
    """The provinces where may_control() is true, sorted: only those adjacent to or adjoining a province
    the empire controlled at the start of the round are looked at, that reach found once as a set
    rather than asked of every province of the board (a player asks it for each control marker)."""
    return [p for p in _control_reach(state, empire) if _free_to_control(state, empire, p)]


def _control_reach(state: GameState, empire: Empire) -> list[ProvinceId]:
    """The provinces adjacent to or adjoining one the empire controlled at the start of the round, sorted;
    found once per round's start (its dict stands all round), empire, trireme seas and board."""
    seas = trireme_seas(state, empire)
    known = _reaches(state.round_start_control)
    found = known.get((empire, seas))
    if found is None or found[0] is not state.geo_board:
        board = geo(state.geo_board)
        reach: set[ProvinceId] = set()
        for p in state.round_start_control.get(empire, ()):
            reach |= board.adjacent(p) - {p}
            reach |= board.adjoining(p, seas)
        found = known[(empire, seas)] = (state.geo_board, sorted(reach))
    return found[1]


# per round_start_control dict: (empire, its trireme seas) -> (the board read, the provinces its control reaches)
_reaches: ObjectCache[dict[Empire, tuple[ProvinceId, ...]],
                      dict[tuple[Empire, frozenset[SeaId]], tuple[Board, list[ProvinceId]]]] = ObjectCache(
    lambda start: {}, limit=64)


def units_left(state: GameState, empire: Empire, kind: UnitKind) -> int:
    """Units of that kind still in the empire's supply (Q&A: never more than the game supplies)."""
    return load_ruleset().components.units.get(kind, 0) - unit_count(state, empire)[kind]


def supply_left(state: GameState, empire: Empire) -> dict[UnitKind, int]:
    """units_left() of each unit kind, the board counted once."""
    supply = load_ruleset().components.units
    counts = unit_count(state, empire)
    return {kind: supply.get(kind, 0) - counts[kind] for kind in _UNIT_KINDS}


_UNIT_KINDS: tuple[UnitKind, ...] = ("legion", "trireme", "fortress")


def buildings_left(state: GameState, kind: BuildingKind) -> int:
    """Buildings of that kind not on the board (3.1.2); those on it kept by kind (kept.py), not counted
    over every province each time a player asks what it may build."""
    return _buildings_supplied(state.options.setup).get(kind, 0) - kept(state).built.get(kind, 0)


def buildings_kinds_left(state: GameState, kinds: Iterable[BuildingKind]) -> list[BuildingKind]:
    """The kinds, in their order, where buildings_left() is above 0: the supply and the board read once for
    all of them (a builder's player asks it of every kind at each turn)."""
    supplied = _buildings_supplied(state.options.setup)
    built = kept(state).built
    return [k for k in kinds if supplied.get(k, 0) - built.get(k, 0) > 0]


@functools.lru_cache(maxsize=16)
def _buildings_supplied(setup: str) -> dict[BuildingKind, int]:
    """The buildings of each kind the game supplies with a set-up: the box's and its extensions'
    (ruling R52); read once per set-up (a builder asks it of each kind at each turn). Never changed."""
    rs = load_ruleset()
    kinds = {*rs.components.buildings, *(k for e in atlas.extensions(setup) for k in e.buildings)}
    return {k: rs.components.buildings.get(k, 0) + sum(e.buildings.get(k, 0) for e in atlas.extensions(setup))
            for k in kinds}


def free_spaces(state: GameState, pid: ProvinceId, kind: BuildingKind) -> list[str]:
    """The printed spaces of that kind in the province with no building on them (3.1.2)."""
    built = state.provinces[pid].buildings
    return [s.id for s in geo(state.geo_board).province(pid).spaces if s.kind == kind and s.id not in built]


def occupied_provinces(state: GameState, empire: Empire) -> list[ProvinceId]:
    """The empire's provinces holding opponent legions: what Penthesilea counts (ruling R32)."""
    return [pid for pid, ps in sorted(state.provinces.items()) if ps.controller == empire
            and any(n > 0 for e, n in ps.legions.items() if e != empire)]


def penthesilea_legions(state: GameState, empire: Empire) -> int:
    """How many free legions Penthesilea places now: one per occupied province, as supply allows."""
    return min(len(occupied_provinces(state, empire)), units_left(state, empire, "legion"))


# --- heroes and wonders -----------------------------------------------------------------------------

def is_pyramids(tile_id: TileId) -> bool:
    """The Pyramids: built, not recruited, and not counted among heroes and wonders (3.1.3, 6.1)."""
    return tile(load_ruleset(), tile_id).kind == "pyramids"


def tile_rank(state: GameState, empire: Empire) -> int:
    """Which hero/wonder the next one would be for the empire (the starting hero is the first)."""
    return len([t for t in state.empires[empire].tiles if not is_pyramids(t)]) + 1


def rank_cost(state: GameState, empire: Empire) -> int | None:
    """The cost of the empire's next hero or wonder (3.1.3); None beyond the last."""
    costs = load_ruleset().costs
    rank = tile_rank(state, empire)
    return costs.tiles[rank - 2] if 2 <= rank <= len(costs.tiles) + 1 else None


def tile_cost(state: GameState, empire: Empire, tile_id: TileId) -> int | None:
    """The cost of the tile for the empire (3.1.3), less what its powers take off; None beyond the fifth."""
    cost = load_ruleset().costs.pyramids if is_pyramids(tile_id) else rank_cost(state, empire)
    if cost is None:
        return None
    return cost - sum(tile_powers.tile_discount(state, empire, tile(load_ruleset(), tile_id)).values())


def face_up(state: GameState) -> list[TileId]:
    return [d.tile for d in state.display if d.face_up]


def copyable(state: GameState, empire: Empire) -> list[TileId]:
    """Heroes Castor & Pollux may copy: another empire's, not starting, not Perseus (10.castor-pollux)."""
    rs = load_ruleset()
    return [t for e in EMPIRES if e in state.empires and e != empire for t in state.empires[e].tiles
            if _copy_problem(tile(rs, t)) is None]


def _copy_problem(info: Tile) -> str | None:
    if info.kind != "hero":
        return f"{info.name} is not a hero; wonders cannot be copied"
    if info.starting:
        return f"{info.name} is a starting hero; starting heroes cannot be copied"
    if not info.copyable:
        return f"{info.name} cannot be copied"
    return None


def perseus_open(state: GameState) -> bool:
    """Perseus builds first: before anything is built and before any build turn ends (ruling R33)."""
    step = build_step(state)
    return state.phase == "build" and step.builds == 0 and not step.done


def keep_waiting(state: GameState) -> list[Empire]:
    """Hanging Gardens holders who still hold commodities and have not chosen what to keep."""
    kept = build_step(state).kept
    return [e for e in tile_powers.holders_at(state, "keep_commodities") if e not in kept
            and any(commodity_of(t) for t in state.empires[e].resources)]
