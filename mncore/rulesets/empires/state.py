"""The game state: frozen Structs folded from the events, and read-only queries on them."""

# no `from __future__ import annotations`: msgspec would compile each string annotation again at every
# start (tests/test_lean_start.py)
from typing import Literal

import msgspec

from mncore.rulesets.empires.board import Board
from mncore.rulesets.empires.ids import (  # the Legendary City expansions
    BuildingKind,
    CardId,
    Commodity,
    Display,
    Empire,
    Expansion,
    Phase,
    ProvinceId,
    SeaId,
    TileId,
    Token,
    Track,
)


class _S(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    """Base of every state Struct; defaults are left out of its JSON, as for events (see Event)."""


Bag = dict[Token, int]  # a holding of resource tokens; only positive counts are kept


class ForkInfo(_S, frozen=True, kw_only=True):
    """Where a forked game branched off."""

    game: str
    at: int
    head_hash: str
    commitment: str


class Options(_S, frozen=True, kw_only=True):
    """Options chosen at creation."""

    # Display's words come from another module on purpose: a decoded display is then never the very
    # object of this default, and msgspec's omit_defaults (an identity test) keeps writing it, as every
    # recorded log has it (tests/test_lean_start.py)
    display: Display = "first-game"
    expansions: tuple[Expansion, ...] = ()  # the Legendary City expansions chosen (lc.2)
    fair_play: bool = True
    sandbox: bool = False  # not fair-play (forks, positions, known seeds): outcomes may be fixed (R7)
    fork_of: ForkInfo | None = None
    setup: str = "standard"  # the set-up variant (mncore/rulesets/empires/data/setups.toml)


class ProvinceState(_S, frozen=True, kw_only=True):
    """Who controls a province, what is built on its spaces, whose units and occupiers are there."""

    controller: Empire | None = None
    buildings: dict[str, BuildingKind] = {}  # space id -> building built on it
    legions: dict[Empire, int] = {}
    fortress: Empire | None = None  # at most one per province (3.1.2)
    occupied: dict[str, Empire] = {}  # space id -> conqueror whose legion occupies it (4.3.2)
    marker_occupier: Empire | None = None  # legion on the control marker (4.3.3)
    marker_round: int = 0  # the round the marker was occupied
    circe: dict[str, Empire] = {}  # empty caravan space -> legion acting as a caravan (10.circe)


class DisplayTile(_S, frozen=True, kw_only=True):
    """A tile on the Heroes & Wonders display (set-up step 5)."""

    tile: TileId
    face_up: bool


class EmpireState(_S, frozen=True, kw_only=True):
    """One empire: its player, resources behind the screen, tiles and per-round power use."""

    player: str
    resources: Bag = {}
    tiles: tuple[TileId, ...] = ()  # starting hero first, then in the order gained
    copied: TileId | None = None  # the hero Castor & Pollux copies (10.castor-pollux)
    used: tuple[str, ...] = ()  # once-per-round powers used this round
    peace_with: Empire | None = None  # Statue of Zeus peace this round (11.statue-of-zeus)
    last_peace: Empire | None = None  # the opponent of last round's peace
    # Chiron's Centaurs (atlas.chiron): one of this empire's legions in that province, while on the board
    centaurs: ProvinceId | None = None
    # Achilles' Myrmidons (10.achilles): one of this empire's legions in that province, while on the board
    myrmidons: ProvinceId | None = None


# --- phase sub-states: what the current phase is waiting for -------------------------------------

class CollectStep(_S, frozen=True, kw_only=True, tag="collect"):
    """Collect: the choices still open after the automatic collection."""

    legendary_choices: tuple[tuple[Empire, ProvinceId], ...] = ()  # coin or legendary (1.1)
    colossus: tuple[Empire, ...] = ()  # who still picks a commodity (11.colossus)


class Claim(_S, frozen=True, kw_only=True):
    """One claim of the Trade phase: claimant took a token offered by source."""

    claimant: Empire
    source: Empire
    token: Token


class TradeStep(_S, frozen=True, kw_only=True, tag="trade"):
    """Trade: the marker played, the offers, the claims so far and who claims next."""

    value: int | None = None  # None until the Trade Leader plays a marker
    participants: tuple[Empire, ...] = ()
    offers: dict[Empire, Bag] = {}  # hidden until revealed; what remains unclaimed
    offered: dict[Empire, int] = {}  # how many each offered
    revealed: bool = False
    claimant: Empire | None = None
    claims: tuple[Claim, ...] = ()
    claimed: dict[Empire, Bag] = {}  # face down on each claimant's mat
    opener: Empire | None = None  # who claims first: the Trade Leader, or ruling R25
    over: bool = False  # claiming has ended (2.2); only 2.2.1 gifts may remain
    discarding: Empire | None = None  # the Punic War: who discards after a Foreign Trade claim
    gifts: tuple[Claim, ...] = ()  # 2.2.1: claimant = receiver, source = giver


class BuildStep(_S, frozen=True, kw_only=True, tag="build"):
    """Build: the active builder and who has built."""

    active: Empire | None = None
    done: tuple[Empire, ...] = ()
    recruited: tuple[Empire, ...] = ()  # who recruited a fifth tile this phase (6.2)
    builds: int = 0  # items built so far this phase: Perseus must build before any (ruling R33)
    kept: dict[Empire, tuple[Token, ...]] = {}  # Hanging Gardens choices made (11.hanging-gardens)


class Loss(_S, frozen=True, kw_only=True):
    """Hits an empire must take in a place, choosing which units are lost (4.2)."""

    empire: Empire
    place: str
    hits: int


class SeaChallenge(_S, frozen=True, kw_only=True):
    """An attack at sea on Ptolemy's holder, waiting for him to fight or refuse it (10.ptolemy, R212)."""

    attacker: Empire
    defender: Empire
    sea: SeaId
    dice: dict[Empire, tuple[int, ...]] = {}  # a sandbox's fixed dice for the battle (ruling R7)


class MoveStep(_S, frozen=True, kw_only=True, tag="move"):
    """Move and Battle: peace decisions, the active empire, its stage and its open obligations."""

    peace_decided: tuple[Empire, ...] = ()  # Statue of Zeus holders who have decided (11.statue-of-zeus)
    active: Empire | None = None
    done: tuple[Empire, ...] = ()
    # naval: triremes move; sea: sea battles; land: legions move; battles: land battles and conquests
    stage: Literal["naval", "sea", "land", "battles"] = "naval"
    moved_triremes: dict[SeaId, int] = {}  # the active empire's triremes that moved there
    moved_legions: dict[ProvinceId, int] = {}  # the active empire's legions that moved there
    battles: tuple[str, ...] = ()  # places fought over this turn (one battle each, 9.0)
    losses: tuple[Loss, ...] = ()  # casualty choices still open
    decided: tuple[ProvinceId, ...] = ()  # provinces whose conquest choice was made this turn (4.3)
    centaurs_moved: bool = False  # the active empire's Centaurs moved this turn (atlas.chiron)
    myrmidons_moved: bool = False  # the active empire's Myrmidons moved this turn (10.achilles)
    chariots: bool = False  # the active empire played Chariots this turn (lc.5.3.chariots)
    twice: dict[ProvinceId, int] = {}  # legions there that made their second step (Chariots, R236)
    twice_units: tuple[str, ...] = ()  # "centaurs", "myrmidons": made their second step (Chariots, R236)
    crossing: SeaId = ""  # the sea Odysseus crosses this turn (10.odysseus, ruling R233)
    challenge: SeaChallenge | None = None  # an attack at sea Ptolemy's holder answers (ruling R212)
    refused: tuple[tuple[SeaId, Empire], ...] = ()  # (sea, Ptolemy's holder) attacks refused this turn


class TitleTie(_S, frozen=True, kw_only=True):
    """A tie on a track that the previous title holder must settle (5.0)."""

    track: Track
    holder: Empire
    tied: tuple[Empire, ...]


class LeadershipStep(_S, frozen=True, kw_only=True, tag="leadership"):
    """Claim Leadership: the ties still to settle."""

    ties: tuple[TitleTie, ...] = ()
    # who held all three titles when the phase began, i.e. at the end of the last one (ruling R61)
    held_all: Empire | None = None


Step = CollectStep | TradeStep | BuildStep | MoveStep | LeadershipStep


class Victory(_S, frozen=True, kw_only=True):
    """Who won, by which condition (6.1–6.4), in which round."""

    empires: tuple[Empire, ...]
    condition: str
    round: int
    detail: str = ""


# --- sandboxes: random outcomes fixed in advance (ruling R7) ----------------------------------------

class FixedDice(_S, frozen=True, kw_only=True, tag_field="kind", tag="dice"):
    """The dice an empire rolls in the next battle it fights, one per die (ruling R7)."""

    empire: Empire
    dice: tuple[int, ...]


class FixedLegendary(_S, frozen=True, kw_only=True, tag_field="kind", tag="legendary"):
    """The next legendary commodity drawn from the pile (ruling R7)."""

    commodity: Commodity | None  # None only in a copy redacted for another empire (ruling R4)


class FixedTile(_S, frozen=True, kw_only=True, tag_field="kind", tag="tile"):
    """The next face-down tile of the display turned face up (ruling R7)."""

    tile: TileId


class FixedBarbarianDice(_S, frozen=True, kw_only=True, tag_field="kind", tag="barbarian-dice"):
    """The dice the Punic War's Barbarians roll in the next battle they fight, one per unit (ruling R7)."""

    dice: tuple[int, ...]


FixedOutcome = FixedDice | FixedLegendary | FixedTile | FixedBarbarianDice


# --- the Legendary City expansions: objectives, Bonus Cards and their effects (lc.3) -----------------

class DiscardPool(_S, frozen=True, kw_only=True):
    """The ordinary commodities opponents lost as Build ended, from which Dido's holder takes up to
    `keep` (10.dido, ruling R213); hidden from the other empires, as their discards are."""

    empire: Empire
    tile: TileId
    lost: Bag
    keep: int


class CardDraw(_S, frozen=True, kw_only=True):
    """A draw-and-pass of Bonus Cards (lc.3.2): the drawer says how many, then each holder keeps one."""

    drawer: Empire
    objective: str
    deck: Expansion
    count: int = 0  # 0 until the drawer has said how many he draws
    holder: Empire | None = None  # who chooses a card now
    hand: tuple[CardId, ...] = ()  # the cards the holder looks at (hidden from the others)
    received: tuple[Empire, ...] = ()  # who has kept a card, in order


class Boost(_S, frozen=True, kw_only=True):
    """A leader track bonus that lasts until the end of its round (Horus)."""

    empire: Empire
    track: Track
    amount: int
    round: int


class Shield(_S, frozen=True, kw_only=True):
    """A province protected from land battles, pillage and occupation until the end of a round (Athena)."""

    province: ProvinceId
    round: int


class Opened(_S, frozen=True, kw_only=True):
    """A province its controller may build in this round whatever opponent units stand there (Ishtar)."""

    empire: Empire
    province: ProvinceId
    round: int


class Tactic(_S, frozen=True, kw_only=True):
    """A War card played for the next battle at a place this turn (ruling R235)."""

    empire: Empire
    played: CardId
    place: str


class Fight(_S, frozen=True, kw_only=True):
    """A battle fought whose losses are not all taken yet: its winner is known then (ruling R234)."""

    place: str
    attacker: Empire
    defender: Empire


class CitiesState(_S, frozen=True, kw_only=True):
    """The expansions in play: objectives, decks, hands, the discard pile and the cards' lasting effects."""

    expansions: tuple[Expansion, ...] = ()
    objectives: tuple[str, ...] = ()  # the Objective tiles in play (lc.2)
    fulfilled: dict[str, Empire] = {}  # objective id -> who fulfilled it: turned to its used side
    decks: dict[Expansion, tuple[CardId, ...]] = {}  # face down; drawn at random (lc.2)
    discard: tuple[CardId, ...] = ()  # face down (ruling R201)
    hands: dict[Empire, tuple[CardId, ...]] = {}  # each hidden from the other empires
    draws: tuple[CardDraw, ...] = ()  # the first is in progress; more wait their turn (ruling R200)
    boosts: tuple[Boost, ...] = ()
    shields: tuple[Shield, ...] = ()
    halicarnassus: ProvinceId | None = None  # where the miniature stands (11.halicarnassus)
    opened: tuple[Opened, ...] = ()  # provinces opened to their controller's builds this round (Ishtar)
    launched: tuple[TileId, ...] = ()  # tiles whose free trireme was built (10.archimedes, 10.ptolemy)
    discards: tuple[DiscardPool, ...] = ()  # what Dido's holder may take, until he names it (R213)
    # Troia (lc.5): War cards waiting for the next battle at their place; battles not yet settled;
    # the Battle Victory markers (ruling R234)
    tactics: tuple[Tactic, ...] = ()
    fights: tuple[Fight, ...] = ()
    victories: dict[Empire, int] = {}


class Barbarians(_S, frozen=True, kw_only=True):
    """The Punic War's Barbarians (atlas.barbarians): their units, and this round's moves and peace."""

    legions: dict[ProvinceId, int] = {}
    fortresses: tuple[ProvinceId, ...] = ()
    triremes: dict[SeaId, int] = {}
    moves: dict[Empire, int] = {}  # Barbarian moves each empire paid for this round (ruling R64)
    peace: tuple[Empire, ...] = ()  # Statue of Zeus holders at peace with them this round (ruling R67)
    last_peace: tuple[Empire, ...] = ()  # those at peace with them last round


# dict=True: the instance dict (never encoded, compared or copied by replace) holds the facts derived
# from the state that evolve carries forward (mncore/rulesets/empires/kept.py)
class GameState(_S, frozen=True, kw_only=True, dict=True):
    """Everything the rules need to know about a game at one point of its log."""

    game_id: str = ""
    ruleset_id: str = ""
    ruleset_version: int = 0
    board: Board | None = None
    board_digest: str = ""
    options: Options = Options()
    commitment: str = ""
    round: int = 0
    phase: Phase = "trade"
    step: Step = TradeStep()
    empires: dict[Empire, EmpireState] = {}
    provinces: dict[ProvinceId, ProvinceState] = {}
    seas: dict[SeaId, dict[Empire, int]] = {}  # triremes per sea per empire
    supply: Bag = {}  # coins and ordinary commodities in the reserve
    legendary_pile: tuple[Commodity, ...] = ()  # face down, drawn at random (1.2)
    legendary_discard: tuple[Commodity, ...] = ()
    foreign_trade: tuple[Commodity, ...] = ()  # the Punic War's face-up Foreign Trade commodities
    titles: dict[Track, Empire] = {}
    display: tuple[DisplayTile, ...] = ()
    exchange_played: tuple[int, ...] = ()  # indexes of exchange markers played (2.1)
    exchange_holder: Empire | None = None  # the Trade Leader who holds the markers
    round_start_control: dict[Empire, tuple[ProvinceId, ...]] = {}  # for 3.1.1
    winner: Victory | None = None
    fixed: tuple[FixedOutcome, ...] = ()  # sandboxes only: used, in order, by the draws they replace (R7)
    cities: CitiesState | None = None  # the Legendary City expansions in play, if any
    barbarians: Barbarians | None = None  # the Punic War's third power (atlas.barbarians)

    @property
    def geo_board(self) -> Board:
        assert self.board is not None, "state before GameCreated has no board"
        return self.board


# --- the current phase's step (its default when another phase's step is current) ---------------------

def build_step(state: GameState) -> BuildStep:
    return state.step if isinstance(state.step, BuildStep) else BuildStep()


def move_step(state: GameState) -> MoveStep:
    return state.step if isinstance(state.step, MoveStep) else MoveStep()


def trade_step(state: GameState) -> TradeStep:
    return state.step if isinstance(state.step, TradeStep) else TradeStep()


def collect_step(state: GameState) -> CollectStep:
    return state.step if isinstance(state.step, CollectStep) else CollectStep()


def bag_total(bag: Bag) -> int:
    return sum(bag.values())


def add_into(bag: Bag, tokens: Bag) -> None:
    """tokens added to bag in place; a count that falls to zero is dropped where it falls (the others
    keep their order)."""
    get = bag.get
    for token, n in tokens.items():
        total = get(token, 0) + n
        if total:
            bag[token] = total
        else:
            bag.pop(token, None)


def sub_into(bag: Bag, tokens: Bag) -> None:
    """tokens taken from bag in place, as add_into adds them."""
    get = bag.get
    for token, n in tokens.items():
        left = get(token, 0) - n
        if left:
            bag[token] = left
        else:
            bag.pop(token, None)


def bag_add(bag: Bag, other: Bag) -> Bag:
    """The sum of two bags."""
    out = bag.copy()
    add_into(out, other)
    # a zero the bag itself held is dropped as well (no bag the fold makes holds one)
    return out if 0 not in out.values() else {t: n for t, n in out.items() if n}


def bag_sub(bag: Bag, other: Bag) -> Bag:
    """bag minus other; counts may go negative only if the caller did not check (evolve trusts)."""
    out = bag.copy()
    sub_into(out, other)
    return out if 0 not in out.values() else {t: n for t, n in out.items() if n}


def bags_moved(giver: Bag, taker: Bag, tokens: Bag) -> tuple[Bag, Bag]:
    """(bag_sub(giver, tokens), bag_add(taker, tokens)) in one pass over the tokens: a payment to the
    reserve, a collection from it."""
    gave, took = giver.copy(), taker.copy()
    gave_get, took_get = gave.get, took.get
    for token, n in tokens.items():
        left = gave_get(token, 0) - n
        if left:
            gave[token] = left
        else:
            gave.pop(token, None)
        total = took_get(token, 0) + n
        if total:
            took[token] = total
        else:
            took.pop(token, None)
    return (gave if 0 not in gave.values() else {t: n for t, n in gave.items() if n},
            took if 0 not in took.values() else {t: n for t, n in took.items() if n})


def bag_plus_one(bag: Bag, token: Token) -> Bag:
    """bag_add(bag, {token: 1}) without the bag of one: a claim, a gift, a toll move one token."""
    out = bag.copy()  # dict's own copy: no call of the type as dict(bag) makes
    n = out.get(token, 0) + 1
    if n:
        out[token] = n
    else:
        del out[token]
    return out if 0 not in out.values() else {t: c for t, c in out.items() if c}


def bag_minus_one(bag: Bag, token: Token) -> Bag:
    """bag_sub(bag, {token: 1}) without the bag of one."""
    out = bag.copy()
    n = out.get(token, 0) - 1
    if n:
        out[token] = n
    else:
        del out[token]
    return out if 0 not in out.values() else {t: c for t, c in out.items() if c}


def bag_contains(bag: Bag, other: Bag) -> bool:
    return all(bag.get(t, 0) >= n for t, n in other.items())


def bag_of(tokens: list[Token] | tuple[Token, ...]) -> Bag:
    out: Bag = {}
    for t in tokens:
        out[t] = out.get(t, 0) + 1
    return out


def bag_tokens(bag: Bag) -> list[Token]:
    """The bag as a sorted list of tokens, one per item."""
    return [t for t in sorted(bag) for _ in range(bag[t])]
