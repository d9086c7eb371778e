"""The rules' quick answers (no words, read once per object) equal the questions they stand for."""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from pathlib import Path

import msgspec
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from mncore.games import transfer
from mncore.games.log_reading import decode_rows
from mncore.pbem import turns
from mncore.rulesets.empires import tile_powers
from mncore.rulesets.empires.board import geo
from mncore.rulesets.empires.game_data import load_ruleset
from mncore.rulesets.empires.ids import COIN, EMPIRES, Empire, Token, commodity_of, is_legendary
from mncore.rulesets.empires.rules import barbarian_orders, collect, guards, military, payment
from mncore.rulesets.empires.rules.battle import enemies_at, units_at
from mncore.rulesets.empires.rules.buildable import (
    build_place_problem,
    buildings_kinds_left,
    buildings_left,
    capital_of,
    control_places,
    control_problem,
    markers_left,
    may_build_in,
    may_build_trireme,
    may_control,
    trireme_sea_problem,
)
from mncore.rulesets.empires.rules.conquest import trireme_seas
from mncore.rulesets.empires.rules.military import legion_destinations, required_battles
from mncore.rulesets.empires.seam import RULESET
from mncore.rulesets.empires.state import (
    Bag,
    GameState,
    bag_add,
    bag_contains,
    bag_of,
    bag_tokens,
    build_step,
    move_step,
)
from support import FIVE, new_game

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
EMPIRES_FIXTURES = sorted(p for p in FIXTURES.glob("*.jsonl") if not p.name.startswith("classic"))


def _check(state: GameState, where: str) -> int:
    """Each quick answer against its long form, for the empire to act in Build and in Move and Battle,
    and each empire's income in Collect; how many were compared."""
    g = geo(state.geo_board)
    n = 0
    builder = build_step(state).active if state.phase == "build" else None
    if builder is not None:
        for place in g.board.provinces:
            assert may_build_in(state, builder, place.id) == (build_place_problem(state, builder, place.id) is None), \
                f"{where}: {builder} in {place.id}"
            assert may_control(state, builder, place.id) == (control_problem(state, builder, place.id) is None), \
                f"{where}: {builder}'s control marker in {place.id}"
        assert control_places(state, builder) == [p for p in sorted(state.provinces)
                                                  if control_problem(state, builder, p) is None], f"{where}: {builder}"
        for sea in state.seas:
            assert may_build_trireme(state, builder, sea) == (trireme_sea_problem(state, builder, sea) is None), \
                f"{where}: {builder}'s trireme in {sea}"
        capital = capital_of(state, builder)
        assert markers_left(state, builder) == load_ruleset().components.control_markers - sum(
            1 for pid, ps in state.provinces.items() if ps.controller == builder and pid != capital), where
        kinds = list(load_ruleset().costs.buildings)
        assert buildings_kinds_left(state, kinds) == [k for k in kinds if buildings_left(state, k) > 0], where
        for cost in range(1, 13):  # up to the dearest hero or wonder: most of those find no way to pay
            for limit in (3, 6):
                assert payment.payment_hints(state, builder, cost, limit) == _hints_as_before(
                    state, builder, cost, limit), f"{where}: {builder}'s ways to pay {cost}"
        n += 1
    mover = move_step(state).active if state.phase == "move" else None
    if mover is not None:
        step = move_step(state)
        battles = sorted({*(pid for pid in sorted(state.provinces)  # over the whole board, every enemy asked
                            if pid not in step.battles and units_at(state, pid, mover)
                            and any(not guards.exempt(state, pid, mover, e) for e in enemies_at(state, pid, mover))),
                          *barbarian_orders.required(state, mover)})
        assert military._required_battles(state) == battles, f"{where}: {mover}'s required battles, found again"
        first = required_battles(state)  # kept per state
        assert first == battles, f"{where}: {mover}'s required battles"
        first.clear()  # the caller's own list: what the state keeps is not changed by it
        assert required_battles(state) == battles, f"{where}: {mover}'s required battles asked again"
        n += 1
        seas = trireme_seas(state, mover)
        for pid, here in state.provinces.items():
            if here.legions.get(mover, 0):
                by_sea = [p for p in sorted(state.provinces) if p in g.adjacent(pid) or g.is_adjoining(pid, p, seas)]
                assert legion_destinations(state, mover, pid) == by_sea, f"{where}: {mover}'s legions in {pid}"
                n += 1
    for emp in state.empires:  # kept per seas dict
        assert trireme_seas(state, emp) == frozenset(s for s, units in state.seas.items() if units.get(emp, 0) > 0), \
            f"{where}: {emp}'s seas"
        n += 1
    for point in ("peace", "build_first", "keep_commodities", "commodity_after_collect"):  # kept per empires dict
        assert tile_powers.holders_at(state, point) == [e for e in EMPIRES if tile_powers.has_at(state, e, point)], \
            f"{where}: holders at {point}"
        n += 1
    if state.phase == "collect":
        for emp in state.empires:
            assert collect.base_income(state, emp) == _income_over_the_board(state, emp), f"{where}: {emp}'s income"
        for province in g.board.provinces:
            found = state.provinces.get(province.id)
            for emp in state.empires if found is not None else ():
                assert found is not None
                assert (collect._province_income(state, province, found, emp, False)
                        == collect._count_income(province, found, emp)), f"{where}: {emp}'s income in {province.id}"
                n += 1
    return n


