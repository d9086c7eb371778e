"""Random legal play over many seeds keeps the invariants of the rules and of the log."""

from __future__ import annotations

import random
from typing import cast

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mncore.core.dice import Rng, seeded_secret
from mncore.core.errors import CommandRejected
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.decide import decide
from mncore.rulesets.empires.evolve import replay
from mncore.rulesets.empires.flow import pending, rules_for
from mncore.rulesets.empires.game_data import load_ruleset
from mncore.rulesets.empires.ids import COMMODITIES, LEGENDARY_PREFIX
from mncore.rulesets.empires.players.autoplay import candidate_lines, choose
from mncore.rulesets.empires.projections import held_buildings, level, unit_count
from mncore.rulesets.empires.seam import RULESET
from mncore.rulesets.empires.state import GameState, MoveStep, TradeStep
from mncore.rulesets.empires.text import parse_order
from mncore.secrecy import boundary
from support import FIVE, FOUR, THREE, new_game

RS = load_ruleset()


def _all_bags(state: GameState) -> list[dict[str, int]]:
    bags = [es.resources for es in state.empires.values()]
    if isinstance(state.step, TradeStep):
        bags += list(state.step.offers.values()) + list(state.step.claimed.values())
    return bags


def check_supply_conserved(state: GameState) -> None:
    """Reserve + every holding = the component counts, for coins, each commodity and legendaries."""
    bags = _all_bags(state)
    for token, total in (("coin", RS.components.coins), *RS.components.commodities.items()):
        held = sum(b.get(token, 0) for b in bags)
        assert state.supply.get(token, 0) + held == total, token
    legendary = sum(n for b in bags for t, n in b.items() if t.startswith(LEGENDARY_PREFIX))
    assert len(state.legendary_pile) + len(state.legendary_discard) + legendary == len(COMMODITIES)


def check_no_negative_holdings(state: GameState) -> None:
    for bag in (*_all_bags(state), state.supply):
        assert all(n > 0 for n in bag.values()), bag


def check_units_and_buildings_within_supply(state: GameState) -> None:
    for emp in state.empires:
        for kind, n in unit_count(state, emp).items():
            assert n <= RS.components.units[kind], (emp, kind, n)
    built: dict[str, int] = {}
    for ps in state.provinces.values():
        for kind in ps.buildings.values():
            built[kind] = built.get(kind, 0) + 1
        assert sum(1 for _ in [ps.fortress] if ps.fortress) <= 1
    for kind, n in built.items():
        assert n <= RS.components.buildings[kind], kind  # type: ignore[index]


def check_tracks_equal_a_recount(state: GameState) -> None:
    """The projection agrees with a plain count of what each empire holds."""
    for emp in state.empires:
        kinds = [k for _, _, k in held_buildings(state, emp)]
        bonus = {t: sum(getattr(next(x for x in RS.tiles if x.id == tid).bonus, t)
                        for tid in state.empires[emp].tiles) for t in ("trade", "culture", "military")}
        assert level(state, emp, "trade") == sum(k in ("caravan", "market") for k in kinds) + bonus["trade"]
        assert level(state, emp, "culture") == sum(
            k in ("city", "capital", "legendary", "temple") for k in kinds) + bonus["culture"]
        assert level(state, emp, "military") == sum(unit_count(state, emp).values()) + bonus["military"]


def check_hidden_information(state: GameState) -> None:
    """No empire's view shows another's resources or unrevealed offer."""
    for viewer in state.empires:
        doc = boundary.view(RULESET, state, viewer)
        for emp, e in doc["empires"].items():
            assert (e["resources"] is None) == (emp != viewer)
        if doc["trade"] and not doc["trade"]["revealed"]:
            for emp, offer in doc["trade"]["offers"].items():
                assert emp == viewer or set(offer) == {"hidden"}


def check_options_are_accepted(state: GameState, rand: random.Random) -> None:
    """Every option listed for a waiting empire is accepted by decide."""
    for emp in sorted({p.empire for p in pending(state)}):
        for option in rules_for(state.phase).options(state, emp):
            for line in candidate_lines(option, rand, samples=2):
                try:
                    decide(state, parse_order(line, state, emp), Rng(seeded_secret("o"), "0" * 64))
                except CommandRejected as err:
                    raise AssertionError(f"{emp}: listed option '{line}' refused: {err.message}") from None


