"""Orders as text lines and events as sentences; one module per phase, gathered here."""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

import msgspec

from mncore.core import envelope
from mncore.core.errors import InvalidCommand
from mncore.rulesets.empires.commands import AnyOrder, Order, decode_command
from mncore.rulesets.empires.display_names import tile_name, title
from mncore.rulesets.empires.events import AnyEvent
from mncore.rulesets.empires.ids import Empire, Phase
from mncore.rulesets.empires.state import GameState
from mncore.rulesets.empires.text import (
    barbarians,
    build,
    cities,
    collect,
    game_sentences,
    leadership,
    military,
    sandbox,
    trade,
)
from mncore.rulesets.empires.text.parsing import NUMBER_CEILING, Ctx, Parser, shown
from mncore.secrecy.seen import Withheld

__all__ = ["Ctx", "Parser", "describe", "format_order", "paid_apart", "parse_order", "tile_name", "title",
           "verbs"]

Describe = Callable[[AnyEvent, Withheld], str | None]


@dataclass(frozen=True)
class PhaseText:
    """One text module's parts: its order verbs, order lines (None: it has none) and sentences."""

    phase: Phase | None  # whose orders its verbs parse; a verb of several phases goes to the current one's
    verbs: Mapping[str, Parser]
    format_order: Callable[[AnyOrder], str | None] | None
    describe: Describe


# In the order they are asked: the first module that answers gives the sentence or the order line.
TEXTS: tuple[PhaseText, ...] = (
    PhaseText(None, {}, None, game_sentences.describe),
    PhaseText("collect", collect.VERBS, collect.format_order, collect.describe),
    PhaseText("trade", trade.VERBS, trade.format_order, trade.describe),
    PhaseText("build", build.VERBS, build.format_order, build.describe),
    PhaseText("move", military.VERBS, military.format_order, military.describe),
    PhaseText("move", barbarians.VERBS, barbarians.format_order, barbarians.describe),
    PhaseText("leadership", leadership.VERBS, leadership.format_order, leadership.describe),
    PhaseText(None, sandbox.VERBS, sandbox.format_order, sandbox.describe),
    PhaseText(None, cities.VERBS, cities.format_order, cities.describe),
)


def verbs() -> Mapping[str, Sequence[tuple[str | None, Parser]]]:
    """Each order verb with its parsers and the phase each belongs to."""
    return _VERBS


def _verb_table() -> Mapping[str, Sequence[tuple[str | None, Parser]]]:
    table: dict[str, list[tuple[str | None, Parser]]] = {}
    for text in TEXTS:
        for verb, parser in text.verbs.items():
            table.setdefault(verb, []).append((text.phase, parser))
    return MappingProxyType({verb: tuple(parsers) for verb, parsers in table.items()})


_VERBS = _verb_table()  # built once: every order line is parsed against it

# characters that make shlex read a line otherwise than str.split() (quotes, escapes, comments); a
# printable line has no whitespace but the space, which both split on alike
_SHELL_SYNTAX = frozenset("'\"\\#")


def parse_order(text: str, state: GameState, empire: Empire) -> AnyOrder:
    """One order line (or its JSON form) as a command given by empire; InvalidCommand if malformed."""
    line = text.strip()
    if not line:
        raise InvalidCommand("empty order")
    if line.startswith("{"):
        return _parse_json(line, empire)
    try:
        words = line.split() if line.isprintable() and _SHELL_SYNTAX.isdisjoint(line) else shlex.split(line)
    except ValueError as err:
        raise InvalidCommand(f"cannot read the order '{line}': {err}") from None
    table = verbs()
    verb = words[0].lower()
    if verb not in table:
        import difflib  # only a verb not found pays for it

        close = difflib.get_close_matches(verb, list(table), n=1, cutoff=0.7)
        hint = f"did you mean {close[0]}? " if close else ""
        raise InvalidCommand(f"unknown order '{words[0]}'; {hint}orders are: {', '.join(sorted(table))} "
                             "(see docs/orders.md)")
    parsers = table[verb]
    parser = next((p for phase, p in parsers if phase == state.phase), parsers[0][1])
    return parser(Ctx(state, empire), words[1:])


def paid_apart(line: str) -> tuple[str, list[str]] | None:
    """A build, recruit or perseus line 'ORDER pay TOKENS' as ORDER and the words of TOKENS, when its
    command is ORDER's with the payment build.tokens_paid(words) reads (each is refused or parsed as in
    the whole line): plain words (split as parse_order splits them), no other 'pay' and no keyword after
    it. None for any other line: parse it whole."""
    head, pay, tail = line.partition(" pay ")
    if not pay or not line.isprintable() or not _SHELL_SYNTAX.isdisjoint(line):
        return None
    lowered, words = head.lower().split(), tail.split()
    if (not words or not lowered or lowered[0] not in build.PAID_VERBS or "pay" in lowered
            or any(w.lower() in build.KEYWORDS for w in words)):
        return None
    return head, words


def _parse_json(line: str, empire: Empire) -> AnyOrder:
    try:
        cmd = decode_command(line)
    except msgspec.ValidationError as err:
        raise InvalidCommand(f"invalid order JSON: {err}") from None
    except msgspec.DecodeError as err:
        raise InvalidCommand(f"malformed order JSON: {err}") from None
    except UnicodeEncodeError:
        raise InvalidCommand("the order is not valid UTF-8 text") from None
    if not isinstance(cmd, Order):
        raise InvalidCommand(f"{type(cmd).__name__} is not an order an empire can give")
    _check_numbers(msgspec.to_builtins(cmd), type(cmd).__name__)
    if cmd.empire != empire:
        raise InvalidCommand(f"the order is for {cmd.empire.title()}, but given --as {empire.title()}")
    return cmd


def _check_numbers(value: object, path: str) -> None:
    """Every number of a JSON order within 0..NUMBER_CEILING (a count, a face, a value, a payment):
    JSON reads any integer, and the order line's own bounds must not be a text-only shield."""
    if isinstance(value, bool):
        return
    if isinstance(value, int | float):
        if not isinstance(value, int) or not 0 <= value <= NUMBER_CEILING:
            raise InvalidCommand(f"{path}: {shown(str(value))} is not a whole number from 0 to "
                                 f"{NUMBER_CEILING}")
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_numbers(item, f"{path}.{key}")
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            _check_numbers(item, f"{path}[{i}]")


def format_order(order: AnyOrder) -> str:
    """The canonical order line of a command (accepted back by parse_order)."""
    for text in TEXTS:
        line = text.format_order(order) if text.format_order else None
        if line is not None:
            return line
    return msgspec.json.encode(order).decode()


def _describe(event: AnyEvent, withheld: Withheld = frozenset()) -> str:
    """One readable sentence for an event as the boundary let its reader see it (redaction.seen_event),
    the fields `withheld` gone from it; the host's, with nothing withheld, by default."""
    for text in TEXTS:
        sentence = text.describe(event, withheld)
        if sentence is not None:
            return sentence
    return f"{type(event).__name__}"


describe = envelope.describing(_describe, title)  # the kernel's events in the kernel's words


