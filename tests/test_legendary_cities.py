"""The Legendary City expansions through the CLI: set-up, the hidden draw-and-pass with four empires, leaks."""

from __future__ import annotations

import json
import random
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner, Result

from mncli.cli import main
from mncore.core.dice import seeded_secret
from mncore.core.protocol import NewGame
from mncore.games import reading, writing
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.cities import DECK_SIZE, available, city_problems, load_city
from mncore.rulesets.empires.players.autoplay import play_stored
from mncore.rulesets.empires.seam import RULESET as EMPIRES
from mncore.store import open_store

FOUR = ("rome", "greece", "egypt", "carthage")
POSITION = """\
round = 2
phase = "build"
titles = { culture = "rome" }
[step]
active = "rome"
[empires.rome]
resources = { coin = 9 }
[empires.greece]
[empires.carthage]
[empires.egypt]
[provinces.judea]
controller = "rome"
buildings = ["ierusalem"]
[cities]
expansions = ["ierusalem"]
"""


def mn(db: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["--db", str(db), *args])


def cards_part(db: Path, viewer: str) -> list[str]:
    """The expansion lines of `mn show --as viewer`: objectives, decks, hands, the draw-and-pass."""
    text = mn(db, "show", "g", "--as", viewer).stdout
    return text[text.index("Objectives:"):].splitlines()


# --- set-up (lc.2) ------------------------------------------------------------------------------------

def test_lc_2_mn_new_records_the_expansion_and_replaces_its_six_tiles(tmp_path: Path) -> None:
    """`mn new --expansion ierusalem`: GameCreated records it; Ierusalem's six tiles replace six named ones."""
    db = tmp_path / "g.db"

    made = mn(db, "new", *(a for e in ("rome", "greece", "carthage") for a in ("--empire", e)),
              "--expansion", "ierusalem", "--seed", "s", "--id", "g")
    rows = open_store(str(db)).rows("g")

    assert made.exit_code == 0 and made.stdout == "g\n"
    assert json.loads(rows[0].payload)["options"]["expansions"] == ["ierusalem"]
    setup = EMPIRES.decode_event(rows[1].payload)
    assert isinstance(setup, ev.CitiesSetUp)
    assert setup.removed == ("temple-of-artemis", "antigone", "castor-pollux", "circe", "hamilcar",
                             "penthesilea")
    assert setup.added == ("adonis", "croesus", "imhotep", "moses", "solomon", "halicarnassus")
    display = {d.tile for d in EMPIRES.decode_event(rows[2].payload).display}
    assert set(setup.added) <= display and not set(setup.removed) & display
    assert len(setup.decks["ierusalem"]) == DECK_SIZE


def test_lc_2_an_unknown_or_unshipped_expansion_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    """An expansion of another game, one named twice, or one whose data is not shipped: exit 2, no game."""
    db = tmp_path / "g.db"
    sides = ["--empire", "rome", "--empire", "greece", "--empire", "carthage"]

    unknown = mn(db, "new", *sides, "--expansion", "atlantis")
    twice = mn(db, "new", *sides, "--expansion", "ierusalem", "--expansion", "ierusalem")

    assert unknown.exit_code == 2
    assert unknown.stderr == ("Error: --expansion atlantis: not an expansion of Mare Nostrum: Empires (2016) "
                              "(expansions: troia, ierusalem, syracusae)\n")
    assert twice.exit_code == 2
    assert twice.stderr == "Error: --expansion: an expansion is named twice [rule lc.4]\n"
    for missing in {"troia", "syracusae"} - set(available()):
        refused = mn(db, "new", *sides, "--expansion", missing)
        assert refused.exit_code == 2 and "not available in this engine" in refused.stderr
    assert mn(db, "games").stdout.count("\n") <= 1


def test_lc_2_a_game_without_expansions_encodes_as_before(tmp_path: Path) -> None:
    """No expansion: GameCreated carries no `expansions` field and no CitiesSetUp follows (old logs
    replay byte for byte: the field's default is omitted)."""
    db = tmp_path / "g.db"

    mn(db, "new", "--empire", "rome", "--empire", "greece", "--empire", "carthage", "--seed", "s", "--id", "g")
    rows = open_store(str(db)).rows("g")

    assert "expansions" not in rows[0].payload
    assert rows[1].type == "TilesDisplayed"


