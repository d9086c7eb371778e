"""The board as one SVG picture, drawn from a viewer's view only (mn draw, mn html)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from html import escape
from typing import Any, NamedTuple

from mncore.core.cache import ObjectCache
from mncore.core.errors import InvalidCommand
from mncore.pictures import coast, kept_labels, labels
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.board import Board, Layout, layout_of
from mncore.rulesets.empires.boardtypes import Point
from mncore.rulesets.empires.display_names import tile_name, title
from mncore.rulesets.empires.game_data import data_path
from mncore.rulesets.empires.geo import drawn_layout, land_of
from mncore.rulesets.empires.ids import TRACKS
from mncore.rulesets.empires.render import view
from mncore.rulesets.empires.state import GameState
from mncore.secrecy.seen import Seen

# Okabe & Ito's palette, safe for the common colour-blindnesses; every mark carries the empire's letter
# as well, so that no fact is told by colour alone. (colour, light tint for areas, text on the colour)
PALETTE: dict[str, tuple[str, str, str]] = {
    "rome": ("#D55E00", "#F4C7A6", "#ffffff"),
    "greece": ("#0072B2", "#A9CFE6", "#ffffff"),
    "babylon": ("#CC79A7", "#EBCBDD", "#000000"),
    "egypt": ("#E69F00", "#F6DB9E", "#000000"),
    "carthage": ("#009E73", "#A3DCCB", "#ffffff"),
    "atlantis": ("#56B4E9", "#C4E4F6", "#000000"),  # the Atlas expansion's sixth empire
    "barbarians": ("#000000", "#999999", "#ffffff"),  # the Punic War's third power (atlas.barbarians)
}
LETTER = {"rome": "R", "greece": "G", "babylon": "B", "egypt": "E", "carthage": "C", "atlantis": "A",
          "barbarians": "X"}
# a caravan space shows its commodity; the other spaces their kind
CODE = {"ceramic": "Ce", "gems": "Ge", "papyrus": "Pa", "metal": "Me", "spices": "Sp", "stone": "St",
        "wood": "Wo", "gold": "Go", "grain": "Gr", "oil": "Oi", "sheep": "Sh", "wine": "Wi",
        "gladiator": "Gl", "market": "M", "temple": "T", "city": "C", "capital": "K", "legendary": "L"}
PANEL = 400  # the width of the side panel: empires, leader tracks, tiles
SEA, WATER, LAND, COVERED = "#CFE3F0", "#B9D6EA", "#EFE6CF", "#BDBDBD"
LAND_FAR = "#E3DCC8"  # land that is no province: Hispania, the deserts


def draw_svg(seen: Seen[GameState]) -> str:
    """The board at this state as the boundary lets its reader see it: drawn from its view and the public board."""
    return picture(view(seen), seen.value.geo_board)


def draw_changes(seen: Seen[GameState], events: Sequence[Seen[Any]]) -> str:
    """The board as seen, marked with what the events did, each event as the same reader may see it."""
    return picture(view(seen), seen.value.geo_board, changed(events))


class Changed:
    """What a run of events did, by kind: moves, battles, builds, losses and conquests."""

    def __init__(self) -> None:
        self.count = 0
        self.moves: dict[tuple[str, str, str, str, bool], int] = {}  # (kind, empire, from, to, by sea) -> n
        self.battles: dict[str, str] = {}  # place -> "land" or "sea"
        self.builds: list[tuple[str, str, str, str]] = []  # place, empire, code, what
        self.losses: list[tuple[str, str, str, str]] = []
        self.conquests: list[tuple[str, str, str]] = []  # province, empire, previous

    def places(self) -> dict[str, list[str]]:
        """Each place's marks in order: battle, conquests, builds, losses."""
        out: dict[str, list[str]] = {}
        for place, kind in self.battles.items():
            out.setdefault(place, []).append(_battle(place, kind))
        for place, emp, prev in self.conquests:
            out.setdefault(place, []).append(_mark("conquest", place, emp, "⚑",
                                                   f"{title(emp)} took control" + (f" from {title(prev)}" if prev else "")))
        for place, emp, code, what in self.builds:
            out.setdefault(place, []).append(_mark("build", place, emp, "+" + code, f"{title(emp)} built {what}"))
        for place, emp, code, what in self.losses:
            out.setdefault(place, []).append(_mark("loss", place, emp, "−" + code, f"{title(emp)} lost {what}"))
        return out


def changed(events: Sequence[Seen[Any]]) -> Changed:
    """What the events did, read from each as its reader may see it (a withheld field reads empty)."""
    ch = Changed()
    for seen in events:
        e = seen.value
        ch.count += 1
        if isinstance(e, ev.LegionsMoved):
            key = ("legion", e.empire, e.from_province, e.to_province, e.by_sea)
            ch.moves[key] = ch.moves.get(key, 0) + e.count
        elif isinstance(e, ev.TriremesMoved):
            key = ("trireme", e.empire, e.from_sea, e.to_sea, False)
            ch.moves[key] = ch.moves.get(key, 0) + e.count
        elif isinstance(e, ev.BattleFought):
            ch.battles[e.place] = e.kind
        elif isinstance(e, ev.UnitBuilt):
            code = {"legion": "L", "trireme": "T", "fortress": "F"}.get(e.kind, e.kind[:1].upper())
            ch.builds.append((e.place, e.empire, f"{e.count if e.count > 1 else ''}{code}",
                              f"{e.count} {e.kind}{'s' * (e.count > 1)}" if e.count > 1 else f"a {e.kind}"))
        elif isinstance(e, ev.BuildingBuilt):
            ch.builds.append((e.province, e.empire, CODE.get(e.kind, e.kind[:1].upper()), f"a {e.kind}"))
        elif isinstance(e, ev.ControlBuilt):
            ch.conquests.append((e.province, e.empire, ""))
        elif isinstance(e, ev.ControlConverted) and e.replaced:
            ch.conquests.append((e.province, e.empire, e.previous))
        elif isinstance(e, ev.UnitsLost):
            parts = [(e.legions, "L", "legion"), (e.triremes, "T", "trireme"), (int(e.fortress), "F", "fortress")]
            for n, code, kind in parts:
                if n:
                    ch.losses.append((e.place, e.empire, f"{n if n > 1 else ''}{code}",
                                      f"{n} {kind}{'s' * (n > 1)}"))
        elif isinstance(e, ev.Pillaged):
            ch.losses.append((e.province, "", CODE.get(e.kind, e.kind[:1].upper()),
                              f"a {e.kind}, pillaged by {title(e.empire)}"))
    return ch


