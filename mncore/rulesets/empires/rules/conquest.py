"""Conquest (4.3): pillage, occupation of buildings and of the control marker, conversion, Circe's caravans."""

from __future__ import annotations

from mncore.core.dice import Rng
from mncore.core.errors import InvalidCommand, refuse, require
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires import tile_powers as powers
from mncore.rulesets.empires.board import geo
from mncore.rulesets.empires.commands import HoldConquest, OccupyBuildings, OccupyMarker, Pillage, PlaceCirceLegion
from mncore.rulesets.empires.display_names import title
from mncore.rulesets.empires.game_data import load_ruleset
from mncore.rulesets.empires.ids import COIN, EMPIRES, Empire, ProvinceId, legendary
from mncore.rulesets.empires.kept import standing
from mncore.rulesets.empires.kept import trireme_seas as kept_seas
from mncore.rulesets.empires.random_draws import LegendaryDraws
from mncore.rulesets.empires.rules import guards, troia
from mncore.rulesets.empires.rules.battle import empires_at, place_name
from mncore.rulesets.empires.state import Bag, GameState, ProvinceState, move_step

# --- who holds what ---------------------------------------------------------------------------------

def placements(ps: ProvinceState, empire: Empire) -> int:
    """How many of the empire's legions stand on buildings, the marker or caravan spaces there."""
    return (sum(1 for e in ps.occupied.values() if e == empire) + int(ps.marker_occupier == empire)
            + sum(1 for e in ps.circe.values() if e == empire))


def free_legions(ps: ProvinceState, empire: Empire) -> int:
    return ps.legions.get(empire, 0) - placements(ps, empire)


def _ended(ps: ProvinceState, pid: ProvinceId, empire: Empire, reason: str,
           keep_circe: bool = False) -> ev.OccupationsEnded | None:
    spaces = tuple(sorted(s for s, e in ps.occupied.items() if e == empire))
    circe = () if keep_circe else tuple(sorted(s for s, e in ps.circe.items() if e == empire))
    marker = ps.marker_occupier == empire
    if not (spaces or circe or marker):
        return None
    return ev.OccupationsEnded(empire=empire, province=pid, spaces=spaces, marker=marker, circe=circe,
                               reason=reason)


def settle_occupations(state: GameState, pid: ProvinceId, battle: bool = True) -> list[ev.AnyEvent]:
    """Occupations that end now in a province: too few legions left to hold them (ruling R43), or
    several empires' units there after its battle (4.3: at war, the Conqueror occupies nothing).
    battle=False: units lost to a War card before any battle there, which end only the first (R235)."""
    ps = state.provinces[pid]
    if not (ps.occupied or ps.marker_occupier or ps.circe):
        return []  # nothing occupied there: every move and battle settles a province, most hold none
    step = move_step(state)
    settled = not any(x.place == pid for x in step.losses)
    war = battle and settled and len(empires_at(state, pid)) > 1
    out: list[ev.AnyEvent] = []
    for emp in EMPIRES:
        if emp not in state.empires or not placements(ps, emp):
            continue
        found = None
        if free_legions(ps, emp) < 0:
            found = _ended(ps, pid, emp, "too few legions left to hold them")
        elif war and (ps.occupied or ps.marker_occupier):
            found = _ended(ps, pid, emp, "the province is at war", keep_circe=True)
        if found is not None:
            out.append(found)
    return out


def is_capital_province(state: GameState, pid: ProvinceId) -> bool:
    """A capital city province: its control marker is printed and never converted (4.3.5)."""
    return any(s.kind == "capital" for s in geo(state.geo_board).province(pid).spaces)


def trireme_seas(state: GameState, empire: Empire) -> frozenset[str]:
    return kept_seas(state, empire)


def reaches_own(state: GameState, empire: Empire, pid: ProvinceId) -> bool:
    """Whether the province is adjacent to or adjoining one of the empire's provinces (4.3.3)."""
    g = geo(state.geo_board)
    seas = trireme_seas(state, empire)
    return any(g.adjacent_or_adjoining(own, pid, seas) for own, ps in state.provinces.items()
               if ps.controller == empire and own != pid)


def markers_left(state: GameState, empire: Empire) -> int:
    """Control markers still in the empire's supply: capital provinces' markers are printed (4.3.5)."""
    used = sum(1 for pid, ps in state.provinces.items()
               if ps.controller == empire and not is_capital_province(state, pid))
    return load_ruleset().components.control_markers - used