def test_lc_1_each_expansion_file_decodes_and_checks() -> None:
    """Six tiles for six, three objectives, fifteen cards; a broken file lists its problems."""
    city = load_city("ierusalem")

    broken = msgspec.structs.replace(city, replaces=city.replaces[:5], cards=city.cards[:-1])

    assert len(city.tiles) == 6 and len(city.objectives) == 3 and len(city.deck_cards()) == DECK_SIZE
    assert city_problems(city, "ierusalem") == []
    assert city_problems(broken, "ierusalem") == ["6 tiles replace 5 base tiles",
                                                  "the deck holds 12 cards, not 15"]


# --- the draw-and-pass through the CLI, four empires (lc.3.2) ------------------------------------------

def test_lc_3_2_who_sees_what_at_each_step_of_a_draw_and_pass_with_four_empires(tmp_path: Path) -> None:
    """Rome fulfils Solomon's Wisdom, draws four, keeps one and passes on; each empire sees only the
    cards it held, in `mn show --as`, `mn log --as` and `mn export --as`; after the reveal, verify
    recomputes every draw."""
    db, pos = tmp_path / "g.db", tmp_path / "pos.toml"
    pos.write_text(POSITION)
    assert mn(db, "new", "--position", str(pos), "--seed", "four", "--id", "g").exit_code == 0

    built = mn(db, "order", "g", "--as", "rome", "build temple in judea pay 6 coin")
    assert built.stdout.splitlines()[1] == ("    4  Rome fulfilled the Objective Solomon's Wisdom (built a temple "
                                            "in Judea): the tile is turned to its used side.")
    status = mn(db, "status", "g").stdout.splitlines()
    assert status[-1] == ("  Rome (Rome): draw — fulfilled an Objective: says how many Divine Bonus Cards it "
                          "draws (1 to 5)")
    assert mn(db, "order", "g", "--as", "greece", "done").exit_code == 1  # R200: the draw comes first

    drawn = mn(db, "order", "g", "--as", "rome", "draw 4")
    assert drawn.stdout.splitlines()[0] == "    5  Rome drew 4 Divine Bonus Cards: Poseidon, Horus, Fortune Tellers, Baal."
    assert cards_part(db, "rome")[-1] == "Draw-and-pass: Rome drew 4; Rome chooses from Poseidon, Horus, Fortune Tellers, Baal"
    for other in ("greece", "egypt", "carthage"):
        assert cards_part(db, other)[-1] == "Draw-and-pass: Rome drew 4; Rome chooses from 4 face down"
        assert mn(db, "log", "g", "--as", other, "--from", "5").stdout == (
            "    5  Rome drew 4 Divine Bonus Cards, face down.\n")

    mn(db, "order", "g", "--as", "rome", "choose baal pass greece")
    assert cards_part(db, "greece")[-1] == "Draw-and-pass: Rome drew 4; Greece chooses from Poseidon, Horus, Fortune Tellers"
    assert cards_part(db, "egypt")[-1] == "Draw-and-pass: Rome drew 4; Greece chooses from 3 face down"
    mn(db, "order", "g", "--as", "greece", "choose horus pass egypt")
    mn(db, "order", "g", "--as", "egypt", "choose poseidon pass carthage")
    mn(db, "order", "g", "--as", "carthage", "choose fortune-tellers")

    expected = {"rome": "Baal", "greece": "Horus", "egypt": "Poseidon", "carthage": "Fortune Tellers"}
    for viewer, kept in expected.items():
        hands = cards_part(db, viewer)[2:6]
        assert hands == [f"  {e.title():<10} 1 card" + (f": {kept}" if e == viewer else "") for e in FOUR]
    assert mn(db, "log", "g", "--as", "egypt", "--from", "6").stdout == (
        "    6  Rome kept one card, face down.\n"
        "    7  Rome passed 3 cards to Greece.\n"
        "    8  Greece kept one card, face down.\n"
        "    9  Greece passed Poseidon, Fortune Tellers to Egypt.\n"
        "   10  Egypt kept Poseidon, face down.\n"
        "   11  Egypt passed Fortune Tellers to Carthage.\n"
        "   12  Carthage kept one card, face down.\n")
    for viewer, seen in {"rome": {"poseidon", "horus", "fortune-tellers", "baal"},
                         "greece": {"poseidon", "horus", "fortune-tellers"},
                         "egypt": {"poseidon", "fortune-tellers"}, "carthage": {"fortune-tellers"}}.items():
        exported = mn(db, "export", "g", "--as", viewer).stdout
        named = {c for c in ("poseidon", "horus", "fortune-tellers", "baal") if f'"{c}"' in exported}
        assert named == seen, viewer

    assert mn(db, "order", "g", "--as", "greece", "play horus track culture").exit_code == 0
    assert mn(db, "reveal", "g", "--force").exit_code == 0
    verified = mn(db, "verify", "g")
    assert verified.exit_code == 0 and "every random outcome recomputes" in verified.stdout


