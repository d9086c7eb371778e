"""The ruleset's game facts (components, costs, tiles, starting leaders), loaded from data files."""

from __future__ import annotations

import functools
import importlib.resources
from collections import Counter
from typing import Literal

import msgspec

from mncore.cache import ObjectCache

from mncore.errors import DataError, InvalidCommand
from mncore.rulesets.empires.ids import (
    COMMODITIES, EMPIRES, TILE_IDS, BuildingKind, Commodity, Empire, Phase, TileId, Track, UnitKind,
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


class Tile(_Data, frozen=True, kw_only=True):
    """A hero, a wonder or the Pyramids: when it acts, its bonus, its power in our words."""

    id: TileId
    name: str
    kind: Literal["hero", "wonder", "pyramids"]
    starting: bool = False
    phase: Phase | None = None
    bonus: Bonus = Bonus()
    power: str
    aliases: tuple[str, ...] = ()


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
    starting_leaders: dict[Track, Empire]
    # who replaces a starting leader whose empire is not in play, by player count (set-up step 4)
    starting_leaders_by_players: dict[str, dict[Track, Empire]] = {}


RULESET_SOURCE = "mncore/rulesets/empires/data/ruleset.toml"


@functools.cache
def load_ruleset() -> Ruleset:
    """The packaged ruleset, decoded and checked once; DataError lists every problem."""
    data = importlib.resources.files("mncore.rulesets.empires").joinpath("data", "ruleset.toml").read_bytes()
    try:
        ruleset = msgspec.toml.decode(data, type=Ruleset)
    except msgspec.ValidationError as err:
        raise DataError(RULESET_SOURCE, [str(err)]) from err
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
    problems += _exactly_once("tiles", [t.id for t in ruleset.tiles], TILE_IDS)
    problems += _exactly_once("components.commodities", list(ruleset.components.commodities),
                              COMMODITIES)
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


def tile(ruleset: Ruleset, tile_id: str) -> Tile:
    """The tile with that id; InvalidCommand if the ruleset has none."""
    try:
        return _tile_index(ruleset)[tile_id]
    except KeyError:
        raise InvalidCommand(f"unknown hero or wonder '{tile_id}'") from None
