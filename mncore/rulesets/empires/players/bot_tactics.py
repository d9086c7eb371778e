"""What the Empires bots know of the game: the orders worth weighing and a state's worth to an empire."""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any, cast

from mncore.bots import choosing as bots
from mncore.bots.tactics import WIN, fillings
from mncore.bots.worlds import public_seed
from mncore.core.dice import Rng
from mncore.rulesets.empires.decide import decide_folded
from mncore.rulesets.empires.ids import Empire, Track
from mncore.rulesets.empires.players.autoplay import STYLES, Choice, Pick, _options, first_accepted, waiting_empire
from mncore.rulesets.empires.players.sampler import lines as sampled_lines
from mncore.rulesets.empires.projections import tracks
from mncore.rulesets.empires.seam import RULESET
from mncore.rulesets.empires.state import GameState, bag_total
from mncore.rulesets.empires.text import parse_order

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

    def quick(self, state: Any, side: str, rand: random.Random, weights: dict[str, float] | None = None
              ) -> Iterable[str]:
        s, empire = cast(GameState, state), cast(Empire, side)
        return itertools.chain(sampled_lines(s, empire, rand, STYLES["builder"] if weights is None else weights),
                               self._listed(s, empire, rand))

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


def worth(state: GameState, empire: Empire, levels: dict[Empire, dict[Track, int]]) -> float:
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


def bot_pick(levels: dict[Empire, str], budget: int | None = None, seed: str = "",
             timed: Callable[[str, str, float], None] | None = None) -> Pick:
    """A scripted players' pick (autoplay.play, play_stored) in which the empires named play as bots of
    those levels (heuristic, search) and the others as the sampler draws for their style. A bot decides
    on worlds drawn from the game's commitment and the players' own random numbers, never the secret;
    its order is then decided on the real state with the game's draws (rng). `timed(side, level,
    seconds)` hears each decision's CPU time (bench/bots.py)."""
    def pick(state: GameState, rand: random.Random, rng: Rng, style: str = "random",
             styles: dict[Empire, str] | None = None) -> Choice | None:
        empire = waiting_empire(state, rand)
        if empire is None:
            return None
        level = levels.get(empire)
        if level is None:
            return _scripted(state, empire, rand, rng, STYLES[(styles or {}).get(empire, style)])
        public = public_seed(state.commitment, rand.getrandbits(64), seed)
        spent = budget or bots.DEFAULT_BUDGET[level]
        started = time.process_time()
        line = bots.decide(RULESET, TACTICS, state, empire, level, spent, public, seed).lines[0]
        if timed is not None:
            timed(empire, level, time.process_time() - started)
        order = parse_order(line, state, empire)
        events, after = decide_folded(state, order, rng)
        return Choice(empire=empire, line=line, order=order, events=events, after=after)
    return pick


def _scripted(state: GameState, empire: Empire, rand: random.Random, rng: Rng, weights: dict[str, float]) -> Choice:
    """The sampler's order for a player of that style, the expansions' card draws and plays included."""
    choice = first_accepted(state, empire, TACTICS.quick(state, empire, rand, weights), rng)
    if choice is not None:
        return choice
    raise RuntimeError(f"{empire} must act but none of its listed orders is accepted")
