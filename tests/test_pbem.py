"""Play by email, the service side (issue 12): atomic batches, undo and consent (K1, K2), host
corrections (K3), deadlines and defaults (K4), forced answers (K5) and standing orders (K6)."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from mncli.cli import main
from mncore.core.dice import Rng, seeded_secret
from mncore.core.errors import CommandRejected
from mncore.core.kernel_acts import BatchUndone, DefaultOrders, QueuedOrder, UndoBatch
from mncore.core.protocol import NewGame
from mncore.games import by_mail, lifecycle, reading, writing
from mncore.pbem import turns
from mncore.rulesets.empires.seam import RULESET as EMPIRES
from mncore.store import Store, open_store

THREE = ["--empire", "rome", "--empire", "greece", "--empire", "carthage"]
T0 = "2030-01-01T00:00:00+00:00"


def mn(db: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["--db", str(db), *args])


def ok(db: Path, *args: str) -> str:
    result = mn(db, *args)
    assert result.exit_code == 0, result.output
    return result.stdout


def doc(db: Path, *args: str) -> Any:
    return json.loads(ok(db, *args, "--json"))


def rows(db: Path) -> list[Any]:
    return open_store(str(db)).rows("g")


def receipt(db: Path) -> str:
    last = rows(db)[-1]
    return f"Receipt: game g, event {last.seq}, head {last.hash}\n"


def verified(db: Path) -> bool:
    return mn(db, "verify", "g").exit_code == 0


@pytest.fixture()
def db(tmp_path: Path) -> Path:
    """A three-empire game at its first decision: Carthage, the Trade Leader, plays a marker."""
    path = tmp_path / "mn.db"
    ok(path, "new", *THREE, "--seed", "orders", "--id", "g", "--display", "experienced")
    return path


@pytest.fixture()
def offering(db: Path) -> Path:
    """The exchange value is 3: Rome, Greece and Carthage each offer three resources face down."""
    ok(db, "order", "g", "--as", "carthage", "trade 3")
    return db


# --- atomic batches ---------------------------------------------------------------------------------

def test_the_orders_of_one_mn_order_are_written_as_one_batch(db: Path) -> None:
    """Two orders decided together on the evolving state: three events, one batch, one command."""
    out = ok(db, "order", "g", "--as", "carthage", "trade 3", "offer coin gold gold")

    assert out == ("    7  Carthage, the Trade Leader, plays the exchange marker for 3.\n"
                   "    8  Trading: Rome, Greece, Carthage take part; Carthage claims first.\n"
                   "    9  Carthage offered 1 Coin, 2 Gold face down.\n" + receipt(db))
    assert [(r.seq, r.batch) for r in rows(db)[6:]] == [(7, 7), (8, 7), (9, 7)]
    assert json.loads(rows(db)[6].command) == {"type": "OrderBatch", "side": "carthage",
                                               "orders": ["trade 3", "offer coin gold gold"]}
    assert verified(db)


def test_a_batch_with_one_illegal_order_writes_nothing(db: Path) -> None:
    """The second order is refused under 2.1: exit 1, named by number and text, the first not written."""
    before = len(rows(db))

    result = mn(db, "order", "g", "--as", "carthage", "trade 3", "offer nothing")

    assert result.exit_code == 1
    assert result.stderr == ("Error: order 2 ('offer nothing'): the exchange value is 3: offer exactly "
                             "3 resources, not 0 [rule empires:2.1]\n")
    assert len(rows(db)) == before


def test_check_answers_for_the_whole_batch_and_writes_nothing(db: Path) -> None:
    """mn check with several orders: the events of the whole batch, or its first refusal."""
    before = len(rows(db))

    accepted = mn(db, "check", "g", "--as", "carthage", "trade 3", "offer coin gold gold")
    refused = mn(db, "check", "g", "--as", "carthage", "trade 3", "offer nothing", "--json")

    assert accepted.exit_code == 0 and accepted.stdout == (
        "Accepted: the 2 orders, as one batch, would cause 3 event(s):\n"
        "  Carthage, the Trade Leader, plays the exchange marker for 3.\n"
        "  Trading: Rome, Greece, Carthage take part; Carthage claims first.\n"
        "  Carthage offered 1 Coin, 2 Gold face down.\n")
    assert refused.exit_code == 1 and json.loads(refused.stdout) == {
        "accepted": False, "orders": ["trade 3", "offer nothing"], "section": "empires:2.1",
        "reason": "order 2 ('offer nothing'): the exchange value is 3: offer exactly 3 resources, not 0"}
    assert len(rows(db)) == before


# --- undo and consent -------------------------------------------------------------------------------

def test_K1_a_side_takes_back_its_last_batch_alone(offering: Path) -> None:
    """Rome offered and nobody acted since, nothing drawn or revealed: Rome takes it back alone; the
    event stays in the log, struck out, and Rome must offer again."""
    db = offering
    ok(db, "order", "g", "--as", "rome", "offer coin grain grain")

    out = ok(db, "undo", "g", "--as", "rome")

    assert out == "   10  Rome took back event 9; replay skips it (ruling K1).\n" + receipt(db)
    assert ok(db, "log", "g", "--from", "9") == (
        "    9  [undone] Rome offered 1 Coin, 2 Grain face down.\n"
        "   10  Rome took back event 9; replay skips it (ruling K1).\n")
    assert [p["empire"] for p in doc(db, "status", "g")["pending"]] == ["rome", "greece", "carthage"]
    assert doc(db, "log", "g", "--from", "9", "--to", "9")[0]["undone"] is True
    assert verified(db)


def test_K1_nothing_to_take_back_is_refused_and_nothing_written(offering: Path) -> None:
    """Rome has given no order: refused under K1, exit 1, nothing written."""
    before = len(rows(offering))

    result = mn(offering, "undo", "g", "--as", "rome")

    assert result.exit_code == 1
    assert result.stderr == "Error: Rome has no batch of orders to take back [rule kernel:K1]\n"
    assert len(rows(offering)) == before


def _all_offered(db: Path) -> None:
    ok(db, "order", "g", "--as", "rome", "offer coin grain metal")
    ok(db, "order", "g", "--as", "greece", "offer coin coin coin")
    ok(db, "order", "g", "--as", "carthage", "offer coin gold gold")  # the offers are revealed


def test_K2_after_a_reveal_an_undo_waits_for_every_side_and_the_last_consent_applies_it(
        offering: Path) -> None:
    """Carthage's offer turned every offer face up: taking it back needs Rome's and Greece's consent."""
    db = offering
    _all_offered(db)

    asked = ok(db, "undo", "g", "--as", "carthage")
    first = ok(db, "consent", "g", "--as", "rome", "--batch", "11")
    last = ok(db, "consent", "g", "--as", "greece", "--batch", "11")

    assert asked.endswith("Taking back the batch of event 11 needs the consent of Greece, Rome (ruling "
                          "K2); each gives it with: mn consent g --as EMPIRE --batch 11\n")
    assert first.endswith("Still waiting for the consent of Greece.\n")
    assert last == ("   15  Greece consents to undoing the batch of event 11 (ruling K2).\n"
                    "   16  Carthage took back events 11 to 14, with the consent of Greece, Rome; replay "
                    "skips them (ruling K1).\n" + receipt(db))
    assert [p["empire"] for p in doc(db, "status", "g")["pending"]] == ["carthage"]
    assert verified(db)


