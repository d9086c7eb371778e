"""The acts of play by email over a stored game: undo and consent, deadlines, pace, standing orders."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mncore.core.kernel_acts import (
    ConsentUndo,
    CorrectBatch,
    DefaultOrders,
    SetPace,
    SetSeat,
    SetStandingOrders,
    UndoBatch,
)
from mncore.core.kernel_state import consents, undone_seqs
from mncore.games.live_log import log_of, waited
from mncore.games.reading import Current, Loaded, current
from mncore.games.writing import _answers, give
from mncore.pbem import seats, turns
from mncore.store import Row, Store

# --- play by email: batches, undo, corrections, deadlines, forced answers, standing orders ----------

def undo(store: Store, game_id: str, side: str) -> tuple[list[Row], list[str]]:
    """Take back the side's last batch (K1) if it may alone, or ask for it by recording its own
    consent (K2), which takes it back at once if every side it needs consented before; the rows
    written and the sides whose consent is still wanted. The game is read at its head, its log from
    the store only as far back as the act asks it (live_log)."""
    cur = current(store, game_id)
    batch = last_batch(store, cur, side)
    missing = undo_missing(store, cur, batch)
    if side not in missing and missing:
        return [], missing  # asked already: nothing more to record
    act = ConsentUndo(side=side, batch=batch) if missing else UndoBatch(side=side, batch=batch)
    outcome = give(store, cur, act)
    return outcome.rows, undo_missing(store, outcome.after, batch) if missing else []


def last_batch(store: Store, game: Loaded | Current, side: str) -> int:
    """The first event of the side's last batch still in play (refused: K1 when there is none), read
    back from the game's head."""
    return turns.last_batch(game.ruleset, log_of(store, game).rows, side, undone_seqs(game.kernel.email))


def undo_missing(store: Store, game: Loaded | Current, batch: int) -> list[str]:
    """The sides whose consent an undo of the batch still wants, its giver's request first; none once
    it is taken back (or when it stands alone, K1)."""
    if batch in undone_seqs(game.kernel.email):
        return []
    ruleset, log = game.ruleset, log_of(store, game)
    giver = turns.giver_at(ruleset, log, batch)
    _, needed = turns.undo_needs(ruleset, log, giver, batch)
    if not needed:
        return []
    given = consents(game.kernel.email, batch)
    return [s for s in [giver, *needed] if s not in given]


def consent(store: Store, game_id: str, side: str, batch: int) -> tuple[list[Row], list[str]]:
    """Record the side's consent to undoing a batch (K2): the consent that completes them (its
    giver's request among them) takes the batch back in the same batch. The rows written and the
    consents still wanted."""
    outcome = give(store, current(store, game_id), ConsentUndo(side=side, batch=batch))
    return outcome.rows, undo_missing(store, outcome.after, batch)


def tick(store: Store, game_id: str, now: str, limit: int = 200) -> list[Row]:
    """What the service answers by itself now (a bot holding a seat among them, K14), then for every
    decision overdue at `now` the ruleset's documented default, recorded as the deadline's act at
    `now` (K4), each followed by what the service answers by itself. The game is read at its head and
    its log from the store only as the acts ask it (live_log)."""
    from mncore.core.protocol import Defaults
    game: Loaded | Current = current(store, game_id)
    if not game.kernel.ledger.pbem:
        return []  # no pace, standing or queued orders or seat ever set: nothing can be due
    out, game = _answers(store, game, now, limit=limit)
    for _ in range(limit):
        ruleset, defaults = game.ruleset, game.ruleset
        if not isinstance(defaults, Defaults) or game.meta.over:
            return out
        late = turns.overdue(ruleset, log_of(store, game), now)
        command: Any = None
        for w in late:
            # a seated bot that answers is given its turn (the answers above stopped at their limit);
            # one that gives none leaves its side to the deadline's default, as a person's (K14)
            command = seats.bot_answer(ruleset, game.state, w.side, game.head[0], game.kernel.email)
            orders = defaults.default_orders(game.state, w.side) if command is None else ()
            if orders:
                command = DefaultOrders(side=w.side, orders=tuple(orders), due=w.due or "", at=now)
            if command is not None:
                break
        if command is None:
            return out
        outcome = give(store, game, command, now)
        out += outcome.rows
        game = outcome.after
    return out


def set_pace(store: Store, game_id: str, hours: int, phases: dict[str, int], forced: bool,
             now: str | None = None) -> list[Row]:
    """The host sets the deadlines and forced answers (K4, K5), then the service answers what it may."""
    return give(store, current(store, game_id), SetPace(hours=hours, phases=phases, forced=forced), now).rows


def set_standing(store: Store, game_id: str, side: str, orders: Sequence[str]) -> list[Row]:
    """A side's standing orders (K6), then whatever of them the service can apply at once."""
    return give(store, current(store, game_id), SetStandingOrders(side=side, orders=tuple(orders))).rows


def set_seat(store: Store, game_id: str, side: str, *, bot: str = "", budget: int = 0,
             player: str = "") -> list[Row]:
    """The host hands a side's seat to a bot or to a person (K14), then the service answers what it
    may: a bot that now holds a side that must decide answers at once."""
    return give(store, current(store, game_id), SetSeat(side=side, bot=bot, budget=budget, player=player)).rows


def correct(store: Store, game_id: str, batch: int, reason: str) -> list[Row]:
    """The host's reasoned correction: the batch and every event after it taken back (K3), then what
    the service answers by itself in the state taken back to."""
    return give(store, current(store, game_id), CorrectBatch(batch=batch, reason=reason)).rows


def waiting(store: Store, game_id: str, cur: Current | None = None) -> dict[str, turns.Waiting]:
    """Each side the game waits for, since when, and its deadline (K4), as turns.waiting says of the
    whole log: read back from the head only as far as each wait began (live_log.waited). `cur`: the
    game at its head, where the caller has read it already."""
    cur = cur if cur is not None else current(store, game_id)
    state, since = waited(store, cur)
    return turns.deadlines(cur.ruleset, state, since, cur.kernel.email)
