"""A game by mail for the snapshot tests: every order a block signed by its side, snapshots every few events."""

from __future__ import annotations

import hashlib
import random

from mncore.core.dice import Rng, seeded_secret
from mncore.core.kernel_acts import PublishKeys, SignedOrders
from mncore.games import reading, writing
from mncore.pbem import signing
from mncore.rulesets.empires.board import load_board
from mncore.rulesets.empires.commands import CreateGame
from mncore.rulesets.empires.players.autoplay import choose
from mncore.rulesets.empires.seam import RULESET
from mncore.store import Store

PRIVATE = {e: hashlib.sha256(f"snap|{e}".encode()).hexdigest() for e in ("rome", "greece", "carthage")}
SECRET = seeded_secret("snap")


def signed_game(store: Store, events: int = 200) -> list[SignedOrders]:
    """Game c of `events` events in store, keys published, signed orders only; the blocks given, in order."""
    cmd = CreateGame(board=load_board(), players={"rome": "A", "greece": "B", "carthage": "C"},
                     display="experienced", fair_play=False)
    keys = PublishKeys(keys={e: signing.public_of(k) for e, k in PRIVATE.items()}, signed_only=True)
    cur = reading.current(store, writing.create(store, RULESET, cmd, SECRET, "c", keys).game_id)
    rand = random.Random("snap")
    blocks: list[SignedOrders] = []
    while cur.head[0] < events:
        blocks.append(next_block(cur, rand, len(blocks)))
        cur = writing.give(store, cur, blocks[-1], answer=False).after
    return blocks


def next_block(cur: reading.Current, rand: random.Random, n: int) -> SignedOrders:
    """A block of one order a scripted player chose for the game at its head, its nonce n."""
    choice = choose(cur.state, rand, Rng(SECRET, cur.head[1]))
    assert choice is not None
    return signing.sign(PRIVATE[choice.empire], game=cur.game_id, side=choice.empire, seq=cur.head[0],
                        head=cur.head[1], orders=[choice.line], nonce=f"{n:032x}")
