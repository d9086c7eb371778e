"""Writing a game: its creation, and give(), the one way a command enters it, with the service's answers."""

from __future__ import annotations

import secrets as pysecrets
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar, overload

from mncore.core import log_lines as log
from mncore.core.chain import GENESIS_HASH
from mncore.core.dice import Rng, commitment
from mncore.core.errors import CommandRejected
from mncore.core.kernel_acts import (
    PBEM_COMMANDS,
    OrderBatch,
    PublishKeys,
    SignedOrders,
)
from mncore.core.protocol import HOST, Ruleset
from mncore.games import reading
from mncore.games.live_log import log_of
from mncore.games.log_reading import content_head
from mncore.games.reading import (
    Current,
    Loaded,
    _batches,
    _ledger,
    _log,
    _secret,
    _snapshot,
    _stored,
    _StoredLog,
    current,
    load,
    read_nonces,
)
from mncore.pbem import seats, trust, turns
from mncore.secrecy import boundary
from mncore.store import NewRow, Row, Store

# --- writing ---------------------------------------------------------------------------------------------

def _new_rows(ruleset: Ruleset, events: Iterable[Any], actor: str, command: Any, now: str,
              first_seq: int, secret: bytes | None) -> list[NewRow]:
    """The rows to append, each with the salts of its hidden fields (the store hashes their
    commitments); numbered from first_seq, which the store's expected seq guarantees."""
    encoded = ruleset.encode_command(command).decode()
    out = []
    for i, e in enumerate(events):
        cmd = command if i == 0 else None
        out.append(NewRow(type=ruleset.event_type_of(e), payload=ruleset.encode_event(e).decode(),
                          recorded_at=now, actor=actor, command=encoded if i == 0 else None,
                          salts=boundary.salts_for(ruleset, secret, first_seq + i, e, cmd)))
    return out


def new_game_id() -> str:
    return "g" + pysecrets.token_hex(4)


def creation(ruleset: Ruleset, cmd: Any, secret: bytes) -> tuple[list[Any], Any]:
    """The events of a creation command and the state they fold into; nothing is stored.

    `mn new` reads the sides in play here before it makes their keys (they may be drawn at random).
    """
    events, state = ruleset.decide(ruleset.initial(commitment(secret)), cmd, Rng(secret, GENESIS_HASH))
    return list(events), state


def create(store: Store | Callable[[], Store], ruleset: Ruleset, cmd: Any, secret: bytes,
           game_id: str | None = None, keys: PublishKeys | None = None) -> Loaded:
    """Decide a creation command and store the new game's first events with its secret; with `keys`,
    the host publishes each side's public key as the second batch, in the same transaction.

    The command is decided before the store is opened (when given as a callable that opens it), so
    a refused one writes nothing, not even a new database file.
    """
    events, state = creation(ruleset, cmd, secret)
    now = reading.utc_now()
    batches = [_new_rows(ruleset, events, HOST, cmd, now, 1, secret)]
    if keys is not None:
        published, _ = trust.decide(ruleset, state, keys, secret=secret, draw_head=GENESIS_HASH,
                                    ledger=trust.Ledger(), batch=2)
        batches.append(_new_rows(ruleset, published, HOST, keys, now, len(events) + 1, secret))
    if not isinstance(store, Store):
        store = store()
    gid = game_id or new_game_id()
    rows = store.create_game(gid, now, secret.hex(), *batches)
    log.info("game created", game=gid, ruleset=ruleset.short, events=len(rows), keys=keys is not None)
    return load(store, gid)


G = TypeVar("G", bound="Loaded | Current")


@dataclass(frozen=True)
class Outcome(Generic[G]):
    """What giving one command did: the rows written for it, the rows the service then answered by
    itself for the sides (forced answers K5, standing orders K6, queued orders K9), and the game after
    both (as it was given: a Loaded or a Current)."""

    written: list[Row]
    answered: list[Row]
    after: G

    @property
    def rows(self) -> list[Row]:
        return self.written + self.answered

    @property
    def opened(self) -> bool:
        """Whether the game's secret is revealed: every side may then read every field."""
        return self.after.meta.secret is not None


@overload
def give(store: Store, game: Loaded | str, command: Any, now: str | None = None, *,
         answer: bool = True) -> Outcome[Loaded]: ...
@overload
def give(store: Store, game: Current, command: Any, now: str | None = None, *,
         answer: Literal[False]) -> Outcome[Current]: ...
