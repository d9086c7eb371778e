"""What of the classic game is hidden from whom: hands and face-down offers, in states (views, positions)."""

from __future__ import annotations

from mncore.core.protocol import Hidden
from mncore.rulesets.classic.state import State

WITHHELD = "withheld"  # a card a reader may not see, standing in for it: how many stays public


def hidden_in_state(state: State, at: str) -> list[Hidden]:
    """A whole state's hidden facts: each hand its owner's, unrevealed offers their players'; what
    others read keeps how many cards there are."""
    t = state.trade
    # once the Director's card is given (3.2.6), until the trade ends in the same batch, where it went shows
    # in the cards taken and in the hands: others read each civ's cards taken and in hand as one count
    given = t.revealed and not t.done and not any(t.open.values()) and all(
        len(t.taken.get(c, ())) >= (t.asked or 0) for c in t.traders)
    taken = {c: len(v) for c, v in t.taken.items()} if given else {}
    out = [Hidden(field=f"{at}/hands/{c}", visible_to=(c,), public={WITHHELD: sum(h.values()) + taken.get(c, 0)})
           for c, h in state.hands.items() if h or taken.get(c)]
    out += [Hidden(field=f"{at}/trade/taken/{c}", visible_to=(c,), public=()) for c, v in t.taken.items()
            if given and v]
    if not state.trade.revealed:
        out += [Hidden(field=f"{at}/trade/offers/{c}", visible_to=(c,), public=(WITHHELD,) * len(v))
                for c, v in state.trade.offers.items() if v]
    return out
