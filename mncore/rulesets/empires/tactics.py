"""What the Empires bots know of the game: the orders worth weighing and a state's worth to an empire."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Iterator
from typing import Any, cast

from mncore.bots.tactics import WIN, fillings
from mncore.rulesets.empires.autoplay import STYLES, _options
from mncore.rulesets.empires.ids import Empire
from mncore.rulesets.empires.projections import tracks
from mncore.rulesets.empires.sampler import lines as sampled_lines
from mncore.rulesets.empires.state import GameState, bag_total

SAMPLES = 4  # fillings of each option's template weighed
RIVAL = 0.3  # how much the strongest rival's worth takes off an empire's own


class EmpiresTactics:
    """The Empires bots' Tactics (mncore.bots.tactics), every expansion and set-up included."""

    def candidates(self, state: Any, side: str, rand: random.Random) -> list[str]:
        s, empire = cast(GameState, state), cast(Empire, side)
        lines = [ln for option in _options(s, empire) for ln in (
            [option.order] if option.order is not None
            else fillings(option.template, option.parts, rand, SAMPLES) if option.template is not None else [])]
        rand.shuffle(lines)
        return lines

    def quick(self, state: Any, side: str, rand: random.Random) -> Iterable[str]:
        s, empire = cast(GameState, state), cast(Empire, side)
        return itertools.chain(sampled_lines(s, empire, rand, STYLES["builder"]), self._listed(s, empire, rand))

    def _listed(self, state: GameState, empire: Empire, rand: random.Random) -> Iterator[str]:
        """Every option listed, expansions' cards included (the sampler's families leave them out)."""
        yield from self.candidates(state, empire, rand)

    def score(self, state: Any, side: str) -> float:
        s = cast(GameState, state)
        if s.winner is not None:
            return WIN if side in s.winner.empires else -WIN
        levels = tracks(s)
        rival = max((worth(s, e, levels) for e in s.empires if e != side), default=0.0)
        return worth(s, cast(Empire, side), levels) - RIVAL * rival


def worth(state: GameState, empire: Empire, levels: dict[Empire, dict[str, int]]) -> float:
    """How far an empire is towards the victory conditions (6.1 the Pyramids, 6.2 five heroes and
    wonders, 6.4 the three titles; an expansion's objectives), from what every side may see and its
    screen's count."""
    es = state.empires[empire]
    mine = levels[empire]
    titles = sum(1 for holder in state.titles.values() if holder == empire)
    leads = sum(1 for t, v in mine.items() if all(v > levels[e][t] for e in levels if e != empire))
    tiles = len(es.tiles)
    provinces = sum(1 for ps in state.provinces.values() if ps.controller == empire)
    out = (1.5 * sum(mine.values()) + 4.0 * titles + 2.0 * leads + (12.0 if titles == 3 else 0.0)
           + 9.0 * tiles + (12.0 if tiles >= 4 else 0.0) + 2.0 * provinces + 0.25 * bag_total(es.resources))
    cs = state.cities
    if cs is not None:
        out += 6.0 * sum(1 for e in cs.fulfilled.values() if e == empire) + 1.0 * len(cs.hands.get(empire, ()))
    return out


TACTICS = EmpiresTactics()
