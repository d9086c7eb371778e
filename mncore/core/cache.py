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

    def __call__(self, key: K) -> V:
        entry = self._entries.get(id(key))
        if entry is not None and entry[0] is key:
            return entry[1]
        if len(self._entries) >= self._limit:
            self._entries.clear()
        value = self._derive(key)
        self._entries[id(key)] = (key, value)
        return value
