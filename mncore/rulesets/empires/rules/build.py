"""Phase 3, Build (3.0–3.2, 6.1, 6.2): the Culture Leader's order, what may be built where, storage."""

from __future__ import annotations

from typing import cast

from mncore.core.dice import Rng
from mncore.core.errors import InvalidCommand, refuse, require
from mncore.core.protocol import Option, Pending
from mncore.rulesets.empires import atlas, tile_powers
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.board import geo
from mncore.rulesets.empires.commands import (
    BuildBuilding,
    BuildCommand,
    BuildControl,
    BuildTile,
    BuildUnit,
    ChooseBuilder,
    EndBuildTurn,
    KeepCommodities,
)
from mncore.rulesets.empires.display_names import title as name  # a display name, in messages
from mncore.rulesets.empires.game_data import Tile, load_ruleset, tile
from mncore.rulesets.empires.ids import COIN, EMPIRES, Empire, TileId, Token, commodity_of, is_legendary
from mncore.rulesets.empires.random_draws import turned_up
from mncore.rulesets.empires.rules import atlantis, barbarians, build_options, payment, troia
from mncore.rulesets.empires.rules.buildable import (
    _copy_problem,
    build_place_problem,
    buildings_left,
    capital_of,
    control_problem,
    copyable,
    culture_leader,
    free_spaces,
    is_pyramids,
    keep_waiting,
    markers_left,
    occupied_provinces,
    penthesilea_legions,
    perseus_open,
    tile_cost,
    tile_rank,
    to_build,
    trireme_sea_problem,
    units_left,
)
from mncore.rulesets.empires.rules.fold import Fold
from mncore.rulesets.empires.rules.powers import has_power
from mncore.rulesets.empires.state import Bag, GameState, bag_sub, build_step

# --- the phase ---------------------------------------------------------------------------------------

def begin(state: GameState, rng: Rng, fold: Fold) -> list[ev.AnyEvent]:
    return []


def waiting(state: GameState) -> list[tuple[Empire, str]]:
    """pending() without its words, as (empire, kind): what settling asks after every order (3.0)."""
    step = build_step(state)
    # Perseus is open only before anything is built: its holders are looked for only then
    out: list[tuple[Empire, str]] = [
        (emp, "perseus") for emp in tile_powers.holders_at(state, "build_first")
        if build_options.perseus_options(state, emp)] if perseus_open(state) else []
    if step.active is not None:
        return out + [(step.active, "build")]
    left = to_build(state)
    if left:
        return out + [(culture_leader(state) or left[0], "builder")]
    return [(e, "keep") for e in keep_waiting(state)]


def pending(state: GameState) -> list[Pending]:
    step = build_step(state)
    out: list[Pending] = []
    for emp in tile_powers.holders_at(state, "build_first"):
        if perseus_open(state) and build_options.perseus_options(state, emp):
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
    return [Pending(empire=e, kind="keep", text=_keep_text(state, e)) for e in keep_waiting(state)]


def _keep_text(state: GameState, empire: Empire) -> str:
    gardens = tile_powers.powers_of(state, empire, "keep_commodities")
    return (f"keep up to {max(t.keep for t in gardens)} different commodities "
            f"({', '.join(t.name for t in gardens)})")


def end(state: GameState, rng: Rng) -> list[ev.AnyEvent]:
    return [*storage(state), *turn_up(state), *fifth_tile_victory(state)]


def storage(state: GameState) -> list[ev.AnyEvent]:
    """3.0: every empire keeps at most 2 coins (and Hanging Gardens' commodities); the rest goes."""
    kept = build_step(state).kept
    coins = load_ruleset().numbers.coins_kept
    out: list[ev.AnyEvent] = []
    for emp in (e for e in EMPIRES if e in state.empires):
        held = state.empires[emp].resources
        keep: Bag = {COIN: min(coins, held.get(COIN, 0))}
        for token in kept.get(emp, ()):
            keep[token] = keep.get(token, 0) + 1
        discarded = bag_sub(held, keep)
        if discarded:
            out.append(ev.ResourcesDiscarded(empire=emp, discarded=discarded,
                                             count=sum(discarded.values())))
    return out


def turn_up(state: GameState) -> list[ev.AnyEvent]:
    """Set-up step 5 (first games): face-down tiles turned up until as many tiles show again as the
    set-up showed (five; six with the Atlantis board, ruling R53)."""
    if state.options.display != "first-game":
        return []
    showing = sum(1 for d in state.display if d.face_up and not is_pyramids(d.tile))
    # the face-down order was drawn at set-up; a sandbox may fix the next tiles instead (R7)
    tiles, used = turned_up(state, max(0, atlas.face_up_first_game(state.options.setup) - showing))
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
    """What the empire may order now in the Build phase (templates in build_options)."""
    return build_options.options(state, empire)


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
    if state.phase != "build":  # worded only when refused: every order of the phase passes here
        refuse("3.0", f"building is done in the Build phase, not in the {name(state.phase)} phase")


