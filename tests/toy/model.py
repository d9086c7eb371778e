"""The toy's names, board, state, events, commands and their codecs, and evolve (which checks nothing)."""

from __future__ import annotations

import functools
from importlib import resources
from typing import Literal, assert_never, get_args

import msgspec
from msgspec.structs import replace

from mncore.core import envelope
from mncore.core.geography import Links
from mncore.core.protocol import ForkRef

RULESET_ID = "toy-2026"
RULESET_VERSION = 1

Side = Literal["red", "blue"]
SIDES: tuple[Side, ...] = get_args(Side)
Province = Literal["hill", "ford", "marsh"]
PROVINCES: tuple[Province, ...] = get_args(Province)
Phase = Literal["", "muster", "clash"]


# --- the board, from data/board.toml -----------------------------------------------------------

class ProvinceData(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    id: Province
    name: str
    adjacent: tuple[Province, ...]


class SideData(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    id: Side
    name: str
    home: Province


class Board(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The toy's fixed board and numbers."""

    rounds: int
    die: tuple[int, ...]
    reserve: tuple[int, ...]
    province: tuple[ProvinceData, ...]
    side: tuple[SideData, ...]

    def adjacent(self, a: str, b: str) -> bool:
        return a in _links(self) and _links(self).linked(a, b)

    def home(self, side: str) -> Province:
        return next(s.home for s in self.side if s.id == side)

    def name(self, thing: str) -> str:
        """The display name of a side or province ("Red", "Hill")."""
        names: dict[str, str] = {s.id: s.name for s in self.side}
        names |= {p.id: p.name for p in self.province}
        return names.get(thing, thing)


@functools.cache
def _links(board: Board) -> Links:
    return Links("province", {p.id: p.adjacent for p in board.province})


@functools.cache
def board() -> Board:
    data = resources.files("toy.data").joinpath("board.toml").read_bytes()
    return msgspec.toml.decode(data, type=Board)


# --- state ---------------------------------------------------------------------------------------

class _S(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    pass


class Options(_S, frozen=True, kw_only=True):
    fair_play: bool = True
    sandbox: bool = False
    fork_of: ForkRef | None = None  # the kernel's record of where a fork branches off


class Won(_S, frozen=True, kw_only=True):
    sides: tuple[Side, ...]
    condition: str
    round: int


class State(_S, frozen=True, kw_only=True):
    """The whole toy game: who holds what, the units, the hidden reserves, whose turn."""

    game_id: str = ""
    ruleset_id: str = ""
    ruleset_version: int = 0
    commitment: str = ""
    sides: tuple[Side, ...] = ()
    players: dict[Side, str] = {}
    options: Options = Options()
    round: int = 0
    phase: Phase = ""
    acted: tuple[Side, ...] = ()  # the sides that gave their muster order this round
    holders: dict[Province, Side] = {}
    units: dict[Province, dict[Side, int]] = {}
    reserves: dict[Side, int] = {}
    winner: Won | None = None

    def present(self, province: Province) -> list[Side]:
        """The sides with units in a province, in the game's order."""
        here = self.units.get(province, {})
        return [s for s in self.sides if here.get(s, 0) > 0]

    def contested(self) -> list[Province]:
        return [p for p in PROVINCES if len(self.present(p)) > 1]

    def to_muster(self) -> Side | None:
        """The side whose muster order is awaited, if any."""
        if self.phase != "muster" or self.winner is not None:
            return None
        return next((s for s in self.sides if s not in self.acted), None)


# --- events --------------------------------------------------------------------------------------

class Event(msgspec.Struct, frozen=True, tag=True, forbid_unknown_fields=True, kw_only=True,
            omit_defaults=True):
    """Encoded as {"type": "<ClassName>", ...fields}."""


class GameCreated(Event, frozen=True, kw_only=True):
    """The first event: versions, sides and players, options, the commitment to the secret."""

    ruleset_id: str
    ruleset_version: int
    sides: tuple[Side, ...]
    players: dict[Side, str]
    options: Options
    commitment: str


class ReserveDrawn(Event, frozen=True, kw_only=True):
    """A side's face-down reserve (1.2); None where another side reads it (redacted)."""

    side: Side
    count: int | None


class PhaseBegan(Event, frozen=True, kw_only=True):
    round: int
    phase: Phase


class UnitMustered(Event, frozen=True, kw_only=True):
    side: Side
    province: Province


class Passed(Event, frozen=True, kw_only=True):
    side: Side


class ClashFought(Event, frozen=True, kw_only=True):
    """A contested province settled (3.2): each side's die, the winner, the ruling if a tie."""

    province: Province
    rolls: dict[Side, int]
    winner: Side
    ruling: str = ""


class GameWon(Event, frozen=True, kw_only=True):
    sides: tuple[Side, ...]
    condition: str  # the section of the victory condition


AnyEvent = GameCreated | ReserveDrawn | PhaseBegan | UnitMustered | Passed | ClashFought | GameWon


# --- commands ------------------------------------------------------------------------------------

class Command(msgspec.Struct, frozen=True, tag=True, forbid_unknown_fields=True, kw_only=True,
              omit_defaults=True):
    """Encoded as {"type": "<ClassName>", ...fields}."""


class CreateToy(Command, frozen=True, kw_only=True):
    sides: tuple[Side, ...]
    players: dict[Side, str]
    fair_play: bool = True


class Muster(Command, frozen=True, kw_only=True):
    side: Side
    province: Province


class Pass(Command, frozen=True, kw_only=True):
    side: Side


class Clash(Command, frozen=True, kw_only=True):
    side: Side
    province: Province


AnyOrder = Muster | Pass | Clash
AnyCommand = CreateToy | AnyOrder

# a stored log's events and commands: the toy's and the kernel's beside them (mncore/core/envelope.py)
EVENTS: envelope.Codec[AnyEvent] = envelope.events(AnyEvent)
COMMANDS: envelope.Codec[AnyCommand] = envelope.commands(AnyCommand)


# --- evolve --------------------------------------------------------------------------------------

def evolve(state: State, event: AnyEvent) -> State:
    """The state after one event; checks nothing."""
    match event:
        case GameCreated():
            return _created(state, event)
        case ReserveDrawn(side=side, count=count):
            return replace(state, reserves={**state.reserves, side: count or 0})
        case PhaseBegan(round=rnd, phase=phase):
            return replace(state, round=rnd, phase=phase, acted=())
        case UnitMustered():
            return _mustered(state, event)
        case Passed(side=side):
            return replace(state, acted=(*state.acted, side))
        case ClashFought(province=p, winner=winner):
            return replace(state, holders={**state.holders, p: winner},
                           units={**state.units, p: {winner: state.units[p][winner]}})
        case GameWon(sides=sides, condition=condition):
            return replace(state, winner=Won(sides=sides, condition=condition, round=state.round))
        case _:
            assert_never(event)


def _created(state: State, e: GameCreated) -> State:
    homes = {board().home(s): s for s in e.sides}
    return replace(state, ruleset_id=e.ruleset_id, ruleset_version=e.ruleset_version,
                   commitment=e.commitment, sides=e.sides, players=e.players, options=e.options,
                   holders=dict(homes), units={p: {s: 1} for p, s in homes.items()})


def _mustered(state: State, e: UnitMustered) -> State:
    here = state.units.get(e.province, {})
    holders = state.holders if e.province in state.holders else {**state.holders, e.province: e.side}
    return replace(state, acted=(*state.acted, e.side), holders=holders,
                   reserves={**state.reserves, e.side: state.reserves[e.side] - 1},
                   units={**state.units, e.province: {**here, e.side: here.get(e.side, 0) + 1}})
