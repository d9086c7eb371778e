"""Scripted players: pick legal orders from options() so that whole games can be played unattended."""

from __future__ import annotations

import gc
import random
from collections.abc import Callable, Iterable, Iterator

import msgspec

from mncore.core.dice import Rng
from mncore.core.errors import CommandRejected
from mncore.core.protocol import Option
from mncore.games import reading, writing
from mncore.games.reading import Current, Loaded
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.board import Board
from mncore.rulesets.empires.commands import AnyOrder
from mncore.rulesets.empires.decide import decide_folded
from mncore.rulesets.empires.flow import pending, rules_for
from mncore.rulesets.empires.flow import waiting as flow_waiting
from mncore.rulesets.empires.ids import Empire, Phase
from mncore.rulesets.empires.players.permutations import choice as drawn
from mncore.rulesets.empires.rules import cards
from mncore.rulesets.empires.state import Bag, GameState
from mncore.rulesets.empires.text import paid_apart, parse_order
from mncore.rulesets.empires.text.build import tokens_paid
from mncore.store import Store

# How much a player of each style likes an order, by its first word (unlisted words weigh 1).
STYLES: dict[str, dict[str, float]] = {
    "random": {},
    "builder": {"build": 6, "recruit": 8, "perseus": 50, "done": 0.3, "end": 0.3},
    "general": {"move": 5, "attack": 6, "occupy": 6, "pillage": 3, "build": 3, "done": 0.3,
                "end": 0.3},
}


class Choice(msgspec.Struct, frozen=True, kw_only=True):
    """An order a player chose, the events it caused, and the state they fold into."""

    empire: Empire
    line: str
    order: AnyOrder
    events: list[ev.AnyEvent]
    after: GameState | None = None  # None: fold the events (a pick of its own may leave it out)


SAMPLES = 6  # fillings of a template a player draws


def candidate_lines(option: Option, rand: random.Random, samples: int = SAMPLES) -> list[str]:
    """An option as order lines: itself, or a few fillings of its template with legal parts."""
    if option.order is not None:
        return [option.order]
    if option.template is None:
        return []
    out = []
    for _ in range(samples):
        values = {k: drawn(rand, v) for k, v in option.parts.items() if v}
        if len(values) < len(option.parts):
            return []
        out.append(option.template.format(**values))
    return out


def _weight(line: str, style: dict[str, float]) -> float:
    return style.get(line.split()[0].lower(), 1.0)


def _options(state: GameState, empire: Empire) -> list[Option]:
    """The phase's options; with expansions, the draw-and-pass first, and the cards it may play."""
    if state.cities is None:
        return list(rules_for(state.phase).options(state, empire))
    if cards.pending(state):
        return cards.draw_options(state, empire)
    return list(rules_for(state.phase).options(state, empire)) + cards.play_options(state, empire)


def waiting_empire(state: GameState, rand: random.Random) -> Empire | None:
    """One of the empires the game waits for, drawn by the player's random numbers; None if none."""
    found = flow_waiting(state)
    if len(found) == 1:  # most decisions wait for one empire: no set to sort (the same draw from one)
        return drawn(rand, (found[0][0],))
    waiting = sorted({e for e, _ in found})
    return drawn(rand, waiting) if waiting else None


def first_accepted(state: GameState, empire: Empire, lines: Iterable[str], rng: Rng) -> Choice | None:
    """The first of the lines the rules accept from the empire, with its events; None if none is."""
    for line in lines:
        choice = accepted(state, empire, line, rng)
        if choice is not None:
            return choice
    return None


def accepted(state: GameState, empire: Empire, line: str, rng: Rng) -> Choice | None:
    """The line as the empire's order with its events, if the rules accept it; else None."""
    try:
        order = parsed(line, state, empire)
        events, after = decide_folded(state, order, rng)
    except CommandRejected:
        return None
    return Choice(empire=empire, line=line, order=order, events=events, after=after)


def parsed(line: str, state: GameState, empire: Empire) -> AnyOrder:
    """parse_order(line, state, empire), remembered: scripted players give the same lines again and again
    (each game's 'done', its builds and moves), and a line's command depends only on the words, who
    gives it, the phase (which picks a verb's parser) and the board (its names), never on the rest of
    the state. A line refused is parsed again each time (its message is the parser's)."""
    global _memo
    memo = _memo  # one tuple read whole: a board and its own lines, never another board's
    board = state.geo_board
    if memo[0] is not board:
        memo = _memo = (board, {}, {}, {})
    known = memo[1]
    key = (line, empire, state.phase)
    order = known.get(key)
    if order is None:
        order = _parsed_anew(line, state, empire, memo)
        if len(known) >= PARSED_LIMIT:
            known.clear()
        known[key] = order
    return order


def _parsed_anew(line: str, state: GameState, empire: Empire, memo: _Memo) -> AnyOrder:
    """A line not yet parsed for this empire: another empire's command for the same line with this one's
    name, if another gave it (a parser reads who gives a line only to name them in its command: the
    sampler's lines are the same for every empire); else parsed. A JSON line names its empire itself
    (the parser refuses another's), so it is always parsed."""
    given = memo[2]
    key = (line, state.phase)
    other = given.get(key)
    if other is not None:
        return other if other.empire == empire else msgspec.structs.replace(other, empire=empire)
    order = _with_payment(line, state, empire, memo[3])
    if order is None:
        order = parse_order(line, state, empire)
    if not line.lstrip().startswith("{"):
        if len(given) >= PARSED_LIMIT:
            given.clear()
        given[key] = order
    return order


