"""The toy's rules: set-up, the muster and clash phases, victory; decide, pending and options."""

from __future__ import annotations

from collections.abc import Sequence

from mncore.core.dice import Rng
from mncore.core.errors import require
from mncore.core.protocol import Option, Pending
from toy.model import (
    PROVINCES,
    RULESET_ID,
    RULESET_VERSION,
    AnyEvent,
    AnyOrder,
    Clash,
    ClashFought,
    CreateToy,
    GameCreated,
    GameWon,
    Muster,
    Options,
    Pass,
    Passed,
    PhaseBegan,
    Province,
    ReserveDrawn,
    Side,
    State,
    UnitMustered,
    board,
    evolve,
)


def create(cmd: CreateToy, rng: Rng, commitment: str) -> list[AnyEvent]:
    """Set-up (1.1, 1.2): the sides at home, each with a reserve drawn face down."""
    require(sorted(cmd.sides) == sorted(s.id for s in board().side), "1.1",
            "the toy is played by exactly red and blue")
    created = GameCreated(ruleset_id=RULESET_ID, ruleset_version=RULESET_VERSION, sides=cmd.sides,
                          players=cmd.players, commitment=commitment,
                          options=Options(fair_play=cmd.fair_play, sandbox=not cmd.fair_play))
    drawn = [ReserveDrawn(side=s, count=rng.roll(board().reserve)) for s in cmd.sides]
    return [created, *drawn, PhaseBegan(round=1, phase="muster")]


def decide_order(state: State, cmd: AnyOrder, rng: Rng) -> list[AnyEvent]:
    """The events of one side's order, then whatever follows by itself (phase ends, victory)."""
    require(bool(state.sides), "game", "the game has not been created")
    require(state.winner is None, "game", "the game is over")
    match cmd:
        case Muster():
            events: list[AnyEvent] = _muster(state, cmd)
        case Pass():
            _turn(state, cmd.side)
            events = [Passed(side=cmd.side)]
        case Clash():
            events = [_clash(state, cmd, rng)]
    after = state
    for e in events:
        after = evolve(after, e)
    return events + settle(after)


def _n(thing: str) -> str:
    return board().name(thing)


def _turn(state: State, side: Side) -> None:
    require(state.phase == "muster", "2.1", "orders to muster are given in the muster phase, "
                                            f"not the {state.phase or 'set-up'} phase")
    due = state.to_muster()
    require(due == side, "2.1", f"it is {_n(due or '')}'s turn to muster, not {_n(side)}'s")


def _muster(state: State, cmd: Muster) -> list[AnyEvent]:
    _turn(state, cmd.side)
    require(state.reserves.get(cmd.side, 0) > 0, "2.3", f"{_n(cmd.side)} has no unit left in reserve")
    require(_reachable(state, cmd.side, cmd.province), "2.2",
            f"{_n(cmd.province)} is neither held by {_n(cmd.side)} nor adjacent to a province it holds")
    return [UnitMustered(side=cmd.side, province=cmd.province)]


def _reachable(state: State, side: Side, province: Province) -> bool:
    held = [p for p, s in state.holders.items() if s == side]
    return province in held or any(board().adjacent(h, province) for h in held)


def _clash(state: State, cmd: Clash, rng: Rng) -> ClashFought:
    require(state.phase == "clash", "3.2", "clashes are fought in the clash phase")
    require(cmd.province in state.contested(), "3.1", f"{_n(cmd.province)} is not contested")
    due = state.contested()[0]
    require(cmd.province == due, "R1", f"the clash in {_n(due)} is fought first")
    first = state.present(cmd.province)[0]
    require(cmd.side == first, "3.2",
            f"{_n(first)} settles the clash in {_n(cmd.province)}, not {_n(cmd.side)}")
    rolls = {s: rng.roll(board().die) for s in state.present(cmd.province)}
    totals = {s: r + state.units[cmd.province][s] for s, r in rolls.items()}
    best = max(totals.values())
    leaders = [s for s, t in totals.items() if t == best]
    holder = state.holders[cmd.province]
    if len(leaders) > 1:
        return ClashFought(province=cmd.province, rolls=rolls, winner=holder, ruling="R2")
    return ClashFought(province=cmd.province, rolls=rolls, winner=leaders[0])


def settle(state: State) -> list[AnyEvent]:
    """What follows by itself once nobody is awaited: the clash phase, the round's end, victory."""
    if state.phase == "muster" and state.to_muster() is None:
        if state.contested():
            return [PhaseBegan(round=state.round, phase="clash")]
        return _end_round(state)
    if state.phase == "clash" and not state.contested():
        return _end_round(state)
    return []


def _end_round(state: State) -> list[AnyEvent]:
    counts = {s: sum(1 for p in PROVINCES if state.holders.get(p) == s) for s in state.sides}
    whole = [s for s, n in counts.items() if n == len(PROVINCES)]
    if whole:
        return [GameWon(sides=(whole[0],), condition="4.1")]
    if state.round >= board().rounds:
        best = max(counts.values())
        return [GameWon(sides=tuple(s for s in state.sides if counts[s] == best), condition="4.2")]
    return [PhaseBegan(round=state.round + 1, phase="muster")]


def pending(state: State) -> list[Pending]:
    """Who the game waits for, and for what."""
    due = state.to_muster()
    if due is not None:
        return [Pending(empire=due, kind="muster", text="muster a unit or pass")]
    if state.phase == "clash" and state.winner is None:
        first = state.contested()[0]  # one clash at a time, in board order (ruling R1)
        return [Pending(empire=state.present(first)[0], kind="clash",
                        text=f"settle the clash in {_n(first)}")]
    return []


def options(state: State, side: Side) -> list[Option]:
    """Every order the side may give now, as whole lines."""
    if state.to_muster() == side:
        lines: Sequence[str] = [f"muster {p}" for p in _musterable(state, side)] + ["pass"]
    elif any(p.empire == side for p in pending(state)):
        lines = [f"clash {state.contested()[0]}"]
    else:
        lines = []
    return [Option(kind=line.split()[0], order=line) for line in lines]


def _musterable(state: State, side: Side) -> list[Province]:
    if state.reserves.get(side, 0) <= 0:
        return []
    return [p for p in PROVINCES if _reachable(state, side, p)]
