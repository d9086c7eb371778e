"""A compiled extension tried: the rules' hot modules compiled with mypyc, beside the same code in pure Python.

python bench/compiled.py [--quick] [--runs N] [--mypyc PYTHON]

Issue 27 allows a compiled extension where it beats the algorithmic fix. This script measures what one
would give, without shipping it: it copies this checkout to a temporary directory, compiles MODULES there
with mypyc (PYTHON: an interpreter of the same version with mypy installed, `pip install '.[test]'`; a C
compiler and the Python headers are needed), and then, in a fresh process per tree and per round, the two
trees alternated round by round, measures on each: the rules' decide alone (CPU), decide + append against
bare sqlite3 (bench/append.py's wall ratio), mn verify of bench/verify.py's revealed 5,000-event game (wall,
every core) and its one pass (CPU), and scripted games (bench/games.py, CPU). Each line prints the compiled
tree's min and median beside the pure tree's, and the goal where issue 27 sets one. The scripted games'
orders and results are compared between the trees: compiled code must play the very same games.
"""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CHECKOUT = HERE.parent
sys.path.insert(0, str(HERE))

import figures  # noqa: E402

_E = "mncore/rulesets/empires"
# the rules a decision runs and the fold (each module without a msgspec Struct of its own: mypyc makes a
# compiled module's classes native, and a Struct's defaults and frozen dataclasses then fail at import)
MODULES = [f"{_E}/{m}.py" for m in ("decide", "flow", "evolve", "evolve_runs", "kept")] + [
    f"{_E}/rules/{m}.py" for m in ("collect", "leadership", "military", "trade", "build", "fold", "land_units",
                                   "battle", "payment", "conquest")] + ["mncore/pbem/trust.py"]
_SKIP = shutil.ignore_patterns(".git", ".venv", "build", "__pycache__", "*.db", "*.so", ".mypy_cache",
                               ".pytest_cache", ".ruff_cache", ".hypothesis")


