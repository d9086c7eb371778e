"""Set-up (steps 1–5, 3- and 4-player set-ups): what a new game holds before its first order."""

from __future__ import annotations

import pytest

from mncore.rulesets.empires.board import load_board
from mncore.rulesets.empires.game_data import load_ruleset
from mncore.rulesets.empires.projections import held_buildings, tracks, unit_count
from mncore.rulesets.empires.state import bag_total
from support import FIVE, FOUR, THREE, new_game

# set-up step 4 (board brief C1)
START_LEVELS = {"rome": (7, 1, 3), "greece": (4, 4, 3), "babylon": (5, 3, 2), "egypt": (4, 4, 2),
                "carthage": (7, 1, 2)}


@pytest.mark.parametrize("players", [THREE, FOUR, FIVE], ids=["3", "4", "5"])
def test_setup_3_each_empire_holds_exactly_nine_resources(players: dict) -> None:  # type: ignore[type-arg]
    """Set-up step 3: the first round's collection is nine resources for every empire (C2)."""
    state = new_game(players).state

    assert {e: bag_total(es.resources) for e, es in state.empires.items()} == {e: 9 for e in players}


@pytest.mark.parametrize("players", [THREE, FOUR, FIVE], ids=["3", "4", "5"])
def test_setup_4_leader_values_are_those_of_the_rulebook(players: dict) -> None:  # type: ignore[type-arg]
    """Set-up step 4: Rome 7/1/3, Greece 4/4/3, Babylon 5/3/2, Egypt 4/4/2, Carthage 7/1/2 (C1)."""
    levels = tracks(new_game(players).state)

    assert {e: (t["trade"], t["culture"], t["military"]) for e, t in levels.items()} == {
        e: START_LEVELS[e] for e in players}


def test_setup_4_five_players_start_with_carthage_egypt_and_rome_as_leaders() -> None:
    """Carthage is Trade Leader, Egypt Culture Leader, Rome Military Leader (C3)."""
    assert new_game(FIVE).state.titles == {"trade": "carthage", "culture": "egypt", "military": "rome"}


def test_setup_4_with_three_players_greece_is_the_culture_leader() -> None:
    """In a 3-player game Greece begins as Culture Leader."""
    assert new_game(THREE).state.titles == {"trade": "carthage", "culture": "greece",
                                            "military": "rome"}


def test_setup_players_three_cover_the_babylonian_and_egyptian_regions() -> None:
    """3 players: the Babylonian and Egyptian provinces are not in play (C8)."""
    board = load_board()
    covered = {p.id for p in board.provinces if p.region in ("babylon", "egypt")}

    state = new_game(THREE).state

    assert covered and not covered & set(state.provinces)
    assert len(state.provinces) == len(board.provinces) - len(covered)


def test_setup_players_four_cover_the_babylonian_region() -> None:
    """4 players: only the Babylonian provinces are covered (C8)."""
    board = load_board()
    babylon = {p.id for p in board.provinces if p.region == "babylon"}

    state = new_game(FOUR).state

    assert not babylon & set(state.provinces)
    assert {p.id for p in board.provinces if p.region == "egypt"} <= set(state.provinces)


def test_setup_round_one_starts_at_the_trade_phase() -> None:
    """Round 1 skips Collect (set-up step 3 collected already) and starts with Trade."""
    state = new_game(FIVE).state

    assert (state.round, state.phase) == (1, "trade")


def test_setup_starting_heroes_and_units() -> None:
    """Each empire starts with its hero, three provinces and the units of its screen."""
    state = new_game(FIVE).state

    assert {e: es.tiles for e, es in state.empires.items()} == {
        "rome": ("caesar",), "greece": ("pericles",), "babylon": ("hammurabi",),
        "egypt": ("cleopatra",), "carthage": ("hannibal",)}
    assert all(sum(1 for ps in state.provinces.values() if ps.controller == e) == 3 for e in FIVE)
    assert unit_count(state, "carthage") == {"legion": 1, "trireme": 1, "fortress": 0}


def test_components_supply_plus_holdings_equal_the_component_counts() -> None:
    """Reserve + behind the screens = the components; buildings on the board within their supply."""
    state = new_game(FIVE).state
    rs = load_ruleset()

    for token, total in (("coin", rs.components.coins), *rs.components.commodities.items()):
        held = sum(es.resources.get(token, 0) for es in state.empires.values())
        assert state.supply.get(token, 0) + held == total
    built = [k for e in FIVE for _, _, k in held_buildings(state, e)]
    assert all(built.count(k) <= n for k, n in rs.components.buildings.items())


def test_setup_5_first_game_display_has_five_tiles_and_the_pyramids_face_up() -> None:
    """First games: 5 random tiles and the Pyramids face up, the other 12 face down."""
    state = new_game(FIVE, display="first-game").state

    up = [d.tile for d in state.display if d.face_up]
    assert len(up) == 6 and "pyramids" in up
    assert sum(1 for d in state.display if not d.face_up) == 12


def test_setup_5_experienced_display_is_all_face_up() -> None:
    """Experienced players: all 17 tiles and the Pyramids face up."""
    state = new_game(FIVE, display="experienced").state

    assert len(state.display) == 18 and all(d.face_up for d in state.display)


def test_setup_random_empires_are_drawn_from_the_secret() -> None:
    """Drawn empires depend on the secret, and the same secret draws the same."""
    from mncore.core.dice import GENESIS_HASH, Rng, seeded_secret
    from mncore.rulesets.empires.commands import CreateGame
    from mncore.rulesets.empires.decide import create_game

    def drawn(seed: str) -> dict[str, str]:
        cmd = CreateGame(board=load_board(), random_players=("Ann", "Ben", "Cat", "Dee"))
        first = create_game(cmd, Rng(seeded_secret(seed), GENESIS_HASH), "0" * 64)[0]
        return first.players  # type: ignore[union-attr,no-any-return]

    assert drawn("a") == drawn("a")
    assert set(drawn("a")) == {"rome", "greece", "egypt", "carthage"}
    assert len({tuple(sorted(drawn(str(i)).items())) for i in range(8)}) > 1
