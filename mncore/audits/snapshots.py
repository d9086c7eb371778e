"""A game's cached snapshots checked against one replay of its log (mn verify of a stored game)."""

from __future__ import annotations

import hashlib
from typing import Any

import msgspec

from mncore.core.chain import GENESIS_HASH, content_link
from mncore.core.kernel_acts import UNDO_TYPES
from mncore.core.kernel_state import KernelState
from mncore.core.protocol import Ruleset
from mncore.games import reading
from mncore.games.log_reading import collector_paused, decoded, ruleset_of
from mncore.pbem import trust
from mncore.store import Snapshot, Store


class Mismatch(msgspec.Struct, frozen=True, kw_only=True):
    """A snapshot the service would read whose contents are not the log's at its seq."""

    seq: int
    differs: list[str]  # of "state", "ledger" (the kernel's state, kept in that column), "draw head", "batches"


class SnapshotCheck(msgspec.Struct, kw_only=True):
    """What the snapshots of a game hold against its log."""

    checked: int = 0  # snapshots the service would read (this engine's, head and digest holding)
    other_engine: int = 0  # made by another engine or ruleset version: never read, not checked
    unusable: int = 0  # head no longer the log's, or digest or blob damaged: never read, not checked
    mismatched: list[Mismatch] = []
    dropped: list[int] = []  # the seqs of mismatched snapshots deleted (--drop-bad-snapshots)

    @property
    def ok(self) -> bool:
        return not self.mismatched


class _Fold(msgspec.Struct, kw_only=True):
    """The streamed replay as current() folds it without a snapshot."""

    state: Any
    draw_head: str = GENESIS_HASH
    batches: int = 0
    kernel: KernelState = KernelState()  # its ledger's nonces moved into `nonces` row by row
    undo_seen: bool = False
    nonces: Any = msgspec.field(default_factory=hashlib.blake2b)  # the nonces, in order, as a running digest


def check_snapshots(store: Store, game_id: str) -> SnapshotCheck:
    """Replay the log once, streamed, and at the seq of each snapshot the service would read
    (reading.current) compare its state bytes, draw head, batches and kernel state (the ledger
    column: mncore/core/kernel_state.py) with the replay's.

    Only a log that verifies is replayed here (mn verify checks it first); an undo up to a snapshot
    folds the log to its seq again, as current() does."""
    snaps = store.snapshots(game_id)
    first = store.row_at(game_id, 1)
    out = SnapshotCheck()
    if not snaps or first is None:
        out.unusable = len(snaps)
        return out
    ruleset = ruleset_of(first.payload, f"game {game_id}")
    engine = reading.engine_of(ruleset)
    mine = {s.seq: s for s in snaps if s.engine == engine}
    out.other_engine = len(snaps) - len(mine)
    if not mine:
        return out
    fold = _Fold(state=ruleset.initial(""))
    with collector_paused():
        for row, event in decoded(ruleset, store.stream_rows(game_id, 1, max(mine)),
                                  "cannot decode the stored event"):
            fold.undo_seen = fold.undo_seen or row.type in UNDO_TYPES
            fold.state = ruleset.evolve(fold.state, event)
            if row.batch == row.seq:
                fold.batches += 1
            fold.kernel = trust.kernel_step(fold.kernel, ruleset, row, fold.batches)
            _drain(fold)
            fold.draw_head = content_link(fold.draw_head, row.payload)
            snap = mine.pop(row.seq, None)
            if snap is not None:
                _check(store, game_id, ruleset, snap, row.hash, fold, out)
    out.unusable += len(mine)  # past the log's head
    return out


def _check(store: Store, game_id: str, ruleset: Ruleset, snap: Snapshot, row_hash: str, fold: _Fold,
           out: SnapshotCheck) -> None:
    """Count one snapshot of this engine at its seq: unusable, matching, or a mismatch."""
    thawed = reading._thawed(store, game_id, ruleset, snap)
    if snap.head_hash != row_hash or thawed is None:
        out.unusable += 1  # current() would not read it either
        return
    state = fold.state
    if fold.undo_seen:  # as current(): the events taken back are left out by a fold from the start
        state = reading._replayed(ruleset, *reading._decoded(store, game_id, snap.seq))
    differs = [what for what, same in (
        ("state", ruleset.encode_state(ruleset.named(state, game_id)) == snap.state),
        ("ledger", _same_kernel(fold, thawed.kernel, snap.ledger)),
        ("draw head", fold.draw_head == snap.draw_head),
        ("batches", fold.batches == snap.batches)) if not same]
    out.checked += 1
    if differs:
        out.mismatched.append(Mismatch(seq=snap.seq, differs=differs))


def _drain(fold: _Fold) -> None:
    """The nonces the last row noted, moved into the running digest: a map of them all would grow by one
    a signed block, and each row that notes one copies the ledger (trust.advanced)."""
    nonces = fold.kernel.ledger.nonces  # this fold's own: trust.advanced copied it for the row
    if nonces:
        for nonce, batch in nonces.items():
            fold.nonces.update(_nonce_bytes(nonce, batch))
        nonces.clear()


def _nonce_bytes(nonce: str, batch: int) -> bytes:
    return msgspec.json.encode([nonce, batch]) + b"\n"


def _same_kernel(fold: _Fold, kernel: KernelState, text: str) -> bool:
    """Whether a snapshot's kernel state (`text`, decoded as `kernel`) is the replay's: the same as
    comparing its text with the replay's encoding, the nonces compared through their digest in order."""
    digest = hashlib.blake2b()
    for nonce, batch in kernel.ledger.nonces.items():
        digest.update(_nonce_bytes(nonce, batch))
    if digest.digest() != fold.nonces.digest() or msgspec.json.encode(kernel) != text.encode():
        return False
    bare = msgspec.structs.replace(kernel, ledger=msgspec.structs.replace(kernel.ledger, nonces={}))
    return msgspec.json.encode(bare) == msgspec.json.encode(fold.kernel)


def drop_mismatched(store: Store, game_id: str, check: SnapshotCheck) -> None:
    """Delete the snapshots that do not match the log: the service folds the log instead."""
    for m in check.mismatched:
        store.drop_snapshot(game_id, m.seq)
        check.dropped.append(m.seq)
