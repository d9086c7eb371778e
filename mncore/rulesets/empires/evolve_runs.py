"""Runs of events of one type folded at once (evolve_all): the state evolve gives them one by one."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from msgspec.structs import replace

from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.ids import COIN, COMMODITIES, LEGENDARY_PREFIX, Empire, Token
from mncore.rulesets.empires.state import (
    Bag,
    BuildStep,
    Claim,
    EmpireState,
    GameState,
    LeadershipStep,
    MoveStep,
    TitleTie,
    TradeStep,
    add_into,
    bag_add,
    bag_minus_one,
    bag_plus_one,
    bag_sub,
    sub_into,
)

# A run's states between its events are never seen, so each dict a run changes is copied once, by the
# helper its first change goes through (which drops any zero the bag held), and changed in place after
# (no zero is left to drop: each count that falls to zero is dropped there), and the state is replaced
# once: every dict ends with the keys, order and counts the events folded one by one give it.
# A run handler returns None for a run it leaves to be folded one by one (a rare case, told first).
RunHandler = Callable[[GameState, list[Any]], GameState | None]

# the coin and the ordinary commodities: a bag whose tokens are all here holds no legendary one (a set
# comparison in C, where a generator over the bag cost a third of a collection's or a payment's fold)
ORDINARY = frozenset((COIN, *COMMODITIES))


def all_ordinary(bag: Bag) -> bool:
    """No legendary token in bag: evolve moves it between the reserve and an empire in one pass."""
    return bag.keys() <= ORDINARY or not any(t.startswith(LEGENDARY_PREFIX) for t in bag)


def _one_into(bag: Bag, token: Token, n: int) -> None:
    """bag_plus_one (n 1) or bag_minus_one (n -1) in place on a bag that holds no zero."""
    total = bag.get(token, 0) + n
    if total:
        bag[token] = total
    else:
        del bag[token]


def _with_resources(empires: dict[Empire, EmpireState], bags: dict[Empire, Bag]) -> dict[Empire, EmpireState]:
    for emp, bag in bags.items():
        empires[emp] = replace(empires[emp], resources=bag)
    return empires


def claims(state: GameState, run: list[ev.ResourceClaimed]) -> GameState:
    """Tokens claimed one after another: the step replaced once, each offer and claim bag copied once."""
    step = state.step
    if not isinstance(step, TradeStep):
        step = TradeStep()
    offers, claimed = step.offers.copy(), step.claimed.copy()
    mine_offers: set[Empire] = set()
    mine_claimed: set[Empire] = set()
    made = list(step.claims)
    for e in run:
        source, empire, token = e.source, e.empire, e.token
        if source in mine_offers:
            _one_into(offers[source], token, -1)
        else:
            offers[source] = bag_minus_one(offers.get(source, {}), token)
            mine_offers.add(source)
        if empire in mine_claimed:
            _one_into(claimed[empire], token, 1)
        else:
            claimed[empire] = bag_plus_one(claimed.get(empire, {}), token)
            mine_claimed.add(empire)
        made.append(Claim(claimant=empire, source=source, token=token))
    return replace(state, step=replace(step, offers=offers, claimed=claimed, claims=tuple(made),
                                       claimant=run[-1].source))


def collections(state: GameState, run: list[ev.ResourcesCollected]) -> GameState | None:
    """Empires collecting ordinary tokens from the reserve in turn."""
    return _moved(state, [(e.empire, e.gained) for e in run], True)


def discards(state: GameState, run: list[ev.ResourcesDiscarded]) -> GameState | None:
    """Empires discarding ordinary tokens to the reserve in turn."""
    return _moved(state, [(e.empire, e.discarded) for e in run], False)


def _moved(state: GameState, moves: list[tuple[Empire, Bag]], collected: bool) -> GameState | None:
    """Each move's ordinary tokens from the reserve to the empire (collected) or back; None if one holds
    a legendary token (the pile or the discard changes: folded one by one)."""
    for _, bag in moves:
        if not all_ordinary(bag):
            return None
    supply: Bag | None = None
    bags: dict[Empire, Bag] = {}
    empires = state.empires
    for emp, tokens in moves:
        if supply is None:
            supply = bag_sub(state.supply, tokens) if collected else bag_add(state.supply, tokens)
        else:
            (sub_into if collected else add_into)(supply, tokens)
        if emp in bags:
            (add_into if collected else sub_into)(bags[emp], tokens)
        else:
            resources = empires[emp].resources
            bags[emp] = bag_add(resources, tokens) if collected else bag_sub(resources, tokens)
    return replace(state, empires=_with_resources(empires.copy(), bags), supply=supply)


def offers(state: GameState, run: list[ev.ResourcesOffered]) -> GameState:
    """Offers placed one after another: the step and the empires replaced once."""
    step = state.step
    if not isinstance(step, TradeStep):
        step = TradeStep()
    placed, offered = step.offers.copy(), step.offered.copy()
    bags: dict[Empire, Bag] = {}
    empires = state.empires
    for e in run:
        emp = e.empire
        if emp in bags:
            sub_into(bags[emp], e.offer)
        else:
            bags[emp] = bag_sub(empires[emp].resources, e.offer)
        placed[emp] = e.offer
        offered[emp] = e.count
    return replace(state, empires=_with_resources(empires.copy(), bags),
                   step=replace(step, offers=placed, offered=offered))


def move_turns(state: GameState, run: list[ev.MoverChosen | ev.MoveTurnEnded]) -> GameState | None:
    """Movers named and their turns ended: each step made as evolve makes it, the state replaced once;
    None while a turn's battles are still to be cleared from the expansions' cards (R234, R235)."""
    if state.cities is not None and (state.cities.fights or state.cities.tactics):
        return None
    step = state.step
    for e in run:
        if type(e) is ev.MoverChosen:
            if not isinstance(step, MoveStep):
                step = MoveStep()
            step = MoveStep(peace_decided=step.peace_decided, active=e.mover, done=step.done)
        elif isinstance(step, MoveStep):  # else the turn's end leaves an arranged position's step alone
            step = replace(step, active=None, done=(*step.done, e.empire))
    return state if step is state.step else replace(state, step=step)


def build_turns(state: GameState, run: list[ev.BuilderChosen | ev.BuildTurnEnded]) -> GameState:
    """Builders named and their turns ended: each step made as evolve makes it, the state replaced once."""
    step = state.step
    for e in run:
        if not isinstance(step, BuildStep):
            step = BuildStep()
        if type(e) is ev.BuilderChosen:
            step = replace(step, active=e.builder)
        else:
            step = replace(step, active=None, done=(*step.done, e.empire))
    return replace(state, step=step)


def titles(state: GameState, run: list[ev.TitleTied | ev.TitleClaimed]) -> GameState:
    """Titles tied and claimed: each step made as evolve makes it, the titles copied and the state
    replaced once."""
    step, claimed = state.step, state.titles.copy()
    holder, played = state.exchange_holder, state.exchange_played
    for e in run:
        if isinstance(e, ev.TitleTied):
            if not isinstance(step, LeadershipStep):
                step = LeadershipStep()
            step = replace(step, ties=(*step.ties, TitleTie(track=e.track, holder=e.holder, tied=e.tied)))
            continue
        if isinstance(step, LeadershipStep) and step.ties:  # no tie left: the step is kept as it is
            step = replace(step, ties=tuple(t for t in step.ties if t.track != e.track))
        claimed[e.track] = e.empire
        if e.track == "trade" and e.empire != holder:  # the new Trade Leader takes the markers (2.1)
            holder, played = e.empire, ()
    return replace(state, titles=claimed, step=step, exchange_holder=holder, exchange_played=played)


# each event type whose runs are folded at once, with the one handler its run goes to: a run is the
# events one after another whose types share a handler
RUNS: dict[type, RunHandler] = {
    ev.ResourceClaimed: claims,
    ev.ResourcesCollected: collections,
    ev.ResourcesDiscarded: discards,
    ev.ResourcesOffered: offers,
    ev.MoverChosen: move_turns,
    ev.MoveTurnEnded: move_turns,
    ev.BuilderChosen: build_turns,
    ev.BuildTurnEnded: build_turns,
    ev.TitleTied: titles,
    ev.TitleClaimed: titles,
}
