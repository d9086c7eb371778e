"""A long game by mail with every kind of act decided on the log before it: deadlines' defaults, forced
answers, standing orders, undos alone and with consent, and a host's correction (tests and bench)."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Iterator
from contextlib import contextmanager

from mncore.core.dice import Rng, seeded_secret
from mncore.core.errors import CommandRejected
from mncore.core.kernel_acts import SetStandingOrders
from mncore.core.protocol import NewGame
from mncore.games import by_mail, reading, writing
from mncore.rulesets.empires.players.autoplay import choose
from mncore.rulesets.empires.seam import RULESET as EMPIRES
from mncore.store import Store

T0 = dt.datetime(2030, 1, 1, tzinfo=dt.UTC)
SIDES = ("rome", "greece", "carthage")
SECRET = seeded_secret("acts")


@contextmanager
def clock() -> Iterator[list[dt.datetime]]:
    """The service's clock set to a time the caller moves on (the deadlines read it)."""
    now, real = [T0], reading.utc_now
    reading.utc_now = lambda: now[0].isoformat(timespec="microseconds")
    try:
        yield now
    finally:
        reading.utc_now = real


def play(store: Store, moves: int, seed: int = 7, game_id: str = "g", style: str = "") -> None:
    """`moves` turns of scripted players in a 3-empire game with a pace of 24 hours and forced answers;
    Carthage leaves a standing order; every 5th decision is left to the deadline's default, every 11th
    order is taken back (with the others' consent where it needs it), and one batch is corrected.
    `style`: the players' (autoplay.STYLES; "passive" plays a long game), else any order legal now."""
    rand = random.Random(seed)
    with clock() as now:
        writing.create(store, EMPIRES, EMPIRES.new_game(NewGame(sides=SIDES)), SECRET, game_id)
        by_mail.set_pace(store, game_id, 24, {}, True)
        by_mail.set_standing(store, game_id, "carthage", ["trade 3", "build none"])
        corrected = False
        for move in range(1, moves + 1):
            now[0] += dt.timedelta(hours=1)
            cur = reading.current(store, game_id)
            pending = EMPIRES.pending(cur.state)
            if not pending or cur.meta.over:
                return
            if move % 5 == 0:
                now[0] += dt.timedelta(hours=25)
                if by_mail.tick(store, game_id, now[0].isoformat()):
                    continue
            side = pending[0].empire
            if style:
                choice = choose(cur.state, rand, Rng(SECRET, cur.head[1]), style=style)
                if choice is None:
                    return
                side = choice.empire
                writing.give(store, cur, writing.batch_command(cur, side, [choice.line]))
            elif not _order(store, cur, side, rand):
                continue
            if move % 11 == 0:
                _undo(store, game_id, side)
            elif not corrected and move > moves // 2:
                corrected = True
                by_mail.correct(store, game_id, store.head(game_id)[0] - _last_batch_length(store, game_id) + 1,
                                "the player's mail was meant for the next phase")


def _order(store: Store, cur: reading.Current, side: str, rand: random.Random) -> bool:
    options = EMPIRES.options(cur.state, side)
    lines = [o.order for o in options if o.order]
    lines += [o.template.format(**{k: rand.choice(v) for k, v in o.parts.items()})
              for o in options if o.template and not o.template.startswith("fix")]
    for line in rand.sample(lines, len(lines)):
        try:
            writing.give(store, cur, writing.batch_command(cur, side, [line]))
        except CommandRejected:
            continue
        return True
    return False


def _undo(store: Store, game_id: str, side: str) -> None:
    try:
        _, missing = by_mail.undo(store, game_id, side)
        batch = by_mail.last_batch(store, reading.current(store, game_id), side) if missing else 0
        for other in missing:
            if other != side:
                by_mail.consent(store, game_id, other, batch)
    except CommandRejected:
        return


def _last_batch_length(store: Store, game_id: str) -> int:
    last = store.row_at(game_id, store.head(game_id)[0])
    assert last is not None
    return last.seq - last.batch + 1


PACED_AT = "2030-01-01T00:00:00+00:00"  # when every batch of a paced game is recorded: its deadlines run from it


def paced(store: Store, game_id: str = "paced") -> reading.Current:
    """A 3-empire game by mail without keys: a pace of 24 hours with forced answers, and Carthage's standing
    orders (K4 to K6), all recorded at PACED_AT."""
    writing.create(store, EMPIRES, EMPIRES.new_game(NewGame(sides=SIDES)), SECRET, game_id)
    by_mail.set_pace(store, game_id, 24, {}, True, now=PACED_AT)
    writing.give(store, reading.load(store, game_id), SetStandingOrders(side="carthage", orders=("trade 3", "build none")),
                 PACED_AT)
    return reading.current(store, game_id)


def grow_paced(store: Store, cur: reading.Current | reading.Loaded, rand: random.Random, events: int,
               style: str = "random") -> reading.Current | reading.Loaded:
    """Orders of the scripted players (autoplay.STYLES' `style`), each followed by the service's answers,
    recorded at PACED_AT, until the log holds `events` events."""
    while cur.head[0] < events:
        choice = choose(cur.state, rand, Rng(SECRET, cur.head[1]), style=style)
        if choice is None or cur.meta.over:
            raise RuntimeError(f"the paced game ended after {cur.head[0]} events")
        cur = writing.give(store, cur, choice.order, PACED_AT).after
    return cur
