"""The sampler as it was before it was made cheaper (main at 49fc8a4), kept unchanged as the reference
that tests/test_sampler_same.py compares the sampler's enumeration and games with."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TypeVar

from mncore.core.dice import Rng
from mncore.rulesets.empires.board import geo
from mncore.rulesets.empires.flow import pending, rules_for
from mncore.rulesets.empires.game_data import load_ruleset, tile
from mncore.rulesets.empires.ids import Empire, ProvinceId, UnitKind
from mncore.rulesets.empires.players.autoplay import STYLES, Choice, candidate_lines, first_accepted, waiting_empire
from mncore.rulesets.empires.rules import payment
from mncore.rulesets.empires.rules.battle import enemies_at
from mncore.rulesets.empires.rules.buildable import (
    buildings_left,
    capital_of,
    control_places,
    face_up,
    free_spaces,
    is_pyramids,
    markers_left,
    may_build_in,
    may_build_trireme,
    rank_cost,
    units_left,
)
from mncore.rulesets.empires.rules.military import (
    legion_destinations,
    required_battles,
    unmoved_legions,
    unmoved_triremes,
)
from mncore.rulesets.empires.state import GameState, build_step, move_step

# (the first word of its orders, which the player's style weighs; its order lines, built when tried)
Family = tuple[str, Callable[[], Iterable[str]]]

T = TypeVar("T")

TRIES = 4  # places a lazy family tries before it gives way to the next


def draw(state: GameState, rand: random.Random, rng: Rng, style: str = "random",
         styles: dict[Empire, str] | None = None) -> Choice | None:
    """One legal order (with its events) for one of the empires the game waits for, or None if
    nobody must act: the first line of lines() that decide() accepts."""
    empire = waiting_empire(state, rand)
    if empire is None:
        return None
    return draw_for(state, empire, rand, rng, STYLES[(styles or {}).get(empire, style)])


def draw_for(state: GameState, empire: Empire, rand: random.Random, rng: Rng, weights: dict[str, float]) -> Choice:
    """One legal order (with its events) for the empire: the first line of lines() that decide() accepts."""
    tried = 0

    def counted() -> Iterator[str]:
        nonlocal tried
        for line in lines(state, empire, rand, weights):
            tried += 1
            yield line

    choice = first_accepted(state, empire, counted(), rng)
    if choice is not None:
        return choice
    raise RuntimeError(f"{empire} must act ({[p.text for p in pending(state) if p.empire == empire]}) "
                       f"but none of the {tried} orders drawn is accepted")


def lines(state: GameState, empire: Empire, rand: random.Random,
          weights: dict[str, float]) -> Iterator[str]:
    """The order lines the empire's player tries, in turn: each family of its phase in a random
    order weighed by the style (as choose() weighs lines), then every option the rules list."""
    families = _families(state, empire, rand)
    ranked = sorted(families, key=lambda f: -weights.get(f[0], 1.0) * rand.random())
    for _, family in ranked:
        yield from family()
    everything = [ln for option in rules_for(state.phase).options(state, empire)
                  for ln in candidate_lines(option, rand)]
    rand.shuffle(everything)
    yield from everything


def _families(state: GameState, empire: Empire, rand: random.Random) -> list[Family]:
    if state.phase == "build" and build_step(state).active == empire:
        return _build_families(state, empire, rand)
    if state.phase == "move" and move_step(state).active == empire and not move_step(state).losses:
        return _move_families(state, empire, rand)
    return []  # the other decisions are few: the rules' own list is cheap (trade, collect, titles)


# --- build (3.1): what the active builder draws -----------------------------------------------------------

def _build_families(state: GameState, empire: Empire, rand: random.Random) -> list[Family]:
    costs = load_ruleset().costs
    builds: list[Callable[[], list[str]]] = []  # one family, as choose() weighs every build line alike
    if markers_left(state, empire) > 0:
        builds.append(lambda: _paid(state, empire, rand, costs.control, [
            f"build control in {p}" for p in _some(rand, control_places(state, empire))]))
    kinds: tuple[UnitKind, ...] = ("legion", "fortress", "trireme")
    builds += [_unit(state, empire, rand, kind, costs.units[kind]) for kind in kinds
               if units_left(state, empire, kind) > 0]
    builds.append(lambda: _building(state, empire, rand))
    out: list[Family] = [("done", lambda: ["done"]), ("build", lambda: _each(rand, builds))]
    cost = rank_cost(state, empire)
    if cost is not None:
        out.append(("recruit", lambda: _tiles(state, empire, rand, cost)))
    return out


def _each(rand: random.Random, families: list[Callable[[], list[str]]]) -> Iterator[str]:
    """The lines of each family in a random order, each built when its turn comes."""
    for family in rand.sample(families, len(families)):
        yield from family()


def _unit(state: GameState, empire: Empire, rand: random.Random, kind: UnitKind, cost: int
          ) -> Callable[[], list[str]]:
    def family() -> list[str]:
        if kind == "trireme":
            seas = _first(rand, sorted(state.seas), lambda s: may_build_trireme(state, empire, s))
            return _paid(state, empire, rand, cost, [f"build trireme in {s}" for s in seas])
        may = _may_build_in(state, empire)
        provinces = _first(rand, sorted(state.provinces), lambda p: (
            may(p) and (kind == "legion" or state.provinces[p].fortress is None)))
        return _paid(state, empire, rand, cost, [f"build {kind} in {p}" for p in provinces])
    return family


def _building(state: GameState, empire: Empire, rand: random.Random) -> list[str]:
    costs = load_ruleset().costs.buildings
    kinds = [k for k in costs if buildings_left(state, k) > 0]
    if not kinds:
        return []
    kind = rand.choice(kinds)
    may = _may_build_in(state, empire)
    places = _first(rand, sorted(state.provinces), lambda p: may(p) and bool(free_spaces(state, p, kind)))
    out = []
    for pid in places:
        free = free_spaces(state, pid, kind)
        out.append(f"build {kind} in {pid}" + (f" at {rand.choice(free)}" if len(free) > 1 else ""))
    return _paid(state, empire, rand, costs[kind], out)


def _tiles(state: GameState, empire: Empire, rand: random.Random, cost: int) -> list[str]:
    """A face-up hero to recruit or wonder to build (the Pyramids, copies and Perseus are left to the
    rules' list of options)."""
    rs = load_ruleset()
    shown = [t for t in face_up(state) if not is_pyramids(t)]
    verbs = {"hero": "recruit", "wonder": "build"}
    picks = [f"{verbs[tile(rs, t).kind]} {t}" for t in _some(rand, shown) if tile(rs, t).kind in verbs]
    return _paid(state, empire, rand, cost, picks)


def _may_build_in(state: GameState, empire: Empire) -> Callable[[ProvinceId], bool]:
    """Whether build_place_problem() is None in a province, without the refusal's words; asked
    only of the capital's province and those the empire controls (the others are refused anyway)."""
    capital = capital_of(state, empire)

    def may(pid: ProvinceId) -> bool:
        ps = state.provinces.get(pid)
        return (ps is not None and (ps.controller == empire or pid == capital)
                and may_build_in(state, empire, pid))
    return may


def _paid(state: GameState, empire: Empire, rand: random.Random, cost: int, orders: list[str]) -> list[str]:
    """Each order with a way to pay cost drawn from the few the rules suggest (3.0)."""
    if not orders:
        return []
    ways = payment.payment_hints(state, empire, cost, limit=3)
    return [f"{order} pay {payment.show(rand.choice(ways))}" for order in orders] if ways else []


# --- move (4.1): the active mover's moves; battles and conquests come from the rules' list -------------------

def _move_families(state: GameState, empire: Empire, rand: random.Random) -> list[Family]:
    step = move_step(state)
    out: list[Family] = [("done", lambda: ["done"])]
    if step.stage != "battles":
        out.append(("move", lambda: _legion_moves(state, empire, rand)))
    if step.stage == "naval":
        out.append(("move", lambda: _trireme_moves(state, empire, rand)))
    out.append(("attack", lambda: _attacks(state, empire, rand)))
    return out


def _attacks(state: GameState, empire: Empire, rand: random.Random) -> list[str]:
    """Attacks at sea where the empire's triremes meet an enemy's, and the land battles due (4.2)."""
    step = move_step(state)
    out = []
    if step.stage in ("naval", "sea"):
        out += [f"attack {e} in {s}" for s in sorted(state.seas)
                if s not in step.battles and state.seas[s].get(empire, 0) for e in enemies_at(state, s, empire)]
    out += [f"attack {e} in {p}" for p in required_battles(state) for e in enemies_at(state, p, empire)]
    rand.shuffle(out)
    return out


def _legion_moves(state: GameState, empire: Empire, rand: random.Random) -> list[str]:
    sources = _first(rand, sorted(state.provinces), lambda p: unmoved_legions(state, empire, p) > 0)
    out = []
    for pid in sources:
        targets: list[ProvinceId] = legion_destinations(state, empire, pid)
        out += [f"move legion {pid} to {t}" for t in _some(rand, targets)]
    return out


def _trireme_moves(state: GameState, empire: Empire, rand: random.Random) -> list[str]:
    g = geo(state.geo_board)
    sources = _first(rand, sorted(state.seas), lambda s: unmoved_triremes(state, empire, s) > 0)
    return [f"move trireme {s} to {t}" for s in sources for t in _some(rand, sorted(g.sea_neighbours(s)))]


# --- drawing ------------------------------------------------------------------------------------------------

def _some(rand: random.Random, items: Sequence[T]) -> list[T]:
    """A few of the items, in a random order."""
    return rand.sample(items, min(TRIES, len(items)))


def _first(rand: random.Random, items: Sequence[T], ok: Callable[[T], bool]) -> list[T]:
    """Up to TRIES of the items that pass ok, tried in a random order: the test runs only until then."""
    out: list[T] = []
    for item in rand.sample(items, len(items)):
        if ok(item):
            out.append(item)
            if len(out) >= TRIES:
                break
    return out
