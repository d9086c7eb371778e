"""Append: decide + append, one order per transaction, against bare SQLite writing the same rows.

python bench/append.py [--quick] [--runs N] [--synchronous NORMAL|FULL]

Both sides use the same database file settings (WAL, busy_timeout) and the same synchronous level
(NORMAL by default here; mn itself keeps SQLite's default, FULL). Wall time: the figure is I/O. Each side's
file is made (mn's: the schema's migrations and the game's creation) and closed untimed, and the two sides
alternate run by run, so that both see the machine's load of the same moments. Then, in CPU time, alternated
run by run: the orders alone against bare sqlite3's transactions alone; and after them the rules' decide
alone on the same states, with the ratio the goal could reach were mn to add nothing to them.
"""

from __future__ import annotations

import random
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import figures  # noqa: E402
import longgame  # noqa: E402,F401  (registers the passive style, quiets the engine's log lines)

from mncore.core.dice import Rng, seeded_secret  # noqa: E402
from mncore.games import reading, writing  # noqa: E402
from mncore.pbem import trust  # noqa: E402
from mncore.rulesets.empires.board import load_board  # noqa: E402
from mncore.rulesets.empires.commands import AnyOrder, CreateGame  # noqa: E402
from mncore.rulesets.empires.players.autoplay import choose  # noqa: E402
from mncore.rulesets.empires.seam import RULESET  # noqa: E402
from mncore.store import Row, SqliteStore  # noqa: E402

COMMANDS = 1000
GOAL = 0.6
CMD = CreateGame(board=load_board(), players={"rome": "A", "greece": "B", "carthage": "C"},
                 display="experienced", fair_play=False)
SECRET = seeded_secret("append")


def _new(path: Path, synchronous: str) -> tuple[SqliteStore, reading.Loaded]:
    store = SqliteStore(str(path), create=True)
    store.conn.execute(f"PRAGMA synchronous = {synchronous}")
    return store, writing.create(store, RULESET, CMD, SECRET)


def _orders(path: Path, n: int) -> tuple[list[AnyOrder], list[str], list[list[Row]]]:
    """The orders of a scripted game, found by playing it once, with the schema mn made for it and the rows
    its orders wrote, batch by batch (bare sqlite3 writes the same)."""
    store, loaded = _new(path, "OFF")
    rand = random.Random("append")
    orders = []
    batches: dict[int, list[Row]] = {}
    for _ in range(n):
        choice = choose(loaded.state, rand, Rng(SECRET, loaded.head[1]), style="passive")
        assert choice is not None
        outcome = writing.give(store, loaded, choice.order, answer=False)
        loaded = outcome.after
        orders.append(choice.order)
        for r in outcome.written:
            batches.setdefault(r.batch, []).append(r)
    store.close()
    with sqlite3.connect(str(path)) as probe:
        schema = [r[0] for r in probe.execute("select sql from sqlite_master where type = 'table'")]
    return orders, schema, list(batches.values())


def _bare_file(path: Path, schema: list[str], synchronous: str) -> sqlite3.Connection:
    conn = sqlite3.connect(str(path), isolation_level=None, timeout=10.0)
    conn.execute("PRAGMA busy_timeout = 10000")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute(f"PRAGMA synchronous = {synchronous}")
    for sql in schema:
        conn.execute(sql)
    return conn


def _bare_writes(conn: sqlite3.Connection, gid: str, batches: list[list[Row]]) -> None:
    for rows in batches:
        conn.execute("BEGIN IMMEDIATE")
        conn.executemany("insert into events (game_id, seq, type, payload, recorded_at, actor, command, "
                         "batch, hash) values (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                         [(gid, r.seq, r.type, r.payload, r.recorded_at, r.actor, r.command, r.batch, r.hash)
                          for r in rows])
        salted = [(gid, r.seq, "{}") for r in rows if r.salts]
        if salted:
            conn.executemany("insert into salts (game_id, seq, salts) values (?, ?, ?)", salted)
        conn.execute("insert into heads (game_id, seq, hash) values (?, ?, ?) on conflict(game_id) do update "
                     "set seq = excluded.seq, hash = excluded.hash", [gid, rows[-1].seq, rows[-1].hash])
        conn.execute("COMMIT")


def _wall_of(run: Callable[[], object]) -> float:
    """Wall seconds of run() (the files' making and closing are left outside it)."""
    t0 = time.perf_counter()
    run()
    return time.perf_counter() - t0


def _cpu_of(run: Callable[[], object]) -> float:
    """CPU seconds of run(), this thread's (the files' making and closing are left outside it)."""
    t0 = time.thread_time()
    run()
    return time.thread_time() - t0