def test_lc_3_3_options_list_the_cards_an_empire_may_play_now_even_in_another_turn(tmp_path: Path) -> None:
    """The standing window (ruling R209): Greece, not the builder, may play its Horus now."""
    db, pos = tmp_path / "g.db", tmp_path / "pos.toml"
    pos.write_text(POSITION + 'hands = { greece = ["horus"] }\n')
    mn(db, "new", "--position", str(pos), "--seed", "w", "--id", "g")

    options = mn(db, "options", "g", "--as", "greece").stdout.splitlines()

    assert options[:3] == ["play horus track trade", "play horus track culture", "play horus track military"]
    assert cards_part(db, "greece")[-1] == ("May play now: play horus track trade; play horus track culture; "
                                           "play horus track military")


# --- the leak search over a scripted game with an expansion ------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("expansions", ["ierusalem", "ierusalem,syracusae", "troia,ierusalem,syracusae"])
def test_lc_3_2_no_output_made_for_a_side_holds_another_sides_cards(tmp_path: Path, expansions: str) -> None:
    """A fair-play four-empire game with expansions played by scripted players through draws and plays:
    no output made for one empire holds the cards another holds or passed out of its sight, nor the
    commodities Dido took."""
    from test_leaks import _assert_no_leak, _outputs, _truncated_copy
    db = tmp_path / "g.db"
    store = open_store(str(db), create=True)
    cmd = EMPIRES.new_game(NewGame(sides=FOUR, options={"expansions": expansions}))
    # a known secret: the run is reproducible (a fresh one would make every run a different game)
    loaded = writing.create(store, EMPIRES, cmd, seeded_secret(f"leaks {expansions}"), "g")
    secret = bytes.fromhex(store.secret("g") or "")
    play_stored(store, loaded, secret, random.Random(7), 500)
    rows = store.rows("g")
    kept = [r.seq for r in rows if r.type == "BonusCardKept"]
    assert kept, "the scripted game drew no Bonus Cards"
    for stop in sorted({kept[0], kept[-1] + 1, len(rows)}):
        at = tmp_path / f"at{stop}.db"
        _truncated_copy(db, "g", stop, at)
        for viewer in FOUR:
            _assert_no_leak(at, "g", viewer, _outputs(at, "g", viewer, tmp_path))


# --- multiple expansions (lc.4) ----------------------------------------------------------------------------

