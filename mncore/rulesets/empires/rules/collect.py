"""Phase 1, Collect Resources (1.1, 1.2): what each empire's buildings yield, and the choices after."""

from __future__ import annotations

from collections.abc import Sequence

from mncore.core.cache import ObjectCache
from mncore.core.dice import Rng
from mncore.core.errors import require
from mncore.core.protocol import Option, Pending
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires import tile_powers
from mncore.rulesets.empires.board import Board, Province, Space
from mncore.rulesets.empires.commands import ChooseLegendaryBonus, CollectCommand, TakeColossusCommodity
from mncore.rulesets.empires.display_names import title
from mncore.rulesets.empires.ids import (
    COIN,
    COMMODITIES,
    EMPIRES,
    BuildingKind,
    Commodity,
    Empire,
    ProvinceId,
    legendary,
)
from mncore.rulesets.empires.kept import kept
from mncore.rulesets.empires.projections import holder_of
from mncore.rulesets.empires.random_draws import LegendaryDraws
from mncore.rulesets.empires.rules.fold import Fold
from mncore.rulesets.empires.state import Bag, GameState, ProvinceState, bag_add, collect_step

# The key under which legendary draws that could not be made are recorded in `missed` (ruling R20).
MISSED_LEGENDARY = "legendary"


def canonical(bag: Bag) -> Bag:
    """Keys sorted, as the stored (deterministic) JSON gives them back on replay."""
    return dict(sorted(bag.items()))


# --- what is owed ----------------------------------------------------------------------------------------

def _province_income(state: GameState, province: Province, ps: ProvinceState, empire: Empire,
                     legions: bool = True) -> tuple[Bag, int, list[str]]:
    """What one province yields to one empire: only the buildings it holds count (1.1, 4.3.2).
    `legions`: whether a power may add to it (tile_powers.caravan_legions is asked only then)."""
    gained, draws, sources = _held_income(province, ps, empire)
    if legions:
        market = "market" in (kind for sid, kind in ps.buildings.items() if holder_of(ps, sid) == empire)
        extra, lines = tile_powers.caravan_legions(state, province, ps, empire, market)
        gained, sources = bag_add(gained, extra), sources + lines
    return gained, draws, sources


def _held_income(province: Province, ps: ProvinceState, empire: Empire) -> tuple[Bag, int, list[str]]:
    """What the buildings the empire holds in a province yield; the same while its buildings, their
    occupiers and its controller are the ones last asked, so kept by its buildings dict (evolve keeps
    the object while they stand unchanged, as legions come and go: a new ProvinceState each time). The
    values handed out are never changed by their readers (bag_add and + copy)."""
    known = _INCOME(ps.buildings)
    found = known.get(empire)
    if found is None or found[0] is not province or found[1] is not ps.occupied or found[2] != ps.controller:
        found = known[empire] = (province, ps.occupied, ps.controller, _count_income(province, ps, empire))
    return found[3]


def _count_income(province: Province, ps: ProvinceState, empire: Empire) -> tuple[Bag, int, list[str]]:
    held = sorted((sid, kind) for sid, kind in ps.buildings.items() if holder_of(ps, sid) == empire)
    kinds = {kind for _, kind in held}
    # a temple or market doubles only for the empire holding it; alone it yields nothing (ruling R3)
    temple = "temple" in kinds
    market = "market" in kinds
    gained: Bag = {}
    draws = 0
    sources: list[str] = []
    for sid, kind in held:
        if kind not in _YIELDING:
            continue
        space = _space(province, sid)
        where = f"{province.name}, {space.name or title(sid)}"
        if kind in ("city", "capital"):
            n = 2 if temple else 1
            gained[COIN] = gained.get(COIN, 0) + n
            sources.append(f"{where}: {n} coin" + (" (doubled by the temple)" if temple else ""))
        elif kind == "legendary":
            gained[COIN] = gained.get(COIN, 0) + 1
            draws += 1
            sources.append(f"{where}: 1 coin and 1 legendary commodity")
        else:
            commodity = space.commodity
            assert commodity is not None, "a caravan space always shows its commodity"
            n = 2 if market else 1
            gained[commodity] = gained.get(commodity, 0) + n
            sources.append(f"{where}: {n} {commodity}" + (" (doubled by the market)" if market else ""))
    return gained, draws, sources