def _alternated(d: Path, orders: list[AnyOrder], schema: list[str], batches: list[list[Row]], synchronous: str,
                runs: int, timed: Callable[[Callable[[], object]], float]) -> tuple[list[float], list[float]]:
    """Each side's writes timed by `timed`, run by run in turn after one untimed run of each: mn giving the
    orders to a game it made, bare sqlite3 writing their rows (each file made and closed untimed)."""
    made = [0]

    def path() -> Path:
        made[0] += 1
        return d / f"{made[0]}.db"

    def ours() -> float:
        store, created = _new(path(), synchronous)
        cur = reading.current(store, created.game_id)  # as mn order reads a game before its orders

        def give_all() -> None:
            nonlocal cur
            for order in orders:
                cur = writing.give(store, cur, order, answer=False).after
        spent = timed(give_all)
        store.close()
        return spent

    def bare() -> float:
        conn = _bare_file(path(), schema, synchronous)
        spent = timed(lambda: _bare_writes(conn, "g", batches))
        conn.close()
        return spent

    ours(), bare()
    mine, theirs = [], []
    for _ in range(runs):
        mine.append(ours())
        theirs.append(bare())
    return mine, theirs


def _decisions(path: Path, orders: list[AnyOrder], synchronous: str) -> list[tuple[Any, AnyOrder, dict[str, Any]]]:
    """What trust.decide was asked for each order as writing.give asks it on a Current (state, command,
    the rest), found by giving them once."""
    asked: list[tuple[Any, AnyOrder, dict[str, Any]]] = []
    decide = trust.decide

    def kept(ruleset: Any, state: Any, command: Any, **rest: Any) -> Any:
        asked.append((state, command, rest))
        return decide(ruleset, state, command, **rest)

    store, created = _new(path, synchronous)
    cur = reading.current(store, created.game_id)
    trust.decide = kept
    try:
        for order in orders:
            cur = writing.give(store, cur, order, answer=False).after
    finally:
        trust.decide = decide
        store.close()
    return asked


def main() -> None:
    import argparse

    sync = argparse.ArgumentParser(add_help=False)
    sync.add_argument("--synchronous", choices=["NORMAL", "FULL"], default="NORMAL")
    known, rest = sync.parse_known_args()
    sys.argv[1:] = rest
    opts = figures.args(__doc__)
    n = 200 if opts.quick else COMMANDS
    with tempfile.TemporaryDirectory() as d:
        orders, schema, batches = _orders(Path(d) / "scripted.db", n)
        mine, theirs = _alternated(Path(d), orders, schema, batches, known.synchronous, opts.runs, _wall_of)
    fig = figures.rates(len(orders), mine)
    anchor = figures.rates(len(batches), theirs)
    events = sum(len(b) for b in batches)
    print(figures.line(f"decide + append, {len(orders):,} orders ({events:,} events), one transaction each, "
                       f"WAL, synchronous={known.synchronous}", "orders/s wall", fig,
                       "bare sqlite3, same rows and settings", anchor, f">= {GOAL}x",
                       fig[1] / anchor[1] >= GOAL, opts.runs))
    _cpu_lines(orders, batches, schema, known.synchronous, opts.runs, figures.median(theirs))


def _cpu_lines(orders: list[AnyOrder], batches: list[list[Row]], schema: list[str], synchronous: str,
               runs: int, bare_wall: float) -> None:
    """The orders alone against bare's transactions alone in CPU time, alternated; the rules' decide alone;
    the wall-clock ratio mn would reach adding nothing to its rules' decide and bare's transactions."""
    ruleset = RULESET
    with tempfile.TemporaryDirectory() as d:
        asked = _decisions(Path(d) / "asked.db", orders, synchronous)

        def decide_all() -> None:
            for state, command, rest in asked:
                trust.decide(ruleset, state, command, **rest)

        mine, theirs = _alternated(Path(d), orders, schema, batches, synchronous, runs, _cpu_of)
        decide_all()
        rules = [_cpu_of(decide_all) for _ in range(runs)]
    anchor = figures.rates(len(batches), theirs)
    print(figures.line("the same orders alone, CPU (the game made and the file closed untimed), alternated run by run",
                       "orders/s CPU", figures.rates(len(orders), mine),
                       "bare sqlite3's transactions alone, CPU", anchor, None, False, runs))
    decide = figures.median(rules) / len(orders)
    print(figures.line("of them the rules' decide alone (trust.decide on the same states, nothing written)",
                       "orders/s CPU", figures.rates(len(orders), rules),
                       "bare sqlite3's transactions alone, CPU", anchor, None, False, runs))
    each = bare_wall / len(batches)
    print(f"mn adding nothing to its rules' decide and bare's transactions would reach {each / (each + decide):.2f}x "
          f"wall (bare's median {each * 1e6:.0f} us a transaction, decide's {decide * 1e6:.0f} us an order)")


if __name__ == "__main__":
    main()
