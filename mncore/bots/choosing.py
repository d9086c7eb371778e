"""A bot's decision for one side: one-ply lookahead (heuristic) or playouts (search) over sampled worlds.

Everything a decision draws comes from a public seed (worlds.public_seed): the same view, seed and
budget give the same order, and nothing of the game's real draws or hidden facts enters it.
"""

from __future__ import annotations

import random
from typing import Any

import msgspec

from mncore.bots import worlds
from mncore.bots.tactics import Tactics
from mncore.core.dice import Rng
from mncore.core.errors import CommandRejected, InvalidCommand
from mncore.core.protocol import Ruleset
from mncore.games.reading import Current
from mncore.pbem.turns import MAX_BOT_BUDGET

LEVELS = ("heuristic", "search")
# heuristic: the worlds it averages over; search: the playouts it plays. 16 playouts took at most 0.2 s
# of CPU a decision in Empires and 1.8 s in the 2003 game, whose rules cost more (bench/bots.py; goal 2 s)
DEFAULT_BUDGET = {"heuristic": 1, "search": 16}
MAX_BUDGET = MAX_BOT_BUDGET  # the kernel refuses a seat past it (mncore/pbem/turns.py)
CANDIDATES = 40  # the most orders weighed at one decision
WIDTH = 4  # the best of the heuristic's ranking that search plays out
DEPTH = 30  # orders a playout plays before it scores the state


class Decision(msgspec.Struct, frozen=True, kw_only=True):
    """What a bot would order for a side, and why, as `mn bot` prints it."""

    side: str
    level: str
    budget: int
    seed: str
    lines: tuple[str, ...]  # the order it would give
    value: float  # its estimated worth to the side
    considered: int  # orders weighed
    runner_up: str | None = None
    runner_up_value: float | None = None
    why: str = ""


def decide(ruleset: Ruleset, tactics: Tactics, state: Any, side: str, level: str, budget: int,
           public: bytes, seed: str = "", opened: bool = False) -> Decision:
    """The order side's bot gives now; InvalidCommand if side has nothing to decide or the level is unknown.
    `opened`: the game's secret is out (the kernel's state), so its bot may read the state itself."""
    if level not in LEVELS:
        raise InvalidCommand(f"unknown bot level {level!r}: use one of {', '.join(LEVELS)}")
    if not 1 <= budget <= MAX_BUDGET:
        raise InvalidCommand(f"the budget must be 1 to {MAX_BUDGET}, not {budget}")
    if side not in {p.empire for p in ruleset.pending(state)}:
        raise InvalidCommand(f"nothing is pending for {ruleset.side_name(side)} now: its bot has nothing "
                             "to decide (mn status says whom the game waits for)")
    rand = random.Random(public + side.encode())
    if level == "heuristic":
        ranked = _averaged(ruleset, tactics, worlds.sample(ruleset, state, side, public, budget, opened), side, rand,
                           public)
        why = f"one-ply lookahead over {budget} sampled world(s)"
    else:
        ranked = _searched(ruleset, tactics, state, side, rand, budget, public, opened)
        why = f"{budget} playout(s) of up to {DEPTH} orders over sampled worlds"
    best = ranked[0]
    second = ranked[1] if len(ranked) > 1 else None
    return Decision(side=side, level=level, budget=budget, seed=seed, lines=(best[1],), value=round(best[0], 2),
                    considered=len(ranked), runner_up=second[1] if second else None,
                    runner_up_value=round(second[0], 2) if second else None, why=why)


def apply(ruleset: Ruleset, state: Any, side: str, line: str, rng: Rng) -> Any:
    """The state after side's order line; CommandRejected if it is malformed or refused."""
    _, after = ruleset.decide(state, ruleset.parse_order(line, state, side), rng)
    return after


# --- heuristic: each candidate's state after, scored ----------------------------------------------------

Ranked = list[tuple[float, str]]


def _ranked(ruleset: Ruleset, tactics: Tactics, world: Any, side: str, rand: random.Random,
            public: bytes) -> Ranked:
    """The accepted candidates, best first (ties: the order listed), each with its state's score after."""
    scored: list[tuple[float, int, str]] = []
    for i, line in enumerate(_unique(tactics.candidates(world, side, rand))[:CANDIDATES]):
        try:
            after = apply(ruleset, world, side, line, Rng(public, "draws"))
        except CommandRejected:
            continue
        scored.append((tactics.score(after, side), -i, line))
    if not scored:  # none of the candidates: the fast player's first accepted order
        line, after = _first_accepted(ruleset, tactics, world, side, rand, Rng(public, "draws"))
        return [(tactics.score(after, side), line)]
    scored.sort(reverse=True)
    return [(value, line) for value, _, line in scored]


