"""Positions: a TOML file describes a whole game situation; it reads, checks, writes and starts sandboxes."""

from __future__ import annotations

import functools
import json
import random
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from both import IDS, SPECS, Spec
from mncli.cli import main
from mncore.core.dice import GENESIS_HASH, Rng, commitment, seeded_secret
from mncore.core.errors import CommandRejected, DataError
from mncore.games import reading, writing
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.board import board_digest
from mncore.rulesets.empires.commands import AnyOrder
from mncore.rulesets.empires.decide import decide
from mncore.rulesets.empires.evolve import replay
from mncore.rulesets.empires.flow import pending, rules_for
from mncore.rulesets.empires.game_data import load_ruleset
from mncore.rulesets.empires.players.autoplay import candidate_lines
from mncore.rulesets.empires.position import (
    creation_command,
    creation_events,
    decode_position,
    default_supply,
    read_position,
    write_position,
)
from mncore.rulesets.empires.state import BuildStep, GameState, Options, TradeStep, bag_tokens
from mncore.rulesets.empires.text import parse_order
from mncore.secrecy.boundary import as_host
from mncore.store import open_store
from support import FIVE, THREE, new_game

RS = load_ruleset()


def played_game(seed: int = 7, orders: int = 400, players: dict = FIVE) -> list[ev.AnyEvent]:  # type: ignore[type-arg]
    """The events of a real game played by scripted players from a new game."""
    play = new_game(players, seed=str(seed), display="first-game")
    rand = random.Random(seed)
    for _ in range(orders):
        accepted = _one_order(play.state, rand, play.rng())
        if accepted is None:
            break
        play.given(*accepted[1])
        if play.state.winner is not None:
            break
    return play.events


def _one_order(state: GameState, rand: random.Random, rng: Rng
               ) -> tuple[AnyOrder, list[ev.AnyEvent]] | None:
    """One accepted order of a waiting empire and its events, or None if none is found."""
    waiting = sorted({p.empire for p in pending(state)})
    if not waiting:
        return None
    empire = rand.choice(waiting)
    lines = [ln for o in rules_for(state.phase).options(state, empire)
             for ln in candidate_lines(o, rand)]
    if isinstance(state.step, TradeStep) and state.step.value is not None:
        tokens = bag_tokens(state.empires[empire].resources)
        lines.append("offer " + " ".join(rand.sample(tokens, min(state.step.value, len(tokens)))))
    rand.shuffle(lines)
    for line in lines:
        try:
            order = parse_order(line, state, empire)
            return order, decide(state, order, rng)
        except CommandRejected:
            continue
    return None


@functools.cache
def _events() -> tuple[ev.AnyEvent, ...]:
    return tuple(played_game())


def comparable(state: GameState) -> GameState:
    """A state without what a position never carries: the game's identity and options."""
    return replace(state, game_id="", options=Options(), commitment="")


def position(text: str) -> GameState:
    return decode_position(text.encode(), "p.toml")


def problems(text: str) -> list[str]:
    with pytest.raises(DataError) as err:
        position(text)
    return err.value.problems


MINIMAL = """
round = 2
phase = "build"
[empires.rome]
[empires.greece]
[empires.carthage]
"""


def mn(db: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["--db", str(db), *args])


# --- round trip ---------------------------------------------------------------------------------

@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_positions_write_and_read_back_to_the_same_state_at_any_point_of_a_real_game(data: st.DataObject) -> None:
    """At any event of a played game, writing the position and reading it back gives the same state."""
    events = _events()
    n = data.draw(st.integers(1, len(events)), label="event")
    state = replay(events[:n])

    back = position(write_position(as_host(state)))

    assert comparable(back) == comparable(state)


@pytest.mark.slow
def test_the_round_trip_holds_at_every_event_of_a_three_player_game() -> None:
    """With three players (covered regions), every point of a played game round-trips."""
    events = played_game(seed=3, orders=150, players=THREE)
    state = GameState()

    for event in events:
        state = replay([event], state)
        assert comparable(position(write_position(as_host(state)))) == comparable(state)


