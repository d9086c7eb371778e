"""Seen[T]: a value as one side may see it, which only the redaction boundary makes."""

from __future__ import annotations

from typing import Generic, TypeVar

T = TypeVar("T")
Withheld = frozenset[str]  # the declared fields withheld from a reader: payload/offer, payload/offers/rome

_MINT = object()  # held by mncore.secrecy.boundary alone (tests/test_secrecy_boundary.py checks no other module uses it)


class Seen(Generic[T]):
    """A value as `viewer` may see it (None: the host, or anyone once the secret is out): every field the
    ruleset's declaration hides from viewer already withheld. A per-side output (an event's sentence, a
    view) takes a Seen value, so that mypy refuses one built from a value that did not pass the boundary."""

    __slots__ = ("value", "viewer", "withheld")

    def __init__(self, value: T, viewer: str | None, withheld: frozenset[str], mint: object) -> None:
        if mint is not _MINT:
            raise TypeError("a Seen value is made by mncore.secrecy.boundary only")
        self.value = value
        self.viewer = viewer
        self.withheld = withheld  # the declared fields withheld (payload/offer): a sentence may say so

    def __repr__(self) -> str:
        return f"Seen({self.value!r}, viewer={self.viewer!r}, withheld={sorted(self.withheld)!r})"
