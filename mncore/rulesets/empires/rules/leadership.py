"""Phase 5, Claim Leadership (5.0) and victory by the three titles (6.4)."""

from __future__ import annotations

from mncore.core.dice import Rng
from mncore.core.errors import refuse, require
from mncore.core.protocol import Option, Pending
from mncore.rulesets.empires import atlas
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.commands import AwardTitle, LeadershipCommand
from mncore.rulesets.empires.ids import EMPIRES, TRACKS, Empire, Track
from mncore.rulesets.empires.projections import level
from mncore.rulesets.empires.rules.fold import Fold
from mncore.rulesets.empires.state import GameState, LeadershipStep, TitleTie


def _name(empire: str) -> str:
    return empire.title()


def step_of(state: GameState) -> LeadershipStep:
    return state.step if isinstance(state.step, LeadershipStep) else LeadershipStep()


def levels_on(state: GameState, track: Track) -> dict[Empire, int]:
    """Every empire's level on the track, recounted now (5.0)."""
    return {e: level(state, e, track) for e in EMPIRES if e in state.empires}


def claim(state: GameState, track: Track, rng: Rng) -> ev.AnyEvent:
    """The title of one track: the highest level takes it; a tie goes to the previous holder (5.0)."""
    levels = levels_on(state, track)
    top = max(levels.values())
    tied = tuple(e for e, n in levels.items() if n == top)
    if len(tied) == 1:
        return ev.TitleClaimed(track=track, empire=tied[0], levels=levels)
    holder = state.titles.get(track)
    if holder is None or holder not in state.empires:
        # nobody in the game held it: a fair draw among the tied (ruling R36)
        return ev.TitleClaimed(track=track, empire=tied[rng.below(len(tied))], levels=levels, drawn=True)
    return ev.TitleTied(track=track, holder=holder, tied=tied, levels=levels)


def begin(state: GameState, rng: Rng, fold: Fold) -> list[ev.AnyEvent]:
    return [claim(state, track, rng) for track in TRACKS]


def pending(state: GameState) -> list[Pending]:
    # the previous holder gives a tied title to any of the tied, himself included (ruling R35)
    return [Pending(empire=t.holder, kind="award-title",
                    text=f"break the tie for the {t.track.title()} Leader title: "
                         f"{', '.join(_name(e) for e in t.tied)} are level")
            for t in step_of(state).ties]


def end(state: GameState, rng: Rng) -> list[ev.AnyEvent]:
    """6.4: an empire holding all three titles at the end of the phase wins; in the Punic War, at the end
    of two phases in a row (ruling R61)."""
    holders = {state.titles.get(t) for t in TRACKS}
    if len(holders) != 1 or None in holders:
        return []
    winner = next(iter(holders))
    assert winner is not None
    chosen = atlas.variant(state.options.setup)
    if chosen is not None and chosen.titles_rounds > 1:
        if step_of(state).held_all != winner:
            return []
        return [ev.GameWon(empires=(winner,), condition="6.4",
                           detail=f"{_name(winner)} holds the Trade, Culture and Military Leader titles "
                                  f"for the second Claim Leadership phase in a row (ruling R61).")]
    return [ev.GameWon(empires=(winner,), condition="6.4",
                       detail=f"{_name(winner)} holds the Trade, Culture and Military Leader titles.")]


def options(state: GameState, empire: Empire) -> list[Option]:
    return [Option(kind="award-title", order=f"title {t.track} to {e}")
            for t in step_of(state).ties if t.holder == empire for e in t.tied]


def decide(state: GameState, order: LeadershipCommand, rng: Rng) -> list[ev.AnyEvent]:
    match order:
        case AwardTitle():
            return award(state, order)


def award(state: GameState, order: AwardTitle) -> list[ev.AnyEvent]:
    require(state.phase == "leadership", "5.0",
            "leader titles are settled in the Claim Leadership phase")
    tie = _tie(state, order.track)
    if tie is None:  # worded only when it refuses
        refuse("5.0", f"there is no tie to break for the {order.track.title()} Leader title")
    if order.empire != tie.holder:  # each refusal worded only when it refuses
        refuse("5.0", f"the previous {order.track.title()} Leader ({_name(tie.holder)}) breaks this tie")
    if order.to not in tie.tied:
        refuse("5.0", f"{_name(order.to)} is not among the tied empires ({', '.join(_name(e) for e in tie.tied)})")
    return [ev.TitleClaimed(track=order.track, empire=order.to,
                            levels=levels_on(state, order.track), decided_by=order.empire)]


def _tie(state: GameState, track: Track) -> TitleTie | None:
    return next((t for t in step_of(state).ties if t.track == track), None)
