"""The board: its data types, loading and validation, and the geography queries."""

from __future__ import annotations

import functools
import hashlib
import importlib.resources
import re
import tomllib
from collections import Counter
from collections.abc import Iterable
from typing import Literal

import msgspec

from mncore.errors import DataError, InvalidCommand
from mncore.ids import Commodity, Empire, ProvinceId, SeaId, SpaceKind, SpaceRef, TileId, UnitKind
from mncore.names import normalise
from mncore.ruleset import ObjectCache, Ruleset, load_ruleset


class _Data(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """Base of every data-file Struct: frozen, unknown fields refused."""


class Space(_Data, frozen=True, kw_only=True):
    """A building space printed in a province; its id is unique within the province."""

    id: str
    kind: SpaceKind
    commodity: Commodity | None = None  # caravan spaces only
    name: str | None = None  # named cities: Roma, Troia, ...


class Province(_Data, frozen=True, kw_only=True):
    """A land area: its spaces, its land neighbours and the seas it touches."""

    id: ProvinceId
    name: str
    aliases: tuple[str, ...] = ()
    spaces: tuple[Space, ...] = ()
    borders: tuple[ProvinceId, ...] = ()
    seas: tuple[SeaId, ...] = ()
    region: Empire | None = None  # the empire region it belongs to, for covered regions


class Sea(_Data, frozen=True, kw_only=True):
    """A sea: its neighbouring seas and the provinces on its coasts."""

    id: SeaId
    name: str
    aliases: tuple[str, ...] = ()
    borders: tuple[SeaId, ...] = ()
    coasts: tuple[ProvinceId, ...] = ()


class Setup(_Data, frozen=True, kw_only=True):
    """An empire's starting position (set-up steps 2 and 3)."""

    empire: Empire
    hero: TileId
    capital: ProvinceId
    provinces: tuple[ProvinceId, ...]
    buildings: tuple[SpaceRef, ...]
    legions: dict[ProvinceId, int] = {}
    fortresses: tuple[ProvinceId, ...] = ()
    triremes: dict[SeaId, int] = {}


class Board(_Data, frozen=True, kw_only=True):
    """A whole map: provinces, seas, set-ups, and the regions covered with fewer players."""

    id: str
    version: str
    name: str
    reconstructed: bool
    provenance: str
    sources: tuple[str, ...] = ()
    seas: tuple[Sea, ...]
    provinces: tuple[Province, ...]
    setups: tuple[Setup, ...]
    # player count ("3", "4", "5") -> the empires whose regions are covered and unplayable
    covered: dict[str, tuple[Empire, ...]] = {}


BoardSource = Literal["default"] | str


# ---------------------------------------------------------------------------------------------------
# Loading

DEFAULT_BOARD_SOURCE = "mncore/data/board.toml"
_ID_PATTERN = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
# msgspec's messages end in " - at `$.path`", except at the document's root
_UNKNOWN_FIELD = re.compile(r"^Object contains unknown field `(?P<field>[^`]*)`(?: - at `(?P<path>[^`]*)`)?$")
_MISSING_FIELD = re.compile(r"^Object missing required field `(?P<field>[^`]*)`(?: - at `(?P<path>[^`]*)`)?$")
_AT_PATH = re.compile(r"^(?P<what>.*?)(?: - at `(?P<path>[^`]*)`)?$")


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
    data = importlib.resources.files("mncore").joinpath("data", "board.toml").read_bytes()
    return _checked(decode_board(data, DEFAULT_BOARD_SOURCE), DEFAULT_BOARD_SOURCE)


def _checked(board: Board, source: str) -> Board:
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


def _validation_message(message: str, data: bytes) -> str:
    """Reword msgspec's "... - at `$.path`" as "$.path (province x): ...", the path first."""
    for pattern, what in ((_UNKNOWN_FIELD, "unknown field (misspelt?)"),
                          (_MISSING_FIELD, "required field missing")):
        match = pattern.match(message)
        if match:
            path = match["path"] or "$"
            return f"{path}.{match['field']}{_owner(path, data)}: {what}"
    match = _AT_PATH.match(message)
    path = (match and match["path"]) or "$"
    what = match["what"] if match else message
    return f"{path}{_owner(path, data)}: {what}"


def _owner(path: str, data: bytes) -> str:
    """' (province gallia)' for a path inside a named province, sea or set-up; '' if unknown."""
    found = re.match(r"^\$\.(provinces|seas|setups)\[(\d+)\]", path)
    if not found:
        return ""
    try:
        item = tomllib.loads(data.decode())[found[1]][int(found[2])]
        key = item.get("empire" if found[1] == "setups" else "id")
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, KeyError, IndexError, TypeError,
            AttributeError):
        return ""
    kind = {"provinces": "province", "seas": "sea", "setups": "setup"}[found[1]]
    return f" ({kind} {key})" if isinstance(key, str) else ""


