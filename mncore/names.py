"""Matching the names users type (any case, accents, spacing, aliases, unique prefixes) to ids."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, cast

from mncore.errors import AmbiguousName, InvalidCommand
from mncore.ids import Commodity, Empire, ProvinceId, SeaId, TileId
from mncore.ruleset import ObjectCache, Ruleset

if TYPE_CHECKING:
    from mncore.board import Board

_IGNORED = str.maketrans("", "", " -_'’&.")


def normalise(text: str) -> str:
    """Lowercase, without accents, spaces, hyphens, apostrophes, '&' or dots: "Castor & Pollux" ->
    "castorpollux"."""
    decomposed = unicodedata.normalize("NFKD", text)
    bare = "".join(c for c in decomposed if not unicodedata.combining(c))
    return bare.casefold().translate(_IGNORED)


class NameTable:
    """The normalised names of one kind of thing, ready for exact and prefix lookups."""

    def __init__(self, kind: str, entries: Mapping[str, Iterable[str]]) -> None:
        self.kind = kind
        self.display: dict[str, str] = {}
        self.exact: dict[str, set[str]] = {}
        for item_id, names in entries.items():
            names = list(names)
            self.display[item_id] = names[0] if names else item_id
            for name in (item_id, *names):
                self.exact.setdefault(normalise(name), set()).add(item_id)
        self.keys = sorted(self.exact)

    def resolve(self, text: str) -> str:
        """The id that text names: an exact match wins, else a unique prefix; else refuse."""
        key = normalise(text)
        found = self.exact.get(key) if key else None
        if not found and key:
            found = {i for k in self.keys if k.startswith(key) for i in self.exact[k]}
        if not found:
            raise InvalidCommand(f"unknown {self.kind} '{text}'; expected one of: "
                                 f"{self._names(self.display)}")
        if len(found) > 1:
            raise AmbiguousName(f"ambiguous {self.kind} '{text}': could be {self._names(found)}")
        return next(iter(found))

    def _names(self, ids: Iterable[str]) -> str:
        return ", ".join(sorted(self.display[i] for i in ids))


def resolve(kind: str, text: str, entries: Mapping[str, Iterable[str]]) -> str:
    """Match text to an id of entries (id -> display name, then aliases); kind names it in errors.

    InvalidCommand if nothing matches, AmbiguousName if several things do.
    """
    return NameTable(kind, entries).resolve(text)


def _province_table(board: Board) -> NameTable:
    return NameTable("province", {p.id: (p.name, *p.aliases) for p in board.provinces})


def _sea_table(board: Board) -> NameTable:
    return NameTable("sea", {s.id: (s.name, *s.aliases) for s in board.seas})


def _place_table(board: Board) -> NameTable:
    entries = {p.id: (p.name, *p.aliases) for p in board.provinces}
    entries |= {s.id: (s.name, *s.aliases) for s in board.seas}
    return NameTable("province or sea", entries)


def _empire_table(ruleset: Ruleset) -> NameTable:
    return NameTable("empire", {e.id: (e.name, *e.aliases) for e in ruleset.empires})


def _commodity_table(ruleset: Ruleset) -> NameTable:
    return NameTable("commodity", {c.id: (c.name, *c.aliases) for c in ruleset.commodities})


def _tile_table(ruleset: Ruleset) -> NameTable:
    return NameTable("hero or wonder", {t.id: (t.name, *t.aliases) for t in ruleset.tiles})


_provinces: ObjectCache[Board, NameTable] = ObjectCache(_province_table)
_seas: ObjectCache[Board, NameTable] = ObjectCache(_sea_table)
_places: ObjectCache[Board, NameTable] = ObjectCache(_place_table)
_empires: ObjectCache[Ruleset, NameTable] = ObjectCache(_empire_table)
_commodities: ObjectCache[Ruleset, NameTable] = ObjectCache(_commodity_table)
_tiles: ObjectCache[Ruleset, NameTable] = ObjectCache(_tile_table)


def resolve_province(board: Board, text: str) -> ProvinceId:
    """The province text names ("crete", "Achaia", "gal")."""
    return _provinces(board).resolve(text)


def resolve_sea(board: Board, text: str) -> SeaId:
    """The sea text names ("Aegean Sea", "tyrrhenum", "pontus")."""
    return _seas(board).resolve(text)


def resolve_place(board: Board, text: str) -> str:
    """The province or sea text names; ids of provinces and seas never clash on a valid board."""
    return _places(board).resolve(text)


def resolve_empire(ruleset: Ruleset, text: str) -> Empire:
    """The empire text names ("Romans", "carthaginian")."""
    return cast(Empire, _empires(ruleset).resolve(text))


def resolve_commodity(ruleset: Ruleset, text: str) -> Commodity:
    """The commodity text names ("Wheat", "olive oil", "diamonds")."""
    return cast(Commodity, _commodities(ruleset).resolve(text))


def resolve_tile(ruleset: Ruleset, text: str) -> TileId:
    """The hero, wonder or Pyramids tile text names ("Ramses II", "castor and pollux", "sheba")."""
    return cast(TileId, _tiles(ruleset).resolve(text))
