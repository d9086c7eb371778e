"""The order of phases, who must decide what now, and the events that follow by themselves."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import is_
from typing import Any, Protocol, assert_never, cast

from mncore.core.dice import Rng
from mncore.core.protocol import Option, Pending
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.commands import BuildCommand, CollectCommand, LeadershipCommand, MoveCommand, TradeCommand
from mncore.rulesets.empires.evolve import replay
from mncore.rulesets.empires.ids import PHASES, Empire, Phase
from mncore.rulesets.empires.rules import build, cards, collect, leadership, military, sandbox, trade
from mncore.rulesets.empires.rules.fold import Fold
from mncore.rulesets.empires.state import GameState

# The orders of the five phases (sandbox orders are decided apart: they fit any phase).
PhaseOrder = CollectCommand | TradeCommand | BuildCommand | MoveCommand | LeadershipCommand


class PhaseRules(Protocol):
    """What each phase's rules module offers (mypy checks each module against it in rules_for)."""

    def begin(self, state: GameState, rng: Rng, fold: Fold) -> list[ev.AnyEvent]: ...
    def pending(self, state: GameState) -> list[Pending]: ...
    def end(self, state: GameState, rng: Rng) -> list[ev.AnyEvent]: ...
    def options(self, state: GameState, empire: Empire) -> list[Option]: ...


def rules_for(phase: Phase) -> PhaseRules:
    """The rules module of a phase; a phase added to Phase without a case here fails type-checking."""
    match phase:
        case "collect":
            return collect
        case "trade":
            return trade
        case "build":
            return build
        case "move":
            return military
        case "leadership":
            return leadership
        case _:
            assert_never(phase)


class Folds:
    """The fold given to the rules for one decision, which remembers what it folded: the rules fold
    their own events to decide what follows them (a claim that ends the trade, the choices after a
    collection), and the decision then folds the same events into the state it returns. `replay`
    reads the earlier folds of the same event objects into the same state object instead (a fold is
    a pure function of frozen objects), and folds only the events after them."""

    __slots__ = ("done",)

    def __init__(self) -> None:
        self.done: list[tuple[GameState, Sequence[ev.AnyEvent], GameState]] = []

    def __call__(self, events: Sequence[ev.AnyEvent], state: GameState) -> GameState:
        folded = tuple(events)  # a copy: a rule may append to its list after folding it
        # a rule folds its list again once it appended to it (a battle's forced losses): the prefix is read
        after = self.replay(folded, state)
        if folded:
            self.done.append((state, folded, after))
        return after

    def replay(self, events: Sequence[ev.AnyEvent], state: GameState) -> GameState:
        """replay(events, state), reading the folds already made of a prefix of `events` from `state`."""
        start, done, n = 0, self.done, len(events)
        while done and start < n:
            for before, folded, after in done:  # a loop, not a generator: every decision folds here
                if before is state and _starts(events, start, folded):
                    state, start = after, start + len(folded)
                    break
            else:
                break
        if start >= n:
            return state
        return replay(events[start:] if start else events, state)


def _starts(events: Sequence[ev.AnyEvent], start: int, prefix: Sequence[ev.AnyEvent]) -> bool:
    """Whether events[start:] begins with the very objects of prefix."""
    n = len(prefix)
    return n <= len(events) - start and all(map(is_, prefix, events[start:start + n]))


def decide_order(state: GameState, order: PhaseOrder, rng: Rng, fold: Fold = replay) -> list[ev.AnyEvent]:
    """The events of one phase's order, decided by the module of the phase the order belongs to
    (`fold`: the fold the rules are given, a decision's Folds)."""
    decider = _DECIDERS.get(type(order))
    if decider is None:
        decider = _DECIDERS[type(order)] = _decider(order)
    return decider(state, order, rng, fold)


OrderDecider = Callable[[GameState, Any, Rng, Fold], list[ev.AnyEvent]]
# each order type's phase module, found once: the unions below cost several checks per order
_DECIDERS: dict[type, OrderDecider] = {}


def _decider(order: PhaseOrder) -> OrderDecider:
    if isinstance(order, CollectCommand):
        return lambda state, order, rng, fold: collect.decide(state, order, rng)
    if isinstance(order, TradeCommand):
        return trade.decide
    if isinstance(order, BuildCommand):
        return lambda state, order, rng, fold: build.decide(state, order, rng)
    if isinstance(order, MoveCommand):
        return military.decide
    if isinstance(order, LeadershipCommand):
        return lambda state, order, rng, fold: leadership.decide(state, order, rng)
    assert_never(order)


def pending(state: GameState) -> list[Pending]:
    """Every decision the game is waiting for now (several at once for simultaneous ones); an
    expansion's draw-and-pass or miniature to place comes before the phase's own (ruling R200)."""
    if state.winner is not None or state.board is None:
        return []
    first = cards.pending(state) if state.cities is not None else []
    return first or list(rules_for(state.phase).pending(state))


