"""Names of the things of Mare Nostrum: Empires, as typed constants; no logic."""

# no `from __future__ import annotations`: msgspec would compile each string annotation again at every
# start (tests/test_lean_start.py)
from typing import Literal, get_args

Empire = Literal["rome", "greece", "babylon", "egypt", "carthage", "atlantis"]  # atlantis: the Atlas expansion
EMPIRES: tuple[Empire, ...] = get_args(Empire)

Commodity = Literal[
    "ceramic", "gems", "papyrus", "metal", "spices", "stone", "wood",
    "gold", "grain", "oil", "sheep", "wine", "gladiator",
]
COMMODITIES: tuple[Commodity, ...] = get_args(Commodity)

Phase = Literal["collect", "trade", "build", "move", "leadership"]
PHASES: tuple[Phase, ...] = get_args(Phase)
# each phase's name in the rulebook, as status, reports and the log all name it
PHASE_NAMES: dict[Phase, str] = {"collect": "Collect Resources", "trade": "Trade Resources", "build": "Build",
                                 "move": "Move and Battle", "leadership": "Claim Leadership"}

Track = Literal["trade", "culture", "military"]
TRACKS: tuple[Track, ...] = get_args(Track)

# A space printed on the board; the building of the same name is built on it.
SpaceKind = Literal["caravan", "market", "temple", "city", "capital", "legendary"]
SPACE_KINDS: tuple[SpaceKind, ...] = get_args(SpaceKind)
BuildingKind = SpaceKind
CITY_KINDS: tuple[BuildingKind, ...] = ("city", "capital", "legendary")

UnitKind = Literal["legion", "trireme", "fortress"]
UNIT_KINDS: tuple[UnitKind, ...] = get_args(UnitKind)

TileId = Literal[
    "caesar", "pericles", "hammurabi", "cleopatra", "hannibal",
    "castor-pollux", "nebuchadnezzar", "circe", "penthesilea", "gilgamesh",
    "perseus", "hamilcar", "queen-of-sheba", "hercules", "ramses",
    "antigone", "spartacus",
    "colossus", "hanging-gardens", "pharos", "statue-of-zeus", "temple-of-artemis",
    "pyramids",
    "atlas", "chiron",  # the Atlas expansion's Atlantean heroes with a text (atlas-expansion.md)
    # the four other Atlantean heroes, whose texts we lack: slots an owner may fill (docs/tiles.md, R54)
    "atlantean-2", "atlantean-3", "atlantean-4", "atlantean-5",
    # the Legendary City expansions (data/expansions/*.toml)
    "adonis", "croesus", "imhotep", "moses", "solomon", "halicarnassus",
    "archimedes", "dido", "jason", "midas", "minos", "ptolemy",
    "achilles", "aeneas", "agamemnon", "ajax", "helen", "odysseus",
]
TILE_IDS: tuple[TileId, ...] = get_args(TileId)
OWNER_TILE_IDS: tuple[TileId, ...] = ("atlantean-2", "atlantean-3", "atlantean-4", "atlantean-5")

# The Legendary City expansions (atlas 'LEGENDARY CITIES'): each brings tiles, objectives and a deck.
Expansion = Literal["troia", "ierusalem", "syracusae"]
Display = Literal["first-game", "experienced"]  # the tiles shown at set-up (set-up step 5)
EXPANSIONS: tuple[Expansion, ...] = get_args(Expansion)
# A Bonus Card's id, as its expansion's data names it ("poseidon", "fortune-tellers").
CardId = str

ProvinceId = str
SeaId = str
# A space on the board, "province/space", e.g. "latium/caravan-metal".
SpaceRef = str

# A resource token in a holding: "coin", a commodity, or "legendary-<commodity>".
Token = str
COIN: Token = "coin"
LEGENDARY_PREFIX = "legendary-"
FACE_DOWN: Token = "legendary-face-down"  # a legendary token as the others read it: drawn face down (1.2)


def legendary(commodity: Commodity) -> Token:
    """The token of the legendary commodity of that type."""
    return LEGENDARY_PREFIX + commodity


def commodity_of(token: Token) -> str | None:
    """The commodity type a token counts as (1.2), or None for a coin."""
    if token == COIN:
        return None
    return token.removeprefix(LEGENDARY_PREFIX)


def is_legendary(token: Token) -> bool:
    return token.startswith(LEGENDARY_PREFIX)


TOKENS: tuple[Token, ...] = (COIN, *COMMODITIES, *(legendary(c) for c in COMMODITIES))
