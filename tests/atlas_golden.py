"""Recorded games of the Atlas expansion's set-ups: scripted players, a known seed, played to a win."""

from __future__ import annotations

import random
from pathlib import Path

from golden import FIXTURES, without_clock
from mncore.core.dice import seeded_secret
from mncore.core.protocol import NewGame
from mncore.games import lifecycle, reading, transfer, writing
from mncore.rulesets.empires import atlas
from mncore.rulesets.empires.players.autoplay import play_stored
from mncore.rulesets.empires.seam import RULESET
from mncore.store import open_store

PLAYERS = ("Ann", "Ben", "Cat", "Dee", "Eve", "Fay")

# set-up -> (seed, style): found with `python tests/atlas_golden.py search`; these are the fixtures
GAMES: dict[str, tuple[str, str]] = {
    "alternative-3": ("0", "general"),
    "atlantis": ("19", "builder"),  # Chiron recruited, the Centaurs strike and are rebuilt
    # Foreign Trade claims and discards; Barbarians moved and fought both ways, peace with them (R64-R67);
    # won by three great cities (R61)
    "punic-war": ("4", "general"),
}
# every variant is played to a win by tests/test_atlas_setups.py (these are not recorded)
SCRIPTED: dict[str, tuple[str, str]] = {
    **GAMES,
    "alternative-4": ("0", "general"),
    "alternative-5": ("0", "general"),
}


def play(db: Path, game_id: str, setup: str, seed: str, style: str) -> reading.Loaded:
    """Create a game of that set-up as `mn new --setup` does, play it to its end, reveal its secret."""
    chosen = atlas.variant(setup)
    assert chosen is not None
    spec = NewGame(sides=chosen.empires, players=tuple(f"{e}={p}" for e, p in zip(chosen.empires, PLAYERS)),
                   fair_play=False, options={"setup": setup})
    store = open_store(str(db), create=True)
    secret = seeded_secret(seed)
    loaded = writing.create(store, RULESET, RULESET.new_game(spec), secret, game_id)
    loaded = play_stored(store, loaded, secret, random.Random(seed), 20000, style=style)
    if loaded.state.winner is not None:
        lifecycle.reveal(store, game_id)
    return reading.load(store, game_id)


def fixture(setup: str) -> Path:
    return FIXTURES / f"atlas-{setup}.jsonl"


def record(setup: str, db: Path) -> Path:
    """(Re)write the fixture of a set-up from its scripted game."""
    seed, style = GAMES[setup]
    loaded = play(db, f"atlas-{setup}", setup, seed, style)
    assert loaded.state.winner is not None
    path = fixture(setup)
    data = b"".join(line + b"\n" for line in transfer.export_lines(loaded))
    if not path.exists() or without_clock(path.read_bytes()) != without_clock(data):
        path.write_bytes(data)
    return path


if __name__ == "__main__":
    import logging
    import sys
    import tempfile

    import structlog
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    with tempfile.TemporaryDirectory() as d:
        if sys.argv[1:2] == ["search"]:
            for name in sys.argv[2:]:
                for i in range(20):
                    loaded = play(Path(d) / f"{name}{i}.db", "s", name, str(i), "general")
                    w = loaded.state.winner
                    print(name, i, w and (w.condition, w.round), len(loaded.rows), flush=True)
                    if w and len(loaded.rows) < 4000:
                        break
        else:
            for name in GAMES:
                print(record(name, Path(d) / f"{name}.db"))
