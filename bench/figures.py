"""Shared by the benchmarks: repeated timing, min and median, and one printed line per figure."""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

CPU = time.process_time  # CPU-bound figures: what the machine's other load does not inflate
WALL = time.perf_counter  # I/O-bound figures: fsync and file reads are not CPU time
median = statistics.median


def args(doc: str | None, runs: int = 5) -> argparse.Namespace:
    """The options every benchmark takes: --runs N, --quick (a smaller input, for a quick look)."""
    parser = argparse.ArgumentParser(description=doc)
    parser.add_argument("--runs", type=int, default=runs, help=f"timed runs of each side (default {runs})")
    parser.add_argument("--quick", action="store_true", help="a smaller input: a rough figure in seconds")
    parser.add_argument("--db", default=None, help="the database holding the long game (a temp file by default)")
    ns = parser.parse_args()
    ns.runs = max(ns.runs, 1)
    return ns


def samples(fn: Callable[[], object], runs: int, clock: Callable[[], float] = CPU) -> list[float]:
    """Seconds taken by each of `runs` calls of fn on clock (after one untimed warm-up call)."""
    fn()
    out = []
    for _ in range(runs):
        t0 = clock()
        fn()
        out.append(clock() - t0)
    return out


def paired(fn: Callable[[], object], anchor: Callable[[], object], runs: int,
           clock: Callable[[], float] = CPU) -> tuple[list[float], list[float]]:
    """Seconds taken by each of `runs` calls of fn and of anchor, alternated call by call (after one untimed
    warm-up call of each), so that both see the machine's load of the same moments."""
    fn()
    anchor()
    ours: list[float] = []
    theirs: list[float] = []
    for _ in range(runs):
        for f, out in ((fn, ours), (anchor, theirs)):
            t0 = clock()
            f()
            out.append(clock() - t0)
    return ours, theirs


def rates(work: float, seconds: list[float]) -> tuple[float, float]:
    """(best, median) rate of `work` units done in each of the timings."""
    return work / min(seconds), work / statistics.median(seconds)


def line(name: str, unit: str, figure: tuple[float, float], anchor_name: str, anchor: tuple[float, float],
         goal: str | None, met: bool, runs: int) -> str:
    """One figure (min, median), its anchor's (min, median) on the same line, the ratio of the medians,
    the goal and whether the medians meet it (None: no goal is set)."""
    ratio = figure[1] / anchor[1]
    judged = "no goal set" if goal is None else f"goal {goal}: {'met' if met else 'NOT met'}"
    return (f"{name}: min {_fmt(figure[0])} median {_fmt(figure[1])} {unit} | {anchor_name}: min "
            f"{_fmt(anchor[0])} median {_fmt(anchor[1])} | ratio {ratio:.2f}x (medians, {runs} runs) | {judged}")


def _fmt(x: float) -> str:
    return f"{x:,.0f}" if x >= 100 else f"{x:.2f}"
