"""Dido (10.dido): the commodities opponents lost as Build ends, and her holder's choice of up to two
of them (ruling R213)."""

from __future__ import annotations

from itertools import combinations_with_replacement

from mncore.core.errors import require
from mncore.core.protocol import Option, Pending
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires import tile_powers
from mncore.rulesets.empires.commands import TakeDiscards
from mncore.rulesets.empires.display_names import title
from mncore.rulesets.empires.ids import COIN, Empire, commodity_of
from mncore.rulesets.empires.state import Bag, DiscardPool, GameState, bag_tokens

SECTION = "10.dido"


def offered(state: GameState, closing: list[ev.AnyEvent]) -> list[ev.AnyEvent]:
    """What each holder may take: the ordinary commodities the opponents discarded as Build ended
    (a legendary one goes back to its own pile; coins are no commodities)."""
    out: list[ev.AnyEvent] = []
    for emp in tile_powers.holders_at(state, "take_discards"):
        for t in tile_powers.powers_of(state, emp, "take_discards"):
            lost: Bag = {}
            for e in closing:
                if isinstance(e, ev.ResourcesDiscarded) and e.empire != emp:
                    for token, n in e.discarded.items():
                        if token != COIN and commodity_of(token) == token:
                            lost[token] = lost.get(token, 0) + n
            if lost:
                out.append(ev.DiscardsOffered(empire=emp, tile=t.id, lost=dict(sorted(lost.items())), keep=t.keep))
    return out


def pools(state: GameState) -> tuple[DiscardPool, ...]:
    return state.cities.discards if state.cities is not None else ()


def pending(state: GameState) -> list[Pending]:
    return [Pending(empire=p.empire, kind="dido",
                    text=f"takes up to {p.keep} of the commodities the opponents lost as Build ended, or none "
                         "(Dido: take COMMODITY [COMMODITY] | take nothing)") for p in pools(state)[:1]]


def choices(pool: DiscardPool) -> list[Bag]:
    """Every choice, the most plentiful kinds first (the default: what ruling R213 took before), then
    fewer, then nothing."""
    ranked = sorted(pool.lost, key=lambda k: (-pool.lost[k], k))
    tokens = [tok for tok in ranked for _ in range(pool.lost[tok])]
    first = _bag(tokens[:pool.keep])
    out = [first]
    for n in range(min(pool.keep, len(tokens)), -1, -1):
        for combo in combinations_with_replacement(sorted(pool.lost), n):
            bag = _bag(list(combo))
            if bag != first and all(pool.lost[k] >= v for k, v in bag.items()):
                out.append(bag)
    return out


def _bag(tokens: list[str]) -> Bag:
    bag: Bag = {}
    for tok in tokens:
        bag[tok] = bag.get(tok, 0) + 1
    return bag


def take_line(bag: Bag) -> str:
    return "take " + (" ".join(bag_tokens(bag)) or "nothing")


def options(state: GameState, empire: Empire) -> list[Option]:
    pool = next((p for p in pools(state) if p.empire == empire), None)
    if pool is None or pools(state)[0] != pool:
        return []
    return [Option(kind="dido", order=take_line(b)) for b in choices(pool)]


def take(state: GameState, order: TakeDiscards) -> list[ev.AnyEvent]:
    """The holder's choice: up to `keep` of what the opponents lost (10.dido, ruling R213)."""
    pool = next((p for p in pools(state) if p.empire == order.empire), None)
    require(pool is not None, SECTION, f"{title(order.empire)} has no commodities lost by opponents to take")
    assert pool is not None
    asked = sum(order.take.values())
    require(asked <= pool.keep, SECTION, f"Dido takes up to {pool.keep} commodities, not {asked}")
    for token, n in sorted(order.take.items()):
        require(0 < n <= pool.lost.get(token, 0), SECTION,
                f"the opponents lost {pool.lost.get(token, 0)} {token} as Build ended, not {n}")
    return [ev.DiscardsTaken(empire=order.empire, tile=pool.tile, taken=dict(sorted(order.take.items())))]
