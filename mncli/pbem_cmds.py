"""mn undo, consent, correct, deadline, tick and standing: play by email's undo, deadlines and defaults."""

from __future__ import annotations

import click

from mncli.common import as_option, open_store
from mncli.game_cmds import echo_rows, receipt
from mncore.bots.choosing import DEFAULT_BUDGET, LEVELS, MAX_BUDGET
from mncore.core.actors import DEADLINE
from mncore.core.errors import InvalidCommand, MareNostrumError
from mncore.core.name_matching import resolve_side_in_game
from mncore.core.protocol import Defaults, Ruleset
from mncore.games import by_mail, reading
from mncore.pbem import turns
from mncore.store import Row, Store

NOW_HELP = "The time to act at (ISO 8601; tests, replays of a cron run) [default: the clock]."


def _now(text: str | None) -> str:
    return turns.parse_time(text) if text else reading.utc_now()


def _side(store: Store, game_id: str, text: str) -> tuple[Ruleset, str]:
    cur = reading.current(store, game_id)
    return cur.ruleset, resolve_side_in_game(cur.ruleset, cur.state, text)


def _written(store: Store, game_id: str, ruleset: Ruleset, rows: list[Row], viewer: str | None) -> None:
    after = reading.current(store, game_id)
    echo_rows(ruleset, rows, viewer, after.meta.secret is not None)
    if rows:
        receipt(after)


@click.command("undo")
@click.argument("game_id", metavar="GAME")
@as_option(required=True, help="The empire taking back its last batch.")
@click.pass_context
def undo(ctx: click.Context, game_id: str, as_empire: str) -> None:
    """Take back your last batch of orders (ruling K1), or ask the sides it affects (K2).

    Alone while no other side acted after it and nothing was drawn or revealed from it on; else
    the request is recorded and each side named consents with mn consent, the last consent
    applying the undo. The events taken back stay in the log, marked [undone] by mn log.
    """
    store = open_store(ctx)
    ruleset, side = _side(store, game_id, as_empire)
    rows, missing = by_mail.undo(store, game_id, side)
    _written(store, game_id, ruleset, rows, side)
    if missing:
        batch = by_mail.last_batch(store, reading.current(store, game_id), side)
        click.echo(f"Taking back the batch of event {batch} needs the consent of "
                   f"{', '.join(ruleset.side_name(s) for s in missing)} (ruling K2); each gives it "
                   f"with: mn consent {game_id} --as EMPIRE --batch {batch}")


@click.command("consent")
@click.argument("game_id", metavar="GAME")
@as_option(required=True, help="The empire that consents.")
@click.option("--batch", "batch", type=int, required=True, metavar="N",
              help="The first event of the batch to take back (mn undo names it).")
@click.pass_context
def consent(ctx: click.Context, game_id: str, as_empire: str, batch: int) -> None:
    """Consent to undoing another side's batch (ruling K2); the last consent needed applies it."""
    store = open_store(ctx)
    ruleset, side = _side(store, game_id, as_empire)
    rows, missing = by_mail.consent(store, game_id, side, batch)
    _written(store, game_id, ruleset, rows, side)
    if missing:
        click.echo(f"Still waiting for the consent of {', '.join(ruleset.side_name(s) for s in missing)}.")


@click.command("correct")
@click.argument("game_id", metavar="GAME")
@click.option("--batch", "batch", type=int, required=True, metavar="N",
              help="The first event of the batch to take back, with every event after it.")
@click.option("--reason", required=True, metavar="TEXT", help="Why: every side reads it.")
@click.pass_context
def correct(ctx: click.Context, game_id: str, batch: int, reason: str) -> None:
    """The host corrects a mistake: a batch and every event after it taken back, with a reason
    every side reads (ruling K3). There is no other way to change a log."""
    store = open_store(ctx)
    ruleset = reading.current(store, game_id).ruleset
    _written(store, game_id, ruleset, by_mail.correct(store, game_id, batch, reason), None)


@click.command("deadline")
@click.argument("game_id", metavar="GAME")
@click.option("--hours", type=int, default=0, show_default=True,
              help="How long each decision may stay pending (0: no deadline).")
@click.option("--phase", "phases", multiple=True, metavar="PHASE=HOURS",
              help="A phase's own deadline, overriding --hours (repeat for several).")
@click.option("--forced", is_flag=True,
              help="Take each decision with exactly one legal answer at once (ruling K5).")
@click.option("--now", "now", default=None, metavar="TIME", help=NOW_HELP)
@click.pass_context
def deadline(ctx: click.Context, game_id: str, hours: int, phases: tuple[str, ...], forced: bool,
             now: str | None) -> None:
    """The host sets the game's pace: deadlines per game and per phase (ruling K4), forced answers
    (K5). It replaces the pace set before; mn tick applies the defaults of overdue decisions."""
    store = open_store(ctx)
    ruleset = reading.current(store, game_id).ruleset
    per_phase = _phases(ruleset, phases)
    rows = by_mail.set_pace(store, game_id, hours, per_phase, forced, _now(now))
    _written(store, game_id, ruleset, rows, None)


