"""The Empires names users type: provinces, seas, empires, commodities and tiles, matched to ids."""

from __future__ import annotations

from typing import cast

from mncore.core.cache import ObjectCache
from mncore.core.name_matching import NameTable, normalise, resolve
from mncore.rulesets.empires.boardtypes import Board
from mncore.rulesets.empires.game_data import Ruleset
from mncore.rulesets.empires.ids import Commodity, Empire, ProvinceId, SeaId, TileId

__all__ = ["normalise", "resolve", "resolve_province", "resolve_sea", "resolve_place", "resolve_empire",
           "resolve_commodity", "resolve_tile"]


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


def _named(table: NameTable, text: str) -> str:
    """table.resolve(text), remembered per table for the texts it accepted: orders name the same
    provinces and commodities again and again, and normalising a name is most of resolving it."""
    known = _answers(table)
    found = known.get(text)
    if found is None:
        found = table.resolve(text)  # refused texts raise, and are never remembered
        if len(known) >= ANSWERS_LIMIT:
            known.clear()
        known[text] = found
    return found


ANSWERS_LIMIT = 4096  # texts remembered per table (what a player types is not bounded)
# per name table (made once per board or ruleset): text -> the id it names
_answers: ObjectCache[NameTable, dict[str, str]] = ObjectCache(lambda table: {}, limit=64)


def resolve_province(board: Board, text: str) -> ProvinceId:
    """The province text names ("crete", "Achaia", "gal")."""
    return _named(_provinces(board), text)


def resolve_sea(board: Board, text: str) -> SeaId:
    """The sea text names ("Aegean Sea", "tyrrhenum", "pontus")."""
    return _named(_seas(board), text)


def resolve_place(board: Board, text: str) -> str:
    """The province or sea text names; ids of provinces and seas never clash on a valid board."""
    return _named(_places(board), text)


def resolve_empire(ruleset: Ruleset, text: str) -> Empire:
    """The empire text names ("Romans", "carthaginian")."""
    return cast(Empire, _named(_empires(ruleset), text))


def resolve_commodity(ruleset: Ruleset, text: str) -> Commodity:
    """The commodity text names ("Wheat", "olive oil", "diamonds")."""
    return cast(Commodity, _named(_commodities(ruleset), text))


def resolve_tile(ruleset: Ruleset, text: str) -> TileId:
    """The hero, wonder or Pyramids tile text names ("Ramses II", "castor and pollux", "sheba")."""
    return cast(TileId, _named(_tiles(ruleset), text))
