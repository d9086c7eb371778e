"""The mn command: exact output and exit codes of the foundation verbs, on tmp_path databases."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from both import IDS, SPECS, Spec
from mncli.cli import main

ROOT = Path(__file__).resolve().parent.parent
THREE = ["--empire", "rome", "--empire", "greece", "--empire", "carthage"]


def mn(db: Path, *args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(main, ["--db", str(db), *args], input=input)


@pytest.fixture()
def db(tmp_path: Path) -> Path:
    return tmp_path / "mn.db"


@pytest.fixture()
def game(db: Path) -> str:
    result = mn(db, "new", *THREE, "--player", "rome=Ann", "--seed", "cli", "--id", "g1",
                "--display", "experienced")
    assert result.exit_code == 0, result.output
    return result.stdout.strip()


def test_new_prints_the_game_id_alone(db: Path) -> None:
    """mn new prints only the new game's id on stdout."""
    result = mn(db, "new", *THREE)

    assert result.exit_code == 0
    assert result.stdout.count("\n") == 1 and result.stdout.startswith("g")
    assert result.stderr == ""


@pytest.fixture(params=SPECS, ids=IDS)
def table(request: pytest.FixtureRequest, db: Path) -> Spec:
    """A new three-player game "g" of each ruleset, seed "orders"."""
    spec: Spec = request.param
    assert mn(db, "new", *spec.new, "--seed", "orders", "--id", "g").exit_code == 0
    return spec


def test_status_names_round_phase_and_pending_decision(db: Path, table: Spec) -> None:
    """mn status says round, phase, fair-play and who must decide what."""
    phase = {"empires": "Trade Resources", "classic": "commerce"}[table.ruleset]

    result = mn(db, "status", "g")

    assert result.exit_code == 0
    assert result.stdout == (
        f"Game g: round 1, {phase} phase\n"
        "NOT a fair-play game: its secret is known (seed) or it is a sandbox.\n"
        f"Waiting for:\n{table.waiting}\n")


def test_a_fair_play_game_is_not_flagged(db: Path) -> None:
    """A game made without --seed is a fair-play game."""
    gid = mn(db, "new", *THREE).stdout.strip()

    doc = json.loads(mn(db, "status", gid, "--json").stdout)

    assert doc["fair_play"] is True and doc["round"] == 1 and doc["phase"] == "trade"


def test_games_lists_games(db: Path, table: Spec) -> None:
    """mn games lists each game with its number of events."""
    result = mn(db, "games", "--json")

    assert [(g["id"], g["events"]) for g in json.loads(result.stdout)] == [("g", table.last_made)]


def test_log_prints_one_sentence_per_event_with_its_number(db: Path, table: Spec) -> None:
    """mn log numbers each event and says what happened."""
    result = mn(db, "log", "g", "--from", "6", "--to", "6")

    assert result.stdout == f"{table.sixth}\n"


def test_export_import_export_is_byte_identical(db: Path, table: Spec, tmp_path: Path) -> None:
    """An exported log imported into another database exports to the same bytes."""
    first = tmp_path / "a.jsonl"
    assert mn(db, "export", "g", "-o", str(first)).exit_code == 0
    other = tmp_path / "other.db"

    imported = mn(other, "import", str(first))
    again = mn(other, "export", "g")

    assert imported.exit_code == 0 and imported.stdout == "g\n"
    assert again.stdout_bytes == first.read_bytes()


def _edited(path: Path, fn) -> Path:  # type: ignore[no-untyped-def]
    lines = path.read_text().splitlines(keepends=True)
    out = path.with_name("bad.jsonl")
    out.write_text("".join(fn(lines)))
    return out


@pytest.mark.parametrize("damage, message", [
    (lambda ls: ls[:-2], "line 6: the file ends after 4 events but its header promises 6"),
    (lambda ls: [ls[0], ls[2], ls[1], *ls[3:]], "line 2: event 2 where event 1 was expected"),
    (lambda ls: [*ls[:3], ls[3].replace('"coin":1', '"coin":2'), *ls[4:]], "line 4: event 3 hash does not match"),
    (lambda ls: [*ls[:2], "{not json\n", *ls[3:]], "line 3: malformed event line"),
])
def test_a_damaged_import_is_refused_with_its_line_and_nothing_written(
        db: Path, game: str, tmp_path: Path, damage: Callable[[list[str]], list[str]], message: str) -> None:
    """Truncated, reordered, edited or malformed files: one line naming where, exit 2, no database."""
    good = tmp_path / "good.jsonl"
    mn(db, "export", game, "-o", str(good))
    bad = _edited(good, damage)
    other = tmp_path / "other.db"

    result = mn(other, "import", str(bad))

    assert result.exit_code == 2
    assert message in result.stderr and "Traceback" not in result.output
    assert not other.exists()


