"""What of the classic game is hidden from whom: hands and face-down offers, in events and states."""

from __future__ import annotations

from msgspec.structs import replace

from mncore.protocol import Hidden
from mncore.rulesets.classic.state import State


def state_for(state: State, viewer: str | None) -> State:
    """The state as viewer may see it: others' hands and face-down offers withheld."""
    if viewer is None:
        return state
    hands = {c: (h if c == viewer else {}) for c, h in state.hands.items()}
    t = state.trade
    offers = t.offers if t.revealed else {c: (v if c == viewer else ()) for c, v in t.offers.items()}
    return replace(state, hands=hands, trade=replace(t, offers=offers))


def hidden_in_state(state: State, at: str) -> list[Hidden]:
    """A whole state's hidden facts: each hand its owner's, unrevealed offers their players'."""
    out = [Hidden(field=f"{at}/hands/{c}", visible_to=(c,)) for c, h in state.hands.items() if h]
    if not state.trade.revealed:
        out += [Hidden(field=f"{at}/trade/offers/{c}", visible_to=(c,))
                for c, v in state.trade.offers.items() if v]
    return out
