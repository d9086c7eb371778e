"""The Punic War (atlas-expansion.md, 2 PLAYER EXPANSION): mn new --setup punic-war, its board, who plays,
what is covered and set aside, the starting units, tracks and titles, and its Foreign Trade markets."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner, Result

from atlas_golden import fixture
from mncli.cli import main
from mncore.games import reading
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.projections import unit_count
from mncore.rulesets.empires.seam import RULESET as EMPIRES
from mncore.rulesets.empires.state import GameState
from mncore.store import open_store


def mn(db: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["--db", str(db), *args])


def _new(db: Path, *empires: str) -> Result:
    sides = [a for e in (empires or ("rome", "carthage")) for a in ("--empire", e)]
    return mn(db, "new", "--setup", "punic-war", *sides, "--seed", "s", "--id", "g")


def _state(db: Path) -> GameState:
    state = reading.load(open_store(str(db)), "g").state
    assert isinstance(state, GameState)
    return state


def test_atlas_punic_mn_new_plays_rome_against_carthage(tmp_path: Path) -> None:
    """1.1 Game Setup: Rome and Carthage play; Babylon and Egypt are covered; Greece is in play, no
    empire's, the Barbarians' land (ruling R60)."""
    db = tmp_path / "g.db"

    result = _new(db)

    assert (result.exit_code, result.stdout) == (0, "g\n")
    state = _state(db)
    assert tuple(state.empires) == ("rome", "carthage")
    assert state.options.setup == "punic-war"
    regions = {p.id: p.region for p in state.geo_board.provinces}
    assert {regions[p] for p in state.provinces} == {"rome", "carthage", "greece", None}
    assert {"aegyptus", "babylonia"}.isdisjoint(state.provinces)
    assert all(state.provinces[p].controller is None and not state.provinces[p].buildings
               for p in ("achaea", "macedonia", "thracia"))


def test_atlas_punic_starting_units_tracks_and_titles(tmp_path: Path) -> None:
    """1.1: the units of the Roman and Carthaginian screens; Carthage is Trade and Culture Leader, Rome
    Military Leader."""
    db = tmp_path / "g.db"
    _new(db)

    state = _state(db)
    doc = json.loads(mn(db, "show", "g", "--json").stdout)

    assert doc["titles"] == {"trade": "carthage", "culture": "carthage", "military": "rome"}
    assert doc["empires"]["rome"]["tracks"] == {"trade": 7, "culture": 1, "military": 3}
    assert doc["empires"]["carthage"]["tracks"] == {"trade": 7, "culture": 1, "military": 2}
    assert {e: (unit_count(state, e)["legion"], unit_count(state, e)["fortress"], unit_count(state, e)["trireme"])
            for e in state.empires} == {"rome": (1, 1, 1), "carthage": (1, 0, 1)}
    assert {e: sum(es.resources.values()) for e, es in state.empires.items()} == {"rome": 9, "carthage": 9}


def test_atlas_punic_antigone_is_set_aside(tmp_path: Path) -> None:
    """WONDER TILES ABILITY CHANGES: "ANTIGONE is set aside and is not used in the game", nor are the
    covered empires' starting heroes."""
    db = tmp_path / "g.db"
    _new(db, "rome", "carthage")

    state = _state(db)

    in_game = {t for es in state.empires.values() for t in es.tiles} | {d.tile for d in state.display}
    assert in_game.isdisjoint({"antigone", "pericles", "hammurabi", "cleopatra"})
    assert state.empires["rome"].tiles == ("caesar",) and state.empires["carthage"].tiles == ("hannibal",)


def test_atlas_punic_three_foreign_trade_commodities_face_up_at_set_up(tmp_path: Path) -> None:
    """1.2: "Draw 3 Legendary Commodities and place them face up": mn show lists them for everyone."""
    db = tmp_path / "g.db"
    _new(db)

    state = _state(db)
    shown = mn(db, "show", "g", "--as", "rome")

    assert len(state.foreign_trade) == 3
    assert state.legendary_pile.count(state.foreign_trade[0]) < 2  # drawn from the pile
    assert ("Foreign Trade: " + ", ".join(f"Legendary {c.title()}" for c in sorted(state.foreign_trade))
            in shown.stdout.splitlines())