def _compile(python: str, where: Path) -> None:
    """The checkout copied to `where` and MODULES compiled there in place."""
    tree = where / "tree"
    shutil.copytree(CHECKOUT, tree, ignore=_SKIP)
    # mypyc's generated setup.py runs in the tree: the project's own pyproject.toml is not what it builds
    (tree / "pyproject.toml").rename(tree / "pyproject.toml.off")
    done = subprocess.run([python, "-m", "mypyc", *MODULES], cwd=tree, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"mypyc failed in {tree} (exit {done.returncode}):\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
    built = sorted(tree.glob("mncore/**/*.so"))
    if len(built) != len(MODULES):
        sys.exit(f"mypyc built {len(built)} modules of {len(MODULES)} in {tree}")


def _child(tree: str, runs: int, quick: bool) -> None:
    """The figures of one tree, as JSON on stdout (run in a fresh process with the tree first on the path)."""
    sys.path[:0] = [tree + "/bench", tree]
    import append
    import games
    from longgame import build

    from mncore.audits.verify import verify_rows
    from mncore.games import lifecycle
    from mncore.pbem import trust
    from mncore.rulesets.empires.seam import RULESET

    module = str(sys.modules["mncore.rulesets.empires.decide"].__file__)
    out: dict[str, object] = {"module": module, "compiled": module.endswith(".so")}
    n = 200 if quick else append.COMMANDS
    with tempfile.TemporaryDirectory() as d:
        orders, schema, batches = append._orders(Path(d) / "scripted.db", n)
        mine, theirs = append._alternated(Path(d), orders, schema, batches, "NORMAL", runs, append._wall_of)
        asked = append._decisions(Path(d) / "asked.db", orders, "NORMAL")
    out["append"] = [figures.median(theirs) / len(batches) / (m / len(orders)) for m in mine]

    def decide_all() -> None:
        for state, command, rest in asked:
            trust.decide(RULESET, state, command, **rest)

    out["decide"] = [len(orders) / s for s in figures.samples(decide_all, runs)]
    events = 1_000 if quick else 5_000
    store, gid = build(str(Path(tempfile.gettempdir()) / f"mn-bench-verify-{events}.db"), events, seed="verify")
    if not any(r.type == "SecretRevealed" for r in store.rows(gid, store.head(gid)[0])):
        lifecycle.reveal(store, gid, force=True)
    rows = store.rows(gid)
    out["verify"] = [len(rows) / s for s in figures.samples(lambda: lifecycle.verify_game(store, gid), runs,
                                                             figures.WALL)]
    version = store.log_version(gid)
    out["one pass"] = [len(rows) / s for s in figures.samples(lambda: verify_rows(rows, version, workers=1), runs)]
    store.close()
    count = 1 if quick else games.GAMES
    played: list[tuple[int, bool]] = []

    def batch() -> None:
        games.forget_parsed()
        played.extend(games.one(s) for s in range(count))

    out["games"] = [count / s for s in figures.samples(batch, runs)]
    out["played"] = played[:count]
    print(json.dumps(out))


def _measure(python: str, tree: str, runs: int, quick: bool) -> dict[str, list[float]]:
    cmd = [python, str(Path(__file__).resolve()), "--child", tree, "--runs", str(runs)] + (["--quick"] if quick else [])
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=tempfile.gettempdir())
    if done.returncode != 0:
        sys.exit(f"the measurement of {tree} failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
    found: dict[str, list[float]] = json.loads(done.stdout.splitlines()[-1])
    return found


GOALS = {"append": ("decide + append against bare sqlite3, wall ratio (bench/append.py)", "x", 0.6),
         "verify": ("mn verify of a revealed 5,000-event game, every core (bench/verify.py)", "events/s wall", 60_000.0),
         "one pass": ("of it the one pass (workers=1)", "events/s CPU", None),
         "decide": ("the rules' decide alone, on append's states", "orders/s CPU", None),
         "games": ("scripted 5-empire games (bench/games.py)", "games/s CPU", 15.0)}


def main() -> None:
    if "--child" in sys.argv:
        at = sys.argv.index("--child")
        tree = sys.argv.pop(at + 1)
        sys.argv.pop(at)
        opts = figures.args(__doc__)
        _child(tree, opts.runs, opts.quick)
        return
    python = sys.executable
    if "--mypyc" in sys.argv:
        at = sys.argv.index("--mypyc")
        python = sys.argv.pop(at + 1)
        sys.argv.pop(at)
    opts = figures.args(__doc__, runs=3)
    probe = subprocess.run([python, "-c", "import sys, mypyc; print(sys.version_info[:2])"], capture_output=True,
                           text=True)
    if probe.returncode != 0 or probe.stdout.strip() != str(sys.version_info[:2]):
        sys.exit(f"{python} has no mypyc or is not Python {sys.version_info[0]}.{sys.version_info[1]}: give an "
                 "interpreter of this version with mypy installed (--mypyc PYTHON)")
    with tempfile.TemporaryDirectory() as d:
        t0 = time.perf_counter()
        _compile(python, Path(d))
        print(f"mypyc compiled {len(MODULES)} modules in {time.perf_counter() - t0:.0f} s")
        sides: dict[str, dict[str, list[float]]] = {"pure": {}, "compiled": {}}
        played = {}
        for _ in range(2):  # two rounds, the trees alternated
            for side, tree in (("pure", str(CHECKOUT)), ("compiled", str(Path(d) / "tree"))):
                got = _measure(sys.executable, tree, opts.runs, opts.quick)
                module = got.pop("module")
                if bool(got.pop("compiled")) != (side == "compiled"):
                    sys.exit(f"the {side} tree ran {module}: not the code it should")
                played[side] = got.pop("played")
                for key, values in got.items():
                    if isinstance(values, list):
                        sides[side].setdefault(key, []).extend(values)
    same = played["pure"] == played["compiled"]
    print(f"the scripted games played by each tree (orders, won): {played['pure']} and {played['compiled']}: "
          f"{'the same' if same else 'NOT the same'}")
    for key, (name, unit, goal) in GOALS.items():
        c, p = sides["compiled"][key], sides["pure"][key]
        fig, anchor = (max(c), statistics.median(c)), (max(p), statistics.median(p))
        print(figures.line(f"compiled: {name}", unit, fig, "pure Python, the same run", anchor,
                           None if goal is None else f">= {goal:,g}", goal is not None and fig[1] >= goal,
                           len(c)))
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()