def test_K2_an_undo_without_every_consent_is_refused(offering: Path) -> None:
    """Greece never consents: the undo is not applied, asking again writes nothing more, and the
    undo given directly is refused under K2."""
    db = offering
    _all_offered(db)
    ok(db, "undo", "g", "--as", "carthage")
    ok(db, "consent", "g", "--as", "rome", "--batch", "11")
    before = len(rows(db))

    again = ok(db, "undo", "g", "--as", "carthage")
    store = open_store(str(db))
    with pytest.raises(Exception, match=r"needs the consent of Greece") as refused:
        writing.give(store, "g", UndoBatch(side="carthage", batch=11), answer=False)

    assert again.startswith("Taking back the batch of event 11 needs the consent of Greece (ruling K2)")
    assert getattr(refused.value, "section", "") == "kernel:K2"
    assert len(rows(db)) == before


def test_K1_verify_fails_when_an_undo_is_forged_into_the_log(offering: Path) -> None:
    """A BatchUndone written without consent (the host's database edited, the chain recomputed) is
    caught: its command is refused when decided again."""
    db = offering
    _all_offered(db)
    store = open_store(str(db))
    loaded = reading.load(store, "g")
    forged = BatchUndone(side="carthage", batch=11, through=12)
    new = writing._new_rows(EMPIRES, [forged], "carthage", UndoBatch(side="carthage", batch=11),
                         reading.utc_now(), 13, None)
    store.append("g", loaded.head[0], new)

    result = mn(db, "verify", "g")

    assert result.exit_code == 4
    assert "event 13" in result.output and "needs the consent of Greece, Rome" in result.output