def test_atlas_punic_status_names_the_setup(tmp_path: Path) -> None:
    """mn status says the game plays the Punic War, citing its section."""
    db = tmp_path / "g.db"
    _new(db)

    result = mn(db, "status", "g")

    assert result.exit_code == 0
    assert result.stdout.splitlines()[1] == ("Set-up: punic-war — The Punic War (2 players): Rome against "
                                             "Carthage [rule empires:atlas.punic]")


def test_atlas_punic_refuses_other_empires_and_writes_nothing(tmp_path: Path) -> None:
    """Only Rome and Carthage play the Punic War; Greece is refused, citing the set-up."""
    db = tmp_path / "g.db"

    result = _new(db, "rome", "greece")

    assert result.exit_code == 2
    assert result.stderr == ("Error: with 2 players the empires in play are Rome, Carthage (covered regions: "
                             "Babylon, Egypt); missing: Carthage; not playable: Greece "
                             "[rule atlas.punic]\n")
    assert mn(db, "games").stdout == ""


def test_atlas_punic_map_show(tmp_path: Path) -> None:
    """mn map show --setup punic-war: who plays and what is covered, then the board."""
    result = mn(tmp_path / "g.db", "map", "show", "--setup", "punic-war")

    lines = result.stdout.splitlines()
    assert result.exit_code == 0
    assert lines[0] == ("Set-up punic-war [rule empires:atlas.punic]: 2 players (Rome, Carthage); "
                        "covered: Babylon, Egypt")
    assert lines[1] == ("Barbarians [rule empires:atlas.barbarians]: Achaea 4 legions and a fortress, Macedonia "
                        "2 legions and a fortress, Thracia 2 legions and a fortress; a trireme in each of Mare "
                        "Ionium, Mare Aegaeum, Pontus Euxinus")
    assert lines[3] == "Mare Nostrum: Empires reference board, version 1: 30 provinces, 9 seas, 5 set-ups"


def test_atlas_punic_a_foreign_claim_outside_the_punic_war_is_refused(tmp_path: Path) -> None:
    """A standard game has no Foreign Trade resources: the order is refused, nothing written."""
    db = tmp_path / "g.db"
    mn(db, "new", "--empire", "rome", "--empire", "greece", "--empire", "carthage", "--seed", "s",
       "--id", "g")
    before = len(open_store(str(db)).rows("g"))

    result = mn(db, "order", "g", "--as", "carthage", "claim legendary-wine from foreign")

    assert result.exit_code == 1
    assert result.stderr == ("Error: 'claim legendary-wine from foreign': only the Punic War has Foreign "
                             "Trade resources to claim [rule empires:atlas.punic-trade]\n")
    assert len(open_store(str(db)).rows("g")) == before


def test_atlas_punic_the_foreign_trade_is_replenished_to_three_each_trade_phase(tmp_path: Path) -> None:
    """1.2: "Any unchosen Foreign Trade Resources remain face up and are replenished to 3 Resources during
    the next Trade Phase": in the recorded game, three are face up whenever a Trade phase's marker is
    played, and claimed ones are replaced."""
    db = tmp_path / "g.db"
    game_id = mn(db, "import", str(fixture("punic-war"))).stdout.strip()
    state, face_up, claimed = GameState(), [], 0
    for row in open_store(str(db)).rows(game_id):
        event = ev.decode_event(row.payload)
        state = EMPIRES.evolve(state, event)  # a stored log: the kernel folds its own events
        claimed += isinstance(event, ev.ForeignCommodityClaimed)
        if isinstance(event, ev.ExchangeMarkerPlayed):
            face_up.append(len(state.foreign_trade))

    assert claimed > 0
    assert len(face_up) == state.round and set(face_up) == {3}


