"""What new users tripped on (issue 29), one test each, with the exact output and exit code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from mncli.cli import main

THREE = ["--empire", "rome", "--empire", "greece", "--empire", "carthage"]


def mn(db: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["--db", str(db), *args])


@pytest.fixture()
def db(tmp_path: Path) -> Path:
    return tmp_path / "mn.db"


@pytest.fixture()
def game(db: Path) -> str:
    """Game g1, round 1: Carthage, the Trade Leader, is to play its exchange marker."""
    result = mn(db, "new", *THREE, "--player", "rome=Ann", "--player", "greece=Ben", "--seed", "e",
                "--id", "g1")
    assert result.exit_code == 0, result.output
    return "g1"


# --- mn options without --as ------------------------------------------------------------------------

def test_options_without_as_lists_the_orders_of_the_one_side_waited_for(db: Path, game: str) -> None:
    """The game waits for Carthage alone: `mn options g1` is `mn options g1 --as carthage`."""
    result = mn(db, "options", game)

    assert result.exit_code == 0
    assert result.stdout == mn(db, "options", game, "--as", "carthage").stdout
    assert result.stdout.splitlines()[0] == "trade 5"


def test_options_without_as_while_several_sides_decide_names_them(db: Path, game: str) -> None:
    """All three empires offer at once: --as must say which, and the refusal names the three."""
    assert mn(db, "order", game, "--as", "carthage", "trade 5").exit_code == 0

    result = mn(db, "options", game)

    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == ("Error: the game waits for Rome (Ann), Greece (Ben), Carthage; "
                             "name one with --as\n")


# --- --json before the command ----------------------------------------------------------------------

def test_json_before_the_command_is_the_commands_own(db: Path, game: str) -> None:
    """`mn --json status G` prints what `mn status G --json` prints, as --db works in either place."""
    before = mn(db, "--json", "status", game)

    assert before.exit_code == 0
    assert before.stdout == mn(db, "status", game, "--json").stdout
    assert json.loads(before.stdout)["game"] == "g1"


def test_json_before_a_command_without_json_output_is_refused(db: Path, game: str) -> None:
    """`mn reveal` prints no JSON: `mn --json reveal G` says so, exit 2, and reveals nothing."""
    result = mn(db, "--json", "reveal", game, "--force")

    assert result.exit_code == 2
    assert result.stderr.endswith("Error: --json: mn reveal prints no JSON document\n")
    assert json.loads(result.stdout) == {"error": {"code": 2, "kind": "UsageError",
                                                   "message": "--json: mn reveal prints no JSON document"}}
    assert "secret is revealed" not in mn(db, "log", game).stdout


# --- wording ----------------------------------------------------------------------------------------

def test_one_card_is_a_card_in_the_2003_game(db: Path) -> None:
    """The Director asks for one card: the log and the pending offers say "1 card", not "1 cards"."""
    mn(db, "new", "--ruleset", "classic-2003", *THREE, "--seed", "cli", "--id", "c1")
    assert mn(db, "order", "c1", "--as", "carthage", "ask 1").exit_code == 0

    status = mn(db, "status", "c1")

    assert mn(db, "log", "c1").stdout.splitlines()[-1] == (
        "   12  Carthage asked for 1 card; trading: Rome, Greece, Carthage")
    assert status.exit_code == 0
    assert status.stdout.splitlines()[3:] == [
        "  Rome: offer — offer 1 card face down",
        "  Greece: offer — offer 1 card face down",
        "  Carthage: offer — offer 1 card face down"]


# --- help that says what new users needed -------------------------------------------------------------

def test_tick_help_says_what_a_future_now_does() -> None:
    """`mn tick --help` says that --now in the future applies every default overdue by then at once."""
    result = CliRunner().invoke(main, ["tick", "--help"])

    assert result.exit_code == 0
    assert ("  --now in the future is taken as given: every deadline passed by then is\n"
            "  overdue, and each of those defaults is applied at once, recorded at that time.\n"
            "  Use it for tests and replays only.\n") in result.stdout


def test_keygen_help_says_to_agree_the_game_id_with_the_host() -> None:
    """Keys are made before the game: `mn keygen --help` says to agree the id given to mn new --id."""
    result = CliRunner().invoke(main, ["keygen", "--help"])

    assert result.exit_code == 0
    assert ("  The game need not exist yet: agree its id with the host first, who then\n"
            "  creates it with mn new --id GAME --public-key SIDE=HEX and never holds your\n") in result.stdout
    assert ("  --game GAME        The game the key is for: agree its id with the host, who\n"
            "                     creates it with mn new --id GAME.  [required]\n") in result.stdout


def test_the_browser_tests_say_why_they_skip_and_how_to_get_chromium(tmp_path: Path) -> None:
    """Without Chromium the browser tests are skipped and the summary prints how to get it."""
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    env = {k: v for k, v in os.environ.items() if k != "MN_CHROMIUM"} | {"PATH": str(tmp_path)}
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "tests/test_browser.py"], cwd=root, env=env, capture_output=True, text=True)

    skipped = [line.split(": ", 1)[1] for line in run.stdout.splitlines() if line.startswith("SKIPPED")]
    assert run.returncode == 0, run.stdout
    assert run.stdout.splitlines()[-1].startswith("5 skipped")
    assert set(skipped) == {"no Chromium on this machine: install Debian's `chromium` (apt-get install -y "
                           "chromium; CI's .ci/run does) to run the browser tests"}


# --- set-ups that fix their empires -----------------------------------------------------------------

@pytest.mark.parametrize(("setup", "empires"), [
    ("punic-war", ["rome", "carthage"]),
    ("atlantis", ["rome", "greece", "babylon", "egypt", "carthage", "atlantis"])])
def test_a_setup_alone_plays_the_empires_it_fixes(db: Path, setup: str, empires: list[str]) -> None:
    """`mn new --setup punic-war` needs no --empire: the set-up names who plays; --player still names them."""
    result = mn(db, "new", "--setup", setup, "--player", "rome=Ann", "--id", "s")

    assert result.exit_code == 0 and result.stdout == "s\n"
    shown = json.loads(mn(db, "show", "s", "--json").stdout)
    assert sorted(shown["empires"]) == sorted(empires)
    assert shown["empires"]["rome"]["player"] == "Ann"


def test_a_player_for_an_empire_the_setup_does_not_play_is_refused(db: Path) -> None:
    """Greece is not in the Punic War: --player greece=Ben is refused and no game is made."""
    result = mn(db, "new", "--setup", "punic-war", "--player", "greece=Ben")

    assert result.exit_code == 2
    assert result.stderr == "Error: --player names Greece, which the set-up punic-war does not play\n"
    assert mn(db, "games").stdout == ""


def test_random_with_too_few_players_for_a_setup_says_how_many_names_it_needs(db: Path) -> None:
    """--setup atlantis --random with three names: six --player names are needed."""
    result = mn(db, "new", "--setup", "atlantis", "--random", "--player", "Ann", "--player", "Ben",
                "--player", "Cat")

    assert result.exit_code == 2
    assert result.stderr == ("Error: the set-up atlantis plays 6 empires (Rome, Greece, Babylon, Egypt, Carthage, "
                             "Atlantis): --random needs 6 --player names, 3 given [rule atlas.atlantis]\n")
    assert mn(db, "games").stdout == ""


# --- the trade gift names the empire owed -----------------------------------------------------------

GIFT = """
round = 2
phase = "trade"
titles = { trade = "carthage" }
[empires.rome]
player = "Dave"
resources = { oil = 1 }
[empires.greece]
player = "Kirsten"
resources = { metal = 1 }
[empires.carthage]
player = "Grady"
resources = { sheep = 1, wine = 1 }
"""


def test_the_gift_owed_to_the_one_empire_left_short_names_it(db: Path, tmp_path: Path) -> None:
    """The 2.2.1 example: Grady (Carthage) claimed one more and Dave (Rome) one fewer: give to Rome."""
    (tmp_path / "gift.toml").write_text(GIFT)
    assert mn(db, "new", "--position", str(tmp_path / "gift.toml"), "--id", "g").exit_code == 0
    for side, line in (("carthage", "trade 1"), ("rome", "offer oil"), ("greece", "offer metal"),
                       ("carthage", "offer sheep"), ("carthage", "claim metal from greece"),
                       ("greece", "claim sheep from carthage"), ("carthage", "claim oil from rome")):
        assert mn(db, "order", "g", "--as", side, line).exit_code == 0

    result = mn(db, "status", "g")

    assert result.exit_code == 0
    assert result.stdout.splitlines()[3:] == [
        "  Carthage (Grady): give — give one resource to Rome, left short: give TOKEN to rome"]


def test_a_gift_owed_to_one_of_two_empires_left_short_says_the_giver_chooses() -> None:
    """Carthage claimed one more, Rome and Greece one fewer each: one gift, to either (ruling R28)."""
    from mncore.rulesets.empires.rules.trade import gift_text
    from mncore.rulesets.empires.state import Claim, TradeStep

    step = TradeStep(value=1, participants=("carthage", "rome", "greece"), revealed=True, over=True,
                     offered={"carthage": 1, "rome": 1, "greece": 1}, opener="carthage",
                     claims=(Claim(claimant="carthage", source="rome", token="oil"),
                             Claim(claimant="carthage", source="greece", token="metal")))
    assert gift_text(step) == ("give one resource to Rome or Greece, each left short, your choice "
                                "(1 owed in all, ruling R28): give TOKEN to EMPIRE")


def test_the_log_and_status_give_the_phase_one_name(db: Path, game: str) -> None:
    """The log's phase line and `mn status` both say "Trade Resources phase", the rulebook's name."""
    assert mn(db, "log", game, "--from", "6", "--to", "6").stdout == (
        "    6  Round 1: the Trade Resources phase begins.\n")
    assert mn(db, "status", game).stdout.startswith("Game g1: round 1, Trade Resources phase\n")


# --- a report's orders: what a player can do with a cut list, and what tiles cost --------------------

BUILDER = """
round = 2
phase = "build"
[step]
active = "rome"
[empires.rome]
player = "Ann"
resources = { coin = 1, grain = 1, metal = 1, oil = 1, wine = 1, papyrus = 1 }
[empires.greece]
[empires.carthage]
[provinces.latium]
controller = "rome"
"""

IMHOTEP = """
round = 2
phase = "build"
titles = { culture = "rome" }
display = [{ tile = "hanging-gardens", face_up = true }, { tile = "hercules", face_up = true }]
[step]
active = "rome"
[empires.rome]
tiles = ["caesar", "imhotep"]
resources = { coin = 8 }
[empires.greece]
[empires.carthage]
[cities]
expansions = ["ierusalem"]
"""


def test_a_reports_cut_list_of_payments_says_any_other_is_taken(db: Path, tmp_path: Path) -> None:
    """A report by mail cannot send the player to `mn options --all`: it says any legal payment is taken."""
    (tmp_path / "b.toml").write_text(BUILDER)
    assert mn(db, "new", "--position", str(tmp_path / "b.toml"), "--id", "b").exit_code == 0

    result = mn(db, "report", "b", "--as", "rome")

    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    at = lines.index("  build control in {province} pay {payment}")
    assert lines[at + 2] == ("      payment: grain metal oil | grain metal papyrus | grain metal wine | grain oil papyrus "
                             "| grain oil wine | grain papyrus wine (and 4 more: any other payment the rules "
                             "accept is taken too)")
    assert "mn options --all" not in result.stdout


def test_tile_options_say_what_the_tile_costs(db: Path, tmp_path: Path) -> None:
    """Rome's third tile costs 8 (3.1.3), a wonder 7 with Imhotep: the options say so and pay that."""
    (tmp_path / "i.toml").write_text(IMHOTEP)
    assert mn(db, "new", "--position", str(tmp_path / "i.toml"), "--id", "i").exit_code == 0

    result = mn(db, "options", "i", "--as", "rome")

    lines = result.stdout.splitlines()
    at = lines.index("recruit {hero} pay {payment}    # costs 8 resources")
    assert result.exit_code == 0
    assert lines[at:at + 6] == [
        "recruit {hero} pay {payment}    # costs 8 resources",
        "    hero: hercules",
        "    payment: coin coin coin coin coin coin coin coin",
        "build {wonder} pay {payment}    # costs 7 resources",
        "    wonder: hanging-gardens",
        "    payment: coin coin coin coin coin coin coin"]


