"""The Atlas expansion's set-up variants (data/setups.toml) and the joining of its Atlantis board."""

from __future__ import annotations

import functools

import msgspec

from mncore.core.errors import DataError, InvalidCommand
from mncore.rulesets.empires.board import Board, board_digest, decode_board, layout_of, load_board
from mncore.rulesets.empires.game_data import Ruleset, data_bytes, load_ruleset
from mncore.rulesets.empires.ids import BuildingKind, Empire, ProvinceId, SeaId, TileId, Token, Track

STANDARD = "standard"
SETUPS_SOURCE = "mncore/rulesets/empires/data/setups.toml"


class _Data(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """Base of the set-up data Structs: frozen, unknown fields refused."""


class BarbarianSetup(_Data, frozen=True, kw_only=True):
    """Where the Punic War's Barbarians start (atlas.barbarians, Barbarian Setup)."""

    legions: dict[ProvinceId, int]
    fortresses: tuple[ProvinceId, ...]
    triremes: dict[SeaId, int]


class Variant(_Data, frozen=True, kw_only=True):
    """A set-up variant: who plays, what is covered, which boards are joined, the starting titles."""

    id: str
    name: str
    section: str  # its rules index section (atlas.setup-3, ...)
    players: int
    empires: tuple[Empire, ...]
    covered: tuple[Empire, ...] = ()
    discarded: tuple[TileId, ...] = ()
    extensions: tuple[str, ...] = ()
    leaders: dict[Track, Empire]
    foreign_trade: bool = False  # the Punic War's Foreign Trade markets (atlas.punic-trade)
    # victory conditions a variant modifies (ruling R61); 0 keeps the ruleset's number (6.3)
    great_cities_to_win: int = 0
    titles_rounds: int = 1  # consecutive Claim Leadership phases ending with all three titles (6.4)
    barbarians: BarbarianSetup | None = None  # the Punic War's third power (atlas.barbarians)


class Extension(_Data, frozen=True, kw_only=True):
    """A board joined to the board in play, and what its set adds to the reserves (ruling R52)."""

    file: str
    face_up: int  # tiles face up on a first game's display with it (ruling R53)
    supply: dict[Token, int] = {}
    buildings: dict[BuildingKind, int] = {}


class Setups(_Data, frozen=True, kw_only=True):
    variants: tuple[Variant, ...]
    extensions: dict[str, Extension]


@functools.cache
def load_setups() -> Setups:
    """The packaged set-up variants, decoded once."""
    data = data_bytes("setups.toml")
    try:
        setups = msgspec.toml.decode(data, type=Setups)
    except msgspec.ValidationError as err:
        raise DataError(SETUPS_SOURCE, [str(err)]) from err
    problems = [f"variants.{v.id}: {p}" for v in setups.variants for p in _variant_problems(v, setups)]
    if problems:
        raise DataError(SETUPS_SOURCE, problems)
    return setups


def _variant_problems(v: Variant, setups: Setups) -> list[str]:
    """A variant plays as many empires as it says, joins known boards, and gives titles to players."""
    problems = [f"extension {e} is not among [extensions]" for e in v.extensions if e not in setups.extensions]
    if len(v.empires) != v.players or set(v.empires) & set(v.covered):
        problems.append(f"{v.players} players, but empires {list(v.empires)} (covered {list(v.covered)})")
    problems += [f"leaders.{t}: {e} is not in play" for t, e in v.leaders.items() if e not in v.empires]
    return problems


def names() -> tuple[str, ...]:
    """Every set-up name `mn new --setup` takes, the standard one first."""
    return (STANDARD, *(v.id for v in load_setups().variants))


def variant(name: str) -> Variant | None:
    """The variant of that name; None for the standard set-up; InvalidCommand for an unknown name."""
    if name == STANDARD:
        return None
    found = next((v for v in load_setups().variants if v.id == name), None)
    if found is None:
        raise InvalidCommand(f"--setup {name}: no such set-up; the set-ups are {', '.join(names())}")
    return found


def extensions(name: str) -> tuple[Extension, ...]:
    """The boards the set-up joins, with what their sets add."""
    chosen = variant(name)
    every = load_setups().extensions
    return tuple(every[e] for e in chosen.extensions) if chosen else ()


def face_up_first_game(name: str) -> int:
    """How many tiles a first game's display shows with this set-up, at set-up and after every Build
    phase (set-up step 5; the Atlantis board's extra tile spaces show six, ruling R53)."""
    return max((e.face_up for e in extensions(name)), default=load_ruleset().numbers.face_up_first_game)


def reserve_totals(name: str) -> dict[str, int]:
    """The coins and commodities the game supplies with this set-up: the base game's components and what
    its extension sets add (ruling R52)."""
    rs = load_ruleset()
    supply: dict[str, int] = {"coin": rs.components.coins, **dict(rs.components.commodities.items())}
    for ext in extensions(name):
        for token, n in ext.supply.items():
            supply[token] = supply.get(token, 0) + n
    return supply


def with_extensions(name: str) -> Ruleset:
    """The ruleset's data with the building supply the set-up's extension sets add (ruling R52)."""
    rs = load_ruleset()
    buildings = dict(rs.components.buildings)
    for ext in extensions(name):
        for kind, n in ext.buildings.items():
            buildings[kind] = buildings.get(kind, 0) + n
    return msgspec.structs.replace(rs, components=msgspec.structs.replace(rs.components, buildings=buildings))


def tiles_in_play(name: str) -> frozenset[str]:
    """The expansions whose tiles are in play with this set-up ('' for the base game's)."""
    chosen = variant(name)
    return frozenset(("", *(chosen.extensions if chosen else ())))


@functools.cache
def extension_board(file: str) -> Board:
    data = data_bytes(file)
    return decode_board(data, f"mncore/rulesets/empires/data/{file}")


def board_for(name: str, base: Board) -> Board:
    """The board a set-up plays on: base with its extension boards joined, its covered regions set."""
    chosen = variant(name)
    if chosen is None:
        return base
    board = base
    for ext in extensions(name):
        board = join(board, extension_board(ext.file))
    board = msgspec.structs.replace(board, covered={str(chosen.players): chosen.covered})
    from mncore.rulesets.empires.boardcheck import validate_board  # only for a set-up's board: a lean start

    problems = validate_board(board, with_extensions(name))
    if problems:
        raise DataError(f"the board of set-up {name}", problems)
    return board


def setup_of(board: Board) -> str | None:
    """The set-up variant whose board (on the shipped board) this is, if any: positions name it."""
    return _variant_digests().get(board_digest(board))


@functools.cache
def _variant_digests() -> dict[str, str]:
    """Each set-up variant's board digest (on the shipped board) -> its id, the first of equal ones."""
    out: dict[str, str] = {}
    for v in load_setups().variants:
        out.setdefault(board_digest(board_for(v.id, load_board())), v.id)
    return out


def join(base: Board, ext: Board) -> Board:
    """base with ext's seas, provinces and set-ups; each ext sea bordering a base sea is listed on the
    base sea's side too (links are on both sides, docs/board.md)."""
    added: dict[str, list[str]] = {}
    base_seas = {s.id for s in base.seas}
    for sea in ext.seas:
        for other in sea.borders:
            if other in base_seas:
                added.setdefault(other, []).append(sea.id)
    seas = tuple(msgspec.structs.replace(s, borders=(*s.borders, *added[s.id])) if s.id in added else s
                 for s in base.seas)
    joined = msgspec.structs.replace(
        base, id=f"{base.id}+{ext.id}", name=f"{base.name} + {ext.name}",
        reconstructed=base.reconstructed or ext.reconstructed,
        provenance=f"{base.provenance} Joined: {ext.provenance}", sources=(*base.sources, *ext.sources),
        seas=(*seas, *ext.seas), provinces=(*base.provinces, *ext.provinces),
        setups=(*base.setups, *ext.setups))
    return _with_layout(joined, base, ext)


def _with_layout(joined: Board, base: Board, ext: Board) -> Board:
    """The joined board drawn with base's layout (its own, else the reference one) and ext's places."""
    mine, theirs = layout_of(base), ext.layout
    if mine is None or isinstance(theirs, msgspec.UnsetType):
        return joined
    layout = msgspec.structs.replace(mine, places={**mine.places, **theirs.places},
                                     water=(*mine.water, *theirs.water), land=(*mine.land, *theirs.land))
    return msgspec.structs.replace(joined, layout=layout)
