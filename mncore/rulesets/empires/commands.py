"""Every command, one tagged union: the game's creation, the host's acts and the empires' orders."""

from __future__ import annotations

from typing import Literal

import msgspec

from mncore.core import envelope
from mncore.core.kernel_acts import KernelCommand
from mncore.rulesets.empires.board import Board
from mncore.rulesets.empires.ids import (  # phase 3  # the Legendary City expansions
    BuildingKind,
    CardId,
    Commodity,
    Empire,
    Expansion,
    ProvinceId,
    SeaId,  # phase 4
    TileId,
    Token,
    Track,
    UnitKind,
)
from mncore.rulesets.empires.state import (
    Bag,  # phase 3
    FixedOutcome,  # sandboxes
    GameState,  # core: CreateFromPosition
)


class Command(msgspec.Struct, frozen=True, tag=True, forbid_unknown_fields=True, kw_only=True,
              omit_defaults=True):
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
    setup: str = "standard"  # a set-up variant (atlas.py); its board is already joined into `board`
    expansions: tuple[Expansion, ...] = ()  # the Legendary City expansions in play (lc.2)


class CreateFromPosition(Command, frozen=True, kw_only=True):
    """Start a sandbox game at a position (docs/positions.md): the board and the state to load."""

    board: Board
    position: GameState  # the position's state, without board, options, commitment or secret
    # the position is its phase's start: the phase's opening work is done first, as in play (absent in
    # commands stored before it existed, which keep their events)
    begins: bool = False


CoreCommand = CreateGame | CreateFromPosition


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


class OfferResources(Order, frozen=True, kw_only=True):
    """Place resources face down as this round's offer (2.1; 0 to 5 with Antigone, 10.antigone)."""

    tokens: tuple[str, ...]


class ClaimResource(Order, frozen=True, kw_only=True):
    """Claim one token from another empire's revealed offer (2.2)."""

    source: Empire
    token: str


class GiveResource(Order, frozen=True, kw_only=True):
    """Give one resource to an empire that claimed fewer than it offered (2.2.1)."""

    to: Empire
    token: str


class ClaimForeign(Order, frozen=True, kw_only=True):
    """The Punic War: claim a face-up Foreign Trade legendary commodity (atlas.punic-trade)."""

    commodity: Commodity


class DiscardOffered(Order, frozen=True, kw_only=True):
    """The Punic War: discard one of your own face-up offered resources after the opponent claimed a
    Foreign Trade commodity (atlas.punic-trade)."""

    token: str


TradeCommand = PlayExchangeMarker | OfferResources | ClaimResource | GiveResource | ClaimForeign | DiscardOffered


# --- phase 3, Build ---------------------------------------------------------------------------------

class ChooseBuilder(Order, frozen=True, kw_only=True):
    """The Culture Leader names the next builder (3.0)."""

    builder: Empire


class BuildControl(Order, frozen=True, kw_only=True):
    """Place a control marker in a province (3.1.1), paying pay or using Hammurabi's free marker."""

    province: ProvinceId
    pay: Bag = {}
    power: TileId | None = None


class BuildUnit(Order, frozen=True, kw_only=True):
    """Build a legion or fortress in a province or a trireme in a sea (3.1.2), maybe with a power."""

    kind: UnitKind
    place: str
    pay: Bag = {}
    power: TileId | None = None  # spartacus, gilgamesh, pharos or penthesilea


class BuildBuilding(Order, frozen=True, kw_only=True):
    """Build a building in a province, on a given space or the only free space of its kind (3.1.2)."""

    kind: BuildingKind
    province: ProvinceId
    space: str | None = None
    pay: Bag = {}
    power: TileId | None = None  # a once-per-round power that sets the price (10.croesus)


class BuildTile(Order, frozen=True, kw_only=True):
    """Recruit a hero or build a wonder or the Pyramids from the display (3.1.3)."""

    tile: TileId
    pay: Bag = {}
    copy: TileId | None = None  # Castor & Pollux: the hero to copy (10.castor-pollux)
    perseus: bool = False  # build first, out of turn, to win at once (10.perseus)


class EndBuildTurn(Order, frozen=True, kw_only=True):
    """The builder is done; a Hanging Gardens holder may say what he keeps (11.hanging-gardens)."""

    keep: tuple[Token, ...] | None = None


