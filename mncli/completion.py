"""Shell completion of game ids, sides and order verbs, read from the database the line names."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import click
from click.shell_completion import CompletionItem

Completer = Callable[[click.Context, click.Parameter, str], list[CompletionItem]]


def games(ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """The ids of the games in the database that start as typed."""
    store = _store(ctx)
    if store is None:
        return []
    return [CompletionItem(g.id, help=f"{g.events} events") for g in store.games() if g.id.startswith(incomplete)]


def sides(ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """The sides of the game named before, as --as takes them (lower case)."""
    cur = _game(ctx)
    if cur is None:
        return []
    names = [s.lower() for s in cur.ruleset.meta(cur.state).sides]
    return [CompletionItem(n) for n in names if n.startswith(incomplete.lower())]


def verbs(ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """The verbs of the orders the side named by --as may give now (`mn options` gives the rest): a
    whole line would need quoting, since each argument of `mn order` is one order."""
    cur = _game(ctx)
    side = ctx.params.get("as_empire")
    if cur is None or not side:
        return []
    ruleset = cur.ruleset
    found: list[str] = []
    for option in ruleset.options(cur.state, ruleset.resolve_side(side)):
        verb = (option.order or option.template or "").split(" ", 1)[0]
        if verb and "{" not in verb and verb.startswith(incomplete) and verb not in found:
            found.append(verb)
    return [CompletionItem(v) for v in found]


def attach(command: click.Command) -> None:
    """Complete a command's GAME argument, its --as and the order verbs of `mn order`."""
    completers: dict[str, Completer] = {"game_id": games, "as_empire": sides}
    if command.name == "seat":
        completers["side"] = sides
    if command.name == "order":
        completers["orders"] = verbs
    for param in command.params:
        done = completers.get(param.name or "")
        if done is not None:
            # click keeps a parameter's completer here; set after the fact so that the commands'
            # decorators stay as they are (one place says what completes what)
            param._custom_shell_complete = _quiet(done)


def _quiet(completer: Completer) -> Completer:
    """A completer that offers nothing rather than print a traceback into the user's shell."""
    def complete(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
        try:
            return completer(ctx, param, incomplete)
        except Exception:  # completion runs inside the shell: any failure offers nothing
            return []
    return complete


def _store(ctx: click.Context) -> Any:
    from mncore import store as stores

    root = ctx.find_root()
    db = root.params.get("db") or os.environ.get("MN_DB") or "mare-nostrum.db"
    if not stores.is_postgres(db) and not os.path.isfile(stores.sqlite_path(db)):
        return None  # never create a database by pressing tab
    return stores.open_store(db)


def _game(ctx: click.Context) -> Any:
    from mncore.games import reading

    # with an option still waiting for its value (`--as <tab>`) click leaves GAME among the unparsed args
    store, game_id = _store(ctx), ctx.params.get("game_id") or next(iter(ctx.args), None)
    if store is None or not game_id or not store.has_game(game_id):
        return None
    return reading.current(store, game_id)
