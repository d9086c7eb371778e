"""mn position, check, diff, explain and dispute: positions, what-ifs and audits of a game."""

from __future__ import annotations

import sys

import click

from mncli.common import (
    as_option,
    check_output,
    emit_json,
    json_option,
    open_store,
    side_arg,
    to_builtins,
    with_audits,
    write_output,
)
from mncore.audits.dispute import is_bundle, make_bundle, verify_bundle
from mncore.core.dice import new_secret, seeded_secret
from mncore.core.errors import IntegrityFailure, InvalidCommand, RuleViolation
from mncore.core.name_matching import resolve_side_in_game
from mncore.core.protocol import Ruleset
from mncore.games import checking, positions, reading, writing
from mncore.secrecy import boundary
from mncore.store import Store


def new_from_position(ctx: click.Context, ruleset: Ruleset, path: str, seed: str | None,
                      game_id: str | None, other_options: bool) -> str:
    """mn new --position: a sandbox game at the position in the file; returns its id."""
    if other_options:
        raise InvalidCommand("--position gives the empires, players and board: do not also pass "
                             "--empire, --player, --random or --board")
    audits = with_audits(ruleset)
    cmd = audits.position_command(audits.read_position(path))
    secret = seeded_secret(seed) if seed is not None else new_secret()
    loaded = writing.create(lambda: open_store(ctx, create=True), ruleset, cmd, secret, game_id)
    return loaded.game_id


def _upto(store_rows: int, at: int | None, game_id: str) -> int:
    """The event N an --at option names (the last one by default), checked against the log."""
    if at is None:
        return store_rows
    if not 1 <= at <= store_rows:
        raise InvalidCommand(f"--at {at}: game {game_id} has events 1 to {store_rows}")
    return at


def _write(ctx: click.Context, output: str | None, text: str) -> None:
    if output and output != "-":  # `-o -` is stdout, as usual on the command line
        write_output(ctx, output, text.encode("utf-8"))
    else:
        sys.stdout.write(text)


@click.command("position")
@click.argument("game_id", metavar="GAME")
@click.option("--at", "at", type=int, default=None,
              help="The position after event N [default: now]; the host's only where the game rested or "
                   "a phase began (ruling K12).")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Write the position to this file instead of stdout ('-': stdout).")
@as_option(help="What this empire may see of the position (others' screens as counts); not loadable.")
@click.pass_context
def position(ctx: click.Context, game_id: str, at: int | None, output: str | None,
             as_empire: str | None) -> None:
    """Write the position of a game (after event N) as a TOML position file (docs/positions.md).

    `mn new --position FILE` starts a sandbox game from it (a host's position, without --as).
    """
    check_output(ctx, output)
    store = open_store(ctx)
    store.require_game(game_id)
    upto = _upto(store.head(game_id)[0], at, game_id)
    loaded = reading.load(store, game_id, upto)
    viewer = boundary.viewer_of(loaded.meta, side_arg(loaded.ruleset, loaded.state, as_empire))
    audits = with_audits(loaded.ruleset)
    if viewer is None:  # only the host's position can be loaded (ruling K12)
        positions.check_resting(store, loaded)
    _write(ctx, output, audits.write_position(boundary.seen_state(audits, loaded.state, viewer)))


COMMANDS: list[click.Command] = [position]


# --- mn check ------------------------------------------------------------------------------------

@click.command("check")
@click.argument("game_id", metavar="GAME")
@click.argument("order_lines", metavar="'ORDER'...", nargs=-1, required=True)
@as_option(required=True, help="The empire that would give the orders.")
@json_option
@click.pass_context
def check(ctx: click.Context, game_id: str, order_lines: tuple[str, ...], as_empire: str,
          as_json: bool) -> None:
    """Would these orders be accepted now, as one batch? Shows the events they would cause; writes
    nothing.

    Several orders are decided in turn on the evolving state, as `mn order` decides them: the
    answer is for the whole batch, or the first order refused, named by number and text. Exit 0 if
    accepted, 1 if the rules refuse (the section is named), 2 if malformed. Random outcomes (dice,
    draws) shown are only an example.
    """
    loaded = reading.current(open_store(ctx), game_id)
    empire = resolve_side_in_game(loaded.ruleset, loaded.state, as_empire)
    orders = checking.written(loaded, empire, order_lines)
    key = "order" if len(orders) == 1 else "orders"
    try:
        checked = checking.check_orders(loaded, empire, order_lines)
    except RuleViolation as err:
        if as_json:
            emit_json({"accepted": False, key: orders[0] if len(orders) == 1 else list(orders),
                       "section": err.section, "reason": err.reason})
            ctx.exit(err.exit_code)
        raise
    if as_json:
        emit_json({"accepted": True, key: orders[0] if len(orders) == 1 else list(orders),
                   "random_example": checked.random_example,
                   "events": [{"type": e.type, "event": e.event, "text": e.text} for e in checked.events]})
        return
    what = f"'{orders[0]}'" if len(orders) == 1 else f"the {len(orders)} orders, as one batch,"
    click.echo(f"Accepted: {what} would cause {len(checked.events)} event(s):")
    for e in checked.events:
        click.echo(f"  {e.text}")
    if checked.random_example:
        given = "order is" if len(orders) == 1 else "orders are"
        click.echo("Random outcomes above are only an example: the real ones come from the game's "
                   f"secret when the {given} given.")


