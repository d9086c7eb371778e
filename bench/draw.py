"""Cold `mn draw` of a new game on each shipped board (reference, Atlantis, 2003) against cold `mn show`.

python bench/draw.py [--runs N]

Both are fresh runs of the installed `mn` script, timed in CPU (what other load inflates least). A report
mail with its picture pays what `mn draw` pays. The names of a shipped board are read from its ruleset's
data/labels.json; before they were kept there, each process searched them (about 1.5 s of CPU a board).
No goal is set (issue 27 names none for pictures); the figure is quoted in docs/speed.md.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import figures  # noqa: E402

BOARDS = {
    "reference": ["--empire", "rome", "--empire", "greece", "--empire", "carthage"],
    "Atlantis": ["--setup", "atlantis"],
    "2003": ["--ruleset", "classic", "--empire", "rome", "--empire", "greece", "--empire", "carthage"],
}


def main() -> None:
    opts = figures.args(__doc__)
    script = Path(sys.executable).parent / "mn"
    mn = [str(script)] if script.is_file() else [sys.executable, "-m", "mncli"]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "draw.db")
        for name, new in BOARDS.items():
            gid = f"draw-{name.lower()}"
            subprocess.run([*mn, "--db", db, "new", *new, "--seed", "draw", "--id", gid], check=True,
                           capture_output=True, env=env)

            draw_args = [*mn, "--db", db, "draw", gid, "-o", str(Path(tmp) / "b.svg")]
            show_args = [*mn, "--db", db, "show", gid]
            draw = figures.samples(lambda a=draw_args: _run(a, env), opts.runs, _children_cpu)
            show = figures.samples(lambda a=show_args: _run(a, env), opts.runs, _children_cpu)
            ms = (min(draw) * 1000, figures.median(draw) * 1000)
            anchor = (min(show) * 1000, figures.median(show) * 1000)
            print(figures.line(f"cold mn draw, {name} board", "ms CPU", ms, "cold mn show", anchor,
                               None, True, opts.runs))


def _run(args: list[str], env: dict[str, str]) -> None:
    subprocess.run(args, check=True, capture_output=True, env=env)


def _children_cpu() -> float:
    """The CPU seconds the finished child processes took, user and system."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


if __name__ == "__main__":
    main()