def picture(doc: dict[str, Any], board: Board, changes: Changed | None = None) -> str:
    """The SVG of a view document on its board; reads nothing else, so it shows only what the view does."""
    if layout_of(board) is None:
        raise InvalidCommand(f"board {board.id} has no layout to draw it with: add a [layout] table to "
                             "its board file (docs/board.md)")
    areas = _areas(board)
    layout = areas.layout
    panel, panel_end = _panel(doc, layout.width, changes)
    width, height = layout.width + PANEL, max(layout.height, panel_end)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:g} {height:g}" '
           f'width="{width:g}" height="{height:g}" font-family="DejaVu Sans, Verdana, sans-serif" '
           f'data-game="{_e(doc["game"])}" data-viewer="{_e(doc["viewer"] or "")}" '
           f'data-round="{doc["round"]}" data-phase="{_e(doc["phase"])}">',
           "<style>text{pointer-events:none}.name{font-weight:bold;fill:#2b2b2b}"
           ".seaname{font-style:italic;fill:#285a7a}.code{font-size:7px;font-weight:bold}"
           ".count{font-size:9px;font-weight:bold}.panel{font-size:12px}.small{font-size:10px}</style>",
           f'<rect x="0" y="0" width="{layout.width:g}" height="{layout.height:g}" fill="{WATER}"/>']
    covered = _covered(board, len(doc["empires"]))
    out += areas.static_back
    for pid, path in areas.provinces.items():
        p = doc["provinces"].get(pid) or {}
        owner = p.get("controller")
        fill = COVERED if pid in covered else (PALETTE[owner][1] if owner else LAND)
        out.append(f'<path id="province-{pid}" class="province{" covered" if pid in covered else ""}" '
                   f'data-province="{pid}" data-controller="{owner or ""}" d="{path}" fill="{fill}" '
                   f'fill-rule="evenodd" stroke="{"none" if areas.borders else "#7d7462"}" stroke-width="1"/>')
    out += areas.static_front_under + areas.static_front
    barbarians = _barbarian_places(doc.get("barbarians"))
    for pid in areas.provinces:
        out += _province_marks(pid, _with_barbarians(doc["provinces"].get(pid) or {}, barbarians.get(pid)),
                               board, layout, areas, pid in covered)
    for sid in areas.seas:
        sea = doc["seas"].get(sid) or {}
        if sid in barbarians:
            sea = {**sea, "triremes": {**sea.get("triremes", {}), "barbarians": barbarians[sid]["legions"]}}
        out += _sea_marks(sid, sea, areas.icons[sid])
    if changes is not None:
        out += _changes(changes, areas, board)
    out += panel
    out.append("</svg>")
    return "\n".join(out) + "\n"


# --- areas: each place's region, its name's place, computed once per board -------------------------

NAME_SIZES, BADGE = (11.0, 9.5, 8.5), 14.0  # a name's font sizes, the largest that fits; its badge's room
# a sea chooses its name's place as early as a province a tenth its area: its long name needs open water,
# which the icons of the provinces on its coasts would otherwise take first (Mare Hadriaticum)
SEA_FIRST = 0.1
ISLAND_SIZE = 8.0  # the smallest, for a name that fits no larger (Creta): still legible in a mail's PNG
# the names of the shipped boards, searched once (`python -m mncore.rulesets.empires.board_svg` writes it;
# tests/test_pictures.py checks it is current): the search costs about 1.5 s of CPU per board
LABELS_FILE = data_path("labels.json")


