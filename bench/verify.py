"""mn verify on a revealed game: events per second checked (chain, encoding, replay, every order re-decided).

python bench/verify.py [--quick] [--runs N] [--db PATH]

The goal is absolute (60k events/s), so the ratio is against the goal. verify decides the commands
again in segments, one process per core: the figure is wall time (the workers' CPU is not the
process's). Beside it, for scale: the one pass (workers=1) in CPU time, and decode + fold of the same
log (the replay verify cannot avoid).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import figures  # noqa: E402
from longgame import build  # noqa: E402

from mncore import game  # noqa: E402
from mncore.logread import decode_rows, fold  # noqa: E402
from mncore.verify import _workers, verify_rows  # noqa: E402

EVENTS = 5_000
GOAL = 60_000.0


def main() -> None:
    opts = figures.args(__doc__)
    events = 1_000 if opts.quick else EVENTS
    path = opts.db or str(Path(tempfile.gettempdir()) / f"mn-bench-verify-{events}.db")
    store, gid = build(path, events, seed="verify")
    if not any(r.type == "SecretRevealed" for r in store.rows(gid, store.head(gid)[0])):
        game.reveal(store, gid, force=True)
    rows = store.rows(gid)
    report = game.verify_game(store, gid)
    assert report.ok and report.secret_revealed, report
    fig = figures.rates(len(rows), figures.samples(lambda: game.verify_game(store, gid), opts.runs, figures.WALL))
    version = store.log_version(gid)
    one = figures.rates(len(rows), figures.samples(lambda: verify_rows(rows, version, workers=1), opts.runs))

    def replay() -> None:
        ruleset, evs = decode_rows(rows, "bench")
        fold(ruleset, evs)

    scale = figures.rates(len(rows), figures.samples(replay, opts.runs))
    print(figures.line(f"mn verify, revealed game of {len(rows):,} events, {_workers(None)} workers", "events/s wall",
                       fig, "goal", (GOAL, GOAL), f">= {GOAL:,.0f} events/s", fig[1] >= GOAL, opts.runs)
          + f" | one pass: min {one[0]:,.0f} median {one[1]:,.0f} events/s CPU"
          + f" | decode + fold alone: min {scale[0]:,.0f} median {scale[1]:,.0f} events/s CPU")


if __name__ == "__main__":
    main()
