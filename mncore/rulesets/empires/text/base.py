"""What every phase's text module shares: the parsing context, the parser type and the usage check."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mncore.errors import InvalidCommand
from mncore.rulesets.empires.commands import AnyOrder
from mncore.rulesets.empires.ids import Empire
from mncore.rulesets.empires.state import GameState


@dataclass(frozen=True)
class Ctx:
    """What a parser needs: the state (for names) and who gives the order."""

    state: GameState
    empire: Empire


Parser = Callable[[Ctx, list[str]], AnyOrder]


def need(words: list[str], count: int, usage: str) -> None:
    """Refuse an order line with too few or too many words, showing its usage."""
    if len(words) != count:
        raise InvalidCommand(f"usage: {usage}")
