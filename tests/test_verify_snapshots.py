"""mn verify's snapshot check of a game by mail: the nonces of its ledger held to the log's, in order, through a
running digest (mncore/audits/snapshots.py keeps no map of them all)."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

import pytest
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
from mncore.store import Store, open_store


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
    last = max(store.snapshots("c"), key=lambda s: s.seq)
    assert len(json.loads(last.ledger)["ledger"]["nonces"]) > 10

    check = snapshots.check_snapshots(store, "c")

    assert check.checked == len(store.snapshots("c")) >= 2 and check.ok


@pytest.mark.parametrize("how", ["dropped", "swapped", "renumbered"])
def test_a_snapshot_whose_nonces_differ_from_the_log_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          how: str) -> None:
    """One nonce left out, two in another order, one put at another event: its digest made anew, it is named."""
    store = _signed(tmp_path / "g.db", monkeypatch)
    snap = max(store.snapshots("c"), key=lambda s: s.seq)
    forged = replace(snap, ledger=_nonces_edited(snap.ledger, how))
    store.put_snapshot("c", replace(forged, digest=reading._digest(forged)))

    check = snapshots.check_snapshots(store, "c")

    assert check.mismatched == [snapshots.Mismatch(seq=snap.seq, differs=["ledger"])]
