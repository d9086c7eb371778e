"""The Legendary City expansions as data: each city's tiles, the base tiles they replace, objectives, cards."""

from __future__ import annotations

import functools
import os
from typing import Literal

import msgspec

from mncore.core.errors import DataError
from mncore.rulesets.empires.game_data import Tile, data_bytes, data_path
from mncore.rulesets.empires.ids import EXPANSIONS, CardId, Expansion, TileId, Track

# What an Objective tile asks (the projection that checks it: rules/objectives.py).
ObjectiveTest = Literal["titles", "legendary-temple", "conversion", "plenty", "buildings", "markets-temples",
                        "garrisons", "seas", "victories"]
# What playing a card does (rules/cards.py); "decoy": nothing alone, a pair stands for another card.
CardEffect = Literal["protect", "destroy-city", "boost", "neutral-control", "legendary", "destroy-trireme",
                     "destroy-caravan", "decoy", "boost-all", "free-control", "extra-resources", "port",
                     "convert", "change-offer", "force-claim",
                     # Troia's War cards (rules/troia_cards.py)
                     "destroy-fortress", "chariots", "destroy-unit", "sure-fives", "siege", "phalanx", "ram"]
# When a card may be played: a phase, or at any moment.
CardPhase = Literal["collect", "trade", "build", "move", "leadership", "any"]


class _Data(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """Base of the expansion data: frozen, unknown fields refused."""


class ObjectiveInfo(_Data, frozen=True, kw_only=True):
    """An Objective tile: fulfilled by the first empire to meet it (lc.3.1)."""

    id: str
    name: str
    section: str
    text: str
    test: ObjectiveTest
    count: int


class CardInfo(_Data, frozen=True, kw_only=True):
    """A Bonus Card: how many the deck holds, when it may be played, what it does."""

    id: CardId
    name: str
    count: int
    phase: CardPhase
    effect: CardEffect
    text: str
    amount: int = 0  # a boost's size; the divisor a phalanx imposes


class City(_Data, frozen=True, kw_only=True):
    """One Legendary City expansion."""

    id: Expansion
    name: str
    section: str
    deck: str  # the name of its Bonus Cards: War, Divine, Commerce
    replaces: tuple[TileId, ...]
    tiles: tuple[Tile, ...]
    objectives: tuple[ObjectiveInfo, ...]
    cards: tuple[CardInfo, ...]

    def card(self, card_id: CardId) -> CardInfo:
        return next(c for c in self.cards if c.id == card_id)

    def deck_cards(self) -> tuple[CardId, ...]:
        """The whole deck, each card as many times as it is printed, in a fixed order."""
        return tuple(c.id for c in self.cards for _ in range(c.count))


DECK_SIZE = 15  # each expansion's Bonus Cards (lc.1)


def available() -> tuple[Expansion, ...]:
    """The expansions whose data this engine ships."""
    return tuple(x for x in EXPANSIONS if os.path.isfile(data_path("expansions", f"{x}.toml")))


@functools.cache
def load_city(expansion: Expansion) -> City:
    """One expansion's data, decoded and checked once; DataError lists every problem."""
    source = f"mncore/rulesets/empires/data/expansions/{expansion}.toml"
    data = data_bytes("expansions", f"{expansion}.toml")
    try:
        city = msgspec.toml.decode(data, type=City)
    except msgspec.ValidationError as err:
        raise DataError(source, [str(err)]) from err
    problems = city_problems(city, expansion)
    if problems:
        raise DataError(source, problems)
    return city


def city_problems(city: City, expansion: Expansion) -> list[str]:
    """What is wrong with an expansion's data: its id, six tiles for six, a deck of fifteen."""
    problems = [] if city.id == expansion else [f"id: {city.id}, but the file is {expansion}'s"]
    if len(city.tiles) != len(city.replaces):
        problems.append(f"{len(city.tiles)} tiles replace {len(city.replaces)} base tiles")
    if len(city.deck_cards()) != DECK_SIZE:
        problems.append(f"the deck holds {len(city.deck_cards())} cards, not {DECK_SIZE}")
    ids = [c.id for c in city.cards]
    problems += [f"cards: {i} appears twice" for i in set(ids) if ids.count(i) > 1]
    problems += [f"cards.{c.id}: a boost needs an amount" for c in city.cards
                 if (c.effect in ("boost", "boost-all", "extra-resources", "phalanx")) != (c.amount > 0)]
    return problems


def card_info(card_id: CardId) -> tuple[City, CardInfo]:
    """The expansion and the data of a card id (ids are unique across expansions)."""
    for x in available():
        city = load_city(x)
        if any(c.id == card_id for c in city.cards):
            return city, city.card(card_id)
    raise KeyError(card_id)


def objective_info(objective_id: str) -> tuple[City, ObjectiveInfo]:
    for x in available():
        city = load_city(x)
        for o in city.objectives:
            if o.id == objective_id:
                return city, o
    raise KeyError(objective_id)


TRACK_NAMES: dict[Track, str] = {"trade": "Trade", "culture": "Culture", "military": "Military"}
