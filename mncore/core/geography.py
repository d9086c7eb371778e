"""Board geography that belongs to no game: places, the links between them, and what links reach."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from mncore.core.errors import InvalidCommand


class Links:
    """Places of one kind and the places each is linked to (borders, coasts), indexed once.

    Links are read as listed; `one_sided()` says where a board lists a link on one side only, which
    a board check reports, so that every game reads its links both ways.
    """

    def __init__(self, kind: str, links: Mapping[str, Iterable[str]]) -> None:
        self.kind = kind
        self._links = {place: frozenset(others) for place, others in links.items()}

    def __contains__(self, place: object) -> bool:
        return place in self._links

    def places(self) -> frozenset[str]:
        return frozenset(self._links)

    def of(self, place: str) -> frozenset[str]:
        """The places linked to this one; InvalidCommand naming the kind if it is not known."""
        try:
            return self._links[place]
        except KeyError:
            raise InvalidCommand(f"unknown {self.kind} '{place}'") from None

    def linked(self, a: str, b: str) -> bool:
        """Whether a lists b (a place is never linked to itself)."""
        return a != b and b in self.of(a)

    def one_sided(self, back: Links | None = None) -> list[tuple[str, str]]:
        """Each (a, b) where a lists b but b, in `back` (this table by default), does not list a."""
        back = back or self
        return [(a, b) for a, others in self._links.items() for b in sorted(others)
                if b in back and a not in back.of(b)]

    def groups(self, within: Iterable[str]) -> dict[str, int]:
        """Each known place of `within` numbered by its connected group, moving only through `within`."""
        allowed = frozenset(within)
        label: dict[str, int] = {}
        count = 0
        for start in sorted(allowed):
            if start in self._links and start not in label:
                label |= dict.fromkeys(self.reach(start, allowed), count)
                count += 1
        return label

    def reach(self, start: str, within: frozenset[str] | None = None) -> set[str]:
        """Every place reached from start through links, staying inside `within` if given."""
        reached = {start}
        frontier = [start]
        while frontier:
            for nxt in self._links.get(frontier.pop(), frozenset()):
                if nxt not in reached and (within is None or nxt in within):
                    reached.add(nxt)
                    frontier.append(nxt)
        return reached
