"""A scripted 2003 game (the classic ruleset) played by signed blocks, for the draw-key tests."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mncore.core.dice import Rng, seeded_secret
from mncore.core.errors import CommandRejected
from mncore.core.kernel_acts import PublishKeys, SignedOrders
from mncore.games import reading, writing
from mncore.pbem import signing
from mncore.rulesets.classic.flow import decide_order, options, pending
from mncore.rulesets.classic.players.autoplay import choose
from mncore.rulesets.classic.players.demo import demo_command
from mncore.rulesets.classic.seam import RULESET
from mncore.rulesets.classic.text import parse_order
from mncore.store import Store, open_store

SEED = "settle"


def private_key(civ: str) -> str:
    return hashlib.sha256(f"{SEED}-{civ}".encode()).hexdigest()


def new_game(db: Path, draws: int, players: int = 4) -> tuple[Store, reading.Loaded]:
    """A keyed, signed-only 2003 game of `players` civilisations, recording draw scheme `draws`."""
    cmd = demo_command(players)
    store = open_store(str(db), create=True)
    keys = PublishKeys(keys={c: signing.public_of(private_key(c)) for c in cmd.civs}, signed_only=True,
                       draws=draws)
    return store, writing.create(store, RULESET, cmd, seeded_secret(SEED), "c", keys=keys)


def line_for(state: Any, civ: str, rand: random.Random) -> str:
    """The first order line of the scripted player's (a general from round 3) the rules accept now."""
    lines = choose(state, civ, "general", rand)
    for line in lines + [o.order for o in options(state, civ) if o.order is not None]:
        try:
            decide_order(state, parse_order(line, state, civ), Rng(seeded_secret(SEED), "probe"))
        except CommandRejected:
            continue
        return line
    raise RuntimeError(f"{civ} must act but none of its orders is accepted: {lines[:5]}")


def block(loaded: Any, civ: str, lines: list[str], n: int) -> SignedOrders:
    seq, head = loaded.head
    return signing.sign(private_key(civ), game="c", side=civ, seq=seq, head=head, orders=lines,
                        nonce=f"{n:032x}")


def play_until(store: Store, loaded: Any, stop: Callable[[Any], bool], rand: random.Random,
               start: int = 0, limit: int = 3000) -> Any:
    """Signed blocks of the scripted players, one order each, until `stop` holds of the state (or
    the game ends); `start` numbers their nonces on from blocks given before."""
    for n in range(start, start + limit):
        if loaded.state.winner is not None or stop(loaded.state):
            return loaded
        civ = pending(loaded.state)[0].empire
        loaded = writing.give(store, loaded, block(loaded, civ, [line_for(loaded.state, civ, rand)], n), answer=False).after
    raise RuntimeError("the scripted game did not get there")
