"""A killed mn import or mn copy-db leaves nothing or the whole game, in a database every command reads."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from mncli.cli import main
from mncore.core.errors import StoreError
from mncore.store import open_store
from pg import PgServer

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "game-ierusalem.jsonl"  # log format 2, salted
GAME = json.loads(FIXTURE.read_bytes().split(b"\n", 1)[0])["game"]
EVENTS = json.loads(FIXTURE.read_bytes().split(b"\n", 1)[0])["events"]
KILLS = 12  # runs of each command, each killed after a random delay within one whole run's time


def mn_process(*args: str) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if k != "MN_DB"}
    return subprocess.Popen([sys.executable, "-m", "mncli", *args], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=env)


def whole_run(*args: str) -> float:
    """The seconds one unkilled run takes (the range the kills are drawn from)."""
    start = time.monotonic()
    assert mn_process(*args).wait() == 0
    return time.monotonic() - start


def killed(delay: float, *args: str) -> None:
    """Run mn with args and SIGKILL it after delay seconds, unless it ended first."""
    proc = mn_process(*args)
    try:
        proc.wait(timeout=delay)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGKILL)
        proc.wait()


def games(db: str) -> dict[str, int]:
    """The games mn games lists (id -> events); it must read the database (exit 0)."""
    result = CliRunner().invoke(main, ["--db", db, "games", "--json"])
    assert result.exit_code == 0, result.output
    return {g["id"]: g["events"] for g in json.loads(result.stdout)}


def assert_nothing_or_whole(db: str, before: dict[str, int]) -> None:
    """The games there before are still there; the copied one is absent or whole and verifies."""
    found = games(db)
    assert {k: v for k, v in found.items() if k != GAME} == before
    if GAME in found:
        assert found[GAME] == EVENTS
        verified = CliRunner().invoke(main, ["--db", db, "verify", GAME])
        assert verified.exit_code == 0, verified.output


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database holding the fixture's game, for copy-db to read."""
    db = tmp_path_factory.mktemp("killed") / "source.db"
    assert mn_process("--db", str(db), "import", str(FIXTURE)).wait() == 0
    return db


@pytest.fixture(scope="module")
def other(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database already holding another game (the fixture's, under another id)."""
    db = tmp_path_factory.mktemp("killed") / "other.db"
    assert mn_process("--db", str(db), "import", str(FIXTURE), "--as", "kept").wait() == 0
    return db


def target(tmp_path: Path, n: int, other: Path) -> tuple[str, dict[str, int]]:
    """A fresh file on even runs; on odd runs a copy of a database that holds another game."""
    path = tmp_path / f"t{n}.db"
    if n % 2:
        shutil.copyfile(other, path)
        return str(path), {"kept": EVENTS}
    return str(path), {}


@pytest.mark.slow
def test_a_killed_import_leaves_nothing_or_the_whole_game(tmp_path: Path, other: Path) -> None:
    """mn import killed at random moments: each file left is read by mn games and holds nothing
    of the game or all of it, verified; a game that was there stays."""
    rand = random.Random(23)
    span = whole_run("--db", str(tmp_path / "whole.db"), "import", str(FIXTURE))

    for n in range(KILLS):
        db, before = target(tmp_path, n, other)
        killed(rand.uniform(0, span * 1.1), "--db", db, "import", str(FIXTURE))

        if os.path.exists(db):
            assert_nothing_or_whole(db, before)


@pytest.mark.slow
def test_a_killed_copy_db_leaves_nothing_or_the_whole_game(tmp_path: Path, source: Path, other: Path) -> None:
    """mn copy-db killed at random moments: the target is read by mn games and holds nothing of the
    game or all of it, verified; the source still holds it whole."""
    rand = random.Random(5)
    span = whole_run("copy-db", str(source), str(tmp_path / "whole.db"))

    for n in range(KILLS):
        db, before = target(tmp_path, n, other)
        killed(rand.uniform(0, span * 1.1), "copy-db", str(source), db)

        if os.path.exists(db):
            assert_nothing_or_whole(db, before)
        assert games(str(source)) == {GAME: EVENTS}


@pytest.mark.slow
def test_a_killed_import_into_postgresql_leaves_nothing_or_the_whole_game(pg_server: PgServer) -> None:
    """The same on PostgreSQL, into a database whose tables a first game made: one transaction."""
    rand = random.Random(7)
    span = whole_run("--db", pg_server.new_database(), "import", str(FIXTURE))

    for _ in range(KILLS // 2):
        url = pg_server.new_database()
        open_store(url, create=True).close()
        killed(rand.uniform(0, span * 1.1), "--db", url, "import", str(FIXTURE))

        assert_nothing_or_whole(url, {})


@pytest.mark.slow
def test_a_killed_copy_db_into_postgresql_leaves_nothing_or_the_whole_game(
        pg_server: PgServer, source: Path) -> None:
    """mn copy-db from SQLite into an empty PostgreSQL database, killed at random moments: its
    tables and the game come whole or not at all (a database left without tables is as it was)."""
    rand = random.Random(11)
    span = whole_run("copy-db", str(source), pg_server.new_database())

    for _ in range(KILLS // 2):
        url = pg_server.new_database()
        killed(rand.uniform(0, span * 1.1), "copy-db", str(source), url)

        try:
            open_store(url).close()
        except StoreError as err:
            assert "is not a mare-nostrum database" in err.message  # the tables never committed
            continue
        assert_nothing_or_whole(url, {})
