"""Hosting many games (issue 17): the dashboard's filters, copy-db between stores, check-upgrade after a
rule changed, and eight writers on fifty games in one PostgreSQL database."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from msgspec.structs import replace

from golden import fixture
from mncli.cli import main
from mncore.core.errors import RuleViolation
from mncore.games import lifecycle, reading
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.rules import build
from mncore.rulesets.empires.seam import RULESET as EMPIRES
from mncore.store import open_store
from pg import PgServer

ROOT = Path(__file__).resolve().parent.parent
THREE = ["--empire", "rome", "--empire", "greece", "--empire", "carthage"]


def mn(db: str, *args: str) -> Result:
    return CliRunner().invoke(main, ["--db", db, *args])


@pytest.fixture
def hosted(new_db: Callable[[str], str]) -> str:
    """A game over (6.1, Ann, Ben and Cat), two waiting on Carthage (Cat's, Ann's), and a toy game (no
    players named) waiting on Red."""
    db = new_db("host")
    assert mn(db, "import", str(fixture("6.1")), "--as", "done").exit_code == 0
    assert mn(db, "new", *THREE, "--player", "rome=Ann", "--player", "greece=Ben", "--player", "carthage=Cat",
              "--seed", "s", "--id", "open").exit_code == 0
    assert mn(db, "new", *THREE, "--player", "rome=Cat", "--player", "greece=Dee", "--player", "carthage=Ann",
              "--seed", "s", "--id", "open2").exit_code == 0
    assert mn(db, "new", "--ruleset", "toy", "--empire", "red", "--empire", "blue", "--seed", "t",
              "--id", "toy").exit_code == 0
    return db


def _line(db: str, gid: str, state: str) -> str:
    row = next(g for g in open_store(db).games() if g.id == gid)
    return f"{gid}  {row.events:>6} events  created {row.created_at[:19]}Z  head {row.head_hash[:12]}  {state}\n"


def _ids(result: Result) -> list[str]:
    assert result.exit_code == 0, result.output
    return [g["id"] for g in json.loads(result.stdout)]


def test_games_shows_each_games_round_and_whom_it_waits_on_or_its_result(hosted: str) -> None:
    """The dashboard line: events, creation, head, then the round and the sides awaited, or the result."""
    result = mn(hosted, "games")

    won = reading.current(open_store(hosted), "done").meta.result
    assert result.exit_code == 0
    assert result.stdout == (_line(hosted, "done", f"over: {won}")
                             + _line(hosted, "open", "round 1, waiting on carthage (Cat)")
                             + _line(hosted, "open2", "round 1, waiting on carthage (Ann)")
                             + _line(hosted, "toy", "round 0, waiting on red"))


def test_games_filters_by_whom_it_waits_on_by_player_and_by_finished(hosted: str) -> None:
    """--waiting-on takes a side or a player (any case); --player any side's player; --finished/--running."""
    assert _ids(mn(hosted, "games", "--waiting-on", "ann", "--json")) == ["open2"]
    assert _ids(mn(hosted, "games", "--waiting-on", "Carthage", "--json")) == ["open", "open2"]
    assert _ids(mn(hosted, "games", "--waiting-on", "red", "--json")) == ["toy"]
    assert _ids(mn(hosted, "games", "--waiting-on", "Ben", "--json")) == []
    assert _ids(mn(hosted, "games", "--player", "dee", "--json")) == ["open2"]
    assert _ids(mn(hosted, "games", "--player", "CAT", "--json")) == ["done", "open", "open2"]
    assert _ids(mn(hosted, "games", "--finished", "--json")) == ["done"]
    assert _ids(mn(hosted, "games", "--running", "--player", "Cat", "--json")) == ["open", "open2"]
    assert mn(hosted, "games", "--finished", "--player", "Zed").stdout == "No games match.\n"


def test_games_json_says_what_the_dashboard_shows(hosted: str) -> None:
    """`mn games --json`: one object per game with its ruleset, round, result, sides awaited, players."""
    doc = json.loads(mn(hosted, "games", "--json").stdout)

    open2 = doc[2]
    assert (open2["ruleset"], open2["round"], open2["over"], open2["waiting_on"], open2["players"],
            open2["problem"]) == ("empires", 1, False, ["carthage"],
                                  {"rome": "Cat", "greece": "Dee", "carthage": "Ann"}, "")
    assert (doc[3]["ruleset"], doc[3]["players"]) == ("toy", {})
    assert doc[0]["over"] is True and doc[0]["waiting_on"] == [] and "won by 6.1" in doc[0]["result"]


