"""Phase 3, Build (3.0–3.2, 6.1, 6.2): the Culture Leader's order, what may be built where, storage."""

from __future__ import annotations

from mncore import events as ev
from mncore.board import geo
from mncore.commands import (BuildBuilding, BuildCommand, BuildControl, BuildTile, BuildUnit,
                             ChooseBuilder, EndBuildTurn, KeepCommodities)
from mncore.dice import Rng
from mncore.draws import turned_up
from mncore.errors import InvalidCommand, refuse, require
from mncore.evolve import build_step
from mncore.flow import Option, Pending
from mncore.ids import (COIN, EMPIRES, BuildingKind, Empire, ProvinceId, SeaId, TileId, Token,
                        UnitKind, commodity_of)
from mncore.projections import unit_count
from mncore.rules import payment
from mncore.rules.powers import has_power, holders
from mncore.ruleset import Tile, load_ruleset, tile
from mncore.state import Bag, GameState, bag_sub

FACE_UP = 5  # set-up step 5: tiles kept face up in first games


# --- who builds --------------------------------------------------------------------------------------

def culture_leader(state: GameState) -> Empire | None:
    return state.titles.get("culture")


def name(empire: str) -> str:
    return empire.replace("-", " ").title()


def capital_of(state: GameState, empire: Empire) -> ProvinceId | None:
    """The province of the empire's capital city (printed control marker, 4.3.5)."""
    return next((s.capital for s in state.geo_board.setups if s.empire == empire), None)


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
    if others:
        return (f"{where} holds units of {', '.join(name(e) for e in others)} (occupied or at war); "
                "only a capital's province may be built in then")
    return None


def trireme_seas(state: GameState, empire: Empire) -> frozenset[SeaId]:
    return frozenset(s for s, units in state.seas.items() if units.get(empire, 0) > 0)


def trireme_sea_problem(state: GameState, empire: Empire, sea: SeaId) -> str | None:
    """Why the empire may not build a trireme in the sea, or None (3.1.2, 4.2.1, ruling R39)."""
    coasts = sorted(p for p in geo(state.geo_board).coasts_of(sea) if p in state.provinces)
    if any(build_place_problem(state, empire, p) is None for p in coasts):
        return None
    return (f"{geo(state.geo_board).sea(sea).name} touches no province where {name(empire)} may build "
            "(one it controls free of opponent units, or its capital's province)")


def markers_left(state: GameState, empire: Empire) -> int:
    """Control markers not on the board; the capital's is printed on the map (ruling R30)."""
    capital = capital_of(state, empire)
    on_board = sum(1 for pid, ps in state.provinces.items() if ps.controller == empire and pid != capital)
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
    seas = trireme_seas(state, empire)
    start = state.round_start_control.get(empire, ())
    if not any(board.adjacent_or_adjoining(p, pid, seas) for p in start):
        return (f"{where} is neither adjacent to nor adjoining (through a chain of {name(empire)}'s "
                "triremes) a province it controlled at the start of the round")
    return None


def control_places(state: GameState, empire: Empire) -> list[ProvinceId]:
    return [p for p in sorted(state.provinces) if control_problem(state, empire, p) is None]


def units_left(state: GameState, empire: Empire, kind: UnitKind) -> int:
    """Units of that kind still in the empire's supply (Q&A: never more than the game supplies)."""
    return load_ruleset().components.units.get(kind, 0) - unit_count(state, empire)[kind]


def buildings_left(state: GameState, kind: BuildingKind) -> int:
    on_board = sum(1 for ps in state.provinces.values() for k in ps.buildings.values() if k == kind)
    return load_ruleset().components.buildings.get(kind, 0) - on_board


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

def tile_rank(state: GameState, empire: Empire) -> int:
    """Which hero/wonder the next one would be for the empire (the starting hero is the first)."""
    return len([t for t in state.empires[empire].tiles if t != "pyramids"]) + 1


