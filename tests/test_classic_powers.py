"""Owners' card powers through mn (rulings C16-C18): the tiles file read, checked and recorded, then played."""

from __future__ import annotations

import hashlib
import json
import tomllib
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from mncli.cli import main
from mncore.core.toml_text import toml_text

TILES = """\
[[power]]
card = "hannibal"
text = "Elephants: the Carthaginian legions strike harder."
effects = [{ type = "AutoSix", count = 1 }, { type = "ExtraCards", card = "tax", count = 1 }]

[[power]]
card = "zeus"
effects = [{ type = "ExtraCards", card = "wine", count = 2 }]
"""

NEW = ("new", "--ruleset", "classic", "--empire", "rome", "--empire", "greece", "--empire", "carthage",
       "--seed", "powers")


def mn(db: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["--db", str(db), *args])


@pytest.fixture()
def db(tmp_path: Path) -> Path:
    return tmp_path / "powers.db"


@pytest.fixture()
def tiles(tmp_path: Path) -> Path:
    path = tmp_path / "tiles.toml"
    path.write_text(TILES)
    return path


def created(db: Path, tiles: Path, game: str = "p1") -> Result:
    result = mn(db, *NEW, "--id", game, "--option", f"tiles={tiles}")
    assert result.exit_code == 0, result.output
    return result


def test_c16_the_tiles_file_is_recorded_with_its_hash(db: Path, tiles: Path) -> None:
    """mn new --option tiles=FILE records the file's powers and SHA-256 in the first event."""
    digest = hashlib.sha256(TILES.encode()).hexdigest()

    created(db, tiles)

    assert mn(db, "log", "p1", "--to", "1").stdout == (
        "    1  Classic game created: Rome (Rome), Greece (Greece), Carthage (Carthage); neutral: Egypt, "
        f"Babylon, Atlantis; owner's powers for Hannibal, Zeus (tiles file sha256 {digest[:12]}, rule "
        "classic:C16)\n")
    shown = json.loads(mn(db, "show", "p1", "--json").stdout)
    assert shown["powers"] == {"sha256": digest, "cards": {
        "hannibal": ["1 more automatic 6 in each ground battle", "1 more tax card(s) with the revenues"],
        "zeus": ["2 more wine card(s) with the revenues"]}}


def test_c16_a_game_replays_and_verifies_without_the_file(db: Path, tiles: Path, tmp_path: Path) -> None:
    """The file may be gone: the log holds what it said, so replay, reveal and verify need nothing else."""
    created(db, tiles)
    tiles.unlink()

    mn(db, "order", "p1", "--as", "carthage", "ask 0")
    mn(db, "reveal", "p1", "--force")
    verified = mn(db, "verify", "p1")

    assert verified.exit_code == 0, verified.output
    assert "every random outcome recomputes" in verified.stdout


@pytest.mark.parametrize(("text", "error"), [
    ('[[power]]\ncard = "hannibal"\neffects = [{ type = "AutoSix", count = 0 }]\n',
     "Expected `int` >= 1 - at `$.power[0].effects[0].count`"),
    ('[[power]]\ncard = "hannibal"\neffects = [{ type = "Thunder" }]\n',
     "Invalid value 'Thunder' - at `$.power[0].effects[0].type`"),
    ('[[power]]\ncard = "hannibal"\nefects = []\n',
     "Object contains unknown field `efects` - at `$.power[0]`"),
    ('[[power]]\ncard = "hanibal"\neffects = [{ type = "IgnoreBlockade" }]\n',
     "power[0].card: 'hanibal' is not a hero, wonder, god or creature of the game data (the Pyramids' "
     "power is the win, 7.1)"),
    ('[[power]]\ncard = "caesar"\neffects = [{ type = "Discount", item = "palace" }, '
     '{ type = "ExtraCards", card = "silk" }]\n',
     "power[0].effects[0].item: 'palace' has no price; one of influence, city, caravan, legion, trireme, "
     "fortress, temple, market, creature, hero; power[0].effects[1].card: 'silk' is not a resource card "
     "of the board: tax, cloth, gems, gold, grain, ivory, marble, metal, oil, papyrus, spices, wine, wood"),
    ('[[power]]\ncard = "zeus"\neffects = [{ type = "WinWith", cards = 2 }]\n',
     "power[0].effects[0].type: WinWith is not a god's effect (a god's power lasts one phase, ruling C17)"),
    ('[[power]]\ncard = "zeus"\neffects = []\n[[power]]\ncard = "zeus"\neffects = [{ type = "AutoSix" }]\n',
     "power[0].effects: a power has at least one effect; power[1].card: zeus has a power already"),
])
def test_c16_a_bad_tiles_file_names_its_field_exits_2_and_writes_nothing(db: Path, tmp_path: Path, text: str,
                                                                         error: str) -> None:
    """Each problem of the file is named by its field; nothing is created."""
    path = tmp_path / "bad.toml"
    path.write_text(text)

    result = mn(db, *NEW, "--id", "bad", "--option", f"tiles={path}")

    assert result.exit_code == 2
    assert result.stderr == f"Error: tiles file {path}: {error}\n"
    assert not db.exists()