class KeepCommodities(Order, frozen=True, kw_only=True):
    """A Hanging Gardens holder names up to two different commodities to keep (11.hanging-gardens)."""

    keep: tuple[Token, ...] = ()


BuildCommand = (ChooseBuilder | BuildControl | BuildUnit | BuildBuilding | BuildTile | EndBuildTurn
                | KeepCommodities)


# --- phase 4, Move and Battle -------------------------------------------------------------------------

class ChooseMover(Order, frozen=True, kw_only=True):
    """The Military Leader names the next active empire (4.0)."""

    mover: Empire


class DeclarePeace(Order, frozen=True, kw_only=True):
    """Statue of Zeus: make peace with an opponent this round, or with nobody (11.statue-of-zeus)."""

    opponent: Empire | None = None


class MoveTriremes(Order, frozen=True, kw_only=True):
    """Move triremes from one sea to an adjacent sea (4.1.1)."""

    from_sea: SeaId
    to_sea: SeaId
    count: int = 1


class MoveLegions(Order, frozen=True, kw_only=True):
    """Move legions to an adjacent province, or by sea to an adjoining one (4.1.2)."""

    from_province: ProvinceId
    to_province: ProvinceId
    count: int = 1
    centaurs: bool = False  # the Centaurs are among them (atlas.chiron)
    myrmidons: bool = False  # the Myrmidons are among them (10.achilles)
    across: SeaId = ""  # the sea Odysseus crosses without a trireme (10.odysseus, ruling R233)


class Attack(Order, frozen=True, kw_only=True):
    """Fight an opponent at a sea (optional) or in a province (mandatory) (4.1.1, 4.1.2, 4.2)."""

    opponent: Empire
    place: str
    # a sandbox's fixed dice for this battle (ruling R7); omitted when empty, so that an attack
    # without them encodes as it always has (stored commands are re-decided byte for byte)
    dice: dict[Empire, tuple[int, ...]] = {}


class AnswerSeaBattle(Order, frozen=True, kw_only=True):
    """Ptolemy's holder fights an attack on him at sea, or refuses it (10.ptolemy, ruling R212)."""

    fight: bool


class ChooseLosses(Order, frozen=True, kw_only=True):
    """Remove the units destroyed in a battle, chosen by their owner (4.2)."""

    place: str
    legions: int = 0
    fortress: bool = False
    centaurs: bool = False  # the Centaurs are among the legions lost (atlas.chiron)
    myrmidons: bool = False  # the Myrmidons are among the legions lost (10.achilles)


class Pillage(Order, frozen=True, kw_only=True):
    """The Conqueror destroys one building; from a legendary city it takes a coin or a legendary (4.3.1)."""

    province: ProvinceId
    space: str
    take: Literal["coin", "legendary"] | None = None


class OccupyBuildings(Order, frozen=True, kw_only=True):
    """The Conqueror puts one legion on each of these buildings (4.3.2)."""

    province: ProvinceId
    spaces: tuple[str, ...]


class OccupyMarker(Order, frozen=True, kw_only=True):
    """The Conqueror puts a legion on the control marker; with Sheba, converts at once (4.3.3)."""

    province: ProvinceId
    sheba: bool = False


class HoldConquest(Order, frozen=True, kw_only=True):
    """The Conqueror chooses nothing new in this province this turn (4.3)."""

    province: ProvinceId


class PlaceCirceLegion(Order, frozen=True, kw_only=True):
    """Circe: put a legion on an empty caravan space, to act as a caravan (10.circe)."""

    province: ProvinceId
    space: str


class EndMoveTurn(Order, frozen=True, kw_only=True):
    """The active empire ends its Move and Battle turn (4.0)."""


class MoveBarbarians(Order, frozen=True, kw_only=True):
    """The Punic War: pay a coin or a gold to move one Barbarian unit one step (atlas.barbarians, R64)."""

    unit: Literal["legion", "trireme"]
    from_place: str
    to_place: str
    pay: Token
    dice: dict[str, tuple[int, ...]] = {}  # a sandbox's fixed dice for the battle it starts (R7)


