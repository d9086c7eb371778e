"""Snapshots: a cache of the folded state along a log, never trusted over the log, never verified from
(over both stores)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

import pytest
from click.testing import CliRunner
from msgspec.structs import replace

from golden import GAMES, play, without_clock
from mncli.cli import main
from mncore import game, trust
from mncore.store import is_postgres, open_store

CONDITIONS = sorted(GAMES)
PLAYED = "6.1"  # the shortest scripted game to its end


def _mn(db: str, *args: str) -> str:
    result = CliRunner().invoke(main, ["--db", db, *args])
    assert result.exit_code == 0, result.output
    return result.stdout


def _played(db: str, every: int, monkeypatch: pytest.MonkeyPatch) -> game.Loaded:
    monkeypatch.setenv("MN_SNAPSHOT_EVERY", str(every))
    seed, players, style = GAMES[PLAYED]
    return play(db, "g", seed, players, style)


def _export(loaded: game.Loaded) -> bytes:
    return b"".join(line + b"\n" for line in game.export_lines(loaded))


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
    fast = game.current(store, "g")
    assert store.last_snapshot_seq("g") > 0
    assert without_clock(_export(with_)) == without_clock(_export(without))
    assert fast.state == with_.state == without.state
    assert (fast.head, fast.draw_head, fast.batches) == (with_.head, with_.draw_head, game._batches(with_))
    assert fast.ledger == trust.ledger_of(with_.ruleset, with_.rows)
    for upto in (1, 8, 100, 333):
        assert game.current(store, "g", upto).state == game.load(store, "g", upto).state


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
        assert game.current(open_store(db), "g").snapshot_seq == 0, damage
        assert _answers(db) == good, damage


@pytest.mark.slow
def test_verify_never_reads_snapshots(new_db: Callable[[str], str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A snapshot of another state (well formed, its digest made anew) changes what status says,
    which trusts the cache, but never what mn verify says: verify folds the log alone."""
    db = new_db("g")
    loaded = _played(db, 50, monkeypatch)
    before = _mn(db, "verify", "g")
    store = open_store(db)
    seq = store.last_snapshot_seq("g")
    early = game.current(store, "g", 3)
    snap = store.latest_snapshot("g", None, game.engine_of(loaded.ruleset))
    assert snap is not None and snap.seq == seq
    status = _mn(db, "status", "g")
    forged = replace(snap, state=loaded.ruleset.encode_state(early.state))
    store.put_snapshot("g", replace(forged, digest=game._digest(forged)))

    assert _mn(db, "status", "g") != status
    assert _mn(db, "verify", "g") == before
    assert "every random outcome recomputes" in before


def test_rewriting_a_log_drops_its_snapshots(new_db: Callable[[str], str], monkeypatch: pytest.MonkeyPatch) -> None:
    """rewrite_log (mn upgrade) deletes the game's snapshots with its rows; other games keep theirs."""
    monkeypatch.setenv("MN_SNAPSHOT_EVERY", "1")
    db = new_db("g")
    gid = _mn(db, "new", "--ruleset", "toy", "--empire", "red", "--empire", "blue", "--player", "red=Ann",
              "--player", "blue=Ben", "--seed", "toy", "--id", "t1").strip()
    store = open_store(db)
    cur = game.current(store, gid)
    seq = store.last_snapshot_seq(gid)
    assert seq == 0  # creation appends nothing through submit: no snapshot yet
    game.reveal(store, gid, force=True)
    assert store.last_snapshot_seq(gid) == cur.head[0] + 1
    rows = store.rows(gid)
    store.rewrite_log(gid, store.head(gid), rows, store.log_version(gid))
    assert store.last_snapshot_seq(gid) == 0
    assert game.current(store, gid).state == game.load(store, gid).state