def test_lc_4_two_expansions_replace_eight_tiles_with_four_of_each_and_keep_their_decks_apart(
        tmp_path: Path) -> None:
    """Two expansions: 8 base tiles drawn out, 4 drawn from each expansion in; one Objective from each
    and a third from the other four; both decks whole and separate."""
    from mncore.rulesets.empires.rules.expansions import base_tiles
    db = tmp_path / "g.db"

    mn(db, "new", "--empire", "rome", "--empire", "greece", "--empire", "carthage",
       "--expansion", "ierusalem", "--expansion", "syracusae", "--seed", "two", "--id", "g")
    rows = open_store(str(db)).rows("g")
    setup = EMPIRES.decode_event(rows[1].payload)
    display = {d.tile for d in EMPIRES.decode_event(rows[2].payload).display}

    assert isinstance(setup, ev.CitiesSetUp)
    assert len(setup.removed) == 8 and set(setup.removed) <= set(base_tiles())
    tiles = {x: {t.id for t in load_city(x).tiles} for x in ("ierusalem", "syracusae")}
    assert [sum(t in tiles[x] for t in setup.added) for x in ("ierusalem", "syracusae")] == [4, 4]
    assert set(setup.added) <= display and not set(setup.removed) & display
    objectives = {x: {o.id for o in load_city(x).objectives} for x in tiles}
    assert len(setup.objectives) == 3 and len(set(setup.objectives)) == 3
    assert setup.objectives[0] in objectives["ierusalem"] and setup.objectives[1] in objectives["syracusae"]
    assert {x: len(d) for x, d in setup.decks.items()} == {"ierusalem": DECK_SIZE, "syracusae": DECK_SIZE}
    shown = cards_part(db, "rome")
    assert shown[1] == "Bonus Cards: Divine deck 15, Commerce deck 15; discard pile 0"


def test_lc_4_an_objective_draws_from_its_own_expansions_deck(tmp_path: Path) -> None:
    """With both decks, Solomon's Wisdom (Ierusalem) draws Divine cards only."""
    db, pos = tmp_path / "g.db", tmp_path / "pos.toml"
    pos.write_text(POSITION.replace('expansions = ["ierusalem"]', 'expansions = ["ierusalem", "syracusae"]\n'
                                    'objectives = ["solomons-wisdom", "hermes-disciples", "daedalus-plans"]'))
    mn(db, "new", "--position", str(pos), "--seed", "own", "--id", "g")

    mn(db, "order", "g", "--as", "rome", "build temple in judea pay 6 coin")
    mn(db, "order", "g", "--as", "rome", "draw 5")
    doc = json.loads(mn(db, "show", "g", "--as", "rome", "--json").stdout)["cities"]

    divine = {c.id for c in load_city("ierusalem").cards}
    assert doc["decks"] == {"ierusalem": DECK_SIZE - 5, "syracusae": DECK_SIZE}
    assert set(doc["draw"]["cards"]) <= divine


def test_lc_2_a_position_with_unknown_cards_or_expansions_is_refused_with_every_problem(tmp_path: Path) -> None:
    """A position naming cards or Objectives not of its expansions, or an expansion not shipped: exit 2,
    every problem listed, no game."""
    db, pos = tmp_path / "g.db", tmp_path / "bad.toml"
    pos.write_text('round = 2\nphase = "build"\n[empires.rome]\n[empires.greece]\n[empires.carthage]\n'
                   '[cities]\nexpansions = ["ierusalem"]\nhands = { rome = ["zeus"] }\nobjectives = ["nope"]\n')

    refused = mn(db, "new", "--position", str(pos))

    assert refused.exit_code == 2
    assert refused.stderr == (f"Error: {pos}: 2 problem(s)\n"
                              "  cities.objectives: nope is not an Objective of the expansions in play\n"
                              "  cities.hands: zeus is not a Bonus Card of the expansions in play\n")


def test_lc_3_3_options_offer_a_template_where_the_player_chooses_the_payment(tmp_path: Path) -> None:
    """The Port of Piraeus: one line per province and sea, the payment among the sets the empire holds."""
    db, pos = tmp_path / "g.db", tmp_path / "pos.toml"
    pos.write_text(POSITION.replace('resources = { coin = 9 }', 'resources = { wine = 1, grain = 1, oil = 1, '
                                    'metal = 1, gems = 1, stone = 1 }')
                   .replace('expansions = ["ierusalem"]', 'expansions = ["syracusae"]')
                   + 'hands = { rome = ["port-of-piraeus"] }\n')
    mn(db, "new", "--position", str(pos), "--seed", "port", "--id", "g")

    options = mn(db, "options", "g", "--as", "rome").stdout

    assert ("play port-of-piraeus in judea sea mare-aegyptium pay {payment6}    # 6 different resources\n"
            "    payment6: gems grain metal oil stone wine\n") in options


