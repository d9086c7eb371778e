"""The Troia expansion through the CLI: set-up alone and with the other two, options, and Croesus' prices."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner, Result

from mncli.cli import main
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.cities import DECK_SIZE, city_problems, load_city
from mncore.rulesets.empires.seam import RULESET as EMPIRES
from mncore.store import open_store

THREE = ("--empire", "rome", "--empire", "greece", "--empire", "carthage")
MOVE = """\
round = 2
phase = "move"
titles = { military = "rome" }
[step]
active = "rome"
stage = "land"
[empires.rome]
tiles = ["caesar", "achilles", "odysseus"]
myrmidons = "latium"
[empires.greece]
[empires.carthage]
[provinces.latium]
controller = "rome"
buildings = ["roma"]
legions = { rome = 2 }
[cities]
expansions = ["troia"]
"""


def mn(db: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["--db", str(db), *args])


def test_lc_1_the_troia_file_decodes_and_checks() -> None:
    """Six heroes for six base tiles, three objectives, fifteen War cards."""
    city = load_city("troia")

    assert [t.id for t in city.tiles] == ["achilles", "aeneas", "agamemnon", "ajax", "helen", "odysseus"]
    assert len(city.objectives) == 3 and len(city.deck_cards()) == DECK_SIZE
    assert city_problems(city, "troia") == []


def test_lc_5_1_mn_new_troia_replaces_its_six_named_tiles(tmp_path: Path) -> None:
    """`mn new --expansion troia`: Antigone, Castor & Pollux, Circe, Gilgamesh, Hamilcar and Spartacus give
    way to the six Troia heroes; the War deck lies face down."""
    db = tmp_path / "g.db"

    made = mn(db, "new", *THREE, "--expansion", "troia", "--seed", "s", "--id", "g")
    rows = open_store(str(db)).rows("g")
    setup = EMPIRES.decode_event(rows[1].payload)

    assert made.exit_code == 0 and made.stdout == "g\n"
    assert isinstance(setup, ev.CitiesSetUp)
    assert setup.removed == ("antigone", "castor-pollux", "circe", "gilgamesh", "hamilcar", "spartacus")
    assert setup.added == ("achilles", "aeneas", "agamemnon", "ajax", "helen", "odysseus")
    assert setup.objectives == ("alexanders-conquests", "poseidons-legacy", "favor-of-ares")
    assert {x: len(d) for x, d in setup.decks.items()} == {"troia": DECK_SIZE}


def test_lc_4_three_expansions_replace_nine_tiles_with_three_of_each(tmp_path: Path) -> None:
    """Three expansions: 9 base tiles out, 3 of each expansion in; one Objective from each; three decks."""
    from mncore.rulesets.empires.rules.expansions import base_tiles
    db = tmp_path / "g.db"

    mn(db, "new", *THREE, "--expansion", "troia", "--expansion", "ierusalem", "--expansion", "syracusae",
       "--seed", "three", "--id", "g")
    setup = EMPIRES.decode_event(open_store(str(db)).rows("g")[1].payload)

    assert isinstance(setup, ev.CitiesSetUp)
    assert len(setup.removed) == 9 and set(setup.removed) <= set(base_tiles())
    cities = ("troia", "ierusalem", "syracusae")
    tiles = {x: {t.id for t in load_city(x).tiles} for x in cities}
    assert [sum(t in tiles[x] for t in setup.added) for x in cities] == [3, 3, 3]
    assert [next(x for x in cities if o in {b.id for b in load_city(x).objectives}) for o in setup.objectives] \
        == list(cities)
    assert {x: len(d) for x, d in setup.decks.items()} == {x: DECK_SIZE for x in cities}


def test_10_achilles_and_odysseus_options_name_the_myrmidons_and_the_sea(tmp_path: Path) -> None:
    """The mover's options list a move `with myrmidons` and the crossings Odysseus opens (R230, R233)."""
    db, pos = tmp_path / "g.db", tmp_path / "pos.toml"
    pos.write_text(MOVE)
    mn(db, "new", "--position", str(pos), "--id", "g")

    options = mn(db, "options", "g", "--as", "rome").stdout.splitlines()

    assert "move legion latium to gallia with myrmidons" in options
    assert "move legion latium to sicilia across mare-tyrrhenum" in options
    assert "move legion latium to dalmatia across mare-hadriaticum" in options
    moved = mn(db, "order", "g", "--as", "rome", "move legion latium to sicilia with myrmidons across mare-tyrrhenum")
    assert moved.exit_code == 0, moved.output
    assert moved.stdout.splitlines()[0] == ("    3  Rome moves the Myrmidons from Latium to Sicilia by sea, crossing "
                                            "Mare Tyrrhenum without a trireme (Odysseus).")
    shown = mn(db, "show", "g").stdout
    assert "Caesar, Achilles, Odysseus (the Myrmidons in sicilia)" in shown
    assert shown.splitlines()[-1] == "Battle Victory markers: Rome 0, Greece 0, Carthage 0"


