"""The `mn` click group: global options, logging set-up and the translation of errors to exit codes."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any

import click

from mncore.core import collector
from mncore.core.errors import MareNostrumError

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
    """A group that turns engine errors into one line on stderr and the documented exit code.

    With --json anywhere among the subcommand's options, an error is also printed on stdout as a
    JSON document (docs/json.md, Errors), so that a script reading stdout always gets JSON.
    """

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.meta["mn.json"] = "--json" in (args[:args.index("--")] if "--" in args else args)
        return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context) -> Any:
        wants_json = bool(ctx.meta.get("mn.json"))
        try:
            return super().invoke(ctx)
        except MareNostrumError as err:
            if wants_json:
                emit_error(err.exit_code, type(err).__name__, err.message,
                           section=getattr(err, "section", None),
                           problems=getattr(err, "problems", None))
            click.echo(f"Error: {err.message}", err=True)
            ctx.exit(err.exit_code)
        except click.ClickException as err:
            if wants_json:
                emit_error(err.exit_code, type(err).__name__, err.format_message())
            raise
        except (click.exceptions.Exit, click.exceptions.Abort):
            raise
        except BrokenPipeError:
            # the reader (e.g. `| head`) stopped reading: not an error of ours
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            ctx.exit(0)
        except RecursionError:  # only hostile input nests this deep (JSON or TOML); readers name it
            if wants_json:
                emit_error(2, "InvalidInput", "the input is nested too deeply to read")
            click.echo("Error: the input is nested too deeply to read; nothing was written", err=True)
            ctx.exit(2)
        except KeyboardInterrupt:
            click.echo("Error: interrupted; nothing more was written", err=True)
            ctx.exit(2)
        except Exception as err:  # a bug: still no traceback for the user
            if wants_json:
                emit_error(5, "InternalError", f"{type(err).__name__}: {err}")
            click.echo(f"Error: internal error ({type(err).__name__}: {err}); "
                       "run with -v to see the trace in the log", err=True)
            if ctx.obj and ctx.obj.get("verbose"):
                import traceback
                traceback.print_exc(file=sys.stderr)
            ctx.exit(5)


# Which module holds each command, so that a command imports its own module and no other (a lean
# start); a command missing here is still found, by loading every module.
def _game_cmds() -> ModuleType:
    from mncli import game_cmds
    return game_cmds


def _history_cmds() -> ModuleType:
    from mncli import history_cmds
    return history_cmds


def _rules_cmd() -> ModuleType:
    from mncli import rules_cmd
    return rules_cmd


def _demo_cmd() -> ModuleType:
    from mncli import demo_cmd
    return demo_cmd


def _audit_cmds() -> ModuleType:
    from mncli import audit_cmds
    return audit_cmds


def _sign_cmds() -> ModuleType:
    from mncli import sign_cmds
    return sign_cmds


def _picture_cmds() -> ModuleType:
    from mncli import picture_cmds
    return picture_cmds


def _hosting_cmds() -> ModuleType:
    from mncli import hosting_cmds
    return hosting_cmds


def _report_cmd() -> ModuleType:
    from mncli import report_cmd
    return report_cmd


def _mail_cmds() -> ModuleType:
    from mncli import mail_cmds
    return mail_cmds


def _serve_cmd() -> ModuleType:
    from mncli import serve_cmd
    return serve_cmd


def _pbem_cmds() -> ModuleType:
    from mncli import pbem_cmds
    return pbem_cmds


def _play_cmd() -> ModuleType:
    from mncli import play_cmd
    return play_cmd


def _bot_cmd() -> ModuleType:
    from mncli import bot_cmd
    return bot_cmd


def _map_cmd() -> ModuleType:
    from mncli import map_cmd
    return map_cmd


_MODULES: dict[str, Callable[[], ModuleType]] = {
    "game_cmds": _game_cmds, "history_cmds": _history_cmds, "rules_cmd": _rules_cmd,
    "demo_cmd": _demo_cmd, "audit_cmds": _audit_cmds, "sign_cmds": _sign_cmds,
    "picture_cmds": _picture_cmds, "map_cmd": _map_cmd, "hosting_cmds": _hosting_cmds,
    "pbem_cmds": _pbem_cmds, "report_cmd": _report_cmd, "mail_cmds": _mail_cmds, "play_cmd": _play_cmd,
    "serve_cmd": _serve_cmd, "bot_cmd": _bot_cmd}
_HOME = {
    **dict.fromkeys(("games", "copy-db", "check-upgrade"), "hosting_cmds"),
    **dict.fromkeys(("new", "status", "show", "replay", "log", "order", "options", "reveal",
                     "fork"), "game_cmds"),
    **dict.fromkeys(("export", "import", "verify", "upgrade"), "history_cmds"),
    **dict.fromkeys(("position", "check", "diff", "explain", "dispute"), "audit_cmds"),
    "rules": "rules_cmd", "demo": "demo_cmd", "map": "map_cmd", "sign": "sign_cmds", "keygen": "sign_cmds",
    "draw": "picture_cmds", "html": "picture_cmds", "report": "report_cmd", "mail": "mail_cmds",
    "play": "play_cmd", "serve": "serve_cmd", "bot": "bot_cmd",
    **dict.fromkeys(("undo", "consent", "correct", "deadline", "tick", "standing", "seat"), "pbem_cmds"),
}


class LazyGroup(MnGroup):
    """Commands loaded from their own module when first named; all of them only for --help."""

    def resolve_command(self, ctx: click.Context, args: list[str]) -> tuple[str | None, click.Command | None,
                                                                            list[str]]:
        found = super().resolve_command(ctx, args)
        collector.resume()  # the start is over: the command's module is loaded (mncli/start.py)
        return found

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands:
            home = _HOME.get(cmd_name)
            for module_name in ([home] if home else []) + [m for m in _MODULES if m != home]:
                if cmd_name in self._load(module_name):
                    break
        return self.commands.get(cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        for module_name in _MODULES:
            self._load(module_name)
        return sorted(self.commands)

    def _load(self, module_name: str) -> set[str]:
        """Add a module's commands (with --db after them too); the names it holds."""
        module = _MODULES[module_name]()
        found = [*getattr(module, "COMMANDS", ()), *getattr(module, "GROUPS", ())]
        for command in found:
            if command.name not in self.commands:
                _with_db(command)
                _with_completion(command)
                self.add_command(command)
        return {str(c.name) for c in found}


