"""Rough edges of the mn command found by new users and rules lawyers (issue 18), one test each."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from mncli.cli import main

THREE = ["--empire", "rome", "--empire", "greece", "--empire", "carthage"]

BUILDER = """
round = 2
phase = "build"
[step]
active = "rome"
[empires.rome]
player = "Ann"
resources = { coin = 1, grain = 1, metal = 1, oil = 1, wine = 1, papyrus = 1 }
[empires.greece]
player = "Bartholomew Montgomery-Smythe"
[empires.carthage]
[provinces.latium]
controller = "rome"
"""


def mn(db: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["--db", str(db), *args])


@pytest.fixture()
def db(tmp_path: Path) -> Path:
    return tmp_path / "mn.db"


@pytest.fixture()
def game(db: Path) -> str:
    result = mn(db, "new", *THREE, "--player", "rome=Ann", "--player", "greece=Ben", "--seed", "e",
                "--id", "g1")
    assert result.exit_code == 0, result.output
    return "g1"


@pytest.fixture()
def builder(db: Path, tmp_path: Path) -> str:
    """A sandbox in the Build phase: Rome (Ann) builds and holds six kinds of resource."""
    path = tmp_path / "b.toml"
    path.write_text(BUILDER)
    assert mn(db, "new", "--position", str(path), "--id", "b").exit_code == 0
    return "b"


# --- options and names -----------------------------------------------------------------------------

def test_db_is_accepted_after_the_subcommand(db: Path, game: str) -> None:
    """`mn status G --db X` reads X, as `mn --db X status G` does."""
    result = CliRunner().invoke(main, ["status", game, "--db", str(db)])

    assert result.exit_code == 0 and result.stdout.startswith("Game g1: round 1")


def test_db_after_a_map_subcommand_is_accepted_too(db: Path) -> None:
    """Nested commands (mn map show) take --db after them as well."""
    result = CliRunner().invoke(main, ["map", "show", "crete", "--db", str(db)])

    assert result.exit_code == 0


def test_a_misspelt_empire_suggests_the_closest_one_in_play(db: Path, game: str) -> None:
    """`--as carthge` names Carthage as the likely meaning and lists only the empires in play."""
    result = mn(db, "options", game, "--as", "carthge")

    assert result.exit_code == 2
    assert result.stderr == ("Error: unknown empire 'carthge'; did you mean Carthage? the empires in "
                             "play: Rome (Ann), Greece (Ben), Carthage\n")


def test_an_empire_not_in_the_game_is_refused_naming_those_in_play(db: Path, game: str) -> None:
    """Egypt exists but is not in this three-player game."""
    result = mn(db, "show", game, "--as", "egypt")

    assert result.exit_code == 2
    assert result.stderr == ("Error: Egypt is not in this game; the empires in play: Rome (Ann), "
                             "Greece (Ben), Carthage\n")


def test_as_accepts_the_name_of_the_player(db: Path, game: str) -> None:
    """`--as Ann` is Rome, Ann's empire in this game."""
    by_player = mn(db, "show", game, "--as", "ann", "--json")
    by_empire = mn(db, "show", game, "--as", "rome", "--json")

    assert by_player.exit_code == 0 and by_player.stdout == by_empire.stdout


def test_a_player_name_shared_by_two_empires_is_ambiguous(db: Path) -> None:
    """Ann plays both Rome and Greece: `--as Ann` does not say which."""
    mn(db, "new", *THREE, "--player", "rome=Ann", "--player", "greece=Ann", "--id", "g2")

    result = mn(db, "options", "g2", "--as", "Ann")

    assert result.exit_code == 2
    assert result.stderr == "Error: 'Ann' plays Rome (Ann), Greece (Ann): give the empire\n"


def test_a_duplicate_player_option_is_refused(db: Path) -> None:
    """Two --player rome=... options: the second is not silently taken; nothing is written."""
    result = mn(db, "new", *THREE, "--player", "rome=Ann", "--player", "rome=Bob")

    assert result.exit_code == 2
    assert result.stderr == ("Error: --player rome=Bob: Rome is already played by Ann; give each "
                             "empire one --player\n")
    assert not db.exists()


# --- output ------------------------------------------------------------------------------------------

