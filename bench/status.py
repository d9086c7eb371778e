"""Cold `mn status` on a 10,000-event game, against a bare `python -c "import mncli"`, as a ratio."""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from longgame import build  # noqa: E402

RUNS = 5


def _time(args: list[str]) -> float:
    samples = []
    for _ in range(RUNS):
        t0 = time.perf_counter()
        subprocess.run(args, check=True, capture_output=True)
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples)


def main() -> None:
    path = sys.argv[1] if len(sys.argv) > 1 else str(Path(tempfile.gettempdir()) / "mn-bench.db")
    store, gid = build(path, 10_000)
    events = len(store.rows(gid))
    bare = _time([sys.executable, "-c", "import mncli"])
    status = _time([sys.executable, "-m", "mncli", "--db", path, "status", gid])
    print(f"status: cold `mn status` on {events} events {status * 1000:.0f} ms; bare import "
          f"{bare * 1000:.0f} ms; ratio {status / bare:.1f}x (median of {RUNS})")


if __name__ == "__main__":
    main()
