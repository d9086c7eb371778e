"""Snapshots: a cache of the folded state along a log, never trusted over the log, never verified from,
checked against it by mn verify (over both stores)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from msgspec.structs import replace

from golden import GAMES, play, without_clock
from mncli.cli import main
from mncore.audits import snapshots
from mncore.games import lifecycle, reading, transfer
from mncore.pbem import trust
from mncore.store import is_postgres, open_store

CONDITIONS = sorted(GAMES)
PLAYED = "6.1"  # the shortest scripted game to its end


def _mn(db: str, *args: str) -> str:
    result = CliRunner().invoke(main, ["--db", db, *args])
    assert result.exit_code == 0, result.output
    return result.stdout


def _played(db: str, every: int, monkeypatch: pytest.MonkeyPatch) -> reading.Loaded:
    monkeypatch.setenv("MN_SNAPSHOT_EVERY", str(every))
    seed, players, style = GAMES[PLAYED]
    return play(db, "g", seed, players, style)


def _export(loaded: reading.Loaded) -> bytes:
    return b"".join(line + b"\n" for line in transfer.export_lines(loaded))


def _sql(db: str, sql: str) -> list[tuple[object, ...]]:
    """Raw SQL on either store's database, as a hand editing it would."""
    if is_postgres(db):
        import psycopg
        with psycopg.connect(db, autocommit=True) as pg:
            cur = pg.execute(sql)
            return cur.fetchall() if cur.description else []
    conn = sqlite3.connect(db)
    try:
        with conn:
            return conn.execute(sql).fetchall()
    finally:
        conn.close()


# a blob literal as each dialect writes it
_BLOB = {"sqlite": "x'00ff'", "postgresql": "'\\x00ff'::bytea"}
_BYTE = {"sqlite": "x'00'", "postgresql": "'\\x00'::bytea"}


def _answers(db: str) -> list[str]:
    """What the fast-path commands say of game g at its head."""
    return [_mn(db, "status", "g", "--json"), _mn(db, "status", "g"), _mn(db, "show", "g", "--json"),
            _mn(db, "show", "g", "--as", "rome", "--json"), _mn(db, "options", "g", "--as", "rome")]


