"""The Ruleset protocol: what the kernel asks of every game it hosts, and the values it passes."""

from __future__ import annotations

import msgspec


class Pending(msgspec.Struct, frozen=True, kw_only=True):
    """A decision the game waits for: whose, of what kind, in words."""

    empire: str  # the side that decides
    kind: str
    text: str


class Option(msgspec.Struct, frozen=True, kw_only=True):
    """Something an empire may do now: a whole order line, or a template and the legal parts."""

    kind: str
    order: str | None = None  # an order line accepted as it is
    template: str | None = None  # e.g. "build legion in {province} pay {payment}"
    parts: dict[str, tuple[str, ...]] = {}  # legal values of each {part}
    note: str = ""