def test_c16_a_missing_tiles_file_exits_2(db: Path, tmp_path: Path) -> None:
    result = mn(db, *NEW, "--option", f"tiles={tmp_path / 'none.toml'}")

    assert result.exit_code == 2
    assert result.stderr == f"Error: cannot read tiles file {tmp_path / 'none.toml'}: No such file or directory\n"


def _with_god(db: Path, tmp_path: Path) -> None:
    """A sandbox at the game's Offering phase with Rome holding Zeus face up (a position edited)."""
    mn(db, "order", "p1", "--as", "carthage", "ask 0")
    path = tmp_path / "p.toml"
    mn(db, "position", "p1", "-o", str(path))
    position: dict[str, Any] = tomllib.loads(path.read_text())
    position["gods"] = {"rome": {"god": "zeus"}}
    path.write_text(toml_text(position))
    result = mn(db, "new", "--ruleset", "classic", "--position", str(path), "--id", "s1")
    assert result.exit_code == 0, result.output


def test_c17_the_options_say_what_invoking_the_god_does(db: Path, tiles: Path, tmp_path: Path) -> None:
    """The powers travel with a position; the holder's options name the god's power."""
    created(db, tiles)
    _with_god(db, tmp_path)

    assert mn(db, "options", "s1", "--as", "rome").stdout == (
        "pass\n"
        "invoke zeus    # 2 more wine card(s) with the revenues (C16, C17)\n")


def test_c17_invoking_the_god_gives_its_cards_at_once(db: Path, tiles: Path, tmp_path: Path) -> None:
    """`invoke zeus`: the card turns face down and its ExtraCards come into the hand."""
    created(db, tiles)
    _with_god(db, tmp_path)

    result = mn(db, "order", "s1", "--as", "rome", "invoke zeus")

    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[:2] == [
        "    3  Rome invoked Zeus (its power: rule classic:C16); the card is face down",
        "    4  Rome gained wine 2 by the power of Zeus (rule classic:C16)"]
    assert json.loads(mn(db, "show", "s1", "--as", "rome", "--json").stdout)["civs"]["rome"]["hand"] == {
        "oil": 1, "tax": 2, "wine": 3}


def test_c16_the_documented_example_file_is_a_valid_tiles_file(db: Path, tmp_path: Path) -> None:
    """docs/classic-tiles.md's full example creates a game whose every card has its power."""
    text = (Path(__file__).parents[1] / "docs" / "classic-tiles.md").read_text()
    example = text.split("### A full example\n\n```toml\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "my-tiles.toml"
    path.write_text(example)

    result = mn(db, *NEW, "--id", "ex", "--option", f"tiles={path}")

    assert result.exit_code == 0, result.output
    shown = json.loads(mn(db, "show", "ex", "--json").stdout)
    assert sorted(shown["powers"]["cards"]) == [
        "ares", "athena", "colossus", "hannibal", "hercules", "homer", "library", "minotaur", "poseidon", "zeus"]


def test_c16_a_position_with_a_bad_power_is_refused_naming_it(db: Path, tiles: Path, tmp_path: Path) -> None:
    """A hand-edited position's powers are checked as a tiles file is: exit 2, nothing written."""
    created(db, tiles)
    path = tmp_path / "p.toml"
    mn(db, "position", "p1", "-o", str(path))
    position: dict[str, Any] = tomllib.loads(path.read_text())
    position["powers"]["power"][1]["effects"][0]["card"] = "silk"
    path.write_text(toml_text(position))

    result = mn(db, "new", "--ruleset", "classic", "--position", str(path), "--id", "s2")

    assert result.exit_code == 2
    assert result.stderr.startswith(f"Error: position file {path}: powers.power[1].effects[0].card: 'silk' "
                                    "is not a resource card of the board")
    assert "s2" not in mn(db, "games").stdout