def tile_cost(state: GameState, empire: Empire, tile_id: TileId) -> int | None:
    """The cost of the tile for the empire (3.1.3); None beyond the fifth."""
    costs = load_ruleset().costs
    if tile_id == "pyramids":
        return costs.pyramids
    rank = tile_rank(state, empire)
    return costs.tiles[rank - 2] if 2 <= rank <= len(costs.tiles) + 1 else None


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
    if info.id in ("perseus", "castor-pollux"):
        return f"{info.name} cannot be copied"
    return None


def perseus_open(state: GameState) -> bool:
    """Perseus builds first: before anything is built and before any build turn ends (ruling R33)."""
    step = build_step(state)
    return state.phase == "build" and step.builds == 0 and not step.done


# --- the phase ---------------------------------------------------------------------------------------

def begin(state: GameState, rng: Rng) -> list[ev.AnyEvent]:
    return []


def pending(state: GameState) -> list[Pending]:
    step = build_step(state)
    out: list[Pending] = []
    for emp in holders(state, "perseus"):
        if perseus_open(state) and perseus_options(state, emp):
            out.append(Pending(empire=emp, kind="perseus",
                               text="may build first with Perseus: a fifth hero or wonder, or the Pyramids"))
    if step.active is not None:
        return out + [Pending(empire=step.active, kind="build",
                              text="build (control, units, buildings, heroes, wonders), then say done")]
    waiting = to_build(state)
    if waiting:
        leader = culture_leader(state) or waiting[0]
        who = ", ".join(name(e) for e in waiting)
        return out + [Pending(empire=leader, kind="builder", text=f"name the next builder ({who})")]
    return [Pending(empire=e, kind="keep", text="keep up to 2 different commodities (Hanging Gardens)")
            for e in _keep_waiting(state)]


def _keep_waiting(state: GameState) -> list[Empire]:
    kept = build_step(state).kept
    return [e for e in holders(state, "hanging-gardens") if e not in kept
            and any(commodity_of(t) for t in state.empires[e].resources)]


def end(state: GameState, rng: Rng) -> list[ev.AnyEvent]:
    return [*storage(state), *turn_up(state), *fifth_tile_victory(state)]


def storage(state: GameState) -> list[ev.AnyEvent]:
    """3.0: every empire keeps at most 2 coins (and Hanging Gardens' commodities); the rest goes."""
    kept = build_step(state).kept
    out: list[ev.AnyEvent] = []
    for emp in (e for e in EMPIRES if e in state.empires):
        held = state.empires[emp].resources
        keep: Bag = {COIN: min(2, held.get(COIN, 0))}
        for token in kept.get(emp, ()):
            keep[token] = keep.get(token, 0) + 1
        discarded = bag_sub(held, keep)
        if discarded:
            out.append(ev.ResourcesDiscarded(empire=emp, discarded=discarded,
                                             count=sum(discarded.values())))
    return out


def turn_up(state: GameState) -> list[ev.AnyEvent]:
    """Set-up step 5 (first games): face-down tiles turned up until five tiles show again."""
    if state.options.display != "first-game":
        return []
    showing = sum(1 for d in state.display if d.face_up and d.tile != "pyramids")
    # the face-down order was drawn at set-up; a sandbox may fix the next tiles instead (R7)
    tiles, used = turned_up(state, max(0, FACE_UP - showing))
    return [*used, ev.TilesTurnedUp(tiles=tiles)] if tiles else []


def fifth_tile_victory(state: GameState) -> list[ev.AnyEvent]:
    """6.2: a fifth hero/wonder wins at the end of the phase; the Culture Leader breaks a tie."""
    fifth = build_step(state).recruited
    if not fifth:
        return []
    leader = culture_leader(state)
    winners = (leader,) if leader in fifth else tuple(e for e in EMPIRES if e in fifth)
    detail = ("; ".join(f"{name(e)} gained a fifth hero or wonder" for e in EMPIRES if e in fifth)
              + (f"; {name(leader)}, the Culture Leader, takes the win" if leader in fifth and len(fifth) > 1
                 else ""))
    return [ev.GameWon(empires=winners, condition="6.2", detail=detail + ".")]