# --- corrections ------------------------------------------------------------------------------------

def test_K3_a_host_correction_carries_its_reason_to_every_side(offering: Path) -> None:
    """The host takes back Greece's offer with a reason; Rome reads it; verify passes."""
    db = offering
    ok(db, "order", "g", "--as", "rome", "offer coin grain metal")
    ok(db, "order", "g", "--as", "greece", "offer coin coin coin")

    out = ok(db, "correct", "g", "--batch", "10", "--reason", "Greece's order was typed for Rome")

    assert out == ("   11  Host correction: event 10 is undone. Reason: Greece's order was typed "
                   "for Rome (ruling K3).\n" + receipt(db))
    assert ok(db, "log", "g", "--as", "rome", "--from", "10") == (
        "   10  [undone] Greece placed 3 resources face down.\n"
        "   11  Host correction: event 10 is undone. Reason: Greece's order was typed for "
        "Rome (ruling K3).\n")
    assert verified(db)


def test_K3_a_correction_without_a_reason_is_refused(offering: Path) -> None:
    """No reason, nothing written (exit 2)."""
    ok(offering, "order", "g", "--as", "rome", "offer coin grain metal")
    before = len(rows(offering))

    result = mn(offering, "correct", "g", "--batch", "9", "--reason", "  ")

    assert result.exit_code == 2
    assert result.stderr == "Error: a correction needs its reason (--reason TEXT), which every side reads\n"
    assert len(rows(offering)) == before


# --- deadlines and defaults -------------------------------------------------------------------------

def test_K4_status_shows_who_is_overdue_since_when(db: Path) -> None:
    """48 hours from the pace set at T0: due on the 3rd, overdue after."""
    ok(db, "deadline", "g", "--hours", "48", "--phase", "build=72", "--now", T0)

    before = ok(db, "status", "g", "--now", "2030-01-02T00:00:00Z")
    after = ok(db, "status", "g", "--now", "2030-01-04T00:00:00Z")

    since = rows(db)[0].recorded_at[:19]
    assert before.endswith(f"Deadlines (at 2030-01-02T00:00:00Z):\n  Carthage: waited for since {since}Z "
                           "(event 1), due 2030-01-03T00:00:00Z\n")
    assert after.endswith(f"Deadlines (at 2030-01-04T00:00:00Z):\n  Carthage: waited for since {since}Z "
                          "(event 1), OVERDUE since 2030-01-03T00:00:00Z\n")
    assert doc(db, "status", "g", "--now", "2030-01-04T00:00:00Z")["waiting"] == [
        {"side": "carthage", "since": rows(db)[0].recorded_at, "since_event": 1,
         "due": "2030-01-03T00:00:00+00:00", "overdue": True}]


def test_K4_tick_applies_the_default_as_the_deadlines_act(db: Path) -> None:
    """At the deadline, Carthage's default (the first marker listed) is played by the deadline;
    a second tick finds nothing to do and prints nothing."""
    ok(db, "deadline", "g", "--hours", "48", "--now", T0)
    early = ok(db, "tick", "g", "--now", "2030-01-02T00:00:00Z")

    out = ok(db, "tick", "--all", "--now", "2030-01-04T00:00:00Z")
    again = ok(db, "tick", "g", "--now", "2030-01-04T00:00:00Z")

    assert early == "" and again == ""
    assert out == ("Game g, deadlines passed at 2030-01-04T00:00:00Z:\n"
                   "    8  [deadline] Carthage, the Trade Leader, plays the exchange marker for 5.\n"
                   "    9  Trading: Rome, Greece, Carthage take part; Carthage claims first.\n"
                   + receipt(db))
    act = rows(db)[7]
    assert (act.actor, act.recorded_at) == ("deadline", "2030-01-04T00:00:00.000000+00:00")
    assert json.loads(act.command)["due"] == "2030-01-03T00:00:00+00:00"
    assert verified(db)


