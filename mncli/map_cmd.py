"""`mn map`: show the board's provinces and seas, and check a board file of one's own."""

from __future__ import annotations

from typing import Any

import click
import msgspec

from mncore.rulesets.empires.board import Board, Geo, Province, Sea, Space, board_digest, geo, load_board, provenance_note
from mncore.rulesets.empires.names import resolve_place
from mncore.rulesets.empires.ruleset import Ruleset, load_ruleset

map_group = click.Group("map", help="Show the board, or check a board file of your own.")

board_option = click.option(
    "--board", "board_file", type=click.Path(dir_okay=False), default=None,
    help="A TOML board file of your own [default: the shipped reference board].")


@map_group.command("show")
@click.argument("place", required=False)
@board_option
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document instead of text.")
def show(place: str | None, board_file: str | None, as_json: bool) -> None:
    """Show every province and sea, or one PLACE (a province or sea) with its neighbours."""
    board = load_board(board_file)
    ruleset = load_ruleset()
    if place is None:
        _echo_json(board) if as_json else click.echo("\n".join(render_board(board, ruleset)))
        return
    place_id = resolve_place(board, place)
    if as_json:
        _echo_json(place_view(geo(board), place_id))
    else:
        click.echo("\n".join(render_place(board, ruleset, place_id)))


@map_group.command("check")
@click.argument("file", type=click.Path(dir_okay=False))
def check(file: str) -> None:
    """Check a board FILE: print a summary if it is valid, else every problem (exit 2)."""
    board = load_board(file)
    click.echo(f"{file}: ok — {len(board.provinces)} provinces, {len(board.seas)} seas, "
               f"{len(board.setups)} set-ups (digest {board_digest(board)[:16]})")


def _echo_json(value: Any) -> None:
    click.echo(msgspec.json.encode(value, order="deterministic").decode())


# ---------------------------------------------------------------------------------------------------
# Rendering (pure: lines of text or JSON-ready values)

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
