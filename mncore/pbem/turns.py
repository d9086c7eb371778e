"""Play by email, whatever the game: batches of orders, undo and consent, corrections, deadlines and
their defaults, forced answers, standing and queued orders, each decided on the log (rulings K1 to K6, K9)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Container, Iterable, Iterator, Sequence
from itertools import chain
from typing import Any

import msgspec

from mncore.core.actors import DEADLINE, FORCED, QUEUED, STANDING, bot_actor, is_service_actor
from mncore.core.collector import collector_paused
from mncore.core.dice import Rng, SecretNeeded
from mncore.core.errors import CommandRejected, InvalidCommand, RuleViolation
from mncore.core.kernel_acts import (
    PBEM_COMMANDS,
    UNDO_TYPES,
    BatchUndone,
    BotOrders,
    ConsentUndo,
    CorrectBatch,
    Corrected,
    DefaultOrders,
    DropQueue,
    ForcedOrders,
    OrderBatch,
    OrdersQueued,
    PaceSet,
    QueuedOrder,
    SeatSet,
    SetPace,
    SetSeat,
    SetStandingOrders,
    SignedOrders,
    StandingOrder,
    StandingOrdersSet,
    UndoBatch,
    UndoConsented,
)
from mncore.core.kernel_state import PlayByEmail, bot_holder, consents, email_of, queue, seat_holder
from mncore.core.kernel_state import undone_seqs as undone_in
from mncore.core.protocol import HOST, Defaults, Ruleset
from mncore.store import Row

# acts that are not a side's move: an undo passes over them, and cannot take them back (K1)
BESIDE_PLAY = ("ConsentUndo", "SetPace", "SetStandingOrders", "UndoBatch", "CorrectBatch", "DropQueue", "SetSeat")
MAX_HOURS = 24 * 366  # a deadline longer than a year is a typo
MAX_TEXT = 2000  # characters of a correction's reason or of a standing order line
MAX_STANDING = 64  # standing order lines a side may leave
FORCED_LINE = "forced"  # a standing order: take my decisions with one legal answer at once (K5, K6)
QUEUE_VERB = "queue"  # a batch's line `queue ORDER`: ORDER waits for the side's coming decision (K9)
MAX_QUEUE = 64  # order lines a side may queue
MAX_BOT_BUDGET = 10_000  # a bot's worlds or playouts a decision (docs/bots.md)
MAX_NAME = 100  # characters of a player's name a seat is handed to


class Log(msgspec.Struct, kw_only=True):
    """The log before a command, as the kernel's play by email reads it: its rows and their events."""

    rows: Sequence[Row]
    events: Sequence[Any]
    game_id: str = ""  # the id the game is read under (a state taken back to is named with it)
    # the kernel's record of these rows (KernelState.email, a game's as loaded); folded from them if not given
    email: PlayByEmail | None = None

    @property
    def record(self) -> PlayByEmail:
        """Play by email's record of the log: its pace, standing orders, consents, undos and queues."""
        if self.email is None:
            self.email = email_of(self.rows)
        return self.email

    # What the acts ask of the log beyond its record, read from the whole log here; a reader that
    # carried the answers as it passed the log (verify_acts.CarriedLog) gives them without reading it.

    def now(self, ruleset: Ruleset) -> Any:
        """The state the log folds into."""
        return fold_live(ruleset, self.rows, self.events)

    def waited(self, ruleset: Ruleset) -> tuple[Any, Since]:
        """The state the log folds into, and since when each side has been waited for (waits)."""
        starts = _BatchStarts(self.rows)
        return waits(ruleset, ruleset.initial(""), {}, starts, self.events, undone_in(self.record), starts.time_of)

    def state_before(self, ruleset: Ruleset, batch: int) -> Any:
        """The state before event `batch`: the rows before it folded, less what undos among them took back."""
        gone = undone_seqs([r for r in self.rows if r.seq < batch and r.type in UNDO_TYPES])
        return fold_before(ruleset, ruleset.initial(""), zip(self.rows, self.events, strict=True), batch, gone)

    def rows_from(self, seq: int) -> Iterator[Row]:
        """The rows from event `seq` on, read as they are asked for."""
        return (r for r in self.rows if r.seq >= seq)

    def pairs_from(self, seq: int) -> Iterator[tuple[Row, Any]]:
        """The rows from event `seq` on with their events, read as they are asked for."""
        return ((r, e) for r, e in zip(self.rows, self.events, strict=True) if r.seq >= seq)


def fold_before(ruleset: Ruleset, start: Any, pairs: Iterable[tuple[Row, Any]], batch: int,
                gone: Container[int]) -> Any:
    """The fold from `start` of the (row, event) pairs before event `batch`, less those taken back (gone)."""
    state = start
    with collector_paused():
        for r, e in pairs:
            if r.seq >= batch:
                break
            if r.seq not in gone:
                state = ruleset.evolve(state, e)
    return state

class Span(msgspec.Struct, frozen=True, kw_only=True):
    """One batch of a log: its first and last seq, who gave it, and its command's kind."""

    first: int
    last: int
    giver: str  # the side whose act it is, or HOST
    actor: str  # the actor its rows are recorded under
    kind: str  # the command's type name
    time: str  # when it was recorded


# --- reading the log ---------------------------------------------------------------------------------

def undone_ranges(rows: Sequence[Row]) -> list[tuple[int, int]]:
    """(first, through) of every run of events an undo or a correction took back (K1, K3)."""
    out = []
    for r in rows:
        if r.type in UNDO_TYPES:
            doc = msgspec.json.decode(r.payload)
            out.append((int(doc["batch"]), int(doc["through"])))
    return out


