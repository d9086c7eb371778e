"""The acts every game shares, whatever its rules: revealing the secret, publishing keys, signed orders."""

# no `from __future__ import annotations`: msgspec would compile each string annotation again at every
# start (tests/test_lean_start.py)
from collections.abc import Callable
from typing import Any, NoReturn, assert_never

import msgspec

from mncore.core.bounds import Number, bounded_while_decoding
from mncore.core.dice import commitment
from mncore.core.errors import InvalidCommand, require
from mncore.core.protocol import Meta


class RevealSecret(msgspec.Struct, frozen=True, tag=True, forbid_unknown_fields=True, kw_only=True,
                   omit_defaults=True):
    """Publish the game's secret so that every draw can be checked (the host's act)."""

    secret: str


class SecretRevealed(msgspec.Struct, frozen=True, tag=True, forbid_unknown_fields=True, kw_only=True,
                     omit_defaults=True):
    """The game's random secret, revealed so that anyone can check every draw."""

    secret: str  # hex


def reveal_events(meta: Meta, command: RevealSecret) -> list[SecretRevealed]:
    """The reveal, checked against the commitment of the game's first event."""
    require(meta.secret is None, "game", "the secret was already revealed")
    try:
        raw = bytes.fromhex(command.secret)
    except ValueError:
        raise InvalidCommand("the secret must be hexadecimal") from None
    require(commitment(raw) == meta.commitment, "game",
            "this secret does not match the commitment in the game's first event")
    return [SecretRevealed(secret=command.secret)]


class UpgradeLog(msgspec.Struct, frozen=True, tag=True, forbid_unknown_fields=True, kw_only=True,
                 omit_defaults=True):
    """Rewrite a log of an older format into the current one (the host's act, `mn upgrade`)."""

    from_version: int
    previous_head: str  # the last hash of the log in its old format


class LogUpgraded(msgspec.Struct, frozen=True, tag=True, forbid_unknown_fields=True, kw_only=True,
                  omit_defaults=True):
    """The log before this event was rewritten from an older format; its old head is kept here.

    Anyone who kept the old head can check that the rewritten log is the one they knew: verify
    recomputes the old format's chain over the events before this one.
    """

    from_version: Number
    previous_head: str


def upgrade_events(command: UpgradeLog) -> list[LogUpgraded]:
    """The record of an upgrade; verify checks previous_head against the events before it."""
    return [LogUpgraded(from_version=command.from_version, previous_head=command.previous_head)]
# --- player keys and signed orders (docs/security.md) -------------------------------------------

class PublishKeys(msgspec.Struct, frozen=True, tag=True, forbid_unknown_fields=True, kw_only=True,
                  omit_defaults=True):
    """Publish each side's Ed25519 public key, right after creation (the host's act)."""

    keys: dict[str, str]  # side -> public key, 64 hex digits
    signed_only: bool = False  # refuse every order that is not signed by its side
    draws: int = 0  # the draw scheme (mncore/pbem/draw_keys.py): 0 as before, 1 ruling K10, 2 K11


class KeysPublished(msgspec.Struct, frozen=True, tag=True, forbid_unknown_fields=True, kw_only=True,
                    omit_defaults=True):
    """Each side's public key: from here on an order signed with it is that side's own."""

    keys: dict[str, str]  # side -> public key, 64 hex digits
    signed_only: bool = False
    # the draw scheme of the log from here on (mncore/pbem/draw_keys.py); absent in logs made before
    # ruling K10, which keep the scheme they were played under
    draws: Number = 0


class SignedOrders(msgspec.Struct, frozen=True, tag=True, forbid_unknown_fields=True, kw_only=True,
                   omit_defaults=True):
    """A side's order block, signed with its key (mncore/pbem/signing.py): stored whole as its batch's
    command, so that anyone holding the log can check the signature against the published key."""

    game: str
    side: str
    seq: int  # the event the block answers: the log's last event when it was signed
    head: str  # that event's hash
    key: str  # the signer's public key, 64 hex digits
    nonce: str  # fresh random hex from the player: no two blocks sign the same text
    orders: tuple[str, ...]  # the order lines, decided in turn as one batch
    signature: str  # Ed25519 over signing.message(), 128 hex digits


