"""The `mn` click group: global options, logging set-up and the translation of errors to exit codes."""

from __future__ import annotations

import os
import sys
from typing import Any

import click

from mncore.errors import MareNostrumError

EXIT_CODES_HELP = """\b
Exit codes:
  0  done
  1  refused by the rules (the message names the rule section or ruling)
  2  bad input: unknown game or name, malformed file, bad option
  3  conflict: the game moved on while you were writing, or a signed block is
     stale or was already applied; nothing written
  4  integrity failure: verify found a bad event (its sequence number named)
  5  internal error: a bug in mn; please report it"""

DEFAULT_DB = "mare-nostrum.db"


class MnGroup(click.Group):
    """A group that turns engine errors into one line on stderr and the documented exit code."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except MareNostrumError as err:
            click.echo(f"Error: {err.message}", err=True)
            ctx.exit(err.exit_code)
        except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException):
            raise
        except BrokenPipeError:
            # the reader (e.g. `| head`) stopped reading: not an error of ours
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            ctx.exit(0)
        except KeyboardInterrupt:
            click.echo("Error: interrupted; nothing more was written", err=True)
            ctx.exit(2)
        except Exception as err:  # a bug: still no traceback for the user
            click.echo(f"Error: internal error ({type(err).__name__}: {err}); "
                       "run with -v to see the trace in the log", err=True)
            if ctx.obj and ctx.obj.get("verbose"):
                import traceback
                traceback.print_exc(file=sys.stderr)
            ctx.exit(5)


@click.group(cls=MnGroup, epilog=EXIT_CODES_HELP)
@click.option("--db", "db", type=click.Path(dir_okay=False), default=None,
              help=f"SQLite database file [default: $MN_DB or ./{DEFAULT_DB}]")
@click.option("-v", "--verbose", count=True, help="More log detail on stderr (-vv for debug).")
@click.option("--log-format", type=click.Choice(["console", "json"]), default=None,
              help="Log format on stderr [default: console on a terminal, json otherwise].")
@click.version_option(package_name="mare-nostrum", prog_name="mn")
@click.pass_context
def main(ctx: click.Context, db: str | None, verbose: int, log_format: str | None) -> None:
    """mn: play, replay and audit games of Mare Nostrum: Empires, one verifiable event log each."""
    from mncli.logs import configure_logging

    ctx.ensure_object(dict)
    ctx.obj["db"] = db or os.environ.get("MN_DB") or DEFAULT_DB
    ctx.obj["verbose"] = verbose
    configure_logging(verbose, log_format)


def _register() -> None:
    from mncli import audit_cmds, demo_cmd, game_cmds, history_cmds, map_cmd, rules_cmd, sign_cmds

    for command in (*game_cmds.COMMANDS, *history_cmds.COMMANDS, *rules_cmd.COMMANDS,
                    *demo_cmd.COMMANDS, *audit_cmds.COMMANDS, *sign_cmds.COMMANDS):
        main.add_command(command)
    main.add_command(map_cmd.map_group)


_register()
