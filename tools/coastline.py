"""Make mncore/data/coast.json, the Mediterranean's land, from Natural Earth (run once, by hand).

    npm pack world-atlas@2.0.2 && tar xzf world-atlas-2.0.2.tgz
    python tools/coastline.py package/land-50m.json > mncore/data/coast.json

world-atlas 2.0.2 is Mike Bostock's TopoJSON of Natural Earth 4.1.0 (public domain; the package's own
code is ISC). This script decodes the topology's quantized, delta-encoded arcs, clips every land ring to
the window below, simplifies it (Douglas-Peucker), drops the smallest islets and writes the rings in
hundredths of a degree. Nothing at run time fetches anything: the engine reads the file this writes.
"""

from __future__ import annotations

import json
import sys
from typing import Any

WEST, EAST, SOUTH, NORTH = -20.0, 56.0, 10.0, 53.0  # the reference canvas and the 2003 board's, with room
TOLERANCE = 0.05  # degrees: about one pixel of the pictures
SMALLEST = 0.02  # square degrees: islets smaller than this (Malta's size) are left out

Point = tuple[float, float]


def arcs(topo: dict[str, Any]) -> list[list[Point]]:
    """Each arc in degrees: positions are deltas from the previous one, quantized by the transform."""
    (sx, sy), (tx, ty) = topo["transform"]["scale"], topo["transform"]["translate"]
    out = []
    for arc in topo["arcs"]:
        x = y = 0
        points = []
        for dx, dy in arc:
            x, y = x + dx, y + dy
            points.append((x * sx + tx, y * sy + ty))
        out.append(points)
    return out


def ring(indices: list[int], decoded: list[list[Point]]) -> list[Point]:
    """A ring from its arcs; ~i is arc i reversed; each arc's first point repeats the previous one's last."""
    points: list[Point] = []
    for i in indices:
        arc = decoded[i] if i >= 0 else decoded[~i][::-1]
        points += arc[1:] if points else arc
    return points


def clip(poly: list[Point], inside: Any, cross: Any) -> list[Point]:
    out: list[Point] = []
    for k, p in enumerate(poly):
        q = poly[(k + 1) % len(poly)]
        if inside(p):
            out.append(p)
        if inside(p) != inside(q):
            out.append(cross(p, q))
    return out


def window(poly: list[Point]) -> list[Point]:
    """Sutherland-Hodgman against the window's four sides."""
    def at_x(x: float) -> Any:
        return lambda p, q: (x, p[1] + (q[1] - p[1]) * (x - p[0]) / (q[0] - p[0]))

    def at_y(y: float) -> Any:
        return lambda p, q: (p[0] + (q[0] - p[0]) * (y - p[1]) / (q[1] - p[1]), y)

    poly = clip(poly, lambda p: p[0] >= WEST, at_x(WEST))
    poly = clip(poly, lambda p: p[0] <= EAST, at_x(EAST))
    poly = clip(poly, lambda p: p[1] >= SOUTH, at_y(SOUTH))
    return clip(poly, lambda p: p[1] <= NORTH, at_y(NORTH))


def simplify(points: list[Point], tol: float) -> list[Point]:
    """Douglas-Peucker, iteratively."""
    if len(points) < 3:
        return points
    keep = [False] * len(points)
    keep[0] = keep[-1] = True
    stack = [(0, len(points) - 1)]
    while stack:
        a, b = stack.pop()
        (ax, ay), (bx, by) = points[a], points[b]
        dx, dy = bx - ax, by - ay
        norm = (dx * dx + dy * dy) ** 0.5 or 1e-12
        best, far = -1.0, -1
        for i in range(a + 1, b):
            px, py = points[i]
            d = abs(dy * (px - ax) - dx * (py - ay)) / norm
            if d > best:
                best, far = d, i
        if best > tol:
            keep[far] = True
            stack += [(a, far), (far, b)]
    return [p for p, k in zip(points, keep) if k]


def area(poly: list[Point]) -> float:
    return abs(sum(p[0] * q[1] - q[0] * p[1] for p, q in zip(poly, poly[1:] + poly[:1]))) / 2


def main(path: str) -> None:
    topo = json.load(open(path))
    decoded = arcs(topo)
    out = []
    for geometry in topo["objects"]["land"]["geometries"]:
        polygons = geometry["arcs"] if geometry["type"] == "MultiPolygon" else [geometry["arcs"]]
        for polygon in polygons:
            rings = []
            for indices in polygon:  # the outer ring, then its holes (lakes): drawn as even-odd
                clipped = window(ring(indices, decoded))
                if len(clipped) < 3 or area(clipped) < SMALLEST:
                    if not rings:
                        break  # an outer ring left out takes its holes with it
                    continue
                # split at the start so that the simplification keeps a closed ring's two halves
                half = len(clipped) // 2
                simple = simplify(clipped[:half + 1], TOLERANCE)[:-1] + simplify(clipped[half:] + clipped[:1],
                                                                                  TOLERANCE)[:-1]
                if len(simple) >= 3:
                    rings.append([v for x, y in simple for v in (round(x * 100), round(y * 100))])
            if rings:
                out.append(rings)
    out.sort(key=lambda rings: len(rings[0]), reverse=True)
    json.dump({"source": "Natural Earth 4.1.0, 1:50m land (public domain), from the npm package "
                         "world-atlas 2.0.2 (land-50m.json)",
               "made_by": "tools/coastline.py", "window": [WEST, SOUTH, EAST, NORTH],
               "unit": "hundredths of a degree: [lon, lat, lon, lat, ...] per ring",
               "polygons": "each an outer ring, then its holes (lakes)",
               "land": out}, sys.stdout, separators=(",", ":"))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