class AttackBarbarians(Order, frozen=True, kw_only=True):
    """The Punic War: the active empire attacks the Barbarians where both stand (ruling R66)."""

    place: str
    dice: dict[str, tuple[int, ...]] = {}  # a sandbox's fixed dice (R7): 'barbarians' and the empire


class PeaceWithBarbarians(Order, frozen=True, kw_only=True):
    """The Punic War's Statue of Zeus: peace with the Barbarians this round (ruling R67)."""


MoveCommand = (ChooseMover | DeclarePeace | MoveTriremes | MoveLegions | Attack | ChooseLosses | Pillage
               | OccupyBuildings | OccupyMarker | HoldConquest | PlaceCirceLegion | EndMoveTurn
               | MoveBarbarians | AttackBarbarians | PeaceWithBarbarians | AnswerSeaBattle)


# --- phase 5, Claim Leadership ------------------------------------------------------------------------

class AwardTitle(Order, frozen=True, kw_only=True):
    """The previous title holder settles a tie on a track (5.0)."""

    track: Track
    to: Empire


LeadershipCommand = AwardTitle


# --- sandboxes: fixed random outcomes (ruling R7) -------------------------------------------------------

class FixOutcome(Order, frozen=True, kw_only=True):
    """In a sandbox, fix the next battle dice of an empire, legendary commodity drawn or tile turned up."""

    outcome: FixedOutcome


class ClearFixedOutcomes(Order, frozen=True, kw_only=True):
    """In a sandbox, forget every outcome fixed and not yet used."""


SandboxCommand = FixOutcome | ClearFixedOutcomes


# --- the Legendary City expansions: Bonus Cards and the miniatures placed (lc.3) ----------------------

class DrawBonusCards(Order, frozen=True, kw_only=True):
    """The empire that fulfilled an Objective draws this many Bonus Cards, 1 to 5 (lc.3.2)."""

    count: int


class ChooseBonusCard(Order, frozen=True, kw_only=True):
    """Keep one of the cards looked at and hand the rest to an empire that has none yet (lc.3.2)."""

    card: CardId
    to: Empire | None = None


class PlayBonusCard(Order, frozen=True, kw_only=True):
    """Play a Bonus Card (two Fortune Tellers standing for `as_card`) on its targets (lc.3.3).

    `played`, not `card`: the card kept in ChooseBonusCard is hidden, a card played is public.
    """

    played: CardId
    as_card: CardId | None = None
    place: str = ""  # a province or a sea
    space: str = ""  # a building's space
    target: Empire | None = None  # whose trireme
    track: Track | None = None
    pay: Bag = {}
    take: Bag = {}  # tokens taken (Trajan's Market) or handed over (Parthenon)
    sea: str = ""  # where a trireme is built (the Port of Piraeus)


class PlaceHalicarnassus(Order, frozen=True, kw_only=True):
    """Place the Halicarnassus miniature on one of the holder's provinces (11.halicarnassus)."""

    province: ProvinceId


class LaunchFreeTrireme(Order, frozen=True, kw_only=True):
    """Build the free trireme a recruited hero brings, in a sea next to one of the holder's provinces."""

    tile: TileId
    sea: SeaId


class TakeDiscards(Order, frozen=True, kw_only=True):
    """Dido's holder names the commodities, up to two, he takes of those opponents lost (10.dido, R213)."""

    take: Bag = {}


CitiesCommand = (DrawBonusCards | ChooseBonusCard | PlayBonusCard | PlaceHalicarnassus | LaunchFreeTrireme
                 | TakeDiscards)


AnyOrder = (CollectCommand | TradeCommand | BuildCommand | MoveCommand | LeadershipCommand | SandboxCommand
            | CitiesCommand)
AnyCommand = CoreCommand | AnyOrder

# a stored log's commands: the game's and the kernel's beside them (mncore/core/envelope.py)
CODEC: envelope.Codec[AnyCommand | KernelCommand] = envelope.commands(AnyCommand)


def encode_command(command: AnyCommand | KernelCommand) -> bytes:
    return CODEC.encode(command)


def decode_command(data: bytes | str) -> AnyCommand | KernelCommand:
    return CODEC.decode(data)  # the decoder is built on first use (envelope.Codec): not at import