# --- the conquests open to the active empire ----------------------------------------------------------

def conquerable(state: GameState, empire: Empire, pid: ProvinceId) -> bool:
    """The empire alone has units in a province an opponent controls: it is the Conqueror (4.3), battle
    or not (ruling R46)."""
    ps = state.provinces[pid]
    # its own units there, read off the province first: this is asked of the whole board each turn
    return (ps.controller not in (None, empire) and (ps.legions.get(empire, 0) > 0 or ps.fortress == empire)
            and empires_at(state, pid) == [empire]
            and not guards.no_conquest(state, pid))


def open_conquests(state: GameState) -> list[ProvinceId]:
    """The provinces where the active empire is Conqueror and has not chosen yet this turn."""
    step = move_step(state)
    if step.active is None:
        return []
    # a Conqueror has units there: only where they stand (kept.standing, sorted), not the whole board
    return [pid for pid in standing(state, step.active)
            if pid not in step.decided and conquerable(state, step.active, pid)]


def _require_conqueror(state: GameState, empire: Empire, pid: ProvinceId) -> ProvinceState:
    step = move_step(state)
    name = place_name(state, pid)
    shelter = guards.no_land_battle(state, pid)  # nor conquest (Athena, Halicarnassus)
    require(shelter is None, *(shelter or ("", "")))
    require(state.phase == "move" and step.active == empire, "4.3",
            "only the active empire chooses a conquest, in its Move and Battle turn")
    # each refusal worded only when it refuses
    if any(x.place == pid for x in step.losses):
        refuse("4.2", f"the losses of the battle in {name} are still to be chosen")
    if not conquerable(state, empire, pid):
        refuse("4.3", f"{title(empire)} is not the Conqueror of {name}: it must be the only empire with units "
               "in a province an opponent controls")
    if pid in step.decided:
        refuse("4.3", f"{title(empire)} already chose what to do in {name} this turn")
    return state.provinces[pid]


def _previous(ps: ProvinceState, pid: ProvinceId, empire: Empire, keep: tuple[str, ...] = (),
              keep_marker: bool = False) -> list[ev.AnyEvent]:
    """The conqueror's earlier occupations that a new choice replaces (4.3: he chooses again)."""
    spaces = tuple(sorted(s for s, e in ps.occupied.items() if e == empire and s not in keep))
    marker = ps.marker_occupier == empire and not keep_marker
    if not (spaces or marker):
        return []
    return [ev.OccupationsEnded(empire=empire, province=pid, spaces=spaces, marker=marker,
                                reason="a new choice")]


# --- the choices ----------------------------------------------------------------------------------------

def sheba_problem(state: GameState, empire: Empire, pid: ProvinceId) -> tuple[str, str] | None:
    """Why the Queen of Sheba cannot convert this marker now, as (section, reason), or None."""
    ps = state.provinces[pid]
    held = powers.powers_of(state, empire, "convert_at_once")
    if not held:
        return "10.queen-of-sheba", f"{title(empire)} does not have the {powers.names_at('convert_at_once')}"
    sheba = held[0]
    if all(t.id in state.empires[empire].used for t in held):
        return sheba.section, f"the {sheba.name} converts once per round, and was used this round"
    if ps.marker_occupier == empire and ps.marker_round != state.round:
        return (sheba.section, f"the {sheba.name} converts in the round the marker is first "
                f"occupied; {title(empire)} has occupied it since round {ps.marker_round}")
    if markers_left(state, empire) <= 0:
        return "R41", f"{title(empire)} has no control marker left in its supply"
    return None