def _hints_as_before(state: GameState, empire: Empire, cost: int, limit: int) -> list[Bag]:
    """payment.payment_hints as it was: every candidate made first, each type's count summed apart."""
    held = state.empires[empire].resources
    cleopatra, hannibal = tile_powers.set_rules(state, empire)

    def count(kind: str) -> int:
        return sum(n for t, n in held.items() if commodity_of(t) == kind)

    by_type: dict[str, Token] = {}  # each type's token to spend: the ordinary one before the legendary
    for token in sorted(held, key=is_legendary):
        kind = commodity_of(token)
        if kind is not None and held[token] > 0:
            by_type.setdefault(kind, token)
    plenty = sorted(by_type, key=lambda c: (-count(c), c))
    coins = held.get(COIN, 0)
    out: list[Bag] = [{COIN: cost}] if coins >= cost else []
    for order in (plenty, sorted(by_type)):
        if len(order) >= cost:
            out.append(bag_of([by_type[c] for c in order[:cost]]))
    if cleopatra and cost > 1:
        if coins >= cost - 1 and by_type:
            out.append({COIN: cost - 1, by_type[plenty[0]]: 1})
        if coins >= 1 and len(by_type) >= cost - 1:
            out.append(bag_of([COIN, *(by_type[c] for c in plenty[:cost - 1])]))
    if hannibal and cost > 1 and plenty and count(plenty[0]) >= 2:
        rest = plenty[1:cost - 1]
        if len(rest) == cost - 2:
            out.append(bag_of([*payment._two_of_type(held, plenty[0]), *(by_type[c] for c in rest)]))
    out += [bag_of([by_type[c] for c in combo])
            for combo in itertools.islice(itertools.combinations(sorted(by_type), cost), 12)]
    found: list[Bag] = []
    for bag in out:
        if (bag not in found and bag_contains(held, bag)
                and payment.set_problem(bag, cost, cleopatra, hannibal) is None):
            found.append(bag)
        if len(found) >= limit:
            break
    return found


def _income_over_the_board(state: GameState, empire: Empire) -> tuple[Bag, int, list[str]]:
    """collect.base_income asking every province of the board, as it did before holdings were kept."""
    gained: Bag = {}
    draws = 0
    sources: list[str] = []
    everywhere = tile_powers.has_at(state, empire, "caravan_legions")
    for province in state.geo_board.provinces:
        ps = state.provinces.get(province.id)
        if ps is None:
            continue
        g, d, s = collect._count_income(province, ps, empire)
        if everywhere:
            extra, lines = tile_powers.caravan_legions(state, province, ps, empire, "market" in (
                k for sid, k in ps.buildings.items() if ps.occupied.get(sid, ps.controller) == empire))
            g, s = bag_add(g, extra), s + lines
        gained, draws, sources = bag_add(gained, g), draws + d, sources + s
    extra, lines = tile_powers.income(state, empire)
    return bag_add(gained, extra), draws, sources + lines


