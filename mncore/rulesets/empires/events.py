"""Every event of a game, one tagged union; the canonical encoding that the hash chain covers."""

# no `from __future__ import annotations`: msgspec would compile each string annotation again at every
# start (tests/test_lean_start.py)
from typing import Literal, get_args  # phases 1 and 2

import msgspec

from mncore.core import envelope
from mncore.core.bounds import Number, bounded_while_decoding
from mncore.core.kernel_acts import KernelEvent
from mncore.rulesets.empires.board import Board
from mncore.rulesets.empires.ids import (  # phases 3 and 5  # the Legendary City expansions
    BuildingKind,
    CardId,
    Commodity,  # phases 1 and 2
    Empire,
    Expansion,
    Phase,
    ProvinceId,
    SeaId,  # phase 4
    TileId,
    Token,
    Track,
    UnitKind,
)
from mncore.rulesets.empires.state import (
    DisplayTile,
    FixedOutcome,  # sandboxes
    GameState,  # core: PositionLoaded
    Options,
)

# a holding of tokens as an event carries it (state.Bag), each count bounded while decoding
Bag = dict[Token, Number]


class Event(msgspec.Struct, frozen=True, tag=True, forbid_unknown_fields=True, kw_only=True,
            omit_defaults=True):
    """Encoded as {"type": "<ClassName>", ...fields}; past tense; records outcomes, not inputs.

    Fields equal to their default are left out, so that a field added later with a default does not
    change how existing events encode: old logs keep their hashes and still re-decide identically.
    """


# --- the game itself -------------------------------------------------------------------------------

class GameCreated(Event, frozen=True, kw_only=True):
    """The first event: versions, board (whole, with its digest), empires, options, commitment."""

    engine_version: str
    ruleset_id: str
    ruleset_version: Number
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

    round: Number
    phase: Phase


class GameWon(Event, frozen=True, kw_only=True):
    """The game ended: who won, by which condition."""

    empires: tuple[Empire, ...]
    condition: str  # the section of the victory condition: 6.1, 6.2, 6.3 or 6.4
    detail: str = ""


class PositionLoaded(Event, frozen=True, kw_only=True):
    """A sandbox game starts from a position (docs/positions.md): the whole state but the game's identity."""

    state: GameState  # board, options, commitment and secret come from GameCreated, not from here


CoreEvent = GameCreated | TilesDisplayed | PhaseBegan | GameWon | PositionLoaded


# --- phase 1, Collect -------------------------------------------------------------------------------

class ResourcesCollected(Event, frozen=True, kw_only=True):
    """An empire collected resources (1.1, 1.2, set-up step 3); legendary tokens were drawn."""

    empire: Empire
    gained: Bag  # legendary tokens hidden from the other empires (redacted; `drawn` stays)
    sources: tuple[str, ...] = ()  # what yielded them, for explanations
    missed: Bag = {}  # owed but not in the reserve (ruling R20)
    drawn: Number = 0  # how many legendary commodities were drawn face down


class LegendaryPileReshuffled(Event, frozen=True, kw_only=True):
    """The legendary discards became the new face-down draw pile (1.2)."""


class CollectChoicesOpened(Event, frozen=True, kw_only=True):
    """After collecting, these choices are open: legendary city bonuses (1.1), the Colossus (11.colossus)."""

    legendary: tuple[tuple[Empire, ProvinceId], ...] = ()
    colossus: tuple[Empire, ...] = ()


class LegendaryBonusTaken(Event, frozen=True, kw_only=True):
    """With a temple by its legendary city, an empire took the extra coin or legendary commodity (1.1)."""

    empire: Empire
    province: ProvinceId
    take: Literal["coin", "legendary"]
    gained: Bag  # the legendary token is hidden from the other empires (redacted to {})
    missed: Bag = {}  # nothing left to draw (ruling R20)


class ColossusCommodityTaken(Event, frozen=True, kw_only=True):
    """The Colossus holder took one commodity of its choice from the reserve, announced (11.colossus)."""

    empire: Empire
    commodity: Commodity


CollectEvent = (ResourcesCollected | LegendaryPileReshuffled | CollectChoicesOpened
                | LegendaryBonusTaken | ColossusCommodityTaken)