def test_unknown_game_is_exit_2_with_one_line(db: Path, table: Spec) -> None:
    """An unknown game id: one clear line on stderr, exit 2."""
    result = mn(db, "status", "nope")

    assert result.exit_code == 2
    assert result.stderr == f"Error: no game 'nope' in {db}; games here: g\n"


def test_missing_database_is_exit_2_and_not_created(tmp_path: Path) -> None:
    """Reading from a database that does not exist does not create it."""
    path = tmp_path / "missing.db"

    result = mn(path, "games")

    assert result.exit_code == 2 and "no database at" in result.stderr
    assert not path.exists()


def test_non_sqlite_database_is_exit_2(tmp_path: Path) -> None:
    """A file that is not SQLite is refused in one line."""
    path = tmp_path / "x.db"
    path.write_text("plain text")

    result = mn(path, "status", "g1")

    assert result.exit_code == 2 and result.stderr.startswith("Error: ") and "not a SQLite" in result.stderr


def test_bad_player_count_writes_nothing(tmp_path: Path) -> None:
    """Two empires are refused (3 to 5 players) and no database appears."""
    path = tmp_path / "none.db"

    result = mn(path, "new", "--empire", "rome", "--empire", "greece")

    assert result.exit_code == 2 and "3 to 5 players" in result.stderr
    assert not path.exists()


def test_replay_shows_the_state_as_of_an_event(db: Path, game: str) -> None:
    """mn replay --to N shows the state after event N: before set-up collection, no resources."""
    doc = json.loads(mn(db, "replay", game, "--to", "2", "--json").stdout)

    assert doc["empires"]["rome"]["resource_count"] == 0
    assert json.loads(mn(db, "replay", game, "--to", "6", "--json").stdout)["empires"]["rome"][
        "resource_count"] == 9


def test_replay_beyond_the_log_is_exit_2(db: Path, table: Spec) -> None:
    """An event number past the end is refused."""
    result = mn(db, "replay", "g", "--to", "99")

    assert result.exit_code == 2
    assert result.stderr == f"Error: --to 99: game g has events 1 to {table.last_made}\n"


def test_fork_copies_events_and_leaves_the_original_untouched(db: Path, table: Spec) -> None:
    """mn fork makes a sandbox marked as a fork; the original's log is unchanged."""
    before = mn(db, "export", "g").stdout

    result = mn(db, "fork", "g", "--at", "6", "--as", "what-if")

    assert result.exit_code == 0 and result.stdout == "what-if\n"
    assert mn(db, "export", "g").stdout == before
    doc = json.loads(mn(db, "status", "what-if", "--json").stdout)
    assert doc["sandbox"] is True and doc["fair_play"] is False
    assert "forked from g at event 6" in mn(db, "log", "what-if", "--to", "1").stdout
    assert mn(db, "verify", "what-if").exit_code == 0


def test_a_fork_takes_other_orders_than_its_game(db: Path, table: Spec) -> None:
    """A fork at the end of the set-up plays on: the first order is accepted there too."""
    mn(db, "fork", "g", "--at", str(table.last_made), "--as", "f")

    result = mn(db, "order", "f", "--as", table.side, table.legal)

    assert result.exit_code == 0 and result.stdout.splitlines()[0] == table.legal_line
    assert mn(db, "verify", "f").exit_code == 0


def test_reveal_refuses_a_running_game_without_force(db: Path, table: Spec) -> None:
    """Revealing mid-game would let players foresee draws: it needs --force."""
    result = mn(db, "reveal", "g")

    assert result.exit_code == 2 and "--force" in result.stderr


def test_show_hides_other_empires_resources(db: Path, game: str) -> None:
    """An empire sees its own resources and only the count of others'."""
    doc = json.loads(mn(db, "show", game, "--as", "rome", "--json").stdout)

    assert doc["empires"]["rome"]["resources"] == {"coin": 1, "grain": 2, "metal": 2, "oil": 2, "wine": 2}
    assert doc["empires"]["greece"]["resources"] is None
    assert doc["empires"]["greece"]["resource_count"] == 9


def test_help_documents_exit_codes() -> None:
    """mn --help lists the exit codes."""
    result = CliRunner().invoke(main, ["--help"])

    for line in ("0  done", "1  refused by the rules", "2  bad input", "3  conflict", "4  integrity failure"):
        assert line in result.stdout


def test_python_dash_m_mncli_runs() -> None:
    """python -m mncli works like mn."""
    result = subprocess.run([sys.executable, "-m", "mncli", "--help"], cwd=ROOT, capture_output=True,
                            text=True, timeout=60)

    assert result.returncode == 0 and "Usage: mn" in result.stdout
