"""The Punic War's Barbarians through the CLI (atlas.barbarians, rulings R63-R67): the set-up, mn show, mn
options, a paid move that starts a battle, mn explain of that battle, refusals that write nothing."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner, Result

from mncli.cli import main
from mncore.games import reading
from mncore.store import open_store

POSITION = """\
board = "setup:punic-war"
round = 2
phase = "move"
titles = { trade = "carthage", culture = "carthage", military = "rome" }
[step]
active = "rome"
[empires.rome]
tiles = ["caesar"]
resources = { coin = 1, gold = 1 }
[empires.carthage]
tiles = ["hannibal"]
[provinces.latium]
controller = "rome"
buildings = ["roma"]
[provinces.africa]
controller = "carthage"
buildings = ["carthago"]
[provinces.dalmatia]
controller = "carthage"
legions = { carthage = 1 }
[barbarians]
legions = { macedonia = 2 }
fortresses = ["macedonia"]
triremes = { mare-ionium = 1 }
"""


def mn(db: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["--db", str(db), *args])


def _position_game(tmp: Path) -> Path:
    """Rome's Move and Battle turn: a coin and a gold behind its screen, a Carthaginian legion in Dalmatia
    next to the Barbarians of Macedonia."""
    pos = tmp / "pos.toml"
    pos.write_text(POSITION)
    db = tmp / "g.db"
    assert mn(db, "new", "--position", str(pos), "--id", "g", "--seed", "x").stdout == "g\n"
    return db


def test_atlas_barbarians_set_up_and_shown(tmp_path: Path) -> None:
    """Barbarian Setup: Achaea 4 legions and a fortress, Macedonia and Thracia 2 and a fortress each, a
    trireme in Mare Ionium, Mare Aegaeum and Pontus Euxinus; mn show lists them for every side."""
    db = tmp_path / "g.db"
    mn(db, "new", "--setup", "punic-war", "--empire", "rome", "--empire", "carthage", "--seed", "s", "--id", "g")

    text = mn(db, "show", "g", "--as", "carthage").stdout.splitlines()
    doc = json.loads(mn(db, "show", "g", "--as", "rome", "--json").stdout)

    assert text[-1] == ("Barbarians: Achaea 4 legions, fortress; Macedonia 2 legions, fortress; Thracia 2 legions, "
                        "fortress; at sea: Mare Aegaeum 1 trireme; Mare Ionium 1 trireme; Pontus Euxinus 1 trireme")
    assert doc["barbarians"] == {"legions": {"achaea": 4, "macedonia": 2, "thracia": 2},
                                 "fortresses": ["achaea", "macedonia", "thracia"],
                                 "triremes": {"mare-aegaeum": 1, "mare-ionium": 1, "pontus-euxinus": 1},
                                 "moves": {}, "peace": []}


def test_atlas_barbarians_options_list_the_paid_moves(tmp_path: Path) -> None:
    """R64: the active empire's options list a move of each Barbarian unit to each place it may enter, paid
    with the coin or the gold it holds; its opponent, not in its turn, has none."""
    db = _position_game(tmp_path)

    rome = mn(db, "options", "g", "--as", "rome")
    carthage = mn(db, "options", "g", "--as", "carthage")

    assert rome.exit_code == 0
    assert rome.stdout.splitlines()[:4] == ["barbarians move legion macedonia to achaea pay {token}",
                                            "    token: coin | gold",
                                            "barbarians move legion macedonia to dacia pay {token}",
                                            "    token: coin | gold"]
    assert "barbarians move trireme mare-ionium to mare-tyrrhenum pay {token}" in rome.stdout.splitlines()
    assert not any(line.startswith("barbarians") for line in carthage.stdout.splitlines())


def test_atlas_barbarians_a_paid_move_into_an_opponent_battles_at_once(tmp_path: Path) -> None:
    """R64, R65: Rome pays its gold to move a Barbarian legion into Dalmatia; the Barbarians attack Carthage's
    legion at once and destroy it. The log tells it, mn explain gives the figures and the rulings."""
    db = _position_game(tmp_path)

    result = mn(db, "order", "g", "--as", "rome",
                "barbarians move legion macedonia to dalmatia pay gold dice barbarians=5 carthage=1")
    explained = mn(db, "explain", "g", "5")

    assert result.exit_code == 0
    assert result.stdout.splitlines()[:4] == [
        "    3  Rome pays Gold to move a Barbarian legion from Macedonia to Dalmatia.",
        "    4  (fixed) Carthage's dice in Dalmatia are 1, fixed in the sandbox, not rolled.",
        "    5  Land battle in Dalmatia, the Barbarians attacking Carthage: the Barbarians rolled 5 = 5: 1 hit(s); "
        "Carthage rolled 1 = 1: 0 hit(s). The Barbarians lose 0 unit(s); Carthage must lose 1.",
        "    6  Carthage loses 1 legion in Dalmatia."]
    lines = explained.stdout.splitlines()
    assert lines[0] == ("Event 5 (BarbarianBattleFought): Land battle in Dalmatia, the Barbarians attacking Carthage: "
                        "the Barbarians rolled 5 = 5: 1 hit(s); Carthage rolled 1 = 1: 0 hit(s). The Barbarians "
                        "lose 0 unit(s); Carthage must lose 1. (fixed)")
    assert "  R65                The Barbarians' battles (the whole ruling: mn rules R65)" in lines
    assert lines[-5:-1] == [
        "  A land battle in Dalmatia between the Barbarians and Carthage (ruling R65, moved in by Rome (R64)): one "
        "roll for each side, total divided by 5 rounded down is the hits scored (4.2).",
        "  The Barbarians (attacker): 1 legion(s); dice 5 = 5 → total 5; 1 hit(s) scored: 1 hit(s) against Carthage",
        "  Carthage: 1 legion(s); dice 1 = 1 → total 1; 0 hit(s) scored: 0 hit(s) against the Barbarians",
        "  The Barbarians lose 0 unit(s), legions first, their fortress last (R65); Carthage must lose 1 unit(s), "
        "chosen by Carthage (4.2)"]
    assert json.loads(mn(db, "show", "g", "--json").stdout)["barbarians"]["legions"] == {"dalmatia": 1,
                                                                                          "macedonia": 1}


def test_atlas_barbarians_refusals_cite_the_ruling_and_write_nothing(tmp_path: Path) -> None:
    """R64: wine does not pay a Barbarian move, and Rome's one gold is spent once; each refusal exits 1,
    names the ruling and writes nothing."""
    db = _position_game(tmp_path)
    before = len(open_store(str(db)).rows("g"))

    wine = mn(db, "order", "g", "--as", "rome", "barbarians move legion macedonia to achaea pay wine")
    far = mn(db, "order", "g", "--as", "rome", "barbarians move legion macedonia to africa pay coin")
    bad = mn(db, "order", "g", "--as", "rome", "barbarians move legion macedonia")

    assert (wine.exit_code, wine.stderr) == (1, "Error: 'barbarians move legion macedonia to achaea pay wine': a "
                                                "Barbarian move is paid with a coin or a gold, not Wine (ruling R64) "
                                                "[rule empires:R64]\n")
    assert (far.exit_code, far.stderr) == (1, "Error: 'barbarians move legion macedonia to africa pay coin': Africa "
                                              "is not a province in play adjacent to Macedonia; a Barbarian unit "
                                              "moves one step (ruling R64) [rule empires:R64]\n")
    assert bad.exit_code == 2 and "usage: barbarians move legion|trireme PLACE to PLACE pay coin|gold" in bad.stderr
    assert len(open_store(str(db)).rows("g")) == before
    assert reading.load(open_store(str(db)), "g").state.empires["rome"].resources == {"coin": 1, "gold": 1}


def test_atlas_barbarians_a_position_with_them_off_the_board_is_refused(tmp_path: Path) -> None:
    """A position's Barbarians stand in provinces in play (R63): Aegyptus is covered in the Punic War."""
    pos = tmp_path / "bad.toml"
    pos.write_text(POSITION.replace("macedonia = 2 }", "macedonia = 2, aegyptus = 1 }"))
    db = tmp_path / "g.db"

    result = mn(db, "new", "--position", str(pos), "--id", "g")

    assert (result.exit_code, result.stderr) == (2, f"Error: {pos}: barbarians.legions.aegyptus: not a province "
                                                    "in play\n")
    assert not db.exists() or mn(db, "games").stdout == ""