# --- the service's marks on its acts only -----------------------------------------------------------

def test_a_standing_order_marks_its_act_and_not_the_phase_events_that_follow(db: Path, game: str) -> None:
    """Carthage's standing 'trade 3' is applied: the marker is [standing]; trading beginning is not."""
    result = mn(db, "standing", game, "--as", "carthage", "trade 3")

    assert result.exit_code == 0
    assert result.stdout.splitlines()[:3] == [
        "    7  Carthage left standing orders: trade 3.",
        "    8  [standing] Carthage, the Trade Leader, plays the exchange marker for 3.",
        "    9  Trading: Rome, Greece, Carthage take part; Carthage claims first."]
    assert mn(db, "log", game, "--from", "8").stdout == (
        "    8  [standing] Carthage, the Trade Leader, plays the exchange marker for 3.\n"
        "    9  Trading: Rome, Greece, Carthage take part; Carthage claims first.\n")


# --- the demo's round lines ----------------------------------------------------------------------------

@pytest.mark.slow
def test_the_demo_says_its_levels_are_taken_as_a_round_begins_and_the_last_as_it_ends(db: Path) -> None:
    """The last "begins" line differs from the final table; the "ends" line after it is the table's."""
    result = mn(db, "demo")

    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[1] == ("Round 1 begins: levels (trade/culture/military) Rome 7/1/3; Greece 4/4/3; "
                        "Carthage 7/1/2; titles: trade Carthage, culture Greece, military Rome")
    assert lines[19:21] == [
        "Round 19 begins: levels (trade/culture/military) Rome 10/4/16; Greece 8/7/17; Carthage 4/0/5; "
        "titles: trade Rome, culture Greece, military Greece",
        "Round 19 ends: levels (trade/culture/military) Rome 9/4/15; Greece 9/7/16; Carthage 5/0/5; "
        "titles: trade Greece, culture Greece, military Greece"]
    assert "Greece      Ben             9       7     15+1  trade, culture, military" in result.stdout


