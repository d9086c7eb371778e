"""A ruleset's fold of many events in one call, declared beside its evolve for the kernel's fold of a log."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

Evolve = Callable[[Any, Any], Any]
FoldMany = Callable[[Any, Iterable[Any]], Any]

# evolve -> the function that folds a whole list of events as evolve would one by one: a replay then
# pays one call per event (the handler's) instead of two
_DECLARED: dict[Evolve, FoldMany] = {}


def declare(evolve: Evolve, many: FoldMany) -> None:
    """Declare that many(state, events) is the state evolve gives folding events one by one from state."""
    _DECLARED[evolve] = many


def of(evolve: Evolve) -> FoldMany | None:
    """The fold of many events declared for evolve, if any."""
    return _DECLARED.get(evolve)
