"""The kernel's own state, folded from its rows beside the ruleset's: the secret, the signing ledger, play by email's.

No ruleset's state holds any of it (tests/test_envelope.py). A game as loaded holds it beside the ruleset's
state (mncore/games/), its snapshots cache it, and the kernel reads the keys, the pace, the undos and
consents, the standing and the queued orders here instead of scanning the log for each. It is a fold of
every row, those an undo took back included, so that folding a log whole or row by row after each batch
gives the same state; what an undo takes back is kept as its ranges (`undone`), which the readers apply.
The signing ledger is advanced by mncore/pbem/trust.py, which knows whose act each command is.
"""

# no `from __future__ import annotations`: msgspec would compile each string annotation again at every
# start (tests/test_lean_start.py)
from typing import Any

import msgspec
from msgspec.structs import replace

from mncore.core.actors import QUEUED
from mncore.core.kernel_acts import UNDO_TYPES, OrdersQueued, PaceSet, SeatSet, StandingOrdersSet, UndoConsented
from mncore.core.protocol import Ruleset
from mncore.store import Row


class Ledger(msgspec.Struct, kw_only=True):
    """What a log says so far about signing: the keys, and which blocks and sides have acted when.

    Held in a KernelState it is never changed in place: mncore/pbem/trust.py advances a copy."""

    keys: dict[str, str] = {}  # side -> public key (hex), once published
    published: bool = False
    signed_only: bool = False
    nonces: dict[str, int] = {}  # nonce of each signed block applied -> its batch's first event
    acted: dict[str, int] = {}  # side -> first event of the last batch that carried its order
    draws: int = 0  # the draw scheme the log records (mncore/pbem/draw_keys.py; K10)
    pbem: bool = False  # the log sets a pace or standing orders: the service may act (mncore/pbem/turns.py)