def undone_seqs(rows: Sequence[Row]) -> set[int]:
    """The seqs of every event taken back: they stay in the log, replay skips them."""
    return {s for first, through in undone_ranges(rows) for s in range(first, through + 1)}


def live(rows: Sequence[Row], events: Sequence[Any]) -> Iterator[tuple[Row, Any]]:
    """The rows and events a replay folds: all but those taken back (K1)."""
    gone = undone_seqs(rows) if any(r.type in UNDO_TYPES for r in rows) else set()
    return ((r, e) for r, e in zip(rows, events, strict=True) if r.seq not in gone)


def fold_live(ruleset: Ruleset, rows: Sequence[Row], events: Sequence[Any]) -> Any:
    """The state a log folds into, skipping what was taken back."""
    state = ruleset.initial("")
    for _, e in live(rows, events):
        state = ruleset.evolve(state, e)
    return state


def states(ruleset: Ruleset, rows: Sequence[Row], events: Sequence[Any]) -> Iterator[Any]:
    """The state after each row, as the game stood then: at an undo or a correction it goes back to
    the state before the batch taken back (the same states as folding the live events). Only the
    states an undo goes back to are kept (a state per batch would grow with the log)."""
    return states_from(ruleset, ruleset.initial(""), zip(rows, events, strict=True), undo_targets(rows))


def states_from(ruleset: Ruleset, state: Any, pairs: Iterable[tuple[Row, Any]], targets: Container[int]) -> Iterator[Any]:
    """states() of the rows and events `pairs` from the state before them, `targets` the batches their undos name."""
    before: dict[int, Any] = {}
    for r, e in pairs:
        if r.batch == r.seq and r.seq in targets:
            before[r.seq] = state
        state = ruleset.evolve(state, e)
        if r.type in UNDO_TYPES:
            state = before.get(int(msgspec.json.decode(r.payload)["batch"]), state)
        yield state


def undo_targets(rows: Iterable[Row]) -> set[int]:
    """The batches the undos and corrections of a log name (one it cannot read names none: states()
    fails at it all the same)."""
    out = set()
    for r in rows:
        if r.type in UNDO_TYPES:
            try:
                out.add(int(msgspec.json.decode(r.payload)["batch"]))
            except (msgspec.DecodeError, KeyError, TypeError, ValueError):
                continue
    return out


def giver_of(ruleset: Ruleset, command: Any) -> str:
    """The side whose act a command is, or HOST (the host's own acts)."""
    kind = _GIVER_KINDS.get(type(command))
    if kind is None:
        kind = _GIVER_KINDS[type(command)] = _giver_kind(command)
    if kind == "host":
        return HOST
    if kind == "side":  # only then: a missing attribute's default costs a raised error (every rules order)
        side = getattr(command, "side", None)
        if isinstance(side, str):
            return side
    return ruleset.actor_of(command)


# each command type's way to its giver, found once (asked of every command a log holds)
_GIVER_KINDS: dict[type, str] = {}


def _giver_kind(command: Any) -> str:
    if isinstance(command, CorrectBatch | SetPace | SetSeat):
        return "host"
    if isinstance(command, (SignedOrders, OrderBatch, UndoBatch, ConsentUndo, DefaultOrders, ForcedOrders,
                            SetStandingOrders, StandingOrder, QueuedOrder, DropQueue, BotOrders)):
        return "side"
    return "rules"


def service_marks(rows: Sequence[Row]) -> dict[int, str]:
    """The service's acts among rows, by seq: [forced], [standing], [deadline], [queued].

    A batch the service took for a side is marked on its act, the batch's first event, and on any
    later event of the batch that the side itself did (it names the side: a second order line's
    event); what follows by itself (a phase beginning, trading starting, titles assessed) is not.
    """
    side_of: dict[int, Any] = {}
    out: dict[int, str] = {}
    for r in rows:
        if not is_service_actor(r.actor):
            continue
        if r.seq == r.batch:
            command = msgspec.json.decode(r.command) if r.command else {}
            side_of[r.batch] = command.get("side") if isinstance(command, dict) else None
            out[r.seq] = r.actor
            continue
        payload = msgspec.json.decode(r.payload)
        who = payload.get("empire", payload.get("civ")) if isinstance(payload, dict) else None
        if who is not None and who == side_of.get(r.batch):
            out[r.seq] = r.actor
    return out


def service_actor(command: Any) -> str | None:
    """The actor of an act the service takes for a side (deadline, forced, standing), else None."""
    if isinstance(command, BotOrders):  # the one actor that depends on the command, not its type
        return bot_actor(command.level, command.budget)
    found = _SERVICE_ACTORS_OF.get(type(command), "")
    if found == "":  # each command type's, found once: most commands have none
        found = _SERVICE_ACTORS_OF[type(command)] = _service_actor(command)
    return found


_SERVICE_ACTORS_OF: dict[type, str | None] = {}


def _service_actor(command: Any) -> str | None:
    if isinstance(command, DefaultOrders):
        return DEADLINE
    if isinstance(command, ForcedOrders):
        return FORCED
    if isinstance(command, StandingOrder):
        return STANDING
    if isinstance(command, QueuedOrder | DropQueue):
        return QUEUED
    return None


def spans(ruleset: Ruleset, rows: Sequence[Row]) -> list[Span]:
    """Every batch of a log (taken back or not), in order."""
    return list(each_span(ruleset, rows))