def _toml_syntax_message(data: bytes, err: Exception) -> str:
    # tomllib names the line and column; msgspec's own message does not
    try:
        tomllib.loads(data.decode())
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as detail:
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

def validate_board(board: Board, ruleset: Ruleset) -> list[str]:
    """Every problem with a board, each naming the province, sea or set-up and the field at fault."""
    problems: list[str] = []
    problems += _check_ids(board)
    provinces = {p.id: p for p in board.provinces}
    seas = {s.id: s for s in board.seas}
    problems += _check_names(board)
    problems += _check_spaces(board)
    problems += _check_land_borders(board, provinces)
    problems += _check_sea_borders(board, seas)
    problems += _check_coasts(board, provinces, seas)
    problems += _check_connected(board, provinces, seas)
    problems += _check_regions(board, ruleset)
    problems += _check_setups(board, ruleset, provinces, seas)
    return problems


def _check_ids(board: Board) -> list[str]:
    problems: list[str] = []
    seen: dict[str, str] = {}
    items = [("province", p.id) for p in board.provinces] + [("sea", s.id) for s in board.seas]
    for kind, item_id in items:
        if not _ID_PATTERN.match(item_id):
            problems.append(f"{kind} {item_id!r}: id must be lowercase ascii letters, digits and "
                            "single hyphens")
        if item_id in seen:
            problems.append(f"{kind} {item_id}: id already used by a {seen[item_id]}")
        seen.setdefault(item_id, kind)
    return problems


def _check_names(board: Board) -> list[str]:
    """Two places may not answer to the same name: a user could not tell them apart."""
    problems: list[str] = []
    owners: dict[str, str] = {}
    places = [("province", p.id, p.name, p.aliases) for p in board.provinces]
    places += [("sea", s.id, s.name, s.aliases) for s in board.seas]
    for kind, place_id, name, aliases in places:
        for text in {normalise(t): t for t in (place_id, name, *aliases)}.values():
            key = normalise(text)
            if not key:
                problems.append(f"{kind} {place_id}: empty name or alias")
            elif owners.get(key, place_id) != place_id:
                problems.append(f"{kind} {place_id}: name or alias '{text}' is also a name of "
                                f"{owners[key]}")
            owners.setdefault(key, place_id)
    return problems


def _check_spaces(board: Board) -> list[str]:
    problems: list[str] = []
    for province in board.provinces:
        seen: set[str] = set()
        for index, space in enumerate(province.spaces):
            where = f"province {province.id}: spaces[{index}] ({space.id})"
            if not _ID_PATTERN.match(space.id):
                problems.append(f"{where}: id must be lowercase ascii letters, digits and single "
                                "hyphens")
            if space.id in seen:
                problems.append(f"{where}: id already used in this province")
            seen.add(space.id)
            if space.kind == "caravan" and space.commodity is None:
                problems.append(f"{where}: a caravan space needs a commodity")
            if space.kind != "caravan" and space.commodity is not None:
                problems.append(f"{where}: only caravan spaces have a commodity, not a "
                                f"{space.kind} space")
    return problems


