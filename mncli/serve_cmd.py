"""mn serve: the game service that runs itself: mail fetched and applied, deadlines ticked, mail sent."""

from __future__ import annotations

import signal
from types import FrameType

import click

from mncli.common import emit_json
from mncore.pbem import turns
from mncore.service import config as configs
from mncore.service.loop import Service
from mncore.store import open_store


@click.command("serve")
@click.option("--config", "config_path", required=True, type=click.Path(dir_okay=False), metavar="HOST.toml",
              help="The service's configuration (docs/pbem.md, 'The host's configuration').")
@click.option("--once", is_flag=True, help="One cycle, then exit (for cron).")
@click.option("--status", "show_status", is_flag=True,
              help="Say what the service is doing: games, the outbox by state, the last fetch, errors.")
@click.option("--now", "now", default=None, metavar="TIME",
              help="With --once: judge deadlines and reminders at this time, ISO 8601 (default: now).")
@click.option("--cycles", type=click.IntRange(min=1), default=None, metavar="N",
              help="Stop after N cycles (default: run until SIGTERM or Ctrl-C).")
@click.option("--retry", "retry_id", type=int, default=None, metavar="ID",
              help="Queue a failed mail again (its id in --status), then exit.")
@click.option("--log-json", is_flag=True, help="Log each step as a JSON line on stderr.")
@click.option("--json", "as_json", is_flag=True, help="--status or --once as one JSON document.")
def serve(config_path: str, once: bool, show_status: bool, now: str | None, cycles: int | None,
          retry_id: int | None, log_json: bool, as_json: bool) -> None:
    """Run the games of HOST.toml by mail: each cycle fetches new mail and applies its signed blocks
    (each mail once), ticks deadlines, queues answers, reports, notices, digests and reminders by the
    game's policy, and sends the outbox (each mail at most once, failed sends retried with back-off).
    Stops cleanly on SIGTERM. Exit 0 when it stopped cleanly; 2 if the configuration or database is
    refused."""
    from mncli.logs import configure_logging

    conf = configs.load(config_path)
    configure_logging(1, "json" if log_json else None)
    service = Service(conf, open_store(conf.db))
    if show_status:
        return _status(service, as_json)
    if retry_id is not None:
        ok = service.tables.requeue(retry_id, turns.parse_time(now) if now else _clock())
        click.echo(f"mail {retry_id} queued again" if ok else f"mail {retry_id} is not a failed mail")
        raise click.exceptions.Exit(0 if ok else 2)
    if now and not once:
        raise click.UsageError("--now goes with --once (a running service reads the clock)")
    if once:
        try:
            done = service.cycle(turns.parse_time(now) if now else None)
        finally:
            service.release()
        if as_json:
            emit_json({"cycle": {k: getattr(done, k) for k in done.__struct_fields__}})
        else:
            click.echo(f"read {done.read} mail(s): {done.applied} block(s) applied, {done.refused} refused; "
                       f"{done.ticked} event(s) by deadlines and bots; {done.queued} mail(s) queued, "
                       f"{done.sent} sent, {done.failed} failed")
            for err in done.errors:
                click.echo(f"error: {err}", err=True)
        return

    def stop(signum: int, frame: FrameType | None) -> None:
        service.stop.set()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    service.run(cycles)


def _clock() -> str:
    from mncore.service.policy import utc_now
    return utc_now()


def _status(service: Service, as_json: bool) -> None:
    tables = service.tables
    counts, status = tables.counts(), tables.status()
    recent = tables.mails(limit=10)
    games = service.game_ids()
    if as_json:
        emit_json({"games": games, "outbox": counts, "status": status,
                   "recent": [dict(zip(("id", "kind", "to", "subject", "state", "attempts", "error", "sent_at"), r))
                              for r in recent]})
        return
    click.echo(f"games: {', '.join(games) or 'none'}")
    click.echo("outbox: " + ", ".join(f"{n} {state}" for state, n in counts.items()))
    click.echo(f"last cycle: {status.get('last_cycle', 'never')} by {status.get('owner', '-')}")
    click.echo(f"last fetch: {status.get('last_fetch', 'never')}")
    click.echo(f"errors: {status.get('last_errors') or 'none'}")
    for r in recent:
        err = f" ({r[6]})" if r[6] else ""
        click.echo(f"  mail {r[0]}: {r[4]}, {r[1]} to {r[2]}: {r[3]}{err}")


COMMANDS = [serve]