def each_span(ruleset: Ruleset, rows: Iterable[Row]) -> Iterator[Span]:
    """spans() one at a time, each as its batch ends: a log read as a stream stays one."""
    span: Span | None = None
    for r in rows:
        if r.batch != r.seq:
            if span is None:
                raise IndexError("a log that opens inside a batch")  # as spans' out[-1] of no span
            span = msgspec.structs.replace(span, last=r.seq)
            continue
        if span is not None:
            yield span
        giver, kind = _opened(ruleset, r)
        span = Span(first=r.seq, last=r.seq, giver=giver, actor=r.actor, kind=kind, time=r.recorded_at)
    if span is not None:
        yield span


def _opened(ruleset: Ruleset, first: Row) -> tuple[str, str]:
    """Who gave the batch that row `first` opens (HOST for none), and its command's kind."""
    cmd = ruleset.decode_command(first.command) if first.command is not None else None
    kind = act_kind(cmd.orders) if isinstance(cmd, SignedOrders) else None
    return HOST if cmd is None else giver_of(ruleset, cmd), kind or type(cmd).__name__


def giver_at(ruleset: Ruleset, log: Log, batch: int) -> str:
    """Who gave the batch that starts at event `batch` (HOST where none starts there)."""
    first = next(log.rows_from(max(batch, 1)), None)
    return _opened(ruleset, first)[0] if first is not None and first.seq == first.batch == batch else HOST


def standing_of(rows: Sequence[Row], side: str) -> tuple[str, ...]:
    """The standing orders a side left last in a log (K6); a game as loaded holds them (KernelState)."""
    return email_of(rows).standing.get(side, ())


def consents_of(rows: Sequence[Row], batch: int) -> set[str]:
    """The sides that consented to undoing the batch starting at event `batch` (K2), read from a log
    (a game as loaded holds them: kernel_state.consents)."""
    return consents(email_of(rows), batch)


# --- a signed block's kernel verbs: undo, consent N, standing ORDER -----------------------------------

def act_kind(lines: Sequence[str]) -> str | None:
    """The kernel act a signed block's lines ask for (K1, K2, K6), or None for orders of the game:
    `undo` alone, `consent N` alone, or every line `standing ORDER` (`standing` alone clears)."""
    words = [line.split() for line in lines]
    if len(words) == 1 and words[0] == ["undo"]:
        return "UndoBatch"
    if len(words) == 1 and len(words[0]) == 2 and words[0][0] == "consent":
        return "ConsentUndo"
    if words and all(w and w[0] == "standing" for w in words):
        return "SetStandingOrders"
    return None


def block_act(ruleset: Ruleset, side: str, lines: Sequence[str], log: Log) -> Any:
    """The kernel command a signed block's verbs stand for, read against the log before it (None:
    the block holds the game's orders). `undo` takes the side's last batch back if it may alone,
    else records its request (its own consent, K2)."""
    match act_kind(lines):
        case "UndoBatch":
            batch = last_batch(ruleset, log.rows, side, undone_in(log.record))
            _, needed = undo_needs(ruleset, log, side, batch)
            if all(s in consents(log.record, batch) for s in needed):
                return UndoBatch(side=side, batch=batch)
            return ConsentUndo(side=side, batch=batch)
        case "ConsentUndo":
            number = lines[0].split()[1]
            if not number.isdigit() or len(number) > 12:
                raise InvalidCommand(f"'{lines[0]}': write consent N, N the first event of the batch")
            return ConsentUndo(side=side, batch=int(number))
        case "SetStandingOrders":
            orders = tuple(" ".join(line.split()[1:]) for line in lines)
            return SetStandingOrders(side=side, orders=() if orders == ("",) else orders)
    return None


def last_batch(ruleset: Ruleset, rows: Sequence[Row], side: str, gone: Container[int]) -> int:
    """The first event of the side's last batch of orders still in play (refused: K1 if none), read back
    from the log's end; `gone`: the events taken back (the kernel's record holds them: undone_in)."""
    for r in reversed(rows):
        if r.batch == r.seq and r.seq not in gone:
            giver, kind = _opened(ruleset, r)
            if giver == side and kind not in BESIDE_PLAY:
                return r.seq
    raise RuleViolation("kernel:K1", f"{ruleset.side_name(side)} has no batch of orders to take back")


# --- deciding the commands of play by email ---------------------------------------------------------

def decide_lines(ruleset: Ruleset, state: Any, side: str, lines: Sequence[str],
                 rng: Rng, queue_ok: bool = False) -> tuple[list[Any], Any]:
    """Order lines of one side decided in turn on the evolving state, all drawing from one Rng; a
    refused line refuses them all, its number and text in the message (one batch or none).
    `queue_ok` (a batch or a signed block): lines `queue ORDER` after them are the side's queue (K9)."""
    now, queued = split_queue(lines) if queue_ok else (list(lines), None)
    out: list[Any] = []
    for n, line in enumerate(now, start=1):
        try:
            cmd = ruleset.parse_order(line, state, side)
            if ruleset.actor_of(cmd) != side:
                raise InvalidCommand(f"'{line}' is not an order {ruleset.side_name(side)} gives")
            events, state = ruleset.decide(state, cmd, rng)
        except CommandRejected as err:
            if len(lines) > 1:
                err.message = f"order {n} ('{line}'): {err.message}"
                if isinstance(err, RuleViolation):
                    err.reason = f"order {n} ('{line}'): {err.reason}"
            raise
        out += events
    if queued is not None:
        event = OrdersQueued(side=side, round=ruleset.meta(state).round, orders=queued, dropped=(), reason="")
        out.append(event)
        state = ruleset.evolve(state, event)
    if not out:
        raise InvalidCommand("the orders change nothing: there is nothing to record")
    return out, state


