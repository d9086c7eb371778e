"""Every event of the classic game, one tagged union, and the codec of a log's (the kernel's beside them)."""

from __future__ import annotations

from typing import get_args

import msgspec

from mncore.core import envelope
from mncore.core.bounds import Number, bounded_while_decoding
from mncore.core.kernel_acts import KernelEvent
from mncore.rulesets.classic.card_powers import Powers
from mncore.rulesets.classic.components import Board
from mncore.rulesets.classic.ids import Aftermath, Building, Item, Phase, Role
from mncore.rulesets.classic.state import Built, Options, State, Units


class Event(msgspec.Struct, frozen=True, tag=True, forbid_unknown_fields=True, kw_only=True,
            omit_defaults=True):
    """Encoded as {"type": "<ClassName>", ...fields}."""


class GameCreated(Event, frozen=True, kw_only=True):
    """The first event: versions, the board, who plays which civilisation, the neutral ones (1.6)."""

    ruleset_id: str
    ruleset_version: Number
    commitment: str
    board: Board
    civs: tuple[str, ...]
    players: dict[str, str]
    neutrals: tuple[str, ...] = ()
    # 1.6: the provinces about each neutral capital that get an influence marker, a legion and a fortress
    # (ruling C2); absent in logs recorded before, which set up the neutrals' home provinces instead
    neutral_lands: dict[str, tuple[str, ...]] = {}
    options: Options = Options()
    supply: dict[str, Number] = {}  # building tokens for this number of players (1.5)
    powers: Powers | None = None  # an owner's tiles file, recorded whole (ruling C16)


class PositionLoaded(Event, frozen=True, kw_only=True):
    """A sandbox game begun from a position file: the whole state."""

    state: State


class CardsSetAside(Event, frozen=True, kw_only=True):
    """The hero and wonder cards set aside unused (1.2)."""

    cards: tuple[str, ...]


class RoleAssigned(Event, frozen=True, kw_only=True):
    role: Role
    civ: str
    ruling: str = ""  # the ruling or section that settled a tie


class RoleTied(Event, frozen=True, kw_only=True):
    """Two or more others tie for a role card: its holder chooses among them (2.2)."""

    role: Role
    holder: str
    tied: tuple[str, ...]


class PhaseBegan(Event, frozen=True, kw_only=True):
    round: Number
    phase: Phase


class TurnOrder(Event, frozen=True, kw_only=True):
    """The phase's order of play: its role holder first, then seat order (2.3, ruling C5)."""

    order: tuple[str, ...]


class Placed(Event, frozen=True, kw_only=True):
    """An item placed in the advanced set-up for its cost in construction points (1.7)."""

    civ: str
    item: str  # influence, a building, a unit, or the civilisation's hero
    province: str = ""
    resource: str = ""
    points: Number


class IncomeCollected(Event, frozen=True, kw_only=True):
    civ: str
    cards: dict[str, Number]


class CardsGained(Event, frozen=True, kw_only=True):
    """Cards a power gives (ExtraCards, ruling C16): with the revenues, or when a god is invoked."""

    civ: str
    power: str  # the card whose power it is
    cards: dict[str, Number]


class TradeAsked(Event, frozen=True, kw_only=True):
    civ: str
    count: Number
    traders: tuple[str, ...]


class CardsOffered(Event, frozen=True, kw_only=True):
    """A trader's face-down offer (3.2.2); the cards are hidden from the others until revealed."""

    civ: str
    cards: tuple[str, ...] | None  # None where redacted


class OffersRevealed(Event, frozen=True, kw_only=True):
    offers: dict[str, tuple[str, ...]]


class CardTaken(Event, frozen=True, kw_only=True):
    civ: str
    source: str
    card: str


class CardGiven(Event, frozen=True, kw_only=True):
    """The Director's card to the player one short (3.2.6): only the two see which."""

    civ: str
    to: str
    card: str | None  # None where redacted


class TradeEnded(Event, frozen=True, kw_only=True):
    """Face-down cards go into hands; cards nobody could take go back to their owner (ruling C6)."""

    returned: dict[str, tuple[str, ...]] = {}


class GodsReturned(Event, frozen=True, kw_only=True):
    pass


class GodTaken(Event, frozen=True, kw_only=True):
    civ: str
    god: str
    paid: tuple[str, ...]


class GodInvoked(Event, frozen=True, kw_only=True):
    civ: str
    god: str
    powered: bool = False  # the god has an owner's power, which acts now (rulings C16, C17)


class TurnEnded(Event, frozen=True, kw_only=True):
    civ: str


class ItemBuilt(Event, frozen=True, kw_only=True):
    civ: str
    item: Item
    province: str
    resource: str = ""
    paid: tuple[tuple[str, ...], ...] = ()
    power: str = ""  # the card whose power placed it for nothing (FreeUnit, ruling C16)