class OrderBatch(msgspec.Struct, frozen=True, tag=True, forbid_unknown_fields=True, kw_only=True,
                 omit_defaults=True):
    """Several order lines of one side given at once without a signature (`mn order GAME --as SIDE
    'o1' 'o2'`): decided in turn on the evolving state and written as one batch, or not at all."""

    side: str
    orders: tuple[str, ...]


def kernel_only(command: Any) -> NoReturn:
    """A ruleset's decide() given a command that only the kernel decides (a bug in the caller)."""
    raise InvalidCommand(f"{type(command).__name__} is decided by the kernel (mncore.pbem.signing), "
                         "not by a ruleset")


# --- play by email: undo, consent, corrections, deadlines, defaults, forced answers, standing orders --



class _Act(msgspec.Struct, frozen=True, tag=True, forbid_unknown_fields=True, kw_only=True,
           omit_defaults=True):
    """A command or event of the kernel's play by email (docs/defaults.md, docs/standing-orders.md)."""


class UndoBatch(_Act, frozen=True, kw_only=True):
    """A side takes back its batch that starts at event `batch`, and every event after it (K1, K2)."""

    side: str
    batch: int


class BatchUndone(_Act, frozen=True, kw_only=True):
    """Events `batch` to `through` are undone: they stay in the log, replay skips them (K1)."""

    side: str  # whose batch it was, who asked
    batch: Number
    through: Number
    consented: tuple[str, ...] = ()  # the other sides affected, who consented (K2)


class ConsentUndo(_Act, frozen=True, kw_only=True):
    """A side agrees that the batch starting at event `batch` be undone (K2)."""

    side: str
    batch: int


class UndoConsented(_Act, frozen=True, kw_only=True):
    """A side's consent to undoing the batch that starts at event `batch` (K2)."""

    side: str
    batch: Number


class CorrectBatch(_Act, frozen=True, kw_only=True):
    """The host undoes a batch and every event after it, for a reason every side reads (K3)."""

    batch: int
    reason: str


class Corrected(_Act, frozen=True, kw_only=True):
    """The host's correction: events `batch` to `through` are undone, for `reason` (K3)."""

    batch: Number
    through: Number
    reason: str


class SetPace(_Act, frozen=True, kw_only=True):
    """The host sets the game's pace: how long each decision may stay pending, in hours, for the
    whole game and per phase (K4), and whether decisions with one legal answer are taken at once (K5)."""

    hours: int = 0  # the game's deadline (0: none)
    phases: dict[str, int] = {}  # a phase's own deadline, overriding the game's
    forced: bool = False


class PaceSet(_Act, frozen=True, kw_only=True):
    """The game's pace from here on: deadlines in hours (K4), forced answers taken at once (K5)."""

    hours: Number = 0
    phases: dict[str, Number] = {}
    forced: bool = False


class DefaultOrders(_Act, frozen=True, kw_only=True):
    """The documented default of a side's overdue decision, given by the deadline (K4)."""

    side: str
    orders: tuple[str, ...]
    due: str  # when the deadline passed (ISO 8601, UTC)
    at: str  # when the deadline's act was taken (the caller's clock; its row's time)


class ForcedOrders(_Act, frozen=True, kw_only=True):
    """The one legal answer of a side's pending decision, taken at once (K5)."""

    side: str
    orders: tuple[str, ...]


class SetStandingOrders(_Act, frozen=True, kw_only=True):
    """Orders a side leaves in advance, tried in turn whenever it must decide (K6); () clears them."""

    side: str
    orders: tuple[str, ...]


class StandingOrdersSet(_Act, frozen=True, kw_only=True):
    """A side's standing orders from here on (K6)."""

    side: str
    orders: tuple[str, ...]