def is_queue_line(line: str) -> bool:
    """Whether an order line is `queue ORDER` (or a lone `queue`, which withdraws the queue: K9)."""
    return line.split(maxsplit=1)[:1] == [QUEUE_VERB]


def split_queue(lines: Sequence[str]) -> tuple[list[str], tuple[str, ...] | None]:
    """A batch's lines split into the orders given now and the queued ones (None: no queue line);
    queue lines come last, a lone `queue` alone among them (K9)."""
    first = next((n for n, line in enumerate(lines) if is_queue_line(line)), None)
    if first is None:
        return list(lines), None
    queued = [line.split(maxsplit=1)[1:] for line in lines[first:]]
    for n, (line, words) in enumerate(zip(lines[first:], queued, strict=True), start=first + 1):
        if not is_queue_line(line):
            raise InvalidCommand(f"order {n} ('{line}') is given now but comes after a queued order: "
                                 "the queue lines come last (ruling K9)")
        if not words and len(queued) > 1:
            raise InvalidCommand(f"order {n}: a lone 'queue' withdraws the queue; it cannot stand "
                                 "among queued orders")
        if words and len(words[0]) > MAX_TEXT:
            raise InvalidCommand(f"order {n} is {len(words[0]):,} characters long, more than {MAX_TEXT:,}")
    if len(queued) > MAX_QUEUE:
        raise InvalidCommand(f"{len(queued):,} queued orders: a side may queue {MAX_QUEUE} at most")
    return list(lines[:first]), tuple(w[0] for w in queued if w)


def decide(ruleset: Ruleset, state: Any, command: Any, *, secret: bytes | None, draw_head: str,
           log: Log | None, settle: Callable[[], int] | None = None) -> tuple[list[Any], Any]:
    """The events of a command of play by email and the state after them; a refusal cites K1 to K6 or K9.
    `settle`: what keys the draws of a phase's end under K11 (Rng.settling), None to keep them in
    `draw_head`'s stream."""
    rng = Rng(secret, draw_head, settle)
    if isinstance(command, OrderBatch):
        return decide_lines(ruleset, state, command.side, command.orders, rng, queue_ok=True)
    if log is None:
        raise InvalidCommand(f"{type(command).__name__} is decided on the log, which was not given")
    match command:
        case UndoBatch():
            return _undo(ruleset, state, command, log)
        case ConsentUndo():
            return _consent(ruleset, state, command, log)
        case CorrectBatch():
            return _correct(ruleset, state, command, log)
        case SetPace():
            return _pace(ruleset, state, command)
        case DefaultOrders():
            return _default(ruleset, state, command, log, rng)
        case ForcedOrders():
            return _forced(ruleset, state, command, log, rng)
        case SetStandingOrders():
            return _standing_set(ruleset, state, command)
        case StandingOrder():
            return _standing(ruleset, state, command, log, rng)
        case QueuedOrder():
            return _queued(ruleset, state, command, log, rng)
        case DropQueue():
            return _drop_queue(ruleset, state, command, log)
        case SetSeat():
            return _seat(ruleset, state, command, log)
        case BotOrders():
            return _bot(ruleset, state, command, log, rng)
    raise InvalidCommand(f"{type(command).__name__} is not a command of play by email")


def _pending_sides(ruleset: Ruleset, state: Any) -> list[str]:
    return list(dict.fromkeys(p.empire for p in ruleset.pending(state)))


def _undo_span(ruleset: Ruleset, log: Log, batch: int, rule: str) -> tuple[Span, Iterator[Span]]:
    """The live batch starting at `batch` and the live batches after it, read as they are asked for
    (a correction may name a batch far back); refused unless it is one."""
    gone = undone_in(log.record)
    rows = log.rows_from(max(batch, 1))
    first = next(rows, None)
    if first is None or first.seq != batch or first.batch != batch:
        first = None  # no batch starts there: read no further
    live_spans = (s for s in each_span(ruleset, chain([first], rows) if first else ()) if s.first not in gone)
    found = next((s for s in live_spans if s.first == batch), None)
    if found is None or found.giver == HOST or found.kind in BESIDE_PLAY:
        raise RuleViolation(rule, f"event {batch} does not start a batch of orders still in play: "
                                  "nothing to take back there")
    return found, live_spans


def undo_needs(ruleset: Ruleset, log: Log, side: str, batch: int) -> tuple[int, list[str]]:
    """The last event an undo of `batch` takes back, and the sides whose consent it needs (K1, K2).

    Refused outright (RuleViolation K1) when the batch is not the side's, when the side acted
    after it, or when a host's act or the secret's reveal came after it."""
    first, after = _undo_span(ruleset, log, batch, "kernel:K1")
    if first.giver != side:
        raise RuleViolation("kernel:K1", f"the batch of event {batch} is "
                                         f"{_name(ruleset, first.giver)}'s, not {_name(ruleset, side)}'s")
    others: set[str] = set()
    for s in after:
        if s.kind in BESIDE_PLAY:
            continue
        if s.giver == HOST:
            raise RuleViolation("kernel:K1", f"the host acted at event {s.first} after it "
                                             f"({s.kind}); only a host correction can undo it (K3)")
        if s.giver == side and s.actor != FORCED:
            raise RuleViolation("kernel:K1", f"{_name(ruleset, side)} gave orders again at event "
                                             f"{s.first}: only its last batch can be taken back")
        if s.actor != FORCED:
            others.add(s.giver)
    if any(r.type == "SecretRevealed" for r in log.rows_from(batch)):
        raise RuleViolation("kernel:K1", "the game's secret was revealed after it: nothing before "
                                         "the reveal can be taken back")
    revealed = isinstance(ruleset, Defaults) and any(ruleset.reveals(e) for _, e in log.pairs_from(batch))
    if revealed or drew_since(ruleset, log, batch):
        others |= set(ruleset.meta(log.now(ruleset)).sides)
    through = log.rows[-1].seq
    return through, sorted(others - {side})