def test_games_overdue_lists_the_games_a_deadline_has_passed_in_and_since_when(hosted: str) -> None:
    """--overdue: only the games with a decision past its deadline (K4), judged at --now; the line
    names who is late and since when; once mn tick --all defaults it, the game is no longer overdue."""
    t0 = "2030-01-01T00:00:00+00:00"
    assert mn(hosted, "deadline", "open", "--hours", "48", "--now", t0).exit_code == 0

    early = mn(hosted, "games", "--overdue", "--now", "2030-01-02T00:00:00Z")
    late = mn(hosted, "games", "--overdue", "--now", "2030-01-04T00:00:00Z")
    line = _line(hosted, "open", "round 1, waiting on carthage (Cat); overdue: carthage since 2030-01-03T00:00Z")
    doc = json.loads(mn(hosted, "games", "--json").stdout)
    ticked = mn(hosted, "tick", "--all", "--now", "2030-01-04T00:00:00Z")
    after = mn(hosted, "games", "--overdue", "--now", "2030-01-04T00:00:00Z")

    assert early.stdout == "No games match.\n"
    assert late.exit_code == 0
    assert late.stdout == line
    assert doc[1]["due"] == {"carthage": "2030-01-03T00:00:00+00:00"} and doc[2]["due"] == {}
    assert ticked.exit_code == 0 and ticked.stdout
    assert after.stdout == "No games match.\n"


def test_games_overdue_refuses_a_time_that_is_not_one(hosted: str) -> None:
    """A --now that is not an ISO 8601 time: exit 2, saying what a time looks like."""
    result = mn(hosted, "games", "--overdue", "--now", "tomorrow")

    assert result.exit_code == 2
    assert "'tomorrow' is not a time (ISO 8601" in result.stderr


# --- copy-db ------------------------------------------------------------------------------------------------

def test_copy_db_moves_every_game_to_postgresql_and_back_byte_identically(
        tmp_path: Path, pg_server: PgServer) -> None:
    """SQLite -> PostgreSQL -> SQLite: every game copied, verified, its export the same bytes in all three."""
    first, pg, last = str(tmp_path / "a.db"), pg_server.new_database(), str(tmp_path / "b.db")
    assert mn(first, "import", str(fixture("6.2"))).exit_code == 0
    assert mn(first, "new", *THREE, "--seed", "s", "--id", "open").exit_code == 0
    assert mn(first, "order", "open", "--as", "carthage", "trade 3").exit_code == 0

    there = CliRunner().invoke(main, ["copy-db", first, pg])
    back = CliRunner().invoke(main, ["copy-db", pg, last])

    assert there.exit_code == 0 and back.exit_code == 0, there.output + back.output
    assert there.stdout.splitlines()[-1] == f"2 games copied from {first} to {pg}, 0 already there"
    for gid in ("golden-6-2", "open"):
        exports = {mn(db, "export", gid).stdout_bytes for db in (first, pg, last)}
        assert len(exports) == 1
        assert open_store(last).secret(gid) == open_store(first).secret(gid)
    assert mn(last, "order", "open", "--as", "rome", "offer coin grain grain").exit_code == 0  # the copy plays on


def test_copy_db_again_leaves_a_copied_game_alone_and_refuses_a_different_one(
        tmp_path: Path, pg_server: PgServer) -> None:
    """A game already copied is left as it is; another game under the same id is refused (exit 2)."""
    first, pg = str(tmp_path / "a.db"), pg_server.new_database()
    assert mn(first, "new", *THREE, "--seed", "s", "--id", "g").exit_code == 0
    assert CliRunner().invoke(main, ["copy-db", first, pg]).exit_code == 0

    again = CliRunner().invoke(main, ["copy-db", first, pg])
    assert again.exit_code == 0 and again.stdout.startswith("g: already there, 6 events, verified")
    assert mn(first, "order", "g", "--as", "carthage", "trade 3").exit_code == 0
    clash = CliRunner().invoke(main, ["copy-db", first, pg])

    assert clash.exit_code == 2
    assert clash.stderr == f"Error: a different game 'g' already exists in {pg}; nothing more was copied\n"
    assert open_store(pg).head("g")[0] == 6


