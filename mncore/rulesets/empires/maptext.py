"""The Empires board in words and JSON for `mn map`: provinces, spaces, borders and seas."""

from __future__ import annotations

from typing import Any

from mncore.rulesets.empires import atlas
from mncore.rulesets.empires.board import (
    Board,
    Geo,
    Province,
    Sea,
    Space,
    board_digest,
    geo,
    load_board,
    provenance_note,
)
from mncore.rulesets.empires.display_names import title
from mncore.rulesets.empires.game_data import Ruleset, load_ruleset
from mncore.rulesets.empires.typed_names import resolve_place


def map_text(place: str | None, board_file: str | None, setup: str | None = None) -> str:
    """Every province and sea, or one place with its neighbours, of the board (shipped or a file),
    as a set-up variant plays it (its extension boards joined, atlas.py)."""
    board = atlas.board_for(setup or atlas.STANDARD, load_board(board_file))
    ruleset = load_ruleset()
    if place is None:
        return "\n".join(_setup_lines(setup) + render_board(board, ruleset))
    return "\n".join(render_place(board, ruleset, resolve_place(board, place)))


def _setup_lines(setup: str | None) -> list[str]:
    """Who plays a set-up variant and what its boards cover (Atlas expansion)."""
    chosen = atlas.variant(setup or atlas.STANDARD)
    if chosen is None:
        return []
    names = {e.id: e.name for e in load_ruleset().empires}
    covered = ", ".join(names[e] for e in chosen.covered) or "nothing"
    out = [f"Set-up {chosen.id} [rule empires:{chosen.section}]: {chosen.players} players "
           f"({', '.join(names[e] for e in chosen.empires)}); covered: {covered}"]
    b = chosen.barbarians
    if b is not None:  # the Punic War's Barbarian Setup (atlas.barbarians)
        land = ", ".join(f"{p.title()} {n} legion{'s' * (n != 1)}" + (" and a fortress" if p in b.fortresses else "")
                         for p, n in b.legions.items())
        seas = ", ".join(title(s) for s in b.triremes)
        out.append(f"Barbarians [rule empires:atlas.barbarians]: {land}; a trireme in each of {seas}")
    return out


def map_json(place: str | None, board_file: str | None, setup: str | None = None) -> Any:
    """The board (as the set-up plays it), or one place and its neighbours, to encode as JSON."""
    board = atlas.board_for(setup or atlas.STANDARD, load_board(board_file))
    return board if place is None else place_view(geo(board), resolve_place(board, place))


def check_board(path: str) -> str:
    """A summary of a valid board file; DataError listing every problem otherwise."""
    board = load_board(path)
    return (f"{path}: ok — {len(board.provinces)} provinces, {len(board.seas)} seas, "
            f"{len(board.setups)} set-ups (digest {board_digest(board)[:16]})")


def render_board(board: Board, ruleset: Ruleset) -> list[str]:
    """Every province with its spaces, borders, seas and region, then every sea."""
    g = geo(board)
    lines = _heading(board)
    lines += ["", f"Provinces ({len(board.provinces)})"]
    for province in board.provinces:
        lines += _province_lines(g, ruleset, province)
    lines += ["", f"Seas ({len(board.seas)})"]
    for sea in board.seas:
        lines += _sea_lines(g, sea)
    return lines


def render_place(board: Board, ruleset: Ruleset, place_id: str) -> list[str]:
    """One province or sea with its neighbours by land and by sea."""
    g = geo(board)
    lines = _heading(board) + [""]
    if g.is_sea(place_id):
        return lines + _sea_lines(g, g.sea(place_id))
    province = g.province(place_id)
    lines += _province_lines(g, ruleset, province)
    for sea_id in province.seas:
        across = [_name(g, p) for p in g.sea(sea_id).coasts if p != province.id]
        lines.append(f"    across {_name(g, sea_id)}: {_names(across)}")
    return lines


def place_view(g: Geo, place_id: str) -> dict[str, Any]:
    """The JSON view of one province or sea and its neighbours."""
    if g.is_sea(place_id):
        sea = g.sea(place_id)
        return {"kind": "sea", "sea": sea, "seas": list(sea.borders), "coasts": list(sea.coasts)}
    province = g.province(place_id)
    across = {s: [p for p in g.sea(s).coasts if p != place_id] for s in province.seas}
    return {"kind": "province", "province": province, "borders": list(province.borders),
            "seas": list(province.seas), "across": across}


def _heading(board: Board) -> list[str]:
    lines = [f"Note: {provenance_note(board)}"] if board.reconstructed else []
    return lines + [f"{board.name}, version {board.version}: {len(board.provinces)} provinces, "
                    f"{len(board.seas)} seas, {len(board.setups)} set-ups"]


def _province_lines(g: Geo, ruleset: Ruleset, province: Province) -> list[str]:
    empires = {e.id: e.name for e in ruleset.empires}
    region = f" [region of {empires.get(province.region, province.region)}]" if province.region else ""
    aliases = f" (also {', '.join(province.aliases)})" if province.aliases else ""
    spaces = ", ".join(_space_text(ruleset, s) for s in province.spaces) or "(none)"
    return [
        f"  {province.name}{aliases}{region}",
        f"    spaces: {spaces}",
        f"    land: {_names(_name(g, p) for p in province.borders)}",
        f"    seas: {_names(_name(g, s) for s in province.seas)}",
    ]


def _sea_lines(g: Geo, sea: Sea) -> list[str]:
    aliases = f" (also {', '.join(sea.aliases)})" if sea.aliases else ""
    return [
        f"  {sea.name}{aliases}",
        f"    seas: {_names(_name(g, s) for s in sea.borders)}",
        f"    coasts: {_names(_name(g, p) for p in sea.coasts)}",
    ]


def _space_text(ruleset: Ruleset, space: Space) -> str:
    if space.kind == "caravan" and space.commodity is not None:
        names = {c.id: c.name for c in ruleset.commodities}
        return f"caravan {names.get(space.commodity, space.commodity)}"
    return f"{space.kind} {space.name}" if space.name else space.kind


def _name(g: Geo, place_id: str) -> str:
    return g.sea(place_id).name if g.is_sea(place_id) else g.province(place_id).name


def _names(names: Any) -> str:
    return ", ".join(names) or "(none)"
