"""The bots' strength and speed (issue 28): win rates with 95% Wilson intervals and CPU seconds a decision.

python bench/bots.py [--games N] [--budget N] [--ruleset empires|classic|both] [--sides 3|5|both]
                    [--level heuristic|search|both] [--first G]

Empires games on the reference board, played in memory to a win (or MAX_ORDERS, counted as not won):
the heuristic bot against random players (the sampler), and the search bot against heuristic bots, with
3 and 5 empires; the bot's seat turns round the table from game to game. The 2003 game likewise, its
scripted players (style "heroes") standing in for random ones. Goals: heuristic >= 80% of 5-empire games
against four random players, search >= 40% against four heuristic players, <= 2 s a decision.
Game g of a match-up is seeded by g alone: `--first` continues a run (games G to G+N-1), so runs add up.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from collections.abc import Callable

from mncore.bots.choosing import DEFAULT_BUDGET
from mncore.core.dice import Rng, seeded_secret
from mncore.core.protocol import NewGame
from mncore.games import writing
from mncore.rulesets.classic.players import bot_tactics as classic_tactics
from mncore.rulesets.classic.players.demo import demo_command
from mncore.rulesets.classic.seam import RULESET as CLASSIC
from mncore.rulesets.empires.board import load_board
from mncore.rulesets.empires.players import autoplay as empires_autoplay
from mncore.rulesets.empires.players import bot_tactics as empires_tactics
from mncore.rulesets.empires.rules.setup import playable_empires
from mncore.rulesets.empires.seam import RULESET as EMPIRES

MAX_ORDERS = 4_000
GOALS = {("empires", "heuristic", "random", 5): 0.80, ("empires", "search", "heuristic", 5): 0.40}
DECISION_GOAL = 2.0  # seconds


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a win rate."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


Timer = Callable[[str, str, float], None]


def empires_game(sides: int, seat: int, level: str, others: str, budget: int | None, seed: int,
                 timed: Timer) -> bool:
    """One Empires game: does the bot in `seat` win?"""
    empires = playable_empires(load_board(), sides)
    me = empires[seat % sides]
    secret = seeded_secret(f"bench-bots-{sides}-{level}-{seed}")
    _, state = writing.creation(EMPIRES, EMPIRES.new_game(NewGame(sides=empires, fair_play=False)), secret)
    levels = {me: level} | ({e: others for e in empires if e != me} if others != "random" else {})
    pick = empires_tactics.bot_pick(levels, budget, str(seed), timed=lambda s, lv, t: timed(s, lv, t)
                                    if s == me else None)
    for choice in empires_autoplay.play(state, random.Random(seed), lambda n: Rng(secret, f"{n:064x}"),
                                        MAX_ORDERS, style="random", pick=pick):
        state = choice.after
    return state.winner is not None and me in state.winner.empires


def classic_game(sides: int, seat: int, level: str, others: str, budget: int | None, seed: int,
                 timed: Timer) -> bool:
    """One 2003 game: does the bot in `seat` win?"""
    cmd = demo_command(sides)
    me = cmd.civs[seat % sides]
    secret = seeded_secret(f"bench-bots-classic-{sides}-{level}-{seed}")
    _, state = writing.creation(CLASSIC, cmd, secret)
    levels = {me: level} | ({c: others for c in cmd.civs if c != me} if others != "random" else {})
    pick = classic_tactics.bot_pick(levels, budget, str(seed), timed=lambda s, lv, t: timed(s, lv, t)
                                    if s == me else None)
    rand = random.Random(seed)
    for n in range(MAX_ORDERS):
        waiting = sorted({p.empire for p in CLASSIC.pending(state)})
        if state.winner is not None or not waiting:
            break
        civ = rand.choice(waiting)
        rng = Rng(secret, f"{n:064x}")
        _, state = CLASSIC.decide(state, pick(state, civ, "heroes", rand, rng), rng)
    return state.winner is not None and state.winner.civ == me


def matchup(ruleset: str, sides: int, level: str, others: str, games: int, budget: int | None,
            first: int = 0) -> None:
    times: list[float] = []
    play = empires_game if ruleset == "empires" else classic_game
    wins = sum(play(sides, g, level, others, budget, g, lambda s, lv, t: times.append(t))
               for g in range(first, first + games))
    low, high = wilson(wins, games)
    spent = budget or DEFAULT_BUDGET[level]
    goal = GOALS.get((ruleset, level, others, sides))
    verdict = "" if goal is None else (f"; goal >= {goal:.0%}: " + ("met" if wins / games >= goal else "NOT met"))
    slow = max(times, default=0.0)
    against = "heroes" if ruleset == "classic" and others == "random" else others  # the 2003 game's scripted style
    print(f"{ruleset:8} {sides} sides  {level:9} (budget {spent:3}) vs {against:9}: won {wins}/{games} = "
          f"{wins / games:4.0%} (95% {low:.0%} to {high:.0%}){verdict}")
    print(f"{'':17}CPU s a decision over {len(times)}: min {min(times, default=0):.3f}, median "
          f"{statistics.median(times) if times else 0:.3f}, max {slow:.3f}; goal <= {DECISION_GOAL:.0f} s: "
          + ("met" if slow <= DECISION_GOAL else "NOT met"), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=6, help="games per match-up (default 6)")
    parser.add_argument("--budget", type=int, default=None, help="the search bot's playouts (default its own)")
    parser.add_argument("--ruleset", choices=("empires", "classic", "both"), default="empires")
    parser.add_argument("--sides", choices=("3", "5", "both"), default="both", help="the sides a game (default both)")
    parser.add_argument("--level", choices=("heuristic", "search", "both"), default="both",
                        help="heuristic against random, search against heuristic, or both (default)")
    parser.add_argument("--first", type=int, default=0, help="the first game's number (default 0)")
    opts = parser.parse_args()
    started = time.perf_counter()
    for ruleset in ("empires", "classic") if opts.ruleset == "both" else (opts.ruleset,):
        for sides in (3, 5) if opts.sides == "both" else (int(opts.sides),):
            if opts.level in ("heuristic", "both"):
                matchup(ruleset, sides, "heuristic", "random", opts.games, None, opts.first)
            if opts.level in ("search", "both"):
                matchup(ruleset, sides, "search", "heuristic", opts.games, opts.budget, opts.first)
    print(f"{time.perf_counter() - started:.0f} s wall in all")


if __name__ == "__main__":
    main()
