"""Paying for builds (3.0): sets of coins or of different commodities, Cleopatra, Hannibal, special costs."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator

from mncore.core.cache import ObjectCache
from mncore.core.errors import refuse, require
from mncore.rulesets.empires import tile_powers
from mncore.rulesets.empires.game_data import CheapUnit, load_ruleset, tile, tiles_at
from mncore.rulesets.empires.ids import COIN, Empire, Token, UnitKind, commodity_of, is_legendary
from mncore.rulesets.empires.state import Bag, GameState, bag_contains, bag_tokens, bag_total


def cheap_unit(power: str) -> CheapUnit | None:
    """The unit a once-per-round power makes cost a single coin or commodity (3.1.2); None if none."""
    return next((t.cheap for t in tiles_at(load_ruleset(), "cheap_unit") if t.id == power), None)


def unit_cost(state: GameState, empire: Empire, kind: UnitKind) -> int:
    """What a unit of that kind costs the empire: 3.0's price, or less with a power such as Atlas's."""
    prices = [t.unit_costs[kind] for t in tile_powers.powers_of(state, empire, "unit_cost") if kind in t.unit_costs]
    return min([load_ruleset().costs.units[kind], *prices])


def show(paid: Bag) -> str:
    """A payment as the order grammar writes it: 'coin coin wine', or 'nothing'."""
    return " ".join(bag_tokens(paid)) or "nothing"


def set_problem(paid: Bag, cost: int, cleopatra: bool, hannibal: bool) -> tuple[str, str] | None:
    """Why paid is not one legal set of cost resources, as (section, reason); None if it is (3.0)."""
    size = bag_total(paid)
    if size != cost:
        return "3.0", f"it costs {cost} resources, but {size} are paid"
    coins = paid.get(COIN, 0)
    if coins == size:
        return None
    if coins == size - 1 and cleopatra:
        return None  # a coin set in which one commodity stands in for a coin (10.cleopatra)
    if coins > 1 or (coins == 1 and not cleopatra):
        if not cleopatra:
            return "3.0", "a set is either only coins or only commodities; coins and commodities do not mix"
        others = size - coins
        return ("10.cleopatra",
                "with Cleopatra a set may hold one resource of the other kind: one commodity among coins, "
                f"or one coin among commodities; {coins} coin{'s' * (coins != 1)} and {others} "
                f"commodit{'ies' if others != 1 else 'y'} is neither")
    return _duplicate_problem(paid, hannibal)


def _duplicate_problem(paid: Bag, hannibal: bool) -> tuple[str, str] | None:
    types: dict[str, int] = {}  # tokens by commodity type, a legendary one with its ordinary type
    for t, n in paid.items():
        if t != COIN and n > 0:  # as many as the payment's tokens list (bag_tokens)
            kind = commodity_of(t) or t
            types[kind] = types.get(kind, 0) + n
    twice = [t for t, n in types.items() if n > 1]
    if not twice:
        return None
    twice.sort()
    if hannibal and len(twice) == 1 and types[twice[0]] == 2:
        return None  # one commodity type used twice (10.hannibal)
    legendary_note = (" (a legendary commodity counts as its ordinary type, 1.2)"
                      if any(is_legendary(t) for t in paid) else "")
    if hannibal:
        return ("10.hannibal", f"a commodity set may use only one type twice, but {', '.join(twice)} "
                f"appear{'s' if len(twice) == 1 else ''} more often{legendary_note}")
    return "3.0", (f"the commodities of a set must all be different, but {', '.join(twice)} "
                   f"appear{'s' if len(twice) == 1 else ''} more than once{legendary_note}")


def require_held(state: GameState, empire: Empire, paid: Bag) -> None:
    """Refuse unless the empire holds every token it pays with (3.0)."""
    held = state.empires[empire].resources
    require(all(n > 0 for n in paid.values()), "3.0", "a payment counts each token at least once")
    if not bag_contains(held, paid):  # worded only when it refuses: every build's payment passes here
        refuse("3.0", f"{empire.title()} pays {show(paid)} but holds only {show(held)}")


def require_set(state: GameState, empire: Empire, paid: Bag, cost: int, what: str) -> None:
    """Refuse unless paid is held and is one legal set of cost resources for this empire (3.0)."""
    require_held(state, empire, paid)
    rules = tile_powers.set_rules(state, empire)
    problem = set_problem(paid, cost, rules.coin_swap, rules.one_type_twice)
    if problem is not None:
        section, reason = problem
        refuse(section, f"{what} cannot be paid with {show(paid)}: {reason}")


def require_cheap(state: GameState, empire: Empire, paid: Bag, power: str, what: str) -> None:
    """Refuse unless paid is the single coin or single commodity the power asks for (3.1.2)."""
    cheap = cheap_unit(power)
    assert cheap is not None, "the caller checked that the power makes a unit cheap"
    commodity, section = cheap.commodity, tile(load_ruleset(), power).section
    require_held(state, empire, paid)
    tokens = bag_tokens(paid)
    require(len(tokens) == 1 and (tokens[0] == COIN or commodity_of(tokens[0]) == commodity), section,
            f"{what} with {power.title()} costs 1 coin or 1 {commodity}, not {show(paid)}")


def payment_hints(state: GameState, empire: Empire, cost: int, limit: int = 6) -> list[Bag]:
    """A few legal ways for the empire to pay a set of cost resources from what it holds."""
    held = state.empires[empire].resources
    if len(held) < cost - 1 and held.get(COIN, 0) < cost - 1:
        # every candidate needs cost - 1 coins or cost - 1 types of commodity, and a type is a token held:
        # a player asks so of every hero and wonder it cannot afford
        return []
    cleopatra, hannibal = tile_powers.set_rules(state, empire)
    if not (cleopatra or hannibal) and held.get(COIN, 0) < cost and len(held) - (COIN in held) < cost:
        return []  # without those powers a set is cost coins or cost types of commodity
    found: list[Bag] = []
    # the candidates are made one at a time: the few asked for are mostly the first ones
    for bag, sure in _candidates(held, cost, cleopatra, hannibal):
        if bag not in found and (sure or (bag_contains(held, bag)
                                          and set_problem(bag, cost, cleopatra, hannibal) is None)):
            found.append(bag)
        if len(found) >= limit:
            break
    return found


def _candidates(held: Bag, cost: int, cleopatra: bool, hannibal: bool) -> Iterator[tuple[Bag, bool]]:
    """The sets to try, each with whether it is held and legal as made (True: cost coins of those held,
    or one held token of each of cost different types, which set_problem() and bag_contains() pass
    whatever the powers; tests/test_quick_answers.py holds them to every check)."""
    coins = held.get(COIN, 0)
    counts, by_type, plenty, ordered = _sorted_types(held)
    if coins >= cost:
        yield {COIN: cost}, True
    for order in (plenty, ordered):
        if len(order) >= cost:  # one token of each type: all different
            yield dict.fromkeys([by_type[c] for c in order[:cost]], 1), True
    if cleopatra and cost > 1:
        if coins >= cost - 1 and by_type:
            yield {COIN: cost - 1, by_type[plenty[0]]: 1}, False
        if coins >= 1 and len(by_type) >= cost - 1:
            yield _bag([COIN, *(by_type[c] for c in plenty[:cost - 1])]), False
    if hannibal and cost > 1 and plenty and counts[plenty[0]] >= 2:
        rest = plenty[1:cost - 1]
        if len(rest) == cost - 2:
            yield _bag([*_two_of_type(held, plenty[0]), *(by_type[c] for c in rest)]), False
    # then other sets of different commodities, so that a player sees more than one way to pay
    for combo in itertools.islice(itertools.combinations(ordered, cost), 12):
        yield dict.fromkeys([by_type[c] for c in combo], 1), True


def _held_types(held: Bag) -> tuple[dict[str, int], dict[str, Token], list[str], list[str]]:
    """_types(held), with its types by count (the most first) and by name; never changed by readers."""
    counts, by_type = _types(held)
    return counts, by_type, sorted(by_type, key=lambda c: (-counts[c], c)), sorted(by_type)


# per resources dict (frozen with its empire's state): what _held_types finds; a player's payment hints
# ask it for each cost it tries
_sorted_types: ObjectCache[Bag, tuple[dict[str, int], dict[str, Token], list[str], list[str]]] = ObjectCache(
    _held_types, limit=16)


def _types(held: Bag) -> tuple[dict[str, int], dict[str, Token]]:
    """Per commodity type: how many tokens are held, the legendary ones with their ordinary type; and for
    each type held, the token to spend: the ordinary one before the legendary (read in one pass: every
    build a player tries asks)."""
    counts: dict[str, int] = {}
    spend: dict[str, Token] = {}
    for token, n in held.items():
        kind = commodity_of(token)
        if kind is None:
            continue
        counts[kind] = counts.get(kind, 0) + n
        if n > 0:
            first = spend.get(kind)
            if first is None or (is_legendary(first) and not is_legendary(token)):
                spend[kind] = token
    return counts, spend


def _two_of_type(held: Bag, kind: str) -> list[Token]:
    tokens = [t for t in sorted(held, key=is_legendary) if commodity_of(t) == kind
              for _ in range(held[t])]
    return tokens[:2]


def _bag(tokens: Iterable[Token]) -> Bag:
    out: Bag = {}
    for t in tokens:
        out[t] = out.get(t, 0) + 1
    return out


def require_coin_price(state: GameState, empire: Empire, paid: Bag, power: str, item: str) -> None:
    """Refuse unless a once-per-round power prices the item in coins and paid is that many (10.croesus)."""
    info = tile(load_ruleset(), power)
    es = state.empires[empire]
    require(power in es.tiles or es.copied == power, info.section, f"{info.name} is not {empire.title()}'s")
    require(power not in es.used, info.section, f"{info.name}'s power was already used this round")
    price = info.coin_costs.get(item)
    require(price is not None, info.section, f"{info.name} does not price a {item}")
    require_held(state, empire, paid)
    require(paid == {COIN: price}, info.section, f"with {info.name} a {item} costs {price} coin(s), not {show(paid)}")
