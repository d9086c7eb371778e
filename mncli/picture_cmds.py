"""mn draw and mn html: the board as an SVG picture, and a game as one page to step through."""

from __future__ import annotations

import sys
from typing import Any

import click

from mncli.common import (
    as_option,
    check_output,
    is_export_path,
    kept_option,
    no_kept,
    open_store,
    side_arg,
    write_output,
)
from mncore.client import exported
from mncore.core.errors import InvalidCommand
from mncore.core.protocol import Pictures, Ruleset
from mncore.games import lifecycle, reading
from mncore.pictures import changes


def _pictures(ruleset: Ruleset) -> Pictures[Any]:
    if not isinstance(ruleset, Pictures):
        raise InvalidCommand(f"{ruleset.name} draws no pictures")
    return ruleset


def _write(ctx: click.Context, output: str, text: str) -> None:
    if output == "-":  # `-o -` is stdout, as for mn export
        sys.stdout.write(text)
        return
    write_output(ctx, output, text.encode("utf-8"))  # whole or not at all, never onto the database


@click.command("draw")
@click.argument("game_id", metavar="GAME|EXPORT.jsonl|REPORT.eml")
@click.option("--at", "at", type=int, default=None, help="The last event to apply [default: all].")
@click.option("--since", "since", type=int, default=None, metavar="N",
              help="Mark what the events after event N did: moves as arrows, battles, builds, "
                   "conquests and losses.")
@as_option(help="Draw what this empire may see (face-down tiles, others' resources hidden).")
@click.option("-o", "--output", type=click.Path(dir_okay=False), required=True, metavar="FILE.svg",
              help="The SVG file to write ('-': stdout).")
@kept_option
@click.pass_context
def draw(ctx: click.Context, game_id: str, at: int | None, since: int | None, as_empire: str | None,
         output: str, kept_file: str | None) -> None:
    """The board at an event as one SVG picture: areas, buildings, units, tracks, tiles; with --since,
    what changed after an earlier event marked on it.

    A player's own export (mn export --as, or the report mail that carries it) is drawn with no
    database, verified first: the board as that empire sees it, the picture the host draws for it.
    """
    check_output(ctx, output)  # refused before any work: never onto the database
    if is_export_path(game_id):
        sg = exported.open_as(game_id, as_empire, kept_file)
        _pictures(sg.ruleset)
        if since is not None and not 0 <= since < exported.upto(sg, at):
            raise InvalidCommand(f"--since {since}: must be an event before {exported.upto(sg, at)} "
                                 "(0 for the start)")
        drawn = exported.made(sg, lambda: exported.picture(sg, at, since))
        assert drawn is not None  # a ruleset that draws pictures
        _write(ctx, output, drawn)
        return
    no_kept(kept_file)
    store = open_store(ctx)
    store.require_game(game_id)
    last = store.head(game_id)[0]
    if at is not None and not 1 <= at <= last:
        raise InvalidCommand(f"--at {at}: game {game_id} has events 1 to {last}")
    upto = last if at is None else at
    if since is not None and not 0 <= since < upto:
        raise InvalidCommand(f"--since {since}: must be an event before {upto} (0 for the start)")
    loaded = reading.load(store, game_id, at)
    _pictures(loaded.ruleset)
    viewer = side_arg(loaded.ruleset, loaded.state, as_empire)
    picture = changes.picture(loaded, viewer, since)
    assert picture is not None  # a ruleset that draws pictures
    _write(ctx, output, picture)


@click.command("html")
@click.argument("game_id", metavar="GAME|EXPORT.jsonl|REPORT.eml")
@as_option(help="The page for this empire: every frame shows only what it may know.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), required=True, metavar="FILE.html",
              help="The HTML file to write ('-': stdout).")
@kept_option
@click.pass_context
def html(ctx: click.Context, game_id: str, as_empire: str | None, output: str, kept_file: str | None) -> None:
    """One self-contained page of the game: its board at every event (slider, arrow keys), each
    event's sentence and explanation, the leader tracks over the rounds, the verification result.

    Of a player's own export (or the report mail that carries it), with no database: every frame
    the board as that empire sees it, explanations made of what the export holds.
    """
    from mncore.pictures.pages import game_page

    check_output(ctx, output)  # refused before any work: never onto the database
    if is_export_path(game_id):
        sg = exported.open_as(game_id, as_empire, kept_file)
        _pictures(sg.ruleset)
        _write(ctx, output, exported.made(sg, lambda: exported.page(sg)))
        return
    no_kept(kept_file)
    store = open_store(ctx)
    loaded = reading.load(store, game_id)
    _pictures(loaded.ruleset)
    viewer = side_arg(loaded.ruleset, loaded.state, as_empire)
    _write(ctx, output, game_page(loaded, viewer, lifecycle.verify_game(store, game_id)))


COMMANDS = [draw, html]
