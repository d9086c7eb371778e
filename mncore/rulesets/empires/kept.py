"""Facts derived from the board, kept beside a state and carried forward by evolve instead of recounted.

Each empire's units on the board, the buildings it holds by kind, and the provinces where it holds one
(what leader levels, supply limits and income read), the buildings on the board by kind (what the
supply of buildings reads) and the provinces each empire controls (its control markers left, where it
may build) are sums over the provinces and seas. A state folded from one that has them gets them by
recounting only the provinces and seas evolve replaced (frozen Structs: an unchanged province is the
very same object). They live in the state's instance dict, not in its fields, so no encoding of a
state or of an event ever holds them: a state decoded or folded without them recounts them from scratch
the first time they are read.
"""

from __future__ import annotations

from mncore.core.cache import ObjectCache
from mncore.rulesets.empires.ids import BuildingKind, Empire, ProvinceId, SeaId
from mncore.rulesets.empires.state import GameState, ProvinceState

_KEY = "_kept"
# every empire's three leader levels (projections.levels_of), counted once per state object, carried
# only to a state that changed nothing they read: the provinces, seas, empires, cities and round
LEVELS = "_levels"


class Kept:
    """Per empire: legions, triremes and fortresses on the board; buildings held, by kind; provinces
    where it holds a building, with how many; every building on the board by kind, held or not; and
    per empire the provinces it controls. Zero counts are left out; never changed once made."""

    __slots__ = ("legions", "triremes", "fortresses", "held", "holdings", "built", "controlled")

    def __init__(self, legions: dict[Empire, int], triremes: dict[Empire, int], fortresses: dict[Empire, int],
                 held: dict[Empire, dict[BuildingKind, int]],
                 holdings: dict[Empire, dict[ProvinceId, int]], built: dict[BuildingKind, int],
                 controlled: dict[Empire, dict[ProvinceId, int]]) -> None:
        self.legions, self.triremes, self.fortresses = legions, triremes, fortresses
        self.held, self.holdings, self.built, self.controlled = held, holdings, built, controlled

    def as_tuple(self) -> tuple[object, ...]:
        """Comparable contents (tests: kept against recounted)."""
        return (self.legions, self.triremes, self.fortresses, self.held, self.holdings, self.built, self.controlled)


def kept(state: GameState) -> Kept:
    """The state's kept facts: carried by evolve, or counted now (once per state object)."""
    found: Kept | None = state.__dict__.get(_KEY)
    if found is None:
        found = recount(state)
        state.__dict__[_KEY] = found
    return found


def has_kept(state: GameState) -> bool:
    return _KEY in state.__dict__


def recount(state: GameState) -> Kept:
    """The facts counted from scratch over every province and sea."""
    out = Kept({}, {}, {}, {}, {}, {}, {})
    for pid, ps in state.provinces.items():
        _province(out, pid, ps, 1)
    for sea in state.seas.values():
        _sea(out, sea, 1)
    return out


def carry(before: GameState, after: GameState) -> None:
    """Give `after` the facts of `before` (if it has them) with the provinces and seas that changed
    between the two recounted; nothing when `before` has none (a bulk replay never pays for them).
    The leader levels counted on `before` (projections.levels_of) go with them while nothing they
    read changed."""
    if after is before:
        return
    levels = before.__dict__.get(LEVELS)
    if (levels is not None and after.provinces is before.provinces and after.seas is before.seas
            and after.empires is before.empires and after.cities is before.cities and after.round == before.round):
        after.__dict__[LEVELS] = levels  # a title claimed, a step moved on: the board and tiles as they were
    old: Kept | None = before.__dict__.get(_KEY)
    if old is None or _KEY in after.__dict__:  # a state's facts never change
        return
    if after.provinces is before.provinces and after.seas is before.seas:
        after.__dict__[_KEY] = old
        return
    units: list[tuple[ProvinceId, ProvinceState | None, ProvinceState | None]] = []
    buildings: list[tuple[ProvinceId, ProvinceState | None, ProvinceState | None]] = []
    if after.provinces is not before.provinces:
        for pid, was, ps in _replaced(before.provinces, after.provinces):
            # evolve replaces a province keeping the fields it did not change (the same objects):
            # a legion's move recounts no building, a building no legion
            if was is None or ps is None or was.legions is not ps.legions or was.fortress != ps.fortress:
                units.append((pid, was, ps))
            if (was is None or ps is None or was.buildings is not ps.buildings or was.occupied is not ps.occupied
                    or was.controller != ps.controller):
                buildings.append((pid, was, ps))
    seas = after.seas is not before.seas
    # only the tables that change are copied; the others are shared, never changed once made
    out = Kept(dict(old.legions) if units else old.legions, dict(old.triremes) if seas else old.triremes,
               dict(old.fortresses) if units else old.fortresses,
               {e: dict(v) for e, v in old.held.items()} if buildings else old.held,
               {e: dict(v) for e, v in old.holdings.items()} if buildings else old.holdings,
               dict(old.built) if buildings else old.built,
               {e: dict(v) for e, v in old.controlled.items()} if buildings else old.controlled)
    for _, was, ps in units:
        if was is not None:
            _units(out, was, -1)
        if ps is not None:
            _units(out, ps, 1)
    for pid, was, ps in buildings:
        if was is not None:
            _buildings(out, pid, was, -1)
        if ps is not None:
            _buildings(out, pid, ps, 1)
    if seas:
        _seas(out, before.seas, after.seas)
    after.__dict__[_KEY] = out


