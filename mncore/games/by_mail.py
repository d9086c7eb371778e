"""The acts of play by email over a stored game: undo and consent, deadlines, pace, standing orders."""

from __future__ import annotations

from collections.abc import Callable, Sequence
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
from mncore.games.log_reading import decoded
from mncore.games.reading import Current, Loaded, _full, _log, current, load, snapshot_at_or_before
from mncore.games.writing import _answers, give
from mncore.pbem import seats, turns
from mncore.store import Row, Store

# --- play by email: batches, undo, corrections, deadlines, forced answers, standing orders ----------

def undo(store: Store, game_id: str, side: str) -> tuple[list[Row], list[str]]:
    """Take back the side's last batch (K1) if it may alone, or ask for it by recording its own
    consent (K2), which takes it back at once if every side it needs consented before; the rows
    written and the sides whose consent is still wanted."""
    loaded = load(store, game_id)
    batch = last_batch(loaded, side)
    missing = undo_missing(loaded, batch)
    if side not in missing and missing:
        return [], missing  # asked already: nothing more to record
    act = ConsentUndo(side=side, batch=batch) if missing else UndoBatch(side=side, batch=batch)
    outcome = give(store, loaded, act)
    return outcome.rows, undo_missing(_full(outcome.after), batch) if missing else []


def last_batch(loaded: Loaded, side: str) -> int:
    """The first event of the side's last batch still in play (refused: K1 when there is none)."""
    return turns.last_batch(loaded.ruleset, loaded.rows, side)


def undo_missing(loaded: Loaded, batch: int) -> list[str]:
    """The sides whose consent an undo of the batch still wants, its giver's request first; none once
    it is taken back (or when it stands alone, K1)."""
    if batch in undone_seqs(loaded.kernel.email):
        return []
    ruleset = loaded.ruleset
    giver = next(s.giver for s in turns.spans(ruleset, loaded.rows) if s.first == batch)
    _, needed = turns.undo_needs(ruleset, _log(loaded), giver, batch)
    if not needed:
        return []
    given = consents(loaded.kernel.email, batch)
    return [s for s in [giver, *needed] if s not in given]


def consent(store: Store, game_id: str, side: str, batch: int) -> tuple[list[Row], list[str]]:
    """Record the side's consent to undoing a batch (K2): the consent that completes them (its
    giver's request among them) takes the batch back in the same batch. The rows written and the
    consents still wanted."""
    outcome = give(store, game_id, ConsentUndo(side=side, batch=batch))
    return outcome.rows, undo_missing(_full(outcome.after), batch)


def tick(store: Store, game_id: str, now: str, limit: int = 200) -> list[Row]:
    """What the service answers by itself now (a bot holding a seat among them, K14), then for every
    decision overdue at `now` the ruleset's documented default, recorded as the deadline's act at
    `now` (K4), each followed by what the service answers by itself."""
    from mncore.core.protocol import Defaults
    out: list[Row] = []
    if not current(store, game_id).ledger.pbem:
        return out  # no pace, standing or queued orders or seat ever set: nothing can be due
    out, after = _answers(store, load(store, game_id), now, limit=limit)
    loaded = _full(after)
    for _ in range(limit):
        ruleset, defaults = loaded.ruleset, loaded.ruleset
        if not isinstance(defaults, Defaults) or loaded.meta.over:
            return out
        late = turns.overdue(ruleset, _log(loaded), now)
        command: Any = None
        for w in late:
            # a seated bot that answers is given its turn (the answers above stopped at their limit);
            # one that gives none leaves its side to the deadline's default, as a person's (K14)
            command = seats.bot_answer(ruleset, loaded.state, w.side, loaded.rows, loaded.kernel.email)
            orders = defaults.default_orders(loaded.state, w.side) if command is None else ()
            if orders:
                command = DefaultOrders(side=w.side, orders=tuple(orders), due=w.due or "", at=now)
            if command is not None:
                break
        if command is None:
            return out
        outcome = give(store, loaded, command, now)
        out += outcome.rows
        loaded = _full(outcome.after)
    return out


def set_pace(store: Store, game_id: str, hours: int, phases: dict[str, int], forced: bool,
             now: str | None = None) -> list[Row]:
    """The host sets the deadlines and forced answers (K4, K5), then the service answers what it may."""
    return give(store, game_id, SetPace(hours=hours, phases=phases, forced=forced), now).rows


def set_standing(store: Store, game_id: str, side: str, orders: Sequence[str]) -> list[Row]:
    """A side's standing orders (K6), then whatever of them the service can apply at once."""
    return give(store, game_id, SetStandingOrders(side=side, orders=tuple(orders))).rows


def set_seat(store: Store, game_id: str, side: str, *, bot: str = "", budget: int = 0,
             player: str = "") -> list[Row]:
    """The host hands a side's seat to a bot or to a person (K14), then the service answers what it
    may: a bot that now holds a side that must decide answers at once."""
    return give(store, game_id, SetSeat(side=side, bot=bot, budget=budget, player=player)).rows


def correct(store: Store, game_id: str, batch: int, reason: str) -> list[Row]:
    """The host's reasoned correction: the batch and every event after it taken back (K3), then what
    the service answers by itself in the state taken back to."""
    return give(store, game_id, CorrectBatch(batch=batch, reason=reason)).rows


def waiting(store: Store, game_id: str, cur: Current | None = None) -> dict[str, turns.Waiting]:
    """Each side the game waits for, since when, and its deadline (K4), as turns.waiting says of the
    whole log: read back from the head only as far as each wait began, one snapshot further at a time.
    A log that took back events is read whole: what an undo or a correction took back changes no
    state before it either (K1, K3), which the snapshots taken before it do not know. `cur`: the game
    at its head, where the caller has read it already."""
    cur = cur if cur is not None else current(store, game_id)
    if cur.kernel.email.undone:
        loaded = load(store, game_id)
        return turns.waiting(loaded.ruleset, _log(loaded))
    ruleset, head = cur.ruleset, cur.head[0]
    before = head
    while True:
        start = snapshot_at_or_before(store, game_id, ruleset, before)
        at, state = (start.head[0], start.state) if start is not None else (0, ruleset.initial(""))
        rows = store.rows(game_id, at + 1, head)
        events = [e for _, e in decoded(ruleset, rows, "cannot decode the stored event")]
        # a side waited for at the snapshot: its wait began there or before (_BEFORE), unless it changes
        since: turns.Since = {s: (_BEFORE, "", texts) for s, texts in turns.pending_texts(ruleset, state).items()
                              } if at else {}
        # each batch's time: its first row's, read with it (a snapshot is taken at a batch's end)
        times = {r.seq: r.recorded_at for r in rows if r.batch == r.seq}
        state, since = turns.waits(ruleset, state, since, rows, events, (), _time_of(times))
        if at == 0 or all(seq != _BEFORE for seq, _, _ in since.values()):
            return turns.deadlines(ruleset, state, since, cur.kernel.email)
        before = at - 1


_BEFORE = -1  # a wait that began at or before the snapshot read from: read from the one before


def _time_of(times: dict[int, str]) -> Callable[[Row], str]:
    return lambda row: times[row.batch]