def _check_land_borders(board: Board, provinces: dict[str, Province]) -> list[str]:
    problems: list[str] = []
    for province in board.provinces:
        for other in _duplicates(province.borders):
            problems.append(f"province {province.id}: borders lists {other} twice")
        for other in province.borders:
            if other == province.id:
                problems.append(f"province {province.id}: borders lists itself")
            elif other not in provinces:
                problems.append(f"province {province.id}: borders lists {other}, which is not a "
                                "province")
            elif province.id not in provinces[other].borders:
                problems.append(f"province {province.id}: borders lists {other} but "
                                f"{other}.borders does not list {province.id}")
    return problems


def _check_sea_borders(board: Board, seas: dict[str, Sea]) -> list[str]:
    problems: list[str] = []
    for sea in board.seas:
        for other in _duplicates(sea.borders):
            problems.append(f"sea {sea.id}: borders lists {other} twice")
        for other in sea.borders:
            if other == sea.id:
                problems.append(f"sea {sea.id}: borders lists itself")
            elif other not in seas:
                problems.append(f"sea {sea.id}: borders lists {other}, which is not a sea")
            elif sea.id not in seas[other].borders:
                problems.append(f"sea {sea.id}: borders lists {other} but {other}.borders does not "
                                f"list {sea.id}")
    return problems


def _check_coasts(board: Board, provinces: dict[str, Province], seas: dict[str, Sea]) -> list[str]:
    problems: list[str] = []
    for province in board.provinces:
        for sea_id in _duplicates(province.seas):
            problems.append(f"province {province.id}: seas lists {sea_id} twice")
        for sea_id in province.seas:
            if sea_id not in seas:
                problems.append(f"province {province.id}: seas lists {sea_id}, which is not a sea")
            elif province.id not in seas[sea_id].coasts:
                problems.append(f"province {province.id}: seas lists {sea_id} but "
                                f"{sea_id}.coasts does not list {province.id}")
        if not province.seas and not province.borders:
            problems.append(f"province {province.id}: touches no sea (seas) and borders no "
                            "province (borders)")
    for sea in board.seas:
        for province_id in _duplicates(sea.coasts):
            problems.append(f"sea {sea.id}: coasts lists {province_id} twice")
        for province_id in sea.coasts:
            if province_id not in provinces:
                problems.append(f"sea {sea.id}: coasts lists {province_id}, which is not a province")
            elif sea.id not in provinces[province_id].seas:
                problems.append(f"sea {sea.id}: coasts lists {province_id} but "
                                f"{province_id}.seas does not list {sea.id}")
        if not sea.coasts:
            problems.append(f"sea {sea.id}: coasts lists no province")
    return problems


def _check_connected(board: Board, provinces: dict[str, Province], seas: dict[str, Sea]) -> list[str]:
    """Every province and sea reachable from every other by land borders, coasts and sea borders."""
    links: dict[str, set[str]] = {f"p:{p}": set() for p in provinces}
    links |= {f"s:{s}": set() for s in seas}
    edges = [(f"p:{p.id}", f"p:{o}") for p in board.provinces for o in p.borders]
    edges += [(f"p:{p.id}", f"s:{s}") for p in board.provinces for s in p.seas]
    edges += [(f"s:{s.id}", f"p:{p}") for s in board.seas for p in s.coasts]
    edges += [(f"s:{s.id}", f"s:{o}") for s in board.seas for o in s.borders]
    for a, b in edges:
        if a in links and b in links:  # unknown ids are reported elsewhere
            links[a].add(b)
            links[b].add(a)
    if not links:
        return ["provinces: the board has no provinces or seas"]
    start = next(iter(links))
    reached = _reach(start, links)
    label = {"p": "province", "s": "sea"}
    return [f"{label[node[0]]} {node[2:]}: cannot be reached from {label[start[0]]} {start[2:]} "
            "through land borders, coasts and seas" for node in links if node not in reached]