def test_10_croesus_options_offer_his_coin_prices_once_a_round(tmp_path: Path) -> None:
    """`mn options` lists what Croesus builds for coins (control, city or caravan for 1, market or temple
    for 4), as far as the builder's coins reach, and no longer once his power is used this round."""
    db, pos = tmp_path / "g.db", tmp_path / "pos.toml"
    pos.write_text("""\
round = 2
phase = "build"
titles = { culture = "rome" }
[step]
active = "rome"
[empires.rome]
tiles = ["caesar", "croesus"]
resources = { coin = 4 }
[empires.greece]
[empires.carthage]
[provinces.latium]
controller = "rome"
buildings = ["roma", "caravan-wine", "market"]
[cities]
expansions = ["ierusalem"]
""")
    mn(db, "new", "--position", str(pos), "--id", "g")

    before = mn(db, "options", "g", "--as", "rome")
    mn(db, "order", "g", "--as", "rome", "build caravan in latium with croesus pay 1 coin")
    after = mn(db, "options", "g", "--as", "rome")

    assert before.exit_code == 0
    assert before.stdout == (
        "build control in {province} pay {payment}\n"
        "    province: gallia | italia\n"
        "    payment: coin coin coin\n"
        "build legion in {province} pay {payment}\n"
        "    province: latium\n"
        "    payment: coin coin coin\n"
        "build fortress in {province} pay {payment}\n"
        "    province: latium\n"
        "    payment: coin coin coin\n"
        "build trireme in {sea} pay {payment}\n"
        "    sea: mare-hadriaticum | mare-tyrrhenum\n"
        "    payment: coin coin coin\n"
        "build caravan in latium pay {payment}\n"
        "    payment: coin coin coin\n"
        "build control in {province} with croesus pay 1 coin\n"
        "    province: gallia | italia\n"
        "build caravan in latium with croesus pay 1 coin\n"
        "build temple in latium with croesus pay 4 coin\n"
        "done\n"
        "fix dice {empire} {die}    # one die per unit that empire rolls in its next battle: fix dice rome 5 4 3\n"
        "    empire: rome | greece | carthage\n"
        "    die: 1 | 2 | 3 | 4 | 5 | 6\n"
        "fix legendary {commodity}    # the next legendary commodity drawn, if the pile holds one\n"
        "    commodity: ceramic | gems | papyrus | metal | spices | stone | wood | gold | grain | oil | sheep | wine"
        " | gladiator\n")
    assert "croesus" not in after.stdout


SIEGE = """\
round = 2
phase = "move"
titles = { military = "rome" }
[step]
active = "rome"
stage = "land"
[empires.rome]
tiles = ["caesar"]
[empires.greece]
tiles = ["pericles"]
[empires.carthage]
[provinces.macedonia]
controller = "greece"
legions = { rome = 2, greece = 1 }
[seas]
SEA = { greece = 1 }
[cities]
expansions = ["troia"]
hands = { greece = ["siege-vessels"] }
"""


def test_lc_5_3_siege_vessels_refused_and_not_offered_without_a_trireme_next_to_the_battle(tmp_path: Path
                                                                                           ) -> None:
    """Siege Vessels with Greece's only trireme in Mare Cyprium, far from Macedonia: `mn options` does not
    offer them and the order is refused, citing the card and ruling R235; with the trireme in Mare Aegaeum,
    next to Macedonia, the same order is offered."""
    far, near, pos = tmp_path / "far.db", tmp_path / "near.db", tmp_path / "pos.toml"
    pos.write_text(SIEGE.replace("SEA", "mare-cyprium"))
    mn(far, "new", "--position", str(pos), "--id", "g")
    pos.write_text(SIEGE.replace("SEA", "mare-aegaeum"))
    mn(near, "new", "--position", str(pos), "--id", "g")

    written = len(open_store(str(far)).rows("g"))
    played = mn(far, "order", "g", "--as", "greece", "play siege-vessels in macedonia on rome")

    assert played.exit_code == 1 and played.stdout == ""
    assert played.stderr == ("Error: 'play siege-vessels in macedonia on rome': Greece has no trireme in a sea "
                             "next to Macedonia: Siege Vessels would add no die (ruling R235) "
                             "[rule empires:lc.5.3.siege-vessels]\n")
    assert len(open_store(str(far)).rows("g")) == written
    assert not any(line.startswith("play ") for line in mn(far, "options", "g", "--as", "greece").stdout.splitlines())
    assert mn(near, "options", "g", "--as", "greece").stdout.splitlines()[0] == "play siege-vessels in macedonia on rome"