# --- the 2003 game without an owner's tiles file -----------------------------------------------------

NO_POWERS = ("No owner's tiles file: heroes, wonders, gods and creatures have the rules' effects only, no "
             "powers of their own (ruling classic:C3; docs/classic-tiles.md, mn new --option tiles=FILE).")


def test_a_2003_game_without_a_tiles_file_says_its_cards_have_no_powers(db: Path) -> None:
    """mn new says so on stderr (stdout is the id alone); mn show says it as its last line."""
    new = mn(db, "new", "--ruleset", "classic", "--empire", "rome", "--empire", "greece", "--empire", "egypt",
             "--id", "c1", "--seed", "x")
    show = mn(db, "show", "c1")

    assert (new.exit_code, new.stdout, new.stderr) == (0, "c1\n", f"Note: {NO_POWERS}\n")
    assert show.exit_code == 0 and show.stdout.splitlines()[-1] == NO_POWERS


def test_a_2003_game_with_keys_says_so_too(db: Path, tmp_path: Path) -> None:
    new = mn(db, "new", "--ruleset", "classic", "--empire", "rome", "--empire", "greece", "--empire", "egypt",
             "--keys-dir", str(tmp_path / "keys"), "--id", "k1", "--seed", "x")

    assert new.exit_code == 0 and new.stdout == "k1\n"
    assert new.stderr.splitlines()[-1] == f"Note: {NO_POWERS}"


