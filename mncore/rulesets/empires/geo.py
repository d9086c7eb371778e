"""Which geometry a board is drawn with, and a projected layout in the canvas's own pixels."""

from __future__ import annotations

import functools

import msgspec

from mncore.core.cache import ObjectCache
from mncore.pictures import coast
from mncore.rulesets.empires.boardtypes import Board, Layout, PlaceLayout
from mncore.rulesets.empires.game_data import data_bytes


@functools.cache
def geography() -> Layout:
    """The shipped boards on the real Mediterranean (data/geography.toml)."""
    data = data_bytes("geography.toml")
    return msgspec.toml.decode(data, type=Layout)


@functools.cache
def _shipped() -> tuple[Layout, ...]:
    """The layouts the shipped boards carry: the reference one, and it joined to each extension's."""
    from mncore.rulesets.empires.atlas import extension_board, load_setups
    from mncore.rulesets.empires.board import reference_layout
    ref = reference_layout()
    out = [ref]
    for ext in load_setups().extensions.values():
        theirs = extension_board(ext.file).layout
        if isinstance(theirs, Layout):  # as atlas.join draws the joined board
            out.append(msgspec.structs.replace(ref, places={**ref.places, **theirs.places},
                                               water=(*ref.water, *theirs.water), land=(*ref.land, *theirs.land)))
    return tuple(out)


def drawn_layout(board: Board, layout: Layout) -> Layout:
    """The layout to draw board with: the shipped geography for a shipped board's layout (the recorded
    games keep the layout they embedded), else its own; projected onto its canvas."""
    if layout.projection is None and any(layout == s for s in _shipped()):
        layout = _restricted(board)
    return on_canvas(layout)


@functools.cache
def _restricted_by_ids(ids: frozenset[str]) -> Layout:
    """The geography with the places a board lacks turned into sites of no place (land or water)."""
    geo = geography()
    project = geo.projection.point if geo.projection else (lambda p: p)
    land = coast.projected(project)
    kept = {pid: p for pid, p in geo.places.items() if pid in ids}
    gone = [p for pid, p in geo.places.items() if pid not in ids and not p.outline]
    return msgspec.structs.replace(
        geo, places=kept,
        land=(*geo.land, *(p.at for p in gone if coast.inside(project(p.at), land))),
        water=(*geo.water, *(p.at for p in gone if not coast.inside(project(p.at), land))))


def _restricted(board: Board) -> Layout:
    return _restricted_by_ids(frozenset({p.id for p in board.provinces} | {s.id for s in board.seas}))


def _on_canvas(layout: Layout) -> Layout:
    if layout.projection is None:
        return layout
    f = layout.projection.point

    def place(p: PlaceLayout) -> PlaceLayout:
        return PlaceLayout(at=f(p.at), label=None if p.label is None else f(p.label),
                           spaces={k: f(v) for k, v in p.spaces.items()}, outline=tuple(f(v) for v in p.outline),
                           sites=tuple(f(v) for v in p.sites))

    return Layout(width=layout.width, height=layout.height, projection=layout.projection,
                  places={k: place(v) for k, v in layout.places.items()},
                  water=tuple(f(v) for v in layout.water), land=tuple(f(v) for v in layout.land))


_canvas: ObjectCache[Layout, Layout] = ObjectCache(_on_canvas)


def on_canvas(layout: Layout) -> Layout:
    """The layout with every point in the canvas's pixels (a projected layout's degrees projected)."""
    return _canvas(layout)


def land_of(layout: Layout) -> list[coast.Polygon]:
    """The real land on a projected layout's canvas (none for a schematic one)."""
    if layout.projection is None:
        return []
    return coast.projected(layout.projection.point)
