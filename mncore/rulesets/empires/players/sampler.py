"""Scripted players' orders drawn family by family, each family's lines built only when it is tried.

The families of a phase are tried in a random order weighed by the player's style, so that a turn costs
the few candidates a player tries instead of every option the rules can list (autoplay.choose lists
them all).

decide() stays the judge: a drawn line it refuses is skipped, and when no family gives an accepted
order the player falls back on every option the rules list, so that a player who must act always can.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from typing import TypeVar

from mncore.core.cache import ObjectCache
from mncore.core.dice import Rng
from mncore.rulesets.empires.board import geo
from mncore.rulesets.empires.flow import pending, rules_for, waiting
from mncore.rulesets.empires.game_data import Ruleset, load_ruleset
from mncore.rulesets.empires.ids import Empire, ProvinceId, SeaId, TileId, UnitKind
from mncore.rulesets.empires.kept import kept, standing
from mncore.rulesets.empires.kept import trireme_seas as seas_held
from mncore.rulesets.empires.players.autoplay import SAMPLES, STYLES, Choice, accepted, candidate_lines, waiting_empire
from mncore.rulesets.empires.players.permutations import choice, first_passing, sample, shuffle, shuffled
from mncore.rulesets.empires.rules import payment
from mncore.rulesets.empires.rules.battle import enemies_at
from mncore.rulesets.empires.rules.buildable import (
    buildings_kinds_left,
    capital_of,
    control_places,
    free_spaces,
    is_pyramids,
    markers_left,
    may_build_in,
    rank_cost,
    supply_left,
)
from mncore.rulesets.empires.rules.military import (
    legion_destinations,
    required_battles,
    unmoved_legions,
    unmoved_triremes,
)
from mncore.rulesets.empires.rules.trade import Offers, offer_sizes
from mncore.rulesets.empires.state import DisplayTile, GameState, build_step, move_step, trade_step

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
    for line in lines(state, empire, rand, weights):  # first_accepted's loop, counting the lines tried
        tried += 1
        choice = accepted(state, empire, line, rng)
        if choice is not None:
            return choice
    raise RuntimeError(f"{empire} must act ({[p.text for p in pending(state) if p.empire == empire]}) "
                       f"but none of the {tried} orders drawn is accepted")


def lines(state: GameState, empire: Empire, rand: random.Random,
          weights: dict[str, float]) -> Iterator[str]:
    """The order lines the empire's player tries, in turn: each family of its phase in a random
    order weighed by the style (as choose() weighs lines), then every option the rules list."""
    # only a builder's and a mover's turns have families (the other decisions are few: see _families)
    families = _families(_Ask(state, empire, rand)) if state.phase in _FAMILY_PHASES else []
    ranked = sorted(families, key=lambda f: -weights.get(f[0], 1.0) * rand.random())
    for _, family in ranked:
        yield from family()
    if state.phase == "trade" and _offers_only(state, empire):
        yield from _offer_lines(state, empire, rand)
        return
    everything: list[str] = []
    for option in rules_for(state.phase).options(state, empire):
        if option.order is not None:  # candidate_lines' own first answer, without a call and a list each
            everything.append(option.order)
        else:
            everything += candidate_lines(option, rand)
    shuffle(rand, everything)
    yield from everything


def _offers_only(state: GameState, empire: Empire) -> bool:
    """Whether the rules' options for the empire are the offer's template alone (trade.options)."""
    return trade_step(state).value is not None and {k for e, k in waiting(state) if e == empire} == {"offer"}


def _offer_lines(state: GameState, empire: Empire, rand: random.Random) -> Iterator[str]:
    """candidate_lines() of the offer's template, its offers read as drawn (trade.Offers: counted, and
    each made when tried) rather than listed (the first is mostly accepted): the same draws of the
    same lines, shuffled as everything else the rules list."""
    offers = Offers(state.empires[empire].resources, offer_sizes(state, empire, trade_step(state).value or 0))
    picks = [choice(rand, range(len(offers))) for _ in range(SAMPLES)] if offers else []
    shuffle(rand, picks)
    return (f"offer {offers[j]}" for j in picks)


class _Ask:
    """One decision's state, empire and random numbers, with what its families read more than once
    (the answers depend on the state alone, which one decision never changes)."""

    def __init__(self, state: GameState, empire: Empire, rand: random.Random) -> None:
        self.state, self.empire, self.rand = state, empire, rand
        self._hints: dict[int, list[str]] = {}
        self._may: dict[ProvinceId, bool] = {}  # may_build_in's answers: legions, fortresses, buildings and seas ask
        # made when first read (functools.cached_property takes a lock on each first read, in Python 3.11)
        self._provinces: list[ProvinceId] | None = None
        self._builds_in: frozenset[ProvinceId] | None = None
        self._trireme_seas: frozenset[SeaId] | None = None

    @property
    def provinces(self) -> list[ProvinceId]:
        found = self._provinces
        if found is None:
            found = self._provinces = _provinces_sorted(self.state.provinces)
        return found

    @property
    def builds_in(self) -> frozenset[ProvinceId]:
        """The provinces the rules' may_build_in() may answer yes for: those the empire controls and
        its capital's (the others are refused without asking the rules)."""
        found = self._builds_in
        if found is None:
            empire = self.empire
            out = set(kept(self.state).controlled.get(empire, ()))  # the provinces it controls (kept.py)
            capital = capital_of(self.state, empire)
            if capital is not None and capital in self.state.provinces:
                out.add(capital)
            found = self._builds_in = frozenset(out)
        return found

    def may_build_in(self, pid: ProvinceId) -> bool:
        """Whether build_place_problem() is None in a province, without the refusal's words."""
        found = self._may.get(pid)
        if found is None:
            found = self._may[pid] = pid in self.builds_in and may_build_in(self.state, self.empire, pid)
        return found

    @property
    def trireme_seas(self) -> frozenset[SeaId]:
        """The seas where the rules' may_build_trireme() is true: those touching a province where
        may_build_in() is (each province asked once, not once per sea it touches)."""
        found = self._trireme_seas
        if found is None:
            able = {p for p in self.builds_in if self.may_build_in(p)}
            coasts_of = geo(self.state.geo_board).coasts_of
            found = self._trireme_seas = frozenset(s for s in self.state.seas if not coasts_of(s).isdisjoint(able))
        return found

    def pay(self, cost: int) -> list[str]:
        """The few ways to pay cost that the rules suggest (3.0), as written in an order."""
        found = self._hints.get(cost)
        if found is None:
            ways = payment.payment_hints(self.state, self.empire, cost, limit=3)
            found = self._hints[cost] = [payment.show(w) for w in ways]
        return found


