"""Append: decide + append, one order per transaction, against bare SQLite writing the same rows.

python bench/append.py [--quick] [--runs N] [--synchronous NORMAL|FULL]

Both sides use the same database file settings (WAL, busy_timeout) and the same synchronous level
(NORMAL by default here; mn itself keeps SQLite's default, FULL). Wall time: the figure is I/O.
"""

from __future__ import annotations

import random
import sqlite3
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import figures  # noqa: E402
import longgame  # noqa: E402,F401  (registers the passive style, quiets the engine's log lines)

from mncore.core.dice import Rng, seeded_secret  # noqa: E402
from mncore.games import reading, writing  # noqa: E402
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


def _orders(path: Path, n: int) -> list[AnyOrder]:
    """The orders of a scripted game, found by playing it once."""
    store, loaded = _new(path, "OFF")
    rand = random.Random("append")
    orders = []
    for _ in range(n):
        choice = choose(loaded.state, rand, Rng(SECRET, loaded.head[1]), style="passive")
        assert choice is not None
        loaded = writing.give(store, loaded, choice.order, answer=False).after
        orders.append(choice.order)
    store.close()
    return orders


def _bare(path: Path, schema: list[str], gid: str, batches: list[list[Row]], synchronous: str) -> None:
    """The same rows written by plain sqlite3, one transaction per batch, with the same settings."""
    conn = sqlite3.connect(str(path), isolation_level=None, timeout=10.0)
    conn.execute("PRAGMA busy_timeout = 10000")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute(f"PRAGMA synchronous = {synchronous}")
    for sql in schema:
        conn.execute(sql)
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
    conn.close()


def main() -> None:
    import argparse

    sync = argparse.ArgumentParser(add_help=False)
    sync.add_argument("--synchronous", choices=["NORMAL", "FULL"], default="NORMAL")
    known, rest = sync.parse_known_args()
    sys.argv[1:] = rest
    opts = figures.args(__doc__)
    n = 200 if opts.quick else COMMANDS
    with tempfile.TemporaryDirectory() as d:
        orders = _orders(Path(d) / "scripted.db", n)
        made: list[list[Row]] = []

        def ours() -> None:
            path = Path(d) / f"ours{len(made)}.db"
            store, created = _new(path, known.synchronous)
            cur = reading.current(store, created.game_id)  # as mn order reads a game before its orders
            appended: list[Row] = []
            for order in orders:
                outcome = writing.give(store, cur, order, answer=False)
                cur, rows = outcome.after, outcome.written
                appended += rows
            store.close()
            made.append(appended)

        mine = figures.samples(ours, opts.runs, figures.WALL)
        with sqlite3.connect(str(Path(d) / "ours0.db")) as probe:
            schema = [r[0] for r in probe.execute("select sql from sqlite_master where type = 'table'")]
        rows = made[-1]
        batches: dict[int, list[Row]] = {}
        for r in rows:
            batches.setdefault(r.batch, []).append(r)
        count = [0]

        def bare() -> None:
            count[0] += 1
            _bare(Path(d) / f"bare{count[0]}.db", schema, "g", list(batches.values()), known.synchronous)

        theirs = figures.samples(bare, opts.runs, figures.WALL)
    fig = figures.rates(len(orders), mine)
    anchor = figures.rates(len(batches), theirs)
    print(figures.line(f"decide + append, {len(orders):,} orders ({len(rows):,} events), one transaction each, "
                       f"WAL, synchronous={known.synchronous}", "orders/s wall", fig,
                       "bare sqlite3, same rows and settings", anchor, f">= {GOAL}x",
                       fig[1] / anchor[1] >= GOAL, opts.runs))


if __name__ == "__main__":
    main()
