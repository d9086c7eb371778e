"""The classic game's state: frozen Structs, folded from events by evolve, read by the rules."""

from __future__ import annotations

import msgspec

from mncore.core.protocol import ForkRef
from mncore.rulesets.classic.card_powers import Powers
from mncore.rulesets.classic.components import Board
from mncore.rulesets.classic.ids import Aftermath, Building, Phase, Role, Setup, Variant


class _S(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    pass


class Units(_S, frozen=True, kw_only=True):
    """One civilisation's units in a province; triremes here are in port, not yet at sea (6.9)."""

    legion: int = 0
    creature: int = 0
    fortress: int = 0
    trireme: int = 0

    def ground(self) -> int:
        return self.legion + self.creature + self.fortress

    def movers(self) -> int:
        return self.legion + self.creature

    def total(self) -> int:
        return self.ground() + self.trireme


class Built(_S, frozen=True, kw_only=True):
    kind: Building
    resource: str = ""  # the resource icon a caravan marks


class Land(_S, frozen=True, kw_only=True):
    """A province: its influence marker, buildings, units, and who occupies or converts it (6.11)."""

    influence: str = ""
    buildings: tuple[Built, ...] = ()
    units: dict[str, Units] = {}
    occupier: str = ""
    converter: str = ""
    claims: tuple[Built, ...] = ()  # the buildings the occupier's units stand on, in the order named (C7)

    def count(self, kind: str) -> int:
        return sum(1 for b in self.buildings if b.kind == kind)

    def present(self) -> list[str]:
        """The civilisations with ground units here."""
        return [c for c, u in self.units.items() if u.ground() > 0]


class Options(_S, frozen=True, kw_only=True):
    fair_play: bool = True
    sandbox: bool = False
    fork_of: ForkRef | None = None
    variant: Variant = "standard"
    setup: Setup = "basic"


class GodCard(_S, frozen=True, kw_only=True):
    god: str
    face_up: bool = True
    active: bool = False  # invoked in this phase: its lasting effects hold until the phase ends (C17)


class Trade(_S, frozen=True, kw_only=True):
    """The Commerce phase's trading (3.2): the ask, the face-down offers, the taking chain."""

    asked: int | None = None
    traders: tuple[str, ...] = ()  # who offers: those holding at least the number asked
    offers: dict[str, tuple[str, ...]] = {}  # face down until every trader has offered
    revealed: bool = False
    open: dict[str, tuple[str, ...]] = {}  # offered cards still face up
    taken: dict[str, tuple[str, ...]] = {}  # cards each has taken, face down before it
    taker: str = ""  # who takes next
    last: tuple[tuple[str, str], ...] = ()  # the latest trades, (taker, source)
    short: str = ""  # who waits for the Director's card (3.2.6)
    done: bool = False


class Blockade(_S, frozen=True, kw_only=True):
    """A march by sea on a Greek province, waiting for the Greek player to attack its triremes (6.13)."""

    greek: str
    civ: str
    unit: str
    count: int
    source: str
    dest: str
    via: tuple[str, ...]
    then: str = ""
    sack: str = ""


class Owed(_S, frozen=True, kw_only=True):
    """Hits a battle scored on a civilisation whose owner chooses the units lost (6.9, ruling C9)."""

    civ: str
    province: str
    hits: int


class Invasion(_S, frozen=True, kw_only=True):
    """A march whose battles wait for losses to be chosen (6.5, 6.9): whom it fought, and its aftermath."""

    civ: str
    province: str
    fought: tuple[str, ...]
    then: Aftermath = ""
    sack: str = ""


class Award(_S, frozen=True, kw_only=True):
    """A role whose holder chooses among two or more others tied for it (2.3)."""

    role: Role
    holder: str
    tied: tuple[str, ...]


class Turns(_S, frozen=True, kw_only=True):
    """Who plays a turn-by-turn phase, in order, and how far it has got."""

    order: tuple[str, ...] = ()
    assessed: bool = False  # the phase's role card has been assessed (2.1)
    index: int = 0
    placed: tuple[str, ...] = ()  # provinces where influence was placed this turn (5.6)
    controlled: dict[str, tuple[str, ...]] = {}  # provinces each controlled as the phase began (5.5)
    ground: bool = False  # the player to move has begun ground movement (6.1)
    arrived: dict[str, Units] = {}  # units that moved this phase, by province (ruling C8)
    points: int = 0  # construction points left in this turn of the advanced set-up (1.7)

    def current(self) -> str:
        return self.order[self.index] if self.index < len(self.order) else ""


class Won(_S, frozen=True, kw_only=True):
    civ: str
    condition: str  # the section of the victory condition
    round: int
    detail: str = ""


class State(_S, frozen=True, kw_only=True):
    """The whole classic game."""

    game_id: str = ""
    ruleset_id: str = ""
    ruleset_version: int = 0
    commitment: str = ""
    board: Board | None = None
    powers: Powers | None = None  # the owner's card powers the game was created with (ruling C16)
    civs: tuple[str, ...] = ()  # played, in seat order
    neutrals: tuple[str, ...] = ()
    players: dict[str, str] = {}
    options: Options = Options()
    round: int = 0
    phase: Phase = ""
    lands: dict[str, Land] = {}
    seas: dict[str, dict[str, int]] = {}
    hands: dict[str, dict[str, int]] = {}
    cards: dict[str, tuple[str, ...]] = {}  # heroes and wonders each holds
    set_aside: tuple[str, ...] = ()
    gods: dict[str, GodCard] = {}
    supply: dict[str, int] = {}
    roles: dict[str, str] = {}  # role -> holder
    award: Award | None = None
    blockade: Blockade | None = None
    owed: tuple[Owed, ...] = ()  # losses waiting for their owner's choice (6.9, ruling C9)
    invasion: Invasion | None = None  # a march's battles waiting for those losses
    claiming: str = ""  # a province just occupied whose occupier names the buildings claimed (6.11 b, C7)
    trade: Trade = Trade()
    turns: Turns = Turns()
    winner: Won | None = None

    def land(self, pid: str) -> Land:
        return self.lands.get(pid, Land())

    def hand(self, civ: str) -> dict[str, int]:
        return self.hands.get(civ, {})

    def hand_size(self, civ: str) -> int:
        return sum(self.hand(civ).values())

    def the_board(self) -> Board:
        assert self.board is not None, "the game has not been created"
        return self.board