def _require_builder(state: GameState, empire: Empire) -> None:
    _require_phase(state)
    active = build_step(state).active
    if active is None:
        leader = culture_leader(state)
        refuse("3.0", f"nobody is building now: the Culture Leader ({name(leader or 'nobody')}) "
                      "names the next builder")
    if active != empire:
        refuse("3.0", f"it is {name(active)}'s build turn, not {name(empire)}'s")


def choose_builder(state: GameState, order: ChooseBuilder) -> list[ev.AnyEvent]:
    _require_phase(state)
    step = build_step(state)
    waiting = to_build(state)
    leader = culture_leader(state) or (waiting[0] if waiting else None)
    if order.empire != leader:  # each refusal worded only when it refuses
        refuse("3.0", f"only the Culture Leader ({name(leader or 'nobody')}) names who builds next")
    if step.active is not None:
        refuse("3.0", f"{name(step.active)} is building now; the next builder is named when it is done")
    if order.builder not in state.empires:
        raise InvalidCommand(f"{name(order.builder)} is not in this game")
    if order.builder not in waiting:
        refuse("3.0", f"{name(order.builder)} has already built this phase; each empire builds once")
    return [ev.BuilderChosen(empire=order.empire, builder=order.builder)]


def build_control(state: GameState, order: BuildControl) -> list[ev.AnyEvent]:
    emp, pid = order.empire, order.province
    _require_builder(state, emp)
    geo(state.geo_board).province(pid)
    problem = control_problem(state, emp, pid)
    require(problem is None, "3.1.1", problem or "")
    if markers_left(state, emp) <= 0:  # worded only when it refuses
        refuse("3.1.1", f"{name(emp)} has no control marker left (7, the capital's printed one aside: ruling R30)")
    if order.power is not None and order.power in tile_powers.ids_at("coin_build"):
        payment.require_coin_price(state, emp, order.pay, order.power, "control")
    elif order.power is not None:
        require(order.power in tile_powers.ids_at("free_control"), "3.1.1",
                f"{name(order.power)} does not change what control costs")
        info = tile(load_ruleset(), order.power)
        _require_power(state, emp, info.id, info.section)
        require(not order.pay, info.section, f"{info.name}'s control marker is free: pay nothing")
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
    if atlantis.is_centaurs_power(order.power):
        return atlantis.rebuild(state, order)  # not a legion of the supply (atlas.chiron)
    if troia.is_myrmidons_power(order.power):
        return troia.rebuild(state, order)  # not a legion of the supply (10.achilles)
    if units_left(state, emp, kind) <= 0:  # worded only when it refuses: every unit built passes here
        refuse("3.1.2", f"all {name(emp)}'s {kind}s are on the board; no more than the game supplies (Q&A)")
    _require_unit_place(state, emp, kind, order.place)
    count = 1
    match order.power:
        case None:
            payment.require_set(state, emp, order.pay, payment.unit_cost(state, emp, kind), f"a {kind}")
        case power if power in tile_powers.ids_at("free_legions"):
            count = _penthesilea(state, order, tile(load_ruleset(), power))
        case power if (cheap := payment.cheap_unit(power)) is not None and cheap.unit == kind:
            _require_power(state, emp, power, tile(load_ruleset(), power).section)
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
    if kind == "fortress" and state.provinces[place].fortress is not None:  # worded only when it refuses
        refuse("3.1.2", f"{board.province(place).name} already has a fortress; at most one per province")


def _penthesilea(state: GameState, order: BuildUnit, info: Tile) -> int:
    emp, section = order.empire, info.section
    require(order.kind == "legion", section, f"{info.name}'s free units are legions")
    _require_power(state, emp, info.id, section)
    capital = capital_of(state, emp)
    require(order.place == capital, section,
            f"{info.name}'s legions are placed in {name(emp)}'s capital province ({name(capital or '')})")
    require(not order.pay, section, f"{info.name}'s legions are free: pay nothing")
    require(bool(occupied_provinces(state, emp)), section,
            f"none of {name(emp)}'s provinces holds opponent legions (ruling R32)")
    return penthesilea_legions(state, emp)