def _phases(ruleset: Ruleset, items: tuple[str, ...]) -> dict[str, int]:
    known = ruleset.phases() if isinstance(ruleset, Defaults) else ()
    out: dict[str, int] = {}
    for item in items:
        name, sep, hours = item.partition("=")
        name = name.strip().casefold()
        if not sep or not hours.strip().isdigit():
            raise InvalidCommand(f"--phase {item}: write PHASE=HOURS (a phase of the game, hours a whole number)")
        if name not in known:
            raise InvalidCommand(f"--phase {item}: {name} is not a phase of {ruleset.name} "
                                 f"(phases: {', '.join(known) or 'none'})")
        out[name] = int(hours)
    return out


@click.command("tick")
@click.argument("game_id", metavar="[GAME]", required=False)
@click.option("--all", "all_games", is_flag=True, help="Every game in the database.")
@click.option("--now", "now", default=None, metavar="TIME", help=NOW_HELP)
@click.pass_context
def tick(ctx: click.Context, game_id: str | None, all_games: bool, now: str | None) -> None:
    """Apply the documented default (docs/defaults.md) of every decision overdue now, as the
    deadline's act (ruling K4). Prints what it did and nothing else; exit 0 when nothing is due.
    Meant for cron: `mn tick --all`.

    --now in the future is taken as given: every deadline passed by then is overdue, and each of
    those defaults is applied at once, recorded at that time. Use it for tests and replays only."""
    if bool(game_id) == all_games:
        raise InvalidCommand("give GAME or --all")
    store = open_store(ctx)
    at = _now(now)
    worst = 0
    for gid in [g.id for g in store.games()] if all_games else [str(game_id)]:
        try:
            rows = by_mail.tick(store, gid, at)
        except MareNostrumError as err:
            if not all_games:
                raise
            click.echo(f"Error: game {gid}: {err.message}", err=True)
            worst = max(worst, err.exit_code)
            continue
        if rows:
            what = "deadlines passed" if any(r.actor == DEADLINE for r in rows) else "the service answered"
            click.echo(f"Game {gid}, {what} at {at[:19]}Z:")
            _written(store, gid, reading.current(store, gid).ruleset, rows, None)
    if worst:
        ctx.exit(worst)


@click.command("standing")
@click.argument("game_id", metavar="GAME")
@click.argument("orders", nargs=-1, metavar="'ORDER'...")
@as_option(required=True, help="The empire leaving the orders.")
@click.option("--clear", is_flag=True, help="Withdraw the empire's standing orders.")
@click.pass_context
def standing(ctx: click.Context, game_id: str, orders: tuple[str, ...], as_empire: str, clear: bool) -> None:
    """Leave orders in advance (ruling K6): whenever the empire must decide, the first of them the
    rules accept then is applied for it, marked [standing]. They replace the ones left before and
    stay until replaced; the line 'forced' takes its decisions with one legal answer at once
    (docs/standing-orders.md)."""
    if bool(orders) == clear:
        raise InvalidCommand("give the standing orders, or --clear to withdraw them")
    store = open_store(ctx)
    ruleset, side = _side(store, game_id, as_empire)
    _written(store, game_id, ruleset, by_mail.set_standing(store, game_id, side, orders), side)


@click.command("seat")
@click.argument("game_id", metavar="GAME")
@click.argument("side", metavar="SIDE")
@click.option("--bot", "level", type=click.Choice(LEVELS), default=None,
              help="Hand the seat to a bot of this level (docs/bots.md).")
@click.option("--budget", type=click.IntRange(1, MAX_BUDGET), default=None,
              help="The bot's sampled worlds (heuristic) or playouts (search) "
                   f"[default: {DEFAULT_BUDGET['heuristic']} and {DEFAULT_BUDGET['search']}].")
@click.option("--player", default=None, metavar="NAME", help="Hand the seat to this person.")
@click.pass_context
def seat(ctx: click.Context, game_id: str, side: str, level: str | None, budget: int | None,
         player: str | None) -> None:
    """The host hands a side's seat to a bot, or to a person, at any time (ruling K14).

    From the next event on, a bot answers each of the side's decisions as soon as it is pending,
    from what the side may see, marked [bot LEVEL, budget N]; the side's queued and standing
    orders wait until a person holds the seat again. Every side reads the change in its log and
    report. Exit 1 if the game is over or the seat is already so held, 2 for a side not in the game.
    """
    if (level is None) == (player is None):
        raise InvalidCommand("give --bot LEVEL or --player NAME: who takes the seat?")
    if budget is not None and level is None:
        raise InvalidCommand("--budget is a bot's: give it with --bot LEVEL")
    store = open_store(ctx)
    ruleset, found = _side(store, game_id, side)
    spent = (budget or DEFAULT_BUDGET[level]) if level is not None else 0
    rows = by_mail.set_seat(store, game_id, found, bot=level or "", budget=spent, player=player or "")
    _written(store, game_id, ruleset, rows, None)


COMMANDS = [undo, consent, correct, deadline, tick, standing, seat]