def _reach(start: str, links: dict[str, set[str]]) -> set[str]:
    reached = {start}
    frontier = [start]
    while frontier:
        for nxt in links[frontier.pop()]:
            if nxt not in reached:
                reached.add(nxt)
                frontier.append(nxt)
    return reached


def _check_regions(board: Board, ruleset: Ruleset) -> list[str]:
    empires = {e.id for e in ruleset.empires}
    regions = {p.region for p in board.provinces}
    problems = [f"province {p.id}: region {p.region} is not an empire" for p in board.provinces
                if p.region is not None and p.region not in empires]
    for players, covered in board.covered.items():
        if not players.isdigit():
            problems.append(f"covered: key '{players}' is not a player count")
        for empire in covered:
            if empire not in empires:
                problems.append(f"covered {players}: {empire} is not an empire")
            elif empire not in regions:
                problems.append(f"covered {players}: no province has region {empire}")
    return problems


def _check_setups(board: Board, ruleset: Ruleset, provinces: dict[str, Province],
                  seas: dict[str, Sea]) -> list[str]:
    problems: list[str] = []
    first_setup: dict[str, int] = {}
    for index, setup in enumerate(board.setups):
        if setup.empire in first_setup:
            problems.append(f"setup {setup.empire}: setups[{index}] repeats the set-up of "
                            f"{setup.empire} (setups[{first_setup[setup.empire]}])")
        first_setup.setdefault(setup.empire, index)
        problems += _check_setup(setup, ruleset, provinces, seas)
    problems += _check_setups_share_nothing(board)
    problems += _check_building_supply(board, ruleset, provinces)
    return problems


def _check_setup(setup: Setup, ruleset: Ruleset, provinces: dict[str, Province],
                 seas: dict[str, Sea]) -> list[str]:
    where = f"setup {setup.empire}"
    problems: list[str] = []
    if setup.empire not in {e.id for e in ruleset.empires}:
        problems.append(f"{where}: empire {setup.empire} is not an empire of the ruleset")
    tiles = {t.id: t for t in ruleset.tiles}
    if setup.hero not in tiles:
        problems.append(f"{where}: hero {setup.hero} is not a tile of the ruleset")
    elif not tiles[setup.hero].starting:
        problems.append(f"{where}: hero {setup.hero} is not a starting hero")
    for province_id in _duplicates(setup.provinces):
        problems.append(f"{where}: provinces lists {province_id} twice")
    for province_id in setup.provinces:
        if province_id not in provinces:
            problems.append(f"{where}: provinces lists {province_id}, which is not a province")
    if len(setup.provinces) > ruleset.components.control_markers:
        problems.append(f"{where}: provinces lists {len(setup.provinces)} provinces but an empire "
                        f"has {ruleset.components.control_markers} control markers")
    problems += _check_setup_capital(setup, provinces)
    problems += _check_setup_buildings(setup, provinces)
    problems += _check_setup_units(setup, ruleset, provinces, seas)
    return problems


def _check_setup_capital(setup: Setup, provinces: dict[str, Province]) -> list[str]:
    where = f"setup {setup.empire}"
    if setup.capital not in setup.provinces:
        return [f"{where}: capital {setup.capital} is not one of its provinces"]
    if setup.capital not in provinces:
        return []  # already reported as an unknown province
    capitals = [s for s in provinces[setup.capital].spaces if s.kind == "capital"]
    if not capitals:
        return [f"{where}: capital {setup.capital} has no capital space"]
    refs = [f"{setup.capital}/{s.id}" for s in capitals]
    if not any(ref in setup.buildings for ref in refs):
        return [f"{where}: buildings must include the capital city {refs[0]}"]
    return []