def test_copy_db_refuses_a_game_that_does_not_verify_and_copies_nothing_of_it(tmp_path: Path) -> None:
    """A tampered source game is exit 4 naming its first bad event; the target never gets it."""
    import sqlite3
    first, second = tmp_path / "a.db", str(tmp_path / "b.db")
    assert mn(str(first), "new", *THREE, "--seed", "s", "--id", "g").exit_code == 0
    with sqlite3.connect(first) as conn:
        conn.execute("update events set actor = 'rome' where seq = 3")

    result = CliRunner().invoke(main, ["copy-db", str(first), second])

    assert result.exit_code == 4 and "game g in" in result.stderr and "not copied" in result.stderr
    assert open_store(second).games() == []


# --- check-upgrade ------------------------------------------------------------------------------------------

def _first_command(db: str, gid: str, kind: str) -> int:
    return next(r.seq for r in open_store(db).rows(gid) if r.command and json.loads(r.command)["type"] == kind)


@pytest.fixture
def upgraded(new_db: Callable[[str], str]) -> str:
    """Two golden games and a toy game, imported under today's rules."""
    db = new_db("up")
    for condition in ("6.1", "6.3"):
        assert mn(db, "import", str(fixture(condition))).exit_code == 0
    assert mn(db, "new", "--ruleset", "toy", "--empire", "red", "--empire", "blue", "--seed", "t",
              "--id", "toy").exit_code == 0
    return db


def test_check_upgrade_says_same_for_every_game_the_installed_engine_decides_alike(upgraded: str) -> None:
    """Nothing changed: every game is the same, exit 0."""
    result = mn(upgraded, "check-upgrade")

    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == ("3 games: 3 the same, 0 would differ, 0 served by an older "
                                              "ruleset version, 0 unreadable")