def _with_payment(line: str, state: GameState, empire: Empire, payments: dict[str, Bag]) -> AnyOrder | None:
    """A build line 'ORDER pay TOKENS' as ORDER's command (remembered as any line) with the payment
    TOKENS read (remembered apart): the sampler pays each place's build in one of a few ways, so most
    lines repeat an order and a payment given before in other lines. None if the line is not so made
    (text.paid_apart) or either part is refused: it is parsed whole then, for the parser's message."""
    apart = paid_apart(line)
    if apart is None:
        return None
    head, words = apart
    try:
        order = parsed(head, state, empire)
        tail = " ".join(words)
        paid = payments.get(tail)
        if paid is None:
            paid = tokens_paid(words)
            if len(payments) >= PARSED_LIMIT:
                payments.clear()
            payments[tail] = paid
    except CommandRejected:
        return None
    return msgspec.structs.replace(order, pay=paid)


def forget_parsed() -> None:
    """Empty parsed()'s memory (bench/games.py plays the same games in each run: each run starts as the
    first did)."""
    global _memo
    _memo = (None, {}, {}, {})


PARSED_LIMIT = 20_000  # lines remembered; orders are small, and a game gives a few hundred lines
# the board of the lines last parsed (one board at a time: a game's players share it), and those lines:
# (line, empire, phase) -> the command parsed; (line, phase) -> the command of the first empire to give it;
# the words after a build line's 'pay' -> the payment they read
_Memo = tuple[Board | None, dict[tuple[str, Empire, Phase], AnyOrder], dict[tuple[str, Phase], AnyOrder],
              dict[str, Bag]]
_memo: _Memo = (None, {}, {}, {})


def choose(state: GameState, rand: random.Random, rng: Rng, style: str = "random",
           styles: dict[Empire, str] | None = None) -> Choice | None:
    """One legal order for one of the empires the game waits for, or None if nobody must act."""
    empire = waiting_empire(state, rand)
    if empire is None:
        return None
    weights = STYLES[(styles or {}).get(empire, style)]
    lines: list[str] = []
    for option in _options(state, empire):
        lines += candidate_lines(option, rand)
    rand.shuffle(lines)
    lines.sort(key=lambda ln: -_weight(ln, weights) * rand.random())
    choice = first_accepted(state, empire, lines, rng)
    if choice is not None:
        return choice
    raise RuntimeError(f"{empire} must act ({[p.text for p in pending(state) if p.empire == empire]}) "
                       f"but none of its {len(lines)} listed options is accepted")


# how a scripted player picks its order: choose (from every option listed) or sampler.draw
Pick = Callable[[GameState, random.Random, Rng, str, "dict[Empire, str] | None"], "Choice | None"]


def play(state: GameState, rand: random.Random, rng_for: Callable[[int], Rng], max_orders: int,
         style: str = "random", styles: dict[Empire, str] | None = None,
         pick: Pick | None = None) -> Iterator[Choice]:
    """Choose and apply orders until the game is won, nobody must act, or max_orders is reached."""
    from mncore.rulesets.empires.evolve import replay
    for n in range(max_orders):
        choice = _decided(pick or choose, state, rand, rng_for(n), style, styles)
        if choice is None:
            return
        state = choice.after if choice.after is not None else replay(choice.events, state)
        yield choice
        if state.winner is not None:
            return


def _decided(pick: Pick, state: GameState, rand: random.Random, rng: Rng, style: str,
             styles: dict[Empire, str] | None) -> Choice | None:
    """pick(...) with the cyclic garbage collector paused: a decision's states, events and lines hold no
    cycle, and what it keeps goes to the oldest generation unscanned, as collector.collector_paused does
    (whose generator would cost more than the collections saved). On again for the caller's code."""
    if not gc.isenabled():
        return pick(state, rand, rng, style, styles)
    gc.disable()
    try:
        return pick(state, rand, rng, style, styles)
    finally:
        gc.freeze()
        gc.unfreeze()
        gc.enable()


def play_stored(store: Store, loaded: Loaded | Current, secret: bytes, rand: random.Random, max_orders: int,
                styles: dict[Empire, str] | None = None, style: str = "random",
                on_order: Callable[[Loaded | Current], None] | None = None, pick: Pick | None = None) -> Loaded:
    """Play scripted orders into a stored game (each submitted as a player would), all in one
    transaction; returns it loaded. Orders go to its Current, which neither rescans nor copies
    the log per order. The recorded golden games pick with choose (the default)."""
    cur = reading.current(store, loaded.game_id)
    with store.bulk():
        for _ in range(max_orders):
            if cur.state.winner is not None:
                break
            choice = (pick or choose)(cur.state, rand, Rng(secret, cur.head[1]), style, styles)
            if choice is None:
                break
            cur = writing.give(store, cur, choice.order, answer=False).after
            if on_order is not None:
                on_order(cur)
    return reading.load(store, loaded.game_id)
