"""The Mediterranean's real land (Natural Earth, data/coast.json) and the areas pictures cut from it."""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import msgspec

Point = tuple[float, float]
Ring = list[Point]
Polygon = list[Ring]  # an outer ring, then its holes: drawn and tested even-odd
Box = tuple[float, float, float, float]  # x0, y0, x1, y1


@functools.cache
def land_lonlat() -> tuple[tuple[tuple[Point, ...], ...], ...]:
    """Every land polygon of the window, in degrees (data/coast.json, made by tools/coastline.py)."""
    # read by path, not importlib.resources: that import (with pathlib) would cost every command's start
    with open(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "coast.json"),
              "rb") as f:
        raw: Any = msgspec.json.decode(f.read())
    return tuple(tuple(tuple((ring[k] / 100, ring[k + 1] / 100) for k in range(0, len(ring), 2))
                       for ring in polygon) for polygon in raw["land"])


def projected(project: Callable[[Point], Point]) -> list[Polygon]:
    """The land polygons on a canvas."""
    return [[[project(p) for p in ring] for ring in polygon] for polygon in land_lonlat()]


class Shape:
    """Polygons for many point tests. The canvas is cut into square cells: a cell no edge crosses is
    wholly in or out, so one exact test answers for all its points; an exact test casts its ray only
    across the edges of its row of cells. Answers as `inside` does."""

    def __init__(self, polygons: Iterable[Polygon | Sequence[Ring]], cell: float = 4.0) -> None:
        self.cell = cell
        self.edges: set[tuple[int, int]] = set()
        self.rows: dict[int, list[tuple[int, float, float, float, float]]] = {}
        for n, polygon in enumerate(polygons):
            for ring in polygon:
                for k, (ax, ay) in enumerate(ring):
                    self._mark(n, ring[k - 1], (ax, ay))
        self.known: dict[tuple[int, int], bool] = {}

    def _mark(self, n: int, a: Point, b: Point) -> None:
        """Every cell the edge from a to b may touch (cut into pieces no longer than a cell), and the
        edge in each row of cells it spans."""
        c = self.cell
        for ky in range(math.floor(min(a[1], b[1]) / c), math.floor(max(a[1], b[1]) / c) + 1):
            self.rows.setdefault(ky, []).append((n, *a, *b))
        pieces = max(1, math.ceil(math.hypot(b[0] - a[0], b[1] - a[1]) / c))
        for i in range(pieces):
            x0, y0 = a[0] + (b[0] - a[0]) * i / pieces, a[1] + (b[1] - a[1]) * i / pieces
            x1, y1 = a[0] + (b[0] - a[0]) * (i + 1) / pieces, a[1] + (b[1] - a[1]) * (i + 1) / pieces
            for kx in range(math.floor(min(x0, x1) / c), math.floor(max(x0, x1) / c) + 1):
                for ky in range(math.floor(min(y0, y1) / c), math.floor(max(y0, y1) / c) + 1):
                    self.edges.add((kx, ky))

    def __contains__(self, p: Point) -> bool:
        key = (math.floor(p[0] / self.cell), math.floor(p[1] / self.cell))
        if key in self.edges:
            return self._exact(p)
        known = self.known.get(key)
        if known is None:
            known = self.known[key] = self._exact(p)
        return known

    def _exact(self, p: Point) -> bool:
        """Even-odd in any one polygon, the ray cast towards +x (as `inside`)."""
        x, y = p
        odd: set[int] = set()
        for n, bx, by, ax, ay in self.rows.get(math.floor(y / self.cell), ()):
            if (ay > y) != (by > y) and x < ax + (y - ay) * (bx - ax) / (by - ay):
                odd ^= {n}
        return bool(odd)


def bounds(rings: Iterable[Ring]) -> Box:
    points = [q for ring in rings for q in ring] or [(0.0, 0.0)]
    xs, ys = [q[0] for q in points], [q[1] for q in points]
    return (min(xs), min(ys), max(xs), max(ys))


def inside(p: Point, polygons: Iterable[Polygon | Sequence[Ring]]) -> bool:
    """Whether p is inside the union, each polygon read even-odd (a lake is no land)."""
    x, y = p
    for polygon in polygons:
        odd = False
        for ring in polygon:
            for k, (ax, ay) in enumerate(ring):
                bx, by = ring[k - 1]
                if (ay > y) != (by > y) and x < ax + (y - ay) * (bx - ax) / (by - ay):
                    odd = not odd
        if odd:
            return True
    return False


