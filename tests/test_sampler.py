"""The sampler's scripted players: every order they draw is one decide() accepts, in random games."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mncore.rulesets.empires.decide import decide
from mncore.rulesets.empires.flow import pending
from mncore.rulesets.empires.ids import Empire
from mncore.rulesets.empires.players.sampler import draw
from mncore.rulesets.empires.text import parse_order
from support import FIVE, FOUR, THREE, new_game


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), players=st.sampled_from([THREE, FOUR, FIVE]),
       style=st.sampled_from(["random", "builder", "general"]))
def test_every_sampled_order_is_accepted_by_decide(seed: int, players: dict[Empire, str],
                                                   style: str) -> None:
    """Whoever must act gets an order; its line reads back as the same order, and decide() given it
    again accepts it and gives the very events the sampler reported."""
    play = new_game(players, seed=str(seed), display="first-game")
    rand = random.Random(seed)
    for _ in range(300):
        state = play.state
        choice = draw(state, rand, play.rng(), style=style)
        if choice is None:
            assert pending(state) == []
            break
        assert choice.empire in {p.empire for p in pending(state)}

        order = parse_order(choice.line, state, choice.empire)
        again = decide(state, order, play.rng())  # a fresh stream: as the store decides it again

        assert order == choice.order and again == choice.events
        play.given(*choice.events)
        if play.state.winner is not None:
            break