def drew_since(ruleset: Ruleset, log: Log, batch: int) -> bool:
    """Whether a batch still in play from event `batch` on drew at random: each is decided again on
    the state it was given in, with no secret, and a draw asks for it (whatever the game)."""
    gone = undone_in(log.record)
    state = log.state_before(ruleset, batch)
    # the state before each batch from `batch` on, as the game stood: an undo among them steps back
    targets = undo_targets(r for r in log.rows_from(batch) if r.type in UNDO_TYPES)
    for r, after in zip(log.rows_from(batch), states_from(ruleset, state, log.pairs_from(batch), targets),
                        strict=True):
        if r.batch == r.seq and r.seq not in gone and r.command is not None:
            try:
                _draws(ruleset, state, ruleset.decode_command(r.command))
            except SecretNeeded:
                return True
            except Exception:  # a command that cannot be decided again drew nothing here: verify judges it
                pass
        state = after
    return False


def _draws(ruleset: Ruleset, state: Any, command: Any) -> None:
    """Decide a command again with no secret, to see whether it draws (SecretNeeded if it does)."""
    rng = Rng(None, "")
    if isinstance(command, SignedOrders | OrderBatch | DefaultOrders | ForcedOrders | BotOrders):
        if not (isinstance(command, SignedOrders) and act_kind(command.orders) is not None):
            decide_lines(ruleset, state, command.side, command.orders, rng,
                         queue_ok=isinstance(command, SignedOrders | OrderBatch))
    elif isinstance(command, StandingOrder | QueuedOrder):
        decide_lines(ruleset, state, command.side, [command.order], rng)
    elif not isinstance(command, PBEM_COMMANDS) and ruleset.actor_of(command) != HOST:
        ruleset.decide(state, command, rng)


def _undo(ruleset: Ruleset, state: Any, command: UndoBatch, log: Log) -> tuple[list[Any], Any]:
    through, needed = undo_needs(ruleset, log, command.side, command.batch)
    missing = [s for s in needed if s not in consents(log.record, command.batch)]
    if missing:
        raise RuleViolation("kernel:K2", f"taking back events {command.batch} to {through} needs the "
                                         f"consent of {', '.join(_name(ruleset, s) for s in missing)}: "
                                         "something was drawn or revealed, or another side acted since")
    event = BatchUndone(side=command.side, batch=command.batch, through=through,
                        consented=tuple(needed))
    return [event], _reverted(ruleset, log, event.batch)


def _reverted(ruleset: Ruleset, log: Log, batch: int) -> Any:
    """The state once events batch..through, the last of the log, are taken back (the name of the game kept)."""
    state = log.state_before(ruleset, batch)
    return ruleset.named(state, log.game_id) if log.game_id else state


def _consent(ruleset: Ruleset, state: Any, command: ConsentUndo, log: Log) -> tuple[list[Any], Any]:
    first, _ = _undo_span(ruleset, log, command.batch, "kernel:K2")
    if command.side in consents(log.record, command.batch):
        raise RuleViolation("kernel:K2", f"{_name(ruleset, command.side)} already consented to undoing "
                                         f"the batch of event {command.batch}")
    through, needed = undo_needs(ruleset, log, first.giver, command.batch)  # refuses what cannot be asked
    if command.side not in [first.giver, *needed]:
        raise RuleViolation("kernel:K2", f"taking back the batch of event {command.batch} does not need "
                                         f"{_name(ruleset, command.side)}'s consent")
    given = UndoConsented(side=command.side, batch=command.batch)
    agreed = consents(log.record, command.batch) | {command.side}
    if any(s not in agreed for s in [first.giver, *needed]):
        return [given], state
    # the consent that completes them (the giver's request among them) takes the batch back at once
    undone = BatchUndone(side=first.giver, batch=command.batch, through=through, consented=tuple(needed))
    return [given, undone], _reverted(ruleset, log, command.batch)


def _correct(ruleset: Ruleset, state: Any, command: CorrectBatch, log: Log) -> tuple[list[Any], Any]:
    reason = command.reason.strip()
    if not reason:
        raise InvalidCommand("a correction needs its reason (--reason TEXT), which every side reads")
    if len(reason) > MAX_TEXT:
        raise InvalidCommand(f"the reason is {len(reason):,} characters long, more than {MAX_TEXT:,}")
    _undo_span(ruleset, log, command.batch, "kernel:K3")
    if any(r.type == "SecretRevealed" for r in log.rows_from(command.batch)):
        raise RuleViolation("kernel:K3", "the game's secret was revealed after that batch: a "
                                         "correction cannot take back a reveal")
    event = Corrected(batch=command.batch, through=log.rows[-1].seq, reason=reason)
    return [event], _reverted(ruleset, log, event.batch)


def _pace(ruleset: Ruleset, state: Any, command: SetPace) -> tuple[list[Any], Any]:
    for what, hours in [("the game", command.hours), *command.phases.items()]:
        if not 0 <= hours <= MAX_HOURS:
            raise InvalidCommand(f"deadline of {what}: {hours} hours is not 0 to {MAX_HOURS}")
    return [PaceSet(hours=command.hours, phases=dict(command.phases), forced=command.forced)], state