class _Areas:
    """The region of every place (its share of the real land or water, its given outline, or its
    Voronoi cell on a schematic layout), where each name goes, and the lines that never change."""

    def __init__(self, board: Board, fresh: bool = False) -> None:
        """`fresh`: search the names even where data/labels.json keeps them."""
        raw = layout_of(board)
        assert raw is not None
        layout = self.layout = drawn_layout(board, raw)
        land = land_of(layout)
        box = (0.0, 0.0, layout.width, layout.height)
        provinces = [p.id for p in board.provinces]
        seas = [s.id for s in board.seas]
        self.regions: dict[str, list[coast.Ring]] = {}
        if land:
            free = [pid for pid in provinces if not layout.places[pid].outline]
            parts = coast.partition(land, [layout.places[pid].at for pid in free] + list(layout.land), box)
            self.regions |= dict(zip(free, parts))
            self.regions |= {pid: [list(layout.places[pid].outline)] for pid in provinces if pid not in free}
            owners = [sid for sid in seas for _ in (0, *layout.places[sid].sites)]
            water = [q for sid in seas for q in (layout.places[sid].at, *layout.places[sid].sites)]
            owners += [""] * len(layout.water)
            water += list(layout.water)
            cells = [coast.cell(i, water, box) for i in range(len(water))]
            self.regions |= {sid: [c for c, o in zip(cells, owners) if o == sid] for sid in seas}
            self.sea_lines = coast.borders(water, owners, cells)
            self.land = land + [[list(layout.places[pid].outline)] for pid in provinces if pid not in free]
            self.borders, self.shared = _land_borders(land, [(pid, layout.places[pid].at) for pid in free]
                                                      + [("", q) for q in layout.land], box)
        else:
            sites = [layout.places[pid].at for pid in (*provinces, *seas)] + list(layout.water) + list(layout.land)
            cells = [coast.cell(i, sites, box) for i in range(len(sites))]
            self.regions = {pid: [list(layout.places[pid].outline) or c]
                            for pid, c in zip((*provinces, *seas), cells)}
            self.land = [[c] for c in cells[len(provinces) + len(seas) + len(layout.water):]]
            self.sea_lines = []
            self.borders, self.shared = [], []
        self._shapes = {pid: coast.Shape([rings]) for pid, rings in self.regions.items()}
        self._land = coast.Shape(self.land)
        self.provinces = {pid: coast.path(self.regions[pid]) for pid in provinces}
        self.seas = {sid: coast.path(self.regions[sid]) for sid in seas}
        stroke = "none" if land else "#ffffff"  # on the real coast, only the lines between seas
        self.static_back = [f'<path id="sea-{sid}" class="sea" data-sea="{sid}" d="{path}" fill="{SEA}" '
                            f'stroke="{stroke}" stroke-width="1.5" stroke-dasharray="6,4"/>'
                            for sid, path in self.seas.items()]
        self.static_back += [f'<path class="sea-border" d="{coast.path(self.sea_lines, closed=False)}" fill="none" '
                             'stroke="#ffffff" stroke-width="1.5" stroke-dasharray="6,4"/>'] if self.sea_lines else []
        self.static_back.append(f'<path class="land" d="{coast.path(r for poly in self.land for r in poly)}" '
                                f'fill="{LAND_FAR}" fill-rule="evenodd" stroke="#9c9277" stroke-width="0.8"/>')
        self.static_front_under = []
        if self.borders:  # the borders between provinces, kept on the land they divide
            self.static_front_under = [
                f'<clipPath id="shared-land"><path d="{coast.path(r for poly in self.shared for r in poly)}" '
                'clip-rule="evenodd"/></clipPath>',
                f'<path class="borders" d="{coast.path(self.borders, closed=False)}" fill="none" stroke="#7d7462" '
                'stroke-width="1" clip-path="url(#shared-land)"/>',
                f'<path class="coast" d="{coast.path(r for poly in self.land for r in poly)}" fill="none" '
                'stroke="#7d7462" stroke-width="0.9"/>']
        self.icons: dict[str, Icons] = {}
        self.labels = self._labels(board) if fresh else self._placed(board)
        names = {p.id: p.name for p in board.provinces} | {s.id: s.name for s in board.seas}
        self.static_front = [f'<text class="{"seaname" if pid in self.seas else "name"} label" '
                             f'data-place="{pid}" x="{lb.x:.1f}" y="{lb.y:.1f}" font-size="{lb.size:g}" '
                             f'text-anchor="middle"{lb.transform()}>{_e(names[pid])}</text>'
                             for pid, lb in self.labels.items()]

    def inside(self, pid: str, p: Point) -> bool:
        """Whether p lies in the place's region (a sea's water only, not the land drawn over it)."""
        if p not in self._shapes[pid]:
            return False
        return pid in self.provinces or p not in self._land

    def _placed(self, board: Board) -> dict[str, labels.Label]:
        """The names as kept for a shipped board (data/labels.json), else searched: a user's own board."""
        found = kept_labels.kept(LABELS_FILE, self.labels_key(board))
        if found is None:
            return self._labels(board)
        self.icons = {pid: Icons((m[0], m[1]), (m[2], m[3])) for pid, m in found.marks.items()}
        return found.names()

    def labels_key(self, board: Board) -> str:
        """All that _labels reads, as one digest (kept_labels.key_of)."""
        places = self.layout.places
        return kept_labels.key_of(
            sorted(self.regions.items()), self.land, sorted(self.provinces), sorted(self.seas),
            [(p.id, p.name, len(p.spaces), places[p.id].at, places[p.id].label) for p in board.provinces],
            [(s.id, s.name, places[s.id].at, places[s.id].label) for s in board.seas],
            NAME_SIZES, BADGE, SEA_FIRST, ISLAND_SIZE)

    def kept(self) -> kept_labels.Placed:
        """The names and icons as data/labels.json keeps them."""
        return kept_labels.Placed(labels={pid: tuple(lb) for pid, lb in self.labels.items()},  # type: ignore[misc]
                                  marks={pid: (*i.units, *i.spaces) for pid, i in self.icons.items()})

    def _labels(self, board: Board) -> dict[str, labels.Label]:
        """Each name inside its region, meeting no other name and no place's icons, the smallest regions
        choosing first. The icons stand at their place's `at`, the name near them; where they leave the
        name no room, or meet what a smaller region placed, they make room around the name: the units'
        row just above it, the spaces (and the marks of what changed) just below."""
        layout = self.layout
        names = {p.id: p.name for p in board.provinces} | {s.id: s.name for s in board.seas}
        spaces = {p.id: len(p.spaces) for p in board.provinces}
        order = sorted(names, key=lambda pid: sum(coast.area(r) for r in self.regions[pid])
                       * (SEA_FIRST if pid in self.seas else 1))
        taken = labels.Taken()
        out: dict[str, labels.Label] = {}
        for pid in order:
            place, name = layout.places[pid], names[pid]
            badge = BADGE if pid in self.provinces else 0.0

            def box_at(p: Point, size: float, name: str = name, badge: float = badge) -> coast.Box:
                x0, y0, x1, y1 = labels.text_box(p[0], p[1], name, size)
                return (x0 - badge, y0 - 1, x1 + 1, y1 + 1)

            def fits(lb: labels.Label, pid: str = pid, name: str = name) -> bool:
                # the name inside; its badge may overhang the coast
                box = labels.turned(labels.ink_box(lb.x, lb.y, name, lb.size), (lb.x, lb.y), lb.angle)
                return all(self.inside(pid, q) for q in labels.rim(box))

            def within(p: Point, pid: str = pid) -> bool:
                return self.inside(pid, p)

            def quad(lb: labels.Label, box_at: Callable[[Point, float], coast.Box] = box_at) -> labels.Quad:
                return labels.turned(box_at((lb.x, lb.y), lb.size), (lb.x, lb.y), lb.angle)

            start = place.label or (place.at[0], place.at[1] - 18)
            step = labels.grid_step(sum(coast.area(r) for r in self.regions[pid]))

            def candidates(taken: labels.Taken, box_at: Callable[[Point, float], coast.Box] = box_at,
                           start: Point = start, within: Callable[[Point], bool] = within,
                           fits: Callable[[labels.Label], bool] = fits, step: float = step) -> Iterator[labels.Label]:
                return labels.search(box_at, start, within, fits, taken, NAME_SIZES, ISLAND_SIZE, step=step)

            icons = Icons(place.at, place.at)
            boxes = [labels.square(b) for b in icon_boxes(icons, spaces.get(pid))]
            room: list[tuple[Icons, list[labels.Quad]]] | None = None

            def move(name: labels.Quad, pid: str = pid, at: Point = place.at,
                     step: float = step) -> tuple[Icons, list[labels.Quad]] | None:
                nonlocal room
                if room is None:  # the free places in the region, nearest to `at` first, found once
                    near = (Icons(p, p) for p in _nearest(at, step) if self.inside(pid, p))
                    room = [(i, bs) for i in near
                            for bs in [[labels.square(b) for b in icon_boxes(i, spaces.get(pid))]]
                            if not any(taken.hits(b) for b in bs)]
                return _room(room, name, taken, spaces.get(pid))

            stay = None if any(taken.hits(b) for b in boxes) else boxes
            chosen = labels.choose(itertools.islice(candidates(taken), 1000), quad, stay, move)
            found = None
            if chosen is not None:
                found = chosen[0]
                if chosen[1] is not None:
                    icons, boxes = chosen[1]
            if found is None:  # a board file's region too small for any size: the nearest free place
                icons = Icons(place.at, place.at)
                boxes = [labels.square(b) for b in icon_boxes(icons, spaces.get(pid))]
                found = labels.nearest_free(box_at, start, labels.Taken([*taken.quads(), *boxes]), NAME_SIZES[-1])
            out[pid], self.icons[pid] = found, icons
            for q in (quad(found), *boxes):
                taken.add(q)
        return {pid: out[pid] for pid in names}