# per buildings dict of a ProvinceState: empire -> (the board's province, the occupiers and controller
# read, what it yields to that empire); a dict shared by two provinces is told apart by the province
_INCOME: ObjectCache[dict[str, BuildingKind], dict[Empire, tuple[Province, dict[str, Empire], Empire | None,
                                                                  tuple[Bag, int, list[str]]]]] = ObjectCache(
    lambda buildings: {}, limit=256)


# the buildings that yield by themselves (temples and markets only double others)
_YIELDING = frozenset({"city", "capital", "legendary", "caravan"})


def _space(province: Province, sid: str) -> Space:
    found = next((s for s in province.spaces if s.id == sid), None)
    if found is None:
        raise KeyError(sid)  # as a lookup of the province's spaces by id: a building on no space
    return found


def base_income(state: GameState, empire: Empire) -> tuple[Bag, int, list[str]]:
    """What the empire is owed this round (1.1, 10.circe, 11.temple-of-artemis) and legendary draws owed."""
    gained: Bag = {}
    draws = 0
    sources: list[str] = []
    # a province yields nothing to an empire holding none of its buildings, unless a power adds to it
    everywhere = tile_powers.has_at(state, empire, "caravan_legions")
    holdings = kept(state).holdings.get(empire, {})  # where it holds a building, carried by evolve
    board = state.geo_board
    if everywhere:
        places = board.provinces
    else:  # only where it holds a building, in the board's order (the order of the sources' words)
        index = _board_index(board)
        places = tuple(board.provinces[i] for i in sorted(index[p] for p in holdings if p in index))
    for province in places:
        ps = state.provinces.get(province.id)
        if ps is None:
            continue
        g, d, s = _province_income(state, province, ps, empire, everywhere)
        for token, n in g.items():  # summed in place: bag_add below leaves out any count of 0
            gained[token] = gained.get(token, 0) + n
        draws += d
        sources += s
    extra, lines = tile_powers.income(state, empire)
    gained, sources = bag_add(gained, extra), sources + lines
    return gained, draws, sources


# each province's place in its board's list, per board
_board_index: ObjectCache[Board, dict[ProvinceId, int]] = ObjectCache(
    lambda board: {p.id: i for i, p in enumerate(board.provinces)})


def legendary_bonuses(state: GameState, empire: Empire) -> list[ProvinceId]:
    """Provinces where the empire holds a legendary city and a temple: one bonus choice each (1.1)."""
    out = []
    for pid in sorted(kept(state).holdings.get(empire, {})):  # only where it holds a building (kept.py)
        ps = state.provinces[pid]
        held = [kind for sid, kind in ps.buildings.items() if holder_of(ps, sid) == empire]
        if "legendary" in held and "temple" in held:
            out.append(pid)
    return out


# --- sharing a short reserve (ruling R20) ------------------------------------------------------------------

def share_order(state: GameState) -> list[Empire]:
    """The Trade Leader first, then the fixed empire order, cyclically (ruling R20)."""
    playing = [e for e in EMPIRES if e in state.empires]
    leader = state.titles.get("trade")
    start = playing.index(leader) if leader in playing else 0
    return playing[start:] + playing[:start]


def share(owed: dict[Empire, int], available: int, order: Sequence[Empire]) -> dict[Empire, int]:
    """Hand out `available` items one at a time, round-robin in `order`, until everyone has his due."""
    if sum(owed.values()) <= available:
        return dict(owed)
    got = {e: 0 for e in owed}
    while available > 0:
        for e in order:
            if available > 0 and got.get(e, 0) < owed.get(e, 0):
                got[e] += 1
                available -= 1
    return got


