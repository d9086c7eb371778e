"""The board and the game's components, decoded from data/*.toml with msgspec and validated on load."""

from __future__ import annotations

import functools
import hashlib
from importlib import resources
from pathlib import Path

import msgspec

from mncore.core.errors import InvalidCommand
from mncore.core.geography import Links
from mncore.rulesets.classic.ids import Role

_PKG = "mncore.rulesets.classic.data"


class _D(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    pass


class Sea(_D, frozen=True, kw_only=True):
    id: str
    name: str
    adjacent: tuple[str, ...] = ()


class Province(_D, frozen=True, kw_only=True):
    id: str
    name: str
    seas: tuple[str, ...] = ()
    land: tuple[str, ...] = ()
    cities: int = 1
    resources: tuple[str, ...] = ()
    island: bool = False
    capital: str = ""  # the civilisation whose capital city is printed here


class Board(_D, frozen=True, kw_only=True):
    """The map: seas and provinces with their links; recorded whole in the first event."""

    name: str
    reconstructed: bool = False
    dice: tuple[int, ...] = (1, 2, 3, 4, 5, 6)
    sea: tuple[Sea, ...]
    province: tuple[Province, ...]

    def prov(self, pid: str) -> Province:
        return _index(self)[0][pid]

    def sea_of(self, sid: str) -> Sea:
        return _index(self)[1][sid]

    def is_province(self, pid: str) -> bool:
        return pid in _index(self)[0]

    def is_sea(self, sid: str) -> bool:
        return sid in _index(self)[1]

    def capital_of(self, civ: str) -> str:
        return next((p.id for p in self.province if p.capital == civ), "")

    def land(self) -> Links:
        return _links(self)[0]

    def water(self) -> Links:
        return _links(self)[1]

    def name_of(self, place: str) -> str:
        p, s = _index(self)
        return p[place].name if place in p else s[place].name if place in s else place

    def digest(self) -> str:
        return hashlib.sha256(msgspec.json.encode(self, order="deterministic")).hexdigest()


@functools.cache
def _index(board: Board) -> tuple[dict[str, Province], dict[str, Sea]]:
    return {p.id: p for p in board.province}, {s.id: s for s in board.sea}


@functools.cache
def _links(board: Board) -> tuple[Links, Links]:
    return (Links("province", {p.id: p.land for p in board.province}),
            Links("sea", {s.id: s.adjacent for s in board.sea}))


class RoleData(_D, frozen=True, kw_only=True):
    id: Role
    name: str
    phase: str
    counts: tuple[str, ...]


class CivData(_D, frozen=True, kw_only=True):
    id: str
    name: str
    aliases: tuple[str, ...] = ()
    home: tuple[str, ...]
    hero: str
    creature: str
    role: Role | None = None
    colour: str = "#888888"
    blockade: bool = False  # its influence is defended by the blockade of 6.13 (the Greeks)
    settle: tuple[str, ...] = ()  # provinces beyond its capital's neighbours open to it in 1.7


class Card(_D, frozen=True, kw_only=True):
    id: str
    name: str
    kind: str  # hero, wonder or pyramids
    civ: str = ""


class Named(_D, frozen=True, kw_only=True):
    id: str
    name: str
    text: str = ""  # an owner's words for the card's power (none shipped: ruling C3)


class Victory(_D, frozen=True, kw_only=True):
    cards: int
    pyramids: int


class GameData(_D, frozen=True, kw_only=True):
    """Every number and card of the game (data/game.toml)."""

    cards_set_aside: int
    tax_kept: int
    max_creatures: int
    offering: int
    advanced_points: int
    advanced_turns: int
    advanced_step: int
    auto_six: int
    hit_every: int
    victory: dict[str, Victory]
    cost: dict[str, int]
    tokens: dict[str, tuple[int, ...]]
    leave_out: dict[str, tuple[str, ...]] = {}
    role: tuple[RoleData, ...]
    civ: tuple[CivData, ...]
    card: tuple[Card, ...]
    god: tuple[Named, ...]
    creature: tuple[Named, ...]

    def civ_of(self, cid: str) -> CivData:
        return next(c for c in self.civ if c.id == cid)

    def card_of(self, cid: str) -> Card:
        return next(c for c in self.card if c.id == cid)

    def role_of(self, rid: str) -> RoleData:
        return next(r for r in self.role if r.id == rid)

    def names(self) -> dict[str, str]:
        out = {c.id: c.name for c in self.civ} | {c.id: c.name for c in self.card}
        out |= {g.id: g.name for g in self.god} | {c.id: c.name for c in self.creature}
        return out | {r.id: r.name for r in self.role}


@functools.cache
def game_data() -> GameData:
    raw = resources.files(_PKG).joinpath("game.toml").read_bytes()
    data = msgspec.toml.decode(raw, type=GameData)
    problems = check_game(data, load_board())
    if problems:
        raise ValueError("game.toml: " + "; ".join(problems))
    return data


def check_game(data: GameData, board: Board) -> list[str]:
    """What is wrong in the game data against a board (empty: nothing)."""
    out = [f"civilisation {c.id}: home province {h} is not on the board"
           for c in data.civ for h in c.home if not board.is_province(h)]
    out += [f"civilisation {c.id} has no capital on the board" for c in data.civ
            if board.capital_of(c.id) != (c.home[0] if c.home else "")]
    cards = {c.id for c in data.card}
    out += [f"civilisation {c.id}: hero {c.hero} is not a card" for c in data.civ if c.hero not in cards]
    out += [f"civilisation {c.id}: creature {c.creature} is not a creature" for c in data.civ
            if c.creature not in {x.id for x in data.creature}]
    return out


def check_board(board: Board) -> list[str]:
    """What is wrong with a board (empty: nothing): links one-sided or to nowhere, unreachable places."""
    out: list[str] = []
    seas = {s.id for s in board.sea}
    for p in board.province:
        out += [f"{p.id}: land link to unknown {x}" for x in p.land if not board.is_province(x)]
        out += [f"{p.id}: sea {x} is not a sea" for x in p.seas if x not in seas]
        if p.island and p.land:
            out.append(f"{p.id}: an island has no land border")
        if p.island and not p.seas:
            out.append(f"{p.id}: an island must touch a sea")
    for s in board.sea:
        out += [f"{s.id}: sea link to unknown {x}" for x in s.adjacent if x not in seas]
    if out:
        return out
    out += [f"land link {a}-{b} is one-sided" for a, b in board.land().one_sided()]
    out += [f"sea link {a}-{b} is one-sided" for a, b in board.water().one_sided()]
    reach = _all_reach(board)
    out += [f"{x} cannot be reached" for x in sorted(reach)]
    return out


def _all_reach(board: Board) -> set[str]:
    """Places not reachable from the first province over land, coasts and sea links."""
    links: dict[str, set[str]] = {p.id: set(p.land) | set(p.seas) for p in board.province}
    for s in board.sea:
        links.setdefault(s.id, set()).update(s.adjacent)
    for p in board.province:
        for sea in p.seas:
            links[sea].add(p.id)
    start = board.province[0].id
    seen, todo = {start}, [start]
    while todo:
        for nxt in links[todo.pop()] - seen:
            seen.add(nxt)
            todo.append(nxt)
    return set(links) - seen


def load_board(path: str | None = None) -> Board:
    """The shipped reconstructed board, or a board file; InvalidCommand naming what is wrong."""
    if path is None:
        return _shipped()
    try:
        board = msgspec.toml.decode(Path(path).read_bytes(), type=Board)
    except OSError as err:
        raise InvalidCommand(f"cannot read board file {path}: {err.strerror}") from None
    except msgspec.DecodeError as err:  # ValidationError is a DecodeError
        raise InvalidCommand(f"board file {path}: {err}") from None
    problems = check_board(board) + check_game(_raw_game(), board)
    if problems:
        raise InvalidCommand(f"board file {path}: " + "; ".join(problems))
    return board


@functools.cache
def _shipped() -> Board:
    return msgspec.toml.decode(resources.files(_PKG).joinpath("board.toml").read_bytes(), type=Board)


@functools.cache
def _raw_game() -> GameData:
    return msgspec.toml.decode(resources.files(_PKG).joinpath("game.toml").read_bytes(), type=GameData)