def pillage(state: GameState, order: Pillage, rng: Rng) -> list[ev.AnyEvent]:
    """4.3.1: destroy one building, gain its pillage income (doubled by Hamilcar)."""
    ps = _require_conqueror(state, order.empire, order.province)
    name = place_name(state, order.province)
    require(order.space in ps.buildings, "4.3.1", f"there is no building on {order.space} in {name}")
    kind = ps.buildings[order.space]
    sanctuary = guards.sanctuary(state, order.province)
    require(sanctuary is None, *(sanctuary or ("", "")))
    special = powers.pillage(state, order.empire, kind)
    if kind == "legendary" and special is None:
        require(order.take is not None, "4.3.1",
                "pillaging a legendary city gives a coin or a legendary commodity: add 'take coin' or "
                "'take legendary'")
    else:
        require(order.take is None, "4.3.1", "'take' only applies to a legendary city pillaged "
                                              "without Hamilcar")
    out = _previous(ps, order.province, order.empire)
    gained, drawn = _pillage_income(state, order, special or _base_yield(kind, order.take), rng)
    rebuilt = troia.rebuilt_after_pillage(state, order.empire, kind, ps.controller)  # Agamemnon (R232)
    return out + drawn + [ev.Pillaged(empire=order.empire, province=order.province, space=order.space,
                                      kind=kind, gained=gained), *rebuilt]


def _base_yield(kind: str, take: str | None) -> powers.PillageYield:
    """What a pillage pays without a power (4.3.1): a legendary city pays what the conqueror takes."""
    if kind in ("city", "capital"):
        return powers.PillageYield(coins=1)
    if kind == "caravan":
        return powers.PillageYield(commodities=1)
    if kind == "legendary":
        return powers.PillageYield(coins=int(take == "coin"), legendaries=int(take == "legendary"))
    return powers.PillageYield()


def _pillage_income(state: GameState, order: Pillage, pays: powers.PillageYield, rng: Rng
                    ) -> tuple[Bag, list[ev.AnyEvent]]:
    coins, commodities, legendaries = pays
    gained: Bag = {}
    # the reserve is limited (9.0): only what is left can be taken
    if coins:
        gained[COIN] = min(coins, state.supply.get(COIN, 0))
    if commodities:
        _, space = geo(state.geo_board).space(f"{order.province}/{order.space}")
        assert space.commodity is not None
        gained[space.commodity] = min(commodities, state.supply.get(space.commodity, 0))
    events: list[ev.AnyEvent] = []
    if legendaries:
        draws = LegendaryDraws(state, rng)
        drawn, reshuffled = draws.draw(order.empire)
        events += [ev.LegendaryPileReshuffled()] if reshuffled else []
        events += draws.used  # fixed in a sandbox (R7)
        if drawn is not None:
            gained[legendary(drawn)] = 1
    return {t: n for t, n in gained.items() if n}, events


def occupy_buildings(state: GameState, order: OccupyBuildings) -> list[ev.AnyEvent]:
    """4.3.2: one legion on each building chosen."""
    ps = _require_conqueror(state, order.empire, order.province)
    name = place_name(state, order.province)
    require(bool(order.spaces) and len(set(order.spaces)) == len(order.spaces), "4.3.2",
            "name each building to occupy once")
    for sid in order.spaces:
        require(sid in ps.buildings, "4.3.2", f"there is no building on {sid} in {name}")
    legions = ps.legions.get(order.empire, 0)
    require(len(order.spaces) <= legions, "4.3.2",
            f"{title(order.empire)} has {legions} legion(s) in {name}: one legion occupies one "
            f"building, so it cannot occupy {len(order.spaces)}")
    spaces = tuple(sorted(order.spaces))
    return _previous(ps, order.province, order.empire, keep=spaces) + [
        ev.BuildingsOccupied(empire=order.empire, province=order.province, spaces=spaces)]


def occupy_marker(state: GameState, order: OccupyMarker) -> list[ev.AnyEvent]:
    """4.3.3: a legion on the control marker; Sheba converts at once by sacrificing it."""
    ps = _require_conqueror(state, order.empire, order.province)
    name = place_name(state, order.province)
    require(not is_capital_province(state, order.province), "4.3.5",
            f"{name} is a capital city province: its control marker is printed and never converted")
    sanctuary = guards.sanctuary(state, order.province)  # a marker that cannot be converted (ruling R207)
    require(sanctuary is None, *(sanctuary or ("", "")))
    require(ps.legions.get(order.empire, 0) > 0, "4.3.3",
            f"{title(order.empire)} has no legion in {name} to put on the control marker")
    # only a marker the Conqueror could convert may be occupied (4.3.3 read as ruling R50)
    require(reaches_own(state, order.empire, order.province), "R50",
            f"{name} is neither adjacent to nor adjoining (through {title(order.empire)}'s triremes) a "
            f"province {title(order.empire)} controls, so its control marker could not be converted "
            "(4.3.3); pillage or occupy buildings instead (ruling R50)")
    out = _previous(ps, order.province, order.empire, keep_marker=True)
    if ps.marker_occupier != order.empire:
        out.append(ev.MarkerOccupied(empire=order.empire, province=order.province))
    else:
        out.append(ev.ConquestHeld(empire=order.empire, province=order.province))
    if order.sheba:
        problem = sheba_problem(state, order.empire, order.province)
        if problem is not None:
            refuse(*problem)
        previous = ps.controller
        assert previous is not None
        out.append(ev.ControlConverted(empire=order.empire, province=order.province,
                                       previous=previous, sheba=True))
    return out


