"""Where names go on a picture: a name's box, turned along its region when it does not fit level, and the search."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import NamedTuple, TypeVar

Point = tuple[float, float]
Box = tuple[float, float, float, float]  # x0, y0, x1, y1
Quad = tuple[Point, Point, Point, Point]  # a box's corners, clockwise on the canvas, maybe turned
T = TypeVar("T")

# Angles tried when a level name does not fit, smallest first: a name along a boot, a gulf or a narrow
# island (clockwise in degrees, as SVG's rotate), steep ones last (Sardinia stands upright)
TURNS = (10.0, -10.0, 20.0, -20.0, 35.0, -35.0, 50.0, -50.0, -65.0, 65.0, -80.0, 80.0)
DESCENDERS = frozenset("gjpqy,;")


class Label(NamedTuple):
    """A name's place: its baseline centre, font size, and the angle it is turned by about that centre."""

    x: float
    y: float
    size: float
    angle: float = 0.0

    def transform(self) -> str:
        """The SVG attribute that turns it, or nothing for a level name."""
        return f' transform="rotate({self.angle:g} {self.x:.1f} {self.y:.1f})"' if self.angle else ""


def text_box(x: float, y: float, text: str, size: float) -> Box:
    """The box a centred line of text takes, level: about 0.62 em a character in DejaVu Sans, baseline at y."""
    width = 0.62 * size * len(text)
    return (x - width / 2, y - 0.8 * size, x + width / 2, y + 0.25 * size)


def ink_box(x: float, y: float, text: str, size: float) -> Box:
    """The part of a name's box its letters cover: capitals and ascenders reach 0.76 em above the
    baseline (DejaVu Sans), and only g, j, p, q, y go below it. This box must lie inside the region."""
    x0, _, x1, _ = text_box(x, y, text, size)
    return (x0, y - 0.76 * size, x1, y + (0.24 if DESCENDERS & set(text) else 0.02) * size)


def square(box: Box) -> Quad:
    x0, y0, x1, y1 = box
    return ((x0, y0), (x1, y0), (x1, y1), (x0, y1))


def turned(box: Box, about: Point, angle: float) -> Quad:
    """The box's corners turned by angle degrees clockwise about a point."""
    if not angle:
        return square(box)
    c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    ox, oy = about

    def turn(p: Point) -> Point:
        dx, dy = p[0] - ox, p[1] - oy
        return (ox + c * dx - s * dy, oy + s * dx + c * dy)

    a, b, d, e = square(box)
    return (turn(a), turn(b), turn(d), turn(e))


def bounds(q: Quad) -> Box:
    xs, ys = [p[0] for p in q], [p[1] for p in q]
    return (min(xs), min(ys), max(xs), max(ys))


def meet(a: Quad, b: Quad) -> bool:
    """Whether two (turned) boxes overlap with some area: separating axes, two edges' normals of each
    (a box's opposite edges are parallel); touching edges do not meet."""
    for q in (a, b):
        for k in (0, 1):
            (x0, y0), (x1, y1) = q[k], q[k + 1]
            nx, ny = y0 - y1, x1 - x0
            pa = (nx * a[0][0] + ny * a[0][1], nx * a[1][0] + ny * a[1][1], nx * a[2][0] + ny * a[2][1],
                  nx * a[3][0] + ny * a[3][1])
            pb = (nx * b[0][0] + ny * b[0][1], nx * b[1][0] + ny * b[1][1], nx * b[2][0] + ny * b[2][1],
                  nx * b[3][0] + ny * b[3][1])
            if max(pa) <= min(pb) + 1e-9 or max(pb) <= min(pa) + 1e-9:
                return False
    return True


def rim(q: Quad, step: float = 3.0) -> Iterator[Point]:
    """Its corners, then points every `step` along a quad's four edges: a box is inside a region when
    they all are (a coast that bites deeper between two of them is finer than the map)."""
    yield from q
    for k in range(4):
        (x0, y0), (x1, y1) = q[k], q[(k + 1) % 4]
        n = max(1, math.ceil(math.hypot(x1 - x0, y1 - y0) / step))
        for i in range(1, n):
            yield (x0 + (x1 - x0) * i / n, y0 + (y1 - y0) * i / n)


