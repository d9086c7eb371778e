"""The board: loading and validation, and the geography queries (its data types are in boardtypes)."""

from __future__ import annotations

import functools
import hashlib
import re
from typing import Literal, TypeVar

import msgspec

from mncore.core.cache import ObjectCache
from mncore.core.errors import DataError, InvalidCommand
from mncore.core.geography import Links
from mncore.rulesets.empires.boardtypes import Board as Board
from mncore.rulesets.empires.boardtypes import Layout as Layout
from mncore.rulesets.empires.boardtypes import Province as Province
from mncore.rulesets.empires.boardtypes import Sea as Sea
from mncore.rulesets.empires.boardtypes import Setup as Setup
from mncore.rulesets.empires.boardtypes import Space as Space
from mncore.rulesets.empires.game_data import data_bytes, load_ruleset
from mncore.rulesets.empires.ids import ProvinceId, SeaId, SpaceRef

BoardSource = Literal["default"] | str


# ---------------------------------------------------------------------------------------------------
# Loading

DEFAULT_BOARD_SOURCE = "mncore/rulesets/empires/data/board.toml"
# msgspec's messages end in " - at `$.path`", except at the document's root (compiled by re's cache at the
# first bad board, not at every start)
_UNKNOWN_FIELD = r"^Object contains unknown field `(?P<field>[^`]*)`(?: - at `(?P<path>[^`]*)`)?$"
_MISSING_FIELD = r"^Object missing required field `(?P<field>[^`]*)`(?: - at `(?P<path>[^`]*)`)?$"
_AT_PATH = r"^(?P<what>.*?)(?: - at `(?P<path>[^`]*)`)?$"


def load_board(path: str | None = None) -> Board:
    """The packaged reference board (None, cached) or a user's TOML board file, decoded and validated.

    Raises DataError(source, problems) listing every problem found.
    """
    if path is None:
        return _default_board()
    try:
        with open(path, "rb") as file:
            data = file.read()
    except OSError as err:
        raise DataError(path, [f"cannot read the board file: {err.strerror or err}"]) from err
    return _checked(decode_board(data, path), path)


@functools.cache
def _default_board() -> Board:
    data = data_bytes("board.toml")
    return _checked(decode_board(data, DEFAULT_BOARD_SOURCE), DEFAULT_BOARD_SOURCE)


REFERENCE_LAYOUT_SOURCE = "mncore/rulesets/empires/data/layout.toml"


@functools.cache
def reference_layout() -> Layout:
    """The reference board's layout, kept beside it (data/layout.toml): see layout_of."""
    data = data_bytes("layout.toml")
    try:
        layout = msgspec.toml.decode(data, type=Layout)
    except msgspec.ValidationError as err:
        raise DataError(REFERENCE_LAYOUT_SOURCE, [_validation_message(str(err), data)]) from err
    from mncore.rulesets.empires.boardcheck import validate_layout  # only where a board is checked: a lean start

    problems = validate_layout(_default_board(), layout)
    if problems:
        raise DataError(REFERENCE_LAYOUT_SOURCE, problems)
    return layout


def layout_of(board: Board) -> Layout | None:
    """The layout a board is drawn with: its own; else the reference layout, if that places every
    province, sea and space of the board (the reference board, or a user's correction of it); else None.

    The reference board carries no layout of its own so that its encoding, embedded in every game's
    first event, is the same as before layouts existed (the recorded games replay byte for byte).
    """
    if not isinstance(board.layout, msgspec.UnsetType):
        return board.layout
    from mncore.rulesets.empires.boardcheck import validate_layout

    layout = reference_layout()
    return None if validate_layout(board, layout) else layout


def _checked(board: Board, source: str) -> Board:
    from mncore.rulesets.empires.boardcheck import validate_board

    problems = validate_board(board, load_ruleset())
    if problems:
        raise DataError(source, problems)
    return board


def decode_board(data: bytes, source: str) -> Board:
    """Decode TOML bytes into a Board; DataError naming the field path (e.g. `$.provinces[3].seas`)."""
    try:
        return msgspec.toml.decode(data, type=Board)
    except msgspec.ValidationError as err:
        raise DataError(source, [_validation_message(str(err), data)]) from err
    except (msgspec.DecodeError, UnicodeDecodeError) as err:
        raise DataError(source, [f"not a valid TOML file: {_toml_syntax_message(data, err)}"]) from err
    except RecursionError:
        raise DataError(source, ["not a valid TOML file: nested too deeply"]) from None
    except ValueError as err:  # an integer of more than 4,300 digits
        raise DataError(source, [f"not a valid TOML file: {err}"]) from None


