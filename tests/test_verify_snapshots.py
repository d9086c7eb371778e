"""mn verify's snapshot check of a game by mail: the nonces of its ledger, kept apart in the snapshot (format 7),
held to the log's, in order, through a running digest (mncore/audits/snapshots.py keeps no map of them all)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from msgspec import msgpack
from msgspec.structs import replace

from mncore.audits import snapshots
from mncore.games import reading
from mncore.store import Snapshot, Store, open_store
from signed_game import signed_game


def _signed(db: Path, monkeypatch: pytest.MonkeyPatch) -> Store:
    """An Empires game with keys of 200 events, every order a signed block, a snapshot every 16 events."""
    monkeypatch.setenv("MN_SNAPSHOT_EVERY", "16")
    store = open_store(str(db), create=True)
    signed_game(store)
    return store


def _last(store: Store) -> Snapshot:
    """The game's last snapshot, its nonces read with it (as one who rewrites it would)."""
    seq = store.last_snapshot_seq("c")
    snap = store.snapshot_at("c", seq)
    assert snap is not None
    return replace(snap, nonces=store.snapshot_nonces("c", seq) or "")


def _put(store: Store, snap: Snapshot, *, nonces_digest: str | None = None) -> int:
    """The snapshot written back, its nonces' digest (unless given) and its digest made anew; its seq."""
    digest = reading.nonces_digest(snap.nonces.encode()) if nonces_digest is None else nonces_digest
    snap = replace(snap, nonces_digest=digest)
    store.put_snapshot("c", replace(snap, digest=reading._digest(snap)))
    return snap.seq


def _nonces_edited(nonces: str, how: str) -> str:
    items = list(json.loads(nonces).items())
    if how == "dropped":
        items = items[1:]
    elif how == "swapped":
        items[0], items[1] = items[1], items[0]
    elif how == "added":
        items.append(("f" * 32, items[-1][1]))
    else:
        items[0] = (items[0][0], items[0][1] + 1)
    return json.dumps(dict(items), separators=(",", ":"))


def test_an_honest_signed_games_snapshots_match_its_log_and_keep_their_nonces_apart(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = _signed(tmp_path / "g.db", monkeypatch)
    last = _last(store)
    assert len(json.loads(last.nonces)) > 10 and json.loads(last.ledger)["ledger"]["nonces"] == {}
    assert last.nonces_digest == reading.nonces_digest(last.nonces.encode())

    check = snapshots.check_snapshots(store, "c")

    assert check.checked == len(store.snapshots("c")) >= 2 and check.ok


@pytest.mark.parametrize("how", ["dropped", "swapped", "renumbered", "added", "spaced"])
def test_a_snapshot_whose_nonces_differ_from_the_log_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          how: str) -> None:
    """One nonce left out, two in another order, one put at another event, one more, or the same written with
    spaces: their digest and the snapshot's made anew, it is named."""
    store = _signed(tmp_path / "g.db", monkeypatch)
    snap = _last(store)
    nonces = json.dumps(json.loads(snap.nonces)) if how == "spaced" else _nonces_edited(snap.nonces, how)
    assert nonces != snap.nonces
    seq = _put(store, replace(snap, nonces=nonces))

    check = snapshots.check_snapshots(store, "c")

    assert check.mismatched == [snapshots.Mismatch(seq=seq, differs=["ledger"])] and check.unusable == 0


@pytest.mark.parametrize("column", ["nonces", "digest"])
def test_a_nonces_column_or_nonces_digest_edited_alone_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            column: str) -> None:
    """The nonces edited with their digest left as it was (the snapshot's own still holds: it covers only that
    digest), or their digest edited with the snapshot's made anew: the service reads the rest, so it is named."""
    store = _signed(tmp_path / "g.db", monkeypatch)
    snap = _last(store)
    if column == "nonces":
        seq = _put(store, replace(snap, nonces=_nonces_edited(snap.nonces, "dropped")), nonces_digest=snap.nonces_digest)
    else:
        seq = _put(store, snap, nonces_digest="0" * 64)

    check = snapshots.check_snapshots(store, "c")

    assert check.mismatched == [snapshots.Mismatch(seq=seq, differs=["ledger"])] and check.unusable == 0


@pytest.mark.parametrize("how", ["spaced", "acted", "keys"])
def test_a_kernel_state_that_is_not_the_replays_encoding_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   how: str) -> None:
    """The same state written with spaces, or another field of the ledger changed: a mismatch, as the check's
    byte-for-byte comparison with the replay's encoding says."""
    store = _signed(tmp_path / "g.db", monkeypatch)
    snap = _last(store)
    doc = json.loads(snap.ledger)
    if how == "acted":
        doc["ledger"]["acted"]["rome"] += 1
    elif how == "keys":
        doc["ledger"]["keys"]["rome"] = doc["ledger"]["keys"]["greece"]
    text = json.dumps(doc) if how == "spaced" else json.dumps(doc, separators=(",", ":"))
    assert text != snap.ledger
    seq = _put(store, replace(snap, ledger=text))

    check = snapshots.check_snapshots(store, "c")

    assert check.mismatched == [snapshots.Mismatch(seq=seq, differs=["ledger"])] and check.unusable == 0


@pytest.mark.parametrize("ledger", ['{"ledger":{"nonces":', '{"ledger":{"nonces":{"a":"b"}}}', '[]',
                                    '{"ledger":{"nonces":{"a":3}}}'])
def test_a_kernel_state_that_does_not_decode_or_holds_nonces_is_unusable(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ledger: str) -> None:
    """current() would not read it (reading._thawed; in this format a ledger column holds no nonce): not
    checked, counted unusable."""
    store = _signed(tmp_path / "g.db", monkeypatch)
    _put(store, replace(_last(store), ledger=ledger))

    check = snapshots.check_snapshots(store, "c")

    assert check.unusable == 1 and check.mismatched == [] and check.checked == len(store.snapshots("c")) - 1


def test_a_snapshot_edited_without_its_digest_is_unusable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = _signed(tmp_path / "g.db", monkeypatch)
    snap = _last(store)
    store.put_snapshot("c", replace(snap, ledger=snap.ledger.replace('"pbem":false', '"pbem":true')))

    check = snapshots.check_snapshots(store, "c")

    assert check.unusable == 1 and check.mismatched == []


def test_a_snapshots_digest_covers_its_nonces_through_their_digest_alone() -> None:
    """reading._digest is the SHA-256 of the msgpack of the header's fields, the ledger and the nonces' digest,
    then the state: the nonces themselves are not needed to check the rest."""
    snap = Snapshot(seq=5, head_hash="h", engine="e", draw_head="d", batches=3, ledger="{}", state=b"st",
                    digest="", nonces_digest="nd", nonces='{"a":1}')
    whole = msgpack.encode([snap.seq, snap.head_hash, snap.engine, snap.draw_head, snap.batches, snap.ledger, "nd"])

    assert reading._digest(snap) == hashlib.sha256(whole + snap.state).hexdigest()
    assert reading._digest(replace(snap, nonces="")) == reading._digest(snap)
    assert reading._digest(replace(snap, nonces_digest="ne")) != reading._digest(snap)
