"""Scripted 5-empire games played in memory (decide + evolve, no store), the players drawing their orders
with the sampler (mncore/rulesets/empires/players/sampler.py): games per second.

python bench/games.py [--quick] [--runs N]

The goal is absolute (15 games/s), so the ratio is against the goal.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import figures  # noqa: E402
import longgame  # noqa: E402,F401  (quiets the engine's log lines)

from mncore.core.dice import Rng, seeded_secret  # noqa: E402
from mncore.games import writing  # noqa: E402
from mncore.rulesets.empires.board import load_board  # noqa: E402
from mncore.rulesets.empires.commands import CreateGame  # noqa: E402
from mncore.rulesets.empires.players.autoplay import forget_parsed, play  # noqa: E402
from mncore.rulesets.empires.players.sampler import draw  # noqa: E402
from mncore.rulesets.empires.seam import RULESET  # noqa: E402

FIVE = ("rome", "greece", "babylon", "egypt", "carthage")  # the classic five (Atlantis needs its set-up)
GAMES = 4  # per timed run
MAX_ORDERS = 5_000
GOAL = 15.0
CMD = CreateGame(board=load_board(), players={e: e.title() for e in FIVE}, display="experienced",
                 fair_play=False)


def one(seed: int) -> tuple[int, bool]:
    """Play one scripted game to its end; (orders, won)."""
    secret = seeded_secret(f"games-{seed}")
    _, state = writing.creation(RULESET, CMD, secret)
    orders, won = 0, False
    for choice in play(state, random.Random(seed), lambda n: Rng(secret, f"{n:064x}"), MAX_ORDERS,
                       style="builder", pick=draw):
        orders += 1
        won = won or any(type(e).__name__ == "GameWon" for e in choice.events)
    return orders, won


def main() -> None:
    opts = figures.args(__doc__)
    n = 1 if opts.quick else GAMES
    played: list[tuple[int, bool]] = []

    def batch() -> None:
        forget_parsed()  # each run plays the same games: the lines the last run parsed are not remembered
        played.extend(one(s) for s in range(n))

    fig = figures.rates(n, figures.samples(batch, opts.runs))
    orders = sum(o for o, _ in played[:n])
    won = sum(w for _, w in played[:n])
    print(figures.line(f"scripted 5-empire games in memory ({n} a run, {won} won, {orders:,} orders)", "games/s CPU",
                       fig, "goal", (GOAL, GOAL), f">= {GOAL:.0f} games/s", fig[1] >= GOAL, opts.runs))


if __name__ == "__main__":
    main()