def test_K4_verify_fails_if_a_default_is_recorded_before_its_deadline(db: Path) -> None:
    """A deadline's act forged a day early is refused when decided again."""
    ok(db, "deadline", "g", "--hours", "48", "--now", T0)
    store = open_store(str(db))
    loaded = reading.load(store, "g")
    early = "2030-01-02T00:00:00+00:00"
    cmd = DefaultOrders(side="carthage", orders=("trade 5",), due="2030-01-03T00:00:00+00:00", at=early)
    events, _ = EMPIRES.decide(loaded.state, EMPIRES.parse_order("trade 5", loaded.state, "carthage"),
                               Rng(None, loaded.draw_head))
    store.append("g", loaded.head[0], writing._new_rows(EMPIRES, events, "deadline", cmd, early, 8, None))

    result = mn(db, "verify", "g")

    assert result.exit_code == 4 and "event 8" in result.output and "not passed" in result.output


def test_K4_a_phase_that_does_not_exist_is_bad_input(db: Path) -> None:
    """--phase names a phase of the game: exit 2, nothing written."""
    before = len(rows(db))

    result = mn(db, "deadline", "g", "--phase", "harvest=24")

    assert result.exit_code == 2
    assert result.stderr == ("Error: --phase harvest=24: harvest is not a phase of Mare Nostrum: Empires "
                             "(2016) (phases: collect, trade, build, move, leadership)\n")
    assert len(rows(db)) == before


# --- forced answers and standing orders -------------------------------------------------------------

def _scripted(store: Store, seed: int, orders: int, waits: Any) -> None:
    """Scripted play from options(), the service answering after each order; `waits(state)` is
    checked before each order."""
    rand = random.Random(seed)
    for _ in range(orders):
        cur = reading.current(store, "g")
        pending = EMPIRES.pending(cur.state)
        if not pending:
            break
        waits(cur.state)
        side = pending[0].empire
        lines = [o.order for o in EMPIRES.options(cur.state, side) if o.order]
        lines += [o.template.format(**{k: rand.choice(v) for k, v in o.parts.items()})
                  for o in EMPIRES.options(cur.state, side) if o.template and not o.template.startswith("fix")]
        for line in rand.sample(lines, len(lines)):
            try:
                writing.give(store, cur, writing.batch_command(cur, side, [line]), answer=False)
            except CommandRejected:
                continue
            break
        writing.advance(store, "g")


def _new_store(tmp_path: Path) -> Store:
    store = open_store(str(tmp_path / "f.db"), create=True)
    writing.create(store, EMPIRES, EMPIRES.new_game(NewGame(sides=("rome", "greece", "carthage"))),
                seeded_secret("forced"), "g")
    return store


def test_K5_no_decision_with_one_legal_answer_is_left_waiting(tmp_path: Path) -> None:
    """With forced answers on, scripted play never leaves a side waiting on a decision that has one
    legal answer; each forced batch is marked [forced] and verify decides it again."""
    store = _new_store(tmp_path)
    by_mail.set_pace(store, "g", 0, {}, True)

    def none_forced(state: Any) -> None:
        assert all(EMPIRES.forced_orders(state, p.empire) is None for p in EMPIRES.pending(state))

    _scripted(store, 7, 60, none_forced)

    forced = [r for r in store.rows("g") if r.actor == "forced"]
    assert forced and lifecycle.verify_game(store, "g").ok


