"""`mn map show` and `mn map check` through the click runner: output, JSON and exit codes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import structlog
from click.testing import CliRunner

from mncli.cli import main
from mncore.rulesets.empires.board import board_digest, load_board

BOARD_FILE = Path(__file__).parent.parent / "mncore" / "rulesets" / "empires" / "data" / "board.toml"


@pytest.fixture(autouse=True)
def _reset_logging() -> Iterator[None]:
    yield
    structlog.reset_defaults()


def test_map_show_first_line_says_reconstructed() -> None:
    """The text output opens by saying the board is a reconstruction and how to correct it."""
    result = CliRunner().invoke(main, ["map", "show"])

    assert result.exit_code == 0
    first = result.stdout.splitlines()[0]
    assert first.startswith("Note: A reconstruction, not the printed board.")
    assert "mn map check FILE" in first
    assert "  Latium [region of Rome]" in result.stdout
    assert "    spaces: caravan Metal, caravan Wine, market, temple, capital Roma" in result.stdout
    assert "  Pontus Euxinus (also Euxinus, Euxine Sea, Black Sea)" in result.stdout


def test_map_show_alias_lists_creta_neighbours() -> None:
    """`map show crete` finds Creta by its alias and lists its seas and the provinces across them."""
    result = CliRunner().invoke(main, ["map", "show", "crete"])

    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert "  Creta (also Crete)" in lines
    assert "    land: (none)" in lines
    assert "    seas: Mare Aegaeum, Mare Africum, Mare Aegyptium" in lines
    assert "    across Mare Africum: Sicilia, Africa, Libya, Cyrenaica" in lines


def test_map_show_a_sea() -> None:
    """A sea can be shown too, with its neighbouring seas and its coasts."""
    result = CliRunner().invoke(main, ["map", "show", "ionian sea"])

    assert result.exit_code == 0
    assert "    seas: Mare Tyrrhenum, Mare Hadriaticum, Mare Africum, Mare Aegaeum" in result.stdout
    assert "    coasts: Italia, Sicilia, Macedonia, Achaea" in result.stdout


def test_map_show_unknown_place_exits_2() -> None:
    """An unknown place is refused on stderr with exit code 2."""
    result = CliRunner().invoke(main, ["map", "show", "narnia"])

    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith("Error: unknown province or sea 'narnia'; expected one of: Achaea")


def test_map_show_json_parses() -> None:
    """`map show --json` prints one JSON document: the whole board."""
    result = CliRunner().invoke(main, ["map", "show", "--json"])

    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["reconstructed"] is True
    assert len(data["provinces"]) == 30 and len(data["seas"]) == 9


def test_map_show_province_json() -> None:
    """`map show creta --json` prints the province with its borders, seas and the coasts across them."""
    result = CliRunner().invoke(main, ["map", "show", "creta", "--json"])

    data = json.loads(result.stdout)
    assert data["kind"] == "province" and data["province"]["id"] == "creta"
    assert data["across"]["mare-africum"] == ["sicilia", "africa", "libya", "cyrenaica"]


def test_map_check_ok() -> None:
    """`map check` of a valid file prints its counts and digest and exits 0."""
    digest = board_digest(load_board())[:16]

    result = CliRunner().invoke(main, ["map", "check", str(BOARD_FILE)])

    assert result.exit_code == 0
    assert result.stdout == (f"{BOARD_FILE}: ok — 30 provinces, 9 seas, 5 set-ups "
                             f"(digest {digest})\n")


def test_map_check_broken_file_exits_2(tmp_path: Path) -> None:
    """`map check` of a board with a one-sided border prints the problem on stderr and exits 2."""
    path = tmp_path / "broken.toml"
    path.write_text(BOARD_FILE.read_text().replace('borders = ["latium", "germania", "dalmatia"]',
                                                   'borders = ["germania", "dalmatia"]'))

    result = CliRunner().invoke(main, ["map", "check", str(path)])

    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == (f"Error: {path}: province latium: borders lists gallia but "
                             "gallia.borders does not list latium\n")


def test_map_show_with_a_board_file(tmp_path: Path) -> None:
    """`map show --board FILE` shows a user's own board; a missing file exits 2."""
    path = tmp_path / "mine.toml"
    path.write_text(BOARD_FILE.read_text().replace('name = "Gallia"', 'name = "Gallia Cisalpina"'))

    shown = CliRunner().invoke(main, ["map", "show", "gallia", "--board", str(path)])
    missing = CliRunner().invoke(main, ["map", "show", "--board", str(tmp_path / "none.toml")])

    assert "  Gallia Cisalpina (also Gaul) [region of Rome]" in shown.stdout
    assert missing.exit_code == 2
    assert "cannot read the board file" in missing.stderr


def test_map_commands_have_help() -> None:
    """Every `mn map` command has help text."""
    for command in (["map", "--help"], ["map", "show", "--help"], ["map", "check", "--help"]):
        result = CliRunner().invoke(main, command)
        assert result.exit_code == 0 and "Usage:" in result.stdout
