"""Which of a province's legions may move now: the Centaurs, the Myrmidons, the others (R55, R230, R236)."""

from __future__ import annotations

from typing import Literal

from mncore.core.errors import refuse, require
from mncore.rulesets.empires.commands import MoveLegions
from mncore.rulesets.empires.display_names import title
from mncore.rulesets.empires.ids import Empire, ProvinceId
from mncore.rulesets.empires.rules.battle import place_name
from mncore.rulesets.empires.state import GameState, MoveStep, move_step

Special = Literal["centaurs", "myrmidons"]
SPECIALS: tuple[Special, ...] = ("centaurs", "myrmidons")
_SECTION = {"centaurs": "atlas.chiron", "myrmidons": "10.achilles"}
_NAME = {"centaurs": "Centaurs", "myrmidons": "Myrmidons"}


def stands_in(state: GameState, empire: Empire, pid: ProvinceId, unit: Special) -> bool:
    es = state.empires.get(empire)
    return es is not None and (es.centaurs if unit == "centaurs" else es.myrmidons) == pid


def has_moved(step: MoveStep, unit: Special) -> bool:
    return step.centaurs_moved if unit == "centaurs" else step.myrmidons_moved


def second_steps(state: GameState, empire: Empire, pid: ProvinceId) -> int:
    """Legions that moved into pid this turn and may step again with Chariots: none if opponents are there."""
    step = move_step(state)
    if not step.chariots:
        return 0
    ps = state.provinces[pid]
    if any(n for e, n in ps.legions.items() if e != empire) or ps.fortress not in (None, empire):
        return 0
    return step.moved_legions.get(pid, 0) - step.twice.get(pid, 0)


def may_step(state: GameState, empire: Empire, pid: ProvinceId, unit: Special) -> bool:
    """The unit stands in pid and may move: unmoved, or once moved, a second step with Chariots from a
    province free of opponents (R236: all land units, the Centaurs and the Myrmidons included)."""
    if not stands_in(state, empire, pid, unit):
        return False
    step = move_step(state)
    if not has_moved(step, unit):
        return True
    return unit not in step.twice_units and second_steps(state, empire, pid) > 0


def plain(state: GameState, empire: Empire, pid: ProvinceId) -> tuple[int, int]:
    """The other legions in pid that may move: (not moved yet, second steps with Chariots)."""
    step = move_step(state)
    unmoved = state.provinces[pid].legions.get(empire, 0) - step.moved_legions.get(pid, 0)
    again = second_steps(state, empire, pid)
    for unit in SPECIALS:
        if may_step(state, empire, pid, unit):
            if has_moved(step, unit):
                again -= 1
            else:
                unmoved -= 1
    return unmoved, again


def require_move(state: GameState, order: MoveLegions) -> int:
    """Check which legions the order moves; the number of them making a second step (Chariots, R236).
    The named unit moves with the others; those take the legions that have not moved first."""
    emp, src = order.empire, order.from_province
    require(not (order.centaurs and order.myrmidons), "10.achilles",
            "the Myrmidons and the Centaurs move in separate orders")
    unit: Special | None = "centaurs" if order.centaurs else "myrmidons" if order.myrmidons else None
    unmoved, again = plain(state, emp, src)
    if unit is not None:
        require(stands_in(state, emp, src, unit), _SECTION[unit],
                f"{title(emp)}'s {_NAME[unit]} are not in {place_name(state, src)}")
        require(may_step(state, emp, src, unit), "4.1",
                f"{title(emp)}'s {_NAME[unit]} have moved this turn; each unit moves once"
                + (" (twice with Chariots, from a province free of opponents)" if move_step(state).chariots else ""))
    others = order.count - (unit is not None)
    if others > unmoved + again:  # worded only when it refuses: every legion move passes here
        refuse("4.1", _too_many(state, emp, src, unmoved + again))
    special_again = unit is not None and has_moved(move_step(state), unit)
    return int(special_again) + max(0, others - unmoved)


def _too_many(state: GameState, empire: Empire, src: ProvinceId, free: int) -> str:
    named = [f"'with {u}'" for u in SPECIALS if stands_in(state, empire, src, u)]
    besides = " and ".join(f"the {_NAME[u]}" for u in SPECIALS if stands_in(state, empire, src, u))
    return (f"{title(empire)} has {free} legion(s){' besides ' + besides if besides else ''} in "
            f"{place_name(state, src)} that have not moved this turn; each unit moves once"
            + (f"; move {besides} with {' or '.join(named)}" if named else ""))