_FAMILY_PHASES = frozenset({"build", "move"})


class _SortedKeys:
    """sorted(places) of a dict of places, kept while the dict asked holds the places last sorted: those
    in play, which a game never changes, asked at most decisions of its builders and movers (checking
    the keys costs a third of sorting them). Never changed by its readers."""

    def __init__(self) -> None:
        self._last: tuple[frozenset[str], list[str]] = (frozenset(), [])  # replaced whole

    def __call__(self, places: Mapping[str, object]) -> list[str]:
        keys, found = self._last
        if places.keys() != keys:
            found = sorted(places)
            self._last = (frozenset(places), found)
        return found


_provinces_sorted, _seas_sorted = _SortedKeys(), _SortedKeys()


def _families(ask: _Ask) -> list[Family]:
    state, empire = ask.state, ask.empire
    if state.phase == "build" and build_step(state).active == empire:
        return _build_families(ask)
    if state.phase == "move" and move_step(state).active == empire and not move_step(state).losses:
        return _move_families(ask)
    return []  # the other decisions are few: the rules' own list is cheap (trade, collect, titles)


# --- build (3.1): what the active builder draws -----------------------------------------------------------

def _build_families(ask: _Ask) -> list[Family]:
    out: list[Family] = [("done", lambda: ["done"]), ("build", lambda: _each(ask.rand, _builds(ask)))]
    cost = rank_cost(ask.state, ask.empire)
    if cost is not None:
        out.append(("recruit", lambda: _tiles(ask, cost)))
    return out