# --- the collection -----------------------------------------------------------------------------------------

def collection(state: GameState, rng: Rng) -> list[ev.AnyEvent]:
    """Every empire's collection (1.1, 1.2), sharing out a short reserve by ruling R20."""
    order = share_order(state)
    owed = {emp: base_income(state, emp) for emp in state.empires}
    got: dict[Empire, Bag] = {emp: {} for emp in state.empires}
    missed: dict[Empire, Bag] = {emp: {} for emp in state.empires}
    for token in sorted({t for bag, _, _ in owed.values() for t in bag}):
        wants = {emp: owed[emp][0].get(token, 0) for emp in state.empires}
        given = share(wants, state.supply.get(token, 0), order)
        for emp in state.empires:  # each token once: a count is set, or left out when none
            if given[emp]:
                got[emp][token] = given[emp]
            if wants[emp] - given[emp]:
                missed[emp][token] = wants[emp] - given[emp]
    draws = LegendaryDraws(state, rng)
    before, after = _legendary_draws({emp: owed[emp][1] for emp in state.empires}, order, draws, missed)
    out: list[ev.AnyEvent] = list(draws.used)  # legendary commodities fixed in a sandbox (R7)
    for emp in state.empires:
        gained = bag_add(got[emp], before[emp])
        if gained or missed[emp]:
            out.append(ev.ResourcesCollected(empire=emp, gained=canonical(gained),
                                             sources=tuple(owed[emp][2]), missed=canonical(missed[emp]),
                                             drawn=sum(before[emp].values())))
    if any(after.values()):
        out.append(ev.LegendaryPileReshuffled())
        out += [ev.ResourcesCollected(empire=emp, gained=canonical(after[emp]),
                                      drawn=sum(after[emp].values()),
                                      sources=("legendary commodities drawn after the reshuffle",))
                for emp in state.empires if after[emp]]
    return out


def _legendary_draws(owed: dict[Empire, int], order: list[Empire], draws: LegendaryDraws,
                     missed: dict[Empire, Bag]) -> tuple[dict[Empire, Bag], dict[Empire, Bag]]:
    """The draws owed, round-robin (ruling R20): those before a reshuffle of the discard, and after."""
    before: dict[Empire, Bag] = {emp: {} for emp in owed}
    after: dict[Empire, Bag] = {emp: {} for emp in owed}
    left = dict(owed)
    while any(left.values()):
        for emp in order:
            if not left.get(emp):
                continue
            left[emp] -= 1
            drawn, reshuffled = draws.draw(emp)
            if drawn is None:
                missed[emp] = bag_add(missed[emp], {MISSED_LEGENDARY: 1})
                continue
            side = after if reshuffled else before
            side[emp] = bag_add(side[emp], {legendary(drawn): 1})
    return before, after


# --- the phase -------------------------------------------------------------------------------------------------

def begin(state: GameState, rng: Rng, fold: Fold) -> list[ev.AnyEvent]:
    """Collect automatically, then open the legendary-city and Colossus choices (1.1, 11.colossus)."""
    events = collection(state, rng)
    after = fold(events, state)
    choices = tuple((emp, pid) for emp in after.empires for pid in legendary_bonuses(after, emp)
                    if _coin_left(after) or _legendary_left(after))
    colossus = tuple(tile_powers.holders_at(after, "commodity_after_collect")) if _commodities_left(after) else ()
    if choices or colossus:
        events.append(ev.CollectChoicesOpened(legendary=choices, colossus=colossus))
    return events


def _coin_left(state: GameState) -> bool:
    return state.supply.get(COIN, 0) > 0


def _legendary_left(state: GameState) -> bool:
    return bool(state.legendary_pile or state.legendary_discard)


def _commodities_left(state: GameState) -> list[Commodity]:
    return [c for c in COMMODITIES if state.supply.get(c, 0) > 0]


