"""The sampler's scripted players: every order they draw is one decide() accepts, in random games."""

from __future__ import annotations

import gc
import random

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mncore.core.dice import Rng, seeded_secret
from mncore.core.errors import InvalidCommand
from mncore.games import writing
from mncore.rulesets.empires.board import load_board
from mncore.rulesets.empires.commands import CreateGame
from mncore.rulesets.empires.decide import decide
from mncore.rulesets.empires.flow import pending
from mncore.rulesets.empires.ids import Empire
from mncore.rulesets.empires.players.autoplay import forget_parsed, parsed, play
from mncore.rulesets.empires.players.sampler import draw
from mncore.rulesets.empires.seam import RULESET
from mncore.rulesets.empires.text import paid_apart, parse_order
from support import FIVE, FOUR, THREE, new_game


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), players=st.sampled_from([THREE, FOUR, FIVE]),
       style=st.sampled_from(["random", "builder", "general"]))
def test_every_sampled_order_is_accepted_by_decide(seed: int, players: dict[Empire, str],
                                                   style: str) -> None:
    """Whoever must act gets an order; its line reads back as the same order, and decide() given it
    again accepts it and gives the very events the sampler reported."""
    play = new_game(players, seed=str(seed), display="first-game")
    rand = random.Random(seed)
    for _ in range(300):
        state = play.state
        choice = draw(state, rand, play.rng(), style=style)
        if choice is None:
            assert pending(state) == []
            break
        assert choice.empire in {p.empire for p in pending(state)}

        order = parse_order(choice.line, state, choice.empire)
        again = decide(state, order, play.rng())  # a fresh stream: as the store decides it again

        assert order == choice.order and again == choice.events
        play.given(*choice.events)
        if play.state.winner is not None:
            break



def test_a_remembered_line_reads_as_its_phase_and_empire_and_a_refused_one_is_refused_each_time() -> None:
    """parsed() remembers a line's command per board, empire and phase: 'done' is the Build phase's
    or the Move and Battle phase's as the state's phase says, and each empire's own."""
    state = new_game(FIVE, seed="parsed").state
    for phase in ("build", "move"):
        at = msgspec.structs.replace(state, phase=phase)
        for empire in ("rome", "greece"):
            for _ in range(2):  # the first time parsed, then remembered
                assert parsed("done", at, empire) == parse_order("done", at, empire)
    assert type(parsed("done", msgspec.structs.replace(state, phase="build"), "rome")) is not type(
        parsed("done", msgspec.structs.replace(state, phase="move"), "rome"))
    for _ in range(2):
        with pytest.raises(InvalidCommand, match="unknown order 'dun'"):
            parsed("dun", state, "rome")
    forget_parsed()
    assert parsed("done", state, "rome") == parse_order("done", state, "rome")


def test_a_line_another_empire_gave_reads_as_this_empires_own_parse() -> None:
    """parsed() hands an empire the command another empire's same line parsed to, with its own name: equal
    to its own parse for every line the scripted players draw; a JSON line names its empire and is
    parsed (and refused) for each."""
    play = new_game(FIVE, seed="shared lines", display="first-game")
    rand = random.Random(7)
    forget_parsed()
    seen = 0
    for _ in range(400):
        state = play.state
        choice = draw(state, rand, play.rng(), style="builder")
        if choice is None or play.state.winner is not None:
            break
        for empire in FIVE:
            try:
                own = parse_order(choice.line, state, empire)
            except InvalidCommand:
                continue
            assert parsed(choice.line, state, empire) == own
            seen += 1
        play.given(*choice.events)
    assert seen > 1000
    state = play.state
    line = msgspec.json.encode(parsed("done", state, "rome")).decode()
    assert parsed(line, state, "rome") == parse_order(line, state, "rome")
    with pytest.raises(InvalidCommand, match="given --as Greece"):
        parsed(line, state, "greece")


