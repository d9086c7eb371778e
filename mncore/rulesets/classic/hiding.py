"""What of the classic game is hidden from whom: hands and face-down offers, in states (views, positions)."""

from __future__ import annotations


from mncore.protocol import Hidden
from mncore.rulesets.classic.state import State


WITHHELD = "withheld"  # a card a reader may not see, standing in for it: how many stays public


def hidden_in_state(state: State, at: str) -> list[Hidden]:
    """A whole state's hidden facts: each hand its owner's, unrevealed offers their players'; what
    others read keeps how many cards there are."""
    out = [Hidden(field=f"{at}/hands/{c}", visible_to=(c,), public={WITHHELD: sum(h.values())})
           for c, h in state.hands.items() if h]
    if not state.trade.revealed:
        out += [Hidden(field=f"{at}/trade/offers/{c}", visible_to=(c,), public=(WITHHELD,) * len(v))
                for c, v in state.trade.offers.items() if v]
    return out
