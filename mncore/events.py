"""Every event of a game, one tagged union; the canonical encoding that the hash chain covers."""

from __future__ import annotations

import msgspec

from mncore.board import Board
from mncore.ids import Empire, Phase, Track
from mncore.state import Bag, DisplayTile, Options


class Event(msgspec.Struct, frozen=True, tag=True, forbid_unknown_fields=True, kw_only=True):
    """Encoded as {"type": "<ClassName>", ...fields}; past tense; records outcomes, not inputs."""


# --- the game itself -------------------------------------------------------------------------------

class GameCreated(Event, frozen=True, kw_only=True):
    """The first event: versions, board (whole, with its digest), empires, options, commitment."""

    engine_version: str
    ruleset_id: str
    ruleset_version: int
    board: Board
    board_digest: str
    players: dict[Empire, str]  # the empires in play and who plays each
    options: Options
    commitment: str  # SHA-256 of the game's random secret


class TilesDisplayed(Event, frozen=True, kw_only=True):
    """Set-up step 5: the display, face-down tiles in the random order drawn."""

    display: tuple[DisplayTile, ...]


class PhaseBegan(Event, frozen=True, kw_only=True):
    """A phase of a round began (round overview)."""

    round: int
    phase: Phase


class SecretRevealed(Event, frozen=True, kw_only=True):
    """The game's random secret, revealed so that anyone can check every draw."""

    secret: str  # hex


class GameWon(Event, frozen=True, kw_only=True):
    """The game ended: who won, by which condition."""

    empires: tuple[Empire, ...]
    condition: str  # the section of the victory condition: 6.1, 6.2, 6.3 or 6.4
    detail: str = ""


CoreEvent = GameCreated | TilesDisplayed | PhaseBegan | SecretRevealed | GameWon


# --- phase 1, Collect -------------------------------------------------------------------------------

class ResourcesCollected(Event, frozen=True, kw_only=True):
    """An empire collected resources (1.1, 1.2, set-up step 3); legendary tokens were drawn."""

    empire: Empire
    gained: Bag
    sources: tuple[str, ...] = ()  # what yielded them, for explanations


class LegendaryPileReshuffled(Event, frozen=True, kw_only=True):
    """The legendary discards became the new face-down draw pile (1.2)."""


CollectEvent = ResourcesCollected | LegendaryPileReshuffled


# --- phase 2, Trade ---------------------------------------------------------------------------------

class ExchangeMarkerPlayed(Event, frozen=True, kw_only=True):
    """The Trade Leader played a marker for one of its values (2.1)."""

    empire: Empire
    marker: int  # index into the ruleset's exchange markers
    value: int


TradeEvent = ExchangeMarkerPlayed


# --- phase 3, Build ---------------------------------------------------------------------------------

class BuilderChosen(Event, frozen=True, kw_only=True):
    """The Culture Leader named the next builder (3.0)."""

    empire: Empire
    builder: Empire


BuildEvent = BuilderChosen


# --- phase 4, Move and Battle -------------------------------------------------------------------------

class MoverChosen(Event, frozen=True, kw_only=True):
    """The Military Leader named the next active empire (4.0)."""

    empire: Empire
    mover: Empire


MoveEvent = MoverChosen


# --- phase 5, Claim Leadership ------------------------------------------------------------------------

class TitleClaimed(Event, frozen=True, kw_only=True):
    """An empire took (or kept) a leader title (5.0); levels recorded for explanations."""

    track: Track
    empire: Empire
    levels: dict[Empire, int]
    decided_by: Empire | None = None  # the previous holder, when he broke a tie


LeadershipEvent = TitleClaimed


AnyEvent = CoreEvent | CollectEvent | TradeEvent | BuildEvent | MoveEvent | LeadershipEvent

_ENCODER = msgspec.json.Encoder(order="deterministic")
_DECODER = msgspec.json.Decoder(AnyEvent)


def encode_event(event: AnyEvent) -> bytes:
    """The canonical (deterministic) JSON of an event: what the hash chain covers."""
    return _ENCODER.encode(event)


def decode_event(data: bytes | str) -> AnyEvent:
    return _DECODER.decode(data)


def event_type(event: AnyEvent) -> str:
    return type(event).__name__

