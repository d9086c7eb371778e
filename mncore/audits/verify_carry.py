"""What the checks of a batch read of the log before it, carried forward as a stream reads the log and
bounded: the rows a later signed block answers, what each side was to decide then, the number of the
players' order batches (K11) and the secret revealed so far (verify.Before holds the whole log instead)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from mncore.audits.verify import Before
from mncore.core.kernel_acts import PBEM_COMMANDS, OrderBatch
from mncore.core.kernel_state import secret_in
from mncore.core.protocol import Pending, Ruleset
from mncore.pbem import draw_keys, turns
from mncore.store import LogPrefix, Row

# the commands decided on the whole log before them (turns.Log): a log with one is read whole
ON_LOG = frozenset(c.__name__ for c in PBEM_COMMANDS if c is not OrderBatch)


class Needs(msgspec.Struct, kw_only=True):
    """What later batches read of earlier ones, found by the survey: each seq with the last batch that
    reads it, so that what is carried is dropped once no batch to come reads it."""

    rows: dict[int, int] = {}  # a row a signed block answers (its hash), or the one after it (a batch's end)
    pending: dict[int, int] = {}  # a batch's last event: what each side was to decide after it
    on_log: bool = False  # a command decided on the log before it, or one the survey cannot read


class _Command(msgspec.Struct):
    type: str = ""
    seq: int = 0
    orders: list[str] = []


_DECODER = msgspec.json.Decoder(_Command)


def survey_row(needs: Needs, r: Row) -> None:
    """Note what the batch that `r` opens reads of the log before it (trust.check_block's reads of a
    signed block answering event s: rows s and s + 1 and the pending decisions after s)."""
    if r.batch != r.seq or r.command is None:
        return
    try:
        cmd = _DECODER.decode(r.command)
        draw_keys.orders_before([r])  # K11's count reads every command before a batch: it must decode
    except (msgspec.DecodeError, msgspec.ValidationError):
        needs.on_log = True  # one pass names it, or stops before it: left to the whole log
        return
    if cmd.type in ON_LOG or (cmd.type == "SignedOrders" and turns.act_kind(cmd.orders) is not None):
        needs.on_log = True
    if cmd.type != "SignedOrders":
        return
    length, s = r.seq - 1, cmd.seq  # the block is checked against the rows before its batch
    if s > length:
        return  # refused before any row is read
    for index in (s - 1, s):  # as a Sequence reads them: a negative index counts from the end
        seq = (index if index >= 0 else index + length) + 1
        if 1 <= seq <= length:
            needs.rows[seq] = r.seq
    if s >= 1:
        needs.pending[s] = r.seq


class Carry(msgspec.Struct, kw_only=True):
    """What the batches before a point left that later ones read; `orders` and `revealed` as of there."""

    orders: int = 0  # the players' order batches (K11's count: draw_keys.orders_before)
    revealed: str | None = None  # the kernel's secret (KernelState.secret)
    rows: dict[int, Row] = {}
    pending: dict[int, list[Pending]] = {}

    def copy(self) -> Carry:
        return Carry(orders=self.orders, revealed=self.revealed, rows=dict(self.rows), pending=dict(self.pending))

    def drop_before(self, needs: Needs, seq: int) -> None:
        """Forget what no batch from event `seq` on reads."""
        self.rows = {s: r for s, r in self.rows.items() if needs.rows.get(s, 0) >= seq}
        self.pending = {s: p for s, p in self.pending.items() if needs.pending.get(s, 0) >= seq}


def carry_batch(carry: Carry, needs: Needs, ruleset: Ruleset, batch: Sequence[Row], state: Any) -> None:
    """`carry` advanced over one batch, `state` the state after it."""
    for r in batch:
        if r.seq in needs.rows:
            carry.rows[r.seq] = r
        carry.revealed = secret_in(r) or carry.revealed
    carry.orders += draw_keys.orders_before(batch[:1])
    if batch[-1].seq in needs.pending:
        carry.pending[batch[-1].seq] = list(ruleset.pending(state))


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
        super().__init__(segment, False)
        self._carry, self._needs, self._segment, self._offset = carry, needs, segment, offset

    def prior(self, start: int) -> Sequence[Row]:
        return _Window(self._offset + start, self._segment, self._offset, self._carry.rows, self._carry.orders)

    def revealed(self, start: int) -> str | None:
        return self._carry.revealed

    def pending_at(self, seq: int) -> list[Pending]:
        return self._carry.pending.get(seq, [])

    def passed(self, ruleset: Ruleset, batch: Sequence[Row], state: Any) -> None:
        carry_batch(self._carry, self._needs, ruleset, batch, state)
