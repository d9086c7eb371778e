"""Every command, one tagged union: the game's creation, the host's acts and the empires' orders."""

from __future__ import annotations

from typing import Literal

import msgspec

from mncore.board import Board
from mncore.ids import Commodity, Empire, ProvinceId, Track


class Command(msgspec.Struct, frozen=True, tag=True, forbid_unknown_fields=True, kw_only=True):
    """Encoded as {"type": "<ClassName>", ...fields}; imperative names."""


class Order(Command, frozen=True, kw_only=True):
    """A command given by an empire's player; `empire` is who gives it."""

    empire: Empire


# --- the game itself -------------------------------------------------------------------------------

class CreateGame(Command, frozen=True, kw_only=True):
    """Start a game: the empires and players (or players to assign at random), board and options."""

    board: Board
    players: dict[Empire, str] = {}  # chosen empires -> player names
    random_players: tuple[str, ...] = ()  # players whose empires are drawn at random
    display: Literal["first-game", "experienced"] = "first-game"
    fair_play: bool = True


class RevealSecret(Command, frozen=True, kw_only=True):
    """Publish the game's secret so that every draw can be checked (the host's act)."""

    secret: str


CoreCommand = CreateGame | RevealSecret


# --- phase 1, Collect -------------------------------------------------------------------------------

class ChooseLegendaryBonus(Order, frozen=True, kw_only=True):
    """With a temple by a legendary city: take the extra coin or the extra legendary commodity (1.1)."""

    province: ProvinceId
    take: Literal["coin", "legendary"]


class TakeColossusCommodity(Order, frozen=True, kw_only=True):
    """Colossus of Rhodes: take one commodity of your choice from the reserve (11.colossus)."""

    commodity: Commodity


CollectCommand = ChooseLegendaryBonus | TakeColossusCommodity


# --- phase 2, Trade ---------------------------------------------------------------------------------

class PlayExchangeMarker(Order, frozen=True, kw_only=True):
    """The Trade Leader plays the exchange marker that shows this value (2.1)."""

    value: int


TradeCommand = PlayExchangeMarker


# --- phase 3, Build ---------------------------------------------------------------------------------

class ChooseBuilder(Order, frozen=True, kw_only=True):
    """The Culture Leader names the next builder (3.0)."""

    builder: Empire


BuildCommand = ChooseBuilder


# --- phase 4, Move and Battle -------------------------------------------------------------------------

class ChooseMover(Order, frozen=True, kw_only=True):
    """The Military Leader names the next active empire (4.0)."""

    mover: Empire


MoveCommand = ChooseMover


# --- phase 5, Claim Leadership ------------------------------------------------------------------------

class AwardTitle(Order, frozen=True, kw_only=True):
    """The previous title holder settles a tie on a track (5.0)."""

    track: Track
    to: Empire


LeadershipCommand = AwardTitle


AnyOrder = CollectCommand | TradeCommand | BuildCommand | MoveCommand | LeadershipCommand
AnyCommand = CoreCommand | AnyOrder

_ENCODER = msgspec.json.Encoder(order="deterministic")
_DECODER = msgspec.json.Decoder(AnyCommand)


def encode_command(command: AnyCommand) -> bytes:
    return _ENCODER.encode(command)


def decode_command(data: bytes | str) -> AnyCommand:
    return _DECODER.decode(data)