def test_a_position_on_a_board_of_ones_own_embeds_the_board(tmp_path: Path) -> None:
    """A game on another board writes that board whole into its position, and reads it back."""
    board = replace(replay(_events()[:1]).geo_board, id="my-board")
    state = replace(replay(_events()[:40]), board=board, board_digest=board_digest(board))

    text = write_position(as_host(state))

    assert 'board = "default"' not in text and 'id = "my-board"' in text
    assert comparable(position(text)) == comparable(state)


# --- defaults ---------------------------------------------------------------------------------

def test_left_out_fields_take_the_documented_defaults() -> None:
    """Players default to the empire's name, the step to the phase's empty step, the rest to empty."""
    state = position(MINIMAL)

    assert state.round == 2 and state.phase == "build" and state.step == BuildStep()
    assert state.empires["rome"].player == "Rome" and state.empires["rome"].resources == {}
    assert state.titles == {} and state.display == () and state.exchange_holder is None
    assert all(not ps.controller for ps in state.provinces.values())
    assert "babylonia" not in state.provinces  # covered with three players


def test_the_reserve_is_the_component_counts_minus_what_is_held() -> None:
    """Left out, the reserve is computed: never a number the user must work out."""
    state = position(MINIMAL + 'resources = { coin = 4, wine = 2, legendary-gold = 1 }\n')

    assert state.supply["coin"] == RS.components.coins - 4
    assert state.supply["wine"] == RS.components.commodities["wine"] - 2
    assert "gold" not in state.legendary_pile and len(state.legendary_pile) == 12
    assert state.supply == default_supply(state)


def test_buildings_may_be_listed_by_space_only() -> None:
    """A list of space ids builds each space's own kind."""
    state = position(MINIMAL.replace("[empires.carthage]", """[empires.carthage]
[provinces.latium]
controller = "rome"
buildings = ["roma", "temple"]
"""))

    assert state.provinces["latium"].buildings == {"roma": "capital", "temple": "temple"}
    assert state.round_start_control["rome"] == ("latium",)


def test_a_relative_board_path_is_read_beside_the_position_file(tmp_path: Path) -> None:
    """board = "file.toml" names a board file next to the position."""
    src = Path(__file__).resolve().parent.parent / "mncore" / "rulesets" / "empires" / "data" / "board.toml"
    (tmp_path / "my.toml").write_bytes(src.read_bytes())
    path = tmp_path / "p.toml"
    path.write_text('board = "my.toml"\n' + MINIMAL)

    state = read_position(str(path))

    assert state.geo_board.id == "mare-nostrum-empires-reference"


# --- validation ---------------------------------------------------------------------------------

def test_a_building_on_a_space_of_another_kind_is_reported_with_its_place() -> None:
    """A market built on Latium's temple space, and a space Gallia lacks, are named by their place."""
    found = problems(MINIMAL + """
[provinces.latium]
controller = "rome"
buildings = { temple = "market" }
[provinces.gallia]
controller = "rome"
buildings = { temple = "temple" }
""")

    assert "provinces.latium.buildings.temple: a temple space, not a market one" in found
    assert "provinces.gallia.buildings.temple: no temple space in Gallia" in found


def test_9_0_units_beyond_the_supply_are_refused() -> None:
    """Nine legions of one empire: the game supplies eight (Q&A: units are limited)."""
    found = problems(MINIMAL + """
[provinces.latium]
controller = "rome"
legions = { rome = 9 }
""")

    assert found == ["legions: Rome has 9 on the board; the game supplies 8"]


def test_9_0_resources_beyond_the_supply_are_refused() -> None:
    """Ten wine behind the screens: the game supplies nine (Q&A: resources are limited)."""
    text = (MINIMAL.replace("[empires.rome]", "[empires.rome]\nresources = { wine = 6 }")
            .replace("[empires.greece]", "[empires.greece]\nresources = { wine = 4 }"))

    found = problems(text)

    assert found == ["resources.wine: 10 held; the game supplies 9"]


