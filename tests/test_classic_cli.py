"""The classic game through mn, where it differs from Empires: its creation, grammar, hidden offers, map
and demo. The scenarios both games share (status, order, check, explain, positions, forks, diff,
disputes, export and import) run over both rulesets in the Empires CLI test files (tests/both.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import msgspec
import pytest
from click.testing import CliRunner, Result

from mncli.cli import main
from mncore.core.toml_text import toml_text


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


def test_options_list_the_legal_orders(db: Path, game: str) -> None:
    """The Director may ask for 0 up to the cards in his hand."""
    result = mn(db, "options", game, "--as", "carthage")

    assert result.exit_code == 0
    assert result.stdout == "ask {count}\n    count: 0 | 1 | 2 | 3 | 4\n"
    assert mn(db, "options", game, "--as", "rome").stdout == "Rome has nothing to order now.\n"


def test_a_malformed_order_exits_2(db: Path, game: str) -> None:
    """An order the grammar cannot read is not a rule question: exit 2."""
    result = mn(db, "order", game, "--as", "carthage", "ask lots")

    assert result.exit_code == 2
    assert result.stderr == "Error: 'ask lots': 'lots' is not a number\n"


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
        "Event 13 (CardsOffered): Rome offered wine face down\n"
        "Caused by: Rome: 'offer wine' (batch starting at event 13); the order's own event.\n"
        "Rules applied:\n"
        "  3.2.2              Trading: each player places that many cards face down; a player without "
        "enough does not trade\n")
    assert mn(db, "explain", game, "13", "--as", "greece").stdout.splitlines()[:2] == [
        "Event 13 (CardsOffered): Rome offered cards face down",
        "Caused by: Rome: '(hidden)' (batch starting at event 13); the order's own event."]


def test_a_position_for_one_side_hides_the_others_hands(db: Path, game: str) -> None:
    text = mn(db, "position", game, "--as", "rome").stdout

    assert "\n[hands.rome]\noil = 1\ntax = 2\nwine = 1\n" in text
    assert "\n[hands.greece]\n\n[hands.carthage]\n\n" in text


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


def test_draw_and_html_picture_the_board_as_a_map(db: Path, game: str, tmp_path: Path) -> None:
    """mn draw writes an SVG map of the reconstructed board (each place where its namesake lies);
    mn html a page to step through the game."""
    svg, page = tmp_path / "b.svg", tmp_path / "g.html"

    drawn = mn(db, "draw", game, "--as", "greece", "-o", str(svg))
    html = mn(db, "html", game, "--as", "greece", "-o", str(page))

    text = svg.read_text()
    assert drawn.exit_code == 0 and html.exit_code == 0, html.output
    assert text.startswith("<svg") and "(not the printed board)" in text
    assert text.count('<g id="province-') == 41 and text.count('<path id="sea-') == 10
    assert re.search(r'<path id="area-achaea" class="province"[^>]* fill="#2e86c1"', text)  # on the real coast
    assert "Gre 2L1F1T" in text and "<html" in page.read_text().lower()


def test_the_map_shows_each_side_the_same_board_and_no_face_down_card(db: Path, game: str,
                                                                     tmp_path: Path) -> None:
    """Per side (the redaction boundary): the board is public, so every side's map is the host's; the
    hands and the offers lying face down change no picture."""
    before = mn(db, "draw", game, "-o", "-").stdout
    for civ, line in (("carthage", "ask 2"), ("rome", "offer wine oil")):
        assert mn(db, "order", game, "--as", civ, line).exit_code == 0

    pictures = {side: mn(db, "draw", game, "-o", "-", *(("--as", side) if side else ())).stdout
                for side in ("", "rome", "greece", "carthage")}

    assert set(pictures.values()) == {before}


def test_a_board_files_places_the_layout_does_not_know_are_listed_beside_the_map(db: Path,
                                                                                 tmp_path: Path) -> None:
    """A board of one's own may add places: they are named under the map, not placed at random."""
    from mncore.rulesets.classic.components import load_board
    board = json.loads(msgspec.json.encode(load_board()))
    board["sea"].append({"id": "rubrum", "name": "Mare Rubrum", "adjacent": ["aegyptium"]})
    next(s for s in board["sea"] if s["id"] == "aegyptium")["adjacent"].append("rubrum")
    path = tmp_path / "board.toml"
    path.write_text(toml_text(board))
    mn(db, "new", "--ruleset", "classic", "--empire", "rome", "--empire", "greece", "--empire", "carthage",
       "--board", str(path), "--seed", "b", "--id", "b1")

    text = mn(db, "draw", "b1", "-o", "-").stdout

    assert "Not on this map (a board file's own places): Mare Rubrum" in text
    assert '<g id="sea-rubrum">' not in text


def test_the_layout_places_every_place_of_the_shipped_board_inside_the_picture() -> None:
    from mncore.rulesets.classic.board_svg import HEIGHT, WIDTH, point
    from mncore.rulesets.classic.components import load_board
    board = load_board()

    points = {place: point(place) for place in [p.id for p in board.province] + [s.id for s in board.sea]}

    assert all(at is not None and 0 < at[0] < WIDTH and 0 < at[1] < HEIGHT - 40 for at in points.values())


@pytest.mark.slow
def test_the_demo_plays_six_players_to_a_win_that_verifies(db: Path) -> None:
    result = mn(db, "demo", "--ruleset", "classic", "--players", "6")

    assert result.exit_code == 0, result.output
    assert "Result: Greece won by classic:7.1" in result.stdout
    assert "Verify: ok" in result.stdout
    # each round's line counts the hands once the Commerce phase has filled them (3.1)
    assert ("Round 1, after commerce: Rome 4 cards, 3 provinces; Greece 4 cards, 3 provinces; Carthage 4 "
            "cards, 3 provinces; Egypt 4 cards, 3 provinces; Babylon 4 cards, 3 provinces; Atlantis 4 cards, "
            "3 provinces\n") in result.stdout
    assert ("Round 7, after commerce: Rome 10 cards, 6 provinces, 1 hero or wonder; Greece 12 cards, 8 "
            "provinces; Carthage 4 cards, 3 provinces; Egypt 9 cards, 5 provinces, 2 heroes and wonders; "
            "Babylon 13 cards, 8 provinces; Atlantis 4 cards, 3 provinces\n") in result.stdout


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
