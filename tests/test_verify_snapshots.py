"""mn verify's snapshot check of a game by mail: the nonces of its ledger held to the log's, in order, through a
running digest (mncore/audits/snapshots.py keeps no map of them all)."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

import pytest
from msgspec import msgpack
from msgspec.structs import replace

from mncore.audits import snapshots
from mncore.core.dice import Rng, seeded_secret
from mncore.core.kernel_acts import PublishKeys
from mncore.games import reading, writing
from mncore.pbem import signing
from mncore.rulesets.empires.board import load_board
from mncore.rulesets.empires.commands import CreateGame
from mncore.rulesets.empires.players.autoplay import choose
from mncore.rulesets.empires.seam import RULESET
from mncore.store import Snapshot, Store, open_store


def _signed(db: Path, monkeypatch: pytest.MonkeyPatch) -> Store:
    """An Empires game with keys of 200 events, every order a signed block, a snapshot every 16 events."""
    monkeypatch.setenv("MN_SNAPSHOT_EVERY", "16")
    store = open_store(str(db), create=True)
    cmd = CreateGame(board=load_board(), players={"rome": "A", "greece": "B", "carthage": "C"},
                     display="experienced", fair_play=False)
    private = {e: hashlib.sha256(f"snap|{e}".encode()).hexdigest() for e in cmd.players}
    keys = PublishKeys(keys={e: signing.public_of(k) for e, k in private.items()}, signed_only=True)
    secret = seeded_secret("snap")
    cur = reading.current(store, writing.create(store, RULESET, cmd, secret, "c", keys).game_id)
    rand = random.Random("snap")
    n = 0
    while cur.head[0] < 200:
        choice = choose(cur.state, rand, Rng(secret, cur.head[1]))
        assert choice is not None
        block = signing.sign(private[choice.empire], game="c", side=choice.empire, seq=cur.head[0],
                             head=cur.head[1], orders=[choice.line], nonce=f"{n:032x}")
        cur = writing.give(store, cur, block, answer=False).after
        n += 1
    return store


def _last(store: Store) -> Snapshot:
    snap = store.snapshot_at("c", store.last_snapshot_seq("c"))
    assert snap is not None
    return snap


def _nonces_edited(ledger: str, how: str) -> str:
    doc = json.loads(ledger)
    items = list(doc["ledger"]["nonces"].items())
    if how == "dropped":
        items = items[1:]
    elif how == "swapped":
        items[0], items[1] = items[1], items[0]
    else:
        items[0] = (items[0][0], items[0][1] + 1)
    doc["ledger"]["nonces"] = dict(items)
    return json.dumps(doc, separators=(",", ":"))


def test_an_honest_signed_games_snapshots_match_its_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = _signed(tmp_path / "g.db", monkeypatch)
    last = _last(store)
    assert len(json.loads(last.ledger)["ledger"]["nonces"]) > 10

    check = snapshots.check_snapshots(store, "c")

    assert check.checked == len(store.snapshots("c")) >= 2 and check.ok


@pytest.mark.parametrize("how", ["dropped", "swapped", "renumbered"])
def test_a_snapshot_whose_nonces_differ_from_the_log_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          how: str) -> None:
    """One nonce left out, two in another order, one put at another event: its digest made anew, it is named."""
    store = _signed(tmp_path / "g.db", monkeypatch)
    snap = _last(store)
    forged = replace(snap, ledger=_nonces_edited(snap.ledger, how))
    store.put_snapshot("c", replace(forged, digest=reading._digest(forged)))

    check = snapshots.check_snapshots(store, "c")

    assert check.mismatched == [snapshots.Mismatch(seq=snap.seq, differs=["ledger"])]


def _forged(store: Store, ledger: str) -> int:
    """The game's last snapshot with this kernel state, its digest made anew; its seq."""
    snap = _last(store)
    forged = replace(snap, ledger=ledger)
    store.put_snapshot("c", replace(forged, digest=reading._digest(forged)))
    return snap.seq


@pytest.mark.parametrize("how", ["spaced", "nonces spaced", "acted", "keys"])
def test_a_kernel_state_that_is_not_the_replays_encoding_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   how: str) -> None:
    """The same state written with spaces, or another field changed beside the nonces: a mismatch, as the
    check's byte-for-byte comparison with the replay's encoding says, though its nonces are never decoded."""
    store = _signed(tmp_path / "g.db", monkeypatch)
    doc = json.loads(_last(store).ledger)
    if how == "acted":
        doc["ledger"]["acted"]["rome"] += 1
    elif how == "keys":
        doc["ledger"]["keys"]["rome"] = doc["ledger"]["keys"]["greece"]
    text = json.dumps(doc, separators=(",", ":"))
    if how == "spaced":
        text = json.dumps(doc)
    elif how == "nonces spaced":  # the nonces alone written with a space after each comma
        nonces = json.dumps(doc["ledger"]["nonces"], separators=(",", ":"))
        text = text.replace(nonces, nonces.replace(",", ", "))
    assert text != _last(store).ledger
    seq = _forged(store, text)

    check = snapshots.check_snapshots(store, "c")

    assert check.mismatched == [snapshots.Mismatch(seq=seq, differs=["ledger"])] and check.unusable == 0


@pytest.mark.parametrize("ledger", ['{"ledger":{"nonces":', '{"ledger":{"nonces":{"a":"b"}}}', '[]'])
def test_a_kernel_state_that_does_not_decode_is_unusable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         ledger: str) -> None:
    """current() would not read it (reading._thawed): not checked, counted unusable, as before the check kept
    the nonces apart."""
    store = _signed(tmp_path / "g.db", monkeypatch)
    _forged(store, ledger)

    check = snapshots.check_snapshots(store, "c")

    assert check.unusable == 1 and check.mismatched == [] and check.checked == len(store.snapshots("c")) - 1


def test_a_snapshot_edited_without_its_digest_is_unusable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = _signed(tmp_path / "g.db", monkeypatch)
    snap = _last(store)
    store.put_snapshot("c", replace(snap, ledger=snap.ledger.replace('"pbem":false', '"pbem":true')))

    check = snapshots.check_snapshots(store, "c")

    assert check.unusable == 1 and check.mismatched == []


@pytest.mark.parametrize("ledger", ["", "a", "x" * 31, "x" * 32, "y" * 255, "y" * 256, "z" * 65_535, "z" * 65_536,
                                    "é" * 40_000, "€" * 70_000 + "a", "a" * 200_000])
def test_a_snapshots_digest_hashes_its_ledger_a_piece_at_a_time_as_the_whole(ledger: str) -> None:
    """reading._digest never copies a ledger whole: it is the SHA-256 of the msgpack of the header's fields
    and the ledger, then the state, whatever the string header msgpack gives the ledger's length."""
    snap = Snapshot(seq=5, head_hash="h", engine="e", draw_head="d", batches=3, ledger=ledger, state=b"st", digest="")
    whole = msgpack.encode([snap.seq, snap.head_hash, snap.engine, snap.draw_head, snap.batches, snap.ledger])

    assert reading._digest(snap) == hashlib.sha256(whole + snap.state).hexdigest()
