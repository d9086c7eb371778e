"""The classic game through mn: the same scenarios the Empires CLI tests run (new, status, options,
order, check, explain, positions, forks, diff, disputes, export and import, map, demo)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from mncli.cli import main


def mn(db: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["--db", str(db), *args])


def doc(db: Path, *args: str) -> Any:
    result = mn(db, *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture()
def db(tmp_path: Path) -> Path:
    return tmp_path / "classic.db"


@pytest.fixture()
def game(db: Path) -> str:
    result = mn(db, "new", "--ruleset", "classic-2003", "--empire", "rome", "--empire", "greece",
                "--empire", "carthage", "--player", "rome=Ann", "--player", "greece=Ben",
                "--player", "carthage=Cat", "--seed", "cli", "--id", "c1")
    assert result.exit_code == 0, result.output
    return result.stdout.strip()


def offers(db: Path, game: str) -> None:
    """The Director asks for one card; each player offers one face down."""
    for civ, line in (("carthage", "ask 1"), ("rome", "offer wine"), ("greece", "offer metal"),
                      ("carthage", "offer ivory")):
        result = mn(db, "order", game, "--as", civ, line)
        assert result.exit_code == 0, result.output


def test_new_with_the_ruleset_alias_records_the_classic_game(db: Path, game: str) -> None:
    """`mn new --ruleset classic-2003` creates a game of the 2003 edition, its log naming the ruleset."""
    shown = doc(db, "show", game)

    assert game == "c1"
    assert shown["ruleset"] == "mare-nostrum-classic-2003"
    assert mn(db, "log", game, "--to", "2").stdout == (
        "    1  Classic game created: Rome (Ann), Greece (Ben), Carthage (Cat); neutral: Egypt, "
        "Babylon, Atlantis\n"
        "    2  8 hero and wonder cards were set aside: Archimedes, Circus Maximus, Colossus of Rhodes, "
        "Jason, Great Library, Lighthouse of Alexandria, Pythagoras, Ulysses\n")


def test_status_says_who_is_awaited_for_what(db: Path, game: str) -> None:
    """The Director of Commerce asks first (3.2.1)."""
    assert mn(db, "status", game).stdout == (
        "Game c1: round 1, commerce phase\n"
        "NOT a fair-play game: its secret is known (seed) or it is a sandbox.\n"
        "Waiting for:\n"
        "  Carthage: ask — ask how many cards each player offers\n")


def test_options_list_the_legal_orders(db: Path, game: str) -> None:
    """The Director may ask for 0 up to the cards in his hand."""
    result = mn(db, "options", game, "--as", "carthage")

    assert result.exit_code == 0
    assert result.stdout == "ask {count}\n    count: 0 | 1 | 2 | 3 | 4\n"
    assert mn(db, "options", game, "--as", "rome").stdout == "Rome has nothing to order now.\n"


def test_a_refused_order_names_its_section_exits_1_and_writes_nothing(db: Path, game: str) -> None:
    """Only the Director asks: [rule classic:3.2.1], exit 1, the log unchanged."""
    before = mn(db, "log", game).stdout

    result = mn(db, "order", game, "--as", "rome", "ask 1")

    assert result.exit_code == 1
    assert result.stderr == "Error: 'ask 1': the Director of Commerce, Carthage, asks [rule classic:3.2.1]\n"
    assert mn(db, "log", game).stdout == before


def test_a_malformed_order_exits_2(db: Path, game: str) -> None:
    """An order the grammar cannot read is not a rule question: exit 2."""
    result = mn(db, "order", game, "--as", "carthage", "ask lots")

    assert result.exit_code == 2
    assert result.stderr == "Error: 'ask lots': 'lots' is not a number\n"


def test_check_shows_the_events_and_writes_nothing(db: Path, game: str) -> None:
    """mn check decides the order on the game and prints what it would cause."""
    before = mn(db, "log", game).stdout

    result = mn(db, "check", game, "--as", "carthage", "ask 1")

    assert result.exit_code == 0
    assert result.stdout == ("Accepted: 'ask 1' would cause 1 event(s):\n"
                             "  Carthage asked for 1 cards; trading: Rome, Greece, Carthage\n")
    assert mn(db, "log", game).stdout == before


def test_check_refusal_exits_1_with_its_section_in_json(db: Path, game: str) -> None:
    result = mn(db, "check", game, "--as", "carthage", "ask 9", "--json")

    assert result.exit_code == 1
    assert json.loads(result.stdout) == {"accepted": False, "order": "ask 9", "section": "classic:3.2.1",
                                         "reason": "the Director may ask for 0 to 4 cards (his hand), not 9"}


def test_check_of_the_last_offer_does_not_show_the_others_face_down_cards(db: Path, game: str) -> None:
    """Before the reveal, mn check decides on stand-ins for the others' hands and offers (Conceals)."""
    for civ, line in (("carthage", "ask 1"), ("rome", "offer wine"), ("greece", "offer metal")):
        assert mn(db, "order", game, "--as", civ, line).exit_code == 0

    result = mn(db, "check", game, "--as", "carthage", "offer ivory")

    assert result.exit_code == 0
    assert "wine" not in result.stdout and "metal" not in result.stdout
    assert "Offers turned face up" in result.stdout


