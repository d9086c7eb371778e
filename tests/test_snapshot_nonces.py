"""A game by mail's snapshot keeps its nonces apart (format 7): read only where a command needs them all."""

from __future__ import annotations

import hashlib
import json
import random
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner, Result

from mncli.cli import main
from mncore.audits import snapshots
from mncore.core.errors import AlreadyApplied
from mncore.core.kernel_acts import SignedOrders
from mncore.games import reading, writing
from mncore.pbem import signing
from mncore.store import open_store
from mncore.store.sqlite import MIGRATION_COUNT, SqliteStore
from signed_game import next_block, signed_game


def _mn(db: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["--db", str(db), *args])


def _game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list[SignedOrders]]:
    monkeypatch.setenv("MN_SNAPSHOT_EVERY", "16")
    db = tmp_path / "g.db"
    return db, signed_game(open_store(str(db), create=True))


def _again(db: Path, block: SignedOrders, tmp_path: Path) -> Result:
    """The block given once more through `mn order --signed`."""
    path = tmp_path / "block.txt"
    path.write_text(signing.armour(block))
    return _mn(db, "order", "c", "--signed", str(path))


def _reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The seqs of the snapshots whose nonces the store is asked for from now on, whole or in pieces."""
    seen: list[int] = []
    whole, pieces = SqliteStore.snapshot_nonces, SqliteStore.nonces_pieces

    def read(store: SqliteStore, game_id: str, seq: int) -> str | None:
        seen.append(seq)
        return whole(store, game_id, seq)

    def read_pieces(store: SqliteStore, game_id: str, seq: int) -> Iterator[bytes]:
        seen.append(seq)
        return pieces(store, game_id, seq)

    monkeypatch.setattr(SqliteStore, "snapshot_nonces", read)
    monkeypatch.setattr(SqliteStore, "nonces_pieces", read_pieces)
    return seen


def _applied_at(block: SignedOrders, db: Path) -> int:
    """The first event of the batch the block was applied as."""
    return next(r.batch for r in open_store(str(db)).rows("c") if r.command and block.signature in r.command)


def test_a_block_given_again_after_a_snapshot_is_refused_by_the_nonces_read_from_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db, blocks = _game(tmp_path, monkeypatch)
    store = open_store(str(db))
    last = store.last_snapshot_seq("c")
    cur = reading.current(store, "c")
    first = blocks[0]
    assert cur.unread_nonces is not None and cur.unread_nonces[0] == last
    assert first.nonce not in cur.kernel.ledger.nonces and _applied_at(first, db) < last
    seen = _reads(monkeypatch)

    result = _again(db, first, tmp_path)

    assert result.exit_code == AlreadyApplied.exit_code and seen == [last]
    assert f"was already applied at event {_applied_at(first, db)}" in result.output
    with pytest.raises(AlreadyApplied):
        writing.give(store, cur, blocks[1], answer=False)
    assert first.nonce in cur.kernel.ledger.nonces and cur.unread_nonces is None


def test_status_and_show_read_no_nonce_and_an_order_reads_them_once(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    db, blocks = _game(tmp_path, monkeypatch)
    seen = _reads(monkeypatch)
    for args in (("status", "c"), ("status", "c", "--json"), ("show", "c", "--json"), ("show", "c", "--as", "rome")):
        assert _mn(db, *args).exit_code == 0, args
    assert seen == []
    cur = reading.current(open_store(str(db)), "c")

    writing.give(open_store(str(db)), cur, next_block(cur, random.Random("next"), len(blocks)), answer=False)

    assert seen == [cur.snapshot_seq]


def _nonces_damaged(db: Path, seq: int) -> None:
    """The snapshot's nonces column emptied of its first nonce, their digest and the snapshot's left as they were."""
    conn = sqlite3.connect(db)
    with conn:
        (text,) = conn.execute("select nonces from snapshots where game_id = 'c' and seq = ?", [seq]).fetchone()
        nonces = json.loads(text)
        del nonces[next(iter(nonces))]
        conn.execute("update snapshots set nonces = ? where game_id = 'c' and seq = ?",
                     [json.dumps(nonces, separators=(",", ":")), seq])
    conn.close()


def test_a_damaged_nonces_column_is_ignored_by_status_and_show_caught_by_an_order_and_by_verify(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Status and show answer as before without reading it; an order finds it does not hold to its digest and
    reads the nonces from the log (the block still refused); mn verify names the snapshot."""
    db, blocks = _game(tmp_path, monkeypatch)
    last = open_store(str(db)).last_snapshot_seq("c")
    before = [_mn(db, *args).output for args in (("status", "c"), ("show", "c", "--json"))]
    _nonces_damaged(db, last)

    assert [_mn(db, *args).output for args in (("status", "c"), ("show", "c", "--json"))] == before
    refused = _again(db, blocks[0], tmp_path)
    assert refused.exit_code == AlreadyApplied.exit_code
    assert f"was already applied at event {_applied_at(blocks[0], db)}" in refused.output
    verified = _mn(db, "verify", "c")
    assert verified.exit_code == 4 and f"the snapshot at event {last} does not match the log (ledger differs)" in (
        verified.stderr)
    assert snapshots.check_snapshots(open_store(str(db)), "c").mismatched == [
        snapshots.Mismatch(seq=last, differs=["ledger"])]


