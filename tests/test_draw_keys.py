"""Draws nobody can foresee or steer in games with keys (rulings K10, K11, docs/security.md): the
host's schedule (which block first, a deadline or pace act slipped in, when it ticks) changes no
draw; a block's dice and those of the service's acts after it are a function of its signature;
under K11 what a phase's end draws (the 2003 game's battles as its military phase begins) is a
function of the game's progress, not of which block came last; verify recomputes them under the
scheme the log records, and logs made before K11 and K10 verify as they did."""

from __future__ import annotations

import hashlib
import json
import random
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import msgspec
import pytest
from click.testing import CliRunner, Result

import classic_signed
from mncli.cli import main
from mncore.audits.verify import verify_rows
from mncore.core.actors import SERVICE_ACTORS
from mncore.core.dice import Rng, seeded_secret
from mncore.core.kernel_acts import SignedOrders
from mncore.games import lifecycle, reading, writing
from mncore.games.log_reading import content_head, ruleset_of
from mncore.pbem import draw_keys, signing, trust
from mncore.rulesets.classic.flow import pending
from mncore.rulesets.classic.rules import military as classic_military
from mncore.store import Row, Store, open_store

THREE = ["--empire", "rome", "--empire", "greece", "--empire", "carthage"]
T0 = "2030-01-01T00:00:00+00:00"
LATE = "2100-01-01T00:00:00+00:00"
LATER = "2200-06-01T12:00:00+00:00"