class InfluencePlaced(Event, frozen=True, kw_only=True):
    civ: str
    province: str
    paid: tuple[tuple[str, ...], ...] = ()
    replaced: str = ""  # the converted marker's owner (6.11 c)


class CardBought(Event, frozen=True, kw_only=True):
    civ: str
    card: str
    paid: tuple[tuple[str, ...], ...] = ()


class HandsDiscarded(Event, frozen=True, kw_only=True):
    """End of Construction: each hand is cut to the tax cards it may keep (5.2)."""

    kept: dict[str, Number]


class TriremesSailed(Event, frozen=True, kw_only=True):
    civ: str
    count: Number
    source: str
    sea: str


class NavalBattle(Event, frozen=True, kw_only=True):
    sea: str
    attacker: str
    defender: str
    rolls: dict[str, tuple[Number, ...]]
    losses: dict[str, Number]


class Marched(Event, frozen=True, kw_only=True):
    civ: str
    unit: str
    count: Number
    source: str
    dest: str
    via: tuple[str, ...] = ()  # the seas of the trireme chain (6.4)


class BlockadeDeclared(Event, frozen=True, kw_only=True):
    """An invasion by sea of a province with Greek influence: the transporting triremes are declared
    and the Greek player may attack them (6.13)."""

    greek: str
    civ: str
    unit: str
    count: Number
    source: str
    dest: str
    via: tuple[str, ...]
    then: Aftermath = ""
    sack: str = ""


class BlockadeEnded(Event, frozen=True, kw_only=True):
    """The Greek player's answer: the march goes on, or its units go back to their start (6.13)."""

    broken: bool  # True: the invader keeps his chain of triremes and moves on


class GroundBattle(Event, frozen=True, kw_only=True):
    """One round of battle in a province (6.6-6.9): dice, automatic sixes, units lost."""

    province: str
    attacker: str
    defender: str
    rolls: dict[str, tuple[Number, ...]]
    sixes: dict[str, Number]
    losses: dict[str, Units]
    by_power: dict[str, Number] = {}  # of the sixes, those cards' powers add (AutoSix, ruling C16)
    owed: dict[str, Number] = {}  # hits whose units their owner chooses, not in losses (6.9, ruling C9)


class InvasionHeld(Event, frozen=True, kw_only=True):
    """A march's battles stop until the losses owed are chosen, then go on (6.5, 6.9, ruling C9)."""

    civ: str
    province: str
    fought: tuple[str, ...]  # the civilisations it has fought there
    then: Aftermath = ""
    sack: str = ""


class LossesChosen(Event, frozen=True, kw_only=True):
    """The owner of units hit in a battle names the units lost (6.9, ruling C9)."""

    civ: str
    province: str
    lost: Units


class Sacked(Event, frozen=True, kw_only=True):
    civ: str
    province: str
    building: Building
    resource: str = ""


class Settled(Event, frozen=True, kw_only=True):
    """An invader alone in a province occupies it or sets about converting it (6.11 b, c)."""

    civ: str
    province: str
    how: Aftermath
    claims: tuple[Built, ...] = ()  # occupy: every building, when he has a unit for each (ruling C7)
    due: bool = False  # occupy: fewer units than buildings: he names those claimed (ruling C7)


class BuildingsClaimed(Event, frozen=True, kw_only=True):
    """The occupier names the buildings his legions and creatures are placed on (6.11 b, ruling C7)."""

    civ: str
    province: str
    claims: tuple[Built, ...]


class GameWon(Event, frozen=True, kw_only=True):
    civ: str
    condition: str
    detail: str = ""


AnyEvent = (GameCreated | PositionLoaded | CardsSetAside | RoleAssigned | RoleTied | PhaseBegan
            | TurnOrder | Placed | IncomeCollected | CardsGained
            | TradeAsked | CardsOffered | OffersRevealed | CardTaken | CardGiven | TradeEnded
            | GodsReturned | GodTaken | GodInvoked | TurnEnded | ItemBuilt | InfluencePlaced
            | CardBought | HandsDiscarded | TriremesSailed | NavalBattle | Marched | BlockadeDeclared | BlockadeEnded
            | GroundBattle | InvasionHeld | LossesChosen | BuildingsClaimed
            | Sacked | Settled | GameWon)

CODEC: envelope.Codec[AnyEvent | KernelEvent] = envelope.events(AnyEvent)
# all but those holding the board's, a state's or a battle's types, whose integers stay plain (bounds.py)
bounded_while_decoding(kind for kind in get_args(AnyEvent) if kind not in (
    GameCreated, PositionLoaded, GroundBattle, LossesChosen))
encode_event = CODEC.encode
decode_event = CODEC.decode
