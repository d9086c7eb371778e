"""mn verify on a revealed game: events per second checked (chain, encoding, replay, every order re-decided).

python bench/verify.py [--quick] [--runs N] [--db PATH]

The goal is absolute (60k events/s), so the ratio is against the goal. verify decides the commands
again in segments, one process per core: the figure is wall time (the workers' CPU is not the
process's). Beside it, for scale: the one pass (workers=1) in CPU time, and decode + fold of the same
log (the replay verify cannot avoid), and the split's CPU, the reader's and its workers': with the
machine's other load, the wall clock says little, and the CPU bounds the best wall time on free
cores. Then the peak RSS of mn verify of a 100k-event game (20k with --quick) in a fresh interpreter
(Linux VmHWM of the process verify runs in; each worker is a process of its own, forked from it),
beside the same imports verifying nothing; and the same of a 100k-event game by mail (keys published,
signed orders only, every order a block signed by its side: build_keyed), with the CPU of its
verification (the reader's and its workers') in events/s.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import random
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import figures  # noqa: E402
from longgame import build  # noqa: E402

from mncore.audits.verify import _workers, verify_rows  # noqa: E402
from mncore.core.dice import Rng, seeded_secret  # noqa: E402
from mncore.core.kernel_acts import PublishKeys  # noqa: E402
from mncore.games import lifecycle, reading, writing  # noqa: E402
from mncore.games.log_reading import decode_rows, fold  # noqa: E402
from mncore.pbem import signing  # noqa: E402
from mncore.rulesets.empires.board import load_board  # noqa: E402
from mncore.rulesets.empires.commands import CreateGame  # noqa: E402
from mncore.rulesets.empires.players.autoplay import choose  # noqa: E402
from mncore.rulesets.empires.seam import RULESET  # noqa: E402
from mncore.store import Store, open_store  # noqa: E402

EVENTS = 5_000
RSS_EVENTS = 100_000
GOAL = 60_000.0
GOAL_RSS_MIB = 40.0


def build_keyed(path: str, events: int, seed: str = "verify-keyed") -> tuple[Store, str]:
    """A store at path with one game by mail of at least `events` events (reused if already there): keys
    published (signed orders only, the latest draw scheme), each order a block signed by its side."""
    store = open_store(path, create=True)
    for g in store.games():
        if g.events >= events:
            return store, g.id
    cmd = CreateGame(board=load_board(), players={"rome": "A", "greece": "B", "carthage": "C"},
                     display="experienced", fair_play=False)
    private = {e: hashlib.sha256(f"{seed}|{e}".encode()).hexdigest() for e in cmd.players}
    keys = PublishKeys(keys={e: signing.public_of(k) for e, k in private.items()}, signed_only=True)
    secret = seeded_secret(seed)
    cur = reading.current(store, writing.create(store, RULESET, cmd, secret, "keyed", keys).game_id)
    rand = random.Random(seed)
    with store.bulk():  # as longgame.build: one transaction
        for n in itertools.count():
            if cur.head[0] >= events:
                break
            choice = choose(cur.state, rand, Rng(secret, cur.head[1]), style="passive")
            if choice is None or cur.state.winner is not None:
                raise SystemExit(f"the keyed benchmark game ended after {cur.head[0]} events")
            block = signing.sign(private[choice.empire], game=cur.game_id, side=choice.empire, seq=cur.head[0],
                                 head=cur.head[1], orders=[choice.line], nonce=f"{n:032x}")
            cur = writing.give(store, cur, block, answer=False).after
    return store, cur.game_id


def rss_child(path: str, verifying: bool) -> None:
    """In a fresh interpreter: mn verify's imports, then (if verifying) the stored game verified; prints
    the CPU seconds of the verification (this process's and its workers'), the workers' largest peak RSS
    (ru_maxrss, KiB: it counts the pages shared with the reader they were forked from) and this process's
    peak RSS in KiB, last."""
    import resource

    from mncore.rulesets.empires import seam  # noqa: F401  (registers the ruleset, as mn does)
    from mncore.store import open_store

    cpu = 0.0
    if verifying:
        store = open_store(path)
        before = os.times()
        report = lifecycle.verify_game(store, store.games()[0].id)
        after = os.times()
        cpu = sum(after[:4]) - sum(before[:4])
        assert report.ok, report
    from replay import _vm_hwm_kib
    print(cpu, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, _vm_hwm_kib())


def _split_cpu(fn: Callable[[], object]) -> tuple[float, float]:
    """CPU seconds of one call: this process's (the reader), and its workers' (reaped children)."""
    before = os.times()
    fn()
    after = os.times()
    return (after.user + after.system - before.user - before.system,
            after.children_user + after.children_system - before.children_user - before.children_system)


def peak_rss(path: str, verifying: bool, runs: int) -> list[float]:
    return [run[2] for run in verify_child(path, verifying, runs)]


def verify_child(path: str, verifying: bool, runs: int) -> list[tuple[float, float, float]]:
    """rss_child's figures of each run: CPU seconds, the workers' largest peak RSS and the reader's (MiB)."""
    out = []
    for _ in range(runs):
        done = subprocess.run([sys.executable, __file__, "--rss-child", path, "1" if verifying else "0"],
                              check=True, capture_output=True, text=True)
        cpu, workers, reader = done.stdout.split()[-3:]
        out.append((float(cpu), int(workers) / 1024, int(reader) / 1024))
    return out


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--rss-child":
        rss_child(sys.argv[2], sys.argv[3] == "1")
        return
    opts = figures.args(__doc__)
    events = 1_000 if opts.quick else EVENTS
    path = opts.db or str(Path(tempfile.gettempdir()) / f"mn-bench-verify-{events}.db")
    store, gid = build(path, events, seed="verify")
    if not any(r.type == "SecretRevealed" for r in store.rows(gid, store.head(gid)[0])):
        lifecycle.reveal(store, gid, force=True)
    rows = store.rows(gid)
    report = lifecycle.verify_game(store, gid)
    assert report.ok and report.secret_revealed, report
    fig = figures.rates(len(rows), figures.samples(lambda: lifecycle.verify_game(store, gid), opts.runs, figures.WALL))
    version = store.log_version(gid)
    one = figures.rates(len(rows), figures.samples(lambda: verify_rows(rows, version, workers=1), opts.runs))

    def replay() -> None:
        ruleset, evs = decode_rows(rows, "bench")
        fold(ruleset, evs)

    scale = figures.rates(len(rows), figures.samples(replay, opts.runs))
    split = [_split_cpu(lambda: lifecycle.verify_game(store, gid)) for _ in range(opts.runs)]
    parent, workers = (statistics.median(x) for x in zip(*split, strict=True))
    bound = len(rows) / max(parent, (parent + workers) / _workers(None))
    print(figures.line(f"mn verify, revealed game of {len(rows):,} events, {_workers(None)} workers", "events/s wall",
                       fig, "goal", (GOAL, GOAL), f">= {GOAL:,.0f} events/s", fig[1] >= GOAL, opts.runs)
          + f" | one pass: min {one[0]:,.0f} median {one[1]:,.0f} events/s CPU"
          + f" | decode + fold alone: min {scale[0]:,.0f} median {scale[1]:,.0f} events/s CPU"
          + f" | split, CPU (medians): reader {parent * 1000:,.0f} ms, workers {workers * 1000:,.0f} ms, so at best "
          + f"{bound:,.0f} events/s wall on {_workers(None)} free cores")
    store.close()
    big = 20_000 if opts.quick else RSS_EVENTS
    rss_path = str(Path(tempfile.gettempdir()) / f"mn-bench-verify-{big}.db")
    store, gid = build(rss_path, big, seed="verify")
    if not any(r.type == "SecretRevealed" for r in store.rows(gid, store.head(gid)[0])):
        lifecycle.reveal(store, gid, force=True)
    n = store.head(gid)[0]
    store.close()
    with_verify = peak_rss(rss_path, True, opts.runs)
    bare = peak_rss(rss_path, False, opts.runs)
    mib = (min(with_verify), statistics.median(with_verify))
    print(figures.line(f"peak RSS of mn verify, {n:,} events", "MiB", mib, "same imports, no verify",
                       (min(bare), statistics.median(bare)), f"<= {GOAL_RSS_MIB:.0f} MiB",
                       mib[1] <= GOAL_RSS_MIB, opts.runs))
    keyed_path = str(Path(tempfile.gettempdir()) / f"mn-bench-verify-keyed-{big}.db")
    store, gid = build_keyed(keyed_path, big)
    if not any(r.type == "SecretRevealed" for r in store.rows(gid, store.head(gid)[0])):
        lifecycle.reveal(store, gid, force=True)
    n = store.head(gid)[0]
    store.close()
    runs = verify_child(keyed_path, True, opts.runs)
    cpu, workers, reader = ([run[i] for run in runs] for i in range(3))
    mib = (min(reader), statistics.median(reader))
    print(figures.line(f"peak RSS of mn verify, game by mail of {n:,} events (keys, every order a signed block)",
                       "MiB", mib, "same imports, no verify", (min(bare), statistics.median(bare)),
                       f"<= {GOAL_RSS_MIB:.0f} MiB", mib[1] <= GOAL_RSS_MIB, opts.runs)
          + f" | CPU, reader + workers: min {n / max(cpu):,.0f} median {n / statistics.median(cpu):,.0f} events/s"
          + f" | a worker's peak RSS (ru_maxrss, shared pages counted): median {statistics.median(workers):,.1f} MiB")


if __name__ == "__main__":
    main()