def test_explain_names_the_order_and_the_rules(db: Path, game: str) -> None:
    """mn explain: the event, the order behind it (hidden from another side), the sections applied."""
    offers(db, game)

    assert mn(db, "explain", game, "13").stdout == (
        "Event 13 (CardsOffered): Rome offered wine face down\nOrder: offer wine (by rome)\n"
        "Rules: classic:3.2.2\n")
    assert mn(db, "explain", game, "13", "--as", "greece").stdout == (
        "Event 13 (CardsOffered): Rome offered cards face down\nOrder: (hidden) (by rome)\n"
        "Rules: classic:3.2.2\n")


def test_a_position_starts_a_sandbox_game_that_matches(db: Path, game: str, tmp_path: Path) -> None:
    """mn position writes the state; mn new --position starts a sandbox at it; mn diff finds nothing."""
    offers(db, game)
    path = tmp_path / "p.toml"

    written = mn(db, "position", game, "-o", str(path))
    created = mn(db, "new", "--ruleset", "classic", "--position", str(path), "--id", "p1")

    assert written.exit_code == 0 and created.exit_code == 0, created.output
    assert mn(db, "diff", game, "p1").stdout == "No differences.\n"
    assert doc(db, "status", "p1")["pending"] == [
        {"side": "carthage", "kind": "take", "text": "take a face-up card from another player"}]


def test_a_position_for_one_side_hides_the_others_hands(db: Path, game: str) -> None:
    text = mn(db, "position", game, "--as", "rome").stdout

    assert '"rome" = {"oil" = 1, "tax" = 2, "wine" = 1}' in text
    assert '"greece" = {}' in text and '"carthage" = {}' in text


def test_a_fork_plays_on_from_an_event(db: Path, game: str) -> None:
    """mn fork copies events 1..N into a sandbox that takes other orders."""
    offers(db, game)

    forked = mn(db, "fork", game, "--at", "11", "--as", "f1")
    ordered = mn(db, "order", "f1", "--as", "carthage", "ask 0")

    assert forked.exit_code == 0 and ordered.exit_code == 0, ordered.output
    assert "Trading ended" in mn(db, "log", "f1").stdout
    assert mn(db, "verify", "f1").exit_code == 0


def test_a_dispute_bundle_verifies_anywhere(db: Path, game: str, tmp_path: Path) -> None:
    """mn dispute bundles the log, positions and explanation of an event; mn verify checks it."""
    offers(db, game)
    bundle = tmp_path / "b.json"

    made = mn(db, "dispute", game, "--at", "16", "-o", str(bundle))
    checked = mn(tmp_path / "other.db", "verify", str(bundle))

    assert made.exit_code == 0, made.output
    assert checked.exit_code == 0, checked.output
    assert "event 16 (OffersRevealed) was caused by Carthage: 'offer ivory'" in checked.stdout


def test_an_export_for_one_side_withholds_the_face_down_offers(db: Path, game: str, tmp_path: Path) -> None:
    """mn export --as greece carries Rome's offer as a commitment only, until the offers are revealed."""
    for civ, line in (("carthage", "ask 1"), ("rome", "offer wine")):
        mn(db, "order", game, "--as", civ, line)
    out = tmp_path / "g.jsonl"

    mn(db, "export", game, "--as", "greece", "-o", str(out))

    offer = [json.loads(line) for line in out.read_text().splitlines() if "CardsOffered" in line]
    assert len(offer) == 1 and "wine" not in json.dumps(offer)