def _check_setup_buildings(setup: Setup, provinces: dict[str, Province]) -> list[str]:
    where = f"setup {setup.empire}"
    problems = [f"{where}: buildings lists {ref} twice" for ref in _duplicates(setup.buildings)]
    for ref in setup.buildings:
        province_id, _, space_id = ref.partition("/")
        if province_id not in setup.provinces:
            problems.append(f"{where}: buildings lists {ref}, which is not in one of its provinces")
        elif province_id in provinces and space_id not in {s.id for s in provinces[province_id].spaces}:
            problems.append(f"{where}: buildings lists {ref}, but {province_id} has no space "
                            f"'{space_id}'")
    return problems


def _check_setup_units(setup: Setup, ruleset: Ruleset, provinces: dict[str, Province],
                       seas: dict[str, Sea]) -> list[str]:
    where = f"setup {setup.empire}"
    supply = ruleset.components.units
    problems: list[str] = []
    for province_id, count in setup.legions.items():
        if province_id not in setup.provinces:
            problems.append(f"{where}: legions in {province_id}, which is not one of its provinces")
        if count < 1:
            problems.append(f"{where}: legions in {province_id}: {count} is not a positive count")
    for province_id in setup.fortresses:
        if province_id not in setup.provinces:
            problems.append(f"{where}: fortresses in {province_id}, which is not one of its provinces")
    for province_id in _duplicates(setup.fortresses):
        problems.append(f"{where}: fortresses lists {province_id} twice; a province holds at most "
                        "one fortress")
    touching = {sea for p in setup.provinces if p in provinces for sea in provinces[p].seas}
    for sea_id, count in setup.triremes.items():
        if sea_id not in seas:
            problems.append(f"{where}: triremes in {sea_id}, which is not a sea")
        elif sea_id not in touching:
            problems.append(f"{where}: triremes in {sea_id}, which touches none of its provinces")
        if count < 1:
            problems.append(f"{where}: triremes in {sea_id}: {count} is not a positive count")
    used: tuple[tuple[UnitKind, int], ...] = (
        ("legion", sum(setup.legions.values())), ("fortress", len(setup.fortresses)),
        ("trireme", sum(setup.triremes.values())))
    for kind, count in used:
        if count > supply.get(kind, 0):
            problems.append(f"{where}: {kind}s: {count} placed but an empire has "
                            f"{supply.get(kind, 0)}")
    return problems


def _check_setups_share_nothing(board: Board) -> list[str]:
    problems: list[str] = []
    owner: dict[str, str] = {}
    for setup in board.setups:
        for province_id in dict.fromkeys(setup.provinces):
            if owner.get(province_id, setup.empire) != setup.empire:
                problems.append(f"setup {setup.empire}: provinces lists {province_id}, already a "
                                f"province of setup {owner[province_id]}")
            owner.setdefault(province_id, setup.empire)
    return problems


def _check_building_supply(board: Board, ruleset: Ruleset,
                           provinces: dict[str, Province]) -> list[str]:
    kinds = {f"{p.id}/{s.id}": s.kind for p in provinces.values() for s in p.spaces}
    used = Counter(kinds[ref] for setup in board.setups for ref in dict.fromkeys(setup.buildings)
                   if ref in kinds)
    supply = ruleset.components.buildings
    return [f"setups: {count} {kind} buildings placed but the supply has {supply.get(kind, 0)}"
            for kind, count in sorted(used.items()) if count > supply.get(kind, 0)]


def _duplicates(items: Iterable[str]) -> list[str]:
    return [item for item, count in Counter(items).items() if count > 1]


# ---------------------------------------------------------------------------------------------------
# Geography

_NO_CHAINS: frozenset[int] = frozenset()