# --- phase 2, Trade ---------------------------------------------------------------------------------

class ExchangeMarkerPlayed(Event, frozen=True, kw_only=True):
    """The Trade Leader played a marker for one of its values (2.1)."""

    empire: Empire
    marker: Number  # index into the ruleset's exchange markers
    value: Number


class TradeOpened(Event, frozen=True, kw_only=True):
    """Who offers and who sits the trade out (ruling R23); the opener claims first (2.2, ruling R25)."""

    participants: tuple[Empire, ...]
    sitting_out: tuple[Empire, ...] = ()
    held: dict[Empire, Number] = {}  # resources each empire held, for explanations
    opener: Empire | None = None


class ResourcesOffered(Event, frozen=True, kw_only=True):
    """An empire placed its offer face down (2.1); the tokens are hidden until revealed (redacted to {})."""

    empire: Empire
    offer: Bag
    count: Number


class OffersRevealed(Event, frozen=True, kw_only=True):
    """Every offer is in: all are flipped face up at once (2.1)."""

    offers: dict[Empire, Bag]


class ResourceClaimed(Event, frozen=True, kw_only=True):
    """An empire claimed one token from another's offer (2.2); the source claims next."""

    empire: Empire
    source: Empire
    token: Token


class TradingEnded(Event, frozen=True, kw_only=True):
    """Claiming is over: unclaimed offers go back, claimed tokens go behind the screens (2.2)."""

    reason: str
    section: str  # the section or ruling that ended it
    returned: dict[Empire, Bag] = {}
    stored: dict[Empire, Bag] = {}


class ResourceGiven(Event, frozen=True, kw_only=True):
    """The empire that claimed an extra resource gave one to an empire left short (2.2.1)."""

    empire: Empire
    to: Empire
    token: Token


class ForeignCommodityDrawn(Event, frozen=True, kw_only=True):
    """The Punic War: a legendary commodity drawn face up as a Foreign Trade resource (atlas.punic-trade)."""

    commodity: Commodity


class ForeignCommodityClaimed(Event, frozen=True, kw_only=True):
    """The Punic War: an empire claimed a face-up Foreign Trade commodity; its opponent discards one of
    its own face-up resources next, then claims (atlas.punic-trade, ruling R62)."""

    empire: Empire
    commodity: Commodity


class OfferDiscarded(Event, frozen=True, kw_only=True):
    """The Punic War: an empire discarded one of its own face-up offered resources into the pool, as the
    Barbarians' claim (atlas.punic-trade)."""

    empire: Empire
    token: Token


TradeEvent = (ExchangeMarkerPlayed | TradeOpened | ResourcesOffered | OffersRevealed
              | ResourceClaimed | TradingEnded | ResourceGiven | ForeignCommodityDrawn
              | ForeignCommodityClaimed | OfferDiscarded)


# --- phase 3, Build ---------------------------------------------------------------------------------

class BuilderChosen(Event, frozen=True, kw_only=True):
    """The Culture Leader named the next builder (3.0)."""

    empire: Empire
    builder: Empire


class ControlBuilt(Event, frozen=True, kw_only=True):
    """The builder placed a control marker in a province (3.1.1); paid goes to the reserves."""

    empire: Empire
    province: ProvinceId
    paid: Bag
    power: TileId | None = None  # hammurabi: placed for free (10.hammurabi)


class UnitBuilt(Event, frozen=True, kw_only=True):
    """The builder placed units: legions or a fortress in a province, a trireme in a sea (3.1.2)."""

    empire: Empire
    kind: UnitKind
    place: str  # a province, or a sea for a trireme
    paid: Bag
    count: Number = 1  # more than one only for Penthesilea's free legions (10.penthesilea)
    power: TileId | None = None  # the once-per-round power that set the cost, if any


class BuildingBuilt(Event, frozen=True, kw_only=True):
    """The builder placed a building on a free printed space of its kind (3.1.2)."""

    empire: Empire
    province: ProvinceId
    space: str
    kind: BuildingKind
    paid: Bag
    power: TileId | None = None  # the once-per-round power that set the price, if any (10.croesus)