def _city_name(state: GameState, pid: ProvinceId) -> str:
    province = next(p for p in state.geo_board.provinces if p.id == pid)
    city = next((s.name for s in province.spaces if s.kind == "legendary" and s.name), None)
    return f"{city} ({province.name})" if city else province.name


def pending(state: GameState) -> list[Pending]:
    step = collect_step(state)
    out = [Pending(empire=emp, kind="legendary-bonus",
                   text=f"take the extra coin or legendary commodity for {_city_name(state, pid)}: "
                        f"bonus {pid} coin, or bonus {pid} legendary")
           for emp, pid in step.legendary_choices]
    out += [Pending(empire=emp, kind="colossus",
                    text="take one commodity of your choice from the reserve: colossus COMMODITY")
            for emp in step.colossus]
    return out


def end(state: GameState, rng: Rng) -> list[ev.AnyEvent]:
    return []


def options(state: GameState, empire: Empire) -> list[Option]:
    step = collect_step(state) if state.phase == "collect" else None
    if step is None:
        return []
    out: list[Option] = []
    for emp, pid in step.legendary_choices:
        if emp != empire:
            continue
        if _coin_left(state):
            out.append(Option(kind="legendary-bonus", order=f"bonus {pid} coin"))
        if _legendary_left(state):
            out.append(Option(kind="legendary-bonus", order=f"bonus {pid} legendary"))
    if empire in step.colossus:
        out += [Option(kind="colossus", order=f"colossus {c}") for c in _commodities_left(state)]
    return out


def decide(state: GameState, order: CollectCommand, rng: Rng) -> list[ev.AnyEvent]:
    match order:
        case ChooseLegendaryBonus():
            return choose_bonus(state, order, rng)
        case TakeColossusCommodity():
            return take_colossus(state, order)


def choose_bonus(state: GameState, order: ChooseLegendaryBonus, rng: Rng) -> list[ev.AnyEvent]:
    """The extra coin or legendary commodity of a legendary city with a temple (1.1, ruling R22)."""
    require(state.phase == "collect", "1.1", "the legendary city bonus is chosen in the Collect phase")
    where = _city_name(state, order.province)
    require((order.empire, order.province) in collect_step(state).legendary_choices, "1.1",
            f"{title(order.empire)} has no bonus to choose for {where}: that needs a legendary city and "
            "a temple held in the province, and the bonus is chosen once a round")
    if order.take == "coin":
        require(_coin_left(state), "R20", "the reserve has no coin left; take the legendary commodity "
                                          "instead (ruling R20)")
        return [ev.LegendaryBonusTaken(empire=order.empire, province=order.province, take="coin",
                                       gained={COIN: 1})]
    require(_legendary_left(state), "R20", "no legendary commodity is left in the pile or the discard; "
                                           "take the coin instead (ruling R20)")
    draws = LegendaryDraws(state, rng)
    drawn, reshuffled = draws.draw(order.empire)
    assert drawn is not None, "checked above: the pile or the discard holds one"
    taken = ev.LegendaryBonusTaken(empire=order.empire, province=order.province, take="legendary",
                                   gained={legendary(drawn): 1})
    head: list[ev.AnyEvent] = [ev.LegendaryPileReshuffled()] if reshuffled else []
    return head + [*draws.used, taken]


def take_colossus(state: GameState, order: TakeColossusCommodity) -> list[ev.AnyEvent]:
    """One commodity of the holder's choice from the reserve, after everyone collected (11.colossus)."""
    require(state.phase == "collect", "11.colossus",
            "the Colossus of Rhodes gives its commodity in the Collect phase")
    require(order.empire in collect_step(state).colossus, "11.colossus",
            f"{title(order.empire)} may not take a commodity with the Colossus of Rhodes now: it does not "
            "hold it, or already took this round's commodity")
    left = ", ".join(title(c) for c in _commodities_left(state))
    require(state.supply.get(order.commodity, 0) > 0, "11.colossus",
            f"the reserve holds no {title(order.commodity)}; it holds: {left}")
    return [ev.ColossusCommodityTaken(empire=order.empire, commodity=order.commodity)]

