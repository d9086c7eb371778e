"""`mn order`, `mn tick` and `mn undo` CPU time in a paced game by mail at 1k, 10k and 100k events, and the
ratio to 1k.

The game (tests/by_mail_game.py's `paced`: a pace of 24 hours with forced answers, Carthage's standing
orders, no keys) is grown by the passive scripted players of longgame.py, each order followed by the
service's answers, every batch recorded at one time; the database is copied as it stands at each size.
Each run gives, on a fresh copy of each size, one ordinary order of a side the game waits for (`mn order`: one
after which the service answers by itself where there is one, then its answers), on another `mn tick` two
days later (the deadlines' defaults of every side waited for, and the answers after them), and on a third `mn
undo` by the side that gave the last batch of orders (taken back, or the others' consent asked: K1, K2). With --against
PYTHON, the same commands are also run by that interpreter's `mn` (a plain install of another checkout, e.g.
main's), alternated with this one's command by command; the sizes are alternated run after run; the rows each
command wrote are compared across runs and installs. Commands run from a temporary directory, so that `python -m
mncli` imports the interpreter's install, not a checkout.
Usage: python bench/flat_mail.py [DB] [--sizes=1000,10000,100000] [--runs=N] [--against=PYTHON]
"""

from __future__ import annotations

import datetime as dt
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from contextlib import closing
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # by_mail_game: the paced game

import longgame  # noqa: E402, F401  (quiets the engine's log lines, adds the passive style)
from flat import _copy, _cpu_once  # noqa: E402

from by_mail_game import PACED_AT, grow_paced, paced  # noqa: E402
from mncore.core.dice import Rng, SecretNeeded  # noqa: E402
from mncore.core.errors import CommandRejected  # noqa: E402
from mncore.games import reading  # noqa: E402
from mncore.pbem import turns  # noqa: E402
from mncore.store import open_store  # noqa: E402

RUNS = 7
WHAT = ("order", "tick", "undo")
LATER = (dt.datetime.fromisoformat(PACED_AT) + dt.timedelta(hours=49)).isoformat()  # every deadline passed


def _order_line(path: str, game_id: str) -> tuple[str, str]:
    """A side the game waits for and an order line the rules accept of it now, one after which the
    service answers by itself (a forced answer, a standing order) where there is one."""
    cur = reading.current(open_store(path), game_id)
    ruleset, legal = cur.ruleset, []
    for side in dict.fromkeys(p.empire for p in ruleset.pending(cur.state)):
        for option in ruleset.options(cur.state, side):
            if not option.order:
                continue  # a template to fill in
            try:
                _, after = turns.decide_lines(ruleset, cur.state, side, [option.order], Rng(None, ""))
            except (CommandRejected, SecretNeeded):
                continue  # refused, or it draws (a line that draws is not tried here)
            waiting = dict.fromkeys(p.empire for p in ruleset.pending(after))
            if any(turns.service_answer(ruleset, after, s, cur.kernel.email) is not None for s in waiting):
                return side, option.order
            legal.append((side, option.order))
    if not legal:
        raise SystemExit(f"no order to give at event {cur.head[0]}")
    return legal[0]


def _last_giver(path: str, game_id: str) -> str:
    """The side that gave the log's last batch of orders: its `mn undo` takes it back, or asks the others'
    consent (K1, K2)."""
    store = open_store(path)
    cur = reading.current(store, game_id)
    return next(r.actor for r in reversed(store.rows(game_id, max(1, cur.head[0] - 200))) if r.actor in cur.meta.sides)


