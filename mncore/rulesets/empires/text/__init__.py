"""Orders as text lines and events as sentences; one module per phase, gathered here."""

from __future__ import annotations

import importlib
import shlex
from types import ModuleType
from collections.abc import Callable
from dataclasses import dataclass

import msgspec

from mncore.rulesets.empires.commands import AnyOrder, Order, decode_command
from mncore.errors import InvalidCommand
from mncore.rulesets.empires.events import AnyEvent
from mncore.rulesets.empires.ids import Empire
from mncore.rulesets.empires.state import GameState

# Each phase's text module, with the phase whose orders it parses (a verb such as "done" may belong
# to several phases: the current phase's parser takes it).
PHASE_TEXT: dict[str, str | None] = {
    "mncore.rulesets.empires.text.core": None, "mncore.rulesets.empires.text.collect": "collect", "mncore.rulesets.empires.text.trade": "trade",
    "mncore.rulesets.empires.text.build": "build", "mncore.rulesets.empires.text.military": "move", "mncore.rulesets.empires.text.leadership": "leadership",
    "mncore.rulesets.empires.text.sandbox": None,
}


@dataclass(frozen=True)
class Ctx:
    """What a parser needs: the state (for names) and who gives the order."""

    state: GameState
    empire: Empire


Parser = Callable[[Ctx, list[str]], AnyOrder]


def _modules() -> list[ModuleType]:
    out = []
    for name in PHASE_TEXT:
        try:
            out.append(importlib.import_module(name))
        except ModuleNotFoundError as err:
            if err.name != name:
                raise
    return out


def verbs() -> dict[str, list[tuple[str | None, Parser]]]:
    """Each order verb with its parsers and the phase each belongs to."""
    table: dict[str, list[tuple[str | None, Parser]]] = {}
    for m in _modules():
        for verb, parser in getattr(m, "VERBS", {}).items():
            table.setdefault(verb, []).append((PHASE_TEXT[m.__name__], parser))
    return table


def parse_order(text: str, state: GameState, empire: Empire) -> AnyOrder:
    """One order line (or its JSON form) as a command given by empire; InvalidCommand if malformed."""
    line = text.strip()
    if not line:
        raise InvalidCommand("empty order")
    if line.startswith("{"):
        return _parse_json(line, empire)
    try:
        words = shlex.split(line)
    except ValueError as err:
        raise InvalidCommand(f"cannot read the order '{line}': {err}") from None
    table = verbs()
    verb = words[0].lower()
    if verb not in table:
        raise InvalidCommand(f"unknown order '{words[0]}'; orders are: {', '.join(sorted(table))} "
                             "(see docs/orders.md)")
    parsers = table[verb]
    parser = next((p for phase, p in parsers if phase == state.phase), parsers[0][1])
    return parser(Ctx(state, empire), words[1:])


def _parse_json(line: str, empire: Empire) -> AnyOrder:
    try:
        cmd = decode_command(line)
    except msgspec.ValidationError as err:
        raise InvalidCommand(f"invalid order JSON: {err}") from None
    except msgspec.DecodeError as err:
        raise InvalidCommand(f"malformed order JSON: {err}") from None
    if not isinstance(cmd, Order):
        raise InvalidCommand(f"{type(cmd).__name__} is not an order an empire can give")
    if cmd.empire != empire:
        raise InvalidCommand(f"the order is for {cmd.empire.title()}, but given --as {empire.title()}")
    return cmd


def format_order(order: AnyOrder) -> str:
    """The canonical order line of a command (accepted back by parse_order)."""
    for m in _modules():
        fmt = getattr(m, "format_order", None)
        text = fmt(order) if fmt else None
        if text is not None:
            return str(text)
    return msgspec.json.encode(order).decode()


def describe(event: AnyEvent, viewer: Empire | None = None) -> str:
    """One readable sentence for an event, as seen by viewer (None: the host, who sees everything)."""
    for m in _modules():
        fn = getattr(m, "describe", None)
        text = fn(event, viewer) if fn else None
        if text is not None:
            return str(text)
    return f"{type(event).__name__}"


def redact_event(event: AnyEvent, viewer: Empire | None) -> AnyEvent:
    """The event as viewer may see it: hidden parts withheld (None: the host sees everything)."""
    if viewer is None:
        return event
    for m in _modules():
        fn = getattr(m, "redact", None)
        shown = fn(event, viewer) if fn else None
        if shown is not None:
            return shown  # type: ignore[no-any-return]
    return event


def need(words: list[str], count: int, usage: str) -> None:
    """Refuse an order line with too few or too many words, showing its usage."""
    if len(words) != count:
        raise InvalidCommand(f"usage: {usage}")


def title(name: str) -> str:
    return name.replace("-", " ").title()


def tile_name(tile_id: str) -> str:
    """A hero's or wonder's printed name (Ramses II, Colossus of Rhodes)."""
    from mncore.rulesets.empires.ruleset import load_ruleset, tile
    return tile(load_ruleset(), tile_id).name
