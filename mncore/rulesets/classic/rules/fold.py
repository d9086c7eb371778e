"""The fold a rule is given to see the state after its own events, so that no rule imports the reducer."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from mncore.rulesets.classic.events import AnyEvent
from mncore.rulesets.classic.state import State

# (events, state) -> the state after them; the flow passes evolve.replay.
Fold = Callable[[Sequence[AnyEvent], State], State]