@overload
def give(store: Store, game: Loaded | Current, command: Any, now: str | None = None, *,
         answer: bool = True) -> Outcome[Loaded | Current]: ...
def give(store: Store, game: Loaded | Current | str, command: Any, now: str | None = None, *,
         answer: bool = True) -> Outcome[Any]:
    """The one way a command enters a game: decided (a signed block checked first: trust.check_block),
    appended as one batch, then, with `answer`, whatever the service answers by itself after it
    (advance). Nothing written if it is refused.

    `game`: a full Loaded, its Current, or its id (loaded whole). The commands of play by email that
    read the log (mncore/pbem/turns.py) read a Loaded's, a Current's from the store as they ask it
    (live_log). In a game with published keys an order that is not a signed block
    is recorded as the host's, and refused if the game takes signed orders only. `now`: the time
    recorded (the caller's clock for the deadline's acts; the machine's by default).
    """
    start = load(store, game) if isinstance(game, str) else game
    if isinstance(command, SignedOrders):
        after, written = _submit_block(store, start, command)
    else:
        after, written = _submit_command(store, start, command, now)
    if not answer:
        return Outcome(written=written, answered=[], after=after)
    answered, after = _answers(store, after, now)
    return Outcome(written=written, answered=answered, after=after)


def batch_command(cur: Loaded | Current, side: str, lines: Sequence[str]) -> Any:
    """The command of a side's order lines given together (`mn order GAME --as SIDE 'o1' 'o2'`): one
    order line as the ruleset's order, several (or a `queue` line) as one OrderBatch, decided in turn
    on the evolving state and written as one batch or not at all."""
    if len(lines) == 1 and not turns.is_queue_line(lines[0]):
        return cur.ruleset.parse_order(lines[0], cur.state, side)
    return OrderBatch(side=side, orders=tuple(lines))


def _submit_command(store: Store, loaded: Loaded | Current, command: Any,
                    now: str | None) -> tuple[Loaded | Current, list[Row]]:
    """Decide one command that is not a signed block and append its events (trust.decide)."""
    ruleset = loaded.ruleset
    ledger = _ledger(loaded)
    secret = _secret(store, loaded)
    # a Current's log is read from the store only by the commands of play by email that ask it
    read = log_of(store, loaded) if isinstance(loaded, Loaded) or isinstance(command, PBEM_COMMANDS) else None
    events, state = trust.decide(ruleset, loaded.state, command, secret=secret,
                                 draw_head=loaded.draw_head, ledger=ledger, batch=_batches(loaded) + 1,
                                 log=read, rows=_stored(store, loaded), revealed=loaded.kernel.secret)
    return _append(store, loaded, command, events, state,
                   trust.recorded_actor(ruleset, ledger, command), secret, now)


def _submit_block(store: Store, loaded: Loaded | Current, block: SignedOrders) -> tuple[Loaded | Current, list[Row]]:
    """Check a signed block (trust.check_block: this game, its side's key, unedited, new, still
    pending), decide its orders in turn and append them as one batch.

    From a Current, the rows the check reads are read one by one, and the decision pending when
    the block was signed is folded from the snapshot before it."""
    ruleset = loaded.ruleset
    ledger = read_nonces(store, loaded)  # a block is new only if no block before used its nonce
    rows: Sequence[Row] = (loaded.rows if isinstance(loaded, Loaded)
                           else _StoredLog(store, loaded.game_id, loaded.head[0]))

    def pending_at(seq: int) -> Sequence[Any]:
        if isinstance(loaded, Loaded):
            return ruleset.pending(turns.fold_live(  # type: ignore[no-any-return]
                ruleset, loaded.rows[:seq], loaded.events[:seq]))
        return ruleset.pending(current(store, loaded.game_id, seq).state)  # type: ignore[no-any-return]

    trust.check_block(ruleset, block, ledger=ledger, rows=rows, game_id=loaded.game_id,
                      pending_at=pending_at, pending_now=ruleset.pending(loaded.state))
    secret = _secret(store, loaded)
    events, state = trust.decide(ruleset, loaded.state, block, secret=secret,
                                 draw_head=loaded.draw_head, ledger=ledger, batch=_batches(loaded) + 1,
                                 log=_block_log(store, loaded, block), rows=rows,
                                 revealed=loaded.kernel.secret)
    return _append(store, loaded, block, events, state, block.side, secret)


