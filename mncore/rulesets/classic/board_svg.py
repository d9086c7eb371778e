"""The classic board as one SVG map: provinces and seas where their namesakes lie, from one side's view."""

from __future__ import annotations

import functools
import itertools
import math
import os
from collections.abc import Callable
from html import escape
from importlib import resources
from typing import Any

import msgspec

from mncore.core.cache import ObjectCache
from mncore.pictures import coast, kept_labels, labels
from mncore.rulesets.classic.components import Board, game_data
from mncore.rulesets.classic.render import view
from mncore.rulesets.classic.state import State
from mncore.secrecy.seen import Seen

NEUTRAL = "#bbbbbb"
WEST, NORTH, SCALE_X, SCALE_Y, MARGIN = -18.0, 48.5, 20.0, 27.0, 30
WIDTH, HEIGHT = 1440, 700
UNIT_LETTERS = {"legion": "L", "creature": "C", "fortress": "F", "trireme": "T"}


class Layout(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """data/layout.toml: each place's [longitude, latitude], and sites of no place that keep the areas
    near their namesakes (Germany, the deserts, the Ocean)."""

    places: dict[str, tuple[float, float]]
    land: tuple[tuple[float, float], ...] = ()
    water: tuple[tuple[float, float], ...] = ()


@functools.cache
def layout() -> Layout:
    raw = resources.files("mncore.rulesets.classic.data").joinpath("layout.toml").read_bytes()
    return msgspec.toml.decode(raw, type=Layout)


def colour(civ: str) -> str:
    return next((c.colour for c in game_data().civ if c.id == civ), NEUTRAL)


def project(at: tuple[float, float]) -> tuple[float, float]:
    lon, lat = at
    return round(MARGIN + (lon - WEST) * SCALE_X, 1), round(MARGIN + 20 + (NORTH - lat) * SCALE_Y, 1)


def point(place: str) -> tuple[float, float] | None:
    """Where place is drawn, or None when the layout does not know it (a board file's own place)."""
    at = layout().places.get(place)
    return None if at is None else project(at)


class _Areas:
    """Each province's share of the real land (Natural Earth) and each sea's of the water, nearest to
    its place; a province whose place is at sea (an islet too small for the map) a small disc there;
    each name placed by a greedy search inside its area, meeting no other name and no piece's lines."""

    def __init__(self, board: Board, fresh: bool = False) -> None:
        """`fresh`: search the names even where data/labels.json keeps them."""
        land = coast.projected(project)
        box = (0.0, 40.0, float(WIDTH), float(HEIGHT - 44))
        provinces = {p.id: p.name for p in board.province if point(p.id)}
        seas = {s.id: s.name for s in board.sea if point(s.id)}
        sites = [(pid, point(pid) or (0.0, 0.0)) for pid in provinces] + [("", project(q)) for q in layout().land]
        parts = coast.partition(land, [q for _, q in sites], box)
        self.regions = {pid: rings or [_disc(at, provinces[pid])] for (pid, at), rings in zip(sites, parts) if pid}
        self.discs = {pid for (pid, _), rings in zip(sites, parts) if pid and not rings}
        water = [(sid, point(sid) or (0.0, 0.0)) for sid in seas] + [("", project(q)) for q in layout().water]
        cells = [coast.cell(i, [q for _, q in water], box) for i in range(len(water))]
        self.regions |= {sid: [c] for (sid, _), c in zip(water, cells) if sid}
        self.sea_lines = coast.borders([q for _, q in water], [o for o, _ in water], cells)
        self.land = coast.Shape(land)
        self.land_path = coast.path(r for poly in land for r in poly)
        self.shapes = {pid: coast.Shape([rings]) for pid, rings in self.regions.items()}
        self.seas = set(seas)
        self.lines: dict[str, tuple[float, float]] = {}
        self.names = {**provinces, **seas}
        self.labels = self._labels(self.names) if fresh else self._placed()

    def _placed(self) -> dict[str, labels.Label]:
        """The names as kept for the shipped board (data/labels.json), else searched: a board file's own."""
        found = kept_labels.kept(LABELS_FILE, self.labels_key())
        if found is None:
            return self._labels(self.names)
        self.lines = {pid: (m[0], m[1]) for pid, m in found.marks.items()}
        return found.names()

    def labels_key(self) -> str:
        """All that _labels reads, as one digest (kept_labels.key_of)."""
        return kept_labels.key_of(sorted(self.regions.items()), self.land_path, sorted(self.seas),
                                  [(pid, name, point(pid)) for pid, name in self.names.items()], NAME_SIZES,
                                  ISLAND_SIZE)

    def kept(self) -> kept_labels.Placed:
        """The names and the places' lines as data/labels.json keeps them."""
        return kept_labels.Placed(labels={pid: tuple(lb) for pid, lb in self.labels.items()},  # type: ignore[misc]
                                  marks=dict(self.lines))

    def inside(self, pid: str, p: tuple[float, float]) -> bool:
        return p in self.shapes[pid] and (pid not in self.seas or p not in self.land)

    def _labels(self, names: dict[str, str]) -> dict[str, labels.Label]:
        """Each name inside its area, meeting no other name and no place's lines of pieces (under the
        place, or, where they leave its name no room, under its name or elsewhere in its area), the
        smallest areas choosing first, a sea as early as a province a tenth its area (as on the Empires
        board: a sea's long name needs open water)."""
        order = sorted(names, key=lambda pid: sum(coast.area(r) for r in self.regions[pid])
                       * (0.1 if pid in self.seas else 1))
        taken = labels.Taken()
        out: dict[str, labels.Label] = {}
        for pid in order:
            name, at = names[pid], point(pid) or (0.0, 0.0)

            def box_at(p: tuple[float, float], size: float, name: str = name) -> coast.Box:
                return labels.text_box(p[0], p[1], name, size)

            def fits(lb: labels.Label, pid: str = pid, name: str = name) -> bool:
                box = labels.turned(labels.ink_box(lb.x, lb.y, name, lb.size), (lb.x, lb.y), lb.angle)
                return all(self.inside(pid, q) for q in labels.rim(box))

            def within(p: tuple[float, float], pid: str = pid) -> bool:
                return self.inside(pid, p)

            step = labels.grid_step(sum(coast.area(r) for r in self.regions[pid]))
            room: list[tuple[float, float]] | None = None

            def quad(lb: labels.Label,
                     box_at: Callable[[tuple[float, float], float], coast.Box] = box_at) -> labels.Quad:
                return labels.turned(box_at((lb.x, lb.y), lb.size), (lb.x, lb.y), lb.angle)

            def move(name: labels.Quad, pid: str = pid, at: tuple[float, float] = at,
                     step: float = step) -> tuple[float, float] | None:
                nonlocal room
                if room is None:  # the free places in the area, nearest to its place first, found once
                    room = [p for p in _nearest(at, step)
                            if self.inside(pid, p) and not taken.hits(labels.square(_lines_box(p)))]
                under = (name[0][0] + name[2][0]) / 2, labels.bounds(name)[3] - 5
                options = ([under] if not taken.hits(labels.square(_lines_box(under))) else []) + room
                return next((p for p in options if not labels.meet(labels.square(_lines_box(p)), name)), None)

            stay = None if taken.hits(labels.square(_lines_box(at))) else [labels.square(_lines_box(at))]
            chosen = labels.choose(itertools.islice(labels.search(box_at, (at[0], at[1] + 3), within, fits, taken,
                                                                  NAME_SIZES, ISLAND_SIZE, reach=60, step=step),
                                                    1000), quad, stay, move)
            found, lines = (chosen[0], chosen[1] or at) if chosen is not None else (None, at)
            if found is None:  # a region too small for any size: the nearest free place
                found = labels.nearest_free(box_at, (at[0], at[1] + 3),
                                            labels.Taken([*taken.quads(), labels.square(_lines_box(at))]),
                                            NAME_SIZES[-1])
            out[pid], self.lines[pid] = found, lines
            taken.add(quad(found))
            taken.add(labels.square(_lines_box(lines)))
        return {pid: out[pid] for pid in names}


NAME_SIZES = (9.0, 8.0)  # a name's font sizes, the largest that fits
# the names of the shipped board, searched once (`python -m mncore.rulesets.classic.board_svg` writes it;
# tests/test_pictures.py checks it is current)
LABELS_FILE = os.path.join(os.path.dirname(__file__), "data", "labels.json")
# the smallest, for an island's name that fits no larger: about 5.8 pixels high in a mail's PNG (the
# picture is 1440 wide, the PNG 1400), as Creta's 8 on the Empires board (2006 wide)
ISLAND_SIZE = 6.0


def _lines_box(at: tuple[float, float]) -> coast.Box:
    """The room kept for a place's pieces: its lines of buildings and units under it, or its ships."""
    return (at[0] - 36, at[1] + 6, at[0] + 36, at[1] + 40)


def _nearest(at: tuple[float, float], step: float) -> list[tuple[float, float]]:
    n = int(60 // step)
    return sorted(((at[0] + dx * step, at[1] + dy * step) for dx in range(-n, n + 1) for dy in range(-n, n + 1)),
                  key=lambda p: (p[0] - at[0]) ** 2 + (p[1] - at[1]) ** 2)


_areas: ObjectCache[Board, _Areas] = ObjectCache(_Areas)


def _disc(at: tuple[float, float], name: str) -> list[tuple[float, float]]:
    """A disc around an islet's place, wide enough for its name at the smallest size."""
    r = 0.31 * ISLAND_SIZE * len(name) + 5
    return [(at[0] + r * math.cos(k * math.pi / 8), at[1] + r * math.sin(k * math.pi / 8)) for k in range(16)]


def draw_svg(seen: Seen[State]) -> str:
    """Seas, land borders and coasts, then each province coloured by its influence with its buildings
    and units. Drawn from the viewer's view only, so it shows nothing that view withholds."""
    doc = view(seen)
    board = seen.value.the_board()
    areas = _areas(board)
    title = (f"Round {doc['round']}, {doc['phase'] or 'set-up'} phase: the reconstructed 2003 board with "
             "the Mythology board (not the printed board)")
    parts = [f'<clipPath id="map-frame"><rect x="0" y="40" width="{WIDTH}" height="{HEIGHT - 84}"/></clipPath>'
             '<g clip-path="url(#map-frame)">',
             f'<rect x="0" y="40" width="{WIDTH}" height="{HEIGHT - 84}" fill="#b9d6ea"/>']
    parts += [f'<path id="sea-{s.id}" class="sea" d="{coast.path(areas.regions[s.id])}" fill="#cfe3f2"/>'
              for s in board.sea if s.id in areas.regions]
    parts.append(f'<path class="sea-border" d="{coast.path(areas.sea_lines, closed=False)}" fill="none" '
                 'stroke="#ffffff" stroke-width="1.5" stroke-dasharray="6,4"/>')
    parts.append(f'<path class="land" d="{areas.land_path}" fill="#e3dcc8" fill-rule="evenodd" stroke="#9c9277" '
                 'stroke-width="0.8"/>')
    parts += [_area(p.id, areas, doc["provinces"].get(p.id)) for p in board.province if p.id in areas.regions]
    parts.append("</g>")
    parts += [_sea(s.id, doc["seas"].get(s.id, {}), areas.lines[s.id]) for s in board.sea if point(s.id)]
    parts += [_province(p.id, doc["provinces"].get(p.id), areas.lines[p.id]) for p in board.province if point(p.id)]
    parts += _names(board, areas)
    parts += _legend(doc, board)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
            f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="DejaVu Sans, sans-serif" font-size="9">'
            f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#f7f3e8"/>'
            f'<text x="{MARGIN}" y="22" font-size="14">{escape(title)}</text>' + "".join(parts) + "</svg>")


def _area(pid: str, areas: _Areas, land: dict[str, Any] | None) -> str:
    """A province's area, tinted with the colour of whoever has influence there."""
    influence = (land or {}).get("influence")
    fill = colour(influence) if influence else "#f4efe0"
    return (f'<path id="area-{pid}" class="province" data-province="{pid}" d="{coast.path(areas.regions[pid])}" '
            f'fill="{fill}" fill-opacity="{0.55 if influence else 1}" fill-rule="evenodd" stroke="#7d7462" '
            'stroke-width="0.8"/>')


def _names(board: Board, areas: _Areas) -> list[str]:
    names = {p.id: p.name for p in board.province} | {s.id: s.name for s in board.sea}
    sea_style, land_style = 'font-style="italic" fill="#285a7a"', 'font-weight="bold"'
    return [f'<text class="label{" seaname" if pid in areas.seas else ""}" data-place="{pid}" x="{lb.x:.1f}" '
            f'y="{lb.y:.1f}" font-size="{lb.size:g}" text-anchor="middle"{lb.transform()} '
            f'{sea_style if pid in areas.seas else land_style}>'
            f'{escape(names[pid])}</text>' for pid, lb in areas.labels.items()]


def _sea(sid: str, here: dict[str, int], at: tuple[float, float]) -> str:
    x, y = at
    ships = "".join(f'<text class="trireme" x="{x}" y="{y + 16 + 10 * i}" text-anchor="middle" '
                    f'fill="{colour(c)}" font-weight="bold">{escape(_name(c))} {n}T</text>'
                    for i, (c, n) in enumerate(here.items()))
    return f'<g id="ships-{sid}" class="ships">{ships}</g>'


def _province(pid: str, land: dict[str, Any] | None, at: tuple[float, float]) -> str:
    x, y = at
    land = land or {"influence": None, "buildings": [], "units": {}, "occupier": None, "converter": None}
    lines = [" ".join(b.split(":")[0][0].upper() + (b.split(":")[1][:3] if ":" in b else "")
                      for b in land["buildings"])]
    lines += [f"{_name(c)[:3]} " + "".join(f"{v}{UNIT_LETTERS[k]}" for k, v in u.items())
              for c, u in land["units"].items()]
    lines += [f"{how} {_name(land[how])}" for how in ("occupier", "converter") if land.get(how)]
    text = "".join(f'<text x="{x}" y="{y + 16 + 9 * i}" text-anchor="middle">{escape(t)}</text>'
                   for i, t in enumerate(t for t in lines if t))
    return f'<g id="province-{pid}">{text}</g>'


def _legend(doc: dict[str, Any], board: Board) -> list[str]:
    """Who plays which colour, what the letters mean, and the places the layout cannot place."""
    keys = [*doc["civs"], *doc["neutrals"]]
    out = [f'<rect x="{MARGIN + 130 * i}" y="{HEIGHT - 34}" width="10" height="10" fill="{colour(c)}"/>'
           f'<text x="{MARGIN + 14 + 130 * i}" y="{HEIGHT - 25}">{escape(_name(c))}'
           f'{" (neutral)" if c in doc["neutrals"] else ""}</text>' for i, c in enumerate(keys)]
    out.append(f'<text x="{MARGIN}" y="{HEIGHT - 10}">Buildings: C city, T temple, M market, Cwin caravan on wine; '
               "units: L legion, C creature, F fortress, T trireme</text>")
    unplaced = [p.name for p in board.province if point(p.id) is None]
    unplaced += [s.name for s in board.sea if point(s.id) is None]
    if unplaced:
        out.append(f'<text x="{WIDTH // 2}" y="{HEIGHT - 10}">Not on this map (a board file\'s own places): '
                   f'{escape(", ".join(unplaced))}</text>')
    return out


def _name(civ: str) -> str:
    return next((c.name for c in game_data().civ if c.id == civ), civ)


def series(seen: Seen[State]) -> dict[str, dict[str, float]]:
    """Heroes and wonders held, provinces under influence, and cards in hand, per civilisation."""
    doc = view(seen)
    provinces = {c: float(sum(1 for p in doc["provinces"].values() if p["influence"] == c)) for c in doc["civs"]}
    return {"Heroes and wonders": {c: float(len(v["cards"])) for c, v in doc["civs"].items()},
            "Provinces": provinces,
            "Cards in hand": {c: float(v["hand_size"]) for c, v in doc["civs"].items()}}


if __name__ == "__main__":
    from mncore.rulesets.classic.components import load_board

    areas = _Areas(load_board(), fresh=True)
    kept_labels.write(LABELS_FILE, {areas.labels_key(): areas.kept()})
    print(f"wrote {LABELS_FILE}")