def _standing_set(ruleset: Ruleset, state: Any, command: SetStandingOrders) -> tuple[list[Any], Any]:
    if len(command.orders) > MAX_STANDING:
        raise InvalidCommand(f"{len(command.orders):,} standing orders: a side may leave {MAX_STANDING} at most")
    for n, line in enumerate(command.orders, start=1):
        if not line.strip():
            raise InvalidCommand("a standing order is an order line; an empty one means nothing")
        if len(line) > MAX_TEXT:
            raise InvalidCommand(f"standing order {n} is {len(line):,} characters long, more than {MAX_TEXT:,}")
    return [StandingOrdersSet(side=command.side, orders=tuple(command.orders))], state


def _must_decide(ruleset: Ruleset, state: Any, side: str, rule: str) -> None:
    if side not in _pending_sides(ruleset, state):
        raise RuleViolation(rule, f"{_name(ruleset, side)} has nothing to decide now")


def _default(ruleset: Ruleset, state: Any, command: DefaultOrders, log: Log,
             rng: Rng) -> tuple[list[Any], Any]:
    _must_decide(ruleset, state, command.side, "kernel:K4")
    due = waiting(ruleset, log).get(command.side)
    if due is None or due.due is None:
        raise RuleViolation("kernel:K4", f"no deadline runs for {_name(ruleset, command.side)}'s "
                                         "decision (mn deadline sets them)")
    if command.due != due.due or _time(command.at) < _time(due.due):
        raise RuleViolation("kernel:K4", f"{_name(ruleset, command.side)}'s deadline is {due.due}, "
                                         f"not passed at {command.at}")
    wanted = ruleset.default_orders(state, command.side) if isinstance(ruleset, Defaults) else ()
    if not wanted or tuple(command.orders) != tuple(wanted):
        raise RuleViolation("kernel:K4", f"the default of {_name(ruleset, command.side)}'s decision is "
                                         f"{'; '.join(wanted) or 'none'}, not {'; '.join(command.orders)}")
    return decide_lines(ruleset, state, command.side, command.orders, rng)


def takes_forced(email: PlayByEmail, side: str) -> bool:
    """Whether the side's decisions with one legal answer are taken at once: the host's pace says so
    for every side (K5), or the side's own standing order `forced` (K6)."""
    return email.pace.forced or FORCED_LINE in email.standing.get(side, ())


def _forced(ruleset: Ruleset, state: Any, command: ForcedOrders, log: Log,
            rng: Rng) -> tuple[list[Any], Any]:
    if not takes_forced(log.record, command.side):
        raise RuleViolation("kernel:K5", f"{_name(ruleset, command.side)}'s forced decisions are not "
                                         "taken at once (mn deadline --forced, or its standing order "
                                         "'forced')")
    _must_decide(ruleset, state, command.side, "kernel:K5")
    only = ruleset.forced_orders(state, command.side) if isinstance(ruleset, Defaults) else None
    if only is None or tuple(only) != tuple(command.orders):
        raise RuleViolation("kernel:K5", f"{_name(ruleset, command.side)}'s decision has a choice: "
                                         "it is not forced")
    return decide_lines(ruleset, state, command.side, command.orders, rng)


def _standing(ruleset: Ruleset, state: Any, command: StandingOrder, log: Log,
              rng: Rng) -> tuple[list[Any], Any]:
    _must_decide(ruleset, state, command.side, "kernel:K6")
    _not_bot_seated(ruleset, log, command.side)
    orders = log.record.standing.get(command.side, ())
    probe = Rng(None, "")  # legality only: a line that draws is tried for real below
    first = _first_legal(ruleset, state, command.side, orders, probe)
    if first != command.order:
        raise RuleViolation("kernel:K6", f"'{command.order}' is not the first of "
                                         f"{_name(ruleset, command.side)}'s standing orders legal now")
    return decide_lines(ruleset, state, command.side, [command.order], rng)


def _first_legal(ruleset: Ruleset, state: Any, side: str, orders: Sequence[str], rng: Rng) -> str | None:
    for line in orders:
        if line == FORCED_LINE:
            continue  # not an order: it asks for forced answers (takes_forced)
        try:
            decide_lines(ruleset, state, side, [line], rng)
        except SecretNeeded:
            return line  # legal as far as the rules go: it draws
        except CommandRejected:
            continue
        return line
    return None


def standing_choice(ruleset: Ruleset, state: Any, side: str, email: PlayByEmail) -> str | None:
    """The standing order the service applies now for the side, or None."""
    orders = email.standing.get(side, ())
    return _first_legal(ruleset, state, side, orders, Rng(None, "")) if orders else None


# --- queued orders (K9) -------------------------------------------------------------------------------

def queue_of(ruleset: Ruleset, rows: Sequence[Row], side: str, round_now: int) -> tuple[str, ...]:
    """The side's queued orders still waiting in a log (kernel_state.queue: a game as loaded holds them)."""
    return queue(email_of(rows), side, round_now)


def queue_refusal(ruleset: Ruleset, state: Any, side: str, line: str) -> str | None:
    """Why the rules refuse a queued line now, with the rule (None: they accept it as written)."""
    try:
        decide_lines(ruleset, state, side, [line], Rng(None, ""))
    except SecretNeeded:
        return None  # legal as far as the rules go: it draws
    except CommandRejected as err:
        return err.message  # a RuleViolation's ends with its rule
    return None