# --- mn diff -------------------------------------------------------------------------------------

@click.command("diff")
@click.argument("game_id", metavar="GAME")
@click.argument("other", metavar="[OTHER]", required=False)
@click.option("--at", "at", type=int, default=None, help="GAME after event N [default: now].")
@click.option("--to", "to", type=int, default=None,
              help="OTHER (or GAME, without OTHER) after event M [default: now].")
@as_option(help="Compare what this empire may see (its views). Default: host view.")
@json_option
@click.pass_context
def diff(ctx: click.Context, game_id: str, other: str | None, at: int | None, to: int | None,
         as_empire: str | None, as_json: bool) -> None:
    """What differs between two games, or two points of one game (host view, or --as an empire's).

    \b
    mn diff GAME OTHER            the two games now
    mn diff GAME --at N --to M    GAME after event N, then after event M
    mn diff GAME --at N           GAME after event N, then now
    mn diff GAME OTHER --at N --to M   GAME after N, OTHER after M
    """
    if other is None and at is None and to is None:
        raise InvalidCommand("give OTHER, or --at N (and --to M) to compare points of GAME")
    store = open_store(ctx)
    left = _loaded_at(store, game_id, at)
    right = _loaded_at(store, other or game_id, to)
    if left.ruleset is not right.ruleset:
        raise InvalidCommand(f"{game_id} and {other} are games of different rulesets: "
                             f"{left.ruleset.name} and {right.ruleset.name}")
    viewer = side_arg(left.ruleset, left.state, as_empire)
    if viewer is not None:
        found = boundary.diff_views(left.ruleset, left.state, right.state, viewer)
        if as_json:
            emit_json(found)
        else:
            click.echo("\n".join(c["text"] for c in found) if found else "No differences.")
        return
    changes = with_audits(left.ruleset).diff(left.state, right.state)
    if as_json:
        emit_json([to_builtins(c) for c in changes])
        return
    if not changes:
        click.echo("No differences.")
    for c in changes:
        click.echo(c.text)


def _loaded_at(store: Store, game_id: str, at: int | None) -> reading.Loaded:
    store.require_game(game_id)
    return reading.load(store, game_id, _upto(store.head(game_id)[0], at, game_id))


# --- mn explain ----------------------------------------------------------------------------------

@click.command("explain")
@click.argument("game_id", metavar="GAME")
@click.argument("seq", type=int, metavar="SEQ")
@as_option(help="Explain as this empire may see it (hidden draws withheld). Default: host view.")
@json_option
@click.pass_context
def explain_cmd(ctx: click.Context, game_id: str, seq: int, as_empire: str | None,
                as_json: bool) -> None:
    """Why event SEQ happened: the order behind it, the rules and rulings applied, its figures."""
    store = open_store(ctx)
    loaded = reading.load(store, game_id)
    ruleset = with_audits(loaded.ruleset)
    viewer = boundary.viewer_of(loaded.meta, side_arg(ruleset, loaded.state, as_empire))
    found = boundary.explain(ruleset, loaded.rows, seq, viewer, False)
    if as_json:
        emit_json(to_builtins(found))
    else:
        click.echo(ruleset.render_explanation(found))


# --- mn dispute ----------------------------------------------------------------------------------

@click.command("dispute")
@click.argument("game_id", metavar="GAME")
@click.option("--at", "at", type=int, required=True, help="The event disputed.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), required=True,
              help="The bundle file to write ('-': stdout).")
@as_option(help="A bundle for this empire: hidden fields committed, its view of the positions.")
@click.pass_context
def dispute(ctx: click.Context, game_id: str, at: int, output: str, as_empire: str | None) -> None:
    """Pack the evidence about event N into one JSON bundle that `mn verify FILE` checks.

    The bundle holds the log up to N (with hashes and commands), the versions, the randomness
    commitment (and secret, once revealed), the rulings in force, the positions before and after
    N, the explanation of N, and a digest over it all (docs/disputes.md).
    """
    check_output(ctx, output)
    store = open_store(ctx)
    loaded = reading.load(store, game_id)
    data = make_bundle(game_id, loaded.rows, at, loaded.version,
                       side_arg(loaded.ruleset, loaded.state, as_empire))
    if output == "-":  # the bundle itself on stdout; the summary would corrupt it
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return
    write_output(ctx, output, data)
    click.echo(f"wrote {output}: event {at} of game {game_id}, {len(data)} bytes")


def verify_bundle_file(ctx: click.Context, data: bytes, where: str, as_json: bool,
                       held: str | None = None) -> bool:
    """mn verify FILE for a dispute bundle: True if FILE is one (and it was checked)."""
    if not is_bundle(data):
        return False
    result = verify_bundle(data, held)
    if as_json:
        emit_json(to_builtins(result))
    elif result.ok:
        click.echo(f"{where}: dispute bundle verified, event {result.at}")
        for line in (*result.proven, *(f"note: {n}" for n in result.notes)):
            click.echo(f"  - {line}")
    else:
        click.echo(f"{where}: dispute bundle FAILED: {result.failed}", err=True)
    if not result.ok:
        ctx.exit(IntegrityFailure.exit_code)
    return True


COMMANDS += [check, diff, explain_cmd, dispute]