def options(state: GameState, empire: Empire) -> list[Option]:
    if state.phase != "build":
        return []
    step = build_step(state)
    out: list[Option] = []
    if has_power(state, empire, "perseus") and perseus_open(state):
        out += perseus_options(state, empire)
    if step.active == empire:
        return out + build_options(state, empire) + [Option(kind="done", order="done")]
    waiting = to_build(state)
    if step.active is None and waiting and empire == (culture_leader(state) or waiting[0]):
        out += [Option(kind="builder", order=f"builder {e}") for e in waiting]
    if empire in _keep_waiting(state) and not waiting:
        out += keep_choices(state, empire)
    return out


# --- the orders --------------------------------------------------------------------------------------

def decide(state: GameState, order: BuildCommand, rng: Rng) -> list[ev.AnyEvent]:
    match order:
        case ChooseBuilder():
            return choose_builder(state, order)
        case BuildControl():
            return build_control(state, order)
        case BuildUnit():
            return build_unit(state, order)
        case BuildBuilding():
            return build_building(state, order)
        case BuildTile():
            return build_tile(state, order)
        case EndBuildTurn():
            return end_turn(state, order)
        case KeepCommodities():
            return keep(state, order)


def _require_phase(state: GameState) -> None:
    require(state.phase == "build", "3.0", f"building is done in the Build phase, not in the "
                                           f"{name(state.phase)} phase")


def _require_builder(state: GameState, empire: Empire) -> None:
    _require_phase(state)
    active = build_step(state).active
    if active is None:
        leader = culture_leader(state)
        refuse("3.0", f"nobody is building now: the Culture Leader ({name(leader or 'nobody')}) "
                      "names the next builder")
    require(active == empire, "3.0", f"it is {name(active or '')}'s build turn, not {name(empire)}'s")


def choose_builder(state: GameState, order: ChooseBuilder) -> list[ev.AnyEvent]:
    _require_phase(state)
    step = build_step(state)
    waiting = to_build(state)
    leader = culture_leader(state) or (waiting[0] if waiting else None)
    require(order.empire == leader, "3.0",
            f"only the Culture Leader ({name(leader or 'nobody')}) names who builds next")
    require(step.active is None, "3.0",
            f"{name(step.active or '')} is building now; the next builder is named when it is done")
    if order.builder not in state.empires:
        raise InvalidCommand(f"{name(order.builder)} is not in this game")
    require(order.builder in waiting, "3.0", f"{name(order.builder)} has already built this phase; "
                                             "each empire builds once")
    return [ev.BuilderChosen(empire=order.empire, builder=order.builder)]


def build_control(state: GameState, order: BuildControl) -> list[ev.AnyEvent]:
    emp, pid = order.empire, order.province
    _require_builder(state, emp)
    geo(state.geo_board).province(pid)
    problem = control_problem(state, emp, pid)
    require(problem is None, "3.1.1", problem or "")
    require(markers_left(state, emp) > 0, "3.1.1",
            f"{name(emp)} has no control marker left (7, the capital's printed one aside: ruling R30)")
    if order.power is not None:
        require(order.power == "hammurabi", "3.1.1",
                f"{name(order.power)} does not change what control costs")
        _require_power(state, emp, "hammurabi", "10.hammurabi")
        require(not order.pay, "10.hammurabi", "Hammurabi's control marker is free: pay nothing")
    else:
        payment.require_set(state, emp, order.pay, load_ruleset().costs.control, "control")
    return [ev.ControlBuilt(empire=emp, province=pid, paid=order.pay, power=order.power)]


