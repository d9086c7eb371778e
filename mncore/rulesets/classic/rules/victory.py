"""Winning the game (7): the Pyramids built, or 4 heroes and/or wonders held (5 in the longer game)."""

from __future__ import annotations

from mncore.rulesets.classic import events as ev
from mncore.rulesets.classic.components import game_data
from mncore.rulesets.classic.state import State


def after_purchase(state: State, bought: ev.CardBought) -> list[ev.AnyEvent]:
    """The game ends at once when the buyer meets a victory condition (7.1, 7.2, 7.3)."""
    if bought.card == "pyramids":
        return [ev.GameWon(civ=bought.civ, condition="7.1", detail="built the Pyramids")]
    held = len(state.cards.get(bought.civ, ())) + 1
    need = game_data().victory[state.options.variant].cards
    if held >= need:
        section = "7.3" if state.options.variant == "long" else "7.2"
        return [ev.GameWon(civ=bought.civ, condition=section,
                           detail=f"holds {held} heroes and wonders")]
    return []
