"""Cold `mn status` on a 10,000-event game against `python -c "import click, msgspec"`, bytecode compiled.

python bench/cold.py [--quick] [--runs N] [--db PATH]

Both are fresh interpreters timed on the wall clock; mncore and mncli are compiled first (compileall)
and PYTHONDONTWRITEBYTECODE is unset in the children, so neither side pays for compiling.
"""

from __future__ import annotations

import compileall
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import figures  # noqa: E402
from longgame import build  # noqa: E402

EVENTS = 10_000
GOAL = 2.0
ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    opts = figures.args(__doc__)
    events = 2_000 if opts.quick else EVENTS
    path = opts.db or str(Path(tempfile.gettempdir()) / f"mn-bench-cold-{events}.db")
    store, gid = build(path, events, seed="cold")
    n = len(store.rows(gid))
    store.close()
    for pkg in ("mncore", "mncli"):
        compileall.compile_dir(str(ROOT / pkg), quiet=1)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

    def run(args: list[str]) -> None:
        subprocess.run(args, check=True, capture_output=True, env=env)

    status = [sys.executable, "-m", "mncli", "--db", path, "status", gid]
    bare = [sys.executable, "-c", "import click, msgspec"]
    fig = figures.samples(lambda: run(status), opts.runs, figures.WALL)
    anchor = figures.samples(lambda: run(bare), opts.runs, figures.WALL)
    ms = (min(fig) * 1000, figures.median(fig) * 1000)
    am = (min(anchor) * 1000, figures.median(anchor) * 1000)
    print(figures.line(f"cold mn status, {n:,} events", "ms wall", ms, 'python -c "import click, msgspec"', am,
                       f"<= {GOAL}x", ms[1] / am[1] <= GOAL, opts.runs))


if __name__ == "__main__":
    main()