def cell(i: int, sites: Sequence[Point], box: Box) -> Ring:
    """The part of box nearer to site i than to any other (clipped half-plane by half-plane)."""
    x0, y0, x1, y1 = box
    poly: Ring = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
    xi, yi = sites[i]
    for j, (xj, yj) in enumerate(sites):
        if j != i and (xj, yj) != (xi, yi):
            # keep the points p with (sj - si) . p <= (|sj|^2 - |si|^2) / 2
            poly = half_plane(poly, xj - xi, yj - yi, (xj * xj + yj * yj - xi * xi - yi * yi) / 2)
    return poly


def half_plane(poly: Ring, a: float, b: float, c: float) -> Ring:
    """The part of poly where a*x + b*y <= c (Sutherland-Hodgman: poly may be concave)."""
    out: Ring = []
    for k, p in enumerate(poly):
        q = poly[(k + 1) % len(poly)]
        fp, fq = a * p[0] + b * p[1] - c, a * q[0] + b * q[1] - c
        if fp <= 0:
            out.append(p)
        if (fp < 0 < fq) or (fq < 0 < fp):
            t = fp / (fp - fq)
            out.append((p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])))
    return out


def clip(ring: Ring, convex: Ring) -> Ring:
    """The part of ring inside a convex polygon (its edges in either order)."""
    n = len(convex)
    if n < 3:
        return []
    # orientation: the sign that says "inside" for each edge
    turn = sum(convex[k][0] * convex[(k + 1) % n][1] - convex[(k + 1) % n][0] * convex[k][1] for k in range(n))
    sign = 1.0 if turn > 0 else -1.0
    out = ring
    for k in range(n):
        (ax, ay), (bx, by) = convex[k], convex[(k + 1) % n]
        # inside: sign * cross(b - a, p - a) >= 0, i.e. a'x + b'y <= c'
        a, b = sign * (by - ay), -sign * (bx - ax)
        out = half_plane(out, a, b, a * ax + b * ay)
        if not out:
            break
    return out


def area(ring: Ring) -> float:
    return abs(sum(p[0] * q[1] - q[0] * p[1] for p, q in zip(ring, ring[1:] + ring[:1]))) / 2


def path(rings: Iterable[Ring], closed: bool = True) -> str:
    """An SVG path of rings, to be filled even-odd (or of open lines)."""
    end = "Z" if closed else ""
    return "".join("M" + "L".join(f"{x:.0f},{y:.0f}" for x, y in ring) + end for ring in rings
                   if len(ring) >= (3 if closed else 2))


def borders(sites: Sequence[Point], owners: Sequence[str], cells: Sequence[Ring]) -> list[Ring]:
    """The edges between Voronoi cells of different owners (each once): the lines between seas."""
    return [line for line, _ in borders_with(sites, owners, cells)]


def borders_with(sites: Sequence[Point], owners: Sequence[str],
                 cells: Sequence[Ring]) -> list[tuple[Ring, tuple[str, str]]]:
    """The edges between Voronoi cells of different owners, each once, with the two owners."""
    out: list[tuple[Ring, tuple[str, str]]] = []
    for i, ring in enumerate(cells):
        (xi, yi) = sites[i]
        for j in range(i + 1, len(sites)):
            if owners[i] == owners[j]:
                continue
            xj, yj = sites[j]
            a, b = xj - xi, yj - yi
            c = (xj * xj + yj * yj - xi * xi - yi * yi) / 2
            norm = math.hypot(a, b) or 1.0
            on = [p for p in ring if abs(a * p[0] + b * p[1] - c) / norm < 0.01]  # on the bisector
            if len(on) >= 2:
                out.append(([min(on), max(on)], (owners[i], owners[j])))
    return out


def partition(land: list[Polygon], sites: Sequence[Point], box: Box) -> list[list[Ring]]:
    """Each site's part of the land: every polygon holding sites shared among those sites alone (a strait
    is no border), as the rings of an even-odd path; polygons holding no site belong to none."""
    out: list[list[Ring]] = [[] for _ in sites]
    for polygon in land:
        mine = [i for i, s in enumerate(sites) if inside(s, [polygon])]
        local = [sites[i] for i in mine]
        for k, i in enumerate(mine):
            convex = cell(k, local, box)
            out[i] += [r for r in (clip(ring, convex) for ring in polygon) if len(r) >= 3 and area(r) > 0.5]
    return out