class QueueMark(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One change of a side's queue (K9): a queue set at event `seq` (`orders`, for `round`), or, with
    `orders` None, its first line applied by the service at event `seq`."""

    seq: int
    orders: tuple[str, ...] | None = None
    round: int = 0


class PlayByEmail(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """What play by email's acts recorded so far (mncore/pbem/turns.py reads it): the pace and when it was set,
    each side's standing orders, the consents to each undo, the events taken back, the queues' changes."""

    pace: PaceSet = PaceSet()  # the host's last (K4, K5)
    pace_at: str = ""  # when it was recorded ("" : never set)
    standing: dict[str, tuple[str, ...]] = {}  # side -> its standing orders, as last left (K6)
    consents: dict[int, tuple[tuple[int, str], ...]] = {}  # batch -> (event, side) of each consent (K2)
    undone: tuple[tuple[int, int], ...] = ()  # (first, through) of each run taken back (K1, K3)
    queues: dict[str, tuple[QueueMark, ...]] = {}  # side -> every change of its queue (K9)
    seats: dict[str, tuple[tuple[int, SeatSet], ...]] = {}  # side -> (event, hand-over) of its seat (K14)


class KernelState(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """The kernel's fold of a log: the secret once revealed, the signing ledger, play by email's record."""

    secret: str | None = None  # hex, once revealed (Meta.secret)
    ledger: Ledger = msgspec.field(default_factory=Ledger)
    email: PlayByEmail = PlayByEmail()


def secret_in(row: Row) -> str | None:
    """The secret a SecretRevealed row reveals, as recorded (hex); None for any other row."""
    if row.type != "SecretRevealed":
        return None
    doc: Any = msgspec.json.decode(row.payload)
    found = doc.get("secret") if isinstance(doc, dict) else None
    return found if isinstance(found, str) else None


def secret_of(rows: Any) -> str | None:
    """The secret a log reveals, as the kernel's state holds it (its last SecretRevealed), or None."""
    found = None
    for r in rows:
        found = secret_in(r) or found
    return found


def email_step(email: PlayByEmail, row: Row) -> PlayByEmail:
    """Play by email's record after one more row (the same object if the row records none of it)."""
    kind = row.type
    if kind == "PaceSet":
        return replace(email, pace=msgspec.json.decode(row.payload, type=PaceSet), pace_at=row.recorded_at)
    if kind == "StandingOrdersSet":
        s = msgspec.json.decode(row.payload, type=StandingOrdersSet)
        return replace(email, standing={**email.standing, s.side: s.orders})
    if kind == "UndoConsented":
        c = msgspec.json.decode(row.payload, type=UndoConsented)
        return replace(email, consents={**email.consents,
                                        c.batch: (*email.consents.get(c.batch, ()), (row.seq, c.side))})
    if kind in UNDO_TYPES:
        doc = msgspec.json.decode(row.payload)
        return replace(email, undone=(*email.undone, (int(doc["batch"]), int(doc["through"]))))
    if kind == "SeatSet":
        seat = msgspec.json.decode(row.payload, type=SeatSet)
        return replace(email, seats={**email.seats, seat.side: (*email.seats.get(seat.side, ()), (row.seq, seat))})
    if kind == "OrdersQueued":
        q = msgspec.json.decode(row.payload, type=OrdersQueued)
        return _marked(email, q.side, QueueMark(seq=row.seq, orders=q.orders, round=q.round))
    if row.actor == QUEUED and row.batch == row.seq and row.command is not None:
        cmd: Any = msgspec.json.decode(row.command)
        if isinstance(cmd, dict) and cmd.get("type") == "QueuedOrder" and isinstance(cmd.get("side"), str):
            return _marked(email, cmd["side"], QueueMark(seq=row.seq))
    return email


def _marked(email: PlayByEmail, side: str, mark: QueueMark) -> PlayByEmail:
    return replace(email, queues={**email.queues, side: (*email.queues.get(side, ()), mark)})


def email_of(rows: Any) -> PlayByEmail:
    """Play by email's record of a whole log (rows in order)."""
    email = PlayByEmail()
    for r in rows:
        email = email_step(email, r)
    return email


# --- what the kernel reads of it ---------------------------------------------------------------------

def undone_seqs(email: PlayByEmail) -> set[int]:
    """The seqs of every event taken back: they stay in the log, replay skips them."""
    return {s for first, through in email.undone for s in range(first, through + 1)}


def consents(email: PlayByEmail, batch: int) -> set[str]:
    """The sides that consented to undoing the batch starting at event `batch` (K2)."""
    return {side for seq, side in email.consents.get(batch, ()) if seq > batch}


def queue(email: PlayByEmail, side: str, round_now: int) -> tuple[str, ...]:
    """The side's queued orders still waiting: those of its last queue, less the ones applied since,
    none once dropped or once the round they were queued in is over (K9). Undone events do not count."""
    marks = email.queues.get(side, ())
    gone = undone_seqs(email) if email.undone and marks else set()
    waiting: list[str] = []
    round_ = -1
    for m in marks:
        if m.seq in gone:
            continue
        if m.orders is not None:
            waiting, round_ = list(m.orders), m.round
        elif waiting:
            waiting.pop(0)
    return tuple(waiting) if round_ == round_now else ()


def seat_holder(email: PlayByEmail, side: str) -> SeatSet | None:
    """Who holds the side's seat as last handed over and not taken back (None: never handed over, K14)."""
    gone = undone_seqs(email)
    return next((seat for seq, seat in reversed(email.seats.get(side, ())) if seq not in gone), None)


def bot_holder(email: PlayByEmail, side: str) -> SeatSet | None:
    """The bot that holds the side's seat now, or None (a person holds it)."""
    seat = seat_holder(email, side)
    return seat if seat is not None and seat.bot else None


def held_by(email: PlayByEmail, side: str) -> str | None:
    """Who holds the side's seat now, in words: a bot with its level and budget (as `mn log` marks its
    acts), or the person it was handed to; None if it was never handed over (K14)."""
    seat = seat_holder(email, side)
    if seat is None:
        return None
    return f"bot {seat.bot}, budget {seat.budget}" if seat.bot else seat.player


def players_now(email: PlayByEmail, players: dict[str, str]) -> dict[str, str]:
    """side -> who holds its seat now, in words: its holder if it was handed over, else the player
    the game was created with (`players`, the ruleset's Meta)."""
    handed = {side: who for side in email.seats if (who := held_by(email, side)) is not None}
    return {**players, **handed}


def seated(ruleset: Ruleset, state: Any, email: PlayByEmail) -> Any:
    """The state with each seat handed over named by its holder now, not the player it was created
    with: what status, show and reports print. Who holds a seat is public (K14): every side may read it."""
    if not email.seats:
        return state
    return ruleset.with_players(state, players_now(email, {}))
