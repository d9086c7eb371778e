"""mn export, import and verify: the log as a file, and the proof that it holds."""

from __future__ import annotations

import os
import sys

import click

from mncli.common import (
    as_option,
    check_output,
    db_file,
    emit_json,
    json_option,
    open_store,
    side_arg,
    to_builtins,
    write_output,
)
from mncore.audits import snapshots
from mncore.audits.snapshots import Mismatch, SnapshotCheck
from mncore.audits.verify import Report
from mncore.core.errors import DataError, IntegrityFailure, InvalidCommand, StoreError
from mncore.games import lifecycle, reading, transfer


@click.command("export")
@click.argument("game_id", metavar="GAME")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Write to this file instead of stdout ('-': stdout).")
@as_option(help="An export made for this empire: hidden payloads withheld (cannot be imported).")
@click.pass_context
def export(ctx: click.Context, game_id: str, output: str | None, as_empire: str | None) -> None:
    """The log as JSON Lines: a header, then one event per line with its sequence number and hash."""
    check_output(ctx, output)
    loaded = reading.load(open_store(ctx), game_id)
    lines = transfer.export_lines(loaded, viewer=side_arg(loaded.ruleset, loaded.state, as_empire))
    data = b"".join(line + b"\n" for line in lines)
    if output and output != "-":  # `-o -` is stdout, as usual on the command line
        write_output(ctx, output, data)
    else:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()


@click.command("import")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--as", "game_id", default=None, metavar="ID", help="Store it under another id.")
@click.pass_context
def import_cmd(ctx: click.Context, file: str, game_id: str | None) -> None:
    """Recreate a game from an export, checking every line first; prints its id."""
    header, rows = transfer.check_import(_read(file), file)
    loaded = transfer.import_game(open_store(ctx, create=True), header, rows, game_id)
    click.echo(loaded.game_id)



@click.command("verify")
@click.argument("target", metavar="GAME|FILE")
@click.option("--head", "held", default=None, metavar="HASH",
              help="A head hash you kept (from a report, receipt or earlier export): the log must hold it.")
@click.option("--drop-bad-snapshots", "drop", is_flag=True,
              help="Delete the cached snapshots of GAME that do not match its log (still exit 4).")
@json_option
@click.pass_context
def verify(ctx: click.Context, target: str, held: str | None, drop: bool, as_json: bool) -> None:
    """Check the hash chain, replay the log and decide every command again; exit 4 if anything fails.

    Once the secret is revealed (mn reveal), every random outcome is recomputed too. The log is
    held to the head hash recorded beside it (the database's record, or the export's header) and
    to any --head you kept, so that a log cut short or rewritten is caught.
    FILE may be an export or a dispute bundle (mn dispute). Of a stored GAME whose log verifies,
    each cached snapshot the service would read is checked against one replay of the log: one that
    differs (a forged database) fails, with exit 4.
    """
    snaps: SnapshotCheck | None = None
    if os.path.exists(target) and not _is_db_game(ctx, target):
        if drop:
            raise InvalidCommand(f"--drop-bad-snapshots: {target} is a file; only a stored game has snapshots")
        data = _read(target)
        from mncli.audit_cmds import verify_bundle_file
        if verify_bundle_file(ctx, data, target, as_json, held):  # a dispute bundle (docs/disputes.md)
            return
        report = transfer.verify_export(data, target, held)
        where = target
    else:
        store = open_store(ctx)
        report = lifecycle.verify_game(store, target, held)
        where = f"game {target}"
        snaps = snapshots.check_snapshots(store, target) if report.ok else None
        if snaps is not None and drop:
            snapshots.drop_mismatched(store, target, snaps)
    ok = report.ok and (snaps is None or snaps.ok)
    if as_json:
        emit_json({**to_builtins(report), "ok": ok, "snapshots": None if snaps is None else to_builtins(snaps)})
    else:
        _print(report, where, snaps)
    if not ok:
        ctx.exit(IntegrityFailure.exit_code)


@click.command("upgrade")
@click.argument("game_id", metavar="GAME")
@click.pass_context
def upgrade(ctx: click.Context, game_id: str) -> None:
    """Rewrite a game of log format 1 into format 2 (the whole row hashed), recording its old head.

    The game is verified before and after; anyone who kept its old head can check the rewritten log
    with `mn verify GAME`, which recomputes the old head from the events before the upgrade.
    """
    store = open_store(ctx)
    old = store.head(game_id) if store.has_game(game_id) else None
    loaded = lifecycle.upgrade(store, game_id)
    click.echo(f"game {game_id}: log format {loaded.version}, {len(loaded.rows)} events, head "
               f"{loaded.head[1]}" + (f" (old head {old[1]})" if old else ""))


def _is_db_game(ctx: click.Context, target: str) -> bool:
    path = db_file(ctx)
    if path is not None and not os.path.exists(path):
        return False
    try:
        return open_store(ctx).has_game(target)
    except StoreError:
        return False


def _print(report: Report, where: str, snaps: SnapshotCheck | None) -> None:
    if not report.ok:
        # first_bad 0: an export's header, which contradicts the log below it
        at = "in its header" if report.first_bad == 0 else f"at event {report.first_bad}"
        click.echo(f"{where}: FAILED {at}: {report.reason}", err=True)
        return
    click.echo(f"{where}: verified, {report.events} events")
    for line in report.proven:
        click.echo(f"  - {line}")
    if snaps is not None:
        click.echo(f"  - snapshots: {_snapshots_line(snaps)}")
        for m in snaps.mismatched:
            click.echo(f"{where}: FAILED: {_mismatch_line(where, m, m.seq in snaps.dropped)}", err=True)


def _snapshots_line(snaps: SnapshotCheck) -> str:
    """How many cached snapshots were checked and how they stand, or none."""
    bad = len(snaps.mismatched)
    parts = [] if not snaps.checked else [
        f"{snaps.checked} checked against the log, " + (f"{bad} do not match" if bad else "all match")]
    if snaps.other_engine:
        parts.append(f"{snaps.other_engine} of another engine version ignored")
    if snaps.unusable:
        parts.append(f"{snaps.unusable} damaged or left behind by the log ignored")
    return "; ".join(parts) or "none"


def _mismatch_line(where: str, m: Mismatch, dropped: bool) -> str:
    # the log verifies: only the cache lies, and the commands that read the present trust it
    fix = ("it was deleted: commands now fold the log instead" if dropped
           else f"`mn verify {where.removeprefix('game ')} --drop-bad-snapshots` deletes it")
    return (f"the snapshot at event {m.seq} does not match the log ({', '.join(m.differs)} "
            f"{'differs' if len(m.differs) == 1 else 'differ'}): the database was edited; mn status, "
            "show, options and orders read the game from it, so they would show and decide on that "
            f"forged state, while the log itself verifies; {fix}")


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as err:
        raise DataError(path, [f"cannot read it ({err.strerror})"]) from None


COMMANDS = [export, import_cmd, verify, upgrade]