@click.group(cls=LazyGroup, epilog=EXIT_CODES_HELP)
@click.option("--db", "db", type=click.Path(dir_okay=False), default=None, metavar="DB",
              help=f"The database: a SQLite file (PATH or sqlite:///PATH) or postgresql://USER@HOST/DB "
                   f"[default: $MN_DB or ./{DEFAULT_DB}]")
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON document on stdout, as the command's own --json does.")
@click.option("-v", "--verbose", count=True, help="More log detail on stderr (-vv for debug).")
@click.option("--log-format", type=click.Choice(["console", "json"]), default=None,
              help="Log format on stderr [default: console on a terminal, json otherwise].")
@click.version_option(package_name="mare-nostrum", prog_name="mn")
@click.pass_context
def main(ctx: click.Context, db: str | None, as_json: bool, verbose: int, log_format: str | None) -> None:
    """mn: play, replay and audit games of Mare Nostrum: Empires, one verifiable event log each."""
    from mncli.logs import configure_logging

    ctx.ensure_object(dict)
    ctx.obj["db"] = db or os.environ.get("MN_DB") or DEFAULT_DB
    ctx.obj["verbose"] = verbose
    ctx.obj["json"] = as_json
    configure_logging(verbose, log_format)
    from mncore.rulesets.players_by_id import seat_bots
    seat_bots()  # a bot holding a seat answers whenever the service answers (mncore/pbem/seats.py)


def emit_error(code: int, kind: str, message: str, section: str | None = None,
               problems: list[str] | None = None) -> None:
    """The JSON error document on stdout: {"error": {code, kind, message[, section][, problems]}}."""
    from mncli.common import emit_json

    doc: dict[str, Any] = {"code": code, "kind": kind, "message": message}
    if section is not None:
        doc["section"] = section
    if problems is not None:
        doc["problems"] = problems
    emit_json({"error": doc})


def _set_db(ctx: click.Context, _param: click.Parameter, value: str | None) -> None:
    if value is not None:
        ctx.find_root().ensure_object(dict)["db"] = value


def _global_json(ctx: click.Context, _param: click.Parameter, value: bool) -> bool:
    """A command's --json, or the group's (`mn --json status G`)."""
    return value or bool((ctx.find_root().obj or {}).get("json"))


def _refusing_global_json(callback: Callable[..., Any], name: str) -> Callable[..., Any]:
    """The command's callback, refusing the group's --json first: the command prints no JSON."""
    def run(*args: Any, **kwargs: Any) -> Any:
        if (click.get_current_context().find_root().obj or {}).get("json"):
            raise click.UsageError(f"--json: mn {name} prints no JSON document")
        return callback(*args, **kwargs)
    return run


def _with_completion(command: click.Command) -> None:
    """Tab completes game ids, sides and order lines (mncli/completion.py), in subcommands too."""
    from mncli.completion import attach

    for sub in (command.commands.values() if isinstance(command, click.Group) else [command]):
        _with_completion(sub) if isinstance(sub, click.Group) else attach(sub)


def _with_db(command: click.Command, path: str = "") -> None:
    """`--db` after the subcommand too (`mn status G --db X`): it sets the group's option. The
    group's `--json` is passed down to the command's own, and refused by a command without one."""
    name = f"{path} {command.name}".strip()
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            _with_db(sub, name)
        return
    own_json = [p for p in command.params if p.name == "as_json"]
    for param in own_json:
        param.callback = _global_json
    if not own_json and command.callback is not None:
        command.callback = _refusing_global_json(command.callback, name)
    command.params.append(click.Option(["--db"], type=click.Path(dir_okay=False), default=None,
                                       expose_value=False, callback=_set_db, is_eager=True,
                                       help="The database: a SQLite file or postgresql://... "
                                            "(as the global --db).",
                                       metavar="DB"))