def build_building(state: GameState, order: BuildBuilding) -> list[ev.AnyEvent]:
    emp, pid, kind = order.empire, order.province, order.kind
    _require_builder(state, emp)
    where = geo(state.geo_board).province(pid).name
    problem = build_place_problem(state, emp, pid)
    require(problem is None, "3.1.2", problem or "")
    space = _space_for(state, order, where)
    if buildings_left(state, kind) <= 0:  # worded only when it refuses
        refuse("3.1.2", f"every {kind} building of the game is on the board (no more than the game supplies)")
    if order.power is not None:
        require(order.power in tile_powers.ids_at("coin_build"), "3.1.2",
                f"{name(order.power)} does not change what a {kind} costs")
        payment.require_coin_price(state, emp, order.pay, order.power, kind)
    else:
        payment.require_set(state, emp, order.pay, load_ruleset().costs.buildings[kind], f"a {kind}")
    return [ev.BuildingBuilt(empire=emp, province=pid, space=space, kind=kind, paid=order.pay,
                             power=order.power)]


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
    if order.kind not in spaces.values():  # each refusal worded only when it refuses
        refuse("3.1.2", f"{where} has no {order.kind} space printed on it; only printed spaces are built on")
    if not free:
        refuse("3.1.2", f"every {order.kind} space in {where} is already built on")
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
    rank = 0 if is_pyramids(tile_id) else tile_rank(state, emp)
    if cost is None:  # worded only when it refuses
        refuse("3.1.3", f"{name(emp)} already has five heroes and wonders")
    if order.perseus:
        _require_perseus(state, emp, tile_id, rank)
    _require_copy(state, order)
    payment.require_set(state, emp, order.pay, cost or 0, rs_tile.name)
    discounts = tuple(cast(TileId, t) for t in tile_powers.tile_discount(state, emp, rs_tile))
    events: list[ev.AnyEvent] = [ev.TileGained(empire=emp, tile=tile_id, paid=order.pay, rank=rank,
                                               copied=order.copy, perseus=order.perseus, discounts=discounts)]
    if is_pyramids(tile_id):
        events.append(ev.GameWon(empires=(emp,), condition="6.1",
                                 detail=f"{name(emp)} built the Pyramids"
                                        + (", building first with Perseus." if order.perseus else ".")))
    else:
        events += atlantis.on_recruit(state, emp, tile_id) + troia.on_recruit(state, emp, tile_id)
    if order.perseus and not is_pyramids(tile_id):
        events.append(ev.GameWon(empires=(emp,), condition="6.2",
                                 detail=f"{name(emp)} gained a fifth hero or wonder ({rs_tile.name}), "
                                        "building first with Perseus: at once (10.perseus)."))
    return events


def _require_on_display(state: GameState, tile_id: TileId) -> None:
    shown = {d.tile: d.face_up for d in state.display}
    owner = next((e for e, es in state.empires.items() if tile_id in es.tiles), None)
    # each refusal worded only when it refuses
    if owner is not None:
        refuse("3.1.3", f"{name(owner)} already has {name(tile_id)}")
    if tile_id not in shown:
        refuse("3.1.3", f"{name(tile_id)} is not on the Heroes & Wonders display")
    if not shown[tile_id]:
        refuse("3.1.3", f"{name(tile_id)} is face down on the display; only face-up tiles may be built")


def _require_perseus(state: GameState, emp: Empire, tile_id: TileId, rank: int) -> None:
    require(tile_powers.has_at(state, emp, "build_first"), "10.perseus",
            f"{name(emp)} does not hold {tile_powers.names_at('build_first')}")
    require(perseus_open(state), "10.perseus",
            "Perseus builds first: once something has been built this phase it is too late (ruling R33)")
    require(is_pyramids(tile_id) or rank == load_ruleset().numbers.tiles_to_win, "10.perseus",
            f"Perseus builds first only to win: the Pyramids or a fifth hero or wonder, and "
            f"{name(tile_id)} would be {name(emp)}'s hero/wonder number {rank}")


def _require_copy(state: GameState, order: BuildTile) -> None:
    if order.tile not in tile_powers.ids_at("copy_hero"):
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
    gardens = tile_powers.powers_of(state, emp, "keep_commodities")
    require(bool(gardens), section,
            f"only the {tile_powers.names_at('keep_commodities')} let an empire keep commodities; {name(emp)} "
            f"keeps at most {load_ruleset().numbers.coins_kept} coins (3.0)")
    most = max(t.keep for t in gardens)
    require(emp not in build_step(state).kept, section, f"{name(emp)} has already chosen what to keep")
    if after_turn:
        require(emp in build_step(state).done, section,
                f"{name(emp)} chooses what to keep after its build turn")
    if barbarians.punic_war(state):  # the Punic War's Hanging Gardens keep gold (ruling R68)
        problem = barbarians.gardens_problem(kept)
        require(problem is None, "R68", problem or "")
        payment.require_held(state, emp, {t: kept.count(t) for t in kept})
        return
    require(len(kept) <= most, section, f"the {gardens[0].name} keep at most {most} commodities")
    require(COIN not in kept, section, "the Hanging Gardens keep commodities; coins are kept anyway (2)")
    types = [commodity_of(t) for t in kept]
    twice = sorted({t for t in types if types.count(t) > 1 and t is not None})
    legendary = any(is_legendary(t) for t in kept)
    require(not twice, section,
            f"the commodities kept must be of different types, but {' and '.join(twice)} "
            f"{'is' if len(twice) == 1 else 'are'} kept twice"
            + (": a legendary commodity counts as its type (1.2, ruling R38)" if legendary else ""))
    payment.require_held(state, emp, {t: kept.count(t) for t in kept})
