"""Scripted players: choose legal orders so that whole classic games play unattended to a win."""

from __future__ import annotations

import random
from collections.abc import Callable

from mncore.core.dice import Rng
from mncore.core.errors import CommandRejected
from mncore.games import writing
from mncore.games.reading import Current, Loaded
from mncore.rulesets.classic import commands as cm
from mncore.rulesets.classic.components import game_data
from mncore.rulesets.classic.flow import decide_order, options, pending
from mncore.rulesets.classic.ids import TAX
from mncore.rulesets.classic.rules.construction import buyable
from mncore.rulesets.classic.state import State, Units
from mncore.rulesets.classic.text import parse_order
from mncore.store import Store

# heroes: buys every hero and wonder it can; pyramids: saves every purchase for the Pyramids once
# its income can pay them; general: as heroes, and marches on its neighbours
STYLES = ("heroes", "pyramids", "general")
BUILD_ORDER = ("caravan", "influence", "city", "market", "temple")


def choose(state: State, civ: str, style: str, rand: random.Random) -> list[str]:
    """The order lines civ would give now, best first (the caller takes the first accepted)."""
    kinds = {p.kind for p in pending(state) if p.empire == civ}
    lines = [o.order for o in options(state, civ) if o.order is not None]
    if "ask" in kinds:
        return [f"ask {min(1 if style != 'general' else 2, state.hand_size(civ))}"]
    if "offer" in kinds:
        return [_offer(state, civ)]
    if "take" in kinds:
        return _take(state, civ, lines)
    if "give" in kinds:
        return sorted((ln for ln in lines if ln.startswith("give")),
                      key=lambda ln: -state.hand(civ).get(ln.split()[1], 0))
    if "offering" in kinds:
        pray = [ln for ln in _prayers(state, civ) if style == "general"]
        return pray + ["pass"]
    if "setup" in kinds:  # 1.7: influence first, then what pays, then the hero
        places = [ln for ln in lines if ln.startswith("place")]
        rank = ("place influence", "place caravan", "place city", "place market", "place hero")
        return sorted(places, key=lambda ln: next((i for i, r in enumerate(rank) if ln.startswith(r)), 9)) \
            + ["done"]
    if "construction" in kinds:
        return _construct(state, civ, style, lines, rand)
    if "military" in kinds:
        return _military(state, civ, style, lines, rand)
    return lines


def _offer(state: State, civ: str) -> str:
    """The cards it can spare: the commodities it holds most of first, taxes last."""
    asked = state.trade.asked or 0
    cards = sorted((c for c, k in state.hand(civ).items() for _ in range(k)),
                   key=lambda c: (c == TAX, -state.hand(civ)[c], c))
    return "offer " + " ".join(cards[:asked])


def _take(state: State, civ: str, lines: list[str]) -> list[str]:
    takes = [ln for ln in lines if ln.startswith("take")]
    hand = state.hand(civ)
    return sorted(takes, key=lambda ln: (hand.get(ln.split()[1], 0), ln))


def _prayers(state: State, civ: str) -> list[str]:
    from mncore.rulesets.classic.rules.offering import free_gods
    hand = state.hand(civ)
    if hand.get(TAX, 0) >= 5 and free_gods(state):
        return [f"pray {free_gods(state)[0]} pay tax,tax,tax"]
    return []


def _construct(state: State, civ: str, style: str, lines: list[str], rand: random.Random) -> list[str]:
    buys = [ln for ln in lines if ln.startswith("buy")]
    if style == "pyramids":
        pyramids = [ln for ln in buys if ln.split()[1] == "pyramids"]
        if pyramids:
            return pyramids
    else:
        own = game_data().civ_of(civ).hero
        heroes = [ln for ln in buys if ln.split()[1] != "pyramids"]
        heroes.sort(key=lambda ln: (ln.split()[1] != own, ln))
        if heroes:
            return heroes
        if not any(c for c in buyable(state, civ) if c != "pyramids"):  # none left: the Pyramids
            return [ln for ln in buys if ln.split()[1] == "pyramids"] + ["done"]
    builds: list[str] = []
    for kind in BUILD_ORDER:
        found = [ln for ln in lines if ln.startswith(f"build {kind}") or (kind == "influence"
                                                                          and ln.startswith("influence"))]
        rand.shuffle(found)
        builds += found
    if style == "general":
        builds = [ln for ln in lines if ln.startswith("build legion")][:1] + builds
    return builds + ["done"]


def _military(state: State, civ: str, style: str, lines: list[str], rand: random.Random) -> list[str]:
    if style != "general" or state.round < 3:
        return ["done"]
    marches = [ln for ln in lines if ln.startswith("march 1 legion") and _strong(state, civ, ln.split()[4])]
    rand.shuffle(marches)
    marches.sort(key=lambda ln: not ln.endswith("convert"))  # another's province first
    return [ln.replace("march 1", "march 2") for ln in marches[:1]] + ["done"]


def _strong(state: State, civ: str, pid: str) -> bool:
    return state.land(pid).units.get(civ, Units()).legion >= 3


# how a scripted civilisation picks its order: (state, civ, style, rand, rng) -> the order
Pick = Callable[[State, str, str, random.Random, Rng], cm.AnyOrder]


def play_stored(store: Store, loaded: Loaded, secret: bytes, rand: random.Random, max_orders: int,
                styles: dict[str, str], on_order: Callable[[Loaded | Current], None] | None = None,
                pick: Pick | None = None) -> Loaded:
    """Give scripted orders until the game is won or max_orders; returns the loaded game. `pick` (bots:
    tactics.bot_pick) chooses each order instead of the styles' first accepted."""
    for _ in range(max_orders):
        state: State = loaded.state
        waiting = sorted({p.empire for p in pending(state)})
        if state.winner is not None or not waiting:
            break
        civ = waiting[0]
        order = (pick or first_accepted)(state, civ, styles.get(civ, "heroes"), rand, Rng(secret, loaded.head[1]))
        loaded = writing.give(store, loaded, order, answer=False).after
        if on_order is not None:
            on_order(loaded)
    return loaded


def first_accepted(state: State, civ: str, style: str, rand: random.Random, rng: Rng) -> cm.AnyOrder:
    lines = choose(state, civ, style, rand)
    for line in lines + [o.order for o in options(state, civ) if o.order is not None]:
        try:
            order = parse_order(line, state, civ)
            decide_order(state, order, rng)
        except CommandRejected:
            continue
        return order
    raise RuntimeError(f"{civ} must act but none of its orders is accepted: {lines[:5]}")
