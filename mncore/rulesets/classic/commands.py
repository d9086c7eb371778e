"""Every command of the classic game, one tagged union, and the codec of a log's (the kernel's beside them)."""

from __future__ import annotations

import msgspec

from mncore.core import envelope
from mncore.core.kernel_acts import KernelCommand
from mncore.rulesets.classic.card_powers import Powers
from mncore.rulesets.classic.components import Board
from mncore.rulesets.classic.ids import Aftermath, Item, Mover, Role, Setup, Variant
from mncore.rulesets.classic.state import Built, State


class Command(msgspec.Struct, frozen=True, tag=True, forbid_unknown_fields=True, kw_only=True,
              omit_defaults=True):
    """Encoded as {"type": "<ClassName>", ...fields}."""


class CreateGame(Command, frozen=True, kw_only=True):
    board: Board
    civs: tuple[str, ...]  # the civilisations played, in seat order
    players: dict[str, str]  # civilisation -> player
    variant: Variant = "standard"
    setup: Setup = "basic"
    fair_play: bool = True
    powers: Powers | None = None  # an owner's tiles file (--option tiles=PATH, ruling C16)


class CreateFromPosition(Command, frozen=True, kw_only=True):
    position: State


class Order(Command, frozen=True, kw_only=True):
    """A command one civilisation gives."""

    civ: str


class AwardRole(Order, frozen=True, kw_only=True):
    role: Role
    to: str


class Ask(Order, frozen=True, kw_only=True):
    count: int


class Offer(Order, frozen=True, kw_only=True):
    cards: tuple[str, ...]


class Take(Order, frozen=True, kw_only=True):
    source: str
    card: str


class Give(Order, frozen=True, kw_only=True):
    card: str


class Pray(Order, frozen=True, kw_only=True):
    god: str
    pay: tuple[str, ...]


class Invoke(Order, frozen=True, kw_only=True):
    god: str


class Build(Order, frozen=True, kw_only=True):
    item: Item
    province: str
    resource: str = ""
    pay: tuple[tuple[str, ...], ...]


class PlaceInfluence(Order, frozen=True, kw_only=True):
    province: str
    pay: tuple[tuple[str, ...], ...]


class Buy(Order, frozen=True, kw_only=True):
    card: str
    pay: tuple[tuple[str, ...], ...]


class Sail(Order, frozen=True, kw_only=True):
    count: int
    source: str
    sea: str


class Attack(Order, frozen=True, kw_only=True):
    sea: str
    target: str


class March(Order, frozen=True, kw_only=True):
    unit: Mover
    count: int
    source: str
    dest: str
    then: Aftermath = ""
    sack: str = ""  # the building to destroy when then = "sack": city, caravan, temple, market


class Place(Order, frozen=True, kw_only=True):
    """Advanced set-up (1.7): influence, a building, a unit or the civilisation's hero, for points."""

    item: str
    province: str = ""
    resource: str = ""


class Blockade(Order, frozen=True, kw_only=True):
    """The Greek player attacks the invader's triremes in one sea of the declared chain (6.13)."""

    sea: str


class LetPass(Order, frozen=True, kw_only=True):
    pass


class ChooseLosses(Order, frozen=True, kw_only=True):
    """The units lost in a battle, named by their owner (6.9, ruling C9)."""

    province: str
    legion: int = 0
    fortress: int = 0
    creature: int = 0


class Claim(Order, frozen=True, kw_only=True):
    """The buildings the occupier's legions and creatures are placed on, one on each (6.11 b, ruling C7)."""

    province: str
    claims: tuple[Built, ...] = ()


class EndTurn(Order, frozen=True, kw_only=True):
    pass


AnyOrder = AwardRole | Ask | Offer | Take | Give | Pray | Invoke | Build | PlaceInfluence | Buy | Sail \
    | Attack | March | Place | Blockade | LetPass | ChooseLosses | Claim | EndTurn
AnyCommand = CreateGame | CreateFromPosition | AnyOrder

CODEC: envelope.Codec[AnyCommand | KernelCommand] = envelope.commands(AnyCommand)
encode_command = CODEC.encode
decode_command = CODEC.decode