def test_an_empires_game_has_no_such_notice(db: Path) -> None:
    new = mn(db, "new", *THREE, "--id", "e1", "--seed", "x")

    assert (new.exit_code, new.stdout, new.stderr) == (0, "e1\n", "")


# --- shell completion --------------------------------------------------------------------------------

def _complete(db: Path, words: list[str], incomplete: str) -> list[str]:
    from click.shell_completion import BashComplete

    return [c.value for c in BashComplete(main, {}, "mn", "_MN_COMPLETE").get_completions(
        ["--db", str(db), *words], incomplete)]


def test_tab_completes_the_game_ids_in_the_database(db: Path, game: str) -> None:
    assert mn(db, "new", *THREE, "--id", "h2", "--seed", "x").exit_code == 0

    assert _complete(db, ["status"], "") == ["g1", "h2"]
    assert _complete(db, ["log"], "h") == ["h2"]


def test_tab_completes_the_sides_of_the_game_named(db: Path, game: str) -> None:
    assert _complete(db, ["options", "g1", "--as"], "") == ["rome", "greece", "carthage"]
    assert _complete(db, ["order", "g1", "--as"], "G") == ["greece"]


def test_tab_completes_the_verbs_of_the_orders_the_side_may_give(db: Path, game: str) -> None:
    """Carthage is to play its exchange marker (`trade N`); a seeded game also takes `fix` (sandbox)."""
    assert _complete(db, ["order", "g1", "--as", "carthage"], "") == ["trade", "fix"]
    assert _complete(db, ["order", "g1", "--as", "carthage"], "t") == ["trade"]


def test_tab_completion_without_a_database_offers_nothing_and_creates_none(tmp_path: Path) -> None:
    db = tmp_path / "none.db"

    assert _complete(db, ["status"], "") == []
    assert not db.exists()