def test_a_snapshot_written_after_an_order_holds_the_nonces_of_the_one_before_and_those_after(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The nonces read from a snapshot, then those used after it, are the next snapshot's, in the log's order."""
    db, blocks = _game(tmp_path, monkeypatch)
    store = open_store(str(db))
    cur = reading.current(store, "c")
    rand = random.Random("more")
    n, start = len(blocks), cur.snapshot_seq
    assert cur.unread_nonces is not None
    while store.last_snapshot_seq("c") == start:
        cur = writing.give(store, cur, next_block(cur, rand, n), answer=False).after
        n += 1
    seq = store.last_snapshot_seq("c")

    assert json.loads(store.snapshot_nonces("c", seq) or "") == {f"{i:032x}": _applied_at_nonce(db, i)
                                                                  for i in range(n)}
    assert snapshots.check_snapshots(store, "c").ok


def _applied_at_nonce(db: Path, n: int) -> int:
    return next(r.batch for r in open_store(str(db)).rows("c") if r.command and f'"{n:032x}"' in r.command)


# the snapshots table as the previous version made it, without the nonces' columns
_PREVIOUS_SNAPSHOTS = ("create table snapshots (game_id text, seq integer, head_hash text, engine text, "
                       "draw_head text, batches integer, ledger text, state blob, digest text, "
                       "primary key (game_id, seq))")


def _format_six(db: Path) -> Path:
    """The game's database as the previous version wrote it: its schema before the nonces' columns and its
    snapshots of format 6 (the nonces inside the kernel state, the digest over it whole), migrations recorded
    up to then."""
    store = open_store(str(db))
    old = db.parent / "old.db"
    rows = []
    for head in store.snapshots("c"):
        snap = store.snapshot_at("c", head.seq)
        assert snap is not None
        kernel = json.loads(snap.ledger)
        kernel["ledger"]["nonces"] = json.loads(store.snapshot_nonces("c", head.seq) or "")
        ledger = json.dumps(kernel, separators=(",", ":"))
        engine = snap.engine.replace(f"snapshots {reading.SNAPSHOT_FORMAT}", "snapshots 6")
        digest = msgspec.msgpack.encode([snap.seq, snap.head_hash, engine, snap.draw_head, snap.batches, ledger])
        rows.append(["c", snap.seq, snap.head_hash, engine, snap.draw_head, snap.batches, ledger, snap.state,
                     hashlib.sha256(digest + snap.state).hexdigest()])
    conn = sqlite3.connect(old)
    with conn:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("attach database ? as src", [str(db)])
        for table in ("games", "events", "heads", "salts", "_sqlite_migrations"):
            (made,) = conn.execute("select sql from src.sqlite_master where name = ?", [table]).fetchone()
            conn.execute(made)
            conn.execute(f"insert into {table} select * from src.{table}")
        conn.execute("delete from _sqlite_migrations where name = 'snapshot_nonces'")
        conn.execute(_PREVIOUS_SNAPSHOTS)
        conn.executemany("insert into snapshots values (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    conn.close()
    return old


def test_a_database_written_before_the_nonces_were_kept_apart_reads_verifies_and_plays_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its format-6 snapshots are another engine's: ignored, the game folded from its log; it is migrated, a
    block given again is refused, a new one taken, and the next snapshot is of this format."""
    db, blocks = _game(tmp_path, monkeypatch)
    answers = [_mn(db, *args).output for args in (("status", "c"), ("show", "c", "--json"))]
    old = _format_six(db)

    assert [_mn(old, *args).output for args in (("status", "c"), ("show", "c", "--json"))] == answers
    store = open_store(str(old))
    assert snapshots.check_snapshots(store, "c") == snapshots.SnapshotCheck(other_engine=2)
    assert _mn(old, "verify", "c").exit_code == 0
    assert _again(old, blocks[0], tmp_path).exit_code == AlreadyApplied.exit_code
    cur = reading.current(store, "c")
    assert cur.snapshot_seq == 0 and cur.unread_nonces is None
    rand, n, target = random.Random("old"), len(blocks), store.last_snapshot_seq("c") + 16
    while cur.head[0] < target:
        cur = writing.give(store, cur, next_block(cur, rand, n), answer=False).after
        n += 1
    assert [name for (name,) in sqlite3.connect(old).execute("select name from _sqlite_migrations order by id")][-1] == (
        "snapshot_nonces") and MIGRATION_COUNT == 6
    newest = store.snapshot_at("c", store.last_snapshot_seq("c"))
    assert newest is not None and newest.engine == reading.engine_of(cur.ruleset)
    assert snapshots.check_snapshots(store, "c") == snapshots.SnapshotCheck(checked=1, other_engine=1)
    assert _mn(old, "verify", "c").exit_code == 0


def test_an_old_database_that_cannot_be_migrated_is_read_from_its_log(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A read-only file of the previous version: its snapshots table lacks the nonces' columns, so no snapshot
    is read from it (none could be this engine's) and the game answers from its log."""
    db, _ = _game(tmp_path, monkeypatch)
    status = _mn(db, "status", "c").output
    old = _format_six(db)

    def refuse(self: SqliteStore) -> None:
        raise sqlite3.OperationalError("attempt to write a readonly database")

    monkeypatch.setattr(SqliteStore, "_apply_migrations", refuse)
    store = open_store(str(old))

    assert store.latest_snapshot("c", None, "any") is None and store.snapshot_nonces("c", 16) is None
    assert reading.current(store, "c").snapshot_seq == 0 and _mn(old, "status", "c").output == status
