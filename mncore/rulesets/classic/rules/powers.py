"""Which owner powers act for a civilisation now, and what they add (rulings C16-C18)."""

from __future__ import annotations

from collections import Counter

from mncore.rulesets.classic import events as ev
from mncore.rulesets.classic.card_powers import (
    LASTING,
    AnyEffect,
    AutoSix,
    Discount,
    ExtraCards,
    FreeUnit,
    IgnoreBlockade,
    WinWith,
)
from mncore.rulesets.classic.components import game_data
from mncore.rulesets.classic.rules.common import creatures
from mncore.rulesets.classic.state import State


def active(state: State, civ: str) -> list[tuple[str, AnyEffect]]:
    """(card, effect) for each effect civ has now (C16): its heroes and wonders, its creature while one
    is on the board, and the lasting effects of the god it invoked this phase (C17)."""
    powers = state.powers
    if powers is None or civ not in state.civs:
        return []
    out = [(card, e) for card in state.cards.get(civ, ()) for e in powers.of(card)]
    if creatures(state, civ) > 0:
        creature = game_data().civ_of(civ).creature
        out += [(creature, e) for e in powers.of(creature)]
    god = state.gods.get(civ)
    if god is not None and god.active:
        out += [(god.god, e) for e in powers.of(god.god) if isinstance(e, LASTING)]
    return out


def extra_cards(state: State, civ: str) -> list[ev.AnyEvent]:
    """Commerce: the cards civ's powers add to its revenues, one event per card with a power."""
    found = [(card, e) for card, e in active(state, civ) if isinstance(e, ExtraCards)]
    return gains(civ, found)


def gains(civ: str, found: list[tuple[str, ExtraCards]]) -> list[ev.AnyEvent]:
    """One CardsGained per card with a power, its ExtraCards added up."""
    per: dict[str, Counter[str]] = {}
    for card, effect in found:
        per.setdefault(card, Counter())[effect.card] += effect.count
    return [ev.CardsGained(civ=civ, power=card, cards=dict(sorted(c.items()))) for card, c in per.items()]


def auto_sixes(state: State, civ: str) -> int:
    """Military: the automatic sixes civ's powers add to each ground battle it fights."""
    return sum(e.count for _, e in active(state, civ) if isinstance(e, AutoSix))


def ignores_blockade(state: State, civ: str) -> bool:
    return any(isinstance(e, IgnoreBlockade) for _, e in active(state, civ))


def discount(state: State, civ: str, item: str) -> int:
    """Construction: how many cards fewer item costs civ (discounts add up; C18 keeps 1 to pay)."""
    return sum(e.by for _, e in active(state, civ) if isinstance(e, Discount) and e.item == item)


def win_with(state: State, civ: str) -> int | None:
    """Victory: the fewest heroes and wonders a power lets civ win with, or None."""
    counts = [e.cards for _, e in active(state, civ) if isinstance(e, WinWith)]
    return min(counts) if counts else None


def free_units(state: State, civ: str) -> list[tuple[str, FreeUnit]]:
    return [(card, e) for card, e in active(state, civ) if isinstance(e, FreeUnit)]