class Taken:
    """The quads already given to names and icons, filed by the squares of a coarse grid they touch."""

    CELL = 64.0

    def __init__(self, quads: Sequence[Quad] = ()) -> None:
        self.items: list[tuple[Box, Quad]] = []
        self.cells: dict[tuple[int, int], list[int]] = {}
        for q in quads:
            self.add(q)

    def _keys(self, b: Box) -> list[tuple[int, int]]:
        c = self.CELL
        return [(kx, ky) for kx in range(math.floor(b[0] / c), math.floor(b[2] / c) + 1)
                for ky in range(math.floor(b[1] / c), math.floor(b[3] / c) + 1)]

    def add(self, q: Quad) -> None:
        b = bounds(q)
        for key in self._keys(b):
            self.cells.setdefault(key, []).append(len(self.items))
        self.items.append((b, q))

    def quads(self) -> list[Quad]:
        return [q for _, q in self.items]

    def hits(self, q: Quad) -> bool:
        x0, y0, x1, y1 = bounds(q)
        level = is_level(q)
        seen: set[int] = set()
        for key in self._keys((x0, y0, x1, y1)):
            for i in self.cells.get(key, ()):
                if i in seen:
                    continue
                seen.add(i)
                b, t = self.items[i]
                if b[0] < x1 and x0 < b[2] and b[1] < y1 and y0 < b[3] and (level and is_level(t) or meet(q, t)):
                    return True
        return False


def is_level(q: Quad) -> bool:
    """Whether a quad is an upright box (its bounds then are the quad itself)."""
    return q[0][1] == q[1][1] and q[1][0] == q[2][0]


def search(box_at: Callable[[Point, float], Box], start: Point, within: Callable[[Point], bool],
           fits: Callable[[Label], bool], taken: Taken, sizes: Sequence[float], smallest: float | None = None,
           reach: float = 90, step: float = 5) -> Iterator[Label]:
    """Every place for a name that fits (inside its region) and meets nothing taken, best first: level
    at each size, largest first, then turned at each, then at the smallest size, level or turned (an
    island's name alone); at each, the points of a grid nearest to start first. A name's centre is
    always inside its region."""
    sx, sy = start
    n = int(reach // step)
    points = sorted(((sx + dx * step, sy + dy * step) for dx in range(-n, n + 1) for dy in range(-n, n + 1)),
                    key=lambda p: ((p[0] - sx) / 1.6) ** 2 + (p[1] - sy) ** 2)
    points = [p for p in points if within(p)]
    tries: list[tuple[float, tuple[float, ...]]] = [(size, (0.0,)) for size in sizes]
    tries += [(size, TURNS) for size in sizes]
    tries += [(smallest, (0.0, *TURNS))] if smallest else []
    for size, angles in tries:
        for angle in angles:
            for p in points:
                label = Label(p[0], p[1], size, angle)
                if not taken.hits(turned(box_at(p, size), p, angle)) and fits(label):
                    yield label


def choose(candidates: Iterable[Label], quad: Callable[[Label], Quad], stay: Sequence[Quad] | None,
           make_room: Callable[[Quad], T | None], patience: int = 200) -> tuple[Label, T | None] | None:
    """A name's place and, if they must move, where its place's icons go: the first candidate that
    leaves the icons where they stand (`stay`: their boxes there, None if those meet something taken),
    else the first for which `make_room` finds them room, unless one of the next `patience` candidates
    leaves them standing. None if no candidate will do."""
    moved: tuple[Label, T | None] | None = None
    for label in candidates:
        q = quad(label)
        if stay is not None and not any(meet(q, b) for b in stay):
            return label, None
        if moved is None:
            room = make_room(q)
            if room is not None:
                moved = (label, room)
        else:
            patience -= 1
            if patience <= 0:
                break
    return moved


def grid_step(area: float) -> float:
    """The grid a name's search tries in a region of this area (square pixels): a few hundred points,
    between 1 and 5 pixels apart (a narrow island is missed by a coarse grid)."""
    return max(1.0, min(5.0, round(math.sqrt(area) / 20)))


def nearest_free(box_at: Callable[[Point, float], Box], start: Point, taken: Taken, size: float,
                 reach: float = 90, step: float = 5) -> Label:
    """Where a name goes that fits nowhere in its region (a board file's own region too small for any
    of its sizes): the nearest level place that meets nothing, however far below."""
    sx, sy = start
    n = int(reach // step)
    for p in sorted(((sx + dx * step, sy + dy * step) for dx in range(-n, n + 1) for dy in range(-n, n + 1)),
                    key=lambda p: ((p[0] - sx) / 1.6) ** 2 + (p[1] - sy) ** 2):
        if not taken.hits(square(box_at(p, size))):
            return Label(p[0], p[1], size)
    bottom = max(b[3] for b, _ in taken.items)
    return Label(sx, sy + bottom - box_at(start, size)[1] + 2, size)