def _validation_message(message: str, data: bytes) -> str:
    """Reword msgspec's "... - at `$.path`" as "$.path (province x): ...", the path first."""
    for pattern, what in ((_UNKNOWN_FIELD, "unknown field (misspelt?)"),
                          (_MISSING_FIELD, "required field missing")):
        match = re.match(pattern, message)
        if match:
            path = match["path"] or "$"
            return f"{path}.{match['field']}{_owner(path, data)}: {what}"
    match = re.match(_AT_PATH, message)
    path = (match and match["path"]) or "$"
    what = match["what"] if match else message
    return f"{path}{_owner(path, data)}: {what}"


def _owner(path: str, data: bytes) -> str:
    """' (province gallia)' for a path inside a named province, sea or set-up; '' if unknown."""
    found = re.match(r"^\$\.(provinces|seas|setups)\[(\d+)\]", path)
    if not found:
        return ""
    try:
        import tomllib  # only to name where a bad file is wrong: not at every start
        item = tomllib.loads(data.decode())[found[1]][int(found[2])]
        key = item.get("empire" if found[1] == "setups" else "id")
    except (ValueError, KeyError, IndexError, TypeError, AttributeError, RecursionError):
        return ""  # (TOMLDecodeError and UnicodeDecodeError are ValueErrors)
    kind = {"provinces": "province", "seas": "sea", "setups": "setup"}[found[1]]
    return f" ({kind} {key})" if isinstance(key, str) else ""


def _toml_syntax_message(data: bytes, err: Exception) -> str:
    # tomllib names the line and column; msgspec's own message does not
    import tomllib
    try:
        tomllib.loads(data.decode())
    except (ValueError, RecursionError) as detail:
        return str(detail)
    return str(err)


def board_digest(board: Board) -> str:
    """The sha256 hex digest of the board's deterministic JSON encoding: names the exact map played."""
    return hashlib.sha256(msgspec.json.encode(board, order="deterministic")).hexdigest()


def provenance_note(board: Board) -> str:
    """A one-line warning that the board is reconstructed: provenance's first and last sentences."""
    sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s+", board.provenance.strip()) if s.strip()]
    if not sentences:
        return f"{board.name} is a reconstruction, not the printed board."
    first, last = sentences[0], sentences[-1]
    return first if first == last else f"{first} {last}"


# ---------------------------------------------------------------------------------------------------
# Validation


_V = TypeVar("_V")
_NO_CHAINS: frozenset[int] = frozenset()


def _known(table: dict[str, _V], key: str, kind: str) -> _V:
    """A geography lookup that names an unknown place instead of raising KeyError."""
    try:
        return table[key]
    except KeyError:
        raise InvalidCommand(f"unknown {kind} '{key}'") from None