def test_atlas_barbarians_the_golden_game_moves_and_fights_them(tmp_path: Path) -> None:
    """The recorded Punic War (fixtures/atlas-punic-war.jsonl) plays the Barbarians: paid moves, battles they
    start against both empires and battles both empires start against them, a peace with them, and a win."""
    from atlas_golden import fixture
    from mncore.rulesets.empires import events as ev

    db = tmp_path / "g.db"
    gid = mn(db, "import", str(fixture("punic-war"))).stdout.strip()
    events = [ev.decode_event(r.payload) for r in open_store(str(db)).rows(gid)]
    battles = {(e.attacker, e.empire.empire) for e in events if isinstance(e, ev.BarbarianBattleFought)}

    assert any(isinstance(e, ev.BarbariansMoved) for e in events)
    assert battles == {("barbarians", "rome"), ("barbarians", "carthage"), ("empire", "rome"), ("empire", "carthage")}
    assert any(isinstance(e, ev.BarbarianPeaceDeclared) for e in events)
    assert mn(db, "verify", gid).exit_code == 0
    won = [e for e in events if isinstance(e, ev.GameWon)]
    assert [(w.empires, w.condition) for w in won] == [(("carthage",), "6.3")]


def test_atlas_barbarians_the_statue_of_zeus_offers_peace_with_them(tmp_path: Path) -> None:
    """STATUE OF ZEUS (ruling R67): at the start of Move and Battle the holder is asked for a peace with his
    opponent or the Barbarians, and offered both."""
    pos = tmp_path / "zeus.toml"
    pos.write_text(POSITION.replace('[step]\nactive = "rome"\n', "")
                   .replace('tiles = ["caesar"]', 'tiles = ["caesar", "statue-of-zeus"]'))
    db = tmp_path / "g.db"
    mn(db, "new", "--position", str(pos), "--id", "g", "--seed", "x")

    status = mn(db, "status", "g").stdout.splitlines()
    options = mn(db, "options", "g", "--as", "rome").stdout.splitlines()

    assert status[-1] == ("  Rome (Rome): peace — Statue of Zeus: declare peace with an opponent (peace with "
                          "EMPIRE|barbarians) or not (no peace)")
    assert options[:3] == ["peace with carthage", "peace with barbarians", "no peace"]