def _require_power(state: GameState, empire: Empire, power: str, section: str) -> None:
    require(has_power(state, empire, power), section,  # type: ignore[arg-type]
            f"{name(empire)} does not hold {name(power)}")
    require(power not in state.empires[empire].used, section,
            f"{name(power)}'s power was already used this round (once per round)")


def build_unit(state: GameState, order: BuildUnit) -> list[ev.AnyEvent]:
    emp, kind = order.empire, order.kind
    _require_builder(state, emp)
    require(units_left(state, emp, kind) > 0, "3.1.2",
            f"all {name(emp)}'s {kind}s are on the board; no more than the game supplies (Q&A)")
    _require_unit_place(state, emp, kind, order.place)
    count = 1
    match order.power:
        case None:
            payment.require_set(state, emp, order.pay, load_ruleset().costs.units[kind], f"a {kind}")
        case "penthesilea":
            count = _penthesilea(state, order)
        case power if power in payment.CHEAP_UNITS and payment.CHEAP_UNITS[power][0] == kind:
            _require_power(state, emp, power, payment.CHEAP_UNITS[power][2])
            payment.require_cheap(state, emp, order.pay, power, f"a {kind}")
        case power:
            refuse("3.1.2", f"{name(power)} does not change what a {kind} costs")
    return [ev.UnitBuilt(empire=emp, kind=kind, place=order.place, paid=order.pay, count=count,
                         power=order.power)]


def _require_unit_place(state: GameState, emp: Empire, kind: str, place: str) -> None:
    board = geo(state.geo_board)
    if kind == "trireme":
        if not board.is_sea(place):
            raise InvalidCommand(f"a trireme is built in a sea, and '{place}' is not a sea")
        problem = trireme_sea_problem(state, emp, place)
        require(problem is None, "3.1.2", problem or "")
        return
    if not board.is_province(place):
        raise InvalidCommand(f"a {kind} is built in a province, and '{place}' is not a province")
    problem = build_place_problem(state, emp, place)
    require(problem is None, "3.1.2", problem or "")
    if kind == "fortress":
        require(state.provinces[place].fortress is None, "3.1.2",
                f"{board.province(place).name} already has a fortress; at most one per province")


def _penthesilea(state: GameState, order: BuildUnit) -> int:
    emp = order.empire
    require(order.kind == "legion", "10.penthesilea", "Penthesilea's free units are legions")
    _require_power(state, emp, "penthesilea", "10.penthesilea")
    capital = capital_of(state, emp)
    require(order.place == capital, "10.penthesilea",
            f"Penthesilea's legions are placed in {name(emp)}'s capital province ({name(capital or '')})")
    require(not order.pay, "10.penthesilea", "Penthesilea's legions are free: pay nothing")
    require(bool(occupied_provinces(state, emp)), "10.penthesilea",
            f"none of {name(emp)}'s provinces holds opponent legions (ruling R32)")
    return penthesilea_legions(state, emp)


def build_building(state: GameState, order: BuildBuilding) -> list[ev.AnyEvent]:
    emp, pid, kind = order.empire, order.province, order.kind
    _require_builder(state, emp)
    where = geo(state.geo_board).province(pid).name
    problem = build_place_problem(state, emp, pid)
    require(problem is None, "3.1.2", problem or "")
    space = _space_for(state, order, where)
    require(buildings_left(state, kind) > 0, "3.1.2",
            f"every {kind} building of the game is on the board (no more than the game supplies)")
    payment.require_set(state, emp, order.pay, load_ruleset().costs.buildings[kind], f"a {kind}")
    return [ev.BuildingBuilt(empire=emp, province=pid, space=space, kind=kind, paid=order.pay)]


