"""The facts kept beside an Empires state (kept.py) equal their recount after every event."""

from __future__ import annotations

import random
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mncore.games import transfer
from mncore.games.log_reading import decode_rows, fold
from mncore.pbem import turns
from mncore.rulesets.empires.evolve import HANDLERS
from mncore.rulesets.empires.ids import EMPIRES
from mncore.rulesets.empires.kept import LEVELS, has_kept, kept, recount, standing
from mncore.rulesets.empires.players.autoplay import choose
from mncore.rulesets.empires.projections import count_levels, levels_of
from mncore.rulesets.empires.seam import RULESET
from mncore.rulesets.empires.state import GameState
from support import FIVE, FOUR, THREE, new_game

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
EMPIRES_FIXTURES = sorted(p for p in FIXTURES.glob("*.jsonl") if not p.name.startswith("classic"))


def _check(state: GameState, event: object, where: str) -> None:
    """Carried by the game's own events (a kernel event may be folded by the kernel, which need not
    carry them: they are then counted again when read), and equal to a recount; the buildings on the
    board by kind and the provinces each empire controls equal a plain count over the provinces; the
    leader levels, where carried, equal a count on this state (and are asked, so that the next state
    may have them)."""
    if type(event) in HANDLERS:
        assert has_kept(state), f"{where}: the facts were not carried by evolve"
    assert kept(state).as_tuple() == recount(state).as_tuple(), where
    carried = state.__dict__.get(LEVELS)
    if carried is not None:
        assert carried == {e: count_levels(state, e) for e in state.empires}, f"{where}: leader levels"
    levels_of(state)
    on_board: dict[str, int] = {}
    for ps in state.provinces.values():
        for kind in ps.buildings.values():
            on_board[kind] = on_board.get(kind, 0) + 1
    assert kept(state).built == on_board, f"{where}: buildings on the board by kind"
    controlled: dict[str, dict[str, int]] = {}
    for pid, ps in state.provinces.items():
        if ps.controller is not None:
            controlled.setdefault(ps.controller, {})[pid] = 1
    assert kept(state).controlled == controlled, f"{where}: the provinces each empire controls"
    for e in EMPIRES:
        stand = tuple(pid for pid, ps in sorted(state.provinces.items()) if ps.legions.get(e, 0) or ps.fortress == e)
        assert standing(state, e) == stand, f"{where}: where {e}'s units stand"


@pytest.mark.parametrize("path", EMPIRES_FIXTURES, ids=lambda p: p.stem)
def test_kept_facts_equal_their_recount_after_every_event_of_a_golden_game(path: Path) -> None:
    _, rows = transfer.parse_export(path.read_bytes(), path.name)
    ruleset, events = decode_rows(rows, path.name)
    assert ruleset is RULESET or ruleset is not None and ruleset.id == RULESET.id
    state: GameState = RULESET.initial("")
    kept(state)  # the first state counts them; every later one has them carried
    checked = 0
    for row, event in turns.live(rows, events):
        state = RULESET.evolve(state, event)
        _check(state, event, f"{path.name} event {row.seq} ({row.type})")
        checked += 1
    assert checked > 100 and state.winner is not None


def test_a_log_folded_whole_from_a_state_with_kept_facts_carries_them_as_evolve_does() -> None:
    path = EMPIRES_FIXTURES[0]
    _, rows = transfer.parse_export(path.read_bytes(), path.name)
    _, events = decode_rows(rows, path.name)
    live = [e for _, e in turns.live(rows, events)]
    cut = len(live) // 2
    start = fold(RULESET, live[:cut])
    assert not start.__dict__  # the bulk fold from the empty state keeps no facts, as evolve's loop would not
    kept(start)
    by_event = start
    for e in live[cut:]:
        by_event = RULESET.evolve(by_event, e)
    whole = fold(RULESET, live[cut:], start)
    assert whole == by_event and has_kept(whole)
    assert kept(whole).as_tuple() == kept(by_event).as_tuple() == recount(whole).as_tuple()


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), players=st.sampled_from([THREE, FOUR, FIVE]),
       style=st.sampled_from(["random", "builder", "general"]))
def test_kept_facts_equal_their_recount_after_every_event_of_random_play(seed: int, players: dict,  # type: ignore[type-arg]
                                                                         style: str) -> None:
    play = new_game(players, seed=str(seed))
    state = play.state
    kept(state)
    rand = random.Random(seed)
    for n in range(300):
        choice = choose(state, rand, play.rng(), style=style)
        if choice is None:
            break
        for i, event in enumerate(choice.events):
            state = RULESET.evolve(state, event)
            _check(state, event, f"order {n} event {i} ({type(event).__name__})")
        if choice.after is not None and choice.events:  # the state the rules decided on carries them too
            _check(choice.after, choice.events[-1], f"order {n}: the decided state")
        play.given(*choice.events)
        if state.winner is not None:
            break


def test_kept_facts_are_never_encoded_and_a_decoded_state_recounts_them() -> None:
    play = new_game(FIVE)
    state = play.state
    bare = msgspec.msgpack.encode(state), msgspec.json.encode(state)
    facts = kept(state)
    assert (msgspec.msgpack.encode(state), msgspec.json.encode(state)) == bare
    thawed = RULESET.decode_state(RULESET.encode_state(state))
    assert not has_kept(thawed) and thawed == state
    assert kept(thawed).as_tuple() == facts.as_tuple()


def test_leader_levels_are_carried_to_a_state_whose_board_is_unchanged_and_recounted_otherwise() -> None:
    from mncore.rulesets.empires import events as ev
    play = new_game(FIVE)
    state = play.state
    levels = levels_of(state)
    titled = RULESET.evolve(state, ev.TitleClaimed(track="trade", empire="rome", levels={}))
    assert titled.__dict__.get(LEVELS) is levels  # a title claimed changes no level
    moved = RULESET.evolve(state, ev.PhaseBegan(round=state.round + 1, phase="collect"))
    assert LEVELS not in moved.__dict__  # a new round: the round's bonus cards may have lapsed
    assert levels_of(moved) == levels
