"""What every mn command shares: opening the store, --json output, rulesets and sides by name."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click
import msgspec

from mncore import registry
from mncore.errors import InvalidCommand
from mncore.protocol import Audits, Maps, Ruleset
from mncore.store import Store

F = TypeVar("F", bound=Callable[..., Any])

_JSON = msgspec.json.Encoder(order="deterministic")


def open_store(ctx: click.Context, create: bool = False) -> Store:
    return Store(ctx.obj["db"], create=create)


def json_option(f: F) -> F:
    return click.option("--json", "as_json", is_flag=True,
                        help="Print one JSON document on stdout instead of text.")(f)


def as_option(required: bool = False, help: str = "The empire whose view or order this is.") -> Callable[[F], F]:
    return click.option("--as", "as_empire", required=required, metavar="EMPIRE", help=help)


def ruleset_option(f: F) -> F:
    return click.option("--ruleset", "ruleset_name", default="empires", show_default=True,
                        metavar="NAME", help="The game: a ruleset's short name or id "
                                             "(mn rules --rulesets lists them).")(f)


def side_arg(ruleset: Ruleset, text: str | None) -> str | None:
    """The side (empire) a user's text names in that ruleset, or None for no text."""
    return None if text is None else ruleset.resolve_side(text)


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


def order_lines(orders: tuple[str, ...]) -> list[str]:
    """Order lines from the arguments, or one a line from stdin for a lone '-' (# comments skipped)."""
    if orders == ("-",):
        lines = [ln.strip() for ln in sys.stdin.read().splitlines()]
        return [ln for ln in lines if ln and not ln.startswith("#")]
    if "-" in orders:
        raise InvalidCommand("'-' reads orders from stdin and must be the only ORDER")
    return list(orders)
