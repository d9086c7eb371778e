"""What a ruleset supplies its bots: the orders worth weighing, a fast scripted player, a state's worth."""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any, Protocol

WIN = 1000.0  # a won game's worth to the winner (a lost one's is -WIN): beyond any heuristic score


class Tactics(Protocol):
    """One ruleset's knowledge of how to play it well, beside its scripted players (autoplay).

    Every state passed in is a sampled world (mncore.bots.worlds): what the side may not know is a
    stand-in already, so nothing here can read a hidden fact.
    """

    def candidates(self, state: Any, side: str, rand: random.Random) -> list[str]:
        """The order lines worth weighing for side now, some perhaps refused (decide is the judge)."""
    def quick(self, state: Any, side: str, rand: random.Random) -> Iterable[str]:
        """The lines a fast scripted player tries in turn (playouts): the first accepted is played."""
    def score(self, state: Any, side: str) -> float:
        """How good the state is for side: WIN if it won, -WIN if another did, else towards winning."""


def fillings(template: str, parts: dict[str, tuple[str, ...]], rand: random.Random, samples: int) -> list[str]:
    """A few fillings of an option's template with legal parts (none if a part has no legal value)."""
    if any(not values for values in parts.values()):
        return []
    return list(dict.fromkeys(template.format(**{k: rand.choice(v) for k, v in parts.items()})
                              for _ in range(samples)))
