"""The classic board as one SVG picture: a schematic (provinces in rows west to east), not a map."""

from __future__ import annotations

from html import escape
from typing import Any

from mncore.rulesets.classic.components import game_data
from mncore.rulesets.classic.render import view
from mncore.rulesets.classic.state import State

COLUMNS, W, H, PAD = 7, 150, 74, 8
NEUTRAL = "#bbbbbb"


def colour(civ: str) -> str:
    return next((c.colour for c in game_data().civ if c.id == civ), NEUTRAL)


def draw_svg(state: State, viewer: str | None) -> str:
    """Every province as a box coloured by its influence, with its buildings and units; then the seas.
    Drawn from the viewer's view only, so it shows nothing that view withholds."""
    doc = view(state, viewer)
    board = state.the_board()
    boxes = [_province(i, p.name, doc["provinces"].get(p.id)) for i, p in enumerate(board.province)]
    rows = (len(board.province) + COLUMNS - 1) // COLUMNS
    top = rows * (H + PAD) + 20
    seas = [_sea(i, s.name, doc["seas"].get(s.id, {}), top) for i, s in enumerate(board.sea)]
    height = top + ((len(board.sea) + COLUMNS - 1) // COLUMNS) * (H // 2 + PAD) + 10
    width = COLUMNS * (W + PAD) + PAD
    title = (f"Round {doc['round']}, {doc['phase']} phase — schematic of the reconstructed 2003 board, "
             "not a map")
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="10">'
            f'<text x="{PAD}" y="14" font-size="12">{escape(title)}</text>'
            + "".join(boxes) + "".join(seas) + "</svg>")


def _province(i: int, name: str, land: dict[str, Any] | None) -> str:
    x, y = PAD + (i % COLUMNS) * (W + PAD), 20 + (i // COLUMNS) * (H + PAD)
    land = land or {"influence": None, "buildings": [], "units": {}}
    fill = colour(land["influence"]) if land["influence"] else "#f4f1e8"
    lines = [name, ", ".join(land["buildings"])]
    lines += [f"{c}: " + " ".join(f"{v}{k[0].upper()}" for k, v in u.items()) for c, u in land["units"].items()]
    text = "".join(f'<text x="{x + 4}" y="{y + 12 + 11 * n}">{escape(t)}</text>' for n, t in enumerate(lines) if t)
    return (f'<rect x="{x}" y="{y}" width="{W}" height="{H}" rx="4" fill="{fill}" fill-opacity="0.45" '
            f'stroke="#555"/>{text}')


def _sea(i: int, name: str, here: dict[str, int], top: int) -> str:
    x, y = PAD + (i % COLUMNS) * (W + PAD), top + (i // COLUMNS) * (H // 2 + PAD)
    ships = ", ".join(f"{c} {n}T" for c, n in here.items())
    return (f'<rect x="{x}" y="{y}" width="{W}" height="{H // 2}" rx="4" fill="#cfe3f2" stroke="#557"/>'
            f'<text x="{x + 4}" y="{y + 12}">{escape(name)}</text>'
            f'<text x="{x + 4}" y="{y + 24}">{escape(ships)}</text>')


def series(state: State, viewer: str | None) -> dict[str, dict[str, float]]:
    """Heroes and wonders held, provinces under influence, and cards in hand, per civilisation."""
    doc = view(state, viewer)
    provinces = {c: float(sum(1 for p in doc["provinces"].values() if p["influence"] == c)) for c in doc["civs"]}
    return {"Heroes and wonders": {c: float(len(v["cards"])) for c, v in doc["civs"].items()},
            "Provinces": provinces,
            "Cards in hand": {c: float(v["hand_size"]) for c, v in doc["civs"].items()}}
