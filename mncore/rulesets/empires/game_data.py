"""The ruleset's game facts (components, costs, tiles, starting leaders), loaded from data files."""

# no `from __future__ import annotations`: msgspec would compile each string annotation again at every
# start (tests/test_lean_start.py)
import functools
import hashlib
import os
from collections import Counter
from typing import Literal, get_args

import msgspec

from mncore.core.cache import ObjectCache
from mncore.core.errors import DataError, InvalidCommand
from mncore.rulesets.empires.ids import (
    COMMODITIES,
    EMPIRES,
    EXPANSIONS,
    OWNER_TILE_IDS,
    TILE_IDS,
    BuildingKind,
    Commodity,
    Empire,
    Phase,
    TileId,
    Track,
    UnitKind,
)

RULESET_ID = "mare-nostrum-empires-2016"
# Bump when a change to the rules or their data would replay an old log differently.
RULESET_VERSION = 1


class _Data(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """Base of every data-file Struct: frozen, unknown fields refused."""


class Dice(_Data, frozen=True, kw_only=True):
    """The battle dice: how many there are and their faces (ruling R1)."""

    land_count: int
    sea_count: int
    land_faces: tuple[int, ...]
    sea_faces: tuple[int, ...]


class Costs(_Data, frozen=True, kw_only=True):
    """Build costs (3.0): items by kind, heroes/wonders by rank, the Pyramids."""

    control: int
    buildings: dict[BuildingKind, int]
    units: dict[UnitKind, int]
    # cost of the 2nd, 3rd, 4th and 5th hero or wonder (3.1.3)
    tiles: tuple[int, ...]
    pyramids: int


class Components(_Data, frozen=True, kw_only=True):
    """Supply counts of the game's components (Game Components)."""

    commodities: dict[Commodity, int]
    coins: int
    legendary_per_commodity: int
    buildings: dict[BuildingKind, int]
    units: dict[UnitKind, int]  # per empire
    control_markers: int  # per empire
    exchange_markers: tuple[tuple[int, int], ...]
    dice: Dice


class Bonus(_Data, frozen=True, kw_only=True):
    """A tile's leader bonus on each track (10.0, 11.0)."""

    trade: int = 0
    culture: int = 0
    military: int = 0

    def on(self, track: Track) -> int:
        return getattr(self, track)  # type: ignore[no-any-return]


# Where the rules ask the heroes' and wonders' powers (mncore.rulesets.empires.tile_powers names each).
HookPoint = Literal[
    "extra_dice", "battle_bonus", "payment_set", "cheap_unit", "free_control", "free_legions",
    "build_first", "copy_hero", "keep_commodities", "income", "caravan_legions",
    "commodity_after_collect", "any_offer", "pillage", "convert_at_once", "peace", "unit_cost",
    "centaurs",
    # the Legendary City expansions' tiles (data/expansions/*.toml)
    "draw_discard", "coin_build", "tile_discount", "sanctuary", "toll", "unattackable",
    "free_trireme", "greek_fire", "take_discards", "no_sea_battle",
    "myrmidons", "negate_hit", "rebuild_pillaged", "sea_crossing",  # Troia's (rules/troia.py)
]
HOOK_POINTS: tuple[HookPoint, ...] = get_args(HookPoint)
# The rulebook chapter of each kind of tile's powers: a power's section is "<chapter>.<tile id>".
POWER_CHAPTERS = {"hero": "10", "wonder": "11"}
# An expansion's tiles cite that expansion's chapter: "atlas.atlas", "atlas.chiron".
EXPANSION_CHAPTERS = {"atlantis": "atlas"}


class CheapUnit(_Data, frozen=True, kw_only=True):
    """A unit a power lets its holder build once a round for 1 coin or 1 commodity (3.1.2)."""

    unit: UnitKind
    commodity: Commodity


class Tile(_Data, frozen=True, kw_only=True):
    """A hero, a wonder or the Pyramids: when it acts, its bonus, its power in our words, and where
    the rules ask it (hooks) with the numbers it uses there."""

    id: TileId
    name: str
    kind: Literal["hero", "wonder", "pyramids"]
    starting: bool = False
    phase: Phase | None = None
    bonus: Bonus = Bonus()
    power: str
    aliases: tuple[str, ...] = ()
    hooks: tuple[HookPoint, ...] = ()
    copyable: bool = True  # by Castor & Pollux, if also a hero that is not a starting one
    die_bonus: int = 0  # added per legion die
    total_bonus: int = 0  # added to the dice total
    extra_dice: int = 0
    coins: int = 0  # collected every round
    max_offer: int = 0  # resources offered in a trade, from 0
    keep: int = 0  # different commodities kept at the end of Build
    pillage_times: int = 0  # how many times a pillage pays
    cheap: CheapUnit | None = None
    unit_costs: dict[UnitKind, int] = {}  # what a unit costs its holder instead of 3.0's price
    coin_costs: dict[str, int] = {}  # what a power builds for coins alone, by item (control, a building)
    # the expansion that brings it: a board ("atlantis", in play only with that board) or a Legendary
    # City ("ierusalem", cities.py); "" for the base game
    expansion: str = ""
    # its power in the Punic War, where that set-up changes it (atlas.punic-wonders, rulings R67, R68)
    punic_power: str = ""
    centaurs: int = 0  # what rebuilding the Centaurs costs (atlas.chiron)
    myrmidons: int = 0  # what rebuilding the Myrmidons costs (10.achilles)
    # at a hook point, act with another tile's code and this tile's numbers (an owner's tile: docs/tiles.md)
    acts_as: dict[HookPoint, TileId] = {}

    @property
    def section(self) -> str:
        """The rulebook section of the tile's power, e.g. 10.caesar (atlas.chiron for an expansion's)."""
        chapter = EXPANSION_CHAPTERS.get(self.expansion) or POWER_CHAPTERS.get(self.kind, self.kind)
        return f"{chapter}.{self.id}"


class EmpireInfo(_Data, frozen=True, kw_only=True):
    """An empire's display name, colour and name aliases."""

    id: Empire
    name: str
    color: str
    aliases: tuple[str, ...] = ()


class CommodityInfo(_Data, frozen=True, kw_only=True):
    """A commodity's display name and aliases (Wheat for Grain, Perfume for Spices, ...)."""

    id: Commodity
    name: str
    aliases: tuple[str, ...] = ()


class Numbers(_Data, frozen=True, kw_only=True):
    """The game's numbers that are not costs or component counts."""

    min_players: int  # setup.players
    max_players: int
    coins_kept: int  # at the end of Build (3.0)
    face_up_first_game: int  # tiles face up on a first game's display (set-up step 5)
    tiles_to_win: int  # heroes and wonders (6.2)
    great_cities_to_win: int  # 6.3
    great_city_kinds: tuple[BuildingKind, ...]  # 6.3
    fortress_bonus: int  # added to its owner's dice total (4.2)
    fortress_negates: int  # hits against its owner negated (4.2)
    total_per_hit: int  # a side's total divided by this, rounded down, is its hits (4.2)
    # the buildings counted on the Trade and Culture tracks; Military counts units (5.0)
    track_buildings: dict[Track, tuple[BuildingKind, ...]]


class Ruleset(_Data, frozen=True, kw_only=True):
    """Everything about the game that is data rather than rules code."""

    id: str
    version: int
    name: str
    empires: tuple[EmpireInfo, ...]
    commodities: tuple[CommodityInfo, ...]
    components: Components
    costs: Costs
    tiles: tuple[Tile, ...]
    numbers: Numbers
    starting_leaders: dict[Track, Empire]
    # who replaces a starting leader whose empire is not in play, by player count (set-up step 4)
    starting_leaders_by_players: dict[str, dict[Track, Empire]] = {}


RULESET_SOURCE = "mncore/rulesets/empires/data/ruleset.toml"


class _ExpansionTiles(msgspec.Struct, frozen=True, kw_only=True):
    """The tiles of an expansion's data file (cities.py decodes and checks the whole file)."""

    id: str
    tiles: tuple[Tile, ...]


# the package's data files, read by path: importlib.resources (with pathlib and tempfile) costs a cold
# start more than the files themselves, and the package is always installed as files
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def data_path(*parts: str) -> str:
    """The path of one of the package's data files (data/...)."""
    return os.path.join(DATA, *parts)


def data_bytes(*parts: str) -> bytes:
    """One of the package's data files, read whole."""
    with open(data_path(*parts), "rb") as f:
        return f.read()


def _expansion_paths() -> list[tuple[str, str]]:
    return [(x, path) for x in EXPANSIONS if os.path.isfile(path := data_path("expansions", f"{x}.toml"))]


def expansion_tiles() -> tuple[Tile, ...]:
    """The Legendary City expansions' tiles, each marked with its expansion: they join the base tiles."""
    out: list[Tile] = []
    for x, path in _expansion_paths():
        try:
            with open(path, "rb") as f:
                found = msgspec.toml.decode(f.read(), type=_ExpansionTiles)
        except msgspec.ValidationError as err:
            raise DataError(f"mncore/rulesets/empires/data/expansions/{x}.toml", [str(err)]) from err
        out += [msgspec.structs.replace(t, expansion=x) for t in found.tiles]
    return tuple(out)


# data/ruleset.toml with the expansions' tiles, as JSON: decoded in a fraction of the TOML's time (a cold
# start reads the ruleset). It names the hash of the TOML files it was made from: when they change, the
# TOML is read instead until `python -m mncore.rulesets.empires.game_data` writes it again (a test checks).
COMPILED = "ruleset.json"


class _Compiled(msgspec.Struct, frozen=True, kw_only=True):
    sources: str  # sha256 of the TOML files, in the order read
    ruleset: Ruleset


def _sources_hash() -> str:
    h = hashlib.sha256(data_bytes("ruleset.toml"))
    for x, _ in _expansion_paths():
        h.update(data_bytes("expansions", f"{x}.toml"))
    return h.hexdigest()


def ruleset_from_toml() -> Ruleset:
    """The ruleset read from its TOML files (unchecked): what the compiled JSON holds."""
    data = data_bytes("ruleset.toml")
    try:
        ruleset = msgspec.toml.decode(data, type=Ruleset)
    except msgspec.ValidationError as err:
        raise DataError(RULESET_SOURCE, [str(err)]) from err
    return msgspec.structs.replace(ruleset, tiles=ruleset.tiles + expansion_tiles())


def compiled_ruleset() -> Ruleset | None:
    """The compiled JSON's ruleset if it was made from the TOML files as they are, else None."""
    try:
        found = msgspec.json.decode(data_bytes(COMPILED), type=_Compiled)
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return None
    return found.ruleset if found.sources == _sources_hash() else None


def write_compiled() -> str:
    """Write the compiled JSON beside the TOML files (from a checkout); its path."""
    path = data_path(COMPILED)
    text = msgspec.json.format(msgspec.json.encode(_Compiled(sources=_sources_hash(), ruleset=ruleset_from_toml())))
    with open(path, "wb") as out:
        out.write(text + b"\n")
    return path


@functools.cache
def load_ruleset() -> Ruleset:
    """The packaged ruleset, decoded and checked once; DataError lists every problem."""
    ruleset = compiled_ruleset() or ruleset_from_toml()
    problems = validate_ruleset(ruleset)
    if problems:
        raise DataError(RULESET_SOURCE, problems)
    return ruleset


def validate_ruleset(ruleset: Ruleset) -> list[str]:
    """Every problem with a ruleset: its identity, and each empire, commodity and tile exactly once."""
    problems: list[str] = []
    if ruleset.id != RULESET_ID or ruleset.version != RULESET_VERSION:
        problems.append(f"id/version: {ruleset.id} v{ruleset.version} is not the engine's "
                        f"{RULESET_ID} v{RULESET_VERSION}")
    problems += _exactly_once("empires", [e.id for e in ruleset.empires], EMPIRES)
    problems += _exactly_once("commodities", [c.id for c in ruleset.commodities], COMMODITIES)
    ids: list[str] = [t.id for t in ruleset.tiles]
    # an owner's tiles fill slots that may stay empty (ruling R54, docs/tiles.md)
    problems += _exactly_once("tiles", ids, tuple(i for i in TILE_IDS if i not in OWNER_TILE_IDS or i in ids))
    problems += _acts_as_problems(ruleset)
    problems += _exactly_once("components.commodities", list(ruleset.components.commodities),
                              COMMODITIES)
    problems += _numbers_problems(ruleset)
    problems += [p for t in ruleset.tiles for p in _tile_problems(t)]
    return problems


def _numbers_problems(ruleset: Ruleset) -> list[str]:
    n = ruleset.numbers
    problems = []
    if not 1 <= n.min_players <= n.max_players <= len(EMPIRES):
        problems.append(f"numbers: {n.min_players} to {n.max_players} players is not a range of 1 to "
                        f"{len(EMPIRES)}")
    if n.tiles_to_win != len(ruleset.costs.tiles) + 1:
        problems.append(f"numbers.tiles_to_win: {n.tiles_to_win}, but costs.tiles prices "
                        f"{len(ruleset.costs.tiles) + 1} heroes and wonders")
    if n.total_per_hit < 1 or n.great_cities_to_win < 1:
        problems.append("numbers: total_per_hit and great_cities_to_win must be at least 1")
    if "military" in n.track_buildings:
        problems.append("numbers.track_buildings: the Military track counts units, not buildings")
    problems += [f"numbers.{k}: {v} is negative" for k, v in
                 (("coins_kept", n.coins_kept), ("fortress_bonus", n.fortress_bonus),
                  ("fortress_negates", n.fortress_negates),
                  ("face_up_first_game", n.face_up_first_game)) if v < 0]
    return problems


def _tile_problems(t: Tile) -> list[str]:
    problems = [f"tiles.{t.id}: hook {h} appears twice" for h in set(t.hooks) if t.hooks.count(h) > 1]
    if (t.cheap is not None) != ("cheap_unit" in t.hooks):
        problems.append(f"tiles.{t.id}: a cheap unit and the cheap_unit hook go together")
    if bool(t.centaurs) != ("centaurs" in t.hooks):
        problems.append(f"tiles.{t.id}: a Centaurs price and the centaurs hook go together")
    if bool(t.myrmidons) != ("myrmidons" in t.hooks):
        problems.append(f"tiles.{t.id}: a Myrmidons price and the myrmidons hook go together")
    if bool(t.unit_costs) != ("unit_cost" in t.hooks):
        problems.append(f"tiles.{t.id}: unit costs and the unit_cost hook go together")
    if t.hooks and t.phase is None:
        problems.append(f"tiles.{t.id}: a power with hooks acts in a phase")
    numbers = (t.die_bonus, t.total_bonus, t.extra_dice, t.coins, t.max_offer, t.keep, t.pillage_times,
               *t.unit_costs.values())
    if min(numbers) < 0:
        problems.append(f"tiles.{t.id}: a power's numbers are never negative")
    return problems


def _acts_as_problems(ruleset: Ruleset) -> list[str]:
    """A tile acts as another only at its own hook points, and only as a tile hooked there."""
    problems = []
    for t in ruleset.tiles:
        for point, other in t.acts_as.items():
            if point not in t.hooks:
                problems.append(f"tiles.{t.id}.acts_as: {point} is not one of its hooks")
            elif not any(o.id == other and point in o.hooks for o in ruleset.tiles):
                problems.append(f"tiles.{t.id}.acts_as: {other} has no power at {point}")
    return problems


def _exactly_once(field: str, ids: list[str], expected: tuple[str, ...]) -> list[str]:
    counts = Counter(ids)
    problems = [f"{field}: {i} appears {n} times" for i, n in counts.items() if n > 1]
    problems += [f"{field}: {i} is missing" for i in expected if i not in counts]
    if len(ids) != len(expected) and not problems:
        problems.append(f"{field}: {len(ids)} entries, expected {len(expected)}")
    return problems


_tile_index: ObjectCache[Ruleset, dict[str, Tile]] = ObjectCache(
    lambda ruleset: {t.id: t for t in ruleset.tiles})


def _by_point(ruleset: Ruleset) -> dict[str, tuple[Tile, ...]]:
    points: dict[str, list[Tile]] = {}
    for t in ruleset.tiles:
        for point in t.hooks:
            points.setdefault(point, []).append(t)
    return {point: tuple(tiles) for point, tiles in points.items()}


# the rules ask for the tiles at a point many times per order: indexed once per ruleset
_tiles_by_point: ObjectCache[Ruleset, dict[str, tuple[Tile, ...]]] = ObjectCache(_by_point)


def tiles_at(ruleset: Ruleset, point: HookPoint) -> tuple[Tile, ...]:
    """The tiles whose power the rules ask at that point, in the data's order."""
    return _tiles_by_point(ruleset).get(point, ())


def tile(ruleset: Ruleset, tile_id: str) -> Tile:
    """The tile with that id; InvalidCommand if the ruleset has none."""
    try:
        return _tile_index(ruleset)[tile_id]
    except KeyError:
        raise InvalidCommand(f"unknown hero or wonder '{tile_id}'") from None


if __name__ == "__main__":
    print(f"wrote {write_compiled()}")
