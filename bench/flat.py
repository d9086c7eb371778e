"""`mn status` and `mn show --json` CPU time at 1k, 10k and 100k events, and the ratio 100k/1k.

With snapshots (reading.current folds from the last one), both should be flat in the log's length.
The game is played by the passive scripted players of longgame.py through the fast path
(reading.current, writing.submit), which writes a snapshot every 256 events as `mn order` does.
With --keyed the game is one by mail (bench/longgame.py's Keyed: keys published, every order a block
signed by its side), whose snapshots also hold every nonce a block used. The database is copied as it
stands at each size, and the sizes are measured in turn, run after run.
Usage: python bench/flat.py [DB] [--sizes 1000,10000,100000] [--keyed]
"""

from __future__ import annotations

import random
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from longgame import Keyed  # noqa: E402  (quiets the engine's log lines, adds the passive style)

from mncore.core.dice import Rng, seeded_secret  # noqa: E402
from mncore.games import reading, writing  # noqa: E402
from mncore.rulesets.empires.board import load_board  # noqa: E402
from mncore.rulesets.empires.commands import CreateGame  # noqa: E402
from mncore.rulesets.empires.players.autoplay import choose  # noqa: E402
from mncore.rulesets.empires.seam import RULESET  # noqa: E402
from mncore.store import Store, open_store  # noqa: E402

RUNS = 7


def _grow(store: Store, cur: reading.Current, secret: bytes, rand: random.Random, events: int) -> reading.Current:
    while cur.head[0] < events:
        choice = choose(cur.state, rand, Rng(secret, cur.head[1]), style="passive")
        if choice is None or cur.state.winner is not None:
            raise SystemExit(f"the benchmark game ended after {cur.head[0]} events")
        cur = writing.give(store, cur, choice.order, answer=False).after
    return cur


def _cpu_once(args: list[str], cwd: str | None = None) -> float:
    """The CPU time (user + system) of a command run once as a child process (in `cwd`, if given)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(args, check=True, capture_output=True, cwd=cwd)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def _copy(store: Store, path: str) -> None:
    """The database as it stands, copied to path (SQLite's backup: the WAL's pages included)."""
    Path(path).unlink(missing_ok=True)
    target = sqlite3.connect(path)
    store.conn.backup(target)  # type: ignore[attr-defined]
    target.close()


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    keyed = "--keyed" in sys.argv[1:]
    sizes = [1000, 10_000, 100_000]
    for a in sys.argv[1:]:
        if a.startswith("--sizes"):
            sizes = [int(n) for n in a.split("=", 1)[1].split(",")]
    path = args[0] if args else str(Path(tempfile.gettempdir()) / ("mn-flat-keyed.db" if keyed else "mn-flat.db"))
    Path(path).unlink(missing_ok=True)
    store = open_store(path, create=True)
    secret = seeded_secret("flat")
    cmd = CreateGame(board=load_board(), players={"rome": "A", "greece": "B", "carthage": "C"},
                     display="experienced", fair_play=False)
    by_mail = Keyed(store, "flat") if keyed else None
    gid = by_mail.cur.game_id if by_mail else writing.create(store, RULESET, cmd, secret).game_id
    cur, rand = reading.current(store, gid), random.Random("flat")
    copies: dict[int, str] = {}
    for size in sizes:
        t0 = time.perf_counter()
        cur = by_mail.grow(size) if by_mail else _grow(store, cur, secret, rand, size)
        copies[size] = f"{path}.{size}"
        _copy(store, copies[size])
        print(f"{cur.head[0]:>7} events{' (by mail)' if keyed else ''}: last snapshot at "
              f"{store.last_snapshot_seq(gid)}, grown in {time.perf_counter() - t0:.0f} s", flush=True)
    # each size's commands in turn, run after run: a change of the machine's load falls on every size alike
    samples: dict[tuple[int, str], list[float]] = {(n, what): [] for n in sizes for what in ("status", "show")}
    for _ in range(RUNS):
        for size in sizes:
            mn = [sys.executable, "-m", "mncli", "--db", copies[size]]
            samples[size, "status"].append(_cpu_once([*mn, "status", gid]))
            samples[size, "show"].append(_cpu_once([*mn, "show", gid, "--json"]))
    med = {key: statistics.median(v) for key, v in samples.items()}
    for size in sizes:
        print(f"{size:>7} events: mn status {med[size, 'status'] * 1000:.0f} ms CPU, mn show --json "
              f"{med[size, 'show'] * 1000:.0f} ms CPU (median of {RUNS}, the sizes alternated)")
        Path(copies[size]).unlink()
    first, last = sizes[0], sizes[-1]
    print(f"ratio {last}/{first}: status {med[last, 'status'] / med[first, 'status']:.2f}x, show --json "
          f"{med[last, 'show'] / med[first, 'show']:.2f}x")

if __name__ == "__main__":
    main()
