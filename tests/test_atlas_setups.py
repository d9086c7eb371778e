"""The Atlas expansion's set-ups (ALTERNATIVE GAME SETUPS, 6 PLAYER EXPANSION): mn new --setup, the board
each plays on, who plays, what is covered, starting units, tracks and titles, and whole games to a win."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from atlas_golden import GAMES, SCRIPTED, fixture, play, record
from golden import fixture as base_fixture
from golden import without_clock
from mncli.cli import main
from mncore.games import reading, transfer
from mncore.rulesets.empires.ids import Empire
from mncore.rulesets.empires.projections import unit_count
from mncore.rulesets.empires.state import GameState
from mncore.store import open_store

EMPIRES_OF: dict[str, tuple[Empire, ...]] = {
    "alternative-3": ("greece", "babylon", "egypt"),
    "alternative-4": ("rome", "greece", "carthage", "atlantis"),
    "alternative-5": ("rome", "greece", "egypt", "carthage", "atlantis"),
    "atlantis": ("rome", "greece", "babylon", "egypt", "carthage", "atlantis"),
}
COVERED = {"alternative-3": ("rome", "carthage"), "alternative-4": ("babylon", "egypt"),
           "alternative-5": ("babylon",), "atlantis": ()}
DISCARDED = {"alternative-3": {"caesar", "hannibal"}, "alternative-4": {"hammurabi", "cleopatra"},
             "alternative-5": {"hammurabi"}}
TITLES = {  # ruling R51 where the standard holder is covered
    "alternative-3": {"trade": "babylon", "culture": "egypt", "military": "greece"},
    "alternative-4": {"trade": "carthage", "culture": "greece", "military": "rome"},
    "alternative-5": {"trade": "carthage", "culture": "egypt", "military": "rome"},
    "atlantis": {"trade": "carthage", "culture": "egypt", "military": "rome"},
}
# set-up step 4's starting values (Trade, Culture, Military); Atlantis's from its reconstructed screen
VALUES = {"rome": (7, 1, 3), "greece": (4, 4, 3), "babylon": (5, 3, 2), "egypt": (4, 4, 2),
          "carthage": (7, 1, 2), "atlantis": (5, 3, 3)}
# starting legions, fortresses, triremes
UNITS = {"rome": (1, 1, 1), "greece": (1, 1, 1), "babylon": (1, 1, 0), "egypt": (1, 1, 0),
         "carthage": (1, 0, 1), "atlantis": (1, 1, 1)}
SETUPS = list(EMPIRES_OF)


def mn(db: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["--db", str(db), *args])


def _new(db: Path, setup: str, empires: tuple[str, ...] | None = None) -> Result:
    sides = [a for e in (empires or EMPIRES_OF[setup]) for a in ("--empire", e)]
    return mn(db, "new", "--setup", setup, *sides, "--seed", "s", "--id", "g")


def _state(db: Path) -> GameState:
    state = reading.load(open_store(str(db)), "g").state
    assert isinstance(state, GameState)
    return state


@pytest.mark.parametrize("setup", SETUPS)
def test_atlas_setups_mn_new_plays_the_named_empires_with_the_named_regions_covered(
        setup: str, tmp_path: Path) -> None:
    """mn new --setup NAME: the empires the set-up names play; no province of a covered region is in play."""
    db = tmp_path / "g.db"

    result = _new(db, setup)

    assert (result.exit_code, result.stdout) == (0, "g\n")
    state = _state(db)
    assert tuple(state.empires) == EMPIRES_OF[setup]
    assert state.options.setup == setup
    board = state.geo_board
    covered = {p.id for p in board.provinces if p.region in COVERED[setup]}
    assert covered.isdisjoint(state.provinces)
    assert {p.id for p in board.provinces} - covered == set(state.provinces)


@pytest.mark.parametrize("setup", SETUPS)
def test_atlas_setups_starting_units_tracks_and_titles(setup: str, tmp_path: Path) -> None:
    """Each empire starts with its screen's units and leader values; the titles are the set-up's (R51)."""
    db = tmp_path / "g.db"
    _new(db, setup)

    state = _state(db)
    doc = json.loads(mn(db, "show", "g", "--json").stdout)

    for emp in EMPIRES_OF[setup]:
        tracks = doc["empires"][emp]["tracks"]
        assert (tracks["trade"], tracks["culture"], tracks["military"]) == VALUES[emp], emp
        units = unit_count(state, emp)
        assert (units["legion"], units["fortress"], units["trireme"]) == UNITS[emp], emp
        assert sum(state.empires[emp].resources.values()) == 9, emp  # set-up step 3
    assert dict(state.titles) == TITLES[setup]
    assert (doc["setup"], doc["titles"]) == (setup, TITLES[setup])


@pytest.mark.parametrize("setup", ["alternative-3", "alternative-4", "alternative-5"])
def test_atlas_setups_discarded_starting_heroes_are_nowhere(setup: str, tmp_path: Path) -> None:
    """The starting heroes the set-up discards are neither held nor on the display."""
    db = tmp_path / "g.db"
    _new(db, setup)

    state = _state(db)

    in_game = {t for e in state.empires.values() for t in e.tiles} | {d.tile for d in state.display}
    assert in_game.isdisjoint(DISCARDED[setup])


@pytest.mark.parametrize("setup,face_up", [("alternative-3", 5), ("alternative-4", 6),
                                           ("alternative-5", 6), ("atlantis", 6)])
def test_atlas_atlantis_six_tiles_face_up_with_the_atlantis_board(setup: str, face_up: int,
                                                                 tmp_path: Path) -> None:
    """6 PLAYER EXPANSION (ruling R53): with the Atlantis board six tiles are face up besides the
    Pyramids; without it, five; Atlantis starts with Atlas."""
    db = tmp_path / "g.db"
    _new(db, setup)

    state = _state(db)

    shown = [d.tile for d in state.display if d.face_up]
    assert len(shown) == face_up + 1 and shown[-1] == "pyramids"
    if "atlantis" in state.empires:
        assert state.empires["atlantis"].tiles == ("atlas",)


def test_atlas_setup_3_status_names_the_setup(tmp_path: Path) -> None:
    """mn status says which set-up the game plays, citing its section."""
    db = tmp_path / "g.db"
    _new(db, "alternative-3")

    result = mn(db, "status", "g")

    assert result.exit_code == 0
    assert result.stdout.splitlines()[:4] == [
        "Game g: round 1, Trade Resources phase",
        "Set-up: alternative-3 — Alternative 3-player set-up: Rome and Carthage covered "
        "[rule empires:atlas.setup-3]",
        "NOT a fair-play game: its secret is known (seed) or it is a sandbox.",
        "Waiting for:",
    ]
    assert result.stdout.splitlines()[4].startswith("  Babylon (Babylon): exchange-marker")


def test_atlas_setup_3_refuses_a_covered_empire_and_writes_nothing(tmp_path: Path) -> None:
    """Rome is covered in the alternative 3-player set-up: mn new refuses it, citing the set-up."""
    db = tmp_path / "g.db"

    result = _new(db, "alternative-3", ("greece", "rome", "egypt"))

    assert result.exit_code == 2
    assert result.stderr == (
        "Error: with 3 players the empires in play are Greece, Babylon, Egypt (covered regions: Rome, "
        "Carthage); missing: Babylon; not playable: Rome [rule atlas.setup-3]\n")
    assert mn(db, "games").stdout == ""


def test_atlas_atlantis_refuses_other_than_six_players(tmp_path: Path) -> None:
    """The 6-player set-up takes six empires."""
    result = _new(tmp_path / "g.db", "atlantis", ("rome", "greece", "carthage"))

    assert result.exit_code == 2
    assert result.stderr == ("Error: the set-up atlantis plays 6 empires (Rome, Greece, Babylon, Egypt, Carthage, "
                             "Atlantis): 3 named [rule atlas.atlantis]\n")


def test_atlas_an_unknown_setup_is_refused_naming_the_setups(tmp_path: Path) -> None:
    """mn new --setup with an unknown name lists the set-ups."""
    result = _new(tmp_path / "g.db", "punic", ("rome", "carthage"))

    assert result.exit_code == 2
    assert result.stderr == ("Error: --setup punic: no such set-up; the set-ups are standard, "
                             "alternative-3, alternative-4, alternative-5, atlantis, punic-war\n")


def test_atlas_standard_game_takes_no_sixth_empire(tmp_path: Path) -> None:
    """Without --setup a game is for 3 to 5 players, and Atlantis has no set-up on the base board."""
    result = mn(tmp_path / "g.db", "new", "--empire", "rome", "--empire", "greece", "--empire",
                "atlantis", "--seed", "s")

    assert result.exit_code == 2
    assert "not playable: Atlantis [rule setup.players]" in result.stderr


def test_atlas_a_standard_game_of_two_names_the_setups_for_other_numbers(tmp_path: Path) -> None:
    """Two empires without --setup: refused, naming the set-up that plays another number of empires."""
    result = mn(tmp_path / "g.db", "new", "--empire", "rome", "--empire", "greece", "--seed", "s")

    assert result.exit_code == 2
    assert result.stderr == ("Error: Mare Nostrum: Empires is for 3 to 5 players; 2 given; other numbers: "
                             "--setup atlantis (6), --setup punic-war (2) [rule setup.players]\n")


@pytest.mark.parametrize("setup,first", [
    ("alternative-3", "Set-up alternative-3 [rule empires:atlas.setup-3]: 3 players (Greece, Babylon, "
                      "Egypt); covered: Rome, Carthage"),
    ("alternative-4", "Set-up alternative-4 [rule empires:atlas.setup-4]: 4 players (Rome, Greece, "
                      "Carthage, Atlantis); covered: Babylon, Egypt"),
    ("alternative-5", "Set-up alternative-5 [rule empires:atlas.setup-5]: 5 players (Rome, Greece, "
                      "Egypt, Carthage, Atlantis); covered: Babylon"),
    ("atlantis", "Set-up atlantis [rule empires:atlas.atlantis]: 6 players (Rome, Greece, Babylon, "
                 "Egypt, Carthage, Atlantis); covered: nothing"),
])
def test_atlas_setups_map_show(setup: str, first: str, tmp_path: Path) -> None:
    """mn map show --setup NAME: who plays and what is covered, then the board the set-up plays on."""
    result = mn(tmp_path / "g.db", "map", "show", "--setup", setup)

    lines = result.stdout.splitlines()
    assert result.exit_code == 0
    assert lines[0] == first
    joined = setup != "alternative-3"
    assert lines[2] == ("Mare Nostrum: Empires reference board + Atlantis expansion board, version 1: "
                        "35 provinces, 11 seas, 6 set-ups" if joined else
                        "Mare Nostrum: Empires reference board, version 1: 30 provinces, 9 seas, 5 set-ups")


def test_atlas_atlantis_map_show_the_strait_joins_mare_sardoum(tmp_path: Path) -> None:
    """The Atlantis seas touch the western seas: the link is shown from both sides."""
    strait = mn(tmp_path / "g.db", "map", "show", "fretum-gaditanum", "--setup", "atlantis")
    sardoum = mn(tmp_path / "g.db", "map", "show", "mare-sardoum", "--setup", "atlantis")

    assert strait.stdout.splitlines()[3:] == [
        "  Fretum Gaditanum (also Strait of Gades, Pillars of Heracles, Pillars of Hercules)",
        "    seas: Oceanus Atlanticus, Mare Sardoum",
        "    coasts: Atlantis, Gadeira",
    ]
    assert "    seas: Mare Tyrrhenum, Mare Africum, Fretum Gaditanum" in sardoum.stdout.splitlines()


def test_atlas_an_older_log_has_no_setup_and_plays_the_standard_game() -> None:
    """A log recorded before set-ups existed has no setup field; it reads as the standard set-up (the
    golden games still replay byte for byte: tests/test_golden.py)."""
    created = json.loads(base_fixture("6.1").read_text().splitlines()[1])

    assert "setup" not in created["payload"]["options"]


# --- whole games ------------------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("setup", list(SCRIPTED))
def test_atlas_setups_a_scripted_game_is_won_and_verifies(setup: str, tmp_path: Path) -> None:
    """Scripted players play each set-up to a win; mn verify then recomputes every draw."""
    seed, style = SCRIPTED[setup]
    db = tmp_path / "g.db"

    loaded = play(db, "g", setup, seed, style)
    verified = mn(db, "verify", "g")

    assert loaded.state.winner is not None
    assert verified.exit_code == 0, verified.output
    assert "every random outcome recomputes" in verified.stdout


@pytest.mark.parametrize("setup", sorted(GAMES))
def test_atlas_recorded_game_imports_verifies_and_is_won(setup: str, tmp_path: Path) -> None:
    """The set-up's golden game imports, verifies and ends in a win, as the set-up it records."""
    db = tmp_path / "g.db"

    imported = mn(db, "import", str(fixture(setup)))
    verified = mn(db, "verify", imported.stdout.strip())

    assert imported.exit_code == 0, imported.output
    assert verified.exit_code == 0, verified.output
    state = reading.load(open_store(str(db)), imported.stdout.strip()).state
    assert state.winner is not None and state.options.setup == setup


