"""Replay speed and memory: decode and fold a 10,000-event log; prints events per second and peak MiB."""

from __future__ import annotations

import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from longgame import build  # noqa: E402

from mncore.rulesets.empires.evolve import replay  # noqa: E402
from mncore.game import decode_rows  # noqa: E402

EVENTS = 10_000


def main() -> None:
    path = sys.argv[1] if len(sys.argv) > 1 else str(Path(tempfile.gettempdir()) / "mn-bench.db")
    store, gid = build(path, EVENTS)
    rows = store.rows(gid, 1, EVENTS)
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        replay(decode_rows(rows, "bench")[1])
        best = min(best, time.perf_counter() - t0)
    t0 = time.perf_counter()
    events = decode_rows(rows, "bench")[1]
    decode = time.perf_counter() - t0
    tracemalloc.start()
    state = replay(decode_rows(rows, "bench")[1])
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"replay: {len(rows)} events decoded and folded in {best * 1000:.1f} ms (best of 5): "
          f"{len(rows) / best:,.0f} events/s; decode alone {len(events) / decode:,.0f} events/s; "
          f"peak memory of decode + fold {peak / 2**20:.1f} MiB (round {state.round} reached)")


if __name__ == "__main__":
    main()