def _space_for(state: GameState, order: BuildBuilding, where: str) -> str:
    spaces = {s.id: s.kind for s in geo(state.geo_board).province(order.province).spaces}
    free = free_spaces(state, order.province, order.kind)
    if order.space is not None:
        if order.space not in spaces:
            raise InvalidCommand(f"{where} has no space '{order.space}' (spaces: {', '.join(spaces)})")
        require(spaces[order.space] == order.kind, "3.1.2",
                f"{order.space} in {where} is a {spaces[order.space]} space, not a {order.kind} space")
        require(order.space in free, "3.1.2", f"{order.space} in {where} is already built on")
        return order.space
    require(order.kind in spaces.values(), "3.1.2",
            f"{where} has no {order.kind} space printed on it; only printed spaces are built on")
    require(bool(free), "3.1.2", f"every {order.kind} space in {where} is already built on")
    if len(free) > 1:
        raise InvalidCommand(f"{where} has several free {order.kind} spaces: say which with "
                             f"'at {free[0]}' ({', '.join(free)})")
    return free[0]


def build_tile(state: GameState, order: BuildTile) -> list[ev.AnyEvent]:
    emp, tile_id = order.empire, order.tile
    if order.perseus:
        _require_phase(state)
    else:
        _require_builder(state, emp)
    rs_tile = tile(load_ruleset(), tile_id)
    _require_on_display(state, tile_id)
    cost = tile_cost(state, emp, tile_id)
    rank = 0 if tile_id == "pyramids" else tile_rank(state, emp)
    require(cost is not None, "3.1.3", f"{name(emp)} already has five heroes and wonders")
    if order.perseus:
        _require_perseus(state, emp, tile_id, rank)
    _require_copy(state, order)
    payment.require_set(state, emp, order.pay, cost or 0, rs_tile.name)
    events: list[ev.AnyEvent] = [ev.TileGained(empire=emp, tile=tile_id, paid=order.pay, rank=rank,
                                               copied=order.copy, perseus=order.perseus)]
    if tile_id == "pyramids":
        events.append(ev.GameWon(empires=(emp,), condition="6.1",
                                 detail=f"{name(emp)} built the Pyramids"
                                        + (", building first with Perseus." if order.perseus else ".")))
    elif order.perseus:
        events.append(ev.GameWon(empires=(emp,), condition="6.2",
                                 detail=f"{name(emp)} gained a fifth hero or wonder ({rs_tile.name}), "
                                        "building first with Perseus: at once (10.perseus)."))
    return events


def _require_on_display(state: GameState, tile_id: TileId) -> None:
    shown = {d.tile: d.face_up for d in state.display}
    owner = next((e for e, es in state.empires.items() if tile_id in es.tiles), None)
    require(owner is None, "3.1.3", f"{name(owner or '')} already has {name(tile_id)}")
    require(tile_id in shown, "3.1.3", f"{name(tile_id)} is not on the Heroes & Wonders display")
    require(shown.get(tile_id, False), "3.1.3",
            f"{name(tile_id)} is face down on the display; only face-up tiles may be built")


def _require_perseus(state: GameState, emp: Empire, tile_id: TileId, rank: int) -> None:
    require(has_power(state, emp, "perseus"), "10.perseus", f"{name(emp)} does not hold Perseus")
    require(perseus_open(state), "10.perseus",
            "Perseus builds first: once something has been built this phase it is too late (ruling R33)")
    require(tile_id == "pyramids" or rank == 5, "10.perseus",
            f"Perseus builds first only to win: the Pyramids or a fifth hero or wonder, and "
            f"{name(tile_id)} would be {name(emp)}'s hero/wonder number {rank}")


def _require_copy(state: GameState, order: BuildTile) -> None:
    if order.tile != "castor-pollux":
        require(order.copy is None, "10.castor-pollux", "only Castor & Pollux copy another hero")
        return
    choices = copyable(state, order.empire)
    if order.copy is None:
        require(not choices, "10.castor-pollux",
                f"name the hero Castor & Pollux copy: {', '.join(name(t) for t in choices)}")
        return  # nothing to copy: recruited without a copy (ruling R34)
    problem = _copy_problem(tile(load_ruleset(), order.copy))
    require(problem is None, "10.castor-pollux", problem or "")
    require(order.copy in choices, "10.castor-pollux",
            f"{name(order.copy)} is not held by another empire"
            + (f"; copyable now: {', '.join(name(t) for t in choices)}" if choices else ""))


