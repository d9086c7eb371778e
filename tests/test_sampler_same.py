"""The sampler offers what it offered before it was made cheaper (tests/sampler_reference.py): the same
lines in the same order from the same random numbers, leaving them where it left them, so that the
same seed plays the same game."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sampler_reference as old
from mncore.core.dice import Rng, seeded_secret
from mncore.games import transfer, writing
from mncore.games.log_reading import decode_rows
from mncore.pbem import turns
from mncore.rulesets.empires.board import load_board
from mncore.rulesets.empires.commands import CreateGame
from mncore.rulesets.empires.flow import waiting
from mncore.rulesets.empires.players import sampler as new
from mncore.rulesets.empires.players.autoplay import STYLES, play
from mncore.rulesets.empires.players.permutations import choice, first_passing, sample, shuffle, shuffled
from mncore.rulesets.empires.seam import RULESET
from mncore.rulesets.empires.state import GameState
from support import FIVE, FOUR, THREE, new_game

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
EMPIRES_FIXTURES = sorted(p for p in FIXTURES.glob("*.jsonl") if not p.name.startswith("classic"))


def _same_lines(state: GameState, seed: int, where: str) -> int:
    """Every line each waiting empire's player may try, in order, by both samplers from the same
    random numbers, for each style; both leave the random numbers in the same state. Returns the
    number of lines compared."""
    compared = 0
    for empire in sorted({e for e, _ in waiting(state)}):
        for style, weights in STYLES.items():
            mine, theirs = random.Random(seed), random.Random(seed)
            got = list(new.lines(state, empire, mine, weights))
            want = list(old.lines(state, empire, theirs, weights))
            assert got == want, f"{where}: {empire}, {style}"
            assert mine.getstate() == theirs.getstate(), f"{where}: {empire}, {style}: random numbers"
            compared += len(got)
    return compared


@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 9, 21, 22, 30, 31, 64])
def test_shuffled_draws_as_sample_draws(n: int) -> None:
    """The same order as random.Random.sample of every item, and the same random numbers used."""
    items = [f"p{i}" for i in range(n)]
    for seed in range(300):
        mine, theirs = random.Random(seed), random.Random(seed)
        assert shuffled(mine, items) == theirs.sample(items, n)
        assert mine.getstate() == theirs.getstate()


@pytest.mark.parametrize("n", [0, 1, 5, 9, 30, 31])
def test_the_first_passing_items_are_those_of_the_whole_sample(n: int) -> None:
    """The first four items passing a test, in sample's order; the random numbers used are those of
    the whole sample, however early the four are found."""
    items = list(range(n))
    for seed in range(300):
        mine, theirs = random.Random(seed), random.Random(seed)
        assert first_passing(mine, items, lambda i: i % 3 == 0, 4) == [
            i for i in theirs.sample(items, n) if i % 3 == 0][:4]
        assert mine.getstate() == theirs.getstate()


@pytest.mark.parametrize("n", [0, 1, 2, 4, 5, 6, 9, 21, 22, 23, 40, 90])
def test_sample_draws_as_random_sample(n: int) -> None:
    """A few items (k up to 5 and beyond) in random.Random.sample's order, from the same random numbers,
    both of its branches (a pool up to 21 items, a set of chosen indices above)."""
    items = [f"p{i}" for i in range(n)]
    for seed in range(200):
        for k in range(min(n, 7) + 1):
            mine, theirs = random.Random(seed), random.Random(seed)
            assert sample(mine, items, k) == theirs.sample(items, k)
            assert mine.getstate() == theirs.getstate()


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 31, 32, 33, 100, 1024, 1025])
def test_choice_draws_as_random_choice(n: int) -> None:
    """The same item as random.Random.choice, from the same random numbers (sizes a power of two and
    one past it among them: its draws take n's bit length, one more bit there)."""
    items = [f"p{i}" for i in range(n)]
    for seed in range(300):
        mine, theirs = random.Random(seed), random.Random(seed)
        assert choice(mine, items) == theirs.choice(items)
        assert mine.getstate() == theirs.getstate()
    with pytest.raises(IndexError):
        choice(random.Random(0), [])


@pytest.mark.parametrize("n", [0, 1, 2, 3, 8, 31, 32, 33, 100])
def test_shuffle_draws_as_random_shuffle(n: int) -> None:
    """The same order as random.Random.shuffle, in place, and the same random numbers used."""
    for seed in range(200):
        mine, theirs = random.Random(seed), random.Random(seed)
        got, want = list(range(n)), list(range(n))
        shuffle(mine, got)
        theirs.shuffle(want)
        assert got == want
        assert mine.getstate() == theirs.getstate()


@pytest.mark.parametrize("path", EMPIRES_FIXTURES, ids=lambda p: p.stem)
def test_the_same_lines_at_every_position_of_a_golden_game(path: Path) -> None:
    """Every golden game (the Atlantis board, the Punic War and the Legendary Cities included), at
    every position where someone must act."""
    _, rows = transfer.parse_export(path.read_bytes(), path.name)
    _, events = decode_rows(rows, path.name)
    state: GameState = RULESET.initial("")
    compared = positions = 0
    for row, event in turns.live(rows, events):
        state = RULESET.evolve(state, event)
        if state.winner is None and state.empires:
            compared += _same_lines(state, row.seq, f"{path.name} event {row.seq}")
            positions += 1
    assert positions > 100 and compared > 1000


def _random_positions(seed: int, players: dict[str, str], style: str) -> Iterator[GameState]:
    """The positions of a game the sampler's players play (at most 100 orders)."""
    game = new_game(players, seed=str(seed), display="first-game")  # type: ignore[arg-type]
    rand = random.Random(seed)
    for _ in range(100):
        state = game.state
        yield state
        choice = new.draw(state, rand, game.rng(), style=style)
        if choice is None:
            return
        game.given(*choice.events)
        if game.state.winner is not None:
            return


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), players=st.sampled_from([THREE, FOUR, FIVE]),
       style=st.sampled_from(["random", "builder", "general"]))
def test_the_same_lines_at_every_position_of_random_play(seed: int, players: dict[str, str], style: str) -> None:
    compared = sum(_same_lines(state, seed + n, f"seed {seed} order {n}")
                   for n, state in enumerate(_random_positions(seed, players, style)))
    assert compared > 0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_same_seed_plays_the_same_game(seed: int) -> None:
    """A whole scripted 5-empire game as bench/games.py plays it: every order drawn by both samplers
    is the same line with the same events, and the game ends the same."""
    five = ("rome", "greece", "babylon", "egypt", "carthage")
    cmd = CreateGame(board=load_board(), players={e: e.title() for e in five},  # type: ignore[misc]
                     display="experienced", fair_play=False)
    secret = seeded_secret(f"same-{seed}")
    _, state = writing.creation(RULESET, cmd, secret)

    def game(pick: object) -> list[tuple[str, str, list[object]]]:
        return [(c.empire, c.line, list(c.events)) for c in play(
            state, random.Random(seed), lambda n: Rng(secret, f"{n:064x}"), 5_000, style="builder",
            pick=pick)]  # type: ignore[arg-type]

    got, want = game(new.draw), game(old.draw)
    assert len(want) > 500 and got == want