class Geo:
    """Read-only geography of one Board, indexed once: lookups, adjacency and adjoining by sea."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self._provinces = {p.id: p for p in board.provinces}
        self._seas = {s.id: s for s in board.seas}
        self._spaces = {f"{p.id}/{s.id}": (p, s) for p in board.provinces for s in p.spaces}
        self._adjacent = Links("province", {p.id: p.borders for p in board.provinces})
        self._seas_of = Links("province", {p.id: p.seas for p in board.provinces})
        self._coasts_of = Links("sea", {s.id: s.coasts for s in board.seas})
        self._sea_neighbours = Links("sea", {s.id: s.borders for s in board.seas})
        self._chains: dict[frozenset[SeaId], dict[ProvinceId, frozenset[int]]] = {}
        self._reach: dict[frozenset[SeaId], dict[ProvinceId, frozenset[ProvinceId]]] = {}
        self._covered: dict[int, frozenset[str]] = {}

    def province(self, province_id: str) -> Province:
        """The province with that id; InvalidCommand if the board has none."""
        return _known(self._provinces, province_id, "province")

    def sea(self, sea_id: str) -> Sea:
        """The sea with that id; InvalidCommand if the board has none."""
        return _known(self._seas, sea_id, "sea")

    def space(self, ref: SpaceRef) -> tuple[Province, Space]:
        """The province and space of a "province/space" reference; InvalidCommand if none."""
        try:
            return self._spaces[ref]
        except KeyError:
            raise InvalidCommand(f"unknown space '{ref}' (expected province/space, e.g. "
                                 "latium/market)") from None

    def is_province(self, place_id: str) -> bool:
        return place_id in self._provinces

    def is_sea(self, place_id: str) -> bool:
        return place_id in self._seas

    def is_adjacent(self, a: ProvinceId, b: ProvinceId) -> bool:
        """Whether two provinces share a land border (a province is not adjacent to itself)."""
        return self._adjacent.linked(a, b)

    def adjacent(self, province_id: ProvinceId) -> frozenset[ProvinceId]:
        """The provinces sharing a land border with this one."""
        return self._adjacent.of(province_id)

    def seas_of(self, province_id: ProvinceId) -> frozenset[SeaId]:
        """The seas a province touches."""
        return self._seas_of.of(province_id)

    def coasts_of(self, sea_id: SeaId) -> frozenset[ProvinceId]:
        """The provinces on a sea's coasts."""
        return self._coasts_of.of(sea_id)

    def sea_neighbours(self, sea_id: SeaId) -> frozenset[SeaId]:
        """The seas a trireme may move to from this one (4.1.1)."""
        return self._sea_neighbours.of(sea_id)

    def is_adjoining(self, a: ProvinceId, b: ProvinceId, trireme_seas: frozenset[SeaId]) -> bool:
        """Whether a continuous chain of seas, each in trireme_seas, links a sea touching a to a sea
        touching b (3.1.1, 4.1.2); one sea touching both is a chain. Never true of a province itself."""
        for province_id in (a, b):
            if province_id not in self._seas_of:
                raise InvalidCommand(f"unknown province '{province_id}'")
        if a == b or not trireme_seas:
            return False
        touched = self._touched_chains(trireme_seas)
        return not touched.get(a, _NO_CHAINS).isdisjoint(touched.get(b, _NO_CHAINS))

    def adjoining(self, a: ProvinceId, trireme_seas: frozenset[SeaId]) -> frozenset[ProvinceId]:
        """Every province b with is_adjoining(a, b, trireme_seas): one set instead of a question per
        province (legion moves ask it of the whole board); cached with the chains of those seas."""
        if a not in self._seas_of:
            raise InvalidCommand(f"unknown province '{a}'")
        if not trireme_seas:
            return frozenset()
        reach = self._reach.setdefault(trireme_seas, {})  # bounded with the chains (_touched_chains)
        found = reach.get(a)
        if found is None:
            touched = self._touched_chains(trireme_seas)
            mine = touched.get(a, _NO_CHAINS)
            found = frozenset(p for p, chains in touched.items() if p != a and not mine.isdisjoint(chains))
            reach[a] = found
        return found

    def adjacent_or_adjoining(self, a: ProvinceId, b: ProvinceId,
                              trireme_seas: frozenset[SeaId]) -> bool:
        """Whether b can be reached from a by a land border or a chain of trireme seas (3.1.1)."""
        return self.is_adjacent(a, b) or self.is_adjoining(a, b, trireme_seas)

    def covered_provinces(self, player_count: int) -> frozenset[ProvinceId]:
        """The provinces under the Leader and Heroes & Wonders boards with that many players."""
        covered = self._covered.get(player_count)
        if covered is None:
            empires = set(self.board.covered.get(str(player_count), ()))
            covered = frozenset(p.id for p in self.board.provinces if p.region in empires)
            self._covered[player_count] = covered
        return covered

    def _touched_chains(self, trireme_seas: frozenset[SeaId]) -> dict[ProvinceId, frozenset[int]]:
        """For each province on a coast of trireme_seas, the chains (connected groups of those seas)
        it touches; cached per set of seas, since a position asks about the same set many times."""
        touched = self._chains.get(trireme_seas)
        if touched is None:
            chain_of = self._sea_neighbours.groups(trireme_seas)
            groups: dict[ProvinceId, set[int]] = {}
            for sea_id, label in chain_of.items():
                for province_id in self._coasts_of.of(sea_id):
                    groups.setdefault(province_id, set()).add(label)
            touched = {p: frozenset(labels) for p, labels in groups.items()}
            if len(self._chains) > 4096:  # bound the memory of long games
                self._chains.clear()
                self._reach.clear()
            self._chains[trireme_seas] = touched
        return touched


geo: ObjectCache[Board, Geo] = ObjectCache(Geo)
"""geo(board): the Geo index of that Board object, built once and cached."""