class StandingOrder(_Act, frozen=True, kw_only=True):
    """The first of a side's standing orders that is legal when it must decide, applied (K6)."""

    side: str
    order: str


class OrdersQueued(_Act, frozen=True, kw_only=True):
    """A side's queued orders from here on, for its coming decisions of `round` (K9); given by the
    service, the queue dropped instead: `dropped`, the reason its first line was refused then."""

    side: str
    round: Number
    orders: tuple[str, ...]
    dropped: tuple[str, ...]
    reason: str


class QueuedOrder(_Act, frozen=True, kw_only=True):
    """The first of a side's queued orders, legal as written when the side must decide, applied (K9)."""

    side: str
    order: str


class DropQueue(_Act, frozen=True, kw_only=True):
    """A side's queued orders dropped: the first is not legal when the side must decide (K9)."""

    side: str


class SetSeat(_Act, frozen=True, kw_only=True):
    """The host hands a side's seat to a bot of a level and budget, or to a person by name (K14)."""

    side: str
    bot: str = ""  # the bot's level; "" hands the seat to a person
    budget: int = 0  # the bot's budget (worlds or playouts: docs/bots.md)
    player: str = ""  # the person's name


class SeatSet(_Act, frozen=True, kw_only=True):
    """Who holds a side's seat from here on: a bot of a level and budget, or a person (K14)."""

    side: str
    bot: str = ""
    budget: Number = 0
    player: str = ""


class BotOrders(_Act, frozen=True, kw_only=True):
    """The answer of the bot that holds a side's seat, to the side's pending decision (K14)."""

    side: str
    level: str
    budget: int
    orders: tuple[str, ...]


PbemCommand = (OrderBatch | UndoBatch | ConsentUndo | CorrectBatch | SetPace | DefaultOrders
               | ForcedOrders | SetStandingOrders | StandingOrder | QueuedOrder | DropQueue
               | SetSeat | BotOrders)
PbemEvent = BatchUndone | UndoConsented | Corrected | PaceSet | StandingOrdersSet | OrdersQueued | SeatSet
PBEM_COMMANDS = (OrderBatch, UndoBatch, ConsentUndo, CorrectBatch, SetPace, DefaultOrders,
                 ForcedOrders, SetStandingOrders, StandingOrder, QueuedOrder, DropQueue, SetSeat, BotOrders)
UNDO_TYPES = ("BatchUndone", "Corrected")  # events that undo the events before them (K1, K3)


def sentence(event: PbemEvent, name: Callable[[str], str], withheld: frozenset[str]) -> str:
    """One sentence for a kernel event of play by email as the boundary let its reader see it, the
    fields `withheld` gone (a side's standing and queued orders are its own), sides named by `name`."""
    match event:
        case BatchUndone(side=side, batch=b, through=t, consented=c):
            agreed = f", with the consent of {', '.join(name(s) for s in c)}" if c else ""
            return f"{name(side)} took back {_events(b, t)}{agreed}; replay skips {_them(b, t)} (ruling K1)."
        case UndoConsented(side=side, batch=b):
            return f"{name(side)} consents to undoing the batch of event {b} (ruling K2)."
        case Corrected(batch=b, through=t, reason=reason):
            undone = f"{_events(b, t)} {'is' if b == t else 'are'} undone"
            return f"Host correction: {undone}. Reason: {reason} (ruling K3)."
        case PaceSet(hours=h, phases=p, forced=forced):
            each = ", ".join(f"{k} {_hours(v)}" for k, v in sorted(p.items()))
            game_wide = f"{_hours(h)} for each decision" if h else "no deadline for the game"
            taken = "; decisions with one legal answer are taken at once" if forced else ""
            return (f"Pace set: {game_wide}" + (f"; per phase: {each}" if each else "")
                    + f"{taken} (rulings K4, K5).")
        case StandingOrdersSet(side=side, orders=orders):
            if not orders:
                return f"{name(side)} withdrew its standing orders."
            if "payload/orders" in withheld:
                return f"{name(side)} left standing orders."
            return f"{name(side)} left standing orders: {'; '.join(orders)}."
        case OrdersQueued():
            return _queued(event, name, "payload/orders" not in withheld)
        case SeatSet(side=side, bot=level, budget=budget, player=player):
            if level:
                return (f"The host handed {name(side)}'s seat to a bot ({level}, budget {budget}): it "
                        f"answers {name(side)}'s decisions from what {name(side)} may see (ruling K14).")
            return f"The host handed {name(side)}'s seat to {player}, who decides for it (ruling K14)."
        case _:
            assert_never(event)


