"""What the checks of a batch read of the log before it, carried forward as a stream reads the log and
bounded: the rows a later signed block answers, what each side was to decide then, the number of the
players' order batches (K11) and the secret revealed so far (verify.Before holds the whole log instead)."""

from __future__ import annotations

import hashlib
import heapq
from array import array
from bisect import bisect_left
from collections.abc import Iterator, Sequence
from typing import Any

import msgspec

from mncore.audits.verify import Before
from mncore.core.kernel_acts import PBEM_COMMANDS, UNDO_TYPES, OrderBatch, SignedOrders
from mncore.core.kernel_state import Ledger, secret_in
from mncore.core.protocol import Pending, Ruleset
from mncore.pbem import draw_keys, turns
from mncore.store import LogPrefix, Row

# the commands decided on the log before them (turns.Log): a log with one is decided again in one pass (verify_acts)
ON_LOG = frozenset(c.__name__ for c in PBEM_COMMANDS if c is not OrderBatch)


class Needs:
    """What later batches read of earlier ones, found by the survey: each seq with the last batch that
    reads it, so that what is carried is dropped once no batch to come reads it; and the nonces given
    more than once (trust.check_block refuses a block whose nonce the ledger holds: only those can be).
    Held as sorted arrays of 8-byte numbers, a few per signed block: a dict would cost ten times more."""

    def __init__(self) -> None:
        self.on_log = False  # a command decided on the log before it, or one the survey cannot read
        self.keyed = False  # a command publishes keys: only then may a batch read K11's count (ledger.draws)
        self._rows, self._pending, self._nonces = array("q"), array("q"), array("q")
        self._rows_until, self._pending_until = array("q"), array("q")
        self._named, self._named_until = array("q"), array("q")
        self._repeated: set[int] = set()

    def note(self, rows: Sequence[int], pending: int | None, batch: int, nonce: str) -> None:
        """A signed block opening `batch` reads those rows and the pending decisions after `pending`."""
        for seq in rows:
            self._rows.append(seq << 32 | batch)
        if pending is not None:
            self._pending.append(pending << 32 | batch)
        self._nonces.append(_digest(nonce))

    def name(self, batch: object, seq: int) -> None:
        """Event `seq` names the batch starting at event `batch` to take back: an undo, a consent, a correction."""
        if isinstance(batch, int) and 0 < batch < 1 << 31 and 0 < seq < 1 << 31:
            self._named.append(batch << 32 | seq)

    def done(self) -> None:
        """The survey is over: each seq once, with the last batch that reads it; the repeated nonces."""
        self._rows, self._rows_until = _last_use(self._rows)
        self._pending, self._pending_until = _last_use(self._pending)
        self._named, self._named_until = _last_use(self._named)
        ordered, self._nonces = _sorted(self._nonces), array("q")
        last = None
        for digest in ordered:
            if digest == last:
                self._repeated.add(digest)
            last = digest

    def reads_rows(self) -> bool:
        """Whether any batch reads a row before it (after done())."""
        return bool(self._rows)

    def reads_pending(self) -> bool:
        """Whether any batch reads what each side was to decide before it (after done())."""
        return bool(self._pending)

    def row_until(self, seq: int) -> int:
        """The last batch that reads row `seq` (0: none)."""
        return _lookup(self._rows, self._rows_until, seq)

    def pending_until(self, seq: int) -> int:
        """The last batch that reads what each side was to decide after event `seq` (0: none)."""
        return _lookup(self._pending, self._pending_until, seq)

    def named_until(self, batch: int) -> int:
        """The last event that names the batch starting at event `batch` to take back (0: none)."""
        return _lookup(self._named, self._named_until, batch)

    def repeated(self, nonce: str) -> bool:
        """Whether a block's nonce may be given again later (a digest shared by two blocks)."""
        return _digest(nonce) in self._repeated


def _digest(nonce: str) -> int:
    return int.from_bytes(hashlib.blake2b(nonce.encode(), digest_size=8).digest(), "little", signed=True)


_RUN = 4096  # numbers sorted at once: sorted() of a whole array would hold each as an int object


def _sorted(values: array[int]) -> Iterator[int]:
    """The numbers in order, held as arrays meanwhile: runs sorted apart, then merged."""
    runs = [array("q", sorted(values[i:i + _RUN])) for i in range(0, len(values), _RUN)]
    return heapq.merge(*runs)


def _last_use(pairs: array[int]) -> tuple[array[int], array[int]]:
    """(seq << 32 | batch) pairs as the sorted seqs and the last batch of each."""
    seqs, until = array("q"), array("q")
    for pair in _sorted(pairs):
        seq, batch = pair >> 32, pair & 0xFFFFFFFF
        if seqs and seqs[-1] == seq:
            until[-1] = batch
        else:
            seqs.append(seq)
            until.append(batch)
    return seqs, until


def _lookup(seqs: array[int], until: array[int], seq: int) -> int:
    i = bisect_left(seqs, seq)
    return until[i] if i < len(seqs) and seqs[i] == seq else 0


class _Command(msgspec.Struct):
    type: str = ""
    seq: int = 0
    orders: list[str] = []
    nonce: str = ""
    batch: Any = None  # what an undo, a consent or a correction names (read as any value: it is not checked here)


class _Undone(msgspec.Struct):
    batch: Any = None


_DECODER = msgspec.json.Decoder(_Command)
_UNDONE = msgspec.json.Decoder(_Undone)
# the commands that name a batch to take back: the state before it is kept for them (verify_acts)
_NAMING = frozenset({"UndoBatch", "ConsentUndo", "CorrectBatch"})


