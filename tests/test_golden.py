"""Golden replays: recorded whole games, one per victory condition, replay and verify exactly, in either store."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner
from msgspec.structs import replace

from golden import GAMES, fixture, play, record, without_clock
from mncli.cli import main
from mncore.audits.sealing import ExportHeader
from mncore.games import reading, transfer
from mncore.store import open_store
from pg import PgServer

CONDITIONS = sorted(GAMES)


@pytest.mark.parametrize("condition", CONDITIONS)
def test_6_x_a_recorded_game_imports_verifies_and_ends_by_its_condition(
        condition: str, new_db: Callable[[str], str]) -> None:
    """The fixture imports, verifies (every draw recomputed from its revealed secret) and is won so."""
    db = new_db("g")
    runner = CliRunner()

    imported = runner.invoke(main, ["--db", db, "import", str(fixture(condition))])
    verified = runner.invoke(main, ["--db", db, "verify", imported.stdout.strip()])

    assert imported.exit_code == 0, imported.output
    assert verified.exit_code == 0, verified.output
    assert "every random outcome recomputes" in verified.stdout
    state = reading.load(open_store(db), imported.stdout.strip()).state
    assert state.winner is not None and state.winner.condition == condition


@pytest.mark.slow
@pytest.mark.parametrize("condition", CONDITIONS)
def test_6_x_the_scripted_game_still_plays_exactly_as_recorded(
        condition: str, new_db: Callable[[str], str], store_kind: str, tmp_path: Path,
        request: pytest.FixtureRequest) -> None:
    """Playing the same scripted game again gives the same events, commands and content hashes."""
    if request.config.getoption("--update-golden") and store_kind == "sqlite":
        record(condition, tmp_path / "record.db")
    seed, players, style = GAMES[condition]
    gid = f"golden-{condition.replace('.', '-')}"

    loaded = play(new_db("again"), gid, seed, players, style)

    lines = transfer.export_lines(loaded)
    again = tmp_path / "again.jsonl"
    again.write_bytes(b"".join(line + b"\n" for line in lines))
    assert without_clock(again.read_bytes()) == without_clock(fixture(condition).read_bytes())


@pytest.mark.parametrize("condition", CONDITIONS)
def test_6_x_a_recorded_game_exported_from_either_store_imports_into_the_other_byte_identically(
        condition: str, tmp_path: Path, pg_server: PgServer) -> None:
    """SQLite -> PostgreSQL -> SQLite: each export is the fixture's bytes (its header sealed, which the
    fixture, made before seals, is not), and each copy verifies."""
    runner = CliRunner()
    dbs = [str(tmp_path / "a.db"), pg_server.new_database(), str(tmp_path / "b.db")]
    source = fixture(condition)

    for db in dbs:
        gid = runner.invoke(main, ["--db", db, "import", str(source)]).stdout.strip()
        exported = runner.invoke(main, ["--db", db, "export", gid])
        verified = runner.invoke(main, ["--db", db, "verify", gid])
        assert unsealed(exported.stdout_bytes) == fixture(condition).read_bytes(), db
        assert verified.exit_code == 0 and "every random outcome recomputes" in verified.stdout
        source = tmp_path / "exported.jsonl"
        source.write_bytes(exported.stdout_bytes)


def unsealed(export: bytes) -> bytes:
    """The export with its header's seal taken out: the bytes an mn from before seals wrote."""
    first, rest = export.split(b"\n", 1)
    header = msgspec.json.decode(first, type=ExportHeader)
    return msgspec.json.encode(replace(header, seal="")) + b"\n" + rest
