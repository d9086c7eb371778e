"""mn games, copy-db, check-upgrade: the host's view of every game, moving games between stores, and
knowing before an upgrade that no stored game would be decided otherwise."""

from __future__ import annotations

import click

from mncli.common import emit_json, json_option, open_store, to_builtins
from mncore.games import hosting, reading
from mncore.pbem import turns
from mncore.store import open_store as open_url


@click.command("games")
@click.option("--waiting-on", "waiting_on", metavar="SIDE|PLAYER", default=None,
              help="Only games waiting for a decision of this side (empire) or player (who holds its seat now).")
@click.option("--finished/--running", "finished", default=None,
              help="Only games that are over, or only games still being played.")
@click.option("--player", "player", metavar="NAME", default=None, help="Only games this player holds a seat in now (mn seat hands seats over, ruling K14).")
@click.option("--overdue", is_flag=True,
              help="Only games with a decision past its deadline (mn deadline sets them; mn tick defaults them).")
@click.option("--now", "now", default=None, metavar="TIME",
              help="The time to judge deadlines at, ISO 8601 (default: now).")
@json_option
@click.pass_context
def games(ctx: click.Context, waiting_on: str | None, finished: bool | None, player: str | None,
          overdue: bool, now: str | None, as_json: bool) -> None:
    """List the games in the database: round, who the game waits on (and whose deadline has passed),
    or its result."""
    at = turns.parse_time(now) if now else reading.utc_now()
    found = [s for s in hosting.summaries(open_store(ctx))
             if (finished is None or (s.over == finished and not s.problem))
             and (waiting_on is None or hosting.waits_on(s, waiting_on))
             and (player is None or hosting.plays(s, player))
             and (not overdue or hosting.overdue(s, at))]
    if as_json:
        emit_json([to_builtins(s) for s in found])
        return
    filtered = waiting_on is not None or finished is not None or player is not None or overdue
    if not found:
        click.echo("No games match." if filtered else "No games.")
    for s in found:
        click.echo(f"{s.id}  {s.events:>6} events  created {s.created_at[:19]}Z  head {s.head_hash[:12]}  "
                   f"{_state(s, at)}")


def _state(s: hosting.Summary, at: str) -> str:
    if s.problem:
        return f"cannot be read: {s.problem}"
    if s.over:
        return f"over: {s.result}"
    who = ", ".join(f"{side} ({s.players[side]})" if s.players.get(side) else side for side in s.waiting_on)
    late = hosting.overdue(s, at)
    overdue = f"; overdue: {', '.join(f'{side} since {s.due[side][:16]}Z' for side in late)}" if late else ""
    return f"round {s.round}, waiting on {who or 'nobody'}{overdue}"


@click.command("copy-db")
@click.argument("source", metavar="FROM")
@click.argument("target", metavar="TO")
@click.option("--game", "only", multiple=True, metavar="GAME", help="Copy only this game (repeat it).")
@json_option
def copy_db(source: str, target: str, only: tuple[str, ...], as_json: bool) -> None:
    """Copy games from one database to another (a SQLite file, sqlite:///PATH or postgresql://...),
    each verified first and after, its export byte-identical from both."""
    src = open_url(source)
    rows = src.games()
    for gid in only:
        src.require_game(gid)
    rows = [r for r in rows if not only or r.id in only]
    dst = open_url(target, create=True)
    done = []
    for row in rows:
        copied = hosting.copy_game(src, dst, row)
        done.append(copied)
        if not as_json:
            click.echo(f"{copied.id}: {copied.outcome}, {copied.events} events, verified; the export is "
                       f"the same from both (sha256 {copied.export_sha256[:16]})")
    if as_json:
        emit_json([to_builtins(c) for c in done])
        return
    click.echo(f"{sum(c.outcome == 'copied' for c in done)} games copied from {src.path} to {dst.path}, "
               f"{sum(c.outcome != 'copied' for c in done)} already there")


@click.command("check-upgrade")
@json_option
@click.pass_context
def check_upgrade(ctx: click.Context, as_json: bool) -> None:
    """Replay and decide again every stored game under the installed engine: per game "same", or the
    first event that would differ and why. Exit 4 if any would differ."""
    store = open_store(ctx)
    checked = [hosting.check_game(store, row) for row in store.games()]
    counts = {v: sum(c.verdict == v for c in checked) for v in ("same", "differs", "older", "unreadable")}
    if as_json:
        emit_json({"games": [to_builtins(c) for c in checked], **counts})
    else:
        for c in checked:
            click.echo(f"{c.id}: {_verdict(c)}")
        click.echo(f"{len(checked)} games: {counts['same']} the same, {counts['differs']} would differ, "
                   f"{counts['older']} served by an older ruleset version, {counts['unreadable']} unreadable")
    if counts["differs"] or counts["unreadable"]:
        ctx.exit(4)


def _verdict(c: hosting.Checked) -> str:
    if c.verdict == "same":
        return f"same ({c.events} events decided again to the same bytes)"
    if c.verdict == "older":
        return f"older: {c.reason}"
    if c.verdict == "unreadable":
        return f"unreadable{f' at event {c.seq}' if c.seq else ''}: {c.reason}"
    cited = f" [{c.section}]" if c.section and f"[rule {c.section}]" not in c.reason else ""
    return f"differs at event {c.seq} ({c.event_type}): {c.why}; {c.reason}{cited}"


COMMANDS = [games, copy_db, check_upgrade]
