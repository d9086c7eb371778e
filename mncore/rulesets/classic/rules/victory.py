"""Winning the game (7): the Pyramids built, or 4 heroes and/or wonders held (5 in the longer game)."""

from __future__ import annotations

from mncore.rulesets.classic import events as ev
from mncore.rulesets.classic.components import game_data
from mncore.rulesets.classic.rules.fold import Fold
from mncore.rulesets.classic.rules.powers import win_with
from mncore.rulesets.classic.state import State


def after_purchase(state: State, bought: ev.CardBought, fold: Fold) -> list[ev.AnyEvent]:
    """The game ends at once when the buyer meets a victory condition (7.1, 7.2, 7.3), or the fewer
    cards a power of his lets him win with (WinWith, C16), the card just bought counting at once."""
    if bought.card == "pyramids":
        return [ev.GameWon(civ=bought.civ, condition="7.1", detail="built the Pyramids")]
    held = len(state.cards.get(bought.civ, ())) + 1
    need = game_data().victory[state.options.variant].cards
    section = "7.3" if state.options.variant == "long" else "7.2"
    by_power = win_with(fold([bought], state), bought.civ)
    if by_power is not None and by_power < need:
        need, section = by_power, "C16"
    if held >= need:
        return [ev.GameWon(civ=bought.civ, condition=section,
                           detail=f"holds {held} heroes and wonders")]
    return []
