"""What the 2003 game's bots know of it: the orders worth weighing and a state's worth to a civilisation."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable
from typing import Any, cast

from mncore.bots import choosing as bots
from mncore.bots.tactics import WIN, fillings
from mncore.bots.worlds import public_seed
from mncore.core.dice import Rng
from mncore.rulesets.classic import commands as cm
from mncore.rulesets.classic.flow import options
from mncore.rulesets.classic.players.autoplay import STYLES, Pick, choose, first_accepted
from mncore.rulesets.classic.rules.commerce import income
from mncore.rulesets.classic.seam import RULESET
from mncore.rulesets.classic.state import State, Units

SAMPLES = 4  # fillings of each option's template weighed
FIRST = 8  # lines of each scripted style's preference weighed
CANDIDATES = 40
RIVAL = 0.3  # how much the strongest rival's worth takes off a civilisation's own


class ClassicTactics:
    """The 2003 game's bots' Tactics (mncore.bots.tactics)."""

    def candidates(self, state: Any, side: str, rand: random.Random) -> list[str]:
        s = cast(State, state)
        preferred = [ln for style in STYLES for ln in choose(s, side, style, rand)[:FIRST]]
        listed = self._listed(s, side, rand)
        rand.shuffle(listed)
        return list(dict.fromkeys(preferred + listed))[:CANDIDATES]

    def quick(self, state: Any, side: str, rand: random.Random) -> Iterable[str]:
        s = cast(State, state)
        yield from choose(s, side, "heroes", rand)
        yield from self._listed(s, side, rand)

    @staticmethod
    def _listed(state: State, side: str, rand: random.Random) -> list[str]:
        return [ln for o in options(state, side) for ln in (
            [o.order] if o.order is not None
            else fillings(o.template, o.parts, rand, SAMPLES) if o.template is not None else [])]

    def score(self, state: Any, side: str) -> float:
        s = cast(State, state)
        if s.winner is not None:
            return WIN if s.winner.civ == side else -WIN
        rival = max((worth(s, c) for c in s.civs if c != side), default=0.0)
        return worth(s, side) - RIVAL * rival


def worth(state: State, civ: str) -> float:
    """How far a civilisation is towards winning (7: the Pyramids, or 4 heroes and wonders): the cards
    it holds, its hand (a count others may see; worth little, as the hand limit takes the rest), its
    income, provinces, legions and roles."""
    cards = len(state.cards.get(civ, ()))
    provinces = sum(1 for land in state.lands.values() if land.influence == civ)
    yearly = sum(sum(income(land, civ).values()) for land in state.lands.values())
    legions = sum(land.units.get(civ, Units()).movers() for land in state.lands.values())
    roles = sum(1 for holder in state.roles.values() if holder == civ)
    return (12.0 * cards + (10.0 if cards >= 3 else 0.0) + 0.3 * state.hand_size(civ) + 2.5 * yearly
            + 1.5 * provinces + 0.3 * legions + 2.0 * roles)


TACTICS = ClassicTactics()


def bot_pick(levels: dict[str, str], budget: int | None = None, seed: str = "",
             timed: Callable[[str, str, float], None] | None = None) -> Pick:
    """A scripted civilisations' pick (autoplay.play_stored) in which the civilisations named play as bots
    of those levels (heuristic, search) and the others by their style. A bot decides on worlds drawn from
    the game's commitment and the players' own random numbers, never the secret.
    `timed(side, level, seconds)` hears each decision's CPU time (bench/bots.py)."""
    def pick(state: State, civ: str, style: str, rand: random.Random, rng: Rng) -> cm.AnyOrder:
        level = levels.get(civ)
        if level is None:
            return first_accepted(state, civ, style, rand, rng)
        public = public_seed(state.commitment, rand.getrandbits(64), seed)
        started = time.process_time()
        line = bots.decide(RULESET, TACTICS, state, civ, level, budget or bots.DEFAULT_BUDGET[level], public,
                           seed).lines[0]
        if timed is not None:
            timed(civ, level, time.process_time() - started)
        order: cm.AnyOrder = RULESET.parse_order(line, state, civ)
        return order
    return pick
