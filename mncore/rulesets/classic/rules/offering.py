"""Offering to the Gods (4): in the High Priest's order, a set of 3 cards buys a god's aid."""

from __future__ import annotations

from mncore.core.errors import require
from mncore.core.protocol import Option, Pending
from mncore.rulesets.classic import commands as cm
from mncore.rulesets.classic import events as ev
from mncore.rulesets.classic.card_powers import ExtraCards, FreeUnit
from mncore.rulesets.classic.components import game_data
from mncore.rulesets.classic.rules.common import name, require_in_hand, require_turn, set_problem
from mncore.rulesets.classic.rules.construction import free_unit_events
from mncore.rulesets.classic.rules.fold import Fold
from mncore.rulesets.classic.rules.powers import gains
from mncore.rulesets.classic.state import State


def begin(state: State) -> list[ev.AnyEvent]:
    """4.2: every god card held comes back at the start of the Offering phase."""
    return [ev.GodsReturned()] if state.gods else []


def free_gods(state: State) -> list[str]:
    held = {g.god for g in state.gods.values()}
    return [g.id for g in game_data().god if g.id not in held]


def pray(state: State, cmd: cm.Pray) -> list[ev.AnyEvent]:
    require_turn(state, cmd.civ, "offering", "4.1")
    require(cmd.god in {g.id for g in game_data().god}, "4.1", f"{cmd.god} is not a god")
    require(cmd.god in free_gods(state), "4.2", f"{name(state, cmd.god)} is already enlisted by another")
    need = game_data().offering
    require(len(cmd.pay) == need, "4.1", f"an offering is a set of {need} cards, not {len(cmd.pay)} "
                                         "(ruling C4)")
    problem = set_problem(cmd.pay)
    require(not problem, "C4", f"{problem}: an offering is a set of cards")
    require_in_hand(state, cmd.civ, cmd.pay)
    return [ev.GodTaken(civ=cmd.civ, god=cmd.god, paid=tuple(sorted(cmd.pay))),
            ev.TurnEnded(civ=cmd.civ)]


def invoke(state: State, cmd: cm.Invoke, fold: Fold) -> list[ev.AnyEvent]:
    """4.3: at any time while held face up (C17); an owner's power acts then (C16), a shipped god has
    none (C3)."""
    held = state.gods.get(cmd.civ)
    require(state.winner is None and bool(state.civs), "game", "the game is not running")
    require(held is not None and held.god == cmd.god, "4.3",
            f"{name(state, cmd.civ)} does not hold {name(state, cmd.god)}")
    assert held is not None
    require(held.face_up, "4.3", f"{name(state, cmd.god)} is face down until the next Offering phase")
    turned = ev.GodInvoked(civ=cmd.civ, god=cmd.god,
                           powered=bool(state.powers is not None and state.powers.of(cmd.god)))
    return [turned, *invoked(fold([turned], state), cmd.civ, cmd.god, fold)]


def invoked(state: State, civ: str, god: str, fold: Fold) -> list[ev.AnyEvent]:
    """A god's effects that act once, when it is invoked (C17): its cards, its free units."""
    effects = state.powers.of(god) if state.powers is not None else ()
    return (gains(civ, [(god, e) for e in effects if isinstance(e, ExtraCards)])
            + free_unit_events(state, civ, [(god, e) for e in effects if isinstance(e, FreeUnit)], fold))


def end_turn(state: State, cmd: cm.EndTurn) -> list[ev.AnyEvent]:
    require_turn(state, cmd.civ, "offering", "4.1")
    return [ev.TurnEnded(civ=cmd.civ)]


def done(state: State) -> bool:
    return state.turns.index >= len(state.turns.order)


def pending(state: State) -> list[Pending]:
    due = state.turns.current()
    return [Pending(empire=due, kind="offering", text="make an offering to a god, or pass")] if due else []


def options(state: State, civ: str) -> list[Option]:
    if state.turns.current() != civ:
        return []
    out = [Option(kind="pass", order="pass")]
    sets = _sets(state, civ)
    if sets:
        out.append(Option(kind="pray", template="pray {god} pay {cards}",
                          parts={"god": tuple(free_gods(state)), "cards": tuple(sets)}))
    return out


def _sets(state: State, civ: str) -> list[str]:
    """The sets of 3 the hand can make: three tax cards, or three different commodities."""
    hand = state.hand(civ)
    out = ["tax,tax,tax"] if hand.get("tax", 0) >= 3 else []
    goods = sorted(c for c in hand if c != "tax")
    for i in range(len(goods)):
        for j in range(i + 1, len(goods)):
            for k in range(j + 1, len(goods)):
                out.append(f"{goods[i]},{goods[j]},{goods[k]}")
    return out[:12]