def waiting(state: GameState) -> list[tuple[Empire, str]]:
    """pending() without its words: who must decide what kind of thing, as (empire, kind).

    What the rules and scripted players ask: the words of a turn in Move and Battle name every battle
    and conquest open, which costs more than deciding the order. Found once per state object (kept in
    its instance dict: a decision's settling asks it of the state it leaves, the next player of the
    same state).
    """
    found: tuple[tuple[Empire, str], ...] | None = state.__dict__.get(_WAITING)
    if found is None:
        found = state.__dict__[_WAITING] = tuple(_waiting(state))
    return list(found)


_WAITING = "_waiting"  # the instance dict's key of waiting()'s answer (GameState's dict=True)


def _waiting(state: GameState) -> list[tuple[Empire, str]]:
    if state.winner is not None or state.board is None:
        return []
    first = cards.pending(state) if state.cities is not None else []
    if first:
        return [(cast(Empire, p.empire), p.kind) for p in first]
    if state.phase == "move":
        return military.waiting(state)
    if state.phase == "trade":
        return trade.waiting(state)
    if state.phase == "build":
        return build.waiting(state)
    return [(cast(Empire, p.empire), p.kind) for p in rules_for(state.phase).pending(state)]


def public_pending(state: GameState) -> list[Pending]:
    """The decisions pending, as every empire may read them (status, show, views).

    Whether the Perseus holder may build first depends on what is behind its screen, so the public
    line shows whenever Perseus could be used, whatever it holds (10.perseus).
    """
    from mncore.rulesets.empires import tile_powers
    from mncore.rulesets.empires.rules.buildable import perseus_open
    found = [p for p in pending(state) if p.kind != "perseus"]
    if state.winner is None and state.board is not None and perseus_open(state):
        found = [Pending(empire=e, kind="perseus",
                         text="may build first with Perseus: a fifth hero or wonder, or the Pyramids")
                 for e in tile_powers.holders_at(state, "build_first")] + found
    return found


def options(state: GameState, empire: Empire) -> list[Option]:
    """What the empire may order now: its phase's orders, and in a sandbox the outcomes it may fix.

    Scripted players (mncore.rulesets.empires.players.autoplay) ask the phase alone: they never fix outcomes.
    """
    if state.winner is not None or state.board is None:
        return []
    if state.cities is not None and cards.pending(state):
        return cards.draw_options(state, empire)  # nothing else until it is settled (ruling R200)
    played = cards.play_options(state, empire) if state.cities is not None else []
    return list(rules_for(state.phase).options(state, empire)) + played + sandbox.options(state, empire)


def next_phase(state: GameState) -> tuple[int, Phase]:
    i = PHASES.index(state.phase)
    return (state.round + 1, "collect") if i == len(PHASES) - 1 else (state.round, PHASES[i + 1])


def settle(state: GameState, rng: Rng, limit: int = 50) -> list[ev.AnyEvent]:
    """The events that follow by themselves until a decision is pending or the game is won."""
    return settle_folded(state, rng, limit)[0]


def settle_folded(state: GameState, rng: Rng, limit: int = 50, folds: Folds | None = None
                  ) -> tuple[list[ev.AnyEvent], GameState]:
    """settle(), with the state those events fold into (folded once, as they are made; `folds`: the
    decision's, which a phase's begin() folds its events with).

    Its draws (ties for a title, legendary commodities at collection, cards drawn as a phase
    begins) come from the batch's settling generator (ruling K11): where several empires decide at
    once, the host chooses which of their blocks ends the phase, and must not choose these by it."""
    if state.winner is not None or waiting(state):  # most decisions leave one pending: no generator made
        return [], state
    rng = rng.settling(f"{state.round}:{state.phase}")
    folds = folds if folds is not None else Folds()
    out: list[ev.AnyEvent] = []
    for _ in range(limit):
        if state.winner is not None or waiting(state):
            return out, state
        closing = list(rules_for(state.phase).end(state, rng))
        state = replay(closing, state)
        if state.cities is not None and state.winner is None:  # powers that act as a phase closes
            after = cards.phase_closed(state, closing)
            state, closing = replay(after, state), closing + after
        out += closing
        if state.winner is not None:
            return out, state
        rnd, phase = next_phase(state)
        began: list[ev.AnyEvent] = [ev.PhaseBegan(round=rnd, phase=phase)]
        state = replay(began, state)
        opening = list(rules_for(phase).begin(state, rng, folds))
        state = folds.replay(opening, state)
        if state.cities is not None:  # powers that draw from the discard pile as their phase begins
            drawn = cards.phase_draws(state, rng)
            state, opening = replay(drawn, state), opening + drawn
        out += began + opening
    raise RuntimeError("the game did not settle: a phase ends without ever waiting for a decision")


def describe_phase(state: GameState) -> str:
    names: dict[Phase, str] = {"collect": "Collect Resources", "trade": "Trade Resources",
                               "build": "Build", "move": "Move and Battle",
                               "leadership": "Claim Leadership"}
    return names[state.phase]


