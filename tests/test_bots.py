"""Bots (issue 28): advice through `mn bot`, decided on what the side may see only, always legal, verified."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mncli.cli import main
from mncore.bots import choosing as bots
from mncore.bots.worlds import public_seed
from mncore.core.dice import Rng, seeded_secret
from mncore.core.protocol import NewGame
from mncore.games import lifecycle, writing
from mncore.rulesets.classic.players import autoplay as classic_autoplay
from mncore.rulesets.classic.players import bot_tactics as classic_tactics
from mncore.rulesets.classic.players.demo import demo_command
from mncore.rulesets.classic.seam import RULESET as CLASSIC
from mncore.rulesets.empires import atlas
from mncore.rulesets.empires.players import autoplay as empires_autoplay
from mncore.rulesets.empires.players import bot_tactics as empires_tactics
from mncore.rulesets.empires.players.sampler import draw
from mncore.rulesets.empires.seam import RULESET as EMPIRES
from mncore.store import open_store

ROOT = Path(__file__).resolve().parent.parent


def run(db: Path, *args: str) -> Any:
    return CliRunner().invoke(main, ["--db", str(db), *args])


def mn(db: Path, *args: str) -> str:
    result = run(db, *args)
    assert result.exit_code == 0, (args, result.output)
    return str(result.stdout)


def _offered(db: Path, rome: str, carthage: str) -> Path:
    """Rome and Carthage have offered face down (2.1); Greece offers last."""
    mn(db, "new", "--empire", "rome", "--empire", "greece", "--empire", "carthage", "--seed", "leak", "--id", "G")
    mn(db, "order", "G", "--as", "carthage", "trade 3")
    mn(db, "order", "G", "--as", "rome", f"offer {rome}")
    mn(db, "order", "G", "--as", "carthage", f"offer {carthage}")
    return db


# --- mn bot: exact output and exit codes ---------------------------------------------------------------------

def test_mn_bot_prints_the_order_and_why_and_gives_nothing(tmp_path: Path) -> None:
    """Carthage, the Trade Leader's choice pending, is advised one order with its worth and the next best;
    the log is left as it was."""
    db = tmp_path / "g.db"
    mn(db, "new", "--empire", "rome", "--empire", "greece", "--empire", "carthage", "--seed", "leak", "--id", "G")
    before = len(open_store(str(db)).rows("G"))

    out = mn(db, "bot", "G", "--as", "carthage")

    assert out == ("Carthage's bot (heuristic, budget 1, seed 0) would order:\n"
                   "  trade 5\n"
                   "Why: one-ply lookahead over 1 sampled world(s); it weighed 6 order(s) and this one is worth "
                   "24.33, the next best ('trade 4') 24.33.\n"
                   "Nothing was given: advice only.\n")
    assert len(open_store(str(db)).rows("G")) == before


def test_mn_bot_search_json_is_deterministic_for_a_seed_and_budget(tmp_path: Path) -> None:
    """The search level with a playout budget answers one JSON document, the same twice."""
    db = tmp_path / "g.db"
    mn(db, "new", "--empire", "rome", "--empire", "greece", "--empire", "carthage", "--seed", "leak", "--id", "G")
    args = ("bot", "G", "--as", "carthage", "--level", "search", "--budget", "8", "--seed", "s", "--json")

    doc = json.loads(mn(db, *args))

    assert mn(db, *args) == mn(db, *args)
    assert (doc["game"], doc["side"], doc["level"], doc["budget"], doc["seed"]) == ("G", "carthage", "search", 8, "s")
    assert doc["lines"][0].startswith("trade ") and doc["considered"] >= 2


@pytest.mark.parametrize("args,message", [
    (("--as", "rome"), "Error: nothing is pending for Rome now: its bot has nothing to decide (mn status says "
                       "whom the game waits for)\n"),
    (("--as", "egypt"), "Error: Egypt is not in this game; the empires in play: Rome, Greece, Carthage\n"),
])
def test_mn_bot_refuses_a_side_with_nothing_to_decide_or_not_in_the_game(tmp_path: Path, args: tuple[str, ...],
                                                                         message: str) -> None:
    """Exit 2 with a sentence: Rome has nothing pending; Egypt does not play."""
    db = tmp_path / "g.db"
    mn(db, "new", "--empire", "rome", "--empire", "greece", "--empire", "carthage", "--seed", "leak", "--id", "G")

    result = run(db, "bot", "G", *args)

    assert (result.exit_code, result.stderr) == (2, message)


def test_mn_bot_refuses_a_game_that_is_over(tmp_path: Path) -> None:
    """A finished game: exit 2, saying who won."""
    db = tmp_path / "g.db"
    mn(db, "import", str(ROOT / "fixtures" / "game-6-1.jsonl"))

    result = run(db, "bot", "golden-6-1", "--as", "greece")

    assert (result.exit_code, result.stderr) == (
        2, "Error: game golden-6-1 is over (Greece won by 6.1 in round 15): no bot has anything to decide\n")


def test_mn_bot_refuses_an_unknown_level_and_a_budget_out_of_range(tmp_path: Path) -> None:
    """click's own usage errors: exit 2, naming the option."""
    db = tmp_path / "g.db"
    mn(db, "new", "--empire", "rome", "--empire", "greece", "--empire", "carthage", "--seed", "leak", "--id", "G")

    level = run(db, "bot", "G", "--as", "carthage", "--level", "genius")
    budget = run(db, "bot", "G", "--as", "carthage", "--budget", "0")

    assert level.exit_code == 2 and "Invalid value for '--level'" in level.stderr
    assert budget.exit_code == 2 and "Invalid value for '--budget'" in budget.stderr