def test_atlas_barbarians_drawn_on_the_board(tmp_path: Path) -> None:
    """mn draw marks the Barbarians' units like a side's, lettered X: the legions and fortress of Macedonia,
    the trireme of Mare Ionium."""
    db = _position_game(tmp_path)

    svg = mn(db, "draw", "g", "--as", "carthage", "-o", "-").stdout

    assert ('<g class="legions" data-province="macedonia" data-empire="barbarians" data-count="2">'
            '<title>2 Barbarians legions</title>') in svg
    assert '<path class="fortress" data-province="macedonia" data-empire="barbarians"' in svg
    assert '<g class="triremes" data-sea="mare-ionium" data-empire="barbarians" data-count="1">' in svg


def test_atlas_punic_wonders_mn_show_and_mn_rules_give_the_punic_war_powers(tmp_path: Path) -> None:
    """In a Punic War game `mn show` prints the Hanging Gardens' and the Statue of Zeus' powers as the Punic
    War changes them (rulings R67, R68); a standard game prints no such line; `mn rules` on each wonder's
    section points to the Punic War's ruling."""
    db = tmp_path / "g.db"
    mn(db, "new", "--setup", "punic-war", "--empire", "rome", "--empire", "carthage", "--seed", "s", "--id", "g")
    mn(db, "new", "--empire", "rome", "--empire", "greece", "--empire", "carthage", "--seed", "s", "--id", "std")

    text = mn(db, "show", "g", "--as", "rome").stdout.splitlines()
    start = text.index("Powers changed in this set-up (atlas.punic-wonders):")

    assert text[start + 1:start + 3] == [
        "  Hanging Gardens: When unused resources are discarded at the end of the Build phase, you may keep up "
        "to 3 gold (a legendary gold counts) as well as the 2 coins everyone may keep; gold pays for Barbarian "
        "moves (ruling R68).",
        "  Statue of Zeus: As Move and Battle begins you may make peace with your opponent (his legions in your "
        "provinces go home to his capital's province) or with the Barbarians (theirs stay), not the same one "
        "two rounds running: for the rest of the round neither of you may fight the other, you enter none of "
        "the other's provinces, and no Barbarian unit is moved into a province you control or a place holding "
        "your units (ruling R67)."]
    assert not any(line.startswith("Powers changed") for line in mn(db, "show", "std").stdout.splitlines())
    assert mn(db, "rules", "11.hanging-gardens").stdout.splitlines()[-1] == (
        "  see ruling R68: The Punic War's Hanging Gardens")
    assert mn(db, "rules", "11.statue-of-zeus").stdout.splitlines()[-1] == (
        "  see ruling R67: The Statue of Zeus and the Barbarians")