def _block_log(store: Store, game: Loaded | Current, block: SignedOrders) -> turns.Log | None:
    """The log a block is decided on: a Loaded's own; a Current's from the store (live_log), read only
    for a block of undo, consent or standing orders (mncore/pbem/turns.py), the others needing none."""
    if isinstance(game, Loaded):
        return _log(game)
    return log_of(store, game) if turns.act_kind(block.orders) is not None else None


def _append(store: Store, loaded: Loaded | Current, command: Any,
            events: list[Any], state: Any, actor: str,
            secret: bytes | None, now: str | None = None) -> tuple[Loaded | Current, list[Row]]:
    seq, _ = loaded.head
    ruleset = loaded.ruleset
    rows = store.append(loaded.game_id, seq,
                        _new_rows(ruleset, events, actor, command, now or reading.utc_now(), seq + 1, secret),
                        head=loaded.head[1], version=loaded.version)
    if log.enabled(log.INFO):  # every order passes here, and most commands log nothing
        log.info("order accepted", game=loaded.game_id, actor=actor, order=type(command).__name__,
                 events=len(rows), head=rows[-1].seq if rows else seq)
    batches = _batches(loaded) + (1 if rows else 0)
    kernel = trust.kernel_of(ruleset, rows, loaded.kernel, _batches(loaded))
    cur = Current(game_id=loaded.game_id, ruleset=ruleset, version=loaded.version, state=state,
                  head=(rows[-1].seq, rows[-1].hash) if rows else loaded.head,
                  draw_head=content_head(rows, loaded.draw_head), batches=batches, kernel=kernel,
                  snapshot_seq=(loaded.snapshot_seq if loaded.snapshot_seq is not None
                                else store.last_snapshot_seq(loaded.game_id)), secret=secret,
                  unread_nonces=loaded.unread_nonces if isinstance(loaded, Current) else None,
                  snapshot_every=loaded.snapshot_every if isinstance(loaded, Current) else None)
    cur.snapshot_seq = _snapshot(store, cur)
    if isinstance(loaded, Loaded):
        return Loaded(game_id=loaded.game_id, ruleset=ruleset, version=loaded.version,
                      rows=loaded.rows + rows, events=loaded.events + events, state=state,
                      draw_head=cur.draw_head, kernel=kernel, batches=batches,
                      snapshot_seq=cur.snapshot_seq, secret=secret), rows
    return cur, rows


def advance(store: Store, game_id: str, limit: int = 200, cur: Current | None = None) -> list[Row]:
    """What the service answers by itself now (the rows written): give() answers after each command;
    this is for a caller that wrote without answers. `cur`: the game as just written, if the caller
    has it (saves a read)."""
    return _answers(store, cur if cur is not None else current(store, game_id), limit=limit)[0]


def _answers(store: Store, after: Loaded | Current, now: str | None = None,
             limit: int = 200) -> tuple[list[Row], Loaded | Current]:
    """What the service answers by itself, in turn, until it has nothing to answer: a decision with one
    legal answer when the pace takes them at once (K5), a side's standing order legal now (K6), a
    queued one (K9); the rows and the game after them, recorded at `now` as the batch they answer is
    (else a tick at a later time would record them before its own act, and the decisions they open
    would start in the past, overdue at once). Each answer is folded forward from the game as it is
    given, a Loaded with its whole log or a Current whose log is read from the store only as the
    answer's decision asks it (live_log), never replayed."""
    out: list[Row] = []
    if not _ledger(after).pbem:
        return out, after  # no pace, standing or queued orders ever set: the service never answers
    game = after
    for _ in range(limit):
        command = _service_answer(game)
        if command is None:
            break
        try:
            game, rows = _submit_command(store, game, command, now)
        except CommandRejected as err:  # the ruleset's answer is refused: a bug, never the user's
            log.info("service answer refused", game=game.game_id, command=type(command).__name__,
                     error=err.message)
            break
        out += rows
    return out, game


def _service_answer(game: Loaded | Current) -> Any:
    """The first answer the service gives now for a side, or None (turns.service_answer; for a side
    whose seat a bot holds, the bot's: seats.bot_answer, K14)."""
    ruleset = game.ruleset
    for side in dict.fromkeys(p.empire for p in ruleset.pending(game.state)):
        answer = turns.service_answer(ruleset, game.state, side, game.kernel.email)
        if answer is None:
            answer = seats.bot_answer(ruleset, game.state, side, game.head[0], game.kernel.email)
        if answer is not None:
            return answer
    return None