def _replaced(before: dict[ProvinceId, ProvinceState], after: dict[ProvinceId, ProvinceState]
              ) -> list[tuple[ProvinceId, ProvinceState | None, ProvinceState | None]]:
    """(province, its state before or None, after or None) for each province object replaced."""
    found: list[tuple[ProvinceId, ProvinceState | None, ProvinceState | None]] = []
    added = False
    get = before.get
    for pid, ps in after.items():
        was = get(pid)
        if was is not ps:
            found.append((pid, was, ps))
            added = added or was is None
    if added or len(before) != len(after):  # else the two hold the same provinces: none was removed
        found += [(pid, was, None) for pid, was in before.items() if pid not in after]
    return found


def _seas(out: Kept, before: dict[SeaId, dict[Empire, int]], after: dict[SeaId, dict[Empire, int]]) -> None:
    for sid, sea in after.items():
        was = before.get(sid)
        if was is not sea:
            if was is not None:
                _sea(out, was, -1)
            _sea(out, sea, 1)
    for sid, was in before.items():
        if sid not in after:
            _sea(out, was, -1)


def _add(counts: dict[str, int], key: str, n: int) -> None:
    total = counts.get(key, 0) + n
    if total:
        counts[key] = total
    else:
        counts.pop(key, None)


def _province(out: Kept, pid: ProvinceId, ps: ProvinceState, sign: int) -> None:
    _units(out, ps, sign)
    _buildings(out, pid, ps, sign)


def _units(out: Kept, ps: ProvinceState, sign: int) -> None:
    for emp, n in ps.legions.items():
        _add(out.legions, emp, sign * n)  # type: ignore[arg-type]
    if ps.fortress is not None:
        _add(out.fortresses, ps.fortress, sign)  # type: ignore[arg-type]


def _buildings(out: Kept, pid: ProvinceId, ps: ProvinceState, sign: int) -> None:
    """The province's buildings and its controller (both recounted where either changed)."""
    occupied, controller = ps.occupied, ps.controller
    if controller is not None:
        mine = out.controlled.setdefault(controller, {})
        _add(mine, pid, sign)
        if not mine:
            del out.controlled[controller]
    for sid, kind in ps.buildings.items():
        _add(out.built, kind, sign)  # type: ignore[arg-type]
        holder = occupied.get(sid, controller)
        if holder is not None:
            held = out.held.setdefault(holder, {})
            _add(held, kind, sign)  # type: ignore[arg-type]
            holdings = out.holdings.setdefault(holder, {})
            _add(holdings, pid, sign)
            if not held:  # an empire left holding nothing is left out, as in a recount
                del out.held[holder]
            if not holdings:
                del out.holdings[holder]


def _sea(out: Kept, sea: dict[Empire, int], sign: int) -> None:
    for emp, n in sea.items():
        _add(out.triremes, emp, sign * n)  # type: ignore[arg-type]


def standing(state: GameState, empire: Empire) -> tuple[ProvinceId, ...]:
    """The provinces where the empire has legions or a fortress, sorted: where its Move and Battle turn
    may have to fight or conquer. Counted once per provinces dict and empire (frozen with its state:
    most orders leave the board as it was, and a turn's questions ask it of one board)."""
    known = _standing(state.provinces)
    found = known.get(empire)
    if found is None:
        found = known[empire] = tuple(sorted(pid for pid, ps in state.provinces.items()
                                             if ps.legions.get(empire, 0) or ps.fortress == empire))
    return found


# per provinces dict: empire -> where it stands, filled as asked
_standing: ObjectCache[dict[ProvinceId, ProvinceState], dict[Empire, tuple[ProvinceId, ...]]] = ObjectCache(
    lambda provinces: {}, limit=64)


def trireme_seas(state: GameState, empire: Empire) -> frozenset[SeaId]:
    """The seas where the empire has triremes. Found once per seas dict and empire (frozen with its state:
    only trireme moves, builds and losses replace it, and every legion move and control marker asks)."""
    known = _trireme_seas(state.seas)
    found = known.get(empire)
    if found is None:
        found = known[empire] = frozenset(s for s, units in state.seas.items() if units.get(empire, 0) > 0)
    return found


# per seas dict: empire -> the seas holding its triremes, filled as asked
_trireme_seas: ObjectCache[dict[SeaId, dict[Empire, int]], dict[Empire, frozenset[SeaId]]] = ObjectCache(
    lambda seas: {}, limit=64)