def test_r7_fix_dice_barbarians_in_a_sandbox(tmp_path: Path) -> None:
    """Ruling R7: in a Punic War sandbox `fix dice barbarians N ...` fixes the Barbarians' dice for their
    next battle, offered by `mn options` and used (and logged) when they fight; a game without them refuses
    it as bad input, nothing written."""
    db = _position_game(tmp_path)
    other = tmp_path / "std.db"
    (tmp_path / "std.toml").write_text("round = 2\nphase = \"move\"\n[empires.rome]\n[empires.greece]\n"
                                       "[empires.carthage]\n")
    mn(other, "new", "--position", str(tmp_path / "std.toml"), "--id", "s")

    fixed = mn(db, "order", "g", "--as", "carthage", "fix dice barbarians 4")
    options = mn(db, "options", "g", "--as", "carthage").stdout.splitlines()
    fought = mn(db, "order", "g", "--as", "rome", "barbarians move legion macedonia to dalmatia pay coin")
    written = len(open_store(str(other)).rows("s"))
    refused = mn(other, "order", "s", "--as", "rome", "fix dice barbarians 3")

    assert fixed.stdout.splitlines()[0] == ("    3  Carthage fixes the Barbarians' dice for their next battle: 4 "
                                            "(sandbox, ruling R7).")
    assert options[options.index("fix dice {empire} {die}    # one die per unit that empire rolls in its next "
                                 "battle: fix dice rome 5 4 3") + 1] == "    empire: rome | carthage | barbarians"
    assert fought.exit_code == 0
    assert fought.stdout.splitlines()[1] == ("    5  (fixed) the Barbarians' dice in Dalmatia are 4, fixed in the "
                                             "sandbox, not rolled.")
    assert refused.exit_code == 2 and refused.stderr == (
        "Error: 'fix dice barbarians 3': there are no Barbarians in this game (the Punic War only)\n")
    assert len(open_store(str(other)).rows("s")) == written


