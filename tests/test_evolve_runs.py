"""A log's fold (evolve_all), which folds a run of claims, offers, collections, discards, turns or titles
at once (evolve_runs.py), gives the very state evolve gives one event at a time, dict order included."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fold_record import FIXTURES, digest, golden_events
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.evolve import evolve, evolve_all
from mncore.rulesets.empires.evolve_runs import RUNS
from mncore.rulesets.empires.ids import TRACKS, Empire
from mncore.rulesets.empires.seam import RULESET
from mncore.rulesets.empires.state import (
    BuildStep,
    CitiesState,
    Claim,
    CollectStep,
    EmpireState,
    Fight,
    GameState,
    LeadershipStep,
    MoveStep,
    Step,
    Tactic,
    TitleTie,
    TradeStep,
)

EMPIRES: tuple[Empire, ...] = ("rome", "greece", "carthage")
# an ordinary token, one the reserve lacks, a legendary one (drawn from the pile, discarded to the
# legendary discard) and one of no kind evolve knows (moved as an ordinary one)
TOKENS = ("coin", "wine", "grain", "legendary-wine", "odd")


def _one_by_one(state: GameState, events: list[Any]) -> GameState:
    for e in events:
        state = evolve(state, e)
    return state


def test_runs_are_folded_at_once_for_the_bench_logs_commonest_events() -> None:
    assert set(RUNS) == {ev.ResourceClaimed, ev.ResourcesOffered, ev.ResourcesCollected, ev.ResourcesDiscarded,
                         ev.MoverChosen, ev.MoveTurnEnded, ev.BuilderChosen, ev.BuildTurnEnded,
                         ev.TitleTied, ev.TitleClaimed}


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_a_golden_games_fold_from_any_event_ends_where_evolve_does(path: Path) -> None:
    events = golden_events(path)
    states = [RULESET.initial("")]
    for e in events:
        states.append(evolve(states[-1], e))
    runs = 0
    for i in range(len(events)):  # from every event, a stretch that starts and ends anywhere in a run
        stretch = events[i:i + 1 + i % 11]
        runs += any(type(a) is type(b) and type(a) in RUNS for a, b in zip(stretch, stretch[1:]))
        assert digest(evolve_all(states[i], stretch)) == digest(states[i + len(stretch)]), f"{path.name} event {i}"
    assert runs > 0 or path.stem == "atlas-alternative-3"


_bags = st.dictionaries(st.sampled_from(TOKENS), st.integers(-2, 3), max_size=5)
_empires = st.sampled_from(EMPIRES)
_kinds = [
    st.builds(ev.ResourceClaimed, empire=_empires, source=_empires, token=st.sampled_from(TOKENS)),
    st.builds(ev.ResourcesOffered, empire=_empires, offer=_bags, count=st.integers(0, 4)),
    st.builds(ev.ResourcesCollected, empire=_empires, gained=_bags),
    st.builds(ev.ResourcesDiscarded, empire=_empires, discarded=_bags, count=st.integers(0, 4)),
]
_tracks = st.sampled_from(TRACKS)
_families = [  # events of two types whose runs go to one handler
    st.one_of(st.builds(ev.MoverChosen, empire=_empires, mover=_empires), st.builds(ev.MoveTurnEnded, empire=_empires)),
    st.one_of(st.builds(ev.BuilderChosen, empire=_empires, builder=_empires),
              st.builds(ev.BuildTurnEnded, empire=_empires)),
    st.one_of(st.builds(ev.TitleTied, track=_tracks, holder=_empires, tied=st.tuples(_empires, _empires),
                        levels=st.just({})),
              st.builds(ev.TitleClaimed, track=_tracks, empire=_empires, levels=st.just({}))),
]
_runs = st.one_of(*(st.lists(kind, min_size=1, max_size=5) for kind in _kinds + _families))


@st.composite
def _steps(draw: st.DrawFn) -> Step:
    """A step of any phase, with what the runs change already under way."""
    trade = TradeStep(offers=draw(st.dictionaries(_empires, _bags)), claimed=draw(st.dictionaries(_empires, _bags)),
                      claims=(Claim(claimant="rome", source="greece", token="coin"),), value=3)
    steps: list[Step] = [
        trade, CollectStep(), BuildStep(active="greece", done=("rome",), builds=2),
        MoveStep(peace_decided=("rome",), active="greece", stage="land", moved_legions={"Latium": 1}),
        LeadershipStep(ties=(TitleTie(track=draw(_tracks), holder="rome", tied=("greece", "carthage")),)),
    ]
    return draw(st.sampled_from(steps))


@st.composite
def _states(draw: st.DrawFn) -> GameState:
    """A state whose bags may hold zeros and negative counts (a position, an edited snapshot), in any
    phase, a turn's battles perhaps not yet cleared from the expansions' cards."""
    fight = Fight(place="Latium", attacker="rome", defender="greece")
    tactic = Tactic(empire="rome", played="x", place="Latium")
    cities = draw(st.sampled_from([None, CitiesState(), CitiesState(fights=(fight,)), CitiesState(tactics=(tactic,))]))
    return GameState(empires={e: EmpireState(player=e, resources=draw(_bags)) for e in EMPIRES},
                     supply=draw(_bags), step=draw(_steps()), cities=cities,
                     titles=draw(st.dictionaries(_tracks, _empires)),
                     exchange_holder=draw(st.sampled_from((None, *EMPIRES))),
                     exchange_played=draw(st.sampled_from([(), (1,)])),
                     legendary_pile=("wine",) * 100, legendary_discard=("grain",))


@settings(max_examples=500, deadline=None)
@given(state=_states(), runs=st.lists(_runs, max_size=4))
def test_runs_folded_at_once_give_the_state_of_evolve_one_by_one(state: GameState, runs: list[list[Any]]) -> None:
    events = [e for run in runs for e in run]
    want = _one_by_one(state, events)
    got = evolve_all(state, iter(events))  # a stream: each run is gathered as it comes
    assert got == want
    assert digest(got) == digest(want)  # every dict's order too