def test_K6_the_standing_order_forced_takes_one_sides_forced_decisions(tmp_path: Path) -> None:
    """Rome alone leaves the standing order 'forced': only Rome's one-answer decisions are taken."""
    store = _new_store(tmp_path)
    by_mail.set_standing(store, "g", "rome", ["forced"])

    def rome_not_forced(state: Any) -> None:
        assert all(EMPIRES.forced_orders(state, p.empire) is None
                   for p in EMPIRES.pending(state) if p.empire == "rome")

    _scripted(store, 7, 60, rome_not_forced)

    forced = [json.loads(r.command)["side"] for r in store.rows("g") if r.actor == "forced" and r.command]
    assert forced and set(forced) == {"rome"}
    assert lifecycle.verify_game(store, "g").ok


def test_K6_a_standing_order_is_applied_when_the_side_must_decide(db: Path) -> None:
    """Carthage leaves 'trade 9' (no marker shows it) then 'trade 3': the first legal one is played."""
    out = ok(db, "standing", "g", "--as", "carthage", "trade 9", "trade 3")

    assert out == ("    7  Carthage left standing orders: trade 9; trade 3.\n"
                   "    8  [standing] Carthage, the Trade Leader, plays the exchange marker for 3.\n"
                   "    9  Trading: Rome, Greece, Carthage take part; Carthage claims first.\n"
                   + receipt(db))
    assert rows(db)[7].actor == "standing"
    assert verified(db)


def test_K6_standing_orders_are_the_sides_own_until_revealed(offering: Path) -> None:
    """Rome's standing offer line is hidden from Greece in the log and its export."""
    db = offering
    ok(db, "standing", "g", "--as", "greece", "offer coin coin coin")

    greece_sees = ok(db, "log", "g", "--as", "greece", "--from", "9")
    rome_sees = ok(db, "log", "g", "--as", "rome", "--from", "9")
    export = ok(db, "export", "g", "--as", "rome")

    assert "offer coin coin coin" in greece_sees
    assert "coin coin coin" not in rome_sees and "coin coin coin" not in export
    assert "Greece placed 3 resources face down." in rome_sees
    assert turns.standing_of(rows(db), "greece") == ("offer coin coin coin",)


# --- signed: undo, consent and standing orders as a player's signed block --------------------------

def _signed(db: Path, keys: Path, side: str, *lines: str) -> Result:
    at = doc(db, "status", "g")["head"]
    block = keys.parent / f"{side}-{at['seq']}.txt"
    ok(db, "sign", "--key", str(keys / f"g-{side}.key"), "--game", "g", "--seq", str(at["seq"]),
       "--head", at["hash"], "--nonce", hashlib.sha256(f"{side}{at['seq']}".encode()).hexdigest()[:32],
       "-o", str(block), *lines)
    return mn(db, "order", "g", "--signed", str(block))


def test_K1_K6_a_signed_only_game_takes_undo_and_standing_orders_as_signed_blocks(tmp_path: Path) -> None:
    """In a game that takes signed orders only, 'undo' and 'standing ORDER' are a player's signed
    block; the same acts unsigned are refused; verify checks every signature."""
    db, keys = tmp_path / "mn.db", tmp_path / "keys"
    ok(db, "new", *THREE, "--seed", "orders", "--id", "g", "--keys-dir", str(keys), "--signed-only")
    assert _signed(db, keys, "carthage", "trade 3").exit_code == 0
    assert _signed(db, keys, "rome", "offer coin grain grain").exit_code == 0

    unsigned = mn(db, "undo", "g", "--as", "rome")
    undone = _signed(db, keys, "rome", "undo")
    standing = _signed(db, keys, "greece", "standing offer coin coin coin")

    assert unsigned.exit_code == 2 and "signed orders only" in unsigned.stderr
    assert undone.exit_code == 0 and undone.stdout.startswith(
        "   11  Rome took back event 10; replay skips it (ruling K1).\n")
    assert standing.exit_code == 0 and standing.stdout.startswith(
        "   12  Greece left standing orders: offer coin coin coin.\n"
        "   13  [standing] Greece offered 3 Coin face down.\n")
    assert [r.actor for r in rows(db)[10:13]] == ["rome", "greece", "standing"]
    assert "signed order blocks carry a valid signature" in ok(db, "verify", "g")