def test_position_to_dash_prints_on_stdout_and_writes_no_file(db: Path, game: str, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """`mn position G -o -` is stdout, like the default; no file named '-' appears."""
    monkeypatch.chdir(tmp_path)

    result = mn(db, "position", game, "-o", "-")

    assert result.exit_code == 0 and result.stdout == mn(db, "position", game).stdout
    assert not (tmp_path / "-").exists()


def test_export_to_dash_prints_on_stdout(db: Path, game: str, tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """`mn export G -o -` is stdout too."""
    monkeypatch.chdir(tmp_path)

    result = mn(db, "export", game, "-o", "-")

    assert result.exit_code == 0 and result.stdout == mn(db, "export", game).stdout
    assert not (tmp_path / "-").exists()


def test_with_json_an_error_is_a_json_document_on_stdout(db: Path, game: str) -> None:
    """A refusal under --json prints {"error": ...} on stdout, keeps the line on stderr and the code."""
    result = mn(db, "status", "nope", "--json")

    assert result.exit_code == 2
    assert json.loads(result.stdout) == {"error": {
        "code": 2, "kind": "UnknownGame", "message": f"no game 'nope' in {db}; games here: g1"}}
    assert result.stderr.startswith("Error: no game 'nope'")


def test_with_json_a_usage_error_is_a_json_document_too(db: Path, game: str) -> None:
    """A bad option under --json is reported as JSON as well, with click's exit code 2."""
    result = mn(db, "status", game, "--json", "--colour")

    assert result.exit_code == 2
    assert json.loads(result.stdout) == {"error": {"code": 2, "kind": "NoSuchOption",
                                                   "message": "No such option '--colour'."}}


def test_with_json_a_bad_file_lists_its_problems(db: Path, tmp_path: Path) -> None:
    """A DataError's JSON error lists each problem."""
    path = tmp_path / "x.jsonl"
    path.write_text('{"format": "x"}\n')

    result = mn(db, "verify", str(path), "--json")

    doc = json.loads(result.stdout)["error"]
    assert result.exit_code == 2 and doc["kind"] == "DataError"
    assert doc["problems"] == ["line 1: not a mare-nostrum export header (Object missing required "
                               "field `version`)"]


def test_options_says_when_a_list_of_payments_is_cut(db: Path, builder: str) -> None:
    """Six ways to pay are shown; the line after says how many more and how to see them all."""
    result = mn(db, "options", builder, "--as", "rome")

    lines = result.stdout.splitlines()
    assert lines[:4] == [
        "build control in {province} pay {payment}",
        "    province: gallia | italia",
        "    payment: grain metal oil | grain metal papyrus | grain metal wine | grain oil papyrus "
        "| grain oil wine | grain papyrus wine",
        "    ... 4 more not shown: mn options b --as rome --all lists them"]


def test_options_all_lists_every_payment(db: Path, builder: str) -> None:
    """--all lists the payments cut, `metal oil wine` among them, which mn check accepts."""
    result = mn(db, "options", builder, "--as", "rome", "--all")

    assert "metal oil wine" in result.stdout.splitlines()[2]
    assert "more not shown" not in result.stdout
    assert mn(db, "check", builder, "--as", "rome", "build legion in latium pay metal oil wine"
              ).exit_code == 0


def test_show_names_a_caravans_commodity(db: Path, game: str) -> None:
    """Two caravans in Africa are told apart by what they bring."""
    result = mn(db, "show", game)

    assert ("  Africa       Carthage     caravan (sheep), caravan (spices), capital, market; "
            "1 Carthage legion") in result.stdout.splitlines()


def test_show_keeps_its_columns_with_a_long_player_name(db: Path, builder: str) -> None:
    """The tracks stay aligned under their headings whatever the players' names."""
    lines = mn(db, "show", builder).stdout.splitlines()

    header, rows = lines[2], lines[3:6]
    assert rows[1].startswith("Greece      Bartholomew Montgomery-Smythe ")
    assert all(row.index(" 0 ") + 1 == header.index("Trade") + 4 for row in rows)


def test_diff_keeps_names_and_words_apart(db: Path, builder: str) -> None:
    """A building's change reads 'caravan held by Rome', not 'Caravan Held By Rome'."""
    result = mn(db, "order", builder, "--as", "rome",
                "build caravan in latium at caravan-metal pay grain metal oil")
    assert result.exit_code == 0, result.output

    diff = mn(db, "diff", builder, "--at", "2")

    assert "Latium, caravan-metal: none → caravan held by Rome" in diff.stdout.splitlines()


def test_rules_section_says_where_its_text_is(db: Path) -> None:
    """mn rules 4.2 says the title is ours and where the rule's own text is to be read."""
    result = mn(db, "rules", "4.2")

    assert result.stdout.splitlines()[1] == (
        "  (a summary in our own words; mn does not ship the rule's text: read section 4.2 in the "
        "rulebook of Mare Nostrum: Empires (rules v54), which comes with the game)")


def test_log_filters_by_round_and_type(db: Path, game: str) -> None:
    """--type picks event types (any case), --round the events of a round."""
    result = mn(db, "log", game, "--type", "phasebegan", "--round", "1")

    assert result.stdout == "    6  Round 1: the Trade phase begins.\n"
    assert mn(db, "log", game, "--round", "2").stdout == ""


def test_log_refuses_an_unknown_type_with_a_suggestion(db: Path, game: str) -> None:
    """A misspelt event type is bad input naming the closest type."""
    result = mn(db, "log", game, "--type", "PhaseBegun")

    assert result.exit_code == 2
    assert result.stderr.startswith("Error: --type PhaseBegun: no such event type; did you mean "
                                    "PhaseBegan? expected one of: BatchUndone, BattleCardReady, BattleFought, ")
