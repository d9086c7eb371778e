"""A game's cached snapshots checked against one replay of its log (mn verify of a stored game)."""

from __future__ import annotations

import hashlib
from typing import Any

import msgspec

from mncore.audits.verify import _undone
from mncore.core.chain import GENESIS_HASH, content_link
from mncore.core.kernel_acts import UNDO_TYPES
from mncore.core.kernel_state import KernelState
from mncore.core.protocol import Ruleset
from mncore.games import reading
from mncore.games.log_reading import collector_paused, decoded, fold_rows, ruleset_of
from mncore.pbem import trust
from mncore.store import Snapshot, Store


class Mismatch(msgspec.Struct, frozen=True, kw_only=True):
    """A snapshot the service would read whose contents are not the log's at its seq."""

    seq: int
    # of "state", "ledger" (the kernel's state, kept in that column, and its nonces, kept apart), "draw head",
    # "batches"
    differs: list[str]


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
    # the ledger's nonces as their JSON object's text, digested as it grows (as reading.nonces_digest), its
    # closing brace left out
    nonces: Any = msgspec.field(default_factory=lambda: hashlib.sha256(b"{"))
    noted: int = 0  # the nonces digested


def check_snapshots(store: Store, game_id: str) -> SnapshotCheck:
    """Replay the log once, streamed, and at the seq of each snapshot the service would read
    (reading.current) compare its state bytes, draw head, batches and kernel state (the ledger
    column: mncore/core/kernel_state.py, its nonces in theirs) with the replay's.

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
    # each snapshot's blobs are read at its seq, one at a time; its nonces (every one a block used) a piece at a time
    mine = {s.seq: s.head_hash for s in snaps if s.engine == engine}
    out.other_engine = len(snaps) - len(mine)
    del snaps
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
            head = mine.pop(row.seq, None)
            if head is not None:
                snap = store.snapshot_at(game_id, row.seq) if head == row.hash else None
                _check(store, game_id, ruleset, snap if snap is not None and snap.engine == engine else None,
                       fold, out)
    out.unusable += len(mine)  # past the log's head
    return out


def _check(store: Store, game_id: str, ruleset: Ruleset, snap: Snapshot | None, fold: _Fold,
           out: SnapshotCheck) -> None:
    """Count one snapshot of this engine at its seq (None: its head hash is not the log's), read without its
    nonces: unusable, matching, or a mismatch."""
    if snap is None or reading._thawed(store, game_id, ruleset, snap) is None:
        out.unusable += 1  # current() would not read it either
        return
    state = fold.state
    if fold.undo_seen:  # as current(): the events taken back are left out by a fold from the start
        state = _live(store, game_id, ruleset, snap.seq)
    differs = [what for what, same in (
        ("state", ruleset.encode_state(ruleset.named(state, game_id)) == snap.state),
        ("ledger", _same_kernel(store, game_id, snap, fold)),
        ("draw head", fold.draw_head == snap.draw_head),
        ("batches", fold.batches == snap.batches)) if not same]
    out.checked += 1
    if differs:
        out.mismatched.append(Mismatch(seq=snap.seq, differs=differs))


def _live(store: Store, game_id: str, ruleset: Ruleset, seq: int) -> Any:
    """reading._replayed of the log up to seq, read as a stream twice (its undos, then the fold without
    what they took back), never held: a game by mail's log may be long."""
    gone = _undone(store.stream_rows(game_id, 1, seq))
    rows = store.stream_rows(game_id, 1, seq)
    return fold_rows(ruleset, ((r, e) for r, e in decoded(ruleset, rows, "cannot decode the stored event")
                               if r.seq not in gone))


def _drain(fold: _Fold) -> None:
    """The nonces the last row noted, moved into the running digest: a map of them all would grow by one
    a signed block, and each row that notes one copies the ledger (trust.advanced)."""
    nonces = fold.kernel.ledger.nonces  # this fold's own: trust.advanced copied it for the row
    if nonces:
        for nonce, batch in nonces.items():
            fold.nonces.update(b"%s%s:%d" % (b"," if fold.noted else b"", msgspec.json.encode(nonce), batch))
            fold.noted += 1
        nonces.clear()


def _same_kernel(store: Store, game_id: str, snap: Snapshot, fold: _Fold) -> bool:
    """Whether the snapshot holds the replay's kernel state byte for byte: its ledger column the replay's
    encoding with the nonces left out (the replay keeps none), its nonces' digest and its nonces, read a piece
    at a time, never whole nor decoded, those the replay digested in order."""
    done = fold.nonces.copy()
    done.update(b"}")
    expected: str = done.hexdigest()
    if snap.ledger.encode() != msgspec.json.encode(fold.kernel) or snap.nonces_digest != expected:
        return False
    read = hashlib.sha256()
    for piece in store.nonces_pieces(game_id, snap.seq):
        read.update(piece)
    return read.hexdigest() == expected


def drop_mismatched(store: Store, game_id: str, check: SnapshotCheck) -> None:
    """Delete the snapshots that do not match the log: the service folds the log instead."""
    for m in check.mismatched:
        store.drop_snapshot(game_id, m.seq)
        check.dropped.append(m.seq)