def test_export_import_and_verify_after_the_reveal(db: Path, game: str, tmp_path: Path) -> None:
    offers(db, game)
    out = tmp_path / "all.jsonl"
    mn(db, "reveal", game, "--force")
    mn(db, "export", game, "-o", str(out))

    imported = mn(tmp_path / "i.db", "import", str(out))
    verified = mn(tmp_path / "i.db", "verify", imported.stdout.strip())

    assert imported.exit_code == 0 and verified.exit_code == 0, verified.output
    assert "every random outcome recomputes" in verified.stdout


def test_the_map_says_it_is_reconstructed_and_checks_a_board_file(db: Path) -> None:
    """The 2003 board with the Mythology board is a reconstruction, shown and checked by mn map."""
    shown = mn(db, "map", "show", "--ruleset", "classic")
    lydia = mn(db, "map", "show", "--ruleset", "classic", "lydia")
    checked = mn(db, "map", "check", "--ruleset", "classic", "mncore/rulesets/classic/data/board.toml")

    assert "RECONSTRUCTED, NOT THE PRINTED BOARD" in shown.stdout
    assert lydia.stdout == ("  Lydia: 1 city site(s); resources gold; borders Troas, Galatia, Cilicia; "
                            "seas Mare Aegaeum, Mare Cyprium\n")
    assert checked.exit_code == 0 and "41 provinces, 10 seas" in checked.stdout


def test_a_broken_board_file_is_refused_with_its_problems(db: Path, tmp_path: Path) -> None:
    board = tmp_path / "b.toml"
    text = Path("mncore/rulesets/classic/data/board.toml").read_text()
    board.write_text(text.replace('land = ["etruria", "campania"]', 'land = ["etruria", "atlantis"]'))

    result = mn(db, "new", "--ruleset", "classic", "--board", str(board), "--empire", "rome",
                "--empire", "greece", "--empire", "egypt")

    assert result.exit_code == 2
    assert "land link" in result.stderr and not (tmp_path / "classic.db").exists()


def test_draw_and_html_picture_the_board_as_a_side_sees_it(db: Path, game: str, tmp_path: Path) -> None:
    """mn draw writes a schematic SVG of the board; mn html a page to step through the game."""
    svg, page = tmp_path / "b.svg", tmp_path / "g.html"

    drawn = mn(db, "draw", game, "--as", "greece", "-o", str(svg))
    html = mn(db, "html", game, "--as", "greece", "-o", str(page))

    assert drawn.exit_code == 0 and html.exit_code == 0, html.output
    assert svg.read_text().startswith("<svg") and "Achaea" in svg.read_text()
    assert "not a map" in svg.read_text() and "<html" in page.read_text().lower()


@pytest.mark.slow
def test_the_demo_plays_six_players_to_a_win_that_verifies(db: Path) -> None:
    result = mn(db, "demo", "--ruleset", "classic", "--players", "6")

    assert result.exit_code == 0, result.output
    assert "Result: Greece won by classic:7.1" in result.stdout
    assert "Verify: ok" in result.stdout


def test_rules_prints_a_ruling_of_the_classic_game(db: Path) -> None:
    """mn rules --ruleset classic C4 prints the ruling a refusal cites."""
    result = mn(db, "rules", "--ruleset", "classic", "C4")

    assert result.exit_code == 0
    assert result.stdout.startswith("## C4 — An offering is a set of 3 cards\n")


def test_the_options_of_a_new_game_are_checked(db: Path) -> None:
    """--option takes the ruleset's own options; an unknown one or value is refused with exit 2."""
    longer = mn(db, "new", "--ruleset", "classic", "--empire", "rome", "--empire", "greece", "--empire",
                "egypt", "--option", "variant=long", "--option", "setup=advanced", "--seed", "o", "--id", "o1")
    bad = mn(db, "new", "--ruleset", "classic", "--empire", "rome", "--option", "variant=short")

    assert longer.exit_code == 0, longer.output
    assert doc(db, "show", "o1")["variant"] == "long" and doc(db, "show", "o1")["phase"] == "setup"
    assert bad.exit_code == 2 and bad.stderr == "Error: option variant=short: expected standard or long\n"