@pytest.mark.parametrize("line", [
    "build legion in achaea pay coin coin wine", "build legion in achaea pay 3 coin",
    "build fortress in achaea pay legendary wine coin", "build legion in achaea pay legendary-wine coin",
    "build control in achaea with hammurabi pay coin", "build trireme in mare-aegaeum pay coin wine marble",
    "build temple in achaea at x pay coin coin coin", "recruit circe pay 3 coin", "perseus pyramids pay coin",
    "build legion in achaea pay nothing", "build legion in Achaea pay Coin WINE",
    # not read apart (a keyword after 'pay', two of it, none after it, quotes): parsed whole
    "build legion in achaea pay coin with spartacus", "build legion in achaea PAY coin pay wine",
    "build legion in achaea pay", "build legion in 'achaea' pay coin", "build legion in achaea pay coin # x",
    # refused for its order or for its payment
    "build legion in nowhere pay coin", "build legion in achaea pay coin dragons",
    "build legion in achaea pay 9999 coin", "build legion in achaea pay 3", "build pay coin",
])
def test_a_build_line_reads_as_its_order_with_its_payment_read_apart(line: str) -> None:
    """parsed() reads 'ORDER pay TOKENS' as ORDER's command with the tokens read apart (each remembered):
    the same command as the whole line's parse for every empire, the first time and remembered, and the
    same refusal; a line not so made is parsed whole."""
    state = msgspec.structs.replace(new_game(FIVE, seed="paid apart").state, phase="build")
    forget_parsed()
    for empire in ("rome", "greece", "rome"):
        try:
            want: object = parse_order(line, state, empire)
        except InvalidCommand as err:
            with pytest.raises(InvalidCommand) as got:
                parsed(line, state, empire)
            assert str(got.value) == str(err)
        else:
            assert parsed(line, state, empire) == want
    apart = paid_apart(line)
    if apart is not None:
        assert line == f"{apart[0]} pay {' '.join(apart[1])}"
    whole = any(w in line for w in ("with sp", "PAY", "'", "#")) or line.endswith(" pay")
    assert (apart is None) == whole


def test_the_places_in_play_are_sorted_again_only_when_they_change() -> None:
    """The sampler's provinces and seas in play, sorted: the list kept while the dict asked holds the same
    places (another dict of them, as every order makes), sorted again for other places."""
    from mncore.rulesets.empires.players.sampler import _SortedKeys
    in_play = _SortedKeys()
    first = in_play({"rome": 1, "achaea": 2})
    assert first == ["achaea", "rome"] and in_play({"achaea": 3, "rome": 4}) is first
    assert in_play({"achaea": 1, "crete": 2, "rome": 3}) == ["achaea", "crete", "rome"]
    assert in_play({"rome": 1}) == ["rome"] and in_play({}) == []


def test_scripted_play_pauses_the_collector_only_while_deciding_and_makes_no_cycle() -> None:
    """play() decides with the cyclic garbage collector off: on again between two decisions (the caller's
    code), and left off throughout by a caller that turned it off; its decisions, refused lines included,
    leave no cyclic garbage for it to find (what pausing it relies on)."""
    cmd = CreateGame(board=load_board(), players=dict(FIVE), display="experienced", fair_play=False)
    secret = seeded_secret("collector")
    _, state = writing.creation(RULESET, cmd, secret)
    deciding: list[bool] = []

    def pick(*args: object) -> object:
        deciding.append(gc.isenabled())
        return draw(*args)  # type: ignore[arg-type]

    def between(collector_on: bool) -> list[bool]:
        if not collector_on:
            gc.disable()
        try:
            return [gc.isenabled() for _ in play(state, random.Random(4), lambda n: Rng(secret, f"{n:064x}"), 300,
                                                 style="builder", pick=pick)]  # type: ignore[arg-type]
        finally:
            gc.enable()

    gc.collect()
    assert set(between(True)) == {True} and set(deciding) == {False}
    assert gc.collect() == 0
    deciding.clear()
    assert set(between(False)) == {False} and set(deciding) == {False}