def test_atlas_punic_a_position_keeps_the_foreign_trade_and_the_setup(tmp_path: Path) -> None:
    """mn position writes the face-up Foreign Trade commodities and the set-up's board; a game started
    from it plays the Punic War with the same commodities face up."""
    db = tmp_path / "g.db"
    _new(db)
    written = mn(db, "position", "g")
    pos = tmp_path / "p.toml"
    pos.write_text(written.stdout)

    created = mn(db, "new", "--position", str(pos), "--id", "h", "--seed", "x")

    assert created.exit_code == 0, created.output
    assert 'board = "setup:punic-war"' in written.stdout.splitlines()
    state = reading.load(open_store(str(db)), "h").state
    assert isinstance(state, GameState)
    assert state.options.setup == "punic-war"
    assert sorted(state.foreign_trade) == sorted(_state(db).foreign_trade)


_PUNIC_POSITION = """\
board = "setup:punic-war"
round = 2
phase = "build"
titles = {{ trade = "carthage", culture = "carthage", military = "rome" }}
display = [{display}]
[empires.rome]
tiles = [{rome}]
[empires.carthage]
tiles = ["hannibal"]
[provinces.latium]
controller = "rome"
buildings = ["roma"]
[provinces.africa]
controller = "carthage"
buildings = ["carthago"]
"""


def _position(tmp_path: Path, display: str, rome: str) -> Path:
    path = tmp_path / "punic.toml"
    path.write_text(_PUNIC_POSITION.format(display=display, rome=rome))
    return path


def test_atlas_punic_a_position_may_not_put_antigone_on_the_display(tmp_path: Path) -> None:
    """WONDER TILES ABILITY CHANGES: "ANTIGONE is set aside and is not used in the game": a Punic War
    position that shows her on the display is refused, naming the field and the rule, and no game is made."""
    # given: a Punic War position with Antigone face up on the display
    db, path = tmp_path / "g.db", _position(tmp_path, '"perseus", "antigone"', '"caesar"')

    # when: a game is made from it
    result = mn(db, "new", "--position", str(path), "--id", "g")

    # then: bad input, naming display[1] and the set-up's section; nothing is stored
    assert result.exit_code == 2
    assert ("display[1]: Antigone is set aside by the set-up punic-war and not used in the game "
            "[rule atlas.punic]") in result.output
    assert "Perseus" not in result.output
    assert not db.exists() or mn(db, "games").stdout == ""


def test_atlas_punic_a_position_may_not_give_antigone_to_an_empire(tmp_path: Path) -> None:
    """WONDER TILES ABILITY CHANGES: Antigone is not used in the game, so no empire holds her either."""
    # given: a Punic War position in which Rome holds Antigone
    db, path = tmp_path / "g.db", _position(tmp_path, '"perseus"', '"caesar", "antigone"')

    # when: a game is made from it
    result = mn(db, "new", "--position", str(path), "--id", "g")

    # then: refused, naming empires.rome.tiles and the rule
    assert result.exit_code == 2
    assert ("empires.rome.tiles: Antigone is set aside by the set-up punic-war and not used in the game "
            "[rule atlas.punic]") in result.output


def test_atlas_punic_a_position_without_antigone_is_accepted(tmp_path: Path) -> None:
    """The same Punic War position without Antigone is a game; she is nowhere in it."""
    # given: the position with Perseus alone on the display
    db, path = tmp_path / "g.db", _position(tmp_path, '"perseus"', '"caesar"')

    # when: a game is made from it
    result = mn(db, "new", "--position", str(path), "--id", "g")

    # then: it is made, and Antigone is neither held nor shown
    assert result.exit_code == 0, result.output
    state = _state(db)
    assert "antigone" not in {d.tile for d in state.display} | set(state.empires["rome"].tiles)
