"""mn verify on a revealed game: events per second checked (chain, encoding, replay, every order re-decided).

python bench/verify.py [--quick] [--runs N] [--db PATH]

The goal is absolute (60k events/s), so the ratio is against the goal. verify decides the commands
again in segments, one process per core: the figure is wall time (the workers' CPU is not the
process's). Beside it, for scale: the one pass (workers=1) in CPU time, and decode + fold of the same
log (the replay verify cannot avoid), and the split's CPU, the reader's and its workers': with the
machine's other load, the wall clock says little, and the CPU bounds the best wall time on free
cores. Then the peak RSS of a whole `mn --db DB verify GAME` of a 100k-event game (20k with --quick), run
as the installed mn script runs (bench/command_peak.py: Linux VmHWM of the command's process as it exits;
each worker is a process of its own, forked from it), beside an interpreter that imported what mn verify
imports and did nothing; and the same of a 100k-event game by mail (keys published, signed orders only,
every order a block signed by its side: build_keyed) beside the same imports and cryptography's Ed25519,
with the whole command's CPU, its workers' included, in events/s. Last, the whole command's CPU and peak
RSS on tests/by_mail_game.py's game by mail of about 5,000 events, a quarter of its batches acts of play
by email decided on the log before them (deadlines' defaults, forced answers, a standing order, undos
alone and with consent, a correction), beside the same imports (no goal set).
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # by_mail_game: the tests' long game by mail

import figures  # noqa: E402
from command_peak import Command, command_peak, imports_peak  # noqa: E402
from longgame import Keyed, build, reused  # noqa: E402

import by_mail_game  # noqa: E402
from mncore.audits.verify import _workers, verify_rows  # noqa: E402
from mncore.core.actors import SERVICE_ACTORS  # noqa: E402
from mncore.core.kernel_acts import UNDO_TYPES  # noqa: E402
from mncore.games import lifecycle  # noqa: E402
from mncore.games.log_reading import decode_rows, fold  # noqa: E402
from mncore.store import Store  # noqa: E402

EVENTS = 5_000
RSS_EVENTS = 100_000
GOAL = 60_000.0
GOAL_RSS_MIB = 40.0
ACTS_MOVES = 2_500  # by_mail_game.play's turns: about 5,000 events, a quarter of them acts of play by email
ACTS_EVENTS = 4_000


def build_keyed(path: str, events: int, seed: str = "verify-keyed") -> tuple[Store, str]:
    """A store at path with one game by mail of at least `events` events (reused if already there:
    longgame.reused): longgame.Keyed, keys published and every order a block signed by its side."""
    store, found = reused(path, events)
    return (store, found) if found is not None else (store, Keyed(store, seed).grow(events).game_id)


def build_acts(path: str) -> tuple[Store, str]:
    """A store at path with tests/by_mail_game.py's game by mail of about 5,000 events played by
    longgame's passive players (reused if already there: longgame.reused): every fifth decision left to
    the deadline's default, forced answers, a standing order, undos alone and with consent, a correction."""
    store, found = reused(path, ACTS_EVENTS)
    if found is None:
        with by_mail_game.clock():
            by_mail_game.play(store, ACTS_MOVES, style="passive")
        found = "g"
    return store, found


def _split_cpu(fn: Callable[[], object]) -> tuple[float, float]:
    """CPU seconds of one call: this process's (the reader), and its workers' (reaped children)."""
    before = os.times()
    fn()
    after = os.times()
    return (after.user + after.system - before.user - before.system,
            after.children_user + after.children_system - before.children_user - before.children_system)


def command_runs(path: str, gid: str, runs: int) -> list[Command]:
    """The figures of `mn --db PATH verify GAME` as a user runs it, once a run."""
    return [command_peak(["--db", path, "verify", gid]) for _ in range(runs)]


def main() -> None:
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
    bare = [imports_peak() for _ in range(opts.runs)]
    anchor = (min(bare), statistics.median(bare))
    plain = [run.peak for run in command_runs(rss_path, gid, opts.runs)]
    mib = (min(plain), statistics.median(plain))
    print(figures.line(f"peak RSS of mn verify, {n:,} events", "MiB", mib, "mn verify's imports alone", anchor,
                       f"<= {GOAL_RSS_MIB:.0f} MiB", mib[1] <= GOAL_RSS_MIB, opts.runs))
    keyed_path = str(Path(tempfile.gettempdir()) / f"mn-bench-verify-keyed-{big}.db")
    store, gid = build_keyed(keyed_path, big)
    if not any(r.type == "SecretRevealed" for r in store.rows(gid, store.head(gid)[0])):
        lifecycle.reveal(store, gid, force=True)
    n = store.head(gid)[0]
    store.close()
    runs = command_runs(keyed_path, gid, opts.runs)
    signing = [imports_peak(keyed=True) for _ in range(opts.runs)]
    peaks = [run.peak for run in runs]
    mib = (min(peaks), statistics.median(peaks))
    cpu = [run.cpu for run in runs]
    print(figures.line(f"peak RSS of mn verify, game by mail of {n:,} events (keys, every order a signed block)",
                       "MiB", mib, "mn verify's imports alone, the signatures' included",
                       (min(signing), statistics.median(signing)),
                       f"<= {GOAL_RSS_MIB:.0f} MiB", mib[1] <= GOAL_RSS_MIB, opts.runs)
          + f" | the command's CPU, workers included: min {n / max(cpu):,.0f} median {n / statistics.median(cpu):,.0f} events/s"
          + " | a worker's peak RSS (ru_maxrss, shared pages counted): median "
          + f"{statistics.median(run.workers_peak for run in runs):,.1f} MiB")
    store, gid = build_acts(str(Path(tempfile.gettempdir()) / "mn-bench-verify-acts.db"))
    rows = store.rows(gid)
    acts = sum(1 for r in rows if r.batch == r.seq and r.actor in SERVICE_ACTORS) + sum(r.type in UNDO_TYPES for r in rows)
    store.close()
    runs = command_runs(store.path, gid, opts.runs)
    bare = [imports_peak() for _ in range(opts.runs)]
    cpu, peaks = [run.cpu for run in runs], [run.peak for run in runs]
    print(f"mn verify, game by mail of {len(rows):,} events with {acts:,} acts decided on the log before them "
          f"(defaults, forced answers, standing orders, undos, a correction): CPU min {min(cpu):.2f} median "
          f"{statistics.median(cpu):.2f} s, workers included ({len(rows) / statistics.median(cpu):,.0f} events/s) | "
          f"peak RSS min {min(peaks):.1f} median {statistics.median(peaks):.1f} MiB | mn verify's imports alone: "
          f"min {min(bare):.1f} median {statistics.median(bare):.1f} MiB | no goal set ({opts.runs} runs)")

if __name__ == "__main__":
    main()
