"""decide(state, command, rng): check a command against the rules and return the events it causes."""

from __future__ import annotations

from typing import cast

from mncore.core.dice import Rng
from mncore.core.errors import InvalidCommand, refuse, require
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.commands import (  # sandboxes  # the expansions
    AnyOrder,
    CitiesCommand,
    ClearFixedOutcomes,
    CreateGame,
    FixOutcome,
    PlayBonusCard,
)
from mncore.rulesets.empires.evolve import replay
from mncore.rulesets.empires.flow import Folds, PhaseOrder, decide_order, settle_folded
from mncore.rulesets.empires.rules import cards, objectives, sandbox, setup, troia_cards
from mncore.rulesets.empires.rules_index import RULEBOOK
from mncore.rulesets.empires.state import ForkInfo, GameState


def decide(state: GameState, order: AnyOrder, rng: Rng) -> list[ev.AnyEvent]:
    """The events an order causes, then those that follow by themselves; raises if refused."""
    return decide_folded(state, order, rng)[0]


def decide_folded(state: GameState, order: AnyOrder, rng: Rng) -> tuple[list[ev.AnyEvent], GameState]:
    """decide(), with the state its events fold into (each event evolved once)."""
    if state.board is None:
        raise InvalidCommand("there is no game to give orders in")
    if state.winner is not None:
        won = ", ".join(e.title() for e in state.winner.empires)
        condition = state.winner.condition
        # cite the victory's own section (6.1-6.4); a position may have written any text there
        refuse(condition if RULEBOOK.citable(condition) else "6.0",
               f"the game is over: {won} won by {condition} in round {state.winner.round}; "
               "no more orders are taken")
    if order.empire not in state.empires:
        raise InvalidCommand(f"{order.empire.title()} is not in this game "
                             f"(empires: {', '.join(e.title() for e in state.empires)})")
    if state.cities is not None and cards.pending(state):
        require(isinstance(order, CitiesCommand) and not isinstance(order, PlayBonusCard), "R200",
                "the Bonus Card draw-and-pass (or the Halicarnassus miniature, Dido's commodities) is settled first: "
                + "; ".join(f"{p.empire.title()} {p.text}" for p in cards.pending(state)) + " (ruling R200)")
    folds = Folds()  # the folds of this decision's rules (flow.Folds)
    kind = _KINDS.get(type(order))
    if kind is None:
        kind = _KINDS[type(order)] = _kind(order)
    if kind == "sandbox":
        # in any phase: it only prepares coming draws (R7)
        events = sandbox.decide(state, cast(FixOutcome | ClearFixedOutcomes, order))
    elif kind == "cities":  # in any phase: the standing window (lc.3.3)
        events = cards.decide(state, cast(CitiesCommand, order), rng)
    else:
        events = decide_order(state, cast(PhaseOrder, order), rng, folds)
    after = folds.replay(events, state)  # what the rules folded already is not folded again
    if isinstance(order, PlayBonusCard) and after.cities is not None:  # a War card destroyed a unit (R235)
        ended = troia_cards.occupations_after(after, events)
        events, after = events + ended, replay(ended, after)
    more, after = settle_folded(after, rng, folds=folds)
    if after.cities is not None and after.cities.fights:  # Battle Victory markers (Troia, ruling R234)
        victories = troia_cards.battle_wins(after)
        more, after = more + victories, replay(victories, after)
    if after.cities is not None and after.winner is None:  # objectives are projections (lc.3.1)
        fulfilled = objectives.check(after, events + more, order.empire)
        more, after = more + fulfilled, replay(fulfilled, after)
    return events + more, after


# each order type's kind, found once: CitiesCommand is a union of many types, checked on every order
_KINDS: dict[type, str] = {}


def _kind(order: AnyOrder) -> str:
    if isinstance(order, FixOutcome | ClearFixedOutcomes):
        return "sandbox"
    if isinstance(order, CitiesCommand):
        return "cities"
    return "phase"


def create_game(cmd: CreateGame, rng: Rng, commitment: str, fork_of: ForkInfo | None = None
                ) -> list[ev.AnyEvent]:
    """The first events of a game (rules.setup.create), folded with the reducer the rules may not import."""
    return setup.create(cmd, rng, commitment, replay, fork_of)
