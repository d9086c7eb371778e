"""`mn map`: show a ruleset's board, or check a board file of one's own."""

from __future__ import annotations

import click

from mncli.common import emit_json, ruleset_option, with_maps

map_group = click.Group("map", help="Show the board, or check a board file of your own.")

board_option = click.option(
    "--board", "board_file", type=click.Path(dir_okay=False), default=None,
    help="A TOML board file of your own [default: the shipped reference board].")


@map_group.command("show")
@click.argument("place", required=False)
@board_option
@click.option("--setup", "setup", default=None, metavar="NAME",
              help="The board as this set-up variant plays it (as mn new --setup NAME).")
@ruleset_option
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document instead of text.")
def show(place: str | None, board_file: str | None, setup: str | None, ruleset_name: str,
         as_json: bool) -> None:
    """Show every province and sea, or one PLACE (a province or sea) with its neighbours."""
    maps = with_maps(ruleset_name)
    if as_json:
        emit_json(maps.map_json(place, board_file, setup))
    else:
        click.echo(maps.map_text(place, board_file, setup))


@map_group.command("check")
@click.argument("file", type=click.Path(dir_okay=False))
@ruleset_option
def check(file: str, ruleset_name: str) -> None:
    """Check a board FILE: print a summary if it is valid, else every problem (exit 2)."""
    click.echo(with_maps(ruleset_name).check_board(file))


GROUPS = [map_group]
