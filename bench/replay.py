"""Replay: decode + fold of a real game log against python-chess's board.push, and peak RSS of 100k events.

python bench/replay.py [--quick] [--runs N] [--db PATH]   (needs the bench extra: pip install -e '.[bench]')
"""

from __future__ import annotations

import random
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import figures  # noqa: E402

EVENTS = 10_000  # the log whose decode + fold is timed
RSS_EVENTS = 100_000  # the log whose replay's peak RSS is measured
CHESS_PLIES = 400  # the longest chess game replayed (a seeded random game, stopped at its end)
GOAL_RATE = 1.5  # issue 27 (issue 11 asked 1.2x)
GOAL_RSS_MIB = 40.0


def chess_moves() -> list[object]:
    """A long seeded random game of legal moves: the anchor's input."""
    import chess

    board = chess.Board()
    rand = random.Random("bench")
    moves = []
    while len(moves) < CHESS_PLIES and not board.is_game_over(claim_draw=True):
        move = rand.choice(list(board.legal_moves))
        board.push(move)
        moves.append(move)
    return moves


def push_all(moves: list[object]) -> None:
    import chess

    board = chess.Board()
    for m in moves:
        board.push(m)  # type: ignore[arg-type]


def rss_child(path: str, gid: str, replay: bool) -> None:
    """In a fresh interpreter: the imports mn needs to replay, then (if replay) the game folded from
    its first event, its rows streamed from the store and decoded one by one (what game.current does
    with no snapshot); prints the peak RSS in KiB (Linux VmHWM)."""
    from mncore.games.log_reading import replay_rows, ruleset_of
    from mncore.rulesets.empires import seam  # noqa: F401  (registers the ruleset, as mn does)
    from mncore.store import open_store

    if replay:
        store = open_store(path)
        first = store.row_at(gid, 1)
        assert first is not None
        replay_rows(ruleset_of(first.payload, "bench"), store.stream_rows(gid))
    print(_vm_hwm_kib())


def _vm_hwm_kib() -> int:
    """This process's peak RSS in KiB: VmHWM, reset by exec (ru_maxrss keeps the parent's peak across
    fork and exec on Linux, which would charge the parent's memory to the child)."""
    try:
        for ln in Path("/proc/self/status").read_text().splitlines():
            if ln.startswith("VmHWM:"):
                return int(ln.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def peak_rss(path: str, gid: str, replay: bool, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        done = subprocess.run([sys.executable, __file__, "--rss-child", path, gid, "1" if replay else "0"],
                              check=True, capture_output=True, text=True)
        out.append(int(done.stdout.split()[-1]) / 1024)
    return out


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--rss-child":
        rss_child(sys.argv[2], sys.argv[3], sys.argv[4] == "1")
        return
    opts = figures.args(__doc__)
    from longgame import build

    from mncore.games.log_reading import decode_rows, fold

    events, rss_events = (2_000, 20_000) if opts.quick else (EVENTS, RSS_EVENTS)
    path = opts.db or str(Path(tempfile.gettempdir()) / "mn-bench.db")
    store, gid = build(path, rss_events)
    rows = store.rows(gid, 1, events)

    def replay() -> None:
        ruleset, evs = decode_rows(rows, "bench")
        fold(ruleset, evs)

    moves = chess_moves()
    games = max(1, round(len(rows) / len(moves)))  # each anchor's sample as long as ours: a 1.5 ms one moved by half

    def chess_games() -> None:
        for _ in range(games):
            push_all(moves)

    mine, anchor = figures.paired(replay, chess_games, opts.runs)
    ours, theirs = figures.rates(len(rows), mine), figures.rates(games * len(moves), anchor)
    print(figures.line(f"decode + fold, {len(rows):,} events of a real log", "events/s CPU", ours,
                       f"python-chess board.push, a {len(moves)}-ply game {games} times, alternated", theirs,
                       f">= {GOAL_RATE}x", ours[1] / theirs[1] >= GOAL_RATE, opts.runs))

    n = len(store.rows(gid))
    with_replay = peak_rss(path, gid, True, opts.runs)
    bare = peak_rss(path, gid, False, opts.runs)
    mib = (min(with_replay), statistics.median(with_replay))
    print(figures.line(f"peak RSS replaying {n:,} events", "MiB", mib, "same imports, no replay",
                       (min(bare), statistics.median(bare)), f"<= {GOAL_RSS_MIB:.0f} MiB",
                       mib[1] <= GOAL_RSS_MIB, opts.runs))


if __name__ == "__main__":
    main()
