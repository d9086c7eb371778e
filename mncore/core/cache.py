"""Values derived from an immutable object, cached while that object lives."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class ObjectCache(Generic[K, V]):
    """Values derived from an object, cached while it lives (frozen Structs with dicts are not hashable)."""

    def __init__(self, derive: Callable[[K], V], limit: int = 32) -> None:
        self._derive = derive
        self._limit = limit
        # keyed by id(); the key object is kept so that its id cannot be reused while cached
        self._entries: dict[int, tuple[K, V]] = {}
        # the last answer, first: most callers ask of one object many times in a row (a game's board);
        # one tuple replaced whole, so that a thread reads one call's pair or another's, never a mix
        self._last: tuple[object, V | None] = (_NOTHING, None)

    def __call__(self, key: K) -> V:
        last = self._last
        if last[0] is key:
            return last[1]  # type: ignore[return-value]  # the pair (key, its value) set below
        entry = self._entries.get(id(key))
        if entry is None or entry[0] is not key:
            if len(self._entries) >= self._limit:
                self._entries.clear()
            entry = (key, self._derive(key))
            self._entries[id(key)] = entry
        self._last = entry
        return entry[1]


_NOTHING = object()  # no key asked yet
