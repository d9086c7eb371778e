"""Build a database holding one long game (played by scripted players) for the benchmarks."""

from __future__ import annotations

import hashlib
import logging
import random
import sys
from pathlib import Path

import structlog

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mncore.core.dice import Rng, seeded_secret  # noqa: E402
from mncore.core.kernel_acts import PublishKeys  # noqa: E402
from mncore.games import reading, writing  # noqa: E402
from mncore.pbem import signing  # noqa: E402
from mncore.rulesets.empires.board import load_board  # noqa: E402
from mncore.rulesets.empires.commands import CreateGame  # noqa: E402
from mncore.rulesets.empires.players.autoplay import STYLES, choose  # noqa: E402
from mncore.rulesets.empires.seam import RULESET  # noqa: E402
from mncore.store import Store, open_store  # noqa: E402

# the engine's info lines would drown the figures
structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))

# Players who mostly pass: nobody pulls ahead on every track, so the game runs as long as we like.
STYLES["passive"] = {"done": 20, "end": 20, "no": 20, "hold": 20, "build": 0.05, "recruit": 0.05,
                     "move": 0.05, "attack": 0.05, "perseus": 0.0}


def build(path: str, events: int, seed: str = "bench") -> tuple[Store, str]:
    """A store at path with one game of at least `events` events (reused if already there: reused())."""
    store, found = reused(path, events)
    if found is not None:
        return store, found
    board = load_board()
    cmd = CreateGame(board=board, players={"rome": "A", "greece": "B", "carthage": "C"},
                     display="experienced", fair_play=False)
    secret = seeded_secret(seed)
    cur = reading.current(store, writing.create(store, RULESET, cmd, secret).game_id)
    rand = random.Random(seed)
    with store.bulk():  # one transaction; writing.submit writes a snapshot every 256 events, as mn order does
        while cur.head[0] < events:
            choice = choose(cur.state, rand, Rng(secret, cur.head[1]), style="passive")
            if choice is None or cur.state.winner is not None:
                raise SystemExit(f"the benchmark game ended after {cur.head[0]} events")
            cur = writing.give(store, cur, choice.order, answer=False).after
    return store, cur.game_id


def reused(path: str, events: int) -> tuple[Store, str | None]:
    """The store at path and its game of at least `events` events if this engine grew it (its last snapshot
    this engine's: another's are not read, and a command on it would fold the whole log); else the store
    made again, empty, and None."""
    store = open_store(path, create=True)
    for g in store.games():
        if g.events >= events and store.latest_snapshot(g.id, None, reading.engine_of(RULESET)) is not None:
            return store, g.id
    if store.games():  # an older engine's: built again
        store.close()
        for suffix in ("", "-wal", "-shm"):
            Path(path + suffix).unlink(missing_ok=True)
        store = open_store(path, create=True)
    return store, None


class Keyed:
    """A game by mail played by the passive scripted players: keys published (signed orders only, the
    latest draw scheme), each order a block signed by its side."""

    def __init__(self, store: Store, seed: str, game_id: str = "keyed") -> None:
        cmd = CreateGame(board=load_board(), players={"rome": "A", "greece": "B", "carthage": "C"},
                         display="experienced", fair_play=False)
        self.private = {e: hashlib.sha256(f"{seed}|{e}".encode()).hexdigest() for e in cmd.players}
        keys = PublishKeys(keys={e: signing.public_of(k) for e, k in self.private.items()}, signed_only=True)
        self.store, self.secret, self.rand = store, seeded_secret(seed), random.Random(seed)
        self.cur = reading.current(store, writing.create(store, RULESET, cmd, self.secret, game_id, keys).game_id)

    def grow(self, events: int) -> reading.Current:
        """Give signed blocks, one order each, until the log holds `events` events (one transaction)."""
        cur = self.cur
        with self.store.bulk():
            while cur.head[0] < events:
                choice = choose(cur.state, self.rand, Rng(self.secret, cur.head[1]), style="passive")
                if choice is None or cur.state.winner is not None:
                    raise SystemExit(f"the keyed benchmark game ended after {cur.head[0]} events")
                block = signing.sign(self.private[choice.empire], game=cur.game_id, side=choice.empire,
                                     seq=cur.head[0], head=cur.head[1], orders=[choice.line],
                                     nonce=f"{cur.head[0]:032x}")  # a seq is given once: a nonce never repeats
                cur = writing.give(self.store, cur, block, answer=False).after
        self.cur = cur
        return cur
