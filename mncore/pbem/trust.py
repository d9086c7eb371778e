"""Who gave each batch: the keys a log publishes, signed blocks checked and decided, the host's orders.

The one place that decides a command whatever it is (the kernel's own: the host's keys, reveal and
upgrade, signed blocks, play by email; or a ruleset's command, handed to it), and says which actor its batch is recorded under; game.py and verify.py both
call it, so that what is written and what is checked again cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import msgspec

from mncore.core.dice import Rng
from mncore.core.errors import AlreadyApplied, InvalidCommand, SigningRefused, StaleOrders
from mncore.core.kernel_acts import (
    PBEM_COMMANDS,
    KeysPublished,
    PublishKeys,
    RevealSecret,
    SignedOrders,
    UpgradeLog,
    reveal_events,
    upgrade_events,
)
from mncore.core.kernel_state import KernelState, email_step, secret_in
from mncore.core.kernel_state import Ledger as Ledger
from mncore.core.protocol import HOST, Pending, Ruleset
from mncore.pbem import draw_keys, turns
from mncore.store import Row

PBEM_SETTINGS = ("PaceSet", "StandingOrdersSet", "OrdersQueued", "SeatSet")  # after them the service may answer for a side


def giver(ruleset: Ruleset, command: Any) -> str:
    """The side whose order a command is (a signed block's signer), or HOST."""
    # a batch asks it three times (its check, its recorded actor, its decision): found once per command
    # (commands are frozen; the command itself is held, so its id is not reused while remembered)
    # (a tuple replaced whole: a thread reads one call's answer or another's, never a mix)
    global _last_giver
    last = _last_giver
    if last[0] is command and last[1] is ruleset:
        return last[2]
    side = _giver(ruleset, command)
    _last_giver = (command, ruleset, side)
    return side


_last_giver: tuple[Any, Any, str] = (None, None, HOST)


def _giver(ruleset: Ruleset, command: Any) -> str:
    if isinstance(command, SignedOrders):
        return command.side
    if isinstance(command, PublishKeys):
        return HOST
    return turns.giver_of(ruleset, command)


def recorded_actor(ruleset: Ruleset, ledger: Ledger, command: Any) -> str:
    """The actor a batch is recorded under: the signer of a signed block; the host for every order
    without a signature once keys are published; the side an order names in a game without keys."""
    side = giver(ruleset, command)
    service = turns.service_actor(command)
    if service is not None:
        return service  # the deadline's, a forced answer's or a standing order's act, for its side
    if isinstance(command, SignedOrders) or not ledger.published:
        return side
    return HOST


def note(ledger: Ledger, ruleset: Ruleset, command: Any, batch: int) -> None:
    """Record a batch that was applied (its command, its first event) in the ledger."""
    if isinstance(command, PublishKeys):
        ledger.keys, ledger.published = dict(command.keys), True
        ledger.signed_only, ledger.draws = command.signed_only, command.draws
        return
    if isinstance(command, SignedOrders):
        ledger.nonces[command.nonce] = batch
    side = giver(ruleset, command)
    if side != HOST:
        ledger.acted[side] = batch


def publishes_keys(rows: Sequence[Row]) -> bool:
    """Whether a log's second batch publishes keys (the only place they can be)."""
    second = next((r for r in rows[1:] if r.batch == r.seq), None)
    return second is not None and second.type == "KeysPublished"


def ledger_of(ruleset: Ruleset, rows: Sequence[Row]) -> Ledger:
    """The ledger of a stored log (keys are published in its second batch, or never)."""
    ledger = Ledger(pbem=any(r.type in PBEM_SETTINGS for r in rows))
    if not publishes_keys(rows):
        return ledger
    for r in rows:
        if r.batch == r.seq and r.command is not None:
            note(ledger, ruleset, ruleset.decode_command(r.command), r.seq)
    return ledger


def note_row(ledger: Ledger, ruleset: Ruleset, row: Row, batches: int) -> None:
    """Advance a ledger over one more row of a log, the `batches`-th batch if it opens one: the same
    ledger as ledger_of over the whole log, one row at a time (game.current)."""
    if row.type in PBEM_SETTINGS:
        ledger.pbem = True
    if row.batch != row.seq or row.command is None:
        return
    if ledger.published or (batches == 2 and row.type == "KeysPublished"):
        note(ledger, ruleset, ruleset.decode_command(row.command), row.seq)


def advanced(ledger: Ledger, ruleset: Ruleset, row: Row, batches: int) -> Ledger:
    """The ledger after one more row (of the `batches`-th batch), `ledger` left as it was: the same
    object when the row changes nothing in it (a game without keys: every order), else a copy advanced
    by note_row. One order costs no copy of a ledger that grows with the log."""
    if not _changes(ledger, row, batches):
        return ledger
    after = _copy(ledger)
    note_row(after, ruleset, row, batches)
    return after


def _changes(ledger: Ledger, row: Row, batches: int) -> bool:
    """Whether note_row would change the ledger (a signed block, the keys, a first setting of play by email)."""
    notes = row.batch == row.seq and row.command is not None and (
        ledger.published or (batches == 2 and row.type == "KeysPublished"))
    return notes or (not ledger.pbem and row.type in PBEM_SETTINGS)


def _copy(ledger: Ledger) -> Ledger:
    # every field carried over: a copy that lost `pbem` stopped the service's answers (forced,
    # standing) after any signed block, and froze that loss into the next snapshot
    return msgspec.structs.replace(ledger, keys=dict(ledger.keys), nonces=dict(ledger.nonces),
                                   acted=dict(ledger.acted))


def kernel_step(kernel: KernelState, ruleset: Ruleset, row: Row, batches: int) -> KernelState:
    """The kernel's state after one more row of its log (the `batches`-th batch's): the secret it
    reveals, the ledger, play by email's record (mncore/core/kernel_state.py); the same object if the row
    changes none of them (most rows: a game's own events)."""
    return _stepped(kernel, advanced(kernel.ledger, ruleset, row, batches), row)


def _stepped(kernel: KernelState, ledger: Ledger, row: Row) -> KernelState:
    email = email_step(kernel.email, row)
    secret = secret_in(row) or kernel.secret
    if ledger is kernel.ledger and email is kernel.email and secret == kernel.secret:
        return kernel
    return KernelState(secret=secret, ledger=ledger, email=email)


class KernelFold:
    """kernel_step over many rows, for one reader: the ledger is copied once, at the first row that changes
    it, then advanced in place. A game by mail's ledger holds every nonce a block used, and a copy of it
    for each signed row of a fold cost more than all the rest of a `mn status` of a long game. The
    KernelState read at `kernel` is the fold's own until the next step, which may change its ledger."""

    def __init__(self, kernel: KernelState) -> None:
        self.kernel = kernel
        self._own: Ledger | None = None  # the ledger copied for this fold, once it had to be

    def step(self, ruleset: Ruleset, row: Row, batches: int) -> None:
        """The kernel's state after one more row (the `batches`-th batch's)."""
        ledger = self.kernel.ledger
        if _changes(ledger, row, batches):
            if ledger is not self._own:
                ledger = self._own = _copy(ledger)
            note_row(ledger, ruleset, row, batches)
        self.kernel = _stepped(self.kernel, ledger, row)


def kernel_of(ruleset: Ruleset, rows: Iterable[Row], kernel: KernelState | None = None,
              batches: int = 0) -> KernelState:
    """The kernel's state after rows, from `kernel` after `batches` batches (the log's start by default)."""
    fold = KernelFold(kernel if kernel is not None else KernelState())
    for r in rows:
        batches += r.batch == r.seq
        fold.step(ruleset, r, batches)
    return fold.kernel


def decide(ruleset: Ruleset, state: Any, command: Any, *, secret: bytes | None, draw_head: str,
           ledger: Ledger, batch: int, log: turns.Log | None = None,
           rows: Sequence[Row] | None = None, revealed: str | None = None) -> tuple[list[Any], Any]:
    """The events of any command as the log's batch number `batch` (1: the creation), and the state.

    A signed block's draws are keyed by its signature; the service's acts for a side, in a log of
    draw scheme K10, by that side's last signed block; every other command's by the content
    chain's head `draw_head` (mncore/pbem/draw_keys.py). The commands of play by email (mncore/pbem/turns.py)
    read the log before them (`log`). Under K11 a players' batch whose settle step draws counts
    the orders in the log before it: `log`'s rows, else `rows` (read only then: game.Current).
    `revealed`: the secret the log revealed already (the kernel's state: KernelState.secret).
    """
    before = log.rows if log is not None else rows
    route = _ROUTES.get(type(command))
    if route is None:
        route = _ROUTES[type(command)] = _route(command)
    if route == "rules" and not ledger.signed_only:  # most commands: an order decided by the rules
        return ruleset.decide(state, command, Rng(secret, draw_head))
    if route == "host":
        # the kernel's events change no game state: the kernel folds them (trust.kernel_step)
        return host_events(ruleset, state, ledger, command, batch, revealed), state
    if route == "signed":
        return decide_block(ruleset, state, command, secret, log, settle=draw_keys.settle_source(
            ledger.draws, command, before))
    if (giver(ruleset, command) != HOST and ledger.signed_only
            and turns.service_actor(command) is None):
        raise SigningRefused("this game takes signed orders only (created with --signed-only): "
                             "sign the order with the side's key (mn sign) and give it with "
                             "mn order --signed")
    if route == "pbem":
        key = draw_keys.batch_key(ledger.draws, command, draw_head, log.rows if log is not None else None)
        return turns.decide(ruleset, state, command, secret=secret, draw_head=key, log=log,
                           settle=draw_keys.settle_source(ledger.draws, command, before))
    return ruleset.decide(state, command, Rng(secret, draw_head))


# each command type's way through decide(), found once: the unions below cost a check each per command
_ROUTES: dict[type, str] = {}


def _route(command: Any) -> str:
    if isinstance(command, PublishKeys | RevealSecret | UpgradeLog):
        return "host"
    if isinstance(command, SignedOrders):
        return "signed"
    if isinstance(command, PBEM_COMMANDS):
        return "pbem"
    return "rules"


def host_events(ruleset: Ruleset, state: Any, ledger: Ledger, command: PublishKeys | RevealSecret | UpgradeLog,
                batch: int, revealed: str | None = None) -> list[Any]:
    """The events of the host's kernel acts: publishing the keys, revealing the secret (once:
    `revealed`, the secret the log revealed already), upgrading the log."""
    if isinstance(command, RevealSecret):
        return list(reveal_events(msgspec.structs.replace(ruleset.meta(state), secret=revealed), command))
    if isinstance(command, UpgradeLog):
        return list(upgrade_events(command))
    return list(publish_events(ruleset, state, ledger, command, batch))


def publish_events(ruleset: Ruleset, state: Any, ledger: Ledger, command: PublishKeys,
                   batch: int) -> list[KeysPublished]:
    """The keys, published once, right after creation, one valid key for each side in play.

    Later would let a host swap a player's key for its own and sign in the player's name.
    """
    if ledger.published:
        raise InvalidCommand("the keys of this game are already published; they cannot be changed")
    if batch != 2:
        raise InvalidCommand("keys are published right after the game is created (its second "
                             f"batch), not in batch {batch}")
    sides = set(ruleset.meta(state).sides)
    if set(command.keys) != sides:
        raise InvalidCommand(f"keys are published for {', '.join(sorted(command.keys)) or 'no side'}; "
                             f"the sides in play are {', '.join(sorted(sides))}")
    from mncore.pbem import signing  # only signed games pay for its import

    bad = sorted(s for s, k in command.keys.items() if not signing.valid_public_key(k))
    if bad:
        raise InvalidCommand(f"the public key of {', '.join(bad)} is not an Ed25519 key "
                             "(64 lowercase hex digits)")
    if len(set(command.keys.values())) != len(command.keys):
        raise InvalidCommand("two sides have the same public key")
    if command.draws not in draw_keys.SCHEMES.values():
        raise InvalidCommand(f"draw scheme {command.draws} is not one this engine knows "
                             f"({', '.join(f'{n} {name}' for name, n in draw_keys.SCHEMES.items())})")
    return [KeysPublished(keys=dict(command.keys), signed_only=command.signed_only,
                          draws=command.draws)]


def decide_block(ruleset: Ruleset, state: Any, block: SignedOrders, secret: bytes | None,
                 log: turns.Log | None = None, *,
                 settle: Callable[[], int] | None = None) -> tuple[list[Any], Any]:
    """The orders of a block decided in turn on the evolving state, all drawing from one Rng keyed by
    its signature (what follows by itself as a phase ends, under K11, from the settling generator
    `settle` keys: draw_keys.settle_source); a refused order refuses the whole block (it is one
    batch). A block of the kernel's verbs (undo, consent N, standing ORDER: mncore/pbem/turns.py) is
    decided on the log."""
    from mncore.pbem import signing  # only signed games pay for its import

    if turns.act_kind(block.orders) is not None:
        if log is None:
            raise InvalidCommand("a block of undo, consent or standing orders is decided on the log, "
                                 "which was not given")
        act = turns.block_act(ruleset, block.side, block.orders, log)
        return turns.decide(ruleset, state, act, secret=secret, draw_head=signing.draw_key(block), log=log)
    rng = Rng(secret, signing.draw_key(block), settle)
    try:
        return turns.decide_lines(ruleset, state, block.side, block.orders, rng, queue_ok=True)
    except InvalidCommand as err:
        if err.message.startswith("the orders change nothing"):
            raise InvalidCommand("the block's orders change nothing: there is nothing to record") from None
        raise


def check_block(ruleset: Ruleset, block: SignedOrders, *, ledger: Ledger, rows: Sequence[Row],
                game_id: str | None, pending_at: Callable[[int], Sequence[Pending]],
                pending_now: Sequence[Pending]) -> None:
    """Refuse a block, naming why, unless it is this game's, signed with its side's published key,
    unedited, new, and answers the decision still pending for its side (docs/security.md).

    `rows` is the log before the block's batch; `game_id` None skips the id (verify: the named head
    and the game's own keys bind a block to its log, whatever id the log is imported under).
    """
    from mncore.pbem import signing

    block = signing.block_from_command(block)
    side = block.side
    if game_id is not None and block.game != game_id:
        raise SigningRefused(f"the block is signed for game {block.game}, not game {game_id}")
    if not ledger.published:
        raise SigningRefused("this game has no published keys: it takes unsigned orders only")
    if side not in ledger.keys:
        raise SigningRefused(f"the block is signed as '{side}', which is not a side of this game "
                             f"(sides: {', '.join(sorted(ledger.keys))})")
    if block.key != ledger.keys[side]:
        other = next((s for s, k in ledger.keys.items() if k == block.key), None)
        whose = f"{other}'s key" if other else f"key {block.key[:16]}…, which is not this game's"
        raise SigningRefused(f"wrong key: the block is signed with {whose}, not with {side}'s "
                             f"published key {ledger.keys[side][:16]}…")
    if not signing.signature_ok(block):
        raise SigningRefused("the signature does not match the block: a line was edited, added or "
                             "removed after it was signed")
    if block.nonce in ledger.nonces:
        raise AlreadyApplied(f"this block (nonce {block.nonce[:12]}…) was already applied at event "
                             f"{ledger.nonces[block.nonce]}; each block is applied once: nothing "
                             "was written")
    _check_answers(block, rows, ledger)
    # at the head itself nothing has moved: no need to fold the log again up to it
    then = [p for p in (pending_now if block.seq == len(rows) else pending_at(block.seq))
            if p.empire == side]
    now = [p for p in pending_now if p.empire == side]
    if then != now:
        was = "; ".join(p.text for p in then) or "nothing"
        is_ = "; ".join(p.text for p in now) or "nothing"
        raise StaleOrders(f"stale: the block answers event {block.seq}, when {side} was to decide: "
                          f"{was}; now {side} is to decide: {is_}. Sign again against the current "
                          "head (the receipt of your latest report or answer)")


def _check_answers(block: SignedOrders, rows: Sequence[Row], ledger: Ledger) -> None:
    """The block names an event of this log that ends a batch, and its side has not acted since."""
    seq = block.seq
    if seq > len(rows):
        raise SigningRefused(f"the block answers event {seq}, but the log has {len(rows)} events")
    if rows[seq - 1].hash != block.head:
        raise SigningRefused(f"the block answers event {seq} with head {block.head[:16]}…, but event "
                             f"{seq} of this log has hash {rows[seq - 1].hash[:16]}… (the block "
                             "answers another game's log, or this log was rewritten)")
    if seq < len(rows) and rows[seq].batch != seq + 1:
        raise SigningRefused(f"the block answers event {seq}, which is inside a batch: sign against "
                             "the head of your latest report's receipt")
    acted = ledger.acted.get(block.side, 0)
    if acted > seq:
        raise StaleOrders(f"stale: the block answers event {seq}, but {block.side} has given orders "
                          f"since (at event {acted}). Sign again against the current head (the receipt of your "
                          "latest report or answer)")
