"""Cold `mn status` on a 10,000-event game against `python -c "import click, msgspec"`, bytecode compiled.

python bench/cold.py [--quick] [--runs N] [--db PATH]

Both are fresh interpreters timed on the wall clock, and by the CPU time they take (what the machine's
other load inflates least); mncore and mncli are compiled first (compileall) and PYTHONDONTWRITEBYTECODE
is unset in the children, so neither side pays for compiling. `mn status` is run as a user runs it: the
`mn` script installed beside this Python (else `python -m mncli`, which also pays for runpy).
"""

from __future__ import annotations

import compileall
import os
import resource
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

    script = Path(sys.executable).parent / "mn"
    status = [str(script) if script.is_file() else sys.executable, *([] if script.is_file() else ["-m", "mncli"]),
              "--db", path, "status", gid]
    bare = [sys.executable, "-c", "import click, msgspec"]
    for clock, unit in ((figures.WALL, "ms wall"), (_children_cpu, "ms CPU")):
        fig = figures.samples(lambda: run(status), opts.runs, clock)
        anchor = figures.samples(lambda: run(bare), opts.runs, clock)
        ms = (min(fig) * 1000, figures.median(fig) * 1000)
        am = (min(anchor) * 1000, figures.median(anchor) * 1000)
        print(figures.line(f"cold {Path(status[0]).name} status, {n:,} events", unit, ms,
                           'python -c "import click, msgspec"', am, f"<= {GOAL}x", ms[1] / am[1] <= GOAL, opts.runs))


def _children_cpu() -> float:
    """The CPU seconds the finished child processes took, user and system."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


if __name__ == "__main__":
    main()