class Geo:
    """Read-only geography of one Board, indexed once: lookups, adjacency and adjoining by sea."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self._provinces = {p.id: p for p in board.provinces}
        self._seas = {s.id: s for s in board.seas}
        self._spaces = {f"{p.id}/{s.id}": (p, s) for p in board.provinces for s in p.spaces}
        self._adjacent = {p.id: frozenset(p.borders) for p in board.provinces}
        self._seas_of = {p.id: frozenset(p.seas) for p in board.provinces}
        self._coasts_of = {s.id: frozenset(s.coasts) for s in board.seas}
        self._sea_neighbours = {s.id: frozenset(s.borders) for s in board.seas}
        self._chains: dict[frozenset[SeaId], dict[ProvinceId, frozenset[int]]] = {}
        self._covered: dict[int, frozenset[str]] = {}

    def province(self, province_id: str) -> Province:
        """The province with that id; InvalidCommand if the board has none."""
        try:
            return self._provinces[province_id]
        except KeyError:
            raise InvalidCommand(f"unknown province '{province_id}'") from None

    def sea(self, sea_id: str) -> Sea:
        """The sea with that id; InvalidCommand if the board has none."""
        try:
            return self._seas[sea_id]
        except KeyError:
            raise InvalidCommand(f"unknown sea '{sea_id}'") from None

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
        try:
            return b in self._adjacent[a]
        except KeyError:
            raise InvalidCommand(f"unknown province '{a}'") from None

    def adjacent(self, province_id: ProvinceId) -> frozenset[ProvinceId]:
        """The provinces sharing a land border with this one."""
        try:
            return self._adjacent[province_id]
        except KeyError:
            raise InvalidCommand(f"unknown province '{province_id}'") from None

    def seas_of(self, province_id: ProvinceId) -> frozenset[SeaId]:
        """The seas a province touches."""
        try:
            return self._seas_of[province_id]
        except KeyError:
            raise InvalidCommand(f"unknown province '{province_id}'") from None

    def coasts_of(self, sea_id: SeaId) -> frozenset[ProvinceId]:
        """The provinces on a sea's coasts."""
        try:
            return self._coasts_of[sea_id]
        except KeyError:
            raise InvalidCommand(f"unknown sea '{sea_id}'") from None

    def sea_neighbours(self, sea_id: SeaId) -> frozenset[SeaId]:
        """The seas a trireme may move to from this one (4.1.1)."""
        try:
            return self._sea_neighbours[sea_id]
        except KeyError:
            raise InvalidCommand(f"unknown sea '{sea_id}'") from None

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
            chain_of = self._chain_ids(trireme_seas)
            groups: dict[ProvinceId, set[int]] = {}
            for sea_id, label in chain_of.items():
                for province_id in self._coasts_of[sea_id]:
                    groups.setdefault(province_id, set()).add(label)
            touched = {p: frozenset(labels) for p, labels in groups.items()}
            if len(self._chains) > 4096:  # bound the memory of long games
                self._chains.clear()
            self._chains[trireme_seas] = touched
        return touched

    def _chain_ids(self, trireme_seas: frozenset[SeaId]) -> dict[SeaId, int]:
        """Each known sea of trireme_seas mapped to the number of its chain."""
        chains: dict[SeaId, int] = {}
        for sea_id in trireme_seas:
            if sea_id in self._sea_neighbours and sea_id not in chains:
                self._label_chain(sea_id, len(chains), trireme_seas, chains)
        return chains

    def _label_chain(self, start: SeaId, label: int, seas: frozenset[SeaId],
                     chains: dict[SeaId, int]) -> None:
        chains[start] = label
        frontier = [start]
        while frontier:
            for nxt in self._sea_neighbours[frontier.pop()]:
                if nxt in seas and nxt not in chains:
                    chains[nxt] = label
                    frontier.append(nxt)


geo: ObjectCache[Board, Geo] = ObjectCache(Geo)
"""geo(board): the Geo index of that Board object, built once and cached."""
