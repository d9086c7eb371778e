"""The fold a rule is given to see the state after its own events, so that no rule imports the reducer."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from mncore.rulesets.empires.events import AnyEvent
from mncore.rulesets.empires.state import GameState

# (events, state) -> the state after them; the caller (flow, decide) passes evolve.replay.
Fold = Callable[[Sequence[AnyEvent], GameState], GameState]
