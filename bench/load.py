"""Load: several processes giving orders to many games at once, SQLite and PostgreSQL side by side.

python bench/load.py [--quick] [--runs N] [--writers 8] [--games 50] [--orders 40] [--pg URL]

Each writer loads a game at random (reading.current), chooses a legal order (the scripted players), and
submits it with the expected seq; a writer that loses the race gets the conflict (exit 3) and moves on.
The figure is accepted orders per second of wall time, from the moment all writers start to the last
one's end. Without --pg, a throwaway PostgreSQL server is started as the tests do (tests/pg.py); with
no server binaries the PostgreSQL side is left out, saying why. No goal is set for it (issue 17).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import figures  # noqa: E402

from mncore.core.dice import seeded_secret  # noqa: E402
from mncore.games import writing  # noqa: E402
from mncore.rulesets.empires.board import load_board  # noqa: E402
from mncore.rulesets.empires.commands import CreateGame  # noqa: E402
from mncore.rulesets.empires.seam import RULESET  # noqa: E402
from mncore.store import open_store  # noqa: E402

WORKER = """
import json, os, random, sys, time
import structlog, logging
structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
from mncore.games import reading, writing
from mncore.core.dice import Rng, seeded_secret
from mncore.core.errors import Conflict, MareNostrumError
from mncore.rulesets.empires.players.autoplay import choose
from mncore.store import open_store
url, prefix, games, orders, seed, go = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6]
store, rand = open_store(url), random.Random(seed)
print("ready", flush=True)
while not os.path.exists(go):
    time.sleep(0.001)
accepted = conflicts = 0
for _ in range(orders):
    gid = f"{prefix}{rand.randrange(games)}"
    cur = reading.current(store, gid)
    choice = choose(cur.state, rand, Rng(seeded_secret(gid), cur.head[1]))
    if choice is None:
        continue
    try:
        writing.give(store, cur, choice.order, answer=False)
        accepted += 1
    except Conflict:
        conflicts += 1
    except MareNostrumError:
        pass
print(json.dumps([accepted, conflicts]), flush=True)
"""


def _games(url: str, prefix: str, n: int) -> None:
    store = open_store(url, create=True)
    board = load_board()
    for i in range(n):
        gid = f"{prefix}{i}"
        cmd = CreateGame(board=board, players={"rome": "A", "greece": "B", "carthage": "C"},
                         display="experienced", fair_play=False)
        writing.create(store, RULESET, cmd, seeded_secret(gid), gid)
    store.close()


def _run(url: str, prefix: str, opts: argparse.Namespace, folder: Path) -> tuple[float, int, int]:
    """One timed run on fresh games: (seconds, accepted orders, conflicts)."""
    _games(url, prefix, opts.games)
    go = folder / f"go-{prefix}"
    procs = [subprocess.Popen([sys.executable, "-c", WORKER, url, prefix, str(opts.games), str(opts.orders),
                               f"{prefix}w{w}", str(go)], cwd=ROOT, stdout=subprocess.PIPE, text=True)
             for w in range(opts.writers)]
    for p in procs:
        assert p.stdout is not None and p.stdout.readline().strip() == "ready"
    t0 = figures.WALL()
    go.touch()
    outs = [p.communicate()[0] for p in procs]
    seconds = figures.WALL() - t0
    counts = [json.loads(out.strip().splitlines()[-1]) for out in outs]
    return seconds, sum(c[0] for c in counts), sum(c[1] for c in counts)


def _side(name: str, url: str, opts: argparse.Namespace, folder: Path) -> tuple[str, float]:
    runs = [_run(url, f"{name[0]}{i}g", opts, folder) for i in range(opts.runs)]
    rates = sorted(a / s for s, a, _ in runs)
    best, median = rates[-1], figures.median(rates)
    conflicts = sum(c for _, _, c in runs) / len(runs)
    return f"{name}: max {best:,.0f} median {median:,.0f} orders/s wall ({conflicts:.0f} conflicts a run)", median


def main() -> None:
    extra = argparse.ArgumentParser(add_help=False)
    extra.add_argument("--writers", type=int, default=8)
    extra.add_argument("--games", type=int, default=50)
    extra.add_argument("--orders", type=int, default=40, help="orders each writer gives")
    extra.add_argument("--pg", default=None, help="a postgresql:// database to use (else a throwaway server)")
    known, rest = extra.parse_known_args()
    sys.argv[1:] = rest
    opts = figures.args(__doc__, runs=3)
    for k, v in vars(known).items():
        setattr(opts, k, v)
    if opts.quick:
        opts.writers, opts.games, opts.orders = min(opts.writers, 4), min(opts.games, 10), min(opts.orders, 10)
    server = None
    with tempfile.TemporaryDirectory() as d:
        folder = Path(d)
        sqlite_line, sqlite_median = _side("SQLite", str(folder / "load.db"), opts, folder)
        pg_url, reason = opts.pg, ""
        if pg_url is None:
            import pg
            reason = pg.why_no_server() or ""
            if not reason:
                server = pg.PgServer(pg.server_bin())  # type: ignore[arg-type]
                pg_url = server.new_database()
        try:
            if pg_url is None:
                pg_part = f"PostgreSQL: left out ({reason})"
            else:
                pg_line, pg_median = _side("PostgreSQL", pg_url, opts, folder)
                pg_part = f"{pg_line} | ratio {pg_median / sqlite_median:.2f}x PostgreSQL/SQLite (medians)"
        finally:
            if server is not None:
                server.stop()
    print(f"load, {opts.writers} writers on {opts.games} games, {opts.orders} orders each, {opts.runs} runs: "
          f"{sqlite_line} | {pg_part}")


if __name__ == "__main__":
    main()