def _queued(event: OrdersQueued, name: Callable[[str], str], own: bool) -> str:
    """A side's queue set, withdrawn or dropped, as its own reader (own) or another reads it: the lines
    and the reason are withheld from others (K9), who learn only that the queue was set or dropped."""
    who = name(event.side)
    if event.dropped and not own:
        return f"{who}'s queued orders were dropped: {who} decides itself (ruling K9)."
    if event.dropped:
        rest = len(event.dropped) - 1
        after = f", with the {rest} queued after it" if rest else ""
        return (f"{who}'s queued order '{event.dropped[0]}' is not legal now: {event.reason}; it is "
                f"dropped{after}, and {who} decides itself (ruling K9).")
    if not event.orders:
        return f"{who} withdrew its queued orders."
    if not own:
        return f"{who} queued orders for its coming decisions of round {event.round}."
    return f"{who} queued for its coming decisions of round {event.round}: {'; '.join(event.orders)}."


def _events(first: int, last: int) -> str:
    return f"event {first}" if first == last else f"events {first} to {last}"


def _them(first: int, last: int) -> str:
    return "it" if first == last else "them"


def _hours(n: int) -> str:
    return "1 hour" if n == 1 else f"{n} hours"


KERNEL_COMMANDS = (PublishKeys, SignedOrders, *PBEM_COMMANDS)  # decided by the kernel, not a ruleset

# the kernel's own envelope of every log, whatever the game: no ruleset's union holds them
# (mncore/core/envelope.py decodes them beside a ruleset's own)
KernelEvent = SecretRevealed | LogUpgraded | KeysPublished | PbemEvent
KernelCommand = RevealSecret | UpgradeLog | PublishKeys | SignedOrders | PbemCommand
KERNEL_EVENTS = (SecretRevealed, LogUpgraded, KeysPublished, BatchUndone, UndoConsented, Corrected,
                 PaceSet, StandingOrdersSet, OrdersQueued, SeatSet)
ALL_KERNEL_COMMANDS = (RevealSecret, UpgradeLog, *KERNEL_COMMANDS)
bounded_while_decoding(KERNEL_EVENTS)


def kernel_sentence(event: KernelEvent, name: Callable[[str], str], withheld: frozenset[str]) -> str:
    """One sentence for any kernel event as the boundary let its reader see it, sides named by `name`."""
    match event:
        case KeysPublished(keys=keys, signed_only=only):
            return ("Public keys published for " + ", ".join(name(s) for s in keys)
                    + ("; orders must be signed" if only else ""))
        case SecretRevealed():
            return "The game's secret was revealed: every draw can now be checked"
        case LogUpgraded(previous_head=old):
            return f"The log was rewritten into the current format (old head {old})"
        case _:
            return sentence(event, name, withheld)


def order_lines(command: Any) -> tuple[str, ...] | None:
    """The order lines a kernel command carries for a side (a block, a batch, a default, a standing or
    queued order), or None for a command that carries none (the host's acts, a ruleset's command)."""
    if isinstance(command, SignedOrders | OrderBatch | DefaultOrders | ForcedOrders | BotOrders):
        return command.orders
    if isinstance(command, StandingOrder | QueuedOrder):
        return (command.order,)
    return None