def test_check_upgrade_names_the_first_order_a_changed_rule_now_refuses(
        upgraded: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A rule patched to refuse every unit's place: each Empires game differs at its first BuildUnit,
    refused with the rule's section; the toy game is the same; exit 4."""
    def nowhere(*_: Any) -> None:
        raise RuleViolation("3.1.2", "no unit may be placed (patched)")
    monkeypatch.setattr(build, "_require_unit_place", nowhere)

    result = mn(upgraded, "check-upgrade", "--json")

    doc = json.loads(result.stdout)
    assert result.exit_code == 4
    assert (doc["same"], doc["differs"]) == (1, 2)
    for g in doc["games"][:2]:
        assert (g["verdict"], g["seq"], g["why"], g["section"]) == (
            "differs", _first_command(upgraded, g["id"], "BuildUnit"), "refused", "empires:3.1.2")
        assert g["reason"].endswith("no unit may be placed (patched) [rule empires:3.1.2]")
    assert doc["games"][2]["verdict"] == "same"


def test_check_upgrade_names_the_first_event_a_changed_rule_now_gives_otherwise(
        upgraded: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A rule patched to build two units for one: the first UnitBuilt of a BuildUnit order now carries a
    new field (count 2, the default 1 is not encoded), and the text names game, event and field."""
    original = build.build_unit

    def doubled(state: Any, order: Any) -> list[Any]:
        return [replace(e, count=2) if isinstance(e, ev.UnitBuilt) else e for e in original(state, order)]
    monkeypatch.setattr(build, "build_unit", doubled)

    result = mn(upgraded, "check-upgrade")

    seq = _first_command(upgraded, "golden-6-1", "BuildUnit")
    assert result.exit_code == 4
    assert result.stdout.splitlines()[0] == (
        f"golden-6-1: differs at event {seq} (UnitBuilt): a new field: count = 2; differs from what its "
        "command produces when decided again (not what the rules or the dice give)")


def test_check_upgrade_says_which_games_an_older_ruleset_version_still_serves(
        upgraded: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """With Empires at version 2 installed, games created under version 1 stay with the engine they
    were created with: listed as served by an older version, not as differing."""
    monkeypatch.setattr(EMPIRES, "version", EMPIRES.version + 1)

    result = mn(upgraded, "check-upgrade")

    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == (
        "golden-6-1: older: created under mare-nostrum-empires-2016 version 1; the installed engine plays "
        "version 2, so a game stays with the engine it was created with: keep an mn with version 1 to "
        "serve it")
    assert result.stdout.splitlines()[-1] == ("3 games: 1 the same, 0 would differ, 2 served by an older "
                                              "ruleset version, 0 unreadable")


# --- contention ---------------------------------------------------------------------------------------------

_WORKER = textwrap.dedent("""
    import json, random, sys
    from mncore.games import lifecycle, reading, writing
    from mncore.core.dice import Rng, seeded_secret
    from mncore.core.errors import MareNostrumError
    from mncore.rulesets.empires.players.autoplay import choose
    from mncore.store import open_store
    url, games, orders, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    store, rand = open_store(url), random.Random(seed)
    for _ in range(orders):
        gid = f"c{rand.randrange(games)}"
        cur = reading.current(store, gid)
        choice = choose(cur.state, rand, Rng(seeded_secret(gid), cur.head[1]))
        if choice is None:
            continue
        try:
            rows = writing.give(store, cur, choice.order, answer=False).written
        except MareNostrumError as err:
            print(json.dumps({"game": gid, "code": err.exit_code, "message": err.message}), flush=True)
            continue
        print(json.dumps({"game": gid, "code": 0, "seq": rows[0].seq, "hash": rows[-1].hash,
                          "last": rows[-1].seq}), flush=True)
""")


@pytest.mark.slow
def test_eight_processes_giving_orders_to_fifty_games_lose_and_duplicate_nothing(pg_server: PgServer) -> None:
    """8 writers, 50 games, one PostgreSQL database: every game verifies, every accepted order's batch
    is in its log exactly once and no other batch is, and every loser got exit 3 and wrote nothing."""
    url = pg_server.new_database()
    for i in range(50):
        assert mn(url, "new", *THREE, "--seed", f"c{i}", "--id", f"c{i}").exit_code == 0
    created = {f"c{i}": open_store(url).head(f"c{i}")[0] for i in range(50)}

    procs = [subprocess.Popen([sys.executable, "-c", _WORKER, url, "50", "40", f"w{w}"], cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for w in range(8)]
    outputs = [p.communicate(timeout=600) for p in procs]
    assert [p.returncode for p in procs] == [0] * 8, [err for _, err in outputs]

    results = [json.loads(line) for out, _ in outputs for line in out.splitlines()]
    accepted = [r for r in results if r["code"] == 0]
    refused = [r for r in results if r["code"] != 0]
    # a writer loads, chooses, then appends: racing on 50 games, some lose (about 1 in 10 here)
    assert len(accepted) > 100 and {r["code"] for r in refused} <= {1, 3} and any(r["code"] == 3 for r in refused)
    assert all("moved on" in r["message"] and "nothing was written" in r["message"] for r in refused if r["code"] == 3)
    store = open_store(url)
    for gid, first in created.items():
        batches = sorted((r.seq, r.batch) for r in store.rows(gid) if r.seq > first and r.batch == r.seq)
        mine = sorted((r["seq"], r["seq"]) for r in accepted if r["game"] == gid)
        assert batches == mine, gid
        for r in accepted:
            if r["game"] == gid:
                assert store.row_at(gid, r["last"]).hash == r["hash"]  # type: ignore[union-attr]
        assert lifecycle.verify_game(store, gid).ok, gid


def test_the_json_of_copy_db_and_check_upgrade_has_the_documented_fields(tmp_path: Path) -> None:
    """docs/json.md's tables for `mn copy-db` and `mn check-upgrade` list exactly the fields printed."""
    from test_json_doc import tables
    db = str(tmp_path / "a.db")
    assert mn(db, "new", *THREE, "--seed", "s", "--id", "g").exit_code == 0

    copied = json.loads(CliRunner().invoke(main, ["copy-db", db, str(tmp_path / "b.db"), "--json"]).stdout)
    checked = json.loads(mn(db, "check-upgrade", "--json").stdout)

    assert set(copied[0]) == tables("`mn copy-db`")[0]
    assert set(checked) == {"games", "same", "differs", "older", "unreadable"}
    assert set(checked["games"][0]) == tables("`mn check-upgrade`")[0]
