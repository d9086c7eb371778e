"""Recorded games for the golden tests: scripted players, a known seed, played to a win."""

from __future__ import annotations

import random
from pathlib import Path

from mncore.core.chain import GENESIS_HASH, content_link
from mncore.core.dice import seeded_secret
from mncore.games import lifecycle, reading, transfer, writing
from mncore.rulesets.empires.board import load_board
from mncore.rulesets.empires.commands import CreateGame
from mncore.rulesets.empires.players.autoplay import play_stored
from mncore.rulesets.empires.rules.setup import playable_empires
from mncore.rulesets.empires.seam import RULESET
from mncore.store import open_store

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
PLAYERS = ("Ann", "Ben", "Cat", "Dee", "Eve")

# condition -> (seed, number of players, style): found with `python tests/golden.py search`
GAMES: dict[str, tuple[str, int, str]] = {
    "6.1": ("0", 3, "general"),
    "6.2": ("0", 3, "builder"),
    "6.3": ("6", 3, "random"),
    "6.4": ("5", 5, "general"),
}


def play(db: Path | str, game_id: str, seed: str, players: int, style: str) -> reading.Loaded:
    """Create and play a scripted game to its end, then reveal its secret."""
    board = load_board()
    empires = playable_empires(board, players)
    cmd = CreateGame(board=board, players=dict(zip(empires, PLAYERS)), display="first-game",
                     fair_play=False)
    secret = seeded_secret(seed)
    store = open_store(str(db), create=True)
    loaded = writing.create(store, RULESET, cmd, secret, game_id)
    loaded = play_stored(store, loaded, secret, random.Random(seed), 20000, style=style)  # type: ignore[assignment]
    if loaded.state.winner is not None:
        lifecycle.reveal(store, game_id)
    return reading.load(store, game_id)


def fixture(condition: str) -> Path:
    return FIXTURES / f"game-{condition.replace('.', '-')}.jsonl"


def record(condition: str, db: Path) -> Path:
    """(Re)write the fixture of a victory condition from its scripted game."""
    seed, players, style = GAMES[condition]
    gid = f"golden-{condition.replace('.', '-')}"
    loaded = play(db, gid, seed, players, style)
    assert loaded.state.winner is not None and loaded.state.winner.condition == condition
    path = fixture(condition)
    path.parent.mkdir(exist_ok=True)
    data = b"".join(line + b"\n" for line in transfer.export_lines(loaded))
    if not path.exists() or without_clock(path.read_bytes()) != without_clock(data):
        path.write_bytes(data)  # only a real change rewrites it, not the time it was recorded at
    return path


def without_clock(data: bytes) -> list[tuple[object, ...]]:
    """A log's rows, less the wall-clock time each was recorded at and the format of its chain.

    Each row keeps its content hash (chain.py: the version-1 hash, which keys the draws), so a
    version-1 fixture and the same game played again in version 2 compare equal, hash for hash.
    """
    _, rows = transfer.read_export(data, "fixture")
    out, head = [], GENESIS_HASH
    for r in rows:
        head = content_link(head, r.payload)
        out.append((r.seq, r.type, r.payload, r.actor, r.command, r.batch, head))
    return out


if __name__ == "__main__":
    import logging
    import sys
    import tempfile

    import structlog
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    with tempfile.TemporaryDirectory() as d:
        if sys.argv[1:] == ["search"]:
            found: dict[str, tuple[str, int, str]] = {}
            for i in range(400):
                for style in ("builder", "general", "random"):
                    players = 3 + i % 3
                    loaded = play(Path(d) / f"s{i}{style}.db", "s", str(i), players, style)
                    w = loaded.state.winner
                    if w and w.condition not in found and len(loaded.rows) < 4000:
                        found[w.condition] = (str(i), players, style)
                        print(w.condition, found[w.condition], len(loaded.rows), "events", flush=True)
                if len(found) == 4:
                    break
        else:
            for cond in GAMES:
                print(record(cond, Path(d) / f"{cond}.db"))