def test_K6_a_standing_order_is_applied_after_another_sides_signed_block(tmp_path: Path) -> None:
    """Greece leaves 'offer coin coin coin' before the value is played; Carthage's signed 'trade 3'
    makes it legal, and the service applies it in the same mn order (the ledger a signed block
    leaves still says the game has a pace or standing orders: the mailed game's stall)."""
    db, keys = tmp_path / "mn.db", tmp_path / "keys"
    ok(db, "new", *THREE, "--seed", "orders", "--id", "g", "--keys-dir", str(keys), "--signed-only")
    assert _signed(db, keys, "greece", "standing offer coin coin coin").exit_code == 0

    played = _signed(db, keys, "carthage", "trade 3")

    assert played.exit_code == 0 and played.stdout.startswith(
        "    9  Carthage, the Trade Leader, plays the exchange marker for 3.\n"
        "   10  Trading: Rome, Greece, Carthage take part; Carthage claims first.\n"
        "   11  [standing] Greece placed 3 resources face down.\n")
    assert verified(db)


def test_K5_K6_the_service_still_answers_once_a_snapshot_is_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A snapshot after every batch: the game read back from it still has its pace and standing
    orders, so Greece's standing offer is applied after Carthage's signed block, as without one."""
    monkeypatch.setenv("MN_SNAPSHOT_EVERY", "1")
    db, keys = tmp_path / "mn.db", tmp_path / "keys"
    ok(db, "new", *THREE, "--seed", "orders", "--id", "g", "--keys-dir", str(keys), "--signed-only")
    assert _signed(db, keys, "greece", "standing offer coin coin coin").exit_code == 0
    store = open_store(str(db))

    assert _signed(db, keys, "carthage", "trade 3").exit_code == 0
    thawed = reading.current(store, "g")
    answered = writing.advance(store, "g")

    assert store.last_snapshot_seq("g") >= 10 and thawed.ledger.pbem
    assert [r.actor for r in rows(db)[10:]] == ["standing"] and answered == []


def test_K2_a_signed_consent_completes_the_undo(tmp_path: Path) -> None:
    """After the reveal, Carthage signs 'undo' (its request), Rome and Greece sign 'consent 12'; the
    last consent takes the batch back in its own batch."""
    db, keys = tmp_path / "mn.db", tmp_path / "keys"
    ok(db, "new", *THREE, "--seed", "orders", "--id", "g", "--keys-dir", str(keys))
    for side, line in [("carthage", "trade 3"), ("rome", "offer coin grain metal"),
                       ("greece", "offer coin coin coin"), ("carthage", "offer coin gold gold")]:
        assert _signed(db, keys, side, line).exit_code == 0

    asked = _signed(db, keys, "carthage", "undo")
    rome = _signed(db, keys, "rome", "consent 12")
    greece = _signed(db, keys, "greece", "consent 12")

    assert asked.stdout.startswith("   14  Carthage consents to undoing the batch of event 12 (ruling K2).\n")
    assert rome.exit_code == 0 and "took back" not in rome.stdout
    assert greece.stdout.startswith(
        "   16  Greece consents to undoing the batch of event 12 (ruling K2).\n"
        "   17  Carthage took back events 12 to 15, with the consent of Greece, Rome; replay skips "
        "them (ruling K1).\n")
    assert [p["empire"] for p in doc(db, "status", "g")["pending"]] == ["carthage"]
    assert verified(db)


def test_K1_a_snapshot_taken_before_an_undo_is_folded_past_correctly(
        offering: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Snapshots every 2 events: the state read from the last snapshot and the rows after it, an
    undo among them, is the state of the whole log folded without the events taken back."""
    monkeypatch.setenv("MN_SNAPSHOT_EVERY", "2")
    db = offering
    _all_offered(db)
    ok(db, "undo", "g", "--as", "carthage")
    ok(db, "consent", "g", "--as", "rome", "--batch", "11")
    ok(db, "consent", "g", "--as", "greece", "--batch", "11")
    store = open_store(str(db))

    assert store.last_snapshot_seq("g") > 11
    assert reading.current(store, "g").state == reading.load(store, "g").state
    assert reading.current(store, "g", 13).state == reading.load(store, "g", 13).state