def service_answer(ruleset: Ruleset, state: Any, side: str, email: PlayByEmail) -> Any:
    """The answer the service gives now for a side that must decide, or None: the first of its
    queued orders if the rules accept it as written (K9); else a decision's one legal answer (K5,
    the queue kept); else its queue dropped (K9: the side decides itself); else the first of its
    standing orders legal now (K6). A side whose seat a bot holds gets only its forced answer here:
    its queued and standing orders wait for a person to hold the seat again (K14)."""
    if bot_holder(email, side) is not None:
        only = (ruleset.forced_orders(state, side) if isinstance(ruleset, Defaults)
                and takes_forced(email, side) else None)
        return ForcedOrders(side=side, orders=tuple(only)) if only else None
    queued = queue(email, side, ruleset.meta(state).round)
    if queued and queue_refusal(ruleset, state, side, queued[0]) is None:
        return QueuedOrder(side=side, order=queued[0])
    if isinstance(ruleset, Defaults) and takes_forced(email, side):
        only = ruleset.forced_orders(state, side)
        if only:
            return ForcedOrders(side=side, orders=tuple(only))
    if queued:
        return DropQueue(side=side)
    line = standing_choice(ruleset, state, side, email)
    return StandingOrder(side=side, order=line) if line is not None else None


def _queued(ruleset: Ruleset, state: Any, command: QueuedOrder, log: Log,
            rng: Rng) -> tuple[list[Any], Any]:
    _must_decide(ruleset, state, command.side, "kernel:K9")
    _not_bot_seated(ruleset, log, command.side)
    queued = queue(log.record, command.side, ruleset.meta(state).round)
    if not queued or queued[0] != command.order:
        raise RuleViolation("kernel:K9", f"'{command.order}' is not the first of "
                                         f"{_name(ruleset, command.side)}'s queued orders")
    return decide_lines(ruleset, state, command.side, [command.order], rng)


def _drop_queue(ruleset: Ruleset, state: Any, command: DropQueue, log: Log) -> tuple[list[Any], Any]:
    side = command.side
    _must_decide(ruleset, state, side, "kernel:K9")
    _not_bot_seated(ruleset, log, side)
    queued = queue(log.record, side, ruleset.meta(state).round)
    if not queued:
        raise RuleViolation("kernel:K9", f"{_name(ruleset, side)} has no queued orders to drop")
    reason = queue_refusal(ruleset, state, side, queued[0])
    if reason is None:
        raise RuleViolation("kernel:K9", f"'{queued[0]}' is legal now: it is applied, not dropped")
    if (takes_forced(log.record, side) and isinstance(ruleset, Defaults)
            and ruleset.forced_orders(state, side)):
        raise RuleViolation("kernel:K9", f"{_name(ruleset, side)}'s decision has one legal answer: "
                                         "it is taken at once (K5) and the queue kept")
    event = OrdersQueued(side=side, round=ruleset.meta(state).round, orders=(), dropped=queued,
                         reason=reason)
    return [event], ruleset.evolve(state, event)


# --- seats: a side's decisions handed to a bot and back (K14) ------------------------------------------

def _not_bot_seated(ruleset: Ruleset, log: Log, side: str) -> None:
    seat = bot_holder(log.record, side)
    if seat is not None:
        raise RuleViolation("kernel:K14", f"a bot ({seat.bot}, budget {seat.budget}) holds "
                                          f"{_name(ruleset, side)}'s seat: its queued and standing "
                                          "orders wait until a person holds it again")


def _seat(ruleset: Ruleset, state: Any, command: SetSeat, log: Log) -> tuple[list[Any], Any]:
    meta = ruleset.meta(state)
    if command.side not in meta.sides:
        raise InvalidCommand(f"'{command.side}' is not a side of this game "
                             f"(sides: {', '.join(meta.sides)})")
    if bool(command.bot) == bool(command.player):
        raise InvalidCommand("a seat goes to a bot (--bot LEVEL) or to a person (--player NAME): "
                             "name one of them")
    if meta.over:
        raise RuleViolation("kernel:K14", f"the game is over ({meta.result}): no seat changes hands")
    if command.bot:
        if not (command.bot.isascii() and command.bot.replace("-", "").isalnum() and len(command.bot) <= 32):
            raise InvalidCommand(f"'{command.bot[:40]}' is not a bot level (letters, digits and '-')")
        if not 1 <= command.budget <= MAX_BOT_BUDGET:
            raise InvalidCommand(f"a bot's budget is 1 to {MAX_BOT_BUDGET:,}, not {command.budget:,}")
    else:
        name = command.player.strip()
        if command.budget or not name or len(name) > MAX_NAME or not name.isprintable() or name != command.player:
            raise InvalidCommand(f"a player's name is 1 to {MAX_NAME} printable characters, on one "
                                 "line, with no budget")
    held = seat_holder(log.record, command.side)
    if held is None:
        held = SeatSet(side=command.side, player=meta.players.get(command.side, ""))
    event = SeatSet(side=command.side, bot=command.bot, budget=command.budget, player=command.player)
    if held == event:
        whom = f"a bot ({held.bot}, budget {held.budget})" if held.bot else held.player
        raise RuleViolation("kernel:K14", f"{_name(ruleset, command.side)}'s seat is already held by {whom}")
    return [event], state


def _bot(ruleset: Ruleset, state: Any, command: BotOrders, log: Log, rng: Rng) -> tuple[list[Any], Any]:
    _must_decide(ruleset, state, command.side, "kernel:K14")
    seat = bot_holder(log.record, command.side)
    if seat is None or (seat.bot, seat.budget) != (command.level, command.budget):
        holder = "a person" if seat is None else f"a bot ({seat.bot}, budget {seat.budget})"
        raise RuleViolation("kernel:K14", f"{_name(ruleset, command.side)}'s seat is held by {holder}, "
                                          f"not by a bot ({command.level}, budget {command.budget})")
    return decide_lines(ruleset, state, command.side, command.orders, rng)


