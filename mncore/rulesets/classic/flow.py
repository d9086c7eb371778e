"""The turn's flow: the phases in order, what each waits for, and what follows by itself."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import assert_never

from mncore.core.dice import Rng
from mncore.core.errors import refuse, require
from mncore.core.protocol import Option, Pending
from mncore.rulesets.classic import commands as cm
from mncore.rulesets.classic import events as ev
from mncore.rulesets.classic.card_powers import describe_effect
from mncore.rulesets.classic.evolve import evolve, replay
from mncore.rulesets.classic.ids import PHASES, Phase
from mncore.rulesets.classic.rules import commerce, construction, military, offering, roles, setup
from mncore.rulesets.classic.rules.common import name, order_from
from mncore.rulesets.classic.state import State


def next_phase(state: State) -> tuple[int, Phase]:
    if state.phase in ("", "setup"):
        return 1, "commerce"
    i = PHASES.index(state.phase)
    return (state.round, PHASES[i + 1]) if i + 1 < len(PHASES) else (state.round + 1, PHASES[0])


@dataclass(frozen=True)
class PhaseRules:
    """What the flow asks of one phase's rules: whether it is done, who it waits for, what a
    civilisation may order, what it does by itself once its order is known, and a turn's `done`."""

    done: Callable[[State], bool]
    pending: Callable[[State], list[Pending]]
    options: Callable[[State, str], list[Option]]
    begin: Callable[[State, Rng], list[ev.AnyEvent]] | None = None
    end_turn: Callable[[State, cm.EndTurn], list[ev.AnyEvent]] | None = None


# one entry a phase: the flow looks the phase up here instead of matching it in every function
PHASE_RULES: dict[Phase, PhaseRules] = {
    "setup": PhaseRules(done=setup.done, pending=setup.pending, options=setup.options, end_turn=setup.end_turn),
    "commerce": PhaseRules(done=commerce.done, pending=commerce.pending, options=commerce.options,
                           begin=lambda state, rng: commerce.begin(state)),
    "offering": PhaseRules(done=offering.done, pending=offering.pending, options=offering.options,
                           begin=lambda state, rng: offering.begin(state), end_turn=offering.end_turn),
    "construction": PhaseRules(done=construction.done, pending=construction.pending, options=construction.options,
                               begin=lambda state, rng: construction.begin(state, replay),
                               end_turn=construction.end_turn),
    "military": PhaseRules(done=military.done, pending=military.pending, options=military.options,
                           begin=military.begin, end_turn=military.end_turn),
}


def phase_done(state: State) -> bool:
    """Whether the phase waits for nothing more (before the game is created: there is no phase)."""
    return state.phase == "" or PHASE_RULES[state.phase].done(state)


def _step(state: State, rng: Rng) -> list[ev.AnyEvent]:
    """The next events that follow by themselves, or [] when a decision is awaited."""
    if state.winner is not None or state.award is not None or not state.civs:
        return []
    if state.phase in PHASES and not state.turns.order:
        if not state.turns.assessed:
            changes = roles.assess(state, roles.ROLE_OF_PHASE[state.phase])
            if changes and isinstance(changes[0], ev.RoleTied):
                return changes
        else:
            changes = []
        holder = state.roles.get(roles.ROLE_OF_PHASE[state.phase], "")
        after = changes[0].civ if changes and isinstance(changes[0], ev.RoleAssigned) else holder
        return [*changes, ev.TurnOrder(order=order_from(state, after))]
    if not phase_done(state):
        return []
    out: list[ev.AnyEvent] = construction.end(state) if state.phase == "construction" else []
    rnd, phase = next_phase(state)
    return [*out, ev.PhaseBegan(round=rnd, phase=phase)]


def begin(state: State, rng: Rng) -> list[ev.AnyEvent]:
    """What a phase does by itself once its order is known: revenues, gods back, free units, wars
    fought on."""
    rules = PHASE_RULES.get(state.phase) if state.phase else None
    return rules.begin(state, rng) if rules is not None and rules.begin is not None else []


