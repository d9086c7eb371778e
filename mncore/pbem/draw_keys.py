"""What keys each batch's draws, under the draw scheme its log records (ruling K10, docs/security.md).

Every draw is HMAC-SHA256(secret, key ‖ "|" ‖ counter) (mncore/core/dice.py); this module picks the key.
A log records its scheme in its KeysPublished event (`draws`); a log without it keeps the scheme it
was played under, so that every log ever written verifies as it did.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from mncore.core.actors import is_service_actor
from mncore.core.errors import InvalidCommand
from mncore.core.kernel_acts import UNDO_TYPES, SignedOrders
from mncore.pbem import turns
from mncore.store import Row

LEGACY = 0  # a signed block by its signature, every other batch by the content chain's head
K10 = 1  # as LEGACY, but the service's acts for a side keyed by that side's last signed block
K11 = 2  # as K10, but what a players' batch draws as a phase ends or begins keyed by game progress
SCHEMES = {"legacy": LEGACY, "k10": K10, "k11": K11}
LATEST = K11  # what mn new records for a game with keys


def batch_key(scheme: int, command: Any, content_head: str, rows: Sequence[Row] | None) -> str:
    """The key of a batch's draws: `content_head` is the content chain's head before it, `rows`
    the log before it (needed for the service's acts under K10)."""
    if isinstance(command, SignedOrders):
        from mncore.pbem import signing  # only signed games pay for its import

        return signing.draw_key(command)  # every scheme: the host cannot make the signature
    side = getattr(command, "side", None)
    if scheme >= K10 and turns.service_actor(command) is not None and isinstance(side, str):
        if rows is None:
            raise InvalidCommand(f"{type(command).__name__} is keyed on the log before it, which was "
                                 "not given")
        return service_key(rows, side)
    # the host's own acts and its unsigned orders: the host chose them anyway (docs/security.md)
    return content_head


def service_key(rows: Sequence[Row], side: str) -> str:
    """The key of an act the service takes for `side` (a deadline's default, a forced answer, a
    standing or queued order) under K10: the signature of the side's last signed block in the log
    (taken back or not), and how many of the service's answers for the side are still in play
    after it (the index of the decision this act answers, counted from that block).

    Nothing the host controls enters: not the content head (which moves with every act of the
    host's and with the order it applies other players' blocks in), not the time of a tick, not
    the host's deadline, pace or correction acts, not which kind of act answers (forced, default,
    standing, queued). A correction that takes back a service act gives its successor the same
    index and so the same dice: the host cannot re-roll by correcting. Only the side's own blocks
    move the key, and the host cannot apply one after an act for the side that it was signed
    before (the block is then stale: trust.check_block), only withhold it.
    """
    gone = getattr(rows, "taken_back", None)  # a prefix that carried them as it was read (verify_acts)
    if gone is None:
        gone = turns.undone_seqs(rows) if any(r.type in UNDO_TYPES for r in rows) else set()
    acts = 0
    for r in reversed(rows):
        if r.batch != r.seq or r.command is None:
            continue
        if r.actor == side:  # in a log with keys only a signed block is recorded as its side's
            found = _signature(r.command)
            if found is not None:
                return f"service:{side}:{found}:{acts}"
        elif is_service_actor(r.actor) and r.seq not in gone and _answers(r.command, side):
            acts += 1
    # the side never signed: nothing in the key is secret from the host (docs/security.md)
    return f"service:{side}:-:{acts}"


class _Sided(msgspec.Struct):
    type: str = ""
    side: str = ""
    signature: str = ""


_DECODER = msgspec.json.Decoder(_Sided)


# the service's acts that answer a decision; a queue dropped (DropQueue) answers none and draws
# nothing: counting it would let the host move the index by turning forced answers on or off
# (with them, a forced answer; without, the queue dropped and then the same answer by default)
ANSWERS = ("DefaultOrders", "ForcedOrders", "StandingOrder", "QueuedOrder", "BotOrders")


def _answers(command: str, side: str) -> bool:
    found = _DECODER.decode(command)
    return found.side == side and found.type in ANSWERS


def _signature(command: str) -> str | None:
    found = _DECODER.decode(command)
    return found.signature if found.type == "SignedOrders" and found.signature else None


def settle_source(scheme: int, command: Any, rows: Sequence[Row] | None) -> Callable[[], int] | None:
    """What keys the batch's settling draws under K11 (Rng.settling): the number of the players'
    order batches in play before it, counted on `rows` (the log before it) only if the batch's
    settle step draws. None (those draws continue the batch's own stream): an older scheme, or a
    batch that is not a players' order (the host's acts: the host chose them anyway)."""
    if scheme < K11 or not is_order(command):
        return None

    def count() -> int:
        if rows is None:
            raise InvalidCommand(f"{type(command).__name__} settles on the log before it, which was "
                                 "not given")
        return orders_before(rows)

    return count


def is_order(command: Any) -> bool:
    """Whether a command is a players' order batch: a signed block that gives orders now (not only
    kernel verbs, undo, consent, standing, nor only queued lines) or the service's answer for a
    side. Nothing the host gives counts, so nothing the host gives moves the count."""
    if isinstance(command, SignedOrders):
        return _gives_orders(command.orders)
    return type(command).__name__ in ANSWERS


def orders_before(rows: Sequence[Row]) -> int:
    """The number of the players' order batches in `rows` still in play (K11's M): taken-back
    batches are not counted, so a correction that takes back an act and lets the service give it
    again leaves the phase's draws as they were."""
    counted = getattr(rows, "orders_in_play", None)  # a prefix that counted them as it was read (verify_carry)
    if isinstance(counted, int):
        return counted
    gone = turns.undone_seqs(rows) if any(r.type in UNDO_TYPES for r in rows) else set()
    return sum(1 for r in rows if r.batch == r.seq and r.command is not None and r.seq not in gone
               and counts(r.command))


class _Lines(msgspec.Struct):
    type: str = ""
    orders: list[str] = []


_LINES = msgspec.json.Decoder(_Lines)


def counts(command: str) -> bool:
    """Whether a batch whose first row records `command` (as text) is a players' order: orders_before's test."""
    found = _LINES.decode(command)
    if found.type == "SignedOrders":
        return _gives_orders(found.orders)
    return found.type in ANSWERS


def _gives_orders(lines: Sequence[str]) -> bool:
    # queue lines come last (K9): a block gives orders now iff its first line is not one
    return bool(lines) and turns.act_kind(lines) is None and not turns.is_queue_line(lines[0])


def scheme_name(scheme: int) -> str:
    """The scheme's name as mn status and mn verify print it."""
    return next((name for name, n in SCHEMES.items() if n == scheme), str(scheme))
