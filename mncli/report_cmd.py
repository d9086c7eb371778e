"""mn report: a side's turn report since its last one, as text, Markdown, JSON or a ready mail."""

from __future__ import annotations

import click
import msgspec

from mncli.common import open_store, write_output
from mncore.core.name_matching import resolve_side_in_game
from mncore.games import reading
from mncore.pbem import report as reports
from mncore.pbem.mail import book as books
from mncore.pbem.mail.outbox import report_mail


@click.command("report")
@click.argument("game_id", metavar="GAME")
@click.option("--as", "as_empire", required=True, metavar="EMPIRE", help="The empire the report is for.")
@click.option("--since", type=int, default=None, metavar="SEQ",
              help="Report the events after this one [default: the last event of its last report].")
@click.option("--format", "fmt", type=click.Choice(["text", "markdown", "json", "eml"]), default="text",
              show_default=True, help="eml: a ready mail to its address (mn mail address): the text, "
                                      "an HTML part with the board inline as a PNG, the report as JSON "
                                      "and its own export attached.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Write the report to FILE instead of stdout.")
@click.option("--no-record", is_flag=True,
              help="Do not record this report as its last one (a preview: the next starts where it did).")
@click.pass_context
def report(ctx: click.Context, game_id: str, as_empire: str, since: int | None, fmt: str,
           output: str | None, no_record: bool) -> None:
    """What happened since EMPIRE's last report, as it may know it, and what it must decide now.

    \b
    One sentence per event grouped by phase, its board and resources, its decision with the legal
    orders and their grammar, who else the game waits for, and the receipt (game, event, head hash)
    to keep for mn verify --head. The last event reported to each empire is kept beside the
    database (DB.mail.json), never in the log.
    """
    store = open_store(ctx)
    loaded = reading.load(store, game_id)
    side = resolve_side_in_game(loaded.ruleset, loaded.state, as_empire)
    path = books.path_for(ctx.obj["db"])
    book = books.load(path)
    page = book.page(game_id)
    start = page.reported.get(side, 0) if since is None else since
    if fmt == "eml":
        r, msg = report_mail(loaded, side, start, page)
        data = bytes(msg)
    else:
        r = reports.of_game(loaded, side, start)
        data = _rendered(r, fmt).encode()
    if output:
        write_output(ctx, output, data)
    else:
        click.echo(data, nl=False)
    if not no_record:
        page.reported[side] = loaded.head[0]
        books.save(path, book)


def _rendered(r: reports.TurnReport, fmt: str) -> str:
    if fmt == "markdown":
        return reports.markdown(r)
    if fmt == "json":
        return msgspec.json.encode(reports.doc(r), order="deterministic").decode() + "\n"
    return reports.text(r)


COMMANDS = [report]