def survey_row(needs: Needs, r: Row) -> None:
    """Note what the batch that `r` opens reads of the log before it (trust.check_block's reads of a
    signed block answering event s: rows s and s + 1 and the pending decisions after s), and the
    batches that undos, consents and corrections name."""
    if r.type in UNDO_TYPES:
        try:
            needs.name(_UNDONE.decode(r.payload).batch, r.seq)
        except (msgspec.DecodeError, msgspec.ValidationError):
            pass  # the replay refuses it before any act reads it
    if r.batch != r.seq or r.command is None:
        return
    try:
        cmd = _DECODER.decode(r.command)
        _orders_opened(r)  # K11's count reads every command before a batch: it must decode
    except (msgspec.DecodeError, msgspec.ValidationError):
        needs.on_log = True  # one pass names it, or stops before it: left to the whole log
        return
    if cmd.type in ON_LOG or (cmd.type == "SignedOrders" and turns.act_kind(cmd.orders) is not None):
        needs.on_log = True
    needs.keyed = needs.keyed or cmd.type == "PublishKeys"
    if cmd.type in _NAMING:
        needs.name(cmd.batch, r.seq)
    if cmd.type != "SignedOrders":
        return
    length, s = r.seq - 1, cmd.seq  # the block is checked against the rows before its batch
    if not 0 < r.seq < 1 << 31 or abs(s) >= 1 << 31:
        needs.on_log = True  # beyond what the arrays hold: left to the whole log
        return
    read = []
    if s <= length:  # else it is refused before any row is read
        for index in (s - 1, s):  # as a Sequence reads them: a negative index counts from the end
            seq = (index if index >= 0 else index + length) + 1
            if 1 <= seq <= length:
                read.append(seq)
    needs.note(read, s if 1 <= s <= length else None, r.seq, cmd.nonce)


def forget_nonce(ledger: Ledger, needs: Needs, cmd: Any) -> None:
    """The ledger carried on keeps only the nonces a later block may give again (the others are never
    looked up): it would otherwise grow by a nonce a block."""
    if isinstance(cmd, SignedOrders) and not needs.repeated(cmd.nonce):
        ledger.nonces.pop(cmd.nonce, None)


class Carry(msgspec.Struct, kw_only=True):
    """What the batches before a point left that later ones read; `orders` and `revealed` as of there."""

    orders: int = 0  # the players' order batches (K11's count: draw_keys.orders_before), counted if keyed
    revealed: str | None = None  # the kernel's secret (KernelState.secret)
    rows: dict[int, Row] = {}
    pending: dict[int, list[Pending]] = {}

    def copy(self) -> Carry:
        return Carry(orders=self.orders, revealed=self.revealed, rows=dict(self.rows), pending=dict(self.pending))

    def drop_before(self, needs: Needs, seq: int) -> None:
        """Forget what no batch from event `seq` on reads."""
        self.rows = {s: r for s, r in self.rows.items() if needs.row_until(s) >= seq}
        self.pending = {s: p for s, p in self.pending.items() if needs.pending_until(s) >= seq}


def carry_batch(carry: Carry, needs: Needs, ruleset: Ruleset, batch: Sequence[Row], state: Any) -> None:
    """`carry` advanced over one batch, `state` the state after it."""
    reads_rows = needs.reads_rows()  # no signed block, nothing to look up: asked of every batch
    for r in batch:
        if reads_rows and needs.row_until(r.seq):
            carry.rows[r.seq] = r
        if r.type == "SecretRevealed":  # secret_in is None for every other row
            carry.revealed = secret_in(r) or carry.revealed
    if needs.keyed:  # else nothing reads the count: a decoding of each command saved
        carry.orders += _orders_opened(batch[0])
    if needs.reads_pending() and needs.pending_until(batch[-1].seq):
        carry.pending[batch[-1].seq] = list(ruleset.pending(state))


def _orders_opened(first: Row) -> int:
    """draw_keys.orders_before of a batch's first row alone, without its pass over a whole log."""
    if first.type in UNDO_TYPES:
        return draw_keys.orders_before([first])
    return int(first.batch == first.seq and first.command is not None and draw_keys.counts(first.command))


class _Window(LogPrefix):
    """The log before a batch as its checks read it: the segment's own rows, and before them only the
    rows carried; `orders_in_play` is K11's count of it (draw_keys.orders_before reads it)."""

    def __init__(self, length: int, segment: Sequence[Row], offset: int, kept: dict[int, Row], orders: int) -> None:
        super().__init__(length)
        self._segment, self._offset, self._kept = segment, offset, kept
        self.orders_in_play = orders

    def _row(self, index: int) -> Row:
        if index >= self._offset:
            return self._segment[index - self._offset]
        row = self._kept.get(index + 1)
        if row is None:  # the survey names every row a check reads: a miss is a bug, not a bad log
            raise RuntimeError(f"verify did not carry event {index + 1}, which a check reads")
        return row


class Carried(Before):
    """verify.Before for a segment of the log (the rows after event `offset`), from what was carried to it."""

    def __init__(self, carry: Carry, needs: Needs, segment: Sequence[Row], offset: int) -> None:
        super().__init__(segment, False, (), None)
        self._carry, self._needs, self._segment, self._offset = carry, needs, segment, offset

    def prior(self, start: int) -> Sequence[Row]:
        return _Window(self._offset + start, self._segment, self._offset, self._carry.rows, self._carry.orders)

    def revealed(self, start: int) -> str | None:
        return self._carry.revealed

    def pending_at(self, seq: int) -> list[Pending]:
        return self._carry.pending.get(seq, [])

    def passed(self, ruleset: Ruleset, batch: Sequence[Row], state: Any) -> None:
        carry_batch(self._carry, self._needs, ruleset, batch, state)
