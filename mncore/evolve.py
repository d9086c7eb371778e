"""evolve(state, event): apply one fact to the state, checking nothing; replay() folds a log."""

from __future__ import annotations

from collections.abc import Iterable
from typing import assert_never

from msgspec.structs import replace

from mncore import events as ev
from mncore.board import Board, Setup
from mncore.ids import EMPIRES, LEGENDARY_PREFIX, Empire, ProvinceId
from mncore.ruleset import load_ruleset
from mncore.state import (BuildStep, CollectStep, EmpireState, GameState, LeadershipStep, MoveStep,
                          ProvinceState, Step, TradeStep, Victory, bag_add, bag_sub)


def evolve(state: GameState, event: ev.AnyEvent) -> GameState:
    """Apply one event. Checks nothing: decide() has already checked the rules."""
    match event:
        case ev.GameCreated():
            return _game_created(state, event)
        case ev.TilesDisplayed(display=display):
            return replace(state, display=display)
        case ev.PhaseBegan():
            return _phase_began(state, event)
        case ev.SecretRevealed(secret=secret):
            return replace(state, secret=secret)
        case ev.GameWon(empires=empires, condition=condition, detail=detail):
            return replace(state, winner=Victory(empires=empires, condition=condition,
                                                 round=state.round, detail=detail))
        # --- collect ---
        case ev.ResourcesCollected():
            return _resources_collected(state, event)
        case ev.LegendaryPileReshuffled():
            return replace(state, legendary_pile=tuple(sorted(state.legendary_discard)),
                           legendary_discard=())
        # --- trade ---
        case ev.ExchangeMarkerPlayed():
            return _exchange_marker_played(state, event)
        # --- build ---
        case ev.BuilderChosen(builder=builder):
            return _with_step(state, replace(build_step(state), active=builder))
        # --- move ---
        case ev.MoverChosen(mover=mover):
            return _with_step(state, replace(move_step(state), active=mover, stage="naval"))
        # --- leadership ---
        case ev.TitleClaimed():
            return _title_claimed(state, event)
        case _:
            assert_never(event)


def replay(events: Iterable[ev.AnyEvent], state: GameState | None = None) -> GameState:
    """Fold events into a state, from the empty state unless one is given."""
    s = state if state is not None else GameState()
    for e in events:
        s = evolve(s, e)
    return s


# --- helpers shared by the handlers ---------------------------------------------------------------------

def _with_step(state: GameState, step: Step) -> GameState:
    return replace(state, step=step)


def build_step(state: GameState) -> BuildStep:
    return state.step if isinstance(state.step, BuildStep) else BuildStep()


def move_step(state: GameState) -> MoveStep:
    return state.step if isinstance(state.step, MoveStep) else MoveStep()


def trade_step(state: GameState) -> TradeStep:
    return state.step if isinstance(state.step, TradeStep) else TradeStep()


def collect_step(state: GameState) -> CollectStep:
    return state.step if isinstance(state.step, CollectStep) else CollectStep()


def with_province(state: GameState, pid: ProvinceId, **changes: object) -> GameState:
    provinces = dict(state.provinces)
    provinces[pid] = replace(provinces[pid], **changes)
    return replace(state, provinces=provinces)


def with_empire(state: GameState, empire: Empire, **changes: object) -> GameState:
    empires = dict(state.empires)
    empires[empire] = replace(empires[empire], **changes)
    return replace(state, empires=empires)


def round_start_control(state: GameState) -> dict[Empire, tuple[ProvinceId, ...]]:
    return {emp: tuple(sorted(p for p, ps in state.provinces.items() if ps.controller == emp))
            for emp in state.empires}


# --- the game ------------------------------------------------------------------------------------------