def test_every_problem_is_listed_at_once() -> None:
    """Empires out of play, covered provinces, unknown seas, titles, duplicate tiles: all reported."""
    text = 'titles = { trade = "egypt" }\n' + MINIMAL.replace(
        "[empires.rome]", '[empires.rome]\ntiles = ["caesar", "caesar"]') + """
[provinces.babylonia]
controller = "rome"
[provinces.latium]
fortress = "babylon"
[seas.mare-nostrum]
rome = 1
"""

    found = problems(text)

    assert "titles.trade: Egypt is not in play" in found
    assert "provinces.babylonia: Babylonia is covered with 3 players" in found
    assert "provinces.latium.fortress: Babylon is not in play" in found
    assert "seas.mare-nostrum: no sea 'mare-nostrum' on board 'mare-nostrum-empires-reference'" in found
    assert "tiles: Caesar appears 2 times among the empires' tiles and the display" in found


def test_4_3_5_a_capitals_printed_marker_cannot_be_occupied() -> None:
    """A legion on Greece's printed marker in Achaea is refused: a capital is never converted."""
    found = problems(MINIMAL + """
[provinces.macedonia]
controller = "rome"
[provinces.achaea]
controller = "greece"
legions = { rome = 1 }
marker_occupier = "rome"
marker_round = 2
""")

    assert found == ["provinces.achaea.marker_occupier: Achaea is a capital city province: its control "
                     "marker is printed on the map and never occupied or converted (4.3.5)"]


def test_a_misspelt_field_is_named_with_its_path() -> None:
    """Unknown fields fail loudly, with the path to them."""
    found = problems(MINIMAL + '[provinces.latium]\nlegionz = { rome = 1 }\n')

    assert found == ["provinces.latium.legionz: unknown field (misspelt?)"]


def test_a_step_of_another_phase_is_refused() -> None:
    """The step must belong to the phase."""
    found = problems(MINIMAL + '[step]\ntype = "trade"\n')

    assert found == ["step: a trade step in the build phase"]


def test_the_empires_in_play_must_match_the_player_count() -> None:
    """Three empires must be those whose regions are not covered."""
    found = problems(MINIMAL.replace("[empires.carthage]", "[empires.egypt]"))

    assert found[0].startswith("empires: with 3 players the empires in play are Rome, Greece, Carthage")


def test_the_games_identity_is_not_part_of_a_position() -> None:
    """A position may not set the game id, commitment, secret or options."""
    found = problems('commitment = "00"\n' + MINIMAL)

    assert found == ["commitment: not part of a position (the game sets it)"]


# --- the CLI: mn new --position and mn position -------------------------------------------------------

def test_mn_new_position_starts_a_sandbox_game_that_verifies(tmp_path: Path) -> None:
    """The game opens with GameCreated and PositionLoaded, is a sandbox, and re-decides under verify."""
    db, path = tmp_path / "mn.db", tmp_path / "p.toml"
    path.write_text(write_position(as_host(replay(_events()[:60]))))

    created = mn(db, "new", "--position", str(path), "--seed", "s", "--id", "pos")
    verified = mn(db, "verify", "pos")

    assert created.exit_code == 0 and created.stdout == "pos\n"
    rows = open_store(str(db)).rows("pos")
    assert [r.type for r in rows[:2]] == ["GameCreated", "PositionLoaded"]
    first = ev.decode_event(rows[0].payload)
    assert isinstance(first, ev.GameCreated) and first.options.sandbox and not first.options.fair_play
    assert verified.exit_code == 0, verified.output
    assert "commands decided again give exactly the stored events" in verified.stdout