def test_K2_a_draw_needs_consent_in_a_game_that_declares_nothing_revealed(tmp_path: Path) -> None:
    """The toy offers no Defaults: the kernel finds the clash's dice itself (decided again with no
    secret, it asks for one), so Red cannot take its clash back alone; its muster it can."""
    db = tmp_path / "toy.db"
    ok(db, "new", "--ruleset", "toy", "--empire", "red", "--empire", "blue", "--seed", "toy", "--id", "g")
    ok(db, "order", "g", "--as", "red", "muster ford")
    alone = ok(db, "undo", "g", "--as", "red")
    ok(db, "order", "g", "--as", "red", "muster ford")
    ok(db, "order", "g", "--as", "blue", "muster ford")
    clash = ok(db, "order", "g", "--as", "red", "clash ford")

    asked = ok(db, "undo", "g", "--as", "red")

    assert "took back" in alone and "rolled" in clash
    assert asked.endswith("needs the consent of Blue (ruling K2); each gives it with: mn consent g --as "
                          f"EMPIRE --batch {rows(db)[-2].batch}\n")
    assert verified(db)


def test_standing_orders_and_reasons_are_bounded_before_anything_is_written(db: Path) -> None:
    """A 3,000-character standing order, 65 lines of them, a year-and-a-day deadline: exit 2, nothing
    written."""
    before = len(rows(db))

    long_line = mn(db, "standing", "g", "--as", "rome", "x" * 3000)
    many = mn(db, "standing", "g", "--as", "rome", *["done"] * 65)
    slow = mn(db, "deadline", "g", "--hours", "8785")

    assert (long_line.exit_code, many.exit_code, slow.exit_code) == (2, 2, 2)
    assert long_line.stderr == "Error: standing order 1 is 3,000 characters long, more than 2,000\n"
    assert many.stderr == "Error: 65 standing orders: a side may leave 64 at most\n"
    assert slow.stderr == "Error: deadline of the game: 8785 hours is not 0 to 8784\n"
    assert len(rows(db)) == before


# --- queued orders (K9) -----------------------------------------------------------------------------

def test_K9_a_queued_order_waits_for_its_sides_decision_and_is_applied_as_written(db: Path) -> None:
    """Carthage plays the marker and offers, and queues its claims: nothing is applied while Rome and
    Greece offer; when Carthage must claim, its first queued line is applied, marked [queued]."""
    queued = ok(db, "order", "g", "--as", "carthage", "trade 3", "offer coin gold gold",
                "queue claim coin from rome", "queue claim gold from greece")
    ok(db, "order", "g", "--as", "rome", "offer coin grain grain")

    greece = ok(db, "order", "g", "--as", "greece", "offer coin coin coin")

    assert queued.splitlines()[3] == ("   10  Carthage queued for its coming decisions of round 1: claim coin "
                                      "from rome; claim gold from greece.")
    assert greece.splitlines()[2] == "   14  [queued] Carthage claimed Coin from Rome."
    assert rows(db)[13].actor == "queued"
    assert turns.queue_of(EMPIRES, rows(db), "carthage", 1) == ("claim gold from greece",)
    assert verified(db)


def test_K9_a_queued_order_refused_when_its_decision_comes_drops_the_queue_with_the_rule(db: Path) -> None:
    """Rome queued an offer of gold it does not hold: when it must offer, the queue is dropped (the
    line after it too) with the rule that refused it, and Rome is asked; Greece reads only that
    Rome's queued orders were dropped."""
    ok(db, "order", "g", "--as", "rome", "queue offer gold gold gold", "queue offer coin coin coin")

    ok(db, "order", "g", "--as", "carthage", "trade 3")

    assert ok(db, "log", "g", "--as", "rome", "--from", "10") == (
        "   10  [queued] Rome's queued order 'offer gold gold gold' is not legal now: Rome does not hold "
        "3 Gold behind its screen [rule empires:2.1]; it is dropped, with the 1 queued after it, and "
        "Rome decides itself (ruling K9).\n")
    assert ok(db, "log", "g", "--as", "greece", "--from", "7", "--to", "7") == (
        "    7  Rome queued orders for its coming decisions of round 1.\n")
    assert "Rome's queued orders were dropped: Rome decides itself (ruling K9)." in ok(
        db, "log", "g", "--as", "greece", "--from", "10")
    assert "rome" in [p["empire"] for p in doc(db, "status", "g")["pending"]]
    assert turns.queue_of(EMPIRES, rows(db), "rome", 1) == ()
    assert verified(db)


