"""Phase 1, Collect Resources (1.1, 1.2): what each empire's buildings yield."""

from __future__ import annotations

from mncore import events as ev
from mncore.dice import Rng
from mncore.flow import Option, Pending
from mncore.ids import COIN, Empire, legendary
from mncore.projections import holder_of
from mncore.state import Bag, GameState, bag_add


def base_income(state: GameState, empire: Empire) -> tuple[Bag, int, list[str]]:
    """Coins and commodities the empire's held buildings yield (1.1), and legendary draws owed."""
    board = state.geo_board
    spaces = {p.id: {s.id: s for s in p.spaces} for p in board.provinces}
    gained: Bag = {}
    draws = 0
    sources: list[str] = []
    for pid, ps in sorted(state.provinces.items()):
        held = {sid: kind for sid, kind in ps.buildings.items() if holder_of(ps, sid) == empire}
        if not held:
            continue
        temple = "temple" in held.values()
        market = "market" in held.values()
        for sid, kind in sorted(held.items()):
            if kind in ("city", "capital"):
                n = 2 if temple else 1
                gained = bag_add(gained, {COIN: n})
                sources.append(f"{pid}/{sid}: {n} coin" + (" (temple)" if temple else ""))
            elif kind == "legendary":
                gained = bag_add(gained, {COIN: 1})
                draws += 1
                sources.append(f"{pid}/{sid}: 1 coin + 1 legendary")
            elif kind == "caravan":
                commodity = spaces[pid][sid].commodity
                assert commodity is not None
                n = 2 if market else 1
                gained = bag_add(gained, {commodity: n})
                sources.append(f"{pid}/{sid}: {n} {commodity}" + (" (market)" if market else ""))
    return gained, draws, sources


def collection(state: GameState, rng: Rng) -> list[ev.AnyEvent]:
    """Every empire's collection, in empire order; legendary commodities drawn from the pile."""
    out: list[ev.AnyEvent] = []
    pile = list(state.legendary_pile)
    for emp in state.empires:
        gained, draws, sources = base_income(state, emp)
        for _ in range(draws):
            if not pile:
                break
            drawn = pile.pop(rng.below(len(pile)))
            gained = bag_add(gained, {legendary(drawn): 1})
        if gained:
            out.append(ev.ResourcesCollected(empire=emp, gained=gained, sources=tuple(sources)))
    return out


def begin(state: GameState, rng: Rng) -> list[ev.AnyEvent]:
    return collection(state, rng)


def pending(state: GameState) -> list[Pending]:
    return []


def end(state: GameState, rng: Rng) -> list[ev.AnyEvent]:
    return []


def options(state: GameState, empire: Empire) -> list[Option]:
    return []


def decide(state: GameState, order: object, rng: Rng) -> list[ev.AnyEvent]:
    raise NotImplementedError("collect orders come with the Rules I issue")