def _run(python: str, db: str, args: list[str], scratch: str, timed: bool) -> tuple[float, list[tuple[str, ...]]]:
    """One command's CPU on a fresh copy of db, and the rows it wrote (their recorded times and hashes
    only where the command was given its time: `timed`)."""
    for suffix in ("-wal", "-shm"):  # the last run's, which SQLite would apply to the fresh copy
        Path(scratch + suffix).unlink(missing_ok=True)
    shutil.copyfile(db, scratch)
    with closing(sqlite3.connect(scratch)) as conn:
        head = conn.execute("select max(seq) from events").fetchone()[0]
    cpu = _cpu_once([python, "-m", "mncli", "--db", scratch, *args], cwd=tempfile.gettempdir())
    fields = "seq, batch, type, payload, actor, command" + (", recorded_at, hash" if timed else "")
    with closing(sqlite3.connect(scratch)) as conn:
        written = conn.execute(f"select {fields} from events where seq > ? order by seq", [head]).fetchall()
    return cpu, written


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    opts = dict(a[2:].split("=", 1) for a in sys.argv[1:] if a.startswith("--") and "=" in a)
    sizes = [int(n) for n in opts.get("sizes", "1000,10000,100000").split(",")]
    runs = int(opts.get("runs", RUNS))
    pythons = {"this": sys.executable, **({"against": opts["against"]} if "against" in opts else {})}
    path = args[0] if args else str(Path(tempfile.gettempdir()) / "mn-flat-mail.db")
    Path(path).unlink(missing_ok=True)
    store = open_store(path, create=True)
    cur: reading.Current | reading.Loaded = paced(store, "paced")
    rand = random.Random("flat mail")
    copies: dict[int, str] = {}
    for size in sizes:
        t0 = time.perf_counter()
        with store.bulk():
            cur = grow_paced(store, cur, rand, size, style="passive")
        copies[size] = f"{path}.{size}"
        _copy(store, copies[size])
        print(f"{cur.head[0]:>7} events (paced, by mail): last snapshot at {store.last_snapshot_seq('paced')}, "
              f"grown in {time.perf_counter() - t0:.0f} s", flush=True)
    lines = {size: _order_line(copies[size], "paced") for size in sizes}
    undoers = {size: _last_giver(copies[size], "paced") for size in sizes}
    scratch = f"{path}.run"
    samples: dict[tuple[str, int, str], list[float]] = {}
    heads: dict[tuple[str, int, str], int] = {}
    written: dict[tuple[int, str], set[str]] = {}  # the rows each command wrote, by every install and run
    for _ in range(runs):
        for size in sizes:
            side, line = lines[size]
            commands = {"order": ["order", "paced", "--as", side, line], "tick": ["tick", "paced", "--now", LATER],
                        "undo": ["undo", "paced", "--as", undoers[size]]}
            for what, command in commands.items():
                for who, python in pythons.items():
                    cpu, rows = _run(python, copies[size], command, scratch, timed=what == "tick")
                    samples.setdefault((who, size, what), []).append(cpu)
                    written.setdefault((size, what), set()).add(repr(rows))
                    heads[who, size, what] = len(rows)
    for suffix in ("", "-wal", "-shm"):
        Path(scratch + suffix).unlink(missing_ok=True)
    _report(pythons, sizes, samples, heads, runs)
    same = all(len(v) == 1 for v in written.values())
    print(f"rows written: {'the same' if same else 'NOT the same'} in every run{' and by both installs' if len(pythons) > 1 else ''}"
          " (mn order's without their recorded times and hashes: it reads the clock)")
    for size in sizes:
        Path(copies[size]).unlink()


def _report(pythons: dict[str, str], sizes: list[int], samples: dict[tuple[str, int, str], list[float]],
            heads: dict[tuple[str, int, str], int], runs: int) -> None:
    med = {key: statistics.median(v) for key, v in samples.items()}
    for who, python in pythons.items():
        print(f"{who} ({python}):")
        for size in sizes:
            cells = [f"mn {what} {min(samples[who, size, what]) * 1000:.0f} / {med[who, size, what] * 1000:.0f} ms CPU "
                     f"({heads[who, size, what]} rows written)" for what in WHAT]
            print(f"  {size:>7} events: " + "; ".join(cells) + f" (min / median of {runs})")
        first = sizes[0]
        for size in sizes[1:]:
            print(f"  ratio {size}/{first} (medians): "
                  + ", ".join(f"{what} {med[who, size, what] / med[who, first, what]:.2f}x" for what in WHAT)
                  + " (goal <= 1.2x)")


if __name__ == "__main__":
    main()
