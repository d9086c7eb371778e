"""What every mn command shares: opening the store, --json output, resolving names from options."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click
import msgspec

from mncore.rulesets.empires.ids import Empire
from mncore.rulesets.empires.names import resolve_empire
from mncore.rulesets.empires.ruleset import load_ruleset
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


def empire_arg(text: str | None) -> Empire | None:
    return None if text is None else resolve_empire(load_ruleset(), text)


def emit_json(doc: object) -> None:
    sys.stdout.write(_JSON.encode(doc).decode() + "\n")


def to_builtins(obj: object) -> Any:
    return msgspec.to_builtins(obj, order="deterministic")
