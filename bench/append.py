"""Append speed: commands per second, one transaction per command, WAL, on a real game."""

from __future__ import annotations

import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import longgame  # noqa: E402,F401  (registers the passive style)

from mncore import game  # noqa: E402
from mncore.rulesets.empires.autoplay import choose  # noqa: E402
from mncore.rulesets.empires.board import load_board  # noqa: E402
from mncore.rulesets.empires.commands import AnyOrder, CreateGame  # noqa: E402
from mncore.dice import Rng, seeded_secret  # noqa: E402
from mncore.rulesets.empires.seam import RULESET  # noqa: E402
from mncore.store import Store  # noqa: E402

COMMANDS = 2000
CMD = CreateGame(board=load_board(), players={"rome": "A", "greece": "B", "carthage": "C"},
                 display="experienced", fair_play=False)
SECRET = seeded_secret("append")


def _new(path: Path) -> tuple[Store, game.Loaded]:
    store = Store(str(path), create=True)
    return store, game.create(store, RULESET, CMD, SECRET)


def _orders(path: Path) -> list[AnyOrder]:
    """The orders of a scripted game, found by playing it once."""
    store, loaded = _new(path)
    rand = random.Random("append")
    orders = []
    for _ in range(COMMANDS):
        choice = choose(loaded.state, rand, Rng(SECRET, loaded.head[1]), style="passive")
        assert choice is not None
        loaded, _ = game.submit(store, loaded, choice.order)
        orders.append(choice.order)
    return orders


def main() -> None:
    with tempfile.TemporaryDirectory() as d:
        orders = _orders(Path(d) / "scripted.db")
        store, loaded = _new(Path(d) / "timed.db")
        start = len(loaded.rows)
        t0 = time.perf_counter()
        for order in orders:
            loaded, _ = game.submit(store, loaded, order)
        elapsed = time.perf_counter() - t0
        print(f"append: {len(orders)} commands ({len(loaded.rows) - start} events) decided and "
              f"appended in {elapsed:.2f} s: {len(orders) / elapsed:,.0f} commands/s, "
              "one transaction each, WAL")


if __name__ == "__main__":
    main()