def mn(db: Path, *args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(main, ["--db", str(db), *args], input=input)


def ok(db: Path, *args: str, input: str | None = None) -> str:
    result = mn(db, *args, input=input)
    assert result.exit_code == 0, result.output
    return result.stdout


def rows_of(db: Path, game_id: str) -> list[Row]:
    return open_store(str(db)).rows(game_id)


def head_of(db: Path, game_id: str) -> tuple[int, str]:
    last = rows_of(db, game_id)[-1]
    return last.seq, last.hash


def block(keys: Path, game_id: str, side: str, at: tuple[int, str], *orders: str, n: int = 0) -> str:
    """A block signed with the side's key file against `at`, with a fixed nonce (the same every run)."""
    key = signing.read_key_file(str(keys / f"{game_id}-{side}.key"))
    nonce = hashlib.sha256(f"{game_id}|{side}|{at[0]}|{n}".encode()).hexdigest()[:32]
    return signing.armour(signing.sign(key.private, game=game_id, side=side, seq=at[0], head=at[1],
                                       orders=orders, nonce=nonce))


def branch(db: Path, name: str) -> Path:
    """A copy of the host's database (its secret included), to play another schedule on."""
    out = db.parent / f"{name}.db"
    with sqlite3.connect(db) as src, sqlite3.connect(out) as dst:
        src.backup(dst)
    return out


def give(db: Path, game_id: str, text: str) -> None:
    ok(db, "order", game_id, "--signed", "-", input=text)


def keys_of(rows: Sequence[Row]) -> list[tuple[Row, str]]:
    """The first row of every batch of a log with the key its draws came from (mncore/pbem/draw_keys.py),
    under the scheme the log records."""
    ruleset = ruleset_of(rows[0].payload, "log")
    ledger = trust.ledger_of(ruleset, rows)
    return [(r, draw_keys.batch_key(ledger.draws, ruleset.decode_command(r.command), content_head(rows[:i]),
                                   rows[:i]))
            for i, r in enumerate(rows) if r.batch == r.seq and r.command is not None]


def service_acts(rows: Sequence[Row]) -> list[tuple[str, str, str, list[str]]]:
    """Each act of the service (actor, side, draw key, its events), in the order they were taken."""
    events: dict[int, list[str]] = {}
    for r in rows:
        events.setdefault(r.batch, []).append(r.payload)
    return [(r.actor, json.loads(r.command or "")["side"], key, events[r.seq])
            for r, key in keys_of(rows) if r.actor in SERVICE_ACTORS]


# --- Empires: three empires offer face down at once -----------------------------------------------

def empires(tmp_path: Path, name: str, *extra: str) -> tuple[Path, Path]:
    """A signed-only three-empire game with a pace (deadlines of an hour, forced answers taken)."""
    db, keys = tmp_path / f"{name}.db", tmp_path / f"keys-{name}"
    ok(db, "new", *THREE, "--seed", "draws", "--id", "g", "--display", "experienced", "--keys-dir",
       str(keys), "--signed-only", *extra)
    ok(db, "deadline", "g", "--hours", "1", "--forced", "--now", T0)
    return db, keys


def test_K11_new_games_with_keys_record_the_draw_scheme(tmp_path: Path) -> None:
    """mn new --keys-dir records draws = 2 (K11, the latest) in KeysPublished; mn status --json
    shows it."""
    db, _ = empires(tmp_path, "a")

    published = next(json.loads(r.payload) for r in rows_of(db, "g") if r.type == "KeysPublished")
    status = json.loads(ok(db, "status", "g", "--json"))

    assert published["draws"] == draw_keys.K11 == draw_keys.LATEST
    assert status["signing"]["draws"] == "k11"


def _carthage_queues(db: Path, keys: Path) -> tuple[int, str]:
    """Carthage plays the marker, offers, and queues its claims; the head after it."""
    give(db, "g", block(keys, "g", "carthage", head_of(db, "g"), "trade 3", "offer coin gold gold",
                        "queue claim coin from rome", "queue claim gold from greece"))
    return head_of(db, "g")


def _offers(db: Path, keys: Path, at: tuple[int, str]) -> tuple[str, str]:
    """Rome's and Greece's offers, both signed against the same head (offers are simultaneous)."""
    return (block(keys, "g", "rome", at, "offer coin grain grain"),
            block(keys, "g", "greece", at, "offer coin coin coin"))


def _play(db: Path, blocks: dict[str, str], schedule: Sequence[str]) -> list[tuple[str, str, str, list[str]]]:
    """The schedule's steps on db (a side's block, or the host's pace act); the service's acts."""
    for step in schedule:
        if step == "pace":
            ok(db, "deadline", "g", "--hours", "2", "--forced", "--now", T0)
        else:
            give(db, "g", blocks[step])
    return service_acts(rows_of(db, "g"))


SCHEDULES = [("rome", "greece"), ("greece", "rome"), ("rome", "pace", "greece")]


def _schedules(tmp_path: Path, name: str, *extra: str) -> list[list[tuple[str, str, str, list[str]]]]:
    """One game to where Rome and Greece must offer, then each schedule on a copy of its database."""
    db, keys = empires(tmp_path, name, *extra)
    at = _carthage_queues(db, keys)
    rome, greece = _offers(db, keys, at)
    return [_play(branch(db, f"{name}-{n}"), {"rome": rome, "greece": greece}, schedule)
            for n, schedule in enumerate(SCHEDULES)]


def test_K10_the_order_of_two_blocks_and_a_pace_act_between_them_change_no_service_draw(
        tmp_path: Path) -> None:
    """Rome's and Greece's offers applied A then B, B then A, and A, a pace act, B: Carthage's queued
    claim (the service's act after both) has the same draw key and events in all three; under the
    old scheme (the content head) the key moves with the schedule."""
    results = _schedules(tmp_path, "k10")
    legacy = _schedules(tmp_path, "legacy", "--draw-scheme", "legacy")

    assert results[0] and results[0][0][:2] == ("queued", "carthage")
    assert results[0] == results[1] == results[2]
    assert results[0][0][2].startswith("service:carthage:")
    assert len({acts[0][2] for acts in legacy}) == 3  # the old scheme: each schedule its own dice


TICKS = [(LATE, True, False), (LATER, False, False), (LATER, True, True)]  # when, Rome's block first, pace


def _ticks(tmp_path: Path, name: str, *extra: str) -> list[list[tuple[str, str, str, list[str]]]]:
    """Greece leaves its standing order `forced`; Rome offers, Greece never does; on copies of that game the host ticks at one time or another,
    before or after Rome's standing orders (a signed block that answers no decision), after a pace
    act of its own or not: the service's acts for Greece and Carthage in each."""
    db, keys = empires(tmp_path, name, *extra)
    give(db, "g", block(keys, "g", "greece", head_of(db, "g"), "standing forced"))
    at = _carthage_queues(db, keys)
    give(db, "g", _offers(db, keys, at)[0])
    outcomes = []
    for n, (when, standing_first, pace) in enumerate(TICKS):
        copy = branch(db, f"{name}-{n}")
        if standing_first:
            give(copy, "g", block(keys, "g", "rome", head_of(copy, "g"), "standing done", n=n))
        if pace:
            ok(copy, "deadline", "g", "--hours", "3", "--forced", "--now", T0)
        ok(copy, "tick", "g", "--now", when)
        if not standing_first:
            give(copy, "g", block(keys, "g", "rome", head_of(copy, "g"), "standing done", n=n))
        outcomes.append([a for a in service_acts(rows_of(copy, "g")) if a[1] != "rome"])
    return outcomes


def test_K10_a_tick_earlier_or_later_and_a_host_act_before_it_change_no_default_draw(
        tmp_path: Path) -> None:
    """Greece's default (the deadline's act) and Carthage's queued claim after it have the same
    draw keys and events however the host times its tick; under the old scheme they do not."""
    outcomes = _ticks(tmp_path, "k10")
    legacy = _ticks(tmp_path, "legacy", "--draw-scheme", "legacy")

    assert outcomes[0][0][:2] == ("deadline", "greece")
    assert outcomes[0][0][2].startswith("service:greece:")
    assert outcomes[0] == outcomes[1] == outcomes[2]
    assert len({acts[0][2] for acts in legacy}) > 1


# --- the toy: a queued clash rolls dice -----------------------------------------------------------------

def toy(tmp_path: Path, name: str, *extra: str) -> tuple[Path, Path]:
    db, keys = tmp_path / f"{name}.db", tmp_path / f"keys-{name}"
    ok(db, "new", "--ruleset", "toy", "--empire", "red", "--empire", "blue", "--seed", "toy", "--id",
       "t", "--keys-dir", str(keys), "--signed-only", *extra)
    return db, keys


def _clash(rows: Sequence[Row]) -> tuple[Row, dict[str, Any]]:
    found = next(r for r in rows if r.type == "ClashFought")
    return found, json.loads(found.payload)


def _red_queues(db: Path, keys: Path, nonce: int = 0) -> None:
    """Red musters to the ford and queues its clash there."""
    give(db, "t", block(keys, "t", "red", head_of(db, "t"), "muster ford", "queue clash ford", n=nonce))


def _blue_musters(db: Path, keys: Path, *, pace: bool) -> list[Row]:
    """Blue musters to the ford too (after a pace act of the host's, or not): Red's queued clash is
    then applied by the service, rolling dice."""
    if pace:
        ok(db, "deadline", "t", "--hours", "5", "--now", T0)
    give(db, "t", block(keys, "t", "blue", head_of(db, "t"), "muster ford"))
    return rows_of(db, "t")


def _with_and_without_pace(tmp_path: Path, name: str, *extra: str) -> tuple[list[Row], list[Row]]:
    db, keys = toy(tmp_path, name, *extra)
    _red_queues(db, keys)
    return (_blue_musters(branch(db, f"{name}-plain"), keys, pace=False),
            _blue_musters(branch(db, f"{name}-paced"), keys, pace=True))


def test_K10_a_queued_clash_rolls_the_same_dice_with_or_without_a_pace_act_before_it(
        tmp_path: Path) -> None:
    """The clash Red queued is rolled by the service (actor queued) from Red's block's signature:
    a pace act of the host's slipped in before Blue's block leaves its dice as they were; under
    the old scheme it moves its key."""
    plain, paced = _with_and_without_pace(tmp_path, "k10")
    old_plain, old_paced = _with_and_without_pace(tmp_path, "old", "--draw-scheme", "legacy")

    row, clash = _clash(plain)
    assert rows_of_actor(plain, row) == "queued"
    assert _clash(paced)[1] == clash
    assert keys_at(plain, row) == keys_at(paced, _clash(paced)[0])
    assert keys_at(old_plain, _clash(old_plain)[0]) != keys_at(old_paced, _clash(old_paced)[0])


def rows_of_actor(rows: Sequence[Row], row: Row) -> str:
    return rows[row.batch - 1].actor


def keys_at(rows: Sequence[Row], row: Row) -> str:
    """The key the draws of the batch holding `row` came from."""
    return next(key for first, key in keys_of(rows) if first.seq == row.batch)


def test_K10_a_host_with_a_copy_of_the_database_cannot_compute_the_dice_a_block_leads_to(
        tmp_path: Path) -> None:
    """The host copies its database (and so holds the secret) before Red's block arrives. Red may
    sign the same orders with any nonce: two such blocks, applied to two copies of that same
    database, key the dice of the clash the service applies after them differently; and the dice
    rolled are exactly Rng(secret, key of Red's signature). So they are a function of a signature
    the copy cannot produce, not of anything the host holds."""
    db, keys = toy(tmp_path, "real")
    copy = branch(db, "copy")

    _red_queues(db, keys, nonce=0)
    _red_queues(copy, keys, nonce=1)
    real, other = _blue_musters(db, keys, pace=False), _blue_musters(copy, keys, pace=False)

    for path, rows in ((db, real), (copy, other)):
        row, clash = _clash(rows)
        red = next(msgspec.json.decode(r.command or "", type=SignedOrders) for r in rows
                   if r.actor == "red" and r.command)
        rng = Rng(seeded_secret("toy"), f"service:red:{red.signature}:0")
        present = reading.load(open_store(str(path)), "t", row.seq - 1).state.present("ford")
        assert rows_of_actor(rows, row) == "queued"
        assert clash["rolls"] == {s: rng.roll((1, 2, 3, 4, 5, 6)) for s in present}
    # two dice may still agree by chance (1 in 36): what differs for certain is the key they come from
    assert keys_at(real, _clash(real)[0]) != keys_at(other, _clash(other)[0])


# --- verify: the scheme the log records ---------------------------------------------------------------

def _revealed_toy(tmp_path: Path) -> tuple[Path, list[Row]]:
    db, keys = toy(tmp_path, "revealed")
    _red_queues(db, keys)
    _blue_musters(db, keys, pace=True)
    ok(db, "reveal", "t", "--force")
    return db, rows_of(db, "t")


def test_K10_verify_recomputes_every_service_draw_after_the_reveal(tmp_path: Path) -> None:
    """mn verify of a K10 game, its secret revealed: every draw recomputes, exit 0."""
    db, _ = _revealed_toy(tmp_path)

    out = ok(db, "verify", "t")

    assert "every random outcome recomputes" in out
    assert "draws are keyed under ruling K10" in out


def _forged(rows: list[Row], seq: int, payload: str) -> list[Row]:
    out = [msgspec.structs.replace(r, payload=payload) if r.seq == seq else r for r in rows]
    return lifecycle.rechain(out, 2)


def test_K10_verify_fails_on_a_forged_draw_of_a_service_act(tmp_path: Path) -> None:
    """The queued clash's rolls changed in the database and the chain rehashed (a host rewriting its
    own log): mn verify names that event and exits 4."""
    db, rows = _revealed_toy(tmp_path)
    row, clash = _clash(rows)
    rolls = {s: 7 - v for s, v in clash["rolls"].items()}
    store = open_store(str(db))
    store.rewrite_log("t", (rows[-1].seq, rows[-1].hash),
                      _forged(rows, row.seq, json.dumps({**clash, "rolls": rolls}, separators=(",", ":"))), 2)

    result = mn(db, "verify", "t")

    assert result.exit_code == 4
    assert f"event {row.seq}" in result.output and "differs from what its command produces" in result.output


def test_K10_the_scheme_a_log_records_is_bound_by_every_signed_block_after_it(tmp_path: Path) -> None:
    """The same K10 log with its recorded scheme taken out of KeysPublished (and of PublishKeys),
    the chain rehashed so that the draws would be checked under the old scheme: the first signed
    block after it no longer answers an event of this log (its signed head named the scheme), so
    verify fails there and the host cannot swap the scheme of a game under way."""
    _, rows = _revealed_toy(tmp_path)
    published = next(r for r in rows if r.type == "KeysPublished")
    event = {k: v for k, v in json.loads(published.payload).items() if k != "draws"}
    command = {k: v for k, v in json.loads(published.command or "").items() if k != "draws"}
    edited = [msgspec.structs.replace(r, payload=json.dumps(event, separators=(",", ":")),
                                      command=json.dumps(command, separators=(",", ":")))
              if r.seq == published.seq else r for r in rows]
    first_block = next(r for r in rows if r.actor == "red")

    report = verify_rows(lifecycle.rechain(edited, 2), 2)

    assert report.first_bad == first_block.seq
    assert "the block answers event" in (report.reason or "")


@pytest.mark.parametrize("fixture", ["pbem-4.jsonl", "game-6-1.jsonl"])
def test_logs_made_before_K10_still_verify_under_their_own_scheme(fixture: str, tmp_path: Path) -> None:
    """The golden mailed game (signed, keys without a draw scheme: the old one) and a game without
    keys verify as they did: every draw recomputes."""
    path = Path(__file__).parent.parent / "fixtures" / fixture

    result = mn(tmp_path / "v.db", "verify", str(path))

    assert result.exit_code == 0, result.output
    assert "every random outcome recomputes" in result.stdout


def test_a_draw_scheme_this_engine_does_not_know_is_refused(tmp_path: Path) -> None:
    """PublishKeys with draws = 7: refused, naming the schemes known; verify fails such a log."""
    db, _ = toy(tmp_path, "seven")
    rows = rows_of(db, "t")
    published = next(r for r in rows if r.type == "KeysPublished")
    event = {**json.loads(published.payload), "draws": 7}
    command = {**json.loads(published.command or ""), "draws": 7}
    edited = [msgspec.structs.replace(r, payload=json.dumps(event, separators=(",", ":")),
                                      command=json.dumps(command, separators=(",", ":")))
              if r.seq == published.seq else r for r in rows]

    report = verify_rows(lifecycle.rechain(edited, 2), 2)

    assert report.first_bad == published.seq
    assert "draw scheme 7 is not one this engine knows" in (report.reason or "")


def test_K10_a_correction_cannot_re_roll_a_service_act(tmp_path: Path) -> None:
    """The host takes back Red's queued clash with a correction (K3); the service applies the queued
    clash again, and it rolls the very dice it rolled before: the act taken back is not counted."""
    db, keys = toy(tmp_path, "corrected")
    _red_queues(db, keys)
    before = _blue_musters(db, keys, pace=False)
    row, clash = _clash(before)

    ok(db, "correct", "t", "--batch", str(row.batch), "--reason", "re-rolling, to see if it can")

    after = rows_of(db, "t")
    again = [r for r in after if r.type == "ClashFought"]
    assert len(again) == 2 and again[1].seq > row.seq
    assert after[again[1].batch - 1].actor == "queued"
    assert json.loads(again[1].payload) == clash
    assert keys_at(after, again[1]) == keys_at(before, row)
    assert mn(db, "verify", "t").exit_code == 0


def _row(seq: int, actor: str, command: dict[str, Any] | None, type_: str = "Happened",
         payload: dict[str, Any] | None = None) -> Row:
    return Row(seq=seq, type=type_, payload=json.dumps(payload or {"type": type_}), recorded_at=T0,
               actor=actor, command=json.dumps(command) if command else None, batch=seq, hash="")


def test_K10_the_index_counts_the_sides_answers_in_play_since_its_last_block() -> None:
    """service_key: Red's last signed block, then the service's answers for Red after it: a forced
    answer and a standing order count, a queue dropped (it answers nothing), Blue's acts, the
    host's pace and an act taken back by a correction do not."""
    log = [_row(1, "red", {"type": "SignedOrders", "side": "red", "signature": "aa"}),
           _row(2, "red", {"type": "SignedOrders", "side": "red", "signature": "bb"}),
           _row(3, "forced", {"type": "ForcedOrders", "side": "red"}),
           _row(4, "queued", {"type": "DropQueue", "side": "red"}),
           _row(5, "host", {"type": "SetPace", "hours": 1}),
           _row(6, "deadline", {"type": "DefaultOrders", "side": "blue"}),
           _row(7, "standing", {"type": "StandingOrder", "side": "red"}),
           _row(8, "deadline", {"type": "DefaultOrders", "side": "red"}),
           _row(9, "host", {"type": "CorrectBatch", "batch": 8}, "Corrected",
                {"type": "Corrected", "batch": 8, "through": 8, "reason": "r"})]

    assert draw_keys.service_key(log, "red") == "service:red:bb:2"
    assert draw_keys.service_key(log[:2], "red") == "service:red:bb:0"
    assert draw_keys.service_key(log, "blue") == "service:blue:-:1"


def test_a_draw_scheme_for_a_game_without_keys_is_bad_input(tmp_path: Path) -> None:
    """mn new --draw-scheme without keys: exit 2, one Error line, no database written."""
    db = tmp_path / "none.db"

    result = mn(db, "new", *THREE, "--draw-scheme", "legacy")

    assert result.exit_code == 2
    assert "--draw-scheme is the scheme of a game with keys" in result.output
    assert "Traceback" not in result.output and not db.exists()


# --- K11: what follows a phase's end, in the 2003 game ------------------------------------------------

@pytest.fixture
def frozen(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every row recorded at T0: the heads the scripted players sign, and so the game's course, are
    the same on every run."""
    monkeypatch.setattr(reading, "utc_now", lambda: T0)


def _offering(state: Any) -> bool:
    """Two civilisations or more are to offer face down at once."""
    return sum(p.kind == "offer" for p in pending(state)) >= 2


def _settle_battles(rows: Sequence[Row], after: int = 0) -> tuple[Row, list[Row]]:
    """The first batch after event `after` whose settle step fought battles, and those battles."""
    found = _find_settle_battles(rows, after)
    assert found is not None, "no battle fought as a military phase began"
    return found


def _find_settle_battles(rows: Sequence[Row], after: int = 0) -> tuple[Row, list[Row]] | None:
    """As _settle_battles (a turn order known, then battles: a military phase's start, 6.10), or None."""
    for r in rows:
        if r.batch == r.seq and r.seq > after:
            batch = [x.type for x in rows if x.batch == r.seq]
            if "TurnOrder" in batch and "GroundBattle" in batch[batch.index("TurnOrder"):]:
                return r, [x for x in rows if x.batch == r.seq and x.type == "GroundBattle"]
    return None


def _settle_key(store: Store, rows: Sequence[Row], first: Row) -> str:
    """What K11 keys the batch's settle step by: the round and phase it starts in, and the players'
    order batches in play before it."""
    state = reading.load(store, "c", first.seq - 1).state
    return f"settle:{state.round}:{state.phase}:{draw_keys.orders_before(rows[:first.seq - 1])}"


def _to_offers_before_battle(tmp_path: Path, draws: int) -> tuple[Path, random.Random]:
    """The scripted 2003 game played to its first battle fought as a military phase began; a copy
    of its database as it was when, in that round, two civilisations were to offer at once, and the
    scripted players' dice for the rest (their random choices) as they were then."""
    db = tmp_path / f"classic-{draws}.db"
    store, loaded = classic_signed.new_game(db, draws)
    rand, n, saved = random.Random(classic_signed.SEED), 0, {}
    while (found := _find_settle_battles(store.rows("c"))) is None:
        assert loaded.state.winner is None, "the game ended without a battle at a military phase's start"
        loaded = classic_signed.play_until(store, loaded, _offering, rand, start=n)
        saved[loaded.state.round] = (branch(db, f"offers-{draws}-{loaded.state.round}"), rand.getstate())
        loaded = classic_signed.play_until(store, loaded, _next_round(loaded.state.round), rand, start=n + 1000)
        n += 2000
    copy, state = saved[reading.load(store, "c", found[0].seq).state.round]
    again = random.Random()
    again.setstate(state)
    return copy, again


def _next_round(now: int) -> Callable[[Any], bool]:
    return lambda state: bool(state.round > now)


def _play_on(db: Path, name: str, blocks: Sequence[SignedOrders], rand: random.Random) -> tuple[Store, list[Row]]:
    """On a copy of db, the blocks in order, then the scripted game on to its first battle at a
    military phase's start."""
    copy = open_store(str(branch(db, name)))
    there = reading.load(copy, "c")
    seq = there.head[0]
    for b in blocks:
        there = writing.give(copy, there, b, answer=False).after

    classic_signed.play_until(copy, there, lambda _: _find_settle_battles(copy.rows("c"), seq) is not None,
                              rand, start=50000)
    return copy, copy.rows("c")


def _classic_offers(db: Path, rand: random.Random) -> list[SignedOrders]:
    """The two civilisations' offers, signed against the same head."""
    store = open_store(str(db))
    loaded = reading.load(store, "c")
    a, b = sorted({p.empire for p in pending(loaded.state) if p.kind == "offer"})[:2]
    return [classic_signed.block(loaded, civ, [classic_signed.line_for(loaded.state, civ, rand)], 40000 + i)
            for i, civ in enumerate((a, b))]


def _classic_schedules(tmp_path: Path, draws: int) -> list[tuple[Store, list[Row]]]:
    """The two offers applied A then B and B then A, each schedule played on to the battle."""
    db, rand = _to_offers_before_battle(tmp_path, draws)
    state = rand.getstate()
    a, b = _classic_offers(db, rand)
    out = []
    for name, order in (("ab", (a, b)), ("ba", (b, a))):
        rand.setstate(state)
        _classic_offers(db, rand)  # the same choices consumed in each schedule
        out.append(_play_on(db, f"{name}-{draws}", order, rand))
    return out


def test_K11_the_2003_games_battles_at_the_military_phases_start_are_the_same_whichever_offer_came_last(
        tmp_path: Path, frozen: None) -> None:
    """Two civilisations' face-down offers applied A then B and B then A: the battles drawn as a
    military phase begins are the same, and exactly those of Rng(secret, settle:R:P:M); under K10
    they were drawn from the key of the block whose settle step fought them, which is signed
    against another head in each schedule (so each schedule its own key)."""
    (store, ab), (store_ba, ba) = _classic_schedules(tmp_path, draw_keys.K11)
    (_, old_ab), (_, old_ba) = _classic_schedules(tmp_path, draw_keys.K10)

    (first, battles), (first_ba, battles_ba) = _settle_battles(ab), _settle_battles(ba)
    assert battles and [r.payload for r in battles] == [r.payload for r in battles_ba]
    assert _settle_key(store, ab, first) == _settle_key(store_ba, ba, first_ba)
    assert keys_at(ab, first) != keys_at(ba, first_ba)  # the batch's own key moved
    assert _redrawn(store, ab, first) == [json.loads(r.payload) for r in battles]
    assert keys_at(old_ab, _settle_battles(old_ab)[0]) != keys_at(old_ba, _settle_battles(old_ba)[0])


def _redrawn(store: Store, rows: Sequence[Row], first: Row) -> list[dict[str, Any]]:
    """The battles the military phase's start fights, on the state they were fought in, drawn from
    the K11 settle key: the stored ones, if the log keyed them so."""
    battle = next(r for r in rows if r.batch == first.seq and r.type == "GroundBattle")
    state = reading.load(store, "c", battle.seq - 1).state
    events = classic_military.begin(state, Rng(seeded_secret(classic_signed.SEED),
                                               _settle_key(store, rows, first)))
    return [json.loads(msgspec.json.encode(e)) for e in events]


def _standing_first_or_last(tmp_path: Path, draws: int) -> list[tuple[Store, list[Row]]]:
    """From the offers before the battle, on one copy another civilisation's signed standing
    orders (a block that answers no decision) applied first, on the other once the battles are
    fought."""
    db, rand = _to_offers_before_battle(tmp_path, draws)
    state = rand.getstate()
    store = open_store(str(db))
    loaded = reading.load(store, "c")
    other = loaded.state.civs[-1]
    standing = classic_signed.block(loaded, other, ["standing done"], 30000)
    first = _play_on(db, f"standing-first-{draws}", [standing], rand)
    rand.setstate(state)
    copy, _ = _play_on(db, f"standing-last-{draws}", [], rand)
    there = reading.load(copy, "c")
    writing.give(copy, there, classic_signed.block(there, other, ["standing done"], 30001), answer=False)
    return [first, (copy, copy.rows("c"))]


def test_K11_an_unrelated_signed_block_before_or_after_the_phases_end_moves_no_battle_die(
        tmp_path: Path, frozen: None) -> None:
    """Another civilisation's standing orders applied before the blocks that end the phase, or
    after the battles: the same battles, the same settle key (a block of standing orders is not
    counted), though the batch's own key moved (it answers another head)."""
    (store, before), (store_after, after) = _standing_first_or_last(tmp_path, draw_keys.K11)

    (first, battles), (first_after, battles_after) = _settle_battles(before), _settle_battles(after)
    assert battles and [r.payload for r in battles] == [r.payload for r in battles_after]
    assert _settle_key(store, before, first) == _settle_key(store_after, after, first_after)
    assert keys_at(before, first) != keys_at(after, first_after)
    assert any(r.type == "StandingOrdersSet" and r.seq < first.seq for r in before)
    assert any(r.type == "StandingOrdersSet" and r.seq > first_after.seq for r in after)


def _revealed_classic(tmp_path: Path, draws: int) -> tuple[Store, list[Row]]:
    store, _ = _classic_schedules(tmp_path, draws)[0]
    lifecycle.reveal(store, "c", force=True)
    return store, store.rows("c")


@pytest.mark.parametrize("draws", [draw_keys.K11, draw_keys.K10])
def test_K11_and_K10_logs_of_the_2003_game_verify_every_draw_under_their_own_scheme(
        draws: int, tmp_path: Path, frozen: None) -> None:
    """The same scripted 2003 game recorded under K11 and under K10, its secret revealed: each
    verifies, every draw recomputed under the scheme its log records (K10's battles from the
    stream of the batch that fought them, K11's from the settle key)."""
    _, rows = _revealed_classic(tmp_path, draws)

    report = verify_rows(rows, 2)

    assert report.first_bad is None, report.reason
    assert report.secret_revealed and report.draws == draws


def test_K11_verify_fails_on_a_forged_battle_die_drawn_as_the_military_phase_began(
        tmp_path: Path, frozen: None) -> None:
    """One die of a battle fought as a military phase began (a settle step's draw under K11)
    changed and the chain rehashed: verify stops at that event."""
    _, rows = _revealed_classic(tmp_path, draw_keys.K11)
    first, battles = _settle_battles(rows)
    doc = json.loads(battles[0].payload)
    civ = doc["attacker"]
    doc["rolls"][civ] = [7 - v for v in doc["rolls"][civ]]

    report = verify_rows(_forged(rows, battles[0].seq, json.dumps(doc, separators=(",", ":"))), 2)

    assert first.seq <= battles[0].seq and report.first_bad == battles[0].seq
    assert "differs from what its command produces" in (report.reason or "")


def test_K11_the_count_holds_the_players_order_batches_in_play_and_nothing_the_host_gives() -> None:
    """orders_before: a block giving orders now and the service's answers count; a block of only
    standing orders, of only queued lines or an undo, a dropped queue, the host's acts (pace, a
    correction, an unsigned order) and a batch taken back do not."""
    log = [_row(1, "red", {"type": "SignedOrders", "side": "red", "orders": ["muster ford", "queue clash ford"]}),
           _row(2, "blue", {"type": "SignedOrders", "side": "blue", "orders": ["standing pass"]}),
           _row(3, "blue", {"type": "SignedOrders", "side": "blue", "orders": ["queue pass"]}),
           _row(4, "host", {"type": "SetPace", "hours": 1}),
           _row(5, "queued", {"type": "DropQueue", "side": "blue"}),
           _row(6, "forced", {"type": "ForcedOrders", "side": "blue"}),
           _row(7, "host", {"type": "OrderBatch", "side": "red", "orders": ["pass"]}),
           _row(8, "queued", {"type": "QueuedOrder", "side": "red"}),
           _row(9, "host", {"type": "CorrectBatch", "batch": 8}, "Corrected",
                {"type": "Corrected", "batch": 8, "through": 8, "reason": "r"}),
           _row(10, "red", {"type": "SignedOrders", "side": "red", "orders": ["undo"]})]

    assert draw_keys.orders_before(log) == 2
    assert draw_keys.orders_before(log[:8]) == 3
    given = SignedOrders(game="t", side="red", seq=1, head="", key="", nonce="", orders=("pass",), signature="")
    standing = msgspec.structs.replace(given, orders=("standing pass",))
    source = draw_keys.settle_source(draw_keys.K11, given, log)
    assert source is not None and source() == 2
    assert draw_keys.settle_source(draw_keys.K10, given, log) is None  # older logs draw as they did
    assert draw_keys.settle_source(draw_keys.K11, standing, log) is None


def test_K11_a_batchs_settling_generator_is_keyed_by_label_and_count_and_never_drawn_twice() -> None:
    """Rng.settling: under K11 the stream of settle:LABEL:N, the same generator (its counter running
    on) for the same label in one batch; without a count (older schemes, the host's acts) the
    batch's own generator, so that those logs draw as they did."""
    secret = seeded_secret("settling")
    keyed = Rng(secret, "signed:abc", lambda: 3)
    plain = Rng(secret, "signed:abc")
    expected = Rng(secret, "settle:4:trade:3")

    first = keyed.settling("4:trade")
    draws = [first.below(1000) for _ in range(3)]

    assert keyed.settling("4:trade") is first
    assert draws + [keyed.settling("4:trade").below(1000)] == [expected.below(1000) for _ in range(4)]
    assert keyed.counter == 0  # the batch's own stream untouched
    assert plain.settling("4:trade") is plain
