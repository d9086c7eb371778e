"""Validation of a board file: every problem named with the province, sea or set-up and the field."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping

import msgspec

from mncore.core.geography import Links
from mncore.pictures import coast
from mncore.rulesets.empires.boardtypes import Board, Layout, Point, Province, Sea, Setup
from mncore.rulesets.empires.game_data import Ruleset
from mncore.rulesets.empires.ids import UnitKind
from mncore.rulesets.empires.typed_names import normalise

_ID_PATTERN = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


def validate_board(board: Board, ruleset: Ruleset) -> list[str]:
    """Every problem with a board, each naming the province, sea or set-up and the field at fault."""
    problems: list[str] = []
    problems += _check_ids(board)
    provinces = {p.id: p for p in board.provinces}
    seas = {s.id: s for s in board.seas}
    problems += _check_names(board)
    problems += _check_spaces(board)
    problems += _check_links("province", provinces, "borders", "province", provinces, "borders")
    problems += _check_links("sea", seas, "borders", "sea", seas, "borders")
    problems += _check_coasts(board, provinces, seas)
    problems += _check_connected(board, provinces, seas)
    problems += _check_regions(board, ruleset)
    problems += _check_setups(board, ruleset, provinces, seas)
    if not isinstance(board.layout, msgspec.UnsetType):
        problems += validate_layout(board, board.layout)
    return problems


def validate_layout(board: Board, layout: Layout) -> list[str]:
    """Every problem with a layout: each province and sea placed, each point inside the canvas,
    no unknown place or space."""
    if layout.width <= 0 or layout.height <= 0:
        return [f"layout: width and height must be positive, not {layout.width} x {layout.height}"]
    spaces = {p.id: {s.id for s in p.spaces} for p in board.provinces}
    places = {**{s.id: "sea" for s in board.seas}, **{p.id: "province" for p in board.provinces}}
    problems = [f"layout: {places[place_id]} {place_id} has no place (layout.places.{place_id}.at)"
                for place_id in places if place_id not in layout.places]
    problems += [f"layout.places.{place_id}: no province or sea has this id"
                 for place_id in layout.places if place_id not in places]

    project = layout.projection.point if layout.projection else (lambda p: p)

    def outside(where: str, point: Point) -> None:
        x, y = project(point)
        if not (0 <= x <= layout.width and 0 <= y <= layout.height):
            problems.append(f"{where}: {list(point)} is outside the canvas "
                            f"(0..{layout.width:g} x 0..{layout.height:g})")

    for place_id, place in layout.places.items():
        where = f"layout.places.{place_id}"
        outside(f"{where}.at", place.at)
        if place.label is not None:
            outside(f"{where}.label", place.label)
        for space_id, point in place.spaces.items():
            if space_id not in spaces.get(place_id, set()):
                problems.append(f"{where}.spaces: {place_id} has no space '{space_id}'")
            outside(f"{where}.spaces.{space_id}", point)
        if place.outline and len(place.outline) < 3:
            problems.append(f"{where}.outline: a polygon needs at least 3 points")
        for index, point in enumerate(place.outline):
            outside(f"{where}.outline[{index}]", point)
        if place.sites and places.get(place_id) != "sea":
            problems.append(f"{where}.sites: only a sea may have further sites")
        for index, point in enumerate(place.sites):
            outside(f"{where}.sites[{index}]", point)
    for kind in ("water", "land"):
        for index, point in enumerate(getattr(layout, kind)):
            outside(f"layout.{kind}[{index}]", point)
    if layout.projection is not None:
        problems += _on_the_coast(layout, places)
    return problems


def _on_the_coast(layout: Layout, places: dict[str, str]) -> list[str]:
    """On the real coastline, a province's sites stand on land (or in its outline), a sea's in water."""
    assert layout.projection is not None
    project = layout.projection.point
    land = coast.Shape(coast.projected(project))
    problems = []
    for place_id, place in layout.places.items():
        kind = places.get(place_id)
        for index, point in enumerate((place.at, *place.sites)):
            name = f"layout.places.{place_id}." + ("at" if index == 0 else f"sites[{index - 1}]")
            on_land = project(point) in land or (place.outline and coast.inside(point, [[list(place.outline)]]))
            if kind == "province" and not on_land:
                problems.append(f"{name}: {list(point)} is in the sea, not on the province's land")
            if kind == "sea" and on_land:
                problems.append(f"{name}: {list(point)} is on land, not in the sea")
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


def _check_links(kind: str, places: Mapping[str, Province | Sea], field: str,
                 other_kind: str, others: Mapping[str, Province | Sea], back: str) -> list[str]:
    """Each id in a place's `field` names an `other_kind` whose `back` field lists the place again."""
    problems: list[str] = []
    for place in places.values():
        here = f"{kind} {place.id}"
        listed: tuple[str, ...] = getattr(place, field)
        for other in _duplicates(listed):
            problems.append(f"{here}: {field} lists {other} twice")
        for other in listed:
            if other == place.id and others is places:
                problems.append(f"{here}: {field} lists itself")
            elif other not in others:
                problems.append(f"{here}: {field} lists {other}, which is not a {other_kind}")
            elif place.id not in getattr(others[other], back):
                problems.append(f"{here}: {field} lists {other} but {other}.{back} does not list "
                                f"{place.id}")
    return problems


def _check_coasts(board: Board, provinces: dict[str, Province], seas: dict[str, Sea]) -> list[str]:
    problems = _check_links("province", provinces, "seas", "sea", seas, "coasts")
    problems += _check_links("sea", seas, "coasts", "province", provinces, "seas")
    problems += [f"province {p.id}: touches no sea (seas) and borders no province (borders)"
                 for p in board.provinces if not p.seas and not p.borders]
    problems += [f"sea {sea.id}: coasts lists no province" for sea in board.seas if not sea.coasts]
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
    reached = Links("place", links).reach(start)
    label = {"p": "province", "s": "sea"}
    return [f"{label[node[0]]} {node[2:]}: cannot be reached from {label[start[0]]} {start[2:]} "
            "through land borders, coasts and seas" for node in links if node not in reached]


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