@pytest.mark.slow
@pytest.mark.parametrize("setup", sorted(GAMES))
def test_atlas_the_scripted_game_still_plays_exactly_as_recorded(
        setup: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """Playing the set-up's scripted game again gives the same events, commands and content hashes."""
    if request.config.getoption("--update-golden"):
        record(setup, tmp_path / "record.db")
    seed, style = GAMES[setup]

    loaded = play(tmp_path / "again.db", f"atlas-{setup}", setup, seed, style)

    again = tmp_path / "again.jsonl"
    again.write_bytes(b"".join(line + b"\n" for line in transfer.export_lines(loaded)))
    assert without_clock(again.read_bytes()) == without_clock(fixture(setup).read_bytes())


def _position(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "position.toml"
    path.write_text(text)
    return path


def test_atlas_setup_4_a_position_may_not_hold_a_discarded_starting_hero(tmp_path: Path) -> None:
    """ALTERNATIVE GAME SETUPS, 4 players: "Starting heroes Hammurabi and Cleopatra are discarded and not
    used in the game": a position of that set-up in which an empire holds Cleopatra is refused."""
    # given: an alternative-4 position in which Greece holds Cleopatra
    db = tmp_path / "g.db"
    path = _position(tmp_path, """\
board = "setup:alternative-4"
round = 2
phase = "build"
[empires.rome]
tiles = ["caesar"]
[empires.greece]
tiles = ["pericles", "cleopatra"]
[empires.carthage]
tiles = ["hannibal"]
[empires.atlantis]
tiles = ["atlas", "chiron"]
""")

    # when: a game is made from it
    result = mn(db, "new", "--position", str(path), "--id", "g")

    # then: refused, naming the field and the set-up's section; Chiron, of the Atlantis board laid out, is not
    assert result.exit_code == 2
    assert ("empires.greece.tiles: Cleopatra is set aside by the set-up alternative-4 and not used in the "
            "game [rule atlas.setup-4]") in result.output
    assert "Chiron" not in result.output


def test_atlas_atlantis_an_atlantean_hero_needs_the_atlantis_board(tmp_path: Path) -> None:
    """6 PLAYER EXPANSION (ruling R53): the Atlantis Hero tiles are mixed in with the Atlantis board; a
    position on the standard board that shows Chiron is refused."""
    # given: a standard three-player position with Chiron on the display
    db = tmp_path / "g.db"
    path = _position(tmp_path, """\
round = 2
phase = "build"
display = ["chiron"]
[empires.rome]
[empires.greece]
[empires.carthage]
""")

    # when: a game is made from it
    result = mn(db, "new", "--position", str(path), "--id", "g")

    # then: refused, naming the display's entry, the section and the ruling
    assert result.exit_code == 2
    assert ("display[0]: Chiron comes with the Atlantis board, which this game does not lay out "
            "[rule atlas.atlantis] (ruling R53)") in result.output


def test_atlas_atlantis_a_position_on_the_atlantis_board_has_its_sets_reserves(tmp_path: Path) -> None:
    """6 PLAYER EXPANSION, Additional Resources (ruling R52): the Atlantis set adds coins and commodities to
    the reserves; a position on that board derives its reserve with them, as `mn new --setup` does."""
    # given: an Atlantis position whose empires hold nothing, and a fresh Atlantis game
    path = _position(tmp_path, 'board = "setup:atlantis"\nround = 2\nphase = "build"\n'
                     + "".join(f"[empires.{e}]\n" for e in EMPIRES_OF["atlantis"]))
    fresh = tmp_path / "fresh.db"
    _new(fresh, "atlantis")
    db = tmp_path / "g.db"

    # when: a game is made from the position
    made = mn(db, "new", "--position", str(path), "--id", "g")

    # then: its reserve holds every coin and commodity the fresh game's set-up supplies
    assert made.exit_code == 0, made.output
    fresh_state = _state(fresh)
    supplied = {t: fresh_state.supply.get(t, 0) + sum(es.resources.get(t, 0) for es in fresh_state.empires.values())
                for t in fresh_state.supply}
    assert _state(db).supply == supplied