# --- deadlines ---------------------------------------------------------------------------------------

class Waiting(msgspec.Struct, frozen=True, kw_only=True):
    """A side the game waits for: since which event and time, and until when (None: no deadline)."""

    side: str
    since_seq: int
    since: str
    due: str | None


# side -> (the batch, and its time, from which the side has been waited for, and the texts of its decisions)
Since = dict[str, tuple[int, str, tuple[str, ...]]]


def waiting(ruleset: Ruleset, log: Log) -> dict[str, Waiting]:
    """Each side the game waits for now, since when its decision has been pending, and its deadline:
    the pending time plus the hours of the phase (or of the game), from no earlier than the pace was
    set (K4)."""
    state, since = log.waited(ruleset)
    return deadlines(ruleset, state, since, log.record)


class _BatchStarts:
    """A log's rows read once in order, the times of the last two batches opened kept as they pass
    (waits reads one row ahead): a batch's time (rows_time) without reading its first row again,
    which in a stored log is a query."""

    def __init__(self, rows: Sequence[Row]) -> None:
        self._rows = rows
        self._now: tuple[int, str] | None = None
        self._last: tuple[int, str] | None = None

    def __iter__(self) -> Iterator[Row]:
        for i, r in enumerate(self._rows, start=1):
            if r.batch == r.seq == i:  # the row rows_time would read for its batch
                self._last, self._now = self._now, (r.seq, r.recorded_at)
            yield r

    def time_of(self, row: Row) -> str:
        for kept in (self._now, self._last):
            if kept is not None and kept[0] == row.batch:
                return kept[1]
        return rows_time(self._rows, row)


def waits(ruleset: Ruleset, state: Any, since: Since, rows: Iterable[Row], events: Iterable[Any],
          gone: Container[int], time_of: Callable[[Row], str]) -> tuple[Any, Since]:
    """The state and the waits after the rows: at each batch's end, a side waited for with the same
    decisions as at the one before keeps its start, any other starts there (time_of: the batch's time).
    Rows taken back (gone) change no state but still end their batches."""
    pairs = zip(rows, events, strict=True)
    pair = next(pairs, None)
    while pair is not None:
        r, e = pair
        if r.seq not in gone:
            state = ruleset.evolve(state, e)
        pair = next(pairs, None)  # the row after, read ahead: rows may be a stream
        if pair is not None and pair[0].batch != pair[0].seq:
            continue  # the batch goes on
        since = waited_since(ruleset, state, since, r, time_of)
    return state, since


def waited_since(ruleset: Ruleset, state: Any, since: Since, last: Row, time_of: Callable[[Row], str]) -> Since:
    """The waits once the batch whose last row is `last` ended in `state`: a side waited for with the
    same decisions as before keeps its start, any other starts at that batch (time_of: its time)."""
    return {s: since[s] if s in since and since[s][2] == texts else (last.batch, time_of(last), texts)
            for s, texts in pending_texts(ruleset, state).items()}


def pending_texts(ruleset: Ruleset, state: Any) -> dict[str, tuple[str, ...]]:
    """Each side's pending decisions, as their texts, in the order the ruleset gives them."""
    now: dict[str, tuple[str, ...]] = {}
    for p in ruleset.pending(state):
        now[p.empire] = (*now.get(p.empire, ()), p.text)
    return now


def deadlines(ruleset: Ruleset, state: Any, since: Since, record: PlayByEmail) -> dict[str, Waiting]:
    """Each wait's deadline: from its start, or from the pace's setting if later, the phase's hours."""
    pace, pace_time = record.pace, record.pace_at  # the host's last (K4)
    hours = pace.phases.get(ruleset.meta(state).phase, pace.hours)
    out = {}
    for side, (seq, time, _) in since.items():
        start = max(time, pace_time) if pace_time else time
        due = _iso(_time(start) + dt.timedelta(hours=hours)) if hours and pace_time else None
        out[side] = Waiting(side=side, since_seq=seq, since=time, due=due)
    return out


def rows_time(rows: Sequence[Row], row: Row) -> str:
    """When the batch a row belongs to was recorded (its first row's time)."""
    return rows[row.batch - 1].recorded_at if 0 < row.batch <= len(rows) else row.recorded_at


def _time(text: str) -> dt.datetime:
    try:
        t = dt.datetime.fromisoformat(text)
    except ValueError:
        raise InvalidCommand(f"'{text}' is not a time (ISO 8601, e.g. 2026-11-23T12:00:00+00:00)") from None
    return t if t.tzinfo else t.replace(tzinfo=dt.UTC)


def _iso(t: dt.datetime) -> str:
    return t.astimezone(dt.UTC).isoformat(timespec="seconds")


def parse_time(text: str) -> str:
    """A time the caller gives (--now), as the ISO 8601 UTC text the log records."""
    return _time(text).astimezone(dt.UTC).isoformat(timespec="microseconds")


def is_past(due: str, now: str) -> bool:
    """Whether a deadline has passed at `now`."""
    return _time(due) <= _time(now)


def overdue(ruleset: Ruleset, log: Log, now: str) -> list[Waiting]:
    """The sides whose deadline has passed at `now`, in the order the game waits for them."""
    return [w for w in waiting(ruleset, log).values() if w.due is not None and _time(w.due) <= _time(now)]


def _name(ruleset: Ruleset, side: str) -> str:
    return "the host" if side == HOST else ruleset.side_name(side)