def check_mandatory_battles_fought(state: GameState, events: list[ev.AnyEvent]) -> None:
    """A move turn ends only after a battle wherever the mover meets an opponent not at peace (R47)."""
    from mncore.rulesets.empires.evolve import replay as fold
    for e in events:
        if isinstance(e, ev.MoveTurnEnded) and isinstance(state.step, MoveStep):
            mover = e.empire
            peace = state.empires[mover].peace_with
            for pid, ps in state.provinces.items():
                mine = ps.legions.get(mover, 0) or ps.fortress == mover
                others = {o for o, n in ps.legions.items() if n and o != mover}
                others |= {ps.fortress} if ps.fortress and ps.fortress != mover else set()
                others -= {peace} if peace else set()
                others = {o for o in others if state.empires[o].peace_with != mover}
                if mine and others:
                    assert pid in state.step.battles, f"{mover} ended its turn without fighting in {pid}"
        state = fold([e], state)


def _play(seed: int, players: dict, orders: int, style: str) -> tuple[GameState, list[ev.AnyEvent]]:  # type: ignore[type-arg]
    play = new_game(players, seed=str(seed), display="first-game")
    rand = random.Random(seed)
    for n in range(orders):
        state = play.state
        check_supply_conserved(state)
        check_no_negative_holdings(state)
        check_units_and_buildings_within_supply(state)
        if n % 7 == 0:
            check_tracks_equal_a_recount(state)
            check_hidden_information(state)
            check_options_are_accepted(state, rand)
        choice = choose(state, rand, play.rng(), style=style)
        if choice is None:
            break
        check_mandatory_battles_fought(state, choice.events)
        play.given(*choice.events)
        if play.state.winner is not None:
            break
    return play.state, play.events


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), players=st.sampled_from([THREE, FOUR, FIVE]),
       style=st.sampled_from(["random", "builder", "general"]))
def test_random_legal_play_keeps_the_invariants(seed: int, players: dict, style: str) -> None:  # type: ignore[type-arg]
    """Supply conserved, nothing negative, supply limits, tracks recounted, hidden info, options legal."""
    state, events = _play(seed, players, 600, style)

    check_supply_conserved(state)
    check_units_and_buildings_within_supply(state)


@pytest.mark.slow
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6))
def test_replay_after_a_json_round_trip_equals_the_live_state(seed: int) -> None:
    """Encoding every event to JSON and back, then folding, gives the same state."""
    state, events = _play(seed, FIVE, 150, "random")

    again = replay(cast(ev.AnyEvent, ev.decode_event(ev.encode_event(e))) for e in events)

    assert again == state
    assert msgspec.json.encode(again, order="deterministic") == msgspec.json.encode(
        state, order="deterministic")


def test_refused_orders_change_nothing() -> None:
    """A refused order raises and the state it was given is untouched."""
    play = new_game(THREE)
    before = msgspec.json.encode(play.state)

    for line in ("trade 7", "builder rome"):
        try:
            play.order("rome", line)
        except CommandRejected:
            pass

    assert msgspec.json.encode(play.state) == before


@pytest.mark.slow
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6))
def test_every_recorded_die_recomputes_from_the_revealed_secret(seed: int, tmp_path_factory) -> None:  # type: ignore[no-untyped-def]
    """A stored game played to its end, once revealed, verifies: every draw recomputes."""
    from golden import play
    from mncore.audits.verify import verify_rows
    from mncore.store import open_store
    db = tmp_path_factory.mktemp("dice") / "d.db"

    loaded = play(db, "g", str(seed), 3 + seed % 3, "general")

    report = verify_rows(open_store(str(db)).rows("g"), open_store(str(db)).log_version("g"))
    assert report.ok, report.reason
    if loaded.state.winner is not None:
        assert report.secret_revealed and report.random_unchecked == 0