def test_K9_queue_lines_come_last_and_nothing_is_written_otherwise(db: Path) -> None:
    """An order given now after a queued one: exit 2, naming it and the ruling; nothing written."""
    before = len(rows(db))

    result = mn(db, "order", "g", "--as", "carthage", "trade 3", "queue offer coin gold gold", "offer coin")

    assert result.exit_code == 2
    assert result.stderr == ("Error: order 3 ('offer coin') is given now but comes after a queued order: "
                             "the queue lines come last (ruling K9)\n")
    assert len(rows(db)) == before


def test_K9_a_forced_decision_is_taken_and_the_queue_kept(db: Path) -> None:
    """With forced answers on, Carthage's queued claim of gold from Greece is refused when Carthage
    claims from Greece's coins alone: the forced claim is taken, the queue kept for its next claim."""
    ok(db, "deadline", "g", "--forced")
    ok(db, "order", "g", "--as", "carthage", "trade 3", "offer coin gold gold",
       "queue claim coin from rome", "queue claim gold from greece")
    ok(db, "order", "g", "--as", "rome", "offer coin grain grain")
    ok(db, "order", "g", "--as", "greece", "offer coin coin coin")

    out = ok(db, "order", "g", "--as", "rome", "claim gold from carthage")

    assert "[forced] Carthage claimed Coin from Greece." in out
    assert turns.queue_of(EMPIRES, rows(db), "carthage", 1) == ("claim gold from greece",)
    assert verified(db)


def test_K9_a_queue_lapses_when_its_round_ends(db: Path) -> None:
    """A queue is for the round it was given in: read in another round, it holds nothing."""
    ok(db, "order", "g", "--as", "rome", "queue offer coin coin coin")

    assert turns.queue_of(EMPIRES, rows(db), "rome", 1) == ("offer coin coin coin",)
    assert turns.queue_of(EMPIRES, rows(db), "rome", 2) == ()


def test_K9_a_queued_act_naming_a_line_that_was_not_queued_is_refused(db: Path) -> None:
    """A forged QueuedOrder naming a line Rome never queued, decided again as verify does: refused
    under K9."""
    store = open_store(str(db))
    ok(db, "order", "g", "--as", "rome", "queue offer coin grain grain")
    ok(db, "order", "g", "--as", "carthage", "trade 3")
    loaded = reading.load(store, "g")
    forged = [r for r in loaded.rows if r.actor == "queued"]

    with pytest.raises(CommandRejected) as refused:
        turns.decide(EMPIRES, reading.load(store, "g", forged[0].seq - 1).state,
                    QueuedOrder(side="rome", order="offer coin coin coin"), secret=None, draw_head="",
                    log=turns.Log(rows=loaded.rows[:forged[0].seq - 1], events=loaded.events[:forged[0].seq - 1]))

    assert forged[0].seq == 10
    assert refused.value.message == ("'offer coin coin coin' is not the first of Rome's queued orders "
                                     "[rule kernel:K9]")


def test_K4_what_the_service_answers_after_a_deadlines_act_is_recorded_at_the_ticks_time(db: Path) -> None:
    """A tick at a time of its own (mn tick --now: a cron run replayed, a trial) records the standing
    order it answers with next at that time too, not at the clock: the log's times do not go back, and
    no decision the answer opens starts before the act that led to it."""
    ok(db, "deadline", "g", "--hours", "48", "--forced", "--now", T0)
    ok(db, "standing", "g", "--as", "rome", "offer coin grain grain metal metal")

    out = ok(db, "tick", "g", "--now", "2030-01-04T00:00:00Z")

    assert "[standing] Rome offered 1 Coin, 2 Grain, 2 Metal face down." in out
    written = [r for r in rows(db) if r.actor in ("deadline", "standing") and r.type != "StandingOrdersSet"]
    assert [r.actor for r in written] == ["deadline", "deadline", "standing"]
    assert {r.recorded_at for r in written} == {"2030-01-04T00:00:00.000000+00:00"}
    assert verified(db)