def end_turn(state: GameState, order: EndBuildTurn) -> list[ev.AnyEvent]:
    _require_builder(state, order.empire)
    events: list[ev.AnyEvent] = [ev.BuildTurnEnded(empire=order.empire)]
    if order.keep is not None:
        _require_keep(state, order.empire, order.keep, after_turn=False)
        events.append(ev.StorageChosen(empire=order.empire, keep=order.keep))
    return events


def keep(state: GameState, order: KeepCommodities) -> list[ev.AnyEvent]:
    _require_phase(state)
    _require_keep(state, order.empire, order.keep, after_turn=True)
    return [ev.StorageChosen(empire=order.empire, keep=order.keep)]


def _require_keep(state: GameState, emp: Empire, kept: tuple[Token, ...], after_turn: bool) -> None:
    section = "11.hanging-gardens"  # what is kept, and when it is chosen: ruling R38
    require(has_power(state, emp, "hanging-gardens"), section,
            f"only the Hanging Gardens let an empire keep commodities; {name(emp)} keeps at most 2 coins (3.0)")
    require(emp not in build_step(state).kept, section, f"{name(emp)} has already chosen what to keep")
    if after_turn:
        require(emp in build_step(state).done, section,
                f"{name(emp)} chooses what to keep after its build turn")
    require(len(kept) <= 2, section, "the Hanging Gardens keep at most 2 commodities")
    require(COIN not in kept, section, "the Hanging Gardens keep commodities; coins are kept anyway (2)")
    types = [commodity_of(t) for t in kept]
    require(len(set(types)) == len(types), section, "the 2 commodities kept must be different")
    payment.require_held(state, emp, {t: kept.count(t) for t in kept})


# --- options ------------------------------------------------------------------------------------------

def _pays(state: GameState, empire: Empire, cost: int) -> tuple[str, ...]:
    return tuple(payment.show(b) for b in payment.payment_hints(state, empire, cost))


def _template(template: str, pays: tuple[str, ...], parts: dict[str, tuple[str, ...]] | None = None,
              kind: str = "build") -> list[Option]:
    """One option when every part has legal values and the empire can pay; else none."""
    parts = parts or {}
    if not pays or any(not values for values in parts.values()):
        return []
    return [Option(kind=kind, template=template, parts={**parts, "payment": pays})]


def build_options(state: GameState, empire: Empire) -> list[Option]:
    """What the active builder may build now, as templates with legal places and payments."""
    out: list[Option] = []
    if markers_left(state, empire) > 0:
        places = tuple(control_places(state, empire))
        out += _template("build control in {province} pay {payment}",
                         _pays(state, empire, load_ruleset().costs.control), {"province": places})
        if places and _power_ready(state, empire, "hammurabi"):
            out.append(Option(kind="build", template="build control in {province} with hammurabi",
                              parts={"province": places}))
    return out + _unit_options(state, empire) + _building_options(state, empire) + _tile_options(
        state, empire, perseus=False)


def _power_ready(state: GameState, empire: Empire, power: str) -> bool:
    return has_power(state, empire, power) and power not in state.empires[empire].used  # type: ignore[arg-type]