# --- twins: a hidden fact the side may not see changes nothing -----------------------------------------------

@pytest.mark.parametrize("level", ["heuristic", "search"])
def test_twins_differing_in_others_offers_give_greece_the_same_bot_decision(tmp_path: Path, level: str) -> None:
    """Twin games that differ only in Rome's and Carthage's face-down offers (and so their screens) give
    Greece's bot the same advice, byte for byte (2.1)."""
    a = _offered(tmp_path / "a.db", "grain grain wine", "gold sheep spices")
    b = _offered(tmp_path / "b.db", "metal oil wine", "oil oil sheep")
    args = ("bot", "G", "--as", "greece", "--level", level, "--budget", "4", "--json")

    assert mn(a, *args) == mn(b, *args)


def test_classic_twins_differing_in_others_cards_give_carthage_the_same_bot_decision(tmp_path: Path) -> None:
    """In the 2003 game the offers are face down until every trader offered (3.2.2): Carthage's bot, offering
    last, advises alike whatever Rome offered and so holds."""
    outs = []
    for name, rome in (("a", "offer tax wine"), ("b", "offer oil wine")):
        db = tmp_path / f"{name}.db"
        mn(db, "new", "--ruleset", "classic", "--empire", "rome", "--empire", "greece", "--empire", "carthage",
           "--seed", "twin", "--id", "t")
        for side, order in (("carthage", "ask 2"), ("rome", rome), ("greece", "offer metal oil")):
            mn(db, "order", "t", "--as", side, order)
        outs.append([mn(db, "bot", "t", "--as", "carthage", "--level", level, "--budget", "4")
                     for level in ("heuristic", "search")])
    assert outs[0] == outs[1]


# --- never an illegal order, in every ruleset and set-up -----------------------------------------------------

FIVE = ("rome", "greece", "babylon", "egypt", "carthage")
SETUPS: dict[str, NewGame] = {
    "standard": NewGame(sides=FIVE, fair_play=False),
    "punic-war": NewGame(sides=("rome", "carthage"), fair_play=False, options={"setup": "punic-war"}),
    "atlantis": NewGame(sides=atlas.variant("atlantis").empires, fair_play=False,  # type: ignore[union-attr]
                        options={"setup": "atlantis"}),
    "legendary": NewGame(sides=("rome", "greece", "egypt", "carthage"), fair_play=False,
                         options={"expansions": "troia,ierusalem,syracusae"}),
}


def _empires_walk(setup: str, seed: int, orders: int) -> Iterator[tuple[Any, bytes]]:
    """A game of the set-up as random players give orders (fewer if it ended): the state before each.
    The sampler's players, but with the Legendary Cities every option listed (the sampler leaves the
    card draws to them)."""
    secret = seeded_secret(f"bots-{setup}-{seed}")
    _, state = writing.creation(EMPIRES, EMPIRES.new_game(SETUPS[setup]), secret)
    yield state, secret
    for choice in empires_autoplay.play(state, random.Random(seed), lambda n: Rng(secret, f"{n:064x}"), orders,
                                        pick=None if setup == "legendary" else draw):
        yield choice.after, secret


def _classic_walk(seed: int, orders: int) -> Iterator[tuple[Any, bytes]]:
    secret = seeded_secret(f"bots-classic-{seed}")
    _, state = writing.creation(CLASSIC, demo_command(4), secret)
    yield state, secret
    rand = random.Random(seed)
    for n in range(orders):
        waiting = sorted({p.empire for p in CLASSIC.pending(state)})
        if state.winner is not None or not waiting:
            break
        rng = Rng(secret, f"{n:064x}")
        _, state = CLASSIC.decide(state, classic_autoplay.first_accepted(state, waiting[0], "heroes", rand, rng),
                                  rng)
        yield state, secret