class TileGained(Event, frozen=True, kw_only=True):
    """The builder recruited a hero or built a wonder or the Pyramids from the display (3.1.3)."""

    empire: Empire
    tile: TileId
    paid: Bag
    rank: Number  # the empire's 2nd..5th hero/wonder; 0 for the Pyramids (ruling R31)
    copied: TileId | None = None  # Castor & Pollux: the hero whose power is copied
    perseus: bool = False  # built first, out of turn, with Perseus (10.perseus)
    discounts: tuple[TileId, ...] = ()  # powers that took resources off its price (10.jason, 10.imhotep)


class BuildTurnEnded(Event, frozen=True, kw_only=True):
    """The builder finished his build turn (3.0, 3.2)."""

    empire: Empire


class StorageChosen(Event, frozen=True, kw_only=True):
    """A Hanging Gardens holder chose the commodities he keeps past the Build phase (11.hanging-gardens)."""

    empire: Empire
    keep: tuple[Token, ...]


class ResourcesDiscarded(Event, frozen=True, kw_only=True):
    """At the end of the Build phase an empire discarded its unstored resources (3.0)."""

    empire: Empire
    discarded: Bag  # hidden from the other empires (redacted to {})
    count: Number


class TilesTurnedUp(Event, frozen=True, kw_only=True):
    """Face-down tiles of the display were turned face up until as many show as at set-up (set-up step 5;
    six with the Atlantis board, ruling R53)."""

    tiles: tuple[TileId, ...]


class CentaursBuilt(Event, frozen=True, kw_only=True):
    """Chiron's Centaurs placed: free when he is recruited, or rebuilt for 6 resources (atlas.chiron)."""

    empire: Empire
    province: ProvinceId
    paid: Bag = {}


BuildEvent = (BuilderChosen | ControlBuilt | UnitBuilt | BuildingBuilt | TileGained | BuildTurnEnded
              | StorageChosen | ResourcesDiscarded | TilesTurnedUp | CentaursBuilt)


# --- phase 4, Move and Battle -------------------------------------------------------------------------

class MoverChosen(Event, frozen=True, kw_only=True):
    """The Military Leader named the next active empire (4.0)."""

    empire: Empire
    mover: Empire


class PeaceDeclared(Event, frozen=True, kw_only=True):
    """Statue of Zeus: the holder made peace with an opponent, whose legions went home (11.statue-of-zeus)."""

    empire: Empire
    opponent: Empire
    capital: ProvinceId  # the opponent's capital province, where its legions returned
    returned: dict[ProvinceId, Number] = {}  # legions sent home, by the province they left


class PeaceDeclined(Event, frozen=True, kw_only=True):
    """Statue of Zeus: the holder made no peace this round."""

    empire: Empire


class SeaBattleOffered(Event, frozen=True, kw_only=True):
    """An attack at sea on Ptolemy's holder: no dice yet, he fights it or refuses it (10.ptolemy, R212)."""

    empire: Empire  # the attacker
    opponent: Empire  # Ptolemy's holder
    sea: SeaId
    dice: dict[Empire, tuple[Number, ...]] = {}  # a sandbox's fixed dice for the battle (ruling R7)


class SeaBattleAnswered(Event, frozen=True, kw_only=True):
    """Ptolemy's holder fights the attack at sea (the battle follows) or refuses it (10.ptolemy, R212)."""

    empire: Empire  # Ptolemy's holder
    attacker: Empire
    sea: SeaId
    fight: bool


class TriremesMoved(Event, frozen=True, kw_only=True):
    """Triremes of the active empire moved to an adjacent sea (4.1.1)."""

    empire: Empire
    from_sea: SeaId
    to_sea: SeaId
    count: Number


class LegionsMoved(Event, frozen=True, kw_only=True):
    """Legions of the active empire moved to an adjacent province, or by sea to an adjoining one (4.1.2)."""

    empire: Empire
    from_province: ProvinceId
    to_province: ProvinceId
    count: Number
    by_sea: bool = False
    centaurs: bool = False  # the Centaurs are among them (atlas.chiron)
    myrmidons: bool = False  # the Myrmidons are among them (10.achilles)
    across: SeaId = ""  # the sea Odysseus' holder crossed without a trireme (10.odysseus)
    again: Number = 0  # of them, legions making their second step with Chariots (lc.5.3.chariots)