def hold(state: GameState, order: HoldConquest) -> list[ev.AnyEvent]:
    """4.3: choose nothing new; earlier occupations stay."""
    _require_conqueror(state, order.empire, order.province)
    return [ev.ConquestHeld(empire=order.empire, province=order.province)]


# --- conversion at the start of a turn (4.3.3, R40) -----------------------------------------------------

def conversions(state: GameState, empire: Empire) -> list[ev.AnyEvent]:
    """The markers the empire's legions still occupy are exchanged for its own, or only removed when it
    no longer reaches the province (9.0 Q&A); they wait while it has no marker left (R41). A capital
    province's printed marker is never converted (4.3.5)."""
    out: list[ev.AnyEvent] = []
    left: int | None = None  # counted at the first marker to convert: most turns convert none
    for pid, ps in sorted((p, ps) for p, ps in state.provinces.items() if ps.marker_occupier == empire):
        if ps.controller in (None, empire):
            continue
        if is_capital_province(state, pid):
            continue  # a printed marker is never converted (4.3.5), however a legion came to stand on it
        if guards.sanctuary(state, pid) is not None:
            continue  # its controller's Moses protects it from conversion (10.moses)
        if not reaches_own(state, empire, pid):
            out.append(ev.ControlConverted(empire=empire, province=pid, previous=ps.controller,
                                           replaced=False))
        else:
            left = markers_left(state, empire) if left is None else left
            if left <= 0:
                continue
            left -= 1
            out.append(ev.ControlConverted(empire=empire, province=pid, previous=ps.controller))
    return out


# --- Circe (10.circe, R44) ----------------------------------------------------------------------------

def place_circe_legion(state: GameState, order: PlaceCirceLegion) -> list[ev.AnyEvent]:
    step = move_step(state)
    ps = state.provinces.get(order.province)
    if ps is None:
        raise InvalidCommand(f"unknown province '{order.province}'")
    name = place_name(state, order.province)
    require(powers.has_at(state, order.empire, "caravan_legions"), "10.circe",
            f"{title(order.empire)} does not have {powers.names_at('caravan_legions')}")
    require(state.phase == "move" and step.active == order.empire, "10.circe",
            "Circe's legions are placed during their empire's Move and Battle turn")
    require(ps.controller == order.empire, "R44",
            f"Circe's legions act as caravans only in provinces their empire controls; "
            f"{name} is not {title(order.empire)}'s")
    spaces = {s.id: s for p in state.geo_board.provinces if p.id == order.province for s in p.spaces}
    space = spaces.get(order.space)
    if space is None:
        raise InvalidCommand(f"{name} has no space '{order.space}'")
    require(space.kind == "caravan", "10.circe", f"{order.space} in {name} is not a caravan space")
    require(order.space not in ps.buildings and order.space not in ps.circe, "10.circe",
            f"the caravan space {order.space} in {name} is not empty")
    require(free_legions(ps, order.empire) > 0, "10.circe",
            f"{title(order.empire)} has no free legion in {name}")
    return [ev.CirceLegionPlaced(empire=order.empire, province=order.province, space=order.space)]


def circe_spaces(state: GameState, empire: Empire) -> list[tuple[ProvinceId, str]]:
    """The empty caravan spaces where the empire's Circe may place a free legion now (R44)."""
    if not powers.has_at(state, empire, "caravan_legions") or move_step(state).active != empire:
        return []
    g = geo(state.geo_board)
    return [(pid, s.id) for pid, ps in sorted(state.provinces.items())
            if ps.controller == empire and free_legions(ps, empire) > 0
            for s in g.province(pid).spaces
            if s.kind == "caravan" and s.id not in ps.buildings and s.id not in ps.circe]