def settle(state: State, rng: Rng) -> list[ev.AnyEvent]:
    """Every event that follows by itself until a decision is pending or the game is won.

    Its draws (battles as the military phase begins) come from the batch's settling generator
    (ruling K11): where several civilisations decide at once, the host chooses which of their
    blocks ends the phase, and must not choose these dice by it."""
    rng = rng.settling(f"{state.round}:{state.phase or 'setup'}")
    out: list[ev.AnyEvent] = []
    while True:
        step = _step(state, rng)
        if not step:
            return out
        for e in step:
            state = evolve(state, e)
            out.append(e)
        if isinstance(step[-1], ev.TurnOrder):
            for e in begin(state, rng):
                state = evolve(state, e)
                out.append(e)


def decide_order(state: State, order: cm.AnyOrder, rng: Rng) -> list[ev.AnyEvent]:
    """The events of one civilisation's order, then whatever follows by itself."""
    require(bool(state.civs), "game", "the game has not been created")
    require(state.winner is None, "game", "the game is over")
    require(order.civ in state.civs, "game", f"{name(state, order.civ)} is not played in this game")
    military.require_settled(state, order)
    events = _rules(state, order, rng)
    after = state
    for e in events:
        after = evolve(after, e)
    return events + settle(after, rng)


def _rules(state: State, order: cm.AnyOrder, rng: Rng) -> list[ev.AnyEvent]:
    match order:
        case cm.AwardRole():
            return roles.award(state, order)
        case cm.Ask():
            return commerce.ask(state, order)
        case cm.Offer():
            return commerce.offer(state, order)
        case cm.Take():
            return commerce.take(state, order, replay)
        case cm.Give():
            return commerce.give(state, order)
        case cm.Pray():
            return offering.pray(state, order)
        case cm.Invoke():
            return offering.invoke(state, order, replay)
        case cm.Build():
            return construction.build(state, order)
        case cm.PlaceInfluence():
            return construction.place_influence(state, order)
        case cm.Buy():
            return construction.buy(state, order, replay)
        case cm.Sail():
            return military.sail(state, order)
        case cm.Attack():
            return military.attack(state, order, rng)
        case cm.March():
            return military.march(state, order, rng, replay)
        case cm.Place():
            return setup.place(state, order)
        case cm.Blockade() | cm.LetPass():
            return military.blockade(state, order, rng, replay)
        case cm.ChooseLosses():
            return military.lose(state, order, rng, replay)
        case cm.Claim():
            return military.claim(state, order)
        case cm.EndTurn():
            return _end_turn(state, order)
        case _:
            assert_never(order)


def _end_turn(state: State, order: cm.EndTurn) -> list[ev.AnyEvent]:
    rules = PHASE_RULES.get(state.phase) if state.phase else None
    if rules is None or rules.end_turn is None:
        refuse("2", f"nothing to end in the {state.phase or 'set-up'} phase: 'done' ends a turn of "
                    "Offering, Construction or Military")
    return rules.end_turn(state, order)


def pending(state: State) -> list[Pending]:
    if state.winner is not None or not state.civs:
        return []
    if state.award is not None:
        a = state.award
        return [Pending(empire=a.holder, kind="award",
                        text=f"award the {name(state, a.role)} card to one of "
                             + ", ".join(name(state, c) for c in a.tied))]
    return PHASE_RULES[state.phase].pending(state) if state.phase else []


def options(state: State, civ: str) -> list[Option]:
    if state.winner is not None or civ not in state.civs:
        return []
    out: list[Option] = []
    if state.award is not None and state.award.holder == civ:
        out += [Option(kind="award", order=f"award {state.award.role} to {c}") for c in state.award.tied]
        return out
    if state.phase:
        out += PHASE_RULES[state.phase].options(state, civ)
    held = state.gods.get(civ)
    if held is not None and held.face_up:
        out.append(Option(kind="invoke", order=f"invoke {held.god}", note=god_note(state, held.god)))
    return out


def god_note(state: State, god: str) -> str:
    """What invoking a god does: its owner's power (C16), or nothing (C3)."""
    effects = state.powers.of(god) if state.powers is not None else ()
    if not effects:
        return "the god has no power (C3)"
    return "; ".join(describe_effect(e) for e in effects) + " (C16, C17)"