def test_atlas_punic_wonders_statue_of_zeus_at_peace_the_barbarians_stay_out_of_the_holders_provinces(
        tmp_path: Path) -> None:
    """STATUE OF ZEUS, "as if they were a real opponent", and 11.statue-of-zeus: at peace "neither of you may
    ... enter the other's controlled Provinces" (ruling R67): while Carthage is at peace with the
    Barbarians, Rome may not move them into a province Carthage controls, though no Carthaginian unit is
    there; its options do not offer it."""
    # given: Rome's turn; Carthage, at peace with the Barbarians, controls Dalmatia with no unit in it
    pos = tmp_path / "peace.toml"
    pos.write_text(POSITION.replace('[provinces.dalmatia]\ncontroller = "carthage"\nlegions = { carthage = 1 }\n',
                                    '[provinces.dalmatia]\ncontroller = "carthage"\n')
                   .replace('tiles = ["hannibal"]', 'tiles = ["hannibal", "statue-of-zeus"]'))
    db = tmp_path / "g.db"
    assert mn(db, "new", "--position", str(pos), "--id", "g", "--seed", "x").stdout == "g\n"
    assert mn(db, "order", "g", "--as", "carthage", "peace with barbarians").exit_code == 0

    # when: Rome asks for its options, then orders the move into Dalmatia anyway
    options = mn(db, "options", "g", "--as", "rome").stdout.splitlines()
    moved = mn(db, "order", "g", "--as", "rome", "barbarians move legion macedonia to dalmatia pay coin")

    # then: the move is neither offered nor accepted, the refusal naming the ruling; Dacia stays open
    assert "barbarians move legion macedonia to dacia pay {token}" in options
    assert not any("to dalmatia" in line for line in options)
    assert moved.exit_code == 1
    assert "[rule empires:R67]" in moved.stderr and "controls Dalmatia" in moved.stderr


def test_atlas_barbarians_a_position_may_not_hold_more_than_the_set(tmp_path: Path) -> None:
    """atlas.punic: "8 Barbarian, 3 Trireme, and 3 Fortress Miniatures", all set up and never built (R63):
    a position with 9 Barbarian legions or 4 triremes is refused, naming the field and the rule."""
    # given: the Punic War position with 9 Barbarian legions and 4 Barbarian triremes
    pos = tmp_path / "pos.toml"
    pos.write_text(POSITION.replace("legions = { macedonia = 2 }", "legions = { macedonia = 9 }")
                   .replace("triremes = { mare-ionium = 1 }", "triremes = { mare-ionium = 4 }"))
    db = tmp_path / "g.db"

    # when: a game is made from it
    result = mn(db, "new", "--position", str(pos), "--id", "g")

    # then: bad input, both counts named with the set's; nothing is stored
    assert result.exit_code == 2
    assert ("barbarians.legions: 9; the Punic War's set has 8, never built or rebuilt [rule atlas.barbarians] "
            "(ruling R63)") in result.output
    assert ("barbarians.triremes: 4; the Punic War's set has 3, never built or rebuilt [rule atlas.barbarians] "
            "(ruling R63)") in result.output
    assert not db.exists() or mn(db, "games").stdout == ""


def test_atlas_punic_trade_a_position_shows_at_most_three_foreign_trade_commodities(tmp_path: Path) -> None:
    """atlas.punic-trade: "Draw 3 Legendary Commodities and place them face up", replenished to 3: a
    position with four face up is refused."""
    # given: the Punic War position with four Foreign Trade commodities face up
    pos = tmp_path / "pos.toml"
    pos.write_text(POSITION.replace('round = 2\n', 'round = 2\nforeign_trade = ["wine", "oil", "gold", "gems"]\n'))
    db = tmp_path / "g.db"

    # when: a game is made from it
    result = mn(db, "new", "--position", str(pos), "--id", "g")

    # then: bad input naming foreign_trade and the rule
    assert result.exit_code == 2
    assert "foreign_trade: 4 face up;" in result.output and "[rule atlas.punic-trade]" in result.output


def test_atlas_barbarians_a_standard_position_may_not_hold_barbarians(tmp_path: Path) -> None:
    """atlas.barbarians: the Barbarians are the Punic War's; a position of the standard game with them is
    refused."""
    # given: the same position on the standard board, with Greece and Rome playing
    pos = tmp_path / "pos.toml"
    pos.write_text(POSITION.replace('board = "setup:punic-war"\n', "")
                   .replace("[empires.carthage]", "[empires.greece]\ntiles = [\"pericles\"]\n[empires.carthage]"))
    db = tmp_path / "g.db"

    # when: a game is made from it
    result = mn(db, "new", "--position", str(pos), "--id", "g")

    # then: bad input naming barbarians and the rule
    assert result.exit_code == 2
    assert "barbarians: only the Punic War has Barbarians [rule atlas.barbarians]" in result.output