def test_a_position_game_plays_on_and_still_verifies(tmp_path: Path) -> None:
    """Orders given in a position game are checked and the whole log verifies."""
    db, path = tmp_path / "mn.db", tmp_path / "p.toml"
    path.write_text(write_position(as_host(replay(_events()[:30]))))
    assert mn(db, "new", "--position", str(path), "--seed", "s", "--id", "pos").exit_code == 0
    store = open_store(str(db))
    loaded = reading.load(store, "pos")
    rand = random.Random(1)
    for _ in range(20):
        accepted = _one_order(loaded.state, rand, Rng(seeded_secret("s"), loaded.head[1]))
        if accepted is None:
            break
        loaded = writing.give(store, loaded, accepted[0], answer=False).after

    result = mn(db, "verify", "pos")

    assert result.exit_code == 0, result.output


AETHIOPIA = """
round = 2
phase = "collect"
titles = { trade = "carthage", culture = "egypt", military = "rome" }
[empires.rome]
[empires.greece]
[empires.egypt]
[empires.carthage]
[provinces.aethiopia]
controller = "egypt"
buildings = ["caravan-grain", "caravan-gold"]
"""


def _opening(text: str) -> list[ev.AnyEvent]:
    """What follows GameCreated and PositionLoaded by itself when a game starts at this position."""
    secret = seeded_secret("s")
    return creation_events(creation_command(position(text)), Rng(secret, GENESIS_HASH), commitment(secret))[2:]


def test_1_1_a_position_at_the_collect_phase_collects_as_play_would(tmp_path: Path) -> None:
    """A position at the start of Collect (its step empty) collects first, then trading begins; the
    game verifies."""
    db, path = tmp_path / "mn.db", tmp_path / "p.toml"
    path.write_text(AETHIOPIA)

    created = mn(db, "new", "--position", str(path), "--id", "pos")

    assert created.exit_code == 0, created.output
    shown = json.loads(mn(db, "show", "pos", "--json").stdout)
    assert shown["phase"] == "trade" and shown["empires"]["egypt"]["resources"] == {"gold": 1, "grain": 1}
    assert mn(db, "verify", "pos").exit_code == 0


def test_5_0_a_position_at_claim_leadership_claims_the_titles() -> None:
    """A position at the start of Claim Leadership claims the three titles, as the phase's start does."""
    text = AETHIOPIA.replace('phase = "collect"', 'phase = "leadership"') + (
        '[provinces.latium]\ncontroller = "rome"\nbuildings = ["roma"]\nlegions = { rome = 1 }\n')

    opening = _opening(text)

    claimed = [(e.track, e.empire) for e in opening if isinstance(e, ev.TitleClaimed)]
    assert claimed == [("trade", "egypt"), ("culture", "rome"), ("military", "rome")]


def test_1_1_a_collect_position_with_its_choices_open_is_not_collected_again() -> None:
    """A game resting in Collect always has a choice open, which the step records: such a position
    starts with that choice, and nothing is collected a second time."""
    text = AETHIOPIA.replace("[empires.egypt]", '[empires.egypt]\ntiles = ["colossus"]') + (
        '[step]\ncolossus = ["egypt"]\n')

    opening = _opening(text)

    assert not any(isinstance(e, ev.ResourcesCollected) for e in opening)


def test_a_position_command_from_an_older_engine_starts_as_it_did() -> None:
    """A CreateFromPosition stored before positions began their phase (no `begins`) still gives the
    same events, so old logs verify: nothing collected."""
    cmd = creation_command(position(AETHIOPIA))
    secret = seeded_secret("s")

    old = creation_events(replace(cmd, begins=False), Rng(secret, GENESIS_HASH), commitment(secret))

    assert cmd.begins and b'"begins"' not in msgspec.json.encode(replace(cmd, begins=False))
    assert not any(isinstance(e, ev.ResourcesCollected) for e in old)