@pytest.mark.parametrize("path", EMPIRES_FIXTURES, ids=lambda p: p.stem)
def test_quick_answers_equal_their_long_forms_after_every_event_of_a_golden_game(path: Path) -> None:
    _, rows = transfer.parse_export(path.read_bytes(), path.name)
    _, events = decode_rows(rows, path.name)
    state: GameState = RULESET.initial("")
    compared = 0
    for row, event in turns.live(rows, events):
        state = RULESET.evolve(state, event)
        if state.board is not None:
            compared += _check(state, f"{path.name} event {row.seq} ({row.type})")
    assert compared > 100


def _duplicate_problem_as_before(paid: Bag, hannibal: bool) -> tuple[str, str] | None:
    """payment._duplicate_problem as it was: the types counted over the payment's token list."""
    types = Counter(commodity_of(t) or t for t in bag_tokens(paid) if t != COIN)
    twice = sorted(t for t, n in types.items() if n > 1)
    if not twice:
        return None
    if hannibal and len(twice) == 1 and types[twice[0]] == 2:
        return None
    legendary_note = (" (a legendary commodity counts as its ordinary type, 1.2)"
                      if any(is_legendary(t) for t in paid) else "")
    if hannibal:
        return ("10.hannibal", f"a commodity set may use only one type twice, but {', '.join(twice)} "
                f"appear{'s' if len(twice) == 1 else ''} more often{legendary_note}")
    return "3.0", (f"the commodities of a set must all be different, but {', '.join(twice)} "
                   f"appear{'s' if len(twice) == 1 else ''} more than once{legendary_note}")


TOKENS = [COIN, "wine", "grain", "wood", "cloth", "gems", "marble", "legendary-wine", "legendary-gems", "unknown"]


@settings(max_examples=400, deadline=None)
@given(paid=st.dictionaries(st.sampled_from(TOKENS), st.integers(-2, 4), max_size=6), hannibal=st.booleans())
def test_duplicate_commodities_are_found_as_the_token_list_counts_them(paid: Bag, hannibal: bool) -> None:
    """payment._duplicate_problem, which counts the bag by type, says what counting its token list said."""
    assert payment._duplicate_problem(paid, hannibal) == _duplicate_problem_as_before(paid, hannibal)


@settings(max_examples=400, deadline=None)
@given(held=st.dictionaries(st.sampled_from(TOKENS), st.integers(0, 4), max_size=8), cost=st.integers(0, 9),
       cleopatra=st.booleans(), hannibal=st.booleans(), limit=st.sampled_from([3, 6, 60]))
# at the edges of the quick answers: as many types or coins as the cost, one fewer with a power's help
@example(held={"wine": 1, "grain": 1, "wood": 1}, cost=3, cleopatra=False, hannibal=False, limit=3)
@example(held={COIN: 3, "unknown": 1}, cost=3, cleopatra=False, hannibal=False, limit=3)
@example(held={COIN: 2, "wine": 1}, cost=3, cleopatra=True, hannibal=False, limit=3)
@example(held={"wine": 1, "legendary-wine": 1, "gems": 1}, cost=3, cleopatra=False, hannibal=True, limit=3)
def test_payment_hints_equal_every_candidate_checked(held: Bag, cost: int, cleopatra: bool, hannibal: bool,
                                                     limit: int) -> None:
    """payment.payment_hints, which checks only the sets it cannot vouch for and finds none at once without
    Cleopatra or Hannibal when too few coins and types are held, gives what checking every candidate gave,
    whatever the empire holds and its powers allow."""
    state = _one_state()
    state = msgspec.structs.replace(state, empires={**state.empires, "rome": msgspec.structs.replace(
        state.empires["rome"], resources=held)})
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tile_powers, "set_rules", lambda _state, _empire: tile_powers.SetRules(cleopatra, hannibal))
        assert payment.payment_hints(state, "rome", cost, limit) == _hints_as_before(state, "rome", cost, limit)


@functools.cache
def _one_state() -> GameState:
    return new_game(FIVE, seed="payment hints").state