class BattleSide(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """One side of a battle: its dice, every modifier with its source, and what it scored (4.2)."""

    empire: Empire
    units: Number  # legions (land) or triremes (sea) rolling one die each
    dice: tuple[Number, ...]
    extra_dice: dict[str, Number] = {}  # source -> dice added (ramses)
    modifiers: dict[str, Number] = {}  # source -> added to the total (caesar, pericles, fortress, ...)
    total: Number
    scored: Number  # total // 5
    negated: Number = 0  # of the hits scored by this side, those the other side's fortress negated
    hits: Number  # hits against the other side after the negation


class BattleFought(Event, frozen=True, kw_only=True):
    """One roll of the battle dice at a place; each side then loses `losses` units (4.2)."""

    place: str  # a province or a sea
    kind: Literal["land", "sea"]
    attacker: BattleSide
    defender: BattleSide
    losses: dict[Empire, Number] = {}  # units each side must lose (hits, at most its units there)
    # scoring side -> of its negated hits, those a power negated, not a fortress (10.aeneas); an added
    # field with an omitted default, so that battles recorded before it encode as they did
    negated_by: dict[Empire, dict[str, Number]] = {}


class UnitsLost(Event, frozen=True, kw_only=True):
    """An empire removed the units destroyed in a battle (4.2): chosen by it, or forced."""

    empire: Empire
    place: str
    legions: Number = 0
    triremes: Number = 0
    fortress: bool = False
    centaurs: bool = False  # the Centaurs are among the legions lost (atlas.chiron)
    myrmidons: bool = False  # the Myrmidons are among the legions lost (10.achilles)


class OccupationsEnded(Event, frozen=True, kw_only=True):
    """An empire's legions no longer occupy buildings, the control marker or caravan spaces (4.3, R43)."""

    empire: Empire
    province: ProvinceId
    spaces: tuple[str, ...] = ()
    marker: bool = False
    circe: tuple[str, ...] = ()
    reason: str = ""


class Pillaged(Event, frozen=True, kw_only=True):
    """The Conqueror destroyed one building and took its pillage income (4.3.1, 10.hamilcar)."""

    empire: Empire
    province: ProvinceId
    space: str
    kind: BuildingKind
    gained: Bag = {}  # legendary tokens were drawn from the pile


class BuildingsOccupied(Event, frozen=True, kw_only=True):
    """The Conqueror put one legion on each of these buildings (4.3.2)."""

    empire: Empire
    province: ProvinceId
    spaces: tuple[str, ...]


class MarkerOccupied(Event, frozen=True, kw_only=True):
    """The Conqueror put a legion on the province's control marker (4.3.3)."""

    empire: Empire
    province: ProvinceId


class ConquestHeld(Event, frozen=True, kw_only=True):
    """The Conqueror chose nothing new in a province this turn (4.3)."""

    empire: Empire
    province: ProvinceId


class ControlConverted(Event, frozen=True, kw_only=True):
    """An occupied control marker was removed and, if `replaced`, exchanged for the conqueror's (4.3.3)."""

    empire: Empire
    province: ProvinceId
    previous: Empire
    replaced: bool = True  # False: removed only, the province is uncontrolled (9.0 Q&A)
    sheba: bool = False  # at once, sacrificing the occupying legion (10.queen-of-sheba)


class CirceLegionPlaced(Event, frozen=True, kw_only=True):
    """A legion was put on an empty caravan space to act as a caravan at the next Collect (10.circe)."""

    empire: Empire
    province: ProvinceId
    space: str


class MoveTurnEnded(Event, frozen=True, kw_only=True):
    """The active empire finished its Move and Battle turn (4.0)."""

    empire: Empire


class CentaursStruck(Event, frozen=True, kw_only=True):
    """Before a land battle the Centaurs destroyed one of the opponent's legions (atlas.chiron)."""

    empire: Empire  # the Centaurs' owner
    opponent: Empire
    place: ProvinceId


class BarbariansMoved(Event, frozen=True, kw_only=True):
    """The Punic War: an empire paid a coin or a gold to move one Barbarian unit to an adjacent province or
    sea (atlas.barbarians, ruling R64)."""

    empire: Empire  # who moved them
    unit: Literal["legion", "trireme"]
    from_place: str
    to_place: str
    paid: Token


class BarbarianSide(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """The Barbarians' side of a battle: a die per unit, their fortress's bonus, what they scored (4.2)."""

    units: Number
    dice: tuple[Number, ...]
    fortress: Number = 0  # the fortress bonus added to the total
    total: Number
    scored: Number
    negated: Number = 0  # hits the empire's fortress negated
    hits: Number


class BarbarianBattleFought(Event, frozen=True, kw_only=True):
    """The Punic War: one roll of a battle between the Barbarians and an empire (atlas.barbarians, ruling
    R65); the Barbarians lose `barbarians_lost` units at once, the empire `losses` units, as in 4.2."""

    place: str
    kind: Literal["land", "sea"]
    attacker: Literal["barbarians", "empire"]
    by: Empire  # the active empire: who moved the Barbarians in, or who attacked them
    empire: BattleSide  # the empire fighting the Barbarians
    barbarians: BarbarianSide
    barbarians_lost: Number
    losses: Number  # units the empire must lose


class BarbarianPeaceDeclared(Event, frozen=True, kw_only=True):
    """The Punic War: a Statue of Zeus holder is at peace with the Barbarians this round (ruling R67)."""

    empire: Empire


MoveEvent = (MoverChosen | PeaceDeclared | PeaceDeclined | TriremesMoved | LegionsMoved | BattleFought
             | UnitsLost | OccupationsEnded | Pillaged | BuildingsOccupied | MarkerOccupied
             | ConquestHeld | ControlConverted | CirceLegionPlaced | MoveTurnEnded | CentaursStruck
             | BarbariansMoved | BarbarianBattleFought | BarbarianPeaceDeclared | SeaBattleOffered
             | SeaBattleAnswered)


# --- phase 5, Claim Leadership ------------------------------------------------------------------------

class TitleClaimed(Event, frozen=True, kw_only=True):
    """An empire took (or kept) a leader title (5.0); levels recorded for explanations."""

    track: Track
    empire: Empire
    levels: dict[Empire, Number]
    decided_by: Empire | None = None  # the previous holder, when he broke a tie
    drawn: bool = False  # a tie with no previous holder in the game, drawn at random (ruling R36)


class TitleTied(Event, frozen=True, kw_only=True):
    """Several empires tie at the top of a track; the previous holder must decide (5.0)."""

    track: Track
    holder: Empire
    tied: tuple[Empire, ...]
    levels: dict[Empire, Number]


LeadershipEvent = TitleClaimed | TitleTied


# --- sandboxes: fixed random outcomes (ruling R7) -------------------------------------------------------

class OutcomeFixed(Event, frozen=True, kw_only=True):
    """In a sandbox, an order fixed a coming random outcome: the draw it replaces will not be made (R7)."""

    empire: Empire  # who gave the order
    outcome: FixedOutcome  # a legendary commodity is hidden from the other empires (redacted)


class FixedOutcomeUsed(Event, frozen=True, kw_only=True):
    """The outcome of the next event was fixed, not drawn (ruling R7): dice, a legendary, a tile."""

    outcome: FixedOutcome  # a legendary commodity is hidden from all but its drawer (redacted)
    empire: Empire | None = None  # who rolls the dice or draws the legendary commodity
    place: str = ""  # the battle's province or sea
    queued: bool = True  # False: fixed by the order itself (attack ... dice), not by an earlier order


class FixedOutcomesCleared(Event, frozen=True, kw_only=True):
    """In a sandbox, an order cleared every outcome fixed and not yet used (ruling R7)."""

    empire: Empire
    cleared: tuple[FixedOutcome, ...]


SandboxEvent = OutcomeFixed | FixedOutcomeUsed | FixedOutcomesCleared


# --- the Legendary City expansions (atlas 'LEGENDARY CITIES'; cited lc.*) ------------------------------

class CitiesSetUp(Event, frozen=True, kw_only=True):
    """Set-up with expansions (lc.2, lc.4): base tiles replaced, Objective tiles face up, the decks."""

    expansions: tuple[Expansion, ...]
    removed: tuple[TileId, ...]
    added: tuple[TileId, ...]
    objectives: tuple[str, ...]
    decks: dict[Expansion, tuple[CardId, ...]]  # the printed cards, face down, drawn at random
    # tokens added to the reserves because a tile is in play: 2 gold with Midas (10.midas); absent in logs
    # recorded before, which played without them (the former ruling R211)
    supply: dict[Token, Number] = {}


class ObjectiveFulfilled(Event, frozen=True, kw_only=True):
    """The first empire to meet an Objective fulfilled it; the tile is turned to its used side (lc.3.1)."""

    empire: Empire
    objective: str
    detail: str = ""
    draws: bool = True  # False: its deck is empty, no draw follows (ruling R203)


class BonusCardsDrawn(Event, frozen=True, kw_only=True):
    """The fulfilling empire said how many Bonus Cards it draws and drew them (lc.3.2); only it sees them."""

    empire: Empire
    deck: Expansion
    count: Number
    cards: tuple[CardId, ...]  # hidden from the other empires


class BonusCardKept(Event, frozen=True, kw_only=True):
    """The holder kept one of the cards it looked at, face down (lc.3.2)."""

    empire: Empire
    card: CardId  # hidden from the other empires


class BonusCardsPassed(Event, frozen=True, kw_only=True):
    """The holder handed the remaining cards to an empire that has not received one yet (lc.3.2)."""

    empire: Empire
    to: Empire
    count: Number
    cards: tuple[CardId, ...]  # seen by the giver and the receiver only


class BonusCardsDiscarded(Event, frozen=True, kw_only=True):
    """Cards left once each empire has received one went to the discard pile, face down (lc.3.2, R201)."""

    empire: Empire
    count: Number
    cards: tuple[CardId, ...]  # seen by the one who discards them only


class DiscardCardDrawn(Event, frozen=True, kw_only=True):
    """A power drew a Bonus Card of its deck from the discard pile at random (10.adonis, ruling R201)."""

    empire: Empire
    tile: TileId
    card: CardId  # hidden from the other empires


class BonusCardPlayed(Event, frozen=True, kw_only=True):
    """A Bonus Card was played face up and discarded (lc.3.3); two Fortune Tellers stand for `as_card`.

    `played`, not `card`: a kept card (BonusCardKept.card) is hidden, a played one is public.
    """

    empire: Empire
    played: CardId
    as_card: CardId | None = None


class TriremeSunk(Event, frozen=True, kw_only=True):
    """A card destroyed one of an opponent's triremes in a sea (Poseidon)."""

    empire: Empire
    owner: Empire
    sea: SeaId


class BuildingDestroyed(Event, frozen=True, kw_only=True):
    """A card destroyed a building: a caravan (Vulcan) or a city of any kind (Baal)."""

    empire: Empire
    owner: Empire | None
    province: ProvinceId
    space: str
    kind: BuildingKind


class LeaderBoosted(Event, frozen=True, kw_only=True):
    """A card added to one of the empire's leader tracks until the end of the round (Horus)."""

    empire: Empire
    track: Track
    amount: Number
    round: Number


class ProvinceShielded(Event, frozen=True, kw_only=True):
    """A card protected a capital or legendary city province until the end of the round (Athena)."""

    empire: Empire
    province: ProvinceId
    round: Number


class ProvinceOpened(Event, frozen=True, kw_only=True):
    """A card let the empire build in its province this round whatever opponent units stand there (Ishtar)."""

    empire: Empire
    province: ProvinceId
    round: Number


class HalicarnassusPlaced(Event, frozen=True, kw_only=True):
    """The Halicarnassus miniature was placed on one of its holder's provinces (11.halicarnassus)."""

    empire: Empire
    province: ProvinceId


class TollPaid(Event, frozen=True, kw_only=True):
    """An attacker paid Solomon's holder a coin to attack his units in his province (10.solomon)."""

    empire: Empire
    to: Empire
    province: ProvinceId


class FreeTriremeBuilt(Event, frozen=True, kw_only=True):
    """A recruited hero's free trireme was built in a sea next to its holder's province (10.ptolemy)."""

    empire: Empire
    tile: TileId
    sea: SeaId


class DiscardsOffered(Event, frozen=True, kw_only=True):
    """The ordinary commodities opponents lost as Build ended: Dido's holder names up to `keep` of them
    to take (10.dido, ruling R213)."""

    empire: Empire
    tile: TileId
    lost: Bag  # hidden from the other empires, as what they discarded is
    keep: Number


class DiscardsTaken(Event, frozen=True, kw_only=True):
    """Dido's holder took commodities the opponents discarded at the end of Build (10.dido, R213)."""

    empire: Empire
    tile: TileId
    taken: Bag  # hidden from the other empires, as what they discarded is


class OfferChanged(Event, frozen=True, kw_only=True):
    """After the offers were revealed, an empire changed its own offer (the Oracle of Delphi)."""

    empire: Empire
    offer: Bag
    returned: Bag  # the tokens of the old offer, back behind its screen


class ResourceForced(Event, frozen=True, kw_only=True):
    """An opponent was forced to take one token of the empire's own offer (Parthenon of Athens)."""

    empire: Empire
    to: Empire
    token: Token


CitiesEvent = (CitiesSetUp | ObjectiveFulfilled | BonusCardsDrawn | BonusCardKept | BonusCardsPassed
               | BonusCardsDiscarded | DiscardCardDrawn | BonusCardPlayed | TriremeSunk | BuildingDestroyed
               | LeaderBoosted | ProvinceShielded | ProvinceOpened | HalicarnassusPlaced | TollPaid | FreeTriremeBuilt
               | DiscardsTaken | OfferChanged | ResourceForced | DiscardsOffered)


# --- Troia (lc.5): the Myrmidons, the War cards' battle effects, the Battle Victory markers ----------------

class MyrmidonsBuilt(Event, frozen=True, kw_only=True):
    """Achilles' Myrmidons placed: free when he is recruited, or rebuilt for 6 resources (10.achilles)."""

    empire: Empire
    province: ProvinceId
    paid: Bag = {}


class BattleCardReady(Event, frozen=True, kw_only=True):
    """A War card that lasts for the next battle at a place this turn (War Elephants, ..., ruling R235)."""

    empire: Empire
    played: CardId  # the card whose effect is used (public: `played`, as in BonusCardPlayed)
    place: str


class ChariotsHarnessed(Event, frozen=True, kw_only=True):
    """The active empire's legions may move a second step this turn (lc.5.3.chariots, ruling R236)."""

    empire: Empire


class LossImposed(Event, frozen=True, kw_only=True):
    """Cretan Archers: the owner must choose one unit lost there (ruling R235)."""

    empire: Empire  # who played the card
    owner: Empire
    place: ProvinceId


class BattleWon(Event, frozen=True, kw_only=True):
    """A Battle Victory marker (lc.5.2.3, ruling R234): the winner has a unit left, the loser none."""

    empire: Empire
    place: str
    over: Empire


TroiaEvent = MyrmidonsBuilt | BattleCardReady | ChariotsHarnessed | LossImposed | BattleWon


AnyEvent = (CoreEvent | CollectEvent | TradeEvent | BuildEvent | MoveEvent | LeadershipEvent
            | SandboxEvent | CitiesEvent | TroiaEvent)

# a stored log's events: the game's and the kernel's beside them (mncore/core/envelope.py)
CODEC: envelope.Codec[AnyEvent | KernelEvent] = envelope.events(AnyEvent)
# all but those holding the board's or a state's types, whose integers stay plain (bounds.py)
bounded_while_decoding(kind for kind in get_args(AnyEvent) if kind not in (
    GameCreated, PositionLoaded, OutcomeFixed, FixedOutcomeUsed, FixedOutcomesCleared))


def encode_event(event: AnyEvent | KernelEvent) -> bytes:
    """The canonical (deterministic) JSON of an event: what the hash chain covers."""
    return CODEC.encode(event)


def decode_event(data: bytes | str) -> AnyEvent | KernelEvent:
    return CODEC.decode(data)  # the decoder is built on first use (envelope.Codec): not at import


def event_type(event: AnyEvent | KernelEvent) -> str:
    return type(event).__name__

