"""What every mn command shares: opening the store, --json output, rulesets and sides by name."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click
import msgspec

from mncore import store as stores
from mncore.core.errors import InvalidCommand, OutputError
from mncore.core.name_matching import resolve_side_in_game
from mncore.core.protocol import Audits, Maps, Ruleset
from mncore.rulesets import registry
from mncore.store import Store

F = TypeVar("F", bound=Callable[..., Any])

_JSON = msgspec.json.Encoder(order="deterministic")


def open_store(ctx: click.Context, create: bool = False) -> Store:
    """The store --db (or $MN_DB) names: a SQLite file or a postgresql:// URL."""
    return stores.open_store(ctx.obj["db"], create=create)


def db_file(ctx: click.Context) -> str | None:
    """The SQLite file --db names, or None for a database on a server."""
    url: str = ctx.obj["db"]
    return None if stores.is_postgres(url) else stores.sqlite_path(url)


def is_export_path(target: str) -> bool:
    """Whether a command's GAME argument names a file (an export or a mail) rather than a stored game."""
    return target.endswith((".jsonl", ".eml")) and os.path.isfile(target)


def no_kept(kept_file: str | None) -> None:
    """--kept is for a report mail: refused with a stored game."""
    if kept_file is not None:
        raise InvalidCommand("--kept joins a report mail's delta to your export: give the mail as GAME")


def json_option(f: F) -> F:
    return click.option("--json", "as_json", is_flag=True,
                        help="Print one JSON document on stdout instead of text.")(f)


def as_option(required: bool = False, help: str = "The empire whose view or order this is.") -> Callable[[F], F]:
    return click.option("--as", "as_empire", required=required, metavar="EMPIRE", help=help)


def kept_option(f: F) -> F:
    """--kept EXPORT: of a report mail carrying only the events since the player's last (a delta)."""
    return click.option("--kept", "kept_file", default=None, type=click.Path(dir_okay=False, exists=True),
                        metavar="EXPORT", help="Of a report mail that carries only what came since your "
                                               "last (mn serve's delta): your export from before, to join it to.")(f)


def ruleset_option(f: F) -> F:
    return click.option("--ruleset", "ruleset_name", default="empires", show_default=True,
                        metavar="NAME", help="The game: a ruleset's short name or id "
                                             "(mn rules --rulesets lists them).")(f)


def side_arg(ruleset: Ruleset, state: Any, text: str | None) -> str | None:
    """The side (empire) a user's text names in that game (or its player's name), None for no text."""
    return None if text is None else resolve_side_in_game(ruleset, state, text)


def with_audits(ruleset: Ruleset) -> Any:
    """The ruleset, if it offers positions, explanations and diffs; else a clear refusal."""
    if not isinstance(ruleset, Audits):
        raise InvalidCommand(f"{ruleset.name} offers no positions, explanations or diffs")
    return ruleset


def with_maps(name: str) -> Any:
    """The named ruleset, if its board can be shown; else a clear refusal."""
    ruleset = registry.by_name(name)
    if not isinstance(ruleset, Maps):
        raise InvalidCommand(f"{ruleset.name} has no board to show")
    return ruleset


def emit_json(doc: object) -> None:
    sys.stdout.write(_JSON.encode(doc).decode() + "\n")


def to_builtins(obj: object) -> Any:
    return msgspec.to_builtins(obj, order="deterministic")


def check_output(ctx: click.Context, output: str | None) -> None:
    """Refuse an -o path that is the database (or one of its journal files) before any work."""
    path = db_file(ctx)
    if not output or output == "-" or path is None:
        return
    db = os.path.realpath(path)
    target = os.path.realpath(output)
    if target in (db, db + "-wal", db + "-shm", db + "-journal") or _same_file(target, db):
        raise OutputError(f"-o {output}: that is the database file {path}; "
                          "refusing to write over it")


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)  # a hard link to the database is the database
    except OSError:
        return False


def write_output(ctx: click.Context, output: str, data: bytes) -> None:
    """Write an -o file whole or not at all: a temporary file beside it, then an atomic rename."""
    check_output(ctx, output)
    folder = os.path.dirname(os.path.abspath(output))
    if os.path.isdir(output):
        raise OutputError(f"-o {output}: is a directory; name a file")
    try:
        import tempfile  # only a command that writes a file pays for it

        fd, tmp = tempfile.mkstemp(prefix=".mn-", suffix=".tmp", dir=folder)
    except OSError as err:
        raise OutputError(f"-o {output}: cannot write in {folder} ({err.strerror or err}); "
                          "nothing was written") from None
    try:
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)  # as open() would have made it, not mkstemp's 0600
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, output)
    except BaseException as err:  # interrupted or refused: the temporary file goes, the target stays
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(err, OSError):
            raise OutputError(f"-o {output}: cannot write it ({err.strerror or err}); nothing was "
                              "written") from None
        raise
def order_lines(orders: tuple[str, ...]) -> list[str]:
    """Order lines from the arguments, or one a line from stdin for a lone '-' (# comments skipped)."""
    if orders == ("-",):
        lines = [ln.strip() for ln in sys.stdin.read().splitlines()]
        lines = [ln for ln in lines if ln and not ln.startswith("#")]
    elif "-" in orders:
        raise InvalidCommand("'-' reads orders from stdin and must be the only ORDER")
    else:
        lines = list(orders)
    for n, line in enumerate(lines, start=1):
        try:
            line.encode("utf-8")
        except UnicodeEncodeError:
            raise InvalidCommand(f"order {n} is not valid UTF-8 text") from None
    return lines