BOTH = """\
board = "setup:atlantis"
round = 2
phase = "move"
titles = { military = "atlantis" }
[step]
active = "atlantis"
stage = "land"
[empires.rome]
[empires.greece]
[empires.babylon]
[empires.egypt]
[empires.carthage]
[empires.atlantis]
tiles = ["atlas", "chiron", "achilles"]
centaurs = "gadeira"
myrmidons = "gadeira"
[provinces.gadeira]
controller = "atlantis"
legions = { atlantis = 3 }
[provinces.atlantis]
controller = "atlantis"
[provinces.mestoria]
controller = "atlantis"
[cities]
expansions = ["troia"]
hands = { atlantis = ["chariots"] }
"""
SIX = ("--empire", "rome", "--empire", "greece", "--empire", "carthage", "--empire", "egypt", "--empire",
       "babylon", "--empire", "atlantis")


def test_lc_5_3_chariots_the_centaurs_and_the_myrmidons_with_atlantis(tmp_path: Path) -> None:
    """`mn new --setup atlantis --expansion troia` is a game (Achilles among the tiles besides Chiron's
    board); an empire holding the Centaurs and the Myrmidons plays Chariots: both step a second time,
    as `mn options` offers and the log says (ruling R236)."""
    db, pos = tmp_path / "g.db", tmp_path / "pos.toml"
    made = mn(db, "new", "--setup", "atlantis", "--expansion", "troia", *SIX, "--seed", "s", "--id", "new")
    setup = EMPIRES.decode_event(open_store(str(db)).rows("new")[1].payload)
    assert made.exit_code == 0 and made.stdout == "new\n"
    assert isinstance(setup, ev.CitiesSetUp) and "achilles" in setup.added
    pos.write_text(BOTH)
    mn(db, "new", "--position", str(pos), "--id", "g")
    two = mn(db, "order", "g", "--as", "atlantis", "move 2 legions gadeira to hesperides")
    assert two.exit_code == 1 and two.stderr == (
        "Error: 'move 2 legions gadeira to hesperides': Atlantis has 1 legion(s) besides the Centaurs and the "
        "Myrmidons in Gadeira that have not moved this turn; each unit moves once; move the Centaurs and the "
        "Myrmidons with 'with centaurs' or 'with myrmidons' [rule empires:4.1]\n")

    for order in ("play chariots", "move legion gadeira to atlantis with centaurs",
                  "move legion gadeira to atlantis with myrmidons"):
        assert mn(db, "order", "g", "--as", "atlantis", order).exit_code == 0, order
    offered = [x for x in mn(db, "options", "g", "--as", "atlantis").stdout.splitlines()
               if x.startswith("move ")]
    moved = mn(db, "order", "g", "--as", "atlantis", "move legion atlantis to mestoria with myrmidons")
    again = mn(db, "order", "g", "--as", "atlantis", "move legion mestoria to atlantis with myrmidons")

    assert offered == ["move legion atlantis to gadeira with centaurs", "move legion atlantis to mestoria with centaurs",
                       "move legion atlantis to gadeira with myrmidons", "move legion atlantis to mestoria with myrmidons",
                       "move legion gadeira to atlantis", "move legion gadeira to hesperides"]
    assert moved.stdout.splitlines()[0] == ("    7  Atlantis moves the Myrmidons from Atlantis to Mestoria "
                                            "(1 making a second step, Chariots).")
    assert again.exit_code == 1 and again.stderr == (
        "Error: 'move legion mestoria to atlantis with myrmidons': Atlantis's Myrmidons have moved this turn; "
        "each unit moves once (twice with Chariots, from a province free of opponents) [rule empires:4.1]\n")