def test_a_bad_position_writes_nothing_and_lists_its_problems(tmp_path: Path) -> None:
    """mn new --position on an invalid file exits 2 naming the problems; no game is stored."""
    db, path = tmp_path / "mn.db", tmp_path / "p.toml"
    path.write_text(MINIMAL + '[provinces.latium]\nlegions = { rome = 9 }\n')

    result = mn(db, "new", "--position", str(path), "--id", "bad")

    assert result.exit_code == 2
    assert "legions: Rome has 9 on the board; the game supplies 8" in result.stderr
    assert not db.exists() or not open_store(str(db)).has_game("bad")


def test_mn_position_at_n_writes_the_state_after_event_n(tmp_path: Path) -> None:
    """mn position GAME --at N -o FILE, read back, is the state after event N."""
    db, out = tmp_path / "mn.db", tmp_path / "at.toml"
    assert mn(db, "new", "--empire", "rome", "--empire", "greece", "--empire", "carthage",
              "--seed", "s", "--id", "g").exit_code == 0

    result = mn(db, "position", "g", "--at", "6", "-o", str(out))

    assert result.exit_code == 0 and result.stdout == ""
    expected = reading.load(open_store(str(db)), "g", 6).state
    assert comparable(position(out.read_text())) == comparable(expected)


def test_k12_a_position_inside_a_collection_is_refused_naming_where_to_take_it(tmp_path: Path) -> None:
    """Events 1 to 6 of a new game are one outcome: after event 3 Rome has collected and the others not,
    which a position cannot say (a game started there would collect again); a side's view may be taken."""
    db, out = tmp_path / "mn.db", tmp_path / "at.toml"
    assert mn(db, "new", "--empire", "rome", "--empire", "greece", "--empire", "carthage",
              "--seed", "s", "--id", "g").exit_code == 0

    result = mn(db, "position", "g", "--at", "3", "-o", str(out))
    side = mn(db, "position", "g", "--at", "3", "--as", "rome")

    assert result.exit_code == 2 and not out.exists()
    assert result.stderr == (
        "Error: --at 3: event 3 is inside the outcome of one command (events 1 to 6), where the game never "
        "rested: a game started there would do again the work done before it (such as collecting) [rule "
        "kernel:K12]; take --at 6, after it\n")
    assert side.exit_code == 0 and side.stdout


def test_k12_a_position_where_a_phase_began_inside_an_outcome_is_that_phases_start(tmp_path: Path) -> None:
    """A phase's start holds none of its work: taken there, the position is loadable and begins the phase
    as in play; a point in the collection after it is refused, pointing to that start."""
    db = tmp_path / "mn.db"
    assert mn(db, "demo", "--players", "3", "--seed", "k12", "--max-orders", "40").exit_code == 0
    store = open_store(str(db))
    gid = store.games()[0].id
    rows = store.rows(gid)
    began = next(r for r in rows if r.type == "PhaseBegan" and r.seq > 6
                 and rows[r.seq].type == "ResourcesCollected" and rows[r.seq].batch == r.batch)
    inside = rows[began.seq + 1]  # the second empire's collection, the first's done
    end = max(r.seq for r in rows if r.batch == began.batch)

    at_start = mn(db, "position", gid, "--at", str(began.seq), "-o", str(tmp_path / "p.toml"))
    refused = mn(db, "position", gid, "--at", str(inside.seq))

    assert at_start.exit_code == 0, at_start.output
    assert mn(db, "new", "--position", str(tmp_path / "p.toml"), "--id", "from").exit_code == 0
    assert refused.exit_code == 2
    assert refused.stderr.endswith(f"take --at {end}, after it, or --at {began.seq}, where its phase began\n")


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_mn_position_refuses_an_event_out_of_range(tmp_path: Path, spec: Spec) -> None:
    """--at beyond the log is bad input, in every ruleset."""
    db = tmp_path / "mn.db"
    mn(db, "new", *spec.new, "--seed", "orders", "--id", "g")

    result = mn(db, "position", "g", "--at", "99")

    assert result.exit_code == 2
    assert result.stderr == f"Error: --at 99: game g has events 1 to {spec.last_made}\n"


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_a_position_written_and_loaded_is_a_sandbox_that_plays_on_and_verifies(tmp_path: Path,
                                                                             spec: Spec) -> None:
    """mn position then mn new --position: a sandbox at the same state (mn diff finds nothing) that
    takes the game's first order and verifies, in every ruleset."""
    db, path = tmp_path / "mn.db", tmp_path / "p.toml"
    mn(db, "new", *spec.new, "--seed", "orders", "--id", "g")

    written = mn(db, "position", "g", "-o", str(path))
    created = mn(db, "new", *spec.flag, "--position", str(path), "--seed", "s", "--id", "pos")

    assert written.exit_code == 0 and created.exit_code == 0 and created.stdout == "pos\n", created.output
    assert [r.type for r in open_store(str(db)).rows("pos")[:2]] == ["GameCreated", "PositionLoaded"]
    status = json.loads(mn(db, "status", "pos", "--json").stdout)
    assert status["sandbox"] is True and status["fair_play"] is False
    assert mn(db, "diff", "g", "pos").stdout == "No differences.\n"
    ordered = mn(db, "order", "pos", "--as", spec.side, spec.legal)
    assert ordered.exit_code == 0, ordered.output
    assert mn(db, "verify", "pos").exit_code == 0