@pytest.mark.slow
@pytest.mark.parametrize("condition", CONDITIONS)
def test_a_golden_game_played_with_snapshots_every_few_events_is_the_game_played_without(
        condition: str, new_db: Callable[[str], str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Snapshots every 7 events change no event, no export and no state of a golden game."""
    seed, players, style = GAMES[condition]
    monkeypatch.setenv("MN_SNAPSHOT_EVERY", "0")
    without = play(new_db("without"), "g", seed, players, style)
    monkeypatch.setenv("MN_SNAPSHOT_EVERY", "7")
    with_ = play(new_db("with"), "g", seed, players, style)

    store = open_store(new_db("with"))
    fast = reading.current(store, "g")
    assert store.last_snapshot_seq("g") > 0
    assert without_clock(_export(with_)) == without_clock(_export(without))
    assert fast.state == with_.state == without.state
    assert (fast.head, fast.draw_head, fast.batches) == (with_.head, with_.draw_head, reading._batches(with_))
    assert fast.ledger == trust.ledger_of(with_.ruleset, with_.rows)
    assert snapshots.check_snapshots(store, "g") == snapshots.SnapshotCheck(checked=2)
    for upto in (1, 8, 100, 333):
        assert reading.current(store, "g", upto).state == reading.load(store, "g", upto).state


@pytest.mark.slow
def test_a_corrupted_or_mismatched_snapshot_is_ignored_and_commands_answer_from_the_log(
        new_db: Callable[[str], str], store_kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Status, show and options answer the same from a good snapshot, a damaged one, one whose head
    no longer matches, one of another engine, and none at all; the next append writes a good one."""
    db = new_db("g")
    _played(db, 50, monkeypatch)
    assert _sql(db, "select count(*) from snapshots") != [(0,)]
    good = _answers(db)

    for damage in (f"update snapshots set state = {_BLOB[store_kind]}",
                   f"update snapshots set state = substr(state, 1, length(state) - 1) || {_BYTE[store_kind]}",
                   "update snapshots set head_hash = 'ab' || substr(head_hash, 3)",
                   "update snapshots set engine = 'mncore 0.0.0; elsewhere@1'",
                   "update snapshots set batches = batches + 1",
                   "delete from snapshots"):
        _sql(db, damage)
        assert reading.current(open_store(db), "g").snapshot_seq == 0, damage
        assert _answers(db) == good, damage


@pytest.mark.slow
def test_a_golden_games_snapshots_all_match_and_a_forged_one_fails_verify(
        new_db: Callable[[str], str], monkeypatch: pytest.MonkeyPatch) -> None:
    """mn verify never folds from a snapshot but checks each against its replay: a golden game's
    all match; one of another state (well formed, its digest made anew) fails it, naming its seq,
    while mn status, which trusts the cache, shows that state."""
    db = new_db("g")
    _played(db, 50, monkeypatch)
    before = _mn(db, "verify", "g")
    store = open_store(db)
    seq = store.last_snapshot_seq("g")
    assert before.endswith("  - snapshots: 2 checked against the log, all match\n")
    assert "every random outcome recomputes" in before
    status = _mn(db, "status", "g")
    _forge(db, seq, 3)

    assert _mn(db, "status", "g") != status
    result = _run(db, "verify", "g")
    assert (result.exit_code, result.stdout) == (4, before.replace("2 checked against the log, all match",
                                                                   "2 checked against the log, 1 do not match"))
    assert result.stderr.startswith(f"game g: FAILED: the snapshot at event {seq} does not match the log "
                                    "(state differs)")


def _run(db: str, *args: str) -> Result:
    return CliRunner().invoke(main, ["--db", db, *args])


def _forge(db: str, seq: int, at: int) -> None:
    """Write the state at event `at` into the snapshot at `seq`, its digest made anew, as one who
    can write the database would."""
    store = open_store(db)
    snap = store.snapshot_at("g", seq)
    assert snap is not None
    cur = reading.current(store, "g", at)
    forged = replace(snap, state=cur.ruleset.encode_state(cur.state), nonces=store.snapshot_nonces("g", seq) or "")
    store.put_snapshot("g", replace(forged, digest=reading._digest(forged)))


def _toy(db: str, monkeypatch: pytest.MonkeyPatch, every: int = 1) -> None:
    """A toy game g of 7 events whose two last appends each wrote a snapshot (at 5 and 7)."""
    monkeypatch.setenv("MN_SNAPSHOT_EVERY", str(every))
    _mn(db, "new", "--ruleset", "toy", "--empire", "red", "--empire", "blue", "--player", "red=Ann",
        "--player", "blue=Ben", "--seed", "toy", "--id", "g")
    _mn(db, "order", "g", "--as", "red", "muster ford")
    _mn(db, "order", "g", "--as", "blue", "muster ford")


_VERIFIED = """game g: verified, 7 events
  - the hash chain of all 7 events is intact, log format v2 covering whole rows (head {head})
  - it holds the head hash given by the database's head record
  - the whole log replays under the ruleset it was created with
  - 2 commands decided again give exactly the stored events, each given by the side its row names
  - 2 hidden fields are hashed as salted commitments, each opened by its salt
  - 1 commands that drew at random cannot be checked until the secret is revealed (mn reveal)
"""


def _verified(db: str) -> str:
    """What mn verify says of the toy game g's log (its head hash depends on the clock)."""
    return _VERIFIED.format(head=open_store(db).head("g")[1][:16])


_FORGED = ("game g: FAILED: the snapshot at event 7 does not match the log (state differs): the database was "
           "edited; mn status, show, options and orders read the game from it, so they would show and "
           "decide on that forged state, while the log itself verifies; ")


def test_an_honest_games_snapshots_all_match_the_log(new_db: Callable[[str], str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """mn verify GAME replays the log once and finds each snapshot's state, ledger, draw head and
    batches at its seq; with no snapshot it says none."""
    db = new_db("g")
    _toy(db, monkeypatch)
    assert [s.seq for s in open_store(db).snapshots("g")] == [5, 7]

    result = _run(db, "verify", "g")

    assert (result.exit_code, result.stdout) == (0, _verified(db) + "  - snapshots: 2 checked against the log, all match\n")
    _sql(db, "delete from snapshots")
    assert _mn(db, "verify", "g") == _verified(db) + "  - snapshots: none\n"


def test_a_forged_snapshot_with_a_good_digest_fails_verify_naming_its_seq_while_status_shows_it(
        new_db: Callable[[str], str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 11: a snapshot is never trusted over the log. One whose digest holds but whose state is
    not the log's is what mn status shows (its limit: docs/security.md), and mn verify fails on it
    (exit 4) naming its seq and what differs; --drop-bad-snapshots deletes it."""
    db = new_db("g")
    _toy(db, monkeypatch)
    honest = _mn(db, "status", "g")
    _forge(db, 7, 5)

    forged_status = _mn(db, "status", "g")
    result = _run(db, "verify", "g")
    as_json = _run(db, "verify", "g", "--json")

    assert "clash phase" in honest and "muster phase" in forged_status
    assert (result.exit_code, result.stdout) == (4, _verified(db) + "  - snapshots: 2 checked against the log, 1 do not match\n")
    assert result.stderr == _FORGED + "`mn verify g --drop-bad-snapshots` deletes it\n"
    doc = json.loads(as_json.stdout)
    assert (as_json.exit_code, doc["ok"], doc["first_bad"], doc["snapshots"]) == (4, False, None, {
        "checked": 2, "other_engine": 0, "unusable": 0, "mismatched": [{"seq": 7, "differs": ["state"]}],
        "dropped": []})

    dropped = _run(db, "verify", "g", "--drop-bad-snapshots")
    assert (dropped.exit_code, dropped.stderr) == (4, _FORGED + "it was deleted: commands now fold the log instead\n")
    assert _mn(db, "status", "g") == honest
    assert _mn(db, "verify", "g") == _verified(db) + "  - snapshots: 1 checked against the log, all match\n"


def test_snapshots_after_an_undo_match_the_log_folded_without_the_event_taken_back(
        new_db: Callable[[str], str], monkeypatch: pytest.MonkeyPatch) -> None:
    """K1: an event taken back is left out of the state a snapshot caches; verify's replay, which
    streams every event, folds such a log again from the start, as reading.current does."""
    db = new_db("g")
    monkeypatch.setenv("MN_SNAPSHOT_EVERY", "1")
    _mn(db, "new", "--ruleset", "toy", "--empire", "red", "--empire", "blue", "--player", "red=Ann",
        "--player", "blue=Ben", "--seed", "toy", "--id", "g")
    _mn(db, "order", "g", "--as", "red", "muster ford")
    _mn(db, "undo", "g", "--as", "red")
    _mn(db, "order", "g", "--as", "red", "muster ford")
    _mn(db, "order", "g", "--as", "blue", "muster ford")

    check = snapshots.check_snapshots(open_store(db), "g")

    assert [s.seq for s in open_store(db).snapshots("g")] == [7, 9]
    assert check == snapshots.SnapshotCheck(checked=2)
    assert _mn(db, "verify", "g").endswith("  - snapshots: 2 checked against the log, all match\n")


def test_a_game_loads_when_an_event_after_an_undo_could_not_follow_the_events_taken_back(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """K1: reading.current folds a log with an undo again from the start, without the events taken back,
    and does not first fold the events after the undo onto them: a ruleset whose evolve trusts the
    live log (Empires' legendary pile: a commodity drawn again once back in the pile) loads, as verify
    replays it. Here evolve refuses a screen gone negative, which only the events taken back cause."""
    from mncore.rulesets.empires.seam import RULESET as EMPIRES

    evolve = EMPIRES.evolve

    def strict(state: Any, event: Any) -> Any:
        after = evolve(state, event)
        if any(n < 0 for es in after.empires.values() for n in es.resources.values()):
            raise ValueError("a screen went negative")
        return after

    db = str(tmp_path / "undo.db")
    _mn(db, "new", "--empire", "rome", "--empire", "greece", "--empire", "carthage", "--id", "g",
        "--seed", "orders")
    _mn(db, "order", "g", "--as", "carthage", "trade 3", "offer coin gold gold")  # its one coin
    _mn(db, "undo", "g", "--as", "carthage")
    _mn(db, "order", "g", "--as", "carthage", "trade 3", "offer coin gold oil")  # the same coin again
    monkeypatch.setattr(EMPIRES, "evolve", strict)  # the kit sets the fold on the instance

    state = reading.current(open_store(db), "g").state

    assert state.step.offers["carthage"] == {"coin": 1, "gold": 1, "oil": 1}
    assert _mn(db, "verify", "g").startswith("game g: verified")


@pytest.mark.parametrize("edit, differs", [
    ("update snapshots set batches = batches + 1 where seq = 7", ["batches"]),
    ("update snapshots set draw_head = 'ab' || substr(draw_head, 3) where seq = 7", ["draw head"]),
    ("update snapshots set ledger = '{\"pbem\":true}' where seq = 7", ["ledger"]),
])
def test_each_part_of_a_snapshot_is_held_to_the_log(new_db: Callable[[str], str], monkeypatch: pytest.MonkeyPatch,
                                                    edit: str, differs: list[str]) -> None:
    """Ledger, draw head and batches are checked as the state is: an edit with its digest made anew
    is named."""
    db = new_db("g")
    _toy(db, monkeypatch)
    _sql(db, edit)
    store = open_store(db)
    snap = store.snapshot_at("g", 7)
    assert snap is not None
    store.put_snapshot("g", replace(snap, digest=reading._digest(snap), nonces=store.snapshot_nonces("g", 7) or ""))

    check = snapshots.check_snapshots(open_store(db), "g")

    assert (check.checked, check.mismatched) == (2, [snapshots.Mismatch(seq=7, differs=differs)])


def test_a_snapshot_of_another_engine_or_a_damaged_one_is_ignored_not_failed(
        new_db: Callable[[str], str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A snapshot the service would never read (another engine version's, or a digest that does not
    hold) is counted as ignored: the log and the snapshots it would read still verify (exit 0)."""
    db = new_db("g")
    _toy(db, monkeypatch)
    _sql(db, "update snapshots set engine = 'mncore 0.0.0; elsewhere@1' where seq = 5")
    _sql(db, "update snapshots set batches = batches + 1 where seq = 7")

    result = _run(db, "verify", "g")

    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == _verified(db) + ("  - snapshots: 1 of another engine version ignored; "
                                         "1 damaged or left behind by the log ignored\n")


def test_drop_bad_snapshots_of_an_export_file_is_bad_input(new_db: Callable[[str], str], tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """An export has no snapshots: the option is refused (exit 2), nothing checked."""
    db = new_db("g")
    _toy(db, monkeypatch)
    path = tmp_path / "g.jsonl"
    _mn(db, "export", "g", "-o", str(path))

    result = _run(db, "verify", str(path), "--drop-bad-snapshots")

    assert (result.exit_code, result.stderr) == (2, f"Error: --drop-bad-snapshots: {path} is a file; only a "
                                                    "stored game has snapshots\n")


def test_rewriting_a_log_drops_its_snapshots(new_db: Callable[[str], str], monkeypatch: pytest.MonkeyPatch) -> None:
    """rewrite_log (mn upgrade) deletes the game's snapshots with its rows; other games keep theirs."""
    monkeypatch.setenv("MN_SNAPSHOT_EVERY", "1")
    db = new_db("g")
    gid = _mn(db, "new", "--ruleset", "toy", "--empire", "red", "--empire", "blue", "--player", "red=Ann",
              "--player", "blue=Ben", "--seed", "toy", "--id", "t1").strip()
    store = open_store(db)
    cur = reading.current(store, gid)
    seq = store.last_snapshot_seq(gid)
    assert seq == 0  # creation appends nothing through submit: no snapshot yet
    lifecycle.reveal(store, gid, force=True)
    assert store.last_snapshot_seq(gid) == cur.head[0] + 1
    rows = store.rows(gid)
    store.rewrite_log(gid, store.head(gid), rows, store.log_version(gid))
    assert store.last_snapshot_seq(gid) == 0
    assert reading.current(store, gid).state == reading.load(store, gid).state


def test_a_2003_game_by_signed_blocks_writes_snapshots_that_match_its_log(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The 2003 game's discards, battles' debts and losses are folded in the log's order as the orders
    are given (its JSON sorts a dict's keys): a snapshot taken every 8 events is the state a replay
    folds, and mn verify finds every one matching (their order once differed: 'state differs')."""
    import random

    import classic_signed
    monkeypatch.setenv("MN_SNAPSHOT_EVERY", "8")
    store, loaded = classic_signed.new_game(tmp_path / "c.db", 2)
    loaded = classic_signed.play_until(store, loaded, lambda s: s.round >= 4, random.Random(classic_signed.SEED))
    check = snapshots.check_snapshots(store, "c")

    assert check.checked >= 2
    assert check.mismatched == []
    assert "all match" in _mn(str(tmp_path / "c.db"), "verify", "c")