class Icons(NamedTuple):
    """Where a place's icons stand: its units' row centred on `units`, its row of building spaces (and
    under it the marks of what changed) below `spaces`; both its `at` unless its name needs the room."""

    units: Point
    spaces: Point


def _nearest(at: Point, step: float) -> list[Point]:
    """The points of a grid within 60 pixels of at, nearest first."""
    n = int(60 // step)
    return sorted(((at[0] + dx * step, at[1] + dy * step) for dx in range(-n, n + 1) for dy in range(-n, n + 1)),
                  key=lambda p: (p[0] - at[0]) ** 2 + (p[1] - at[1]) ** 2)


def _room(room: list[tuple[Icons, list[labels.Quad]]], name: labels.Quad, taken: labels.Taken,
          spaces: int | None) -> tuple[Icons, list[labels.Quad]] | None:
    """Where a place's icons go when its name stands at `name`: around it, else the first of room (the
    free places in its region, nearest to its `at` first) that leaves the name free; None if none."""
    around = _around(labels.bounds(name))
    boxes = [labels.square(b) for b in icon_boxes(around, spaces)]
    if not any(taken.hits(b) for b in boxes):
        return around, boxes
    return next(((icons, boxes) for icons, boxes in room if not any(labels.meet(b, name) for b in boxes)), None)


def _around(box: coast.Box) -> Icons:
    """Icons that leave a name's box free: the units' row just above it, the spaces just below."""
    x = (box[0] + box[2]) / 2
    return Icons((x, box[1] - 10), (x, box[3] - 7))


def _land_borders(land: list[coast.Polygon], sites: list[tuple[str, Point]],
                  box: coast.Box) -> tuple[list[coast.Ring], list[coast.Polygon]]:
    """The lines between neighbouring provinces' cells (and a province's and land of none) on each land
    polygon that several sites share, and those polygons (the lines are drawn clipped to them)."""
    lines: list[coast.Ring] = []
    shared: list[coast.Polygon] = []
    for polygon in land:
        mine = [(o, q) for o, q in sites if coast.inside(q, [polygon])]
        if len(mine) < 2:
            continue
        shared.append(polygon)
        points = [q for _, q in mine]
        owners = [o for o, _ in mine]
        cells = [coast.cell(i, points, box) for i in range(len(points))]
        lines += coast.borders(points, owners, cells)  # two cells of no province are one land: no line
    return lines, shared


def icon_boxes(icons: Icons, spaces: int | None) -> list[coast.Box]:
    """Where a place's icons go, kept free of names: its units' row (room for three stacks) and, in a
    province, its row of building spaces, then the row of the marks of what changed."""
    x, y = icons.units
    out = [(x - 40, y - 13, x + 40, y + 9)]
    sx, sy = icons.spaces
    if spaces:
        out.append((sx - 9 * spaces, sy + 8, sx + 9 * spaces, sy + 25))
    below = change_row(icons, spaces)  # the marks of what changed, when a picture shows them
    out.append((sx - 40, below - 1, sx + 40, below + 14))
    return out


def change_row(icons: Icons, spaces: int | None) -> float:
    """The top of the row of a place's marks of what changed: under its units, or its spaces."""
    if spaces:
        return icons.spaces[1] + 27
    return max(icons.units[1] + 11, icons.spaces[1] + 11)


_areas: ObjectCache[Board, _Areas] = ObjectCache(_Areas)


def shipped_names() -> dict[str, kept_labels.Placed]:
    """The names of the reference board and of every set-up's board, searched afresh, by their key."""
    from mncore.rulesets.empires import atlas
    from mncore.rulesets.empires.board import load_board

    out = {}
    for name in atlas.names():
        board = atlas.board_for(name, load_board())
        areas = _Areas(board, fresh=True)
        out[areas.labels_key(board)] = areas.kept()
    return out



def _covered(board: Board, players: int) -> set[str]:
    regions = set(board.covered.get(str(players), ()))
    return {p.id for p in board.provinces if p.region in regions}


def _barbarian_places(b: dict[str, Any] | None) -> dict[str, dict[str, int]]:
    """The Punic War's Barbarians by place: legions (triremes at sea) and whether a fortress stands there."""
    if not b:
        return {}
    out: dict[str, dict[str, int]] = {}
    for place, n in (*b["legions"].items(), *b["triremes"].items()):
        out.setdefault(place, {"legions": 0, "fortress": 0})["legions"] = n
    for place in b["fortresses"]:
        out.setdefault(place, {"legions": 0, "fortress": 0})["fortress"] = 1
    return out


def _with_barbarians(p: dict[str, Any], here: dict[str, int] | None) -> dict[str, Any]:
    """A province's view with the Barbarians' units drawn as one more side's (marked X)."""
    if not here:
        return p
    legions = {**p.get("legions", {}), **({"barbarians": here["legions"]} if here["legions"] else {})}
    return {**p, "legions": legions, "barbarian_fortress": bool(here["fortress"])}


# --- what stands in a province and on a sea ---------------------------------------------------------

def _province_marks(pid: str, p: dict[str, Any], board: Board, layout: Layout, areas: _Areas,
                    covered: bool) -> list[str]:
    place, icons, label = layout.places[pid], areas.icons[pid], areas.labels[pid]
    x, y = icons.units
    province = next(q for q in board.provinces if q.id == pid)
    out: list[str] = []
    if covered:
        out.append(f'<text class="small" x="{x:g}" y="{y + 2:g}" text-anchor="middle" fill="#555">covered'
                   "</text>")
        return out
    owner = p.get("controller")
    if owner:  # the controller's letter by the name (turned with it): colour is never the only sign
        left = labels.text_box(label.x, label.y, province.name, label.size)[0]
        out.append(f'<g class="control" data-province="{pid}" data-empire="{owner}"{label.transform()}>'
                   f'{_badge(left - BADGE, label.y - 10, owner, LETTER[owner])}</g>')
    built = {b["space"]: b for b in p.get("buildings", ())}
    spaces = province.spaces
    sx, sy = icons.spaces
    for i, space in enumerate(spaces):
        bx, by = place.spaces.get(space.id) or (sx + (i - (len(spaces) - 1) / 2) * 16, sy + 16)
        b = built.get(space.id)
        out.append(_space(pid, space.id, space.kind, space.commodity, b, bx, by))
    units: list[str] = []
    if p.get("fortress"):
        units.append(_fortress(pid, p["fortress"]))
    if p.get("barbarian_fortress"):
        units.append(_fortress(pid, "barbarians"))
    units += [_stack("legion", "province", pid, emp, n) for emp, n in p.get("legions", {}).items()]
    if p.get("marker_occupied_by"):
        occ = p["marker_occupied_by"]
        units.append(f'<g class="marker-occupation" data-province="{pid}" data-empire="{occ}">'
                     f'<title>control marker occupied by {title(occ)}</title>'
                     f'{_badge(0, 0, occ, "⊘" + LETTER[occ])}</g>')
    if p.get("at_war"):
        units.append(f'<g class="at-war" data-province="{pid}"><title>at war</title>'
                     '<circle cx="6" cy="6" r="7" fill="#fff" stroke="#000"/>'
                     '<text x="6" y="10" text-anchor="middle" font-size="11">⚔</text></g>')
    out += _row(units, x, y - 6)
    return out


def _sea_marks(sid: str, s: dict[str, Any], icons: Icons) -> list[str]:
    x, y = icons.units
    return _row([_stack("trireme", "sea", sid, emp, n) for emp, n in s.get("triremes", {}).items()], x, y)


def _row(items: list[str], x: float, y: float) -> list[str]:
    """Groups of about 24 px wide, centred on x, each translated into place."""
    start = x - 13 * len(items)
    return [f'<g transform="translate({start + 26 * i:g},{y:g})">{item}</g>' for i, item in enumerate(items)]


def _stack(kind: str, where: str, place: str, emp: str, n: int) -> str:
    """n units of one empire as a stack of counters, one element each, the top one with letter and count."""
    colour, _, ink = PALETTE[emp]
    shape = ('<rect class="{k}" data-{w}="{p}" data-empire="{e}" x="{o}" y="{o}" width="20" height="13" '
             'rx="6" fill="{c}" stroke="#000" stroke-width="0.7"/>' if kind == "legion" else
             '<path class="{k}" data-{w}="{p}" data-empire="{e}" d="M{o},{o}h22l-4,9h-14z" fill="{c}" '
             'stroke="#000" stroke-width="0.7"/>')
    counters = "".join(shape.format(k=kind, w=where, p=place, e=emp, o=-1.5 * k, c=colour)
                       for k in reversed(range(n)))
    return (f'<g class="{kind}s" data-{where}="{place}" data-empire="{emp}" data-count="{n}">'
            f'<title>{n} {title(emp)} {kind}{"s" if n > 1 else ""}</title>{counters}'
            f'<text class="count" x="10.5" y="9.5" text-anchor="middle" fill="{ink}">{LETTER[emp]}{n}</text></g>')


def _fortress(pid: str, emp: str) -> str:
    colour, _, ink = PALETTE[emp]
    return (f'<g class="fortress-mark"><title>{title(emp)} fortress</title>'
            f'<path class="fortress" data-province="{pid}" data-empire="{emp}" '
            'd="M0,14V2h4v3h3V2h4v3h3V2h4v12z" fill="' + colour + '" stroke="#000" stroke-width="0.7"/>'
            f'<text class="code" x="9" y="12.5" text-anchor="middle" fill="{ink}">{LETTER[emp]}</text></g>')


def _space(pid: str, sid: str, kind: str, commodity: str | None, b: dict[str, Any] | None,
           x: float, y: float) -> str:
    code = CODE[commodity or kind]
    holder = b["holder"] if b else None
    fill, ink = (PALETTE[holder][0], PALETTE[holder][2]) if holder else ("#ffffff", "#444")
    shape = {"caravan": f'<rect x="{x - 7:g}" y="{y - 6:g}" width="14" height="12" rx="2"',
             "market": f'<rect x="{x - 7:g}" y="{y - 6:g}" width="14" height="12"',
             "temple": f'<path d="M{x - 7:g},{y + 6:g}h14v-8l-7,-5l-7,5z"',
             }.get(kind, f'<circle cx="{x:g}" cy="{y:g}" r="{7.5 if kind != "city" else 6.5}"')
    what = f"{kind} ({commodity})" if commodity else kind
    tip = f"{what}: " + (f"{title(holder)}" if holder else "empty")
    attrs = f'data-province="{pid}" data-space="{sid}" data-kind="{kind}"'
    if b:
        attrs += f' data-holder="{holder or ""}"'
    occ = b.get("occupied_by") if b else None
    mark = ""
    if occ:
        tip += f", occupied by {title(occ)}"
        mark = (f'<g class="occupation" data-province="{pid}" data-space="{sid}" data-empire="{occ}">'
                f'<circle cx="{x + 6:g}" cy="{y - 6:g}" r="4.5" fill="{PALETTE[occ][0]}" stroke="#000" '
                f'stroke-width="0.7"/><text class="code" x="{x + 6:g}" y="{y - 3.5:g}" text-anchor="middle" '
                f'fill="{PALETTE[occ][2]}">{LETTER[occ]}</text></g>')
    return (f'<g class="{"building" if b else "space"}" id="space-{pid}-{sid}" {attrs}><title>{_e(tip)}</title>'
            f'{shape} fill="{fill}" stroke="#333" stroke-width="0.8"/>'
            f'<text class="code" x="{x:g}" y="{y + 2.5:g}" text-anchor="middle" fill="{ink}">{code}</text>'
            f'{mark}</g>')


def _summary(ch: Changed) -> str:
    counts = [(sum(1 for _ in ch.moves), "move"), (len(ch.battles), "battle"), (len(ch.builds), "build"),
              (len(ch.conquests), "conquest"), (len(ch.losses), "loss")]
    said = ", ".join(f"{n} {w}{'es' if w == 'loss' and n != 1 else 's' * (n != 1)}" for n, w in counts if n)
    return f"Marked: what the last {ch.count} event{'s' * (ch.count != 1)} did: {said or 'nothing on the board'}"


def _changes(ch: Changed, areas: _Areas, board: Board) -> list[str]:
    """Moves as arrows between the places' units, the other marks in a row under each place's icons."""
    out = ['<g id="changes" class="changes">']
    for (kind, emp, a, b, by_sea), n in ch.moves.items():
        if a in areas.icons and b in areas.icons:
            out.append(_arrow(kind, emp, a, b, n, by_sea, areas.icons[a].units, areas.icons[b].units))
    spaces = {p.id: len(p.spaces) for p in board.provinces}
    for place, marks in ch.places().items():
        if place in areas.icons:
            x = areas.icons[place].spaces[0]
            y = change_row(areas.icons[place], spaces.get(place))
            out += [f'<g transform="translate({x - 13 * len(marks) + 26 * i:g},{y:g})">{m}</g>'
                    for i, m in enumerate(marks)]
    out.append("</g>")
    return out


def _arrow(kind: str, emp: str, a: str, b: str, n: int, by_sea: bool, start: Point, end: Point) -> str:
    """A curved arrow from a to b in the empire's colour, dashed by sea, with the empire's letter and count."""
    (x1, y1), (x2, y2) = start, end
    dx, dy = x2 - x1, y2 - y1
    length = max((dx * dx + dy * dy) ** 0.5, 1.0)
    ux, uy = dx / length, dy / length
    x1, y1, x2, y2 = x1 + ux * 12, y1 + uy * 12, x2 - ux * 14, y2 - uy * 14
    cx, cy = (x1 + x2) / 2 - uy * length * 0.15, (y1 + y2) / 2 + ux * length * 0.15  # bent to its left
    hx, hy = x2 - cx, y2 - cy
    hl = max((hx * hx + hy * hy) ** 0.5, 1.0)
    hx, hy = hx / hl, hy / hl
    head = (f"M{x2 + hx * 4:.1f},{y2 + hy * 4:.1f}L{x2 - hx * 8 - hy * 6:.1f},{y2 - hy * 8 + hx * 6:.1f}"
            f"L{x2 - hx * 8 + hy * 6:.1f},{y2 - hy * 8 - hx * 6:.1f}Z")
    colour = PALETTE[emp][0]
    mx, my = (x1 + 2 * cx + x2) / 4, (y1 + 2 * cy + y2) / 4
    what = f"{n} {title(emp)} {kind}{'s' * (n > 1)} moved from {title(a)} to {title(b)}" + (" by sea" if by_sea else "")
    dash = ' stroke-dasharray="7,4"' if by_sea else ""
    return (f'<g class="move" data-kind="{kind}" data-empire="{emp}" data-from="{a}" data-to="{b}" data-count="{n}">'
            f'<title>{_e(what)}</title><path d="M{x1:.1f},{y1:.1f}Q{cx:.1f},{cy:.1f} {x2:.1f},{y2:.1f}" '
            f'fill="none" stroke="#000" stroke-width="4.5" stroke-opacity="0.35"'
            f'{dash}/>'
            f'<path d="M{x1:.1f},{y1:.1f}Q{cx:.1f},{cy:.1f} {x2:.1f},{y2:.1f}" fill="none" stroke="{colour}" '
            f'stroke-width="2.5"{dash}/>'
            f'<path d="{head}" fill="{colour}" stroke="#000" stroke-width="0.6"/>'
            f'{_badge(mx - 9, my - 6, emp, f"{LETTER[emp]}{n}")}</g>')


def _battle(place: str, kind: str) -> str:
    return (f'<g class="battle" data-place="{place}" data-kind="{kind}"><title>a battle was fought here</title>'
            '<circle cx="10" cy="6" r="8.5" fill="#fff" stroke="#B00020" stroke-width="2"/>'
            '<text x="10" y="10.5" text-anchor="middle" font-size="12">⚔</text></g>')


def _mark(cls: str, place: str, emp: str, text: str, what: str) -> str:
    """A change's badge: the empire's colour (white for nobody's) with a sign and a letter."""
    colour, ink = (PALETTE[emp][0], PALETTE[emp][2]) if emp else ("#ffffff", "#000000")
    stroke = "#B00020" if cls == "loss" else "#000"
    w = 6 + 6.5 * len(text)
    return (f'<g class="{cls}" data-place="{place}" data-empire="{emp}"><title>{_e(what)}</title>'
            f'<rect x="0" y="0" width="{w:g}" height="13" rx="6" fill="{colour}" stroke="{stroke}" '
            f'stroke-width="{1.6 if cls == "loss" else 0.7}"/><text class="count" x="{w / 2:g}" y="10" '
            f'text-anchor="middle" fill="{ink}">{_e(text)}</text></g>')


def _legend_space(kind: str, x: float, y: float) -> str:
    return _space("legend", kind, kind, "metal" if kind == "caravan" else None, None, x, y).replace(
        'class="space"', 'class="legend-space"')


def _legend_unit(kind: str) -> str:
    shape = ('<rect x="0" y="0" width="20" height="13" rx="6"' if kind == "legion" else
             '<path d="M0,0h22l-4,9h-14z"')
    return (f'{shape} fill="#ddd" stroke="#000" stroke-width="0.7"/>'
            '<text class="count" x="10.5" y="9.5" text-anchor="middle">R2</text>')


def _badge(x: float, y: float, emp: str, text: str) -> str:
    colour, _, ink = PALETTE[emp]
    w = 6 + 6 * len(text)
    return (f'<rect x="{x:g}" y="{y:g}" width="{w}" height="12" rx="3" fill="{colour}" stroke="#000" '
            f'stroke-width="0.6"/><text class="count" x="{x + w / 2:g}" y="{y + 9.5:g}" text-anchor="middle" '
            f'fill="{ink}">{_e(text)}</text>')


# --- the side panel: who plays, leader tracks with titles, resources, the tile display ------------

def _panel(doc: dict[str, Any], x0: float, changes: Changed | None = None) -> tuple[list[str], float]:
    """The panel's lines and where they end (the picture is at least as tall)."""
    x, y = x0 + 14, 24
    who = f"as {title(doc['viewer'])} sees it" if doc["viewer"] else "host view: everything"
    out = [f'<rect x="{x0:g}" y="0" width="{PANEL}" height="100%" fill="#fbf8f0" stroke="#ccc"/>',
           f'<text class="panel" x="{x:g}" y="{y}" font-weight="bold">Game {_e(doc["game"])} — round '
           f'{doc["round"]}, {_e(doc["phase"])}</text>',
           f'<text class="small" x="{x:g}" y="{y + 15}">{_e(who)}</text>']
    y += 22
    if changes is not None:
        y += 15
        out.append(f'<text class="small changed-summary" x="{x:g}" y="{y}">{_e(_summary(changes))}</text>')
    if doc["winner"]:
        names = " and ".join(title(e) for e in doc["winner"]["empires"])
        y += 15
        out.append(f'<text class="panel" x="{x:g}" y="{y}" font-weight="bold">Won by {_e(names)} '
                   f'({_e(doc["winner"]["condition"])})</text>')
    for emp, e in doc["empires"].items():
        y += 20
        out.append(f'<g class="empire" data-empire="{emp}" transform="translate({x:g},{y - 10})">'
                   f'{_badge(0, 0, emp, LETTER[emp])}</g>')
        tiles = ", ".join(tile_name(t) for t in e["tiles"])
        out.append(f'<text class="panel" x="{x + 20:g}" y="{y}">{title(emp)} ({_e(e["player"])})'
                   f'<tspan class="small" dx="6">{_e(tiles)}</tspan></text>')
        res = e.get("resources")
        if res is not None:  # only the viewer's own (or the host's view) has them
            shown = ", ".join(f"{n} {title(k)}" for k, n in res.items()) or "nothing"
            out.append(f'<text class="small resources" id="resources-{emp}" data-empire="{emp}" '
                       f'x="{x + 20:g}" y="{y + 13}">{_e(shown)}</text>')
        else:
            out.append(f'<text class="small resource-count" data-empire="{emp}" x="{x + 20:g}" '
                       f'y="{y + 13}">{e["resource_count"]} resources behind the screen</text>')
        y += 13
    for track in TRACKS:
        y += 26
        holder = doc["titles"].get(track)
        head = f"{title(track)} — title: " + (f"{title(holder)} ({LETTER[holder]})" if holder else "none")
        out.append(f'<text class="panel" x="{x:g}" y="{y}" font-weight="bold">{_e(head)}</text>')
        for emp, e in doc["empires"].items():
            y += 15
            level = e["tracks"][track]
            crown = " ★ title" if holder == emp else ""
            out.append(f'<g class="track" data-track="{track}" data-empire="{emp}" data-level="{level}">'
                       f'<rect x="{x:g}" y="{y - 10}" width="{max(level, 0) * 12}" height="12" '
                       f'fill="{PALETTE[emp][0]}"/><text class="small" x="{x + max(level, 0) * 12 + 4:g}" '
                       f'y="{y}">{LETTER[emp]} {level}{crown}</text></g>')
    y += 26
    out.append(f'<text class="panel" x="{x:g}" y="{y}" font-weight="bold">Heroes &amp; Wonders display</text>')
    rows = (len(doc["display"]) + 1) // 2
    for i, d in enumerate(doc["display"]):
        tx, ty = x + (PANEL // 2 - 10) * (i // rows), y + 15 * (i % rows + 1)
        if d["face_up"]:
            text = tile_name(d["tile"])
        else:  # a face-down tile is named only in the host's picture
            text = "face down" + (f" ({tile_name(d['tile'])})" if d["tile"] else "")
        out.append(f'<text class="small tile" data-face-up="{str(d["face_up"]).lower()}" data-index="{i}" '
                   f'x="{tx:g}" y="{ty}">{i + 1}. {_e(text)}</text>')
    y += 15 * rows + 24
    legend, end = _legend(list(doc["empires"]) + (["barbarians"] if doc.get("barbarians") else []), x, y)
    return out + legend, end


COMMODITY_CODES = [f"{code} {name}" for name, code in CODE.items() if len(code) == 2]


def _legend(empires: list[str], x: float, y: float) -> tuple[list[str], float]:
    """What every mark means, each shown as the map draws it: letters, shapes, then colours."""
    out = [f'<g id="legend" class="legend"><text class="panel" x="{x:g}" y="{y}" font-weight="bold">Legend</text>']
    rows: list[tuple[str, str]] = [
        (_legend_space("caravan", x + 8, y), "caravan space (its commodity: Me metal…); white: empty"),
        (_legend_space("market", x + 8, y), "market space"),
        (_legend_space("temple", x + 8, y), "temple space"),
        (_legend_space("city", x + 8, y), "city space (K capital, L legendary city)"),
        (f'<g transform="translate({x + 1:g},{y - 8})">{_legend_unit("legion")}</g>',
         "legions: the empire's letter and how many (R2: 2 of Rome)"),
        (f'<g transform="translate({x:g},{y - 8})">{_legend_unit("trireme")}</g>', "triremes, likewise"),
        (f'<g transform="translate({x - 1:g},{y - 10})"><path d="M0,14V2h4v3h3V2h4v3h3V2h4v12z" fill="#ddd" '
         'stroke="#000" stroke-width="0.7"/></g>', "fortress, with its empire's letter"),
        (f'<g transform="translate({x:g},{y - 10})"><rect width="12" height="12" rx="3" fill="#ddd" '
         'stroke="#000" stroke-width="0.6"/></g>', "by a name: who controls the province (and its tint)"),
        (f'<text x="{x + 8:g}" y="{y + 2}" text-anchor="middle" font-size="11">⚔</text>', "armies at war there"),
        (f'<rect x="{x:g}" y="{y - 9}" width="16" height="11" fill="{COVERED}"/>', "covered: not in play"),
        (f'<path d="M{x:g},{y - 3}h16" stroke="#555" stroke-width="2.5"/><path d="M{x + 20:g},{y - 3}l-7,-5v10z" '
         'fill="#555"/>', "changed since: a move (dashed: by sea), letter and count"),
        (f'<g transform="translate({x - 2:g},{y - 9})">{_battle("", "land")}</g>'.replace('class="battle"', 'class="legend-mark"'),
         "changed since: a battle"),
        (f'<g transform="translate({x - 2:g},{y - 9})">{_mark("", "", "", "+L", "")}</g>'.replace('class=""', 'class="legend-mark"'),
         "changed since: built (L legion, T trireme, F fortress, M…)"),
        (f'<g transform="translate({x - 2:g},{y - 9})">{_mark("loss", "", "", "−L", "")}</g>'.replace('class="loss"', 'class="legend-mark"'),
         "changed since: lost (or pillaged)"),
        (f'<g transform="translate({x - 2:g},{y - 9})">{_mark("", "", "", "⚑", "")}</g>'.replace('class=""', 'class="legend-mark"'),
         "changed since: control taken"),
    ]
    for i, (mark, text) in enumerate(rows):
        out.append(f'<g transform="translate(0,{17 * (i + 1)})">{mark}</g>')
        out.append(f'<text class="small" x="{x + 26:g}" y="{y + 17 * (i + 1) + 3}">{_e(text)}</text>')
    y += 17 * len(rows) + 18
    out.append(f'<text class="small" x="{x:g}" y="{y}">{_e(", ".join(COMMODITY_CODES[:7]))},</text>')
    out.append(f'<text class="small" x="{x:g}" y="{y + 13}">{_e(", ".join(COMMODITY_CODES[7:]))}</text>')
    y += 30
    for i, emp in enumerate(empires):
        ex = x + 96 * (i % 4)
        ey = y + 17 * (i // 4)
        out.append(f'<g transform="translate({ex:g},{ey - 10})">{_badge(0, 0, emp, LETTER[emp])}</g>'
                   f'<text class="small" x="{ex + 16:g}" y="{ey}">{_e(title(emp))}</text>')
    y += 17 * ((len(empires) + 3) // 4)
    out.append("</g>")
    return out, y + 6


def _e(text: str) -> str:
    return escape(str(text), quote=True)


if __name__ == "__main__":
    kept_labels.write(LABELS_FILE, shipped_names())
    print(f"wrote {LABELS_FILE}")