def _builds(ask: _Ask) -> list[Callable[[], list[str]]]:
    """The build families (one family to the style, as choose() weighs every build line alike),
    asked what is left in the supply only when building is tried."""
    state, empire, rand = ask.state, ask.empire, ask.rand
    costs = load_ruleset().costs
    builds: list[Callable[[], list[str]]] = []
    if markers_left(state, empire) > 0:
        builds.append(lambda: _paid(ask, costs.control, [
            f"build control in {p}" for p in _some(rand, control_places(state, empire))]))
    kinds: tuple[UnitKind, ...] = ("legion", "fortress", "trireme")
    left = supply_left(state, empire)  # units_left() of each kind, the board's units counted once
    builds += [_unit(ask, kind, costs.units[kind]) for kind in kinds if left[kind] > 0]
    builds.append(lambda: _building(ask))
    return builds


def _each(rand: random.Random, families: list[Callable[[], list[str]]]) -> Iterator[str]:
    """The lines of each family in a random order, each built when its turn comes."""
    for family in shuffled(rand, families):
        yield from family()


def _unit(ask: _Ask, kind: UnitKind, cost: int) -> Callable[[], list[str]]:
    state, rand = ask.state, ask.rand

    def family() -> list[str]:
        if kind == "trireme":
            # with no way to pay, the seas found would give no line: their order is still drawn (the
            # random numbers used stay the same) but the rules are asked of none (a province's test
            # is cheaper than the payment hints, so legions and fortresses are tested first)
            seas = _first(rand, _seas_sorted(state.seas), _anything, ask.trireme_seas if ask.pay(cost) else ())
            return _paid(ask, cost, [f"build trireme in {s}" for s in seas])
        # likewise a province is tested only when some way to pay is found (its draws are made all the same)
        provinces = _first(rand, ask.provinces, lambda p: (
            (kind == "legion" or state.provinces[p].fortress is None) and ask.may_build_in(p)),
            ask.builds_in if ask.pay(cost) else ())
        return _paid(ask, cost, [f"build {kind} in {p}" for p in provinces])
    return family


def _building(ask: _Ask) -> list[str]:
    state, rand = ask.state, ask.rand
    costs = load_ruleset().costs.buildings
    kinds = buildings_kinds_left(state, costs)
    if not kinds:
        return []
    kind = choice(rand, kinds)
    spaces: dict[ProvinceId, list[str]] = {}  # the free spaces of each province tested, read again below

    def ok(pid: ProvinceId) -> bool:
        if not ask.may_build_in(pid):
            return False
        free = spaces[pid] = free_spaces(state, pid, kind)
        return bool(free)

    places = _first(rand, ask.provinces, ok, ask.builds_in)
    out = []
    for pid in places:
        free = spaces[pid]
        out.append(f"build {kind} in {pid}" + (f" at {choice(rand, free)}" if len(free) > 1 else ""))
    return _paid(ask, costs[kind], out)


def _tiles(ask: _Ask, cost: int) -> list[str]:
    """A face-up hero to recruit or wonder to build (the Pyramids, copies and Perseus are left to the
    rules' list of options)."""
    verbs = _verbs(load_ruleset())
    shown = _shown(ask.state.display)
    picks = [f"{verb} {t}" for t in _some(ask.rand, shown) if (verb := verbs[t])]
    return _paid(ask, cost, picks)


_VERBS = {"hero": "recruit", "wonder": "build"}  # the verb of a tile's order, by its kind

