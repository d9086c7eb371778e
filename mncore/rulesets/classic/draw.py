"""The classic board as one SVG map: provinces and seas where their namesakes lie, from one side's view."""

from __future__ import annotations

import functools
from html import escape
from importlib import resources
from typing import Any

import msgspec

from mncore.seen import Seen
from mncore.rulesets.classic.components import Board, game_data
from mncore.rulesets.classic.render import view
from mncore.rulesets.classic.state import State

NEUTRAL = "#bbbbbb"
WEST, NORTH, SCALE_X, SCALE_Y, MARGIN = -18.0, 48.5, 20.0, 27.0, 30
WIDTH, HEIGHT = 1440, 700
PROVINCE_R, SEA_R = 18, 36
UNIT_LETTERS = {"legion": "L", "creature": "C", "fortress": "F", "trireme": "T"}


class Layout(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """data/layout.toml: each place's [longitude, latitude]."""

    places: dict[str, tuple[float, float]]


@functools.cache
def layout() -> Layout:
    raw = resources.files("mncore.rulesets.classic.data").joinpath("layout.toml").read_bytes()
    return msgspec.toml.decode(raw, type=Layout)


def colour(civ: str) -> str:
    return next((c.colour for c in game_data().civ if c.id == civ), NEUTRAL)


def point(place: str) -> tuple[float, float] | None:
    """Where place is drawn, or None when the layout does not know it (a board file's own place)."""
    at = layout().places.get(place)
    if at is None:
        return None
    lon, lat = at
    return round(MARGIN + (lon - WEST) * SCALE_X, 1), round(MARGIN + 20 + (NORTH - lat) * SCALE_Y, 1)


def draw_svg(seen: Seen[State]) -> str:
    """Seas, land borders and coasts, then each province coloured by its influence with its buildings
    and units. Drawn from the viewer's view only, so it shows nothing that view withholds."""
    doc = view(seen)
    board = seen.value.the_board()
    title = (f"Round {doc['round']}, {doc['phase'] or 'set-up'} phase: the reconstructed 2003 board with "
             "the Mythology board (not the printed board)")
    parts = [f'<text x="{MARGIN}" y="22" font-size="14">{escape(title)}</text>', *_links(board)]
    parts += [_sea(s.id, s.name, doc["seas"].get(s.id, {})) for s in board.sea if point(s.id)]
    parts += [_province(p.id, p.name, doc["provinces"].get(p.id)) for p in board.province if point(p.id)]
    parts += _legend(doc, board)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
            f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="9">'
            f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#f7f3e8"/>' + "".join(parts) + "</svg>")


def _links(board: Board) -> list[str]:
    """Land borders (solid), coasts (dotted) and sea links (dashed), each drawn once."""
    out: list[str] = []
    seen: set[tuple[str, str]] = set()
    for p in board.province:
        for other, style in [*((x, 'stroke="#8a7a5a" stroke-width="1.5"') for x in p.land),
                             *((s, 'stroke="#6f9fc8" stroke-dasharray="1 3"') for s in p.seas)]:
            out += _line(p.id, other, style, seen)
    for s in board.sea:
        out += [x for other in s.adjacent
                for x in _line(s.id, other, 'stroke="#6f9fc8" stroke-width="2" stroke-dasharray="6 4"', seen)]
    return out


def _line(a: str, b: str, style: str, seen: set[tuple[str, str]]) -> list[str]:
    key = (min(a, b), max(a, b))
    start, end = point(a), point(b)
    if key in seen or start is None or end is None:
        return []
    seen.add(key)
    return [f'<line class="link" x1="{start[0]}" y1="{start[1]}" x2="{end[0]}" y2="{end[1]}" {style}/>']


def _sea(sid: str, name: str, here: dict[str, int]) -> str:
    x, y = point(sid) or (0.0, 0.0)
    ships = "".join(f'<text class="trireme" x="{x}" y="{y + 12 + 10 * i}" text-anchor="middle" '
                    f'fill="{colour(c)}">{escape(_name(c))} {n}T</text>' for i, (c, n) in enumerate(here.items()))
    return (f'<g id="sea-{sid}"><circle cx="{x}" cy="{y}" r="{SEA_R}" fill="#cfe3f2" fill-opacity="0.8" '
            f'stroke="#6f9fc8"/><text x="{x}" y="{y}" text-anchor="middle" font-style="italic">'
            f'{escape(name)}</text>{ships}</g>')


def _province(pid: str, name: str, land: dict[str, Any] | None) -> str:
    x, y = point(pid) or (0.0, 0.0)
    land = land or {"influence": None, "buildings": [], "units": {}, "occupier": None, "converter": None}
    fill = colour(land["influence"]) if land["influence"] else "#ffffff"
    lines = [" ".join(b.split(":")[0][0].upper() + (b.split(":")[1][:3] if ":" in b else "")
                      for b in land["buildings"])]
    lines += [f"{_name(c)[:3]} " + "".join(f"{v}{UNIT_LETTERS[k]}" for k, v in u.items())
              for c, u in land["units"].items()]
    lines += [f"{how} {_name(land[how])}" for how in ("occupier", "converter") if land.get(how)]
    text = "".join(f'<text x="{x}" y="{y + PROVINCE_R + 10 + 9 * i}" text-anchor="middle">{escape(t)}</text>'
                   for i, t in enumerate(lines) if t)
    return (f'<g id="province-{pid}"><circle cx="{x}" cy="{y}" r="{PROVINCE_R}" fill="{fill}" '
            f'fill-opacity="0.6" stroke="#333"/><text x="{x}" y="{y + 3}" text-anchor="middle" '
            f'font-weight="bold">{escape(name)}</text>{text}</g>')


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