# --- Midas's gold (10.midas) ---------------------------------------------------------------------------

def _gold_in_reserve(db: Path) -> int:
    state = reading.load(open_store(str(db)), "g").state
    return int(state.supply.get("gold", 0))  # type: ignore[attr-defined]


def test_10_midas_in_play_two_gold_tokens_are_added_to_the_reserve(tmp_path: Path) -> None:
    """10.midas: "If Midas is in play, add 2 Gold commodity tokens, from the Atlas expansion, to the
    commodity reserve pile": with Syracusae, whose tiles bring Midas, the reserve holds 2 more gold than a
    game without him, and the set-up's event records them."""
    # given: a game with Syracusae (Midas among its tiles) and one without an expansion
    sides = [a for e in ("rome", "greece", "carthage") for a in ("--empire", e)]
    with_midas, without = tmp_path / "g.db", tmp_path / "plain" / "g.db"
    without.parent.mkdir()

    # when: both are made
    mn(with_midas, "new", *sides, "--expansion", "syracusae", "--seed", "s", "--id", "g")
    mn(without, "new", *sides, "--seed", "s", "--id", "g")

    # then: Midas is on the display, the CitiesSetUp adds 2 gold, and the reserve holds them
    setup = EMPIRES.decode_event(open_store(str(with_midas)).rows("g")[1].payload)
    assert isinstance(setup, ev.CitiesSetUp) and "midas" in setup.added
    assert setup.supply == {"gold": 2}
    assert _gold_in_reserve(with_midas) == _gold_in_reserve(without) + 2


def test_10_midas_not_in_play_no_gold_is_added(tmp_path: Path) -> None:
    """10.midas: the tokens are added only "if Midas is in play": an expansion without him adds none."""
    # given: a game with Ierusalem alone, which does not bring Midas
    db = tmp_path / "g.db"

    # when: it is made
    mn(db, "new", *(a for e in ("rome", "greece", "carthage") for a in ("--empire", e)),
       "--expansion", "ierusalem", "--seed", "s", "--id", "g")

    # then: its set-up adds nothing to the reserve
    setup = EMPIRES.decode_event(open_store(str(db)).rows("g")[1].payload)
    assert isinstance(setup, ev.CitiesSetUp) and "midas" not in setup.added
    assert setup.supply == {} and '"supply"' not in open_store(str(db)).rows("g")[1].payload


def test_10_midas_a_log_recorded_without_the_tokens_replays_as_it_was_played() -> None:
    """A CitiesSetUp recorded before the tokens were added (no `supply` field) decodes with none, so a game
    folded from it has the reserves it was played with (re-deciding it, as `mn import` does, now adds them)."""
    # given: a recorded set-up event without the field
    payload = json.dumps({"type": "CitiesSetUp", "expansions": ["syracusae"], "removed": [], "added": ["midas"],
                          "objectives": [], "decks": {}})

    # when: it is decoded
    setup = EMPIRES.decode_event(payload.encode())

    # then: it adds nothing
    assert isinstance(setup, ev.CitiesSetUp) and setup.supply == {}


def test_10_midas_a_position_with_midas_in_play_supplies_his_two_gold(tmp_path: Path) -> None:
    """10.midas in a position: with Midas held, the reserve the position derives holds his 2 gold, and an
    empire may hold every gold token the game supplies with them (the base count and two)."""
    # given: a Syracusae position in which Rome holds Midas and every gold token of the base game and two
    from mncore.rulesets.empires.game_data import load_ruleset
    gold = load_ruleset().components.commodities["gold"]
    pos = tmp_path / "midas.toml"
    pos.write_text(f"""\
round = 2
phase = "build"
[empires.rome]
tiles = ["caesar", "midas"]
resources = {{ gold = {gold + 2} }}
[empires.greece]
[empires.carthage]
[cities]
expansions = ["syracusae"]
""")
    db = tmp_path / "g.db"

    # when: a game is made from it
    made = mn(db, "new", "--position", str(pos), "--id", "g")

    # then: accepted, the reserve holding no gold left
    assert made.exit_code == 0, made.output
    assert _gold_in_reserve(db) == 0
