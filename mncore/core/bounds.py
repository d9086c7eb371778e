"""Ceilings on the numbers of hostile input (exports, positions, bundles), checked before use."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Annotated, Any

import msgspec

# No game comes near a million events, and no count, die, round or index in an event or a position is
# anywhere near it: a larger number in a file is refused before it sizes a list, a loop or a SQLite
# INTEGER (which holds 64 bits; Python's ints do not stop there).
MAX_NUMBER = 1_000_000

# an integer field of an event: msgspec refuses one beyond the ceiling as it decodes, so that a log's
# reader need not look for long numbers in a payload whose every number is one (core/bounded_decoding.py)
Number = Annotated[int, msgspec.Meta(ge=-MAX_NUMBER, le=MAX_NUMBER)]

# the event types whose every number msgspec refuses beyond the ceiling as it decodes, each declared by
# its module (tests/test_bounded_decoding.py holds every declaration to bounded_decoding.numbers_bounded):
# a log's reader looks for long numbers only in the payloads of the others
BOUNDED_WHILE_DECODING: set[type] = set()


def bounded_while_decoding(kinds: Iterable[type]) -> None:
    """Declare event types whose numbers are each a Number, in Structs that let no unknown field
    through, beside nothing untyped and no float (msgspec takes a long integer into either)."""
    BOUNDED_WHILE_DECODING.update(kinds)


def numbers(value: object, path: str = "$") -> Iterator[tuple[str, object]]:
    """Each number (int or float, not bool) inside a decoded JSON or TOML value, with its path.

    Iterative, so that a deeply nested value costs no Python recursion.
    """
    for where, _, _, n in _walk(value, path):
        yield where, n


def _walk(value: object, path: str) -> Iterator[tuple[str, object, object, object]]:
    """(path, container, key, number) for each number, depth first, without recursion."""
    stack: list[tuple[str, object, object, object]] = [(path, None, None, value)]
    while stack:
        where, parent, key, item = stack.pop()
        if isinstance(item, bool):
            continue
        if isinstance(item, int | float):
            yield where, parent, key, item
        elif isinstance(item, dict):
            stack.extend((f"{where}.{k}" if where else str(k), item, k, v)
                         for k, v in reversed(list(item.items())))
        elif isinstance(item, list | tuple):
            stack.extend((f"{where}[{i}]", item, i, v) for i, v in reversed(list(enumerate(item))))


def within(value: object, ceiling: int = MAX_NUMBER) -> bool:
    """Whether out_of_bounds finds nothing in a value msgspec decoded from JSON (dicts, lists and
    scalars of their exact types): its walk without the path it words each problem with (a string for
    each number of a board was most of a log's first read)."""
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is dict:
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)
        elif kind is int:
            if not -ceiling <= item <= ceiling:
                return False
        elif kind is float and not -_INF < item < _INF:  # infinite, or not a number (NaN compares false)
            return False
    return True


_INF = float("inf")


def out_of_bounds(value: object, path: str = "$", ceiling: int = MAX_NUMBER) -> list[str]:
    """A problem for each integer beyond ±ceiling (and each float that is not finite) in value."""
    return [problem for _, _, _, problem in _bad(value, path, ceiling)]


def set_aside_out_of_bounds(doc: dict[str, object], ceiling: int = MAX_NUMBER) -> list[str]:
    """Remove each out-of-bounds number from a freshly parsed document, a problem for each.

    A reader that lists every problem at once then checks what remains, defaults in their place.
    """
    bad = list(_bad(doc, "", ceiling))
    # the deepest first and list items from the end, so that each removal leaves the others' keys
    for _, parent, key, _ in sorted(bad, key=lambda b: (b[0].count(".") + b[0].count("["), b[0]),
                                    reverse=True):
        if isinstance(parent, dict):
            parent.pop(key, None)
        elif isinstance(parent, list) and isinstance(key, int):
            del parent[key]
    return [problem for _, _, _, problem in bad]


def _bad(value: object, path: str, ceiling: int) -> Iterator[tuple[str, object, object, str]]:
    for where, parent, key, n in _walk(value, path):
        if isinstance(n, float) and (n != n or n in (float("inf"), float("-inf"))):
            yield where, parent, key, f"{where}: {n} is not a number"
        elif isinstance(n, int) and not -ceiling <= n <= ceiling:
            yield where, parent, key, (f"{where}: {number_text(n)} is out of bounds (at most "
                                       f"{ceiling:,} either way)")


def shown(text: str, width: int = 24) -> str:
    """Text cut to width characters for a message (a 40-digit number is not repeated whole)."""
    return text if len(text) <= width else text[:width] + "…"


def number_text(n: int) -> str:
    """An integer for a message: its first digits (str() itself refuses 4,300 digits and more)."""
    try:
        return shown(str(n))
    except ValueError:
        return "a number of thousands of digits"