def test_position_loaded_event_round_trips_through_json() -> None:
    """The PositionLoaded event encodes and decodes to itself (it enters the hash chain)."""
    state = comparable(replace(replay(_events()[:50]), board=None, board_digest=""))
    event = ev.PositionLoaded(state=state)

    assert ev.decode_event(ev.encode_event(event)) == event
    assert msgspec.json.decode(ev.encode_event(event))["type"] == "PositionLoaded"


# --- every problem at once, tiles by name (issue 18) -----------------------------------------------

def test_a_position_lists_every_problem_in_one_run() -> None:
    """Mistakes of every kind (a misspelt key, a bad value, a wrong space, an empire not in play, a
    bad count) are all listed by one read, not one kind per run."""
    found = problems('colour = "red"\n' + MINIMAL + """
[empires.rome.resources]
coin = "x"
[provinces.latium]
buildings = ["marketplace"]
legions = { egypt = 2 }
[provinces.achaea]
legionz = 3
[seas]
mare-aegaeum = { greece = -1 }
""")

    assert sorted(found) == sorted([
        "colour: unknown field (misspelt?)",
        "empires.rome.resources[...]: Expected `int`, got `str`",
        "provinces.latium.buildings: no space 'marketplace' in Latium",
        "provinces.achaea.legionz: unknown field (misspelt?)",
        "provinces.latium.legions: Egypt is not in play",
        "seas.mare-aegaeum.greece: -1; counts may not be negative",
    ])


def test_a_position_names_tiles_as_orders_do() -> None:
    """Tiles may be given by any name an order accepts: "sheba", "Ramses II", "castor and pollux"."""
    state = position('display = ["sheba", "Statue of Zeus"]\n' + MINIMAL.replace(
        "[empires.rome]", '[empires.rome]\ntiles = ["Ramses II"]'))

    assert state.empires["rome"].tiles == ("ramses",)
    assert [d.tile for d in state.display] == ["queen-of-sheba", "statue-of-zeus"]


def test_an_unknown_tile_lists_the_tile_ids() -> None:
    """A tile name nothing matches is refused once, with the closest name and every valid id."""
    found = problems('display = ["zeuss"]\n' + MINIMAL)

    assert len(found) == 1
    assert found[0].startswith("display[0].tile: unknown hero or wonder 'zeuss' (did you mean Statue "
                               "of Zeus?); the tile ids: caesar, pericles, ")
    assert found[0].endswith("statue-of-zeus, temple-of-artemis, pyramids, atlas, chiron, achilles, aeneas, agamemnon, "
                             "ajax, helen, odysseus, adonis, croesus, imhotep, moses, solomon, halicarnassus, "
                             "archimedes, dido, jason, midas, minos, ptolemy")  # the Legendary City tiles last
