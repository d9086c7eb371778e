"""The board's data types, as decoded from a board file; below the loader and its checks, which both use them."""

# no `from __future__ import annotations`: msgspec would compile each string annotation again at every
# start (tests/test_lean_start.py)
import msgspec

from mncore.rulesets.empires.ids import Commodity, Empire, ProvinceId, SeaId, SpaceKind, SpaceRef, TileId


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


Point = tuple[float, float]  # x, y on the layout's canvas, y downwards (SVG)


class _Geom(_Data, frozen=True, kw_only=True, omit_defaults=True):
    """Base of the layout Structs: what is left at its default is not written (compact encodings)."""


class PlaceLayout(_Geom, frozen=True, kw_only=True):
    """Where a province or sea is drawn: its centre, its name, its building spaces, its outline."""

    at: Point  # the centre: the site of its area (see Layout) and where its units stand, unless its name needs the room
    label: Point | None = None  # where the search for its name's place starts; default: a little above `at`
    spaces: dict[str, Point] = {}  # space id -> where its building is drawn; default: a row below `at` or its name
    outline: tuple[Point, ...] = ()  # an explicit polygon; default: the area nearest to `at`
    sites: tuple[Point, ...] = ()  # a sea's further sites: an elongated sea is nearest to any of them


class Projection(_Geom, frozen=True, kw_only=True):
    """A layout on the real Mediterranean: its points are [longitude, latitude] in degrees, drawn at
    x = (lon - west) * x_scale, y = (north - lat) * y_scale, over the real coastline (Natural Earth)."""

    west: float
    north: float
    x_scale: float  # pixels per degree of longitude
    y_scale: float  # pixels per degree of latitude

    def point(self, p: Point) -> Point:
        """A [longitude, latitude] on the canvas."""
        return ((p[0] - self.west) * self.x_scale, (self.north - p[1]) * self.y_scale)


class Layout(_Geom, frozen=True, kw_only=True):
    """The board's geometry for pictures (mn draw, mn html); no rule reads it.

    Each area is the part of the canvas nearer to its place's `at` than to any other site (a Voronoi
    cell), unless it has an `outline`; `water` and `land` add sites of no place that shape the coasts.
    With a `projection`, every point is a longitude and latitude, the real coastline is drawn, and a
    province is its share of the land holding its `at`, a sea its share of the water.
    """

    width: float
    height: float
    projection: Projection | None = None
    places: dict[str, PlaceLayout]  # province or sea id -> its drawing
    water: tuple[Point, ...] = ()  # open water belonging to no sea (the Ocean, the Red Sea)
    land: tuple[Point, ...] = ()  # land belonging to no province (Hispania, the deserts)


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
    # UNSET, not None: a board without a layout encodes (and digests) exactly as before layouts existed
    layout: Layout | msgspec.UnsetType = msgspec.UNSET