def _empires_at(setup: str, seed: int, orders: int) -> tuple[Any, bytes]:
    """The game of the set-up after orders random players gave."""
    return list(_empires_walk(setup, seed, orders))[-1]


def _classic_at(seed: int, orders: int) -> tuple[Any, bytes]:
    return list(_classic_walk(seed, orders))[-1]


def _assert_legal(ruleset: Any, tactics: Any, state: Any, secret: bytes, level: str, seed: int) -> None:
    """Every waiting side's bot order is accepted on the real state, with the game's real draws."""
    for side in sorted({p.empire for p in ruleset.pending(state)}):
        decision = bots.decide(ruleset, tactics, state, side, level, 2, public_seed(state.commitment, seed, "p"))
        ruleset.decide(state, ruleset.parse_order(decision.lines[0], state, side), Rng(secret, "real"))


@pytest.mark.parametrize("setup", list(SETUPS))
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10**6), orders=st.integers(0, 160))
def test_an_empires_bot_never_gives_an_illegal_order(setup: str, seed: int, orders: int) -> None:
    """At any point of a game of any set-up (standard, the Punic War, Atlantis, the Legendary Cities), the
    heuristic bot's order for each waiting empire is accepted by the rules on the real state."""
    state, secret = _empires_at(setup, seed, orders)
    if state.winner is None:
        _assert_legal(EMPIRES, empires_tactics.TACTICS, state, secret, "heuristic", seed)


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10**6), orders=st.integers(0, 200))
def test_a_classic_bot_never_gives_an_illegal_order(seed: int, orders: int) -> None:
    """At any point of a 2003 game, the heuristic bot's order for each waiting civilisation is accepted."""
    state, secret = _classic_at(seed, orders)
    if state.winner is None:
        _assert_legal(CLASSIC, classic_tactics.TACTICS, state, secret, "heuristic", seed)


@pytest.mark.slow
@pytest.mark.parametrize("setup", [*SETUPS, "classic"])
@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 10**6), level=st.sampled_from(bots.LEVELS))
def test_thousands_of_bot_decisions_are_legal_in_every_set_up(setup: str, seed: int, level: str) -> None:
    """Along a whole game of random players (600 orders at most), every fourth order, each waiting side's
    bot order is accepted on the real state: some thousands of decisions in all, both levels."""
    ruleset, tactics = (CLASSIC, classic_tactics.TACTICS) if setup == "classic" else (EMPIRES, empires_tactics.TACTICS)
    walk = _classic_walk(seed, 600) if setup == "classic" else _empires_walk(setup, seed, 600)
    for n, (state, secret) in enumerate(walk):
        if n % 4 == 0 and state.winner is None:
            _assert_legal(ruleset, tactics, state, secret, level, seed + n)


# --- bots as scripted players: their games verify ---------------------------------------------------------------

def test_an_empires_game_with_bots_seated_verifies(tmp_path: Path) -> None:
    """Rome plays heuristic and Greece search among random players; every order is submitted as a player's
    and the stored game verifies."""
    store = open_store(str(tmp_path / "g.db"), create=True)
    secret = seeded_secret("bots-verify")
    loaded = writing.create(store, EMPIRES, EMPIRES.new_game(NewGame(sides=("rome", "greece", "carthage"),
                                                                 fair_play=False)), secret, "g")
    pick = empires_tactics.bot_pick({"rome": "heuristic", "greece": "search"}, budget=4)
    empires_autoplay.play_stored(store, loaded, secret, random.Random(3), 120, pick=pick)

    assert len(store.rows("g")) > 120
    assert lifecycle.verify_game(store, "g").ok


def test_a_classic_game_with_bots_seated_verifies(tmp_path: Path) -> None:
    """Rome heuristic and Greece search among scripted civilisations; the stored game verifies."""
    store = open_store(str(tmp_path / "c.db"), create=True)
    secret = seeded_secret("bots-verify")
    cmd = demo_command(3)
    loaded = writing.create(store, CLASSIC, cmd, secret, "c")
    pick = classic_tactics.bot_pick({cmd.civs[0]: "heuristic", cmd.civs[1]: "search"}, budget=4)
    classic_autoplay.play_stored(store, loaded, secret, random.Random(3), 120, {}, pick=pick)

    assert len(store.rows("c")) > 60
    assert lifecycle.verify_game(store, "c").ok