def _game_created(state: GameState, e: ev.GameCreated) -> GameState:
    rs = load_ruleset()
    board = e.board
    n = str(len(e.players))
    covered = set(board.covered.get(n, ()))
    empires = {emp: EmpireState(player=e.players[emp]) for emp in EMPIRES if emp in e.players}
    titles = dict(rs.starting_leaders)
    titles.update(rs.starting_leaders_by_players.get(n, {}))
    state = replace(
        state, ruleset_id=e.ruleset_id, ruleset_version=e.ruleset_version, board=board,
        board_digest=e.board_digest, options=e.options, commitment=e.commitment, round=1,
        phase="trade", empires=empires,
        provinces={p.id: ProvinceState() for p in board.provinces if p.region not in covered},
        seas={s.id: {} for s in board.seas},
        supply={"coin": rs.components.coins, **rs.components.commodities},
        legendary_pile=tuple(sorted(c for c in rs.components.commodities
                                    for _ in range(rs.components.legendary_per_commodity))),
        titles={t: emp for t, emp in titles.items() if emp in empires},
        exchange_holder=titles.get("trade") if titles.get("trade") in empires else None)
    for setup in board.setups:
        if setup.empire in empires:
            state = _place_setup(state, board, setup)
    return replace(state, round_start_control=round_start_control(state))


def _place_setup(state: GameState, board: Board, setup: Setup) -> GameState:
    emp = setup.empire
    provinces = dict(state.provinces)
    for pid in setup.provinces:
        provinces[pid] = replace(provinces[pid], controller=emp)
    kinds = {(p.id, s.id): s.kind for p in board.provinces for s in p.spaces}
    for ref in setup.buildings:
        pid, sid = ref.split("/", 1)
        ps = provinces[pid]
        provinces[pid] = replace(ps, buildings={**ps.buildings, sid: kinds[(pid, sid)]})
    for pid, count in setup.legions.items():
        ps = provinces[pid]
        provinces[pid] = replace(ps, legions={**ps.legions, emp: ps.legions.get(emp, 0) + count})
    for pid in setup.fortresses:
        provinces[pid] = replace(provinces[pid], fortress=emp)
    seas = dict(state.seas)
    for sid, count in setup.triremes.items():
        seas[sid] = {**seas[sid], emp: seas[sid].get(emp, 0) + count}
    state = replace(state, provinces=provinces, seas=seas)
    return with_empire(state, emp, tiles=(setup.hero,))


_INITIAL_STEPS: dict[str, type[Step]] = {
    "collect": CollectStep, "trade": TradeStep, "build": BuildStep, "move": MoveStep,
    "leadership": LeadershipStep,
}


def _phase_began(state: GameState, e: ev.PhaseBegan) -> GameState:
    state = replace(state, round=e.round, phase=e.phase, step=_INITIAL_STEPS[e.phase]())
    if e.phase == "collect":
        # a new round: once-per-round powers are fresh, and 3.1.1 looks at control from now
        empires = {emp: replace(es, used=(), last_peace=es.peace_with, peace_with=None)
                   for emp, es in state.empires.items()}
        state = replace(state, empires=empires, round_start_control=round_start_control(state))
    return state


# --- collect -------------------------------------------------------------------------------------------

def _resources_collected(state: GameState, e: ev.ResourcesCollected) -> GameState:
    ordinary = {t: n for t, n in e.gained.items() if not t.startswith(LEGENDARY_PREFIX)}
    pile = list(state.legendary_pile)
    for t, n in e.gained.items():
        if t.startswith(LEGENDARY_PREFIX):
            for _ in range(n):
                pile.remove(t.removeprefix(LEGENDARY_PREFIX))  # type: ignore[arg-type]
    es = state.empires[e.empire]
    state = with_empire(state, e.empire, resources=bag_add(es.resources, e.gained))
    return replace(state, supply=bag_sub(state.supply, ordinary), legendary_pile=tuple(pile))


# --- trade ---------------------------------------------------------------------------------------------

def _exchange_marker_played(state: GameState, e: ev.ExchangeMarkerPlayed) -> GameState:
    # all three played: they are all available again (2.1)
    played = (*state.exchange_played, e.marker)
    return replace(state, exchange_played=() if len(played) >= 3 else played,
                   step=replace(trade_step(state), value=e.value))


# --- leadership ----------------------------------------------------------------------------------------

def _title_claimed(state: GameState, e: ev.TitleClaimed) -> GameState:
    if e.track == "trade" and e.empire != state.exchange_holder:
        # a new Trade Leader takes possession of all three markers (2.1)
        state = replace(state, exchange_holder=e.empire, exchange_played=())
    step = state.step
    if isinstance(step, LeadershipStep):
        step = replace(step, ties=tuple(t for t in step.ties if t.track != e.track))
    return replace(state, titles={**state.titles, e.track: e.empire}, step=step)
