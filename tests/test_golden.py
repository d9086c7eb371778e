"""Golden replays: recorded whole games, one per victory condition, replay and verify exactly."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from golden import GAMES, without_clock, fixture, play, record
from mncli.cli import main
from mncore import game
from mncore.store import open_store

CONDITIONS = sorted(GAMES)


@pytest.mark.parametrize("condition", CONDITIONS)
def test_6_x_a_recorded_game_imports_verifies_and_ends_by_its_condition(
        condition: str, tmp_path: Path) -> None:
    """The fixture imports, verifies (every draw recomputed from its revealed secret) and is won so."""
    db = tmp_path / "g.db"
    runner = CliRunner()

    imported = runner.invoke(main, ["--db", str(db), "import", str(fixture(condition))])
    verified = runner.invoke(main, ["--db", str(db), "verify", imported.stdout.strip()])

    assert imported.exit_code == 0, imported.output
    assert verified.exit_code == 0, verified.output
    assert "every random outcome recomputes" in verified.stdout
    state = game.load(open_store(str(db)), imported.stdout.strip()).state
    assert state.winner is not None and state.winner.condition == condition


@pytest.mark.slow
@pytest.mark.parametrize("condition", CONDITIONS)
def test_6_x_the_scripted_game_still_plays_exactly_as_recorded(
        condition: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """Playing the same scripted game again gives the same events, commands and content hashes."""
    if request.config.getoption("--update-golden"):
        record(condition, tmp_path / "record.db")
    seed, players, style = GAMES[condition]
    gid = f"golden-{condition.replace('.', '-')}"

    loaded = play(tmp_path / "again.db", gid, seed, players, style)

    lines = game.export_lines(loaded)
    again = tmp_path / "again.jsonl"
    again.write_bytes(b"".join(line + b"\n" for line in lines))
    assert without_clock(again.read_bytes()) == without_clock(fixture(condition).read_bytes())