def _unit_options(state: GameState, empire: Empire) -> list[Option]:
    costs = load_ruleset().costs.units
    held = state.empires[empire].resources
    provinces = tuple(p for p in sorted(state.provinces) if build_place_problem(state, empire, p) is None)
    places = {"legion": provinces, "trireme": tuple(s for s in sorted(state.seas)
                                                    if trireme_sea_problem(state, empire, s) is None),
              "fortress": tuple(p for p in provinces if state.provinces[p].fortress is None)}
    out: list[Option] = []
    for kind in ("legion", "fortress", "trireme"):
        if units_left(state, empire, kind) <= 0:
            continue
        noun = "sea" if kind == "trireme" else "province"
        where = {noun: places[kind]}
        out += _template(f"build {kind} in {{{noun}}} pay {{payment}}",
                         _pays(state, empire, costs[kind]), where)
        for power, (unit, commodity, _) in payment.CHEAP_UNITS.items():
            if unit == kind and _power_ready(state, empire, power):
                cheap = tuple(t for t in (COIN, commodity, "legendary-" + commodity) if held.get(t, 0) > 0)
                out += _template(f"build {kind} in {{{noun}}} with {power} pay {{payment}}", cheap, where)
    capital = capital_of(state, empire)
    if _power_ready(state, empire, "penthesilea") and penthesilea_legions(state, empire) > 0 and capital:
        out.append(Option(kind="build", order=f"build legion in {capital} with penthesilea"))
    return out


def _building_options(state: GameState, empire: Empire) -> list[Option]:
    costs = load_ruleset().costs.buildings
    out: list[Option] = []
    for pid in sorted(state.provinces):
        if build_place_problem(state, empire, pid) is not None:
            continue
        for kind in costs:
            free = tuple(free_spaces(state, pid, kind))
            if not free or buildings_left(state, kind) <= 0:
                continue
            pays = _pays(state, empire, costs[kind])
            if len(free) == 1:
                out += _template(f"build {kind} in {pid} pay {{payment}}", pays)
            else:
                out += _template(f"build {kind} in {pid} at {{space}} pay {{payment}}", pays, {"space": free})
    return out


def _tile_options(state: GameState, empire: Empire, perseus: bool) -> list[Option]:
    rs = load_ruleset()
    shown = [t for t in face_up(state) if t != "pyramids"]
    cost = tile_cost(state, empire, "caesar")  # any non-Pyramids tile: the cost goes by rank
    out: list[Option] = []
    copies = tuple(copyable(state, empire))
    if cost is not None and (not perseus or tile_rank(state, empire) == 5):
        pays = _pays(state, empire, cost)
        heroes = tuple(t for t in shown if tile(rs, t).kind == "hero"
                       and not (t == "castor-pollux" and copies))
        wonders = tuple(t for t in shown if tile(rs, t).kind == "wonder")
        out += _template(("perseus" if perseus else "recruit") + " {hero} pay {payment}", pays, {"hero": heroes},
                         "tile")
        out += _template(("perseus" if perseus else "build") + " {wonder} pay {payment}", pays, {"wonder": wonders},
                         "tile")
        if "castor-pollux" in shown and copies:
            out += _template(("perseus" if perseus else "recruit")
                             + " castor-pollux copy {hero} pay {payment}", pays, {"hero": copies}, "tile")
    if "pyramids" in face_up(state):
        out += _template(("perseus" if perseus else "build") + " pyramids pay {payment}",
                         _pays(state, empire, rs.costs.pyramids), None, "tile")
    return out


def perseus_options(state: GameState, empire: Empire) -> list[Option]:
    """Perseus's winning builds the empire can pay for now (10.perseus)."""
    return _tile_options(state, empire, perseus=True)


def keep_choices(state: GameState, empire: Empire) -> list[Option]:
    """The Hanging Gardens holder's choices: nothing, or one or two different commodities."""
    held = sorted(t for t in state.empires[empire].resources if commodity_of(t) is not None)
    pairs = [f"{a} {b}" for i, a in enumerate(held) for b in held[i + 1:]
             if commodity_of(a) != commodity_of(b)]
    return [Option(kind="keep", order="keep nothing"),
            Option(kind="keep", template="keep {commodities}",
                   parts={"commodities": (*held, *pairs)})]