# per display (frozen with its state: only a tile taken or turned up replaces it): its face-up tiles
# but the Pyramids, as face_up() lists them; every builder's turn asks, and a phase leaves it as it was
_shown: ObjectCache[tuple[DisplayTile, ...], list[TileId]] = ObjectCache(
    lambda display: [d.tile for d in display if d.face_up and not is_pyramids(d.tile)], limit=16)
# per ruleset: each tile's verb (None: neither a hero nor a wonder)
_verbs: ObjectCache[Ruleset, dict[TileId, str | None]] = ObjectCache(
    lambda rs: {t.id: _VERBS.get(t.kind) for t in rs.tiles}, limit=8)


def _paid(ask: _Ask, cost: int, orders: list[str]) -> list[str]:
    """Each order with a way to pay cost drawn from the few the rules suggest (3.0)."""
    if not orders:
        return []
    ways = ask.pay(cost)
    rand = ask.rand
    return [f"{order} pay {choice(rand, ways)}" for order in orders] if ways else []


# --- move (4.1): the active mover's moves; battles and conquests come from the rules' list -------------------

def _move_families(ask: _Ask) -> list[Family]:
    step = move_step(ask.state)
    out: list[Family] = [("done", lambda: ["done"])]
    if step.stage != "battles":
        out.append(("move", lambda: _legion_moves(ask)))
    if step.stage == "naval":
        out.append(("move", lambda: _trireme_moves(ask)))
    out.append(("attack", lambda: _attacks(ask.state, ask.empire, ask.rand)))
    return out


def _attacks(state: GameState, empire: Empire, rand: random.Random) -> list[str]:
    """Attacks at sea where the empire's triremes meet an enemy's, and the land battles due (4.2)."""
    step = move_step(state)
    out = []
    if step.stage in ("naval", "sea"):  # the seas holding its triremes (kept per seas dict), not every sea
        out += [f"attack {e} in {s}" for s in sorted(seas_held(state, empire))
                if s not in step.battles for e in enemies_at(state, s, empire)]
    out += [f"attack {e} in {p}" for p in required_battles(state) for e in enemies_at(state, p, empire)]
    shuffle(rand, out)
    return out


def _legion_moves(ask: _Ask) -> list[str]:
    state, empire, rand = ask.state, ask.empire, ask.rand
    # a province with unmoved legions of the empire holds some of them: ask the rules only there (among
    # those where its units stand, kept once per board)
    holding = frozenset(p for p in standing(state, empire) if state.provinces[p].legions.get(empire, 0) > 0)
    sources = _first(rand, ask.provinces, lambda p: unmoved_legions(state, empire, p) > 0, holding)
    out = []
    for pid in sources:
        targets: list[ProvinceId] = legion_destinations(state, empire, pid)
        out += [f"move legion {pid} to {t}" for t in _some(rand, targets)]
    return out


def _trireme_moves(ask: _Ask) -> list[str]:
    state, empire, rand = ask.state, ask.empire, ask.rand
    g = geo(state.geo_board)
    sources = _first(rand, _seas_sorted(state.seas), lambda s: unmoved_triremes(state, empire, s) > 0)
    return [f"move trireme {s} to {t}" for s in sources for t in _some(rand, sorted(g.sea_neighbours(s)))]


def _anything(_: object) -> bool:
    return True  # the collection given to _first() holds only the items that pass


# --- drawing ------------------------------------------------------------------------------------------------

def _some(rand: random.Random, items: Sequence[T]) -> list[T]:
    """A few of the items, in a random order."""
    return sample(rand, items, min(TRIES, len(items)))


def _first(rand: random.Random, items: Sequence[T], ok: Callable[[T], bool],
           among: Collection[T] | None = None) -> list[T]:
    """Up to TRIES of the items that pass ok, tried in a random order: the test runs only until then,
    and only on those among the collection given (ok refuses the others)."""
    return first_passing(rand, items, ok, TRIES, among)