def _averaged(ruleset: Ruleset, tactics: Tactics, sampled: list[Any], side: str, rand: random.Random,
              public: bytes) -> Ranked:
    """The candidates of the first world, each scored on average over every world where it is accepted."""
    first = _ranked(ruleset, tactics, sampled[0], side, rand, public)
    if len(sampled) == 1:
        return first
    totals = {line: [value] for value, line in first}
    for world in sampled[1:]:
        for value, line in _ranked_lines(ruleset, tactics, world, side, [ln for _, ln in first], public):
            totals[line].append(value)
    order = {line: i for i, (_, line) in enumerate(first)}
    return sorted(((sum(v) / len(v), line) for line, v in totals.items()), key=lambda t: (-t[0], order[t[1]]))


def _ranked_lines(ruleset: Ruleset, tactics: Tactics, world: Any, side: str, lines: list[str],
                  public: bytes) -> Ranked:
    out = []
    for line in lines:
        try:
            out.append((tactics.score(apply(ruleset, world, side, line, Rng(public, "draws")), side), line))
        except CommandRejected:
            continue
    return out


# --- search: the heuristic's best few, each played out on several worlds ----------------------------------

def _searched(ruleset: Ruleset, tactics: Tactics, state: Any, side: str, rand: random.Random, budget: int,
              public: bytes, opened: bool) -> Ranked:
    """The heuristic's WIDTH best orders, each worth the mean score after its share of the playouts; the
    k-th playout of every candidate is on the same world with the same draws (common random numbers)."""
    sampled = worlds.sample(ruleset, state, side, public, max(1, budget // WIDTH), opened)
    top = _ranked(ruleset, tactics, sampled[0], side, rand, public)[:WIDTH]
    if len(top) == 1:
        return top
    share = max(1, budget // len(top))
    out = []
    for i, (_, line) in enumerate(top):
        values = []
        for k in range(share):
            world = sampled[k % len(sampled)]
            try:
                after = apply(ruleset, world, side, line, Rng(public, f"playout:{k}"))
            except CommandRejected:
                continue
            values.append(playout(ruleset, tactics, after, side, random.Random(public + f"|{k}".encode()),
                                  Rng(public, f"playout:{k}:rest")))
        if values:
            out.append((sum(values) / len(values), -i, line))
    out.sort(reverse=True)
    return [(value, line) for value, _, line in out]


def playout(ruleset: Ruleset, tactics: Tactics, state: Any, side: str, rand: random.Random, rng: Rng,
            depth: int = DEPTH) -> float:
    """side's score once fast scripted players have given depth orders (or the game ended)."""
    for _ in range(depth):
        waiting = sorted({p.empire for p in ruleset.pending(state)})
        if not waiting:
            break
        who = rand.choice(waiting)
        try:
            _, state = _first_accepted(ruleset, tactics, state, who, rand, rng)
        except InvalidCommand:
            break
    return tactics.score(state, side)


def _first_accepted(ruleset: Ruleset, tactics: Tactics, state: Any, side: str, rand: random.Random,
                    rng: Rng) -> tuple[str, Any]:
    """The first line the fast scripted player tries that is accepted, and the state after it."""
    tried = 0
    for line in tactics.quick(state, side, rand):
        tried += 1
        try:
            return line, apply(ruleset, state, side, line, rng)
        except CommandRejected:
            continue
    raise InvalidCommand(f"{ruleset.side_name(side)} must act but none of the {tried} orders tried is accepted")


def _unique(lines: list[str]) -> list[str]:
    return list(dict.fromkeys(lines))


def advise(loaded: Current, side: str, tactics: Tactics, level: str, budget: int | None, seed: str) -> Decision:
    """What side's bot would order now in a stored game, given nothing (`mn bot`): decided on worlds
    drawn from the game's commitment, its event count and the bot's seed, never its secret.
    InvalidCommand if the game is over or side has nothing to decide."""
    ruleset = loaded.ruleset
    meta = ruleset.meta(loaded.state)
    if meta.over:
        raise InvalidCommand(f"game {loaded.game_id} is over ({meta.result}): no bot has anything to decide")
    spent = DEFAULT_BUDGET.get(level, 1) if budget is None else budget
    public = worlds.public_seed(meta.commitment, loaded.head[0], seed)
    return decide(ruleset, tactics, loaded.state, side, level, spent, public, seed, loaded.meta.secret is not None)
