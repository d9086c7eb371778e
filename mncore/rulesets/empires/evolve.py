"""evolve(state, event): apply one fact to the state, checking nothing; replay() folds a log."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from msgspec import Struct
from msgspec.structs import replace

from mncore.core.envelope import kernel_passed, passes_kernel_events
from mncore.rulesets.empires import atlas
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.board import Board, Setup
from mncore.rulesets.empires.evolve_runs import ORDINARY, RUNS, RunHandler
from mncore.rulesets.empires.game_data import load_ruleset, tiles_at
from mncore.rulesets.empires.ids import (
    EMPIRES,
    LEGENDARY_PREFIX,
    TRACKS,
    Empire,
    ProvinceId,
    TileId,
    Track,
    legendary,
)
from mncore.rulesets.empires.kept import carry
from mncore.rulesets.empires.state import (  # the expansions  # Troia
    Barbarians,  # the Punic War
    Boost,
    BuildStep,
    CardDraw,
    CitiesState,
    Claim,  # phase 2
    CollectStep,
    DiscardPool,  # Dido (ruling R213)
    EmpireState,
    Fight,
    GameState,
    LeadershipStep,
    Loss,  # phase 4
    MoveStep,
    Opened,
    ProvinceState,
    SeaChallenge,  # Ptolemy (ruling R212)
    Shield,
    Step,
    Tactic,
    TitleTie,  # phase 5
    TradeStep,
    Victory,
    bag_add,
    bag_minus_one,
    bag_plus_one,
    bag_sub,
    bags_moved,
    build_step,
    collect_step,
    move_step,
    trade_step,
)

Handler = Callable[[GameState, Any], GameState]
E = TypeVar("E", bound=Struct)  # an event of the game's union (the kernel folds its own: mncore.core.envelope)

# event type -> its handler, filled by @handles next to each handler; tests/test_meta.py checks that
# every event of ev.AnyEvent has one (what assert_never guaranteed for the match this replaces)
HANDLERS: dict[type, Handler] = {}


def handles(kind: type[E]) -> Callable[[Callable[[GameState, E], GameState]],
                                        Callable[[GameState, E], GameState]]:
    """Register the decorated function as the one handler of events of type `kind`."""
    def register(fn: Callable[[GameState, E], GameState]) -> Callable[[GameState, E], GameState]:
        if kind in HANDLERS:  # a second one would silently replace the first
            raise TypeError(f"two handlers for {kind.__name__}")
        HANDLERS[kind] = fn
        return fn
    return register


@passes_kernel_events
def evolve(state: GameState, event: ev.AnyEvent) -> GameState:
    """Apply one event (a kernel event leaves the state as it is). Checks nothing: decide() has already
    checked the rules."""
    # one dict lookup instead of a match that tries each class in turn; the kernel's events are in
    # the table too, so the envelope needs no call of its own around this one (a replay's every event)
    after = _FOLD[type(event)](state, event)
    if state.__dict__ and after is not state:  # the derived facts kept, if the state before had them (kept.py)
        carry(state, after)
    return after


def replay(events: Iterable[ev.AnyEvent], state: GameState | None = None) -> GameState:
    """Fold events into a state, from the empty state unless one is given."""
    s = state if state is not None else GameState()
    handlers = HANDLERS
    for e in events:
        s = handlers[type(e)](s, e)
    if state is not None:
        carry(state, s)  # the kept facts, for the provinces and seas all the events changed
    return s


# --- helpers shared by the handlers ---------------------------------------------------------------------


def _with_step(state: GameState, step: Step) -> GameState:
    return replace(state, step=step)


def with_province(state: GameState, pid: ProvinceId, **changes: object) -> GameState:
    provinces = dict(state.provinces)
    provinces[pid] = replace(provinces[pid], **changes)
    return replace(state, provinces=provinces)


def with_empire(state: GameState, empire: Empire, **changes: object) -> GameState:
    empires = dict(state.empires)
    empires[empire] = replace(empires[empire], **changes)
    return replace(state, empires=empires)


def round_start_control(state: GameState) -> dict[Empire, tuple[ProvinceId, ...]]:
    # loops, not comprehensions: each of those is a function's frame on Python 3.11 (a third of this)
    held: dict[Empire, Any] = {}
    for emp in state.empires:
        held[emp] = []
    for pid, ps in state.provinces.items():  # one pass over the provinces, not one per empire
        controller = ps.controller
        if controller is not None and controller in held:  # most provinces have none: no lookup
            held[controller].append(pid)
    for emp, pids in held.items():
        pids.sort()
        held[emp] = tuple(pids)
    return held


# --- the game ------------------------------------------------------------------------------------------

@handles(ev.GameCreated)
def _game_created(state: GameState, e: ev.GameCreated) -> GameState:
    rs = load_ruleset()
    board = e.board
    n = str(len(e.players))
    covered = set(board.covered.get(n, ()))
    empires = {emp: EmpireState(player=e.players[emp]) for emp in EMPIRES if emp in e.players}
    titles = _starting_titles(e.options.setup, n)
    state = replace(
        state, ruleset_id=e.ruleset_id, ruleset_version=e.ruleset_version, board=board,
        board_digest=e.board_digest, options=e.options, commitment=e.commitment, round=1,
        phase="trade", empires=empires,
        provinces={p.id: ProvinceState() for p in board.provinces if p.region not in covered},
        seas={s.id: {} for s in board.seas},
        supply=_supply(e.options.setup),
        legendary_pile=tuple(sorted(c for c in rs.components.commodities
                                    for _ in range(rs.components.legendary_per_commodity))),
        titles={t: emp for t, emp in titles.items() if emp in empires},
        exchange_holder=titles.get("trade") if titles.get("trade") in empires else None)
    for setup in board.setups:
        if setup.empire in empires:
            state = _place_setup(state, board, setup)
    chosen = atlas.variant(e.options.setup)
    if chosen is not None and chosen.barbarians is not None:  # Barbarian Setup (atlas.barbarians)
        b = chosen.barbarians
        state = replace(state, barbarians=Barbarians(legions=dict(b.legions), fortresses=b.fortresses,
                                                     triremes=dict(b.triremes)))
    return replace(state, round_start_control=round_start_control(state))


def _starting_titles(setup: str, players: str) -> dict[Track, Empire]:
    """Set-up step 4's titles; a variant names its own (Atlas expansion, ruling R51)."""
    rs = load_ruleset()
    chosen = atlas.variant(setup)
    if chosen is not None:
        return dict(chosen.leaders)
    return {**rs.starting_leaders, **rs.starting_leaders_by_players.get(players, {})}


def _supply(setup: str) -> dict[str, int]:
    """The reserves of coins and commodities, with what an expansion's set adds (ruling R52)."""
    return atlas.reserve_totals(setup)


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


@handles(ev.PositionLoaded)
def _position_loaded(state: GameState, e: ev.PositionLoaded) -> GameState:
    # the game's identity stays as GameCreated set it; everything else is the position's, its
    # empires, provinces and seas in the order a created game has them (the log sorts keys)
    loaded = e.state
    board = state.geo_board
    return replace(loaded, game_id=state.game_id, board=state.board, board_digest=state.board_digest,
                   options=state.options, commitment=state.commitment,
                   empires={emp: loaded.empires[emp] for emp in EMPIRES if emp in loaded.empires},
                   provinces={p.id: loaded.provinces[p.id] for p in board.provinces
                              if p.id in loaded.provinces},
                   seas={s.id: loaded.seas[s.id] for s in board.seas if s.id in loaded.seas})


_INITIAL_STEPS: dict[str, type[Step]] = {
    "collect": CollectStep, "trade": TradeStep, "build": BuildStep, "move": MoveStep,
    "leadership": LeadershipStep,
}


@handles(ev.PhaseBegan)
def _phase_began(state: GameState, e: ev.PhaseBegan) -> GameState:
    if e.phase == "collect":
        # a new round: once-per-round powers are fresh, and 3.1.1 looks at control from now
        empires = dict(state.empires)  # each empire in its place, without a comprehension's frame
        for emp, es in empires.items():
            empires[emp] = replace(es, used=(), last_peace=es.peace_with, peace_with=None)
        state = replace(state, round=e.round, phase=e.phase, step=CollectStep(), empires=empires,
                        round_start_control=round_start_control(state))
        if state.barbarians is not None:  # the Barbarians' paid moves and peace are per round (R64, R67)
            state = replace(state, barbarians=replace(state.barbarians, moves={}, peace=(),
                                                      last_peace=state.barbarians.peace))
        return state
    step = _INITIAL_STEPS[e.phase]()
    if e.phase == "leadership":
        chosen = atlas.variant(state.options.setup)
        if chosen is not None and chosen.titles_rounds > 1:
            holders = {state.titles.get(t) for t in TRACKS}
            step = LeadershipStep(held_all=next(iter(holders)) if len(holders) == 1 else None)
    return replace(state, round=e.round, phase=e.phase, step=step)


@handles(ev.TilesDisplayed)
def _tiles_displayed(state: GameState, e: ev.TilesDisplayed) -> GameState:
    return replace(state, display=e.display)


@handles(ev.GameWon)
def _game_won(state: GameState, e: ev.GameWon) -> GameState:
    return replace(state, winner=Victory(empires=e.empires, condition=e.condition, round=state.round,
                                         detail=e.detail))


# --- collect -------------------------------------------------------------------------------------------

@handles(ev.ResourcesCollected)
def _resources_collected(state: GameState, e: ev.ResourcesCollected) -> GameState:
    return _gain_from_reserve(state, e.empire, e.gained)


def _gain_from_reserve(state: GameState, empire: Empire, gained: dict[str, int]) -> GameState:
    """Tokens go behind the empire's screen: ordinary ones from the reserve, legendary from the pile."""
    ordinary, pile = gained, state.legendary_pile
    if not gained.keys() <= ORDINARY and any(t.startswith(LEGENDARY_PREFIX) for t in gained):
        # rare: the pile is copied only then
        ordinary = {t: n for t, n in gained.items() if not t.startswith(LEGENDARY_PREFIX)}
        left = list(pile)
        for t, n in gained.items():
            if t.startswith(LEGENDARY_PREFIX):
                for _ in range(n):
                    left.remove(t.removeprefix(LEGENDARY_PREFIX))  # type: ignore[arg-type]
        pile = tuple(left)
    es = state.empires[empire]
    if ordinary is gained:  # all from the reserve: one pass moves them
        supply, resources = bags_moved(state.supply, es.resources, gained)
    else:
        supply, resources = bag_sub(state.supply, ordinary), bag_add(es.resources, gained)
    empires = {**state.empires, empire: replace(es, resources=resources)}
    return replace(state, empires=empires, supply=supply, legendary_pile=pile)


@handles(ev.LegendaryBonusTaken)
def _legendary_bonus_taken(state: GameState, e: ev.LegendaryBonusTaken) -> GameState:
    step = collect_step(state)
    left = tuple(c for c in step.legendary_choices if c != (e.empire, e.province))
    state = _gain_from_reserve(state, e.empire, e.gained)
    return _with_step(state, replace(step, legendary_choices=left))


@handles(ev.ColossusCommodityTaken)
def _colossus_commodity_taken(state: GameState, e: ev.ColossusCommodityTaken) -> GameState:
    step = collect_step(state)
    state = _gain_from_reserve(state, e.empire, {e.commodity: 1})
    return _with_step(state, replace(step, colossus=tuple(x for x in step.colossus if x != e.empire)))


@handles(ev.LegendaryPileReshuffled)
def _legendary_pile_reshuffled(state: GameState, e: ev.LegendaryPileReshuffled) -> GameState:
    return replace(state, legendary_pile=tuple(sorted(state.legendary_discard)), legendary_discard=())


@handles(ev.CollectChoicesOpened)
def _collect_choices_opened(state: GameState, e: ev.CollectChoicesOpened) -> GameState:
    return _with_step(state, CollectStep(legendary_choices=e.legendary, colossus=e.colossus))


# --- trade ---------------------------------------------------------------------------------------------

@handles(ev.ExchangeMarkerPlayed)
def _exchange_marker_played(state: GameState, e: ev.ExchangeMarkerPlayed) -> GameState:
    # all played: they are all available again (2.1)
    played = (*state.exchange_played, e.marker)
    every = len(load_ruleset().components.exchange_markers)
    return replace(state, exchange_played=() if len(played) >= every else played,
                   step=replace(trade_step(state), value=e.value))


@handles(ev.ResourcesOffered)
def _resources_offered(state: GameState, e: ev.ResourcesOffered) -> GameState:
    step = state.step
    if not isinstance(step, TradeStep):  # trade_step, without its call
        step = TradeStep()
    es = state.empires[e.empire]
    return replace(state, empires={**state.empires, e.empire: replace(es, resources=bag_sub(es.resources, e.offer))},
                   step=replace(step, offers={**step.offers, e.empire: e.offer},
                                offered={**step.offered, e.empire: e.count}))


@handles(ev.ResourceClaimed)
def _resource_claimed(state: GameState, e: ev.ResourceClaimed) -> GameState:
    step = state.step
    if not isinstance(step, TradeStep):  # trade_step, without its call: claims are a fifth of a replay
        step = TradeStep()
    offers, claimed = step.offers, step.claimed
    return replace(state, step=replace(
        step, offers={**offers, e.source: bag_minus_one(offers.get(e.source, {}), e.token)},
        claimed={**claimed, e.empire: bag_plus_one(claimed.get(e.empire, {}), e.token)},
        claims=(*step.claims, Claim(claimant=e.empire, source=e.source, token=e.token)),
        claimant=e.source))


@handles(ev.ForeignCommodityClaimed)
def _foreign_claimed(state: GameState, e: ev.ForeignCommodityClaimed) -> GameState:
    """The Punic War: the commodity goes to the claimant's claims; the opponent discards (if it has an
    offered resource left) and claims next (ruling R62)."""
    step = trade_step(state)
    foreign = list(state.foreign_trade)
    foreign.remove(e.commodity)
    other = next(emp for emp in state.empires if emp != e.empire)
    one = {legendary(e.commodity): 1}
    return _with_step(replace(state, foreign_trade=tuple(foreign)), replace(
        step, claimed={**step.claimed, e.empire: bag_add(step.claimed.get(e.empire, {}), one)},
        claimant=other, discarding=other if step.offers.get(other) else None))


@handles(ev.OfferDiscarded)
def _offer_discarded(state: GameState, e: ev.OfferDiscarded) -> GameState:
    """The discarded token leaves the offer for the reserves (the legendary discard for a legendary one)."""
    step = trade_step(state)
    one = {e.token: 1}
    state = _with_step(state, replace(step, offers={**step.offers, e.empire: bag_sub(step.offers[e.empire], one)},
                                      discarding=None))
    state = with_empire(state, e.empire, resources=bag_add(state.empires[e.empire].resources, one))
    return _spend(state, e.empire, one)


@handles(ev.ForeignCommodityDrawn)
def _foreign_drawn(state: GameState, e: ev.ForeignCommodityDrawn) -> GameState:
    pile = list(state.legendary_pile)
    pile.remove(e.commodity)
    return replace(state, legendary_pile=tuple(pile), foreign_trade=(*state.foreign_trade, e.commodity))


@handles(ev.TradingEnded)
def _trading_ended(state: GameState, e: ev.TradingEnded) -> GameState:
    step = trade_step(state)
    empires = dict(state.empires)  # one copy for every empire given back (each keeps its place)
    returned, stored = e.returned, e.stored
    for emp in sorted({*returned, *stored}):
        es = empires[emp]
        # one bag alone is added as it is: bag_add of it to {} was a copy the next bag_add makes
        back = (stored[emp] if emp not in returned else returned[emp] if emp not in stored
                else bag_add(returned[emp], stored[emp]))
        empires[emp] = replace(es, resources=bag_add(es.resources, back))
    return replace(state, empires=empires, step=replace(step, offers={}, claimed={}, claimant=None, over=True))


@handles(ev.ResourceGiven)
def _resource_given(state: GameState, e: ev.ResourceGiven) -> GameState:
    step = trade_step(state)
    one = {e.token: 1}
    state = with_empire(state, e.empire, resources=bag_sub(state.empires[e.empire].resources, one))
    state = with_empire(state, e.to, resources=bag_add(state.empires[e.to].resources, one))
    gift = Claim(claimant=e.to, source=e.empire, token=e.token)
    return _with_step(state, replace(step, gifts=(*step.gifts, gift)))


@handles(ev.TradeOpened)
def _trade_opened(state: GameState, e: ev.TradeOpened) -> GameState:
    return _with_step(state, replace(trade_step(state), participants=e.participants, opener=e.opener))


@handles(ev.OffersRevealed)
def _offers_revealed(state: GameState, e: ev.OffersRevealed) -> GameState:
    step = trade_step(state)
    return _with_step(state, replace(step, revealed=True, claimant=step.opener))


# --- build ---------------------------------------------------------------------------------------------

def _spend(state: GameState, empire: Empire, paid: dict[str, int]) -> GameState:
    """Tokens leave the empire: ordinary ones to the reserves, legendary ones to the discard (3.0)."""
    es = state.empires[empire]
    ordinary, discard = paid, state.legendary_discard
    if not paid.keys() <= ORDINARY and any(t.startswith(LEGENDARY_PREFIX) for t in paid):
        # rare: the discard grows only then
        ordinary = {t: n for t, n in paid.items() if not t.startswith(LEGENDARY_PREFIX)}
        discard = (*discard, *(t.removeprefix(LEGENDARY_PREFIX) for t in sorted(paid)  # type: ignore[arg-type]
                               if t.startswith(LEGENDARY_PREFIX) for _ in range(paid[t])))
    if ordinary is paid:  # all to the reserve: one pass moves them
        resources, supply = bags_moved(es.resources, state.supply, paid)
    else:
        resources, supply = bag_sub(es.resources, paid), bag_add(state.supply, ordinary)
    empires = {**state.empires, empire: replace(es, resources=resources)}
    return replace(state, empires=empires, supply=supply, legendary_discard=discard)


def _counted_build(state: GameState, empire: Empire, paid: dict[str, int],
                   power: str | None) -> GameState:
    state = _spend(state, empire, paid)
    if power is not None:
        state = with_empire(state, empire, used=(*state.empires[empire].used, power))
    step = build_step(state)
    return _with_step(state, replace(step, builds=step.builds + 1))


@handles(ev.ControlBuilt)
def _control_built(state: GameState, e: ev.ControlBuilt) -> GameState:
    state = with_province(state, e.province, controller=e.empire)
    return _counted_build(state, e.empire, e.paid, e.power)


@handles(ev.UnitBuilt)
def _unit_built(state: GameState, e: ev.UnitBuilt) -> GameState:
    if e.kind == "trireme":
        here = state.seas[e.place]
        state = replace(state, seas={**state.seas,
                                     e.place: {**here, e.empire: here.get(e.empire, 0) + e.count}})
    elif e.kind == "fortress":
        state = with_province(state, e.place, fortress=e.empire)
    else:
        legions = state.provinces[e.place].legions
        state = with_province(state, e.place,
                              legions={**legions, e.empire: legions.get(e.empire, 0) + e.count})
    return _counted_build(state, e.empire, e.paid, e.power)


@handles(ev.BuildingBuilt)
def _building_built(state: GameState, e: ev.BuildingBuilt) -> GameState:
    buildings = state.provinces[e.province].buildings
    state = with_province(state, e.province, buildings={**buildings, e.space: e.kind})
    return _counted_build(state, e.empire, e.paid, e.power)


def _used_discounts(state: GameState, e: ev.TileGained) -> GameState:
    es = state.empires[e.empire]
    return with_empire(state, e.empire, used=(*es.used, *e.discounts)) if e.discounts else state


@handles(ev.TileGained)
def _tile_gained(state: GameState, e: ev.TileGained) -> GameState:
    state = _used_discounts(state, e)  # once-a-round discounts are spent (10.jason)
    es = state.empires[e.empire]
    state = with_empire(state, e.empire, tiles=(*es.tiles, e.tile),
                        copied=e.copied if e.copied is not None else es.copied)
    state = replace(state, display=tuple(d for d in state.display if d.tile != e.tile))
    state = _counted_build(state, e.empire, e.paid, None)
    if e.rank == load_ruleset().numbers.tiles_to_win:
        step = build_step(state)
        state = _with_step(state, replace(step, recruited=(*step.recruited, e.empire)))
    return state


@handles(ev.BuilderChosen)
def _builder_chosen(state: GameState, e: ev.BuilderChosen) -> GameState:
    step = state.step
    if not isinstance(step, BuildStep):  # build_step, without its call
        step = BuildStep()
    return replace(state, step=replace(step, active=e.builder))


@handles(ev.BuildTurnEnded)
def _build_turn_ended(state: GameState, e: ev.BuildTurnEnded) -> GameState:
    step = state.step
    if not isinstance(step, BuildStep):  # build_step, without its call
        step = BuildStep()
    return replace(state, step=replace(step, active=None, done=(*step.done, e.empire)))


@handles(ev.StorageChosen)
def _storage_chosen(state: GameState, e: ev.StorageChosen) -> GameState:
    step = build_step(state)
    return _with_step(state, replace(step, kept={**step.kept, e.empire: e.keep}))


@handles(ev.ResourcesDiscarded)
def _resources_discarded(state: GameState, e: ev.ResourcesDiscarded) -> GameState:
    return _spend(state, e.empire, e.discarded)


@handles(ev.TilesTurnedUp)
def _tiles_turned_up(state: GameState, e: ev.TilesTurnedUp) -> GameState:
    return replace(state, display=tuple(replace(d, face_up=True) if d.tile in e.tiles else d
                                        for d in state.display))


# --- move ----------------------------------------------------------------------------------------------

def _in_move_step(state: GameState, **changes: object) -> GameState:
    # arranged positions may apply move events outside the phase: the step is then left alone
    if not isinstance(state.step, MoveStep):
        return state
    return replace(state, step=replace(state.step, **changes))


def _legions_plus(ps: ProvinceState, emp: Empire, n: int) -> dict[Empire, int]:
    legions = {**ps.legions, emp: ps.legions.get(emp, 0) + n}
    return {e: c for e, c in legions.items() if c > 0}


@handles(ev.MoverChosen)
def _mover_chosen(state: GameState, e: ev.MoverChosen) -> GameState:
    if state.cities is not None and (state.cities.fights or state.cities.tactics):
        state = _with_cities(state, fights=(), tactics=())  # a turn's battles end with it (R234, R235)
    # a new mover starts a turn afresh: only the phase's own fields, who decided on peace and who is
    # done, carry on; every other field takes its default (built whole: a replace of 14 fields cost more)
    step = state.step
    if not isinstance(step, MoveStep):  # move_step, without its call
        step = MoveStep()
    return replace(state, step=MoveStep(peace_decided=step.peace_decided, active=e.mover, done=step.done))


@handles(ev.SeaBattleOffered)
def _sea_battle_offered(state: GameState, e: ev.SeaBattleOffered) -> GameState:
    return _in_move_step(state, challenge=SeaChallenge(attacker=e.empire, defender=e.opponent, sea=e.sea,
                                                       dice=e.dice))


@handles(ev.SeaBattleAnswered)
def _sea_battle_answered(state: GameState, e: ev.SeaBattleAnswered) -> GameState:
    if e.fight:
        return _in_move_step(state, challenge=None)
    # a refused attack ends the triremes' moves as a sea battle would (ruling R212)
    return _in_move_step(state, challenge=None, stage="sea", refused=(*move_step(state).refused, (e.sea, e.empire)))


@handles(ev.PeaceDeclined)
def _peace_declined(state: GameState, e: ev.PeaceDeclined) -> GameState:
    return _in_move_step(state, peace_decided=(*move_step(state).peace_decided, e.empire))


@handles(ev.PeaceDeclared)
def _peace_declared(state: GameState, e: ev.PeaceDeclared) -> GameState:
    home = sum(e.returned.values())
    for pid, n in e.returned.items():
        state = with_province(state, pid, legions=_legions_plus(state.provinces[pid], e.opponent, -n))
    if home:
        cap = state.provinces[e.capital]
        state = with_province(state, e.capital, legions=_legions_plus(cap, e.opponent, home))
    if state.empires[e.opponent].centaurs in e.returned:  # they go home with the legions (R48)
        state = with_empire(state, e.opponent, centaurs=e.capital)
    if state.empires[e.opponent].myrmidons in e.returned:
        state = with_empire(state, e.opponent, myrmidons=e.capital)
    state = with_empire(state, e.empire, peace_with=e.opponent)
    state = with_empire(state, e.opponent, peace_with=e.empire)
    return _in_move_step(state, peace_decided=(*move_step(state).peace_decided, e.empire))


@handles(ev.CentaursBuilt)
def _centaurs_built(state: GameState, e: ev.CentaursBuilt) -> GameState:
    ps = state.provinces[e.province]
    state = with_province(state, e.province, legions=_legions_plus(ps, e.empire, 1))
    state = _spend(state, e.empire, e.paid) if e.paid else state
    return with_empire(state, e.empire, centaurs=e.province)


@handles(ev.CentaursStruck)
def _centaurs_struck(state: GameState, e: ev.CentaursStruck) -> GameState:
    ps = state.provinces[e.place]
    return with_province(state, e.place, legions=_legions_plus(ps, e.opponent, -1))


@handles(ev.TriremesMoved)
def _triremes_moved(state: GameState, e: ev.TriremesMoved) -> GameState:
    seas = dict(state.seas)
    src = {**seas[e.from_sea], e.empire: seas[e.from_sea].get(e.empire, 0) - e.count}
    seas[e.from_sea] = {emp: n for emp, n in src.items() if n > 0}
    seas[e.to_sea] = {**seas[e.to_sea], e.empire: seas[e.to_sea].get(e.empire, 0) + e.count}
    state = replace(state, seas=seas)
    moved = move_step(state).moved_triremes
    return _in_move_step(state, moved_triremes={**moved, e.to_sea: moved.get(e.to_sea, 0) + e.count})


@handles(ev.LegionsMoved)
def _legions_moved(state: GameState, e: ev.LegionsMoved) -> GameState:
    src = state.provinces[e.from_province]
    state = with_province(state, e.from_province, legions=_legions_plus(src, e.empire, -e.count))
    dst = state.provinces[e.to_province]
    state = with_province(state, e.to_province, legions=_legions_plus(dst, e.empire, e.count))
    moved = move_step(state).moved_legions
    if e.centaurs:
        if move_step(state).centaurs_moved:  # a second step, with Chariots (R236)
            state = _in_move_step(state, twice_units=(*move_step(state).twice_units, "centaurs"))
        state = with_empire(state, e.empire, centaurs=e.to_province)
        state = _in_move_step(state, centaurs_moved=True)
    if e.myrmidons or e.across or e.again:
        state = _troia_moved(state, e)
        moved = move_step(state).moved_legions
    return _in_move_step(state, stage="land",
                         moved_legions={**moved, e.to_province: moved.get(e.to_province, 0) + e.count})


def _troia_moved(state: GameState, e: ev.LegionsMoved) -> GameState:
    """The Myrmidons moved; Odysseus' sea chosen; Chariots' second steps counted (lc.5)."""
    if e.myrmidons:
        if move_step(state).myrmidons_moved:  # a second step, with Chariots (R236)
            state = _in_move_step(state, twice_units=(*move_step(state).twice_units, "myrmidons"))
        state = with_empire(state, e.empire, myrmidons=e.to_province)
        state = _in_move_step(state, myrmidons_moved=True)
    if e.across and not move_step(state).crossing:
        odysseus = tuple(t.id for t in tiles_at(load_ruleset(), "sea_crossing"))
        es = state.empires[e.empire]
        spent = tuple(t for t in odysseus if t in es.tiles or t == es.copied)[:1]
        state = with_empire(state, e.empire, used=(*state.empires[e.empire].used, *spent))
        state = _in_move_step(state, crossing=e.across)
    if e.again:
        step = move_step(state)
        moved = {**step.moved_legions, e.from_province: step.moved_legions.get(e.from_province, 0) - e.again}
        twice = {**step.twice, e.to_province: step.twice.get(e.to_province, 0) + e.again}
        state = _in_move_step(state, moved_legions=moved, twice=twice)
    return state


@handles(ev.BattleFought)
def _battle_fought(state: GameState, e: ev.BattleFought) -> GameState:
    step = move_step(state)
    owed = tuple(Loss(empire=emp, place=e.place, hits=n) for emp, n in sorted(e.losses.items()) if n)
    if state.cities is not None and "troia" in state.cities.expansions:  # ruling R234, R235
        state = _troia_fought(state, e)
    return _in_move_step(state, stage="sea" if e.kind == "sea" else "battles",
                         battles=(*step.battles, e.place), losses=(*step.losses, *owed))


@handles(ev.BarbariansMoved)
def _barbarians_moved(state: GameState, e: ev.BarbariansMoved) -> GameState:
    b = state.barbarians
    assert b is not None
    field = "triremes" if e.unit == "trireme" else "legions"
    where = dict(getattr(b, field))
    where[e.from_place] -= 1
    where[e.to_place] = where.get(e.to_place, 0) + 1
    b = replace(b, **{field: {k: n for k, n in where.items() if n}},
                moves={**b.moves, e.empire: b.moves.get(e.empire, 0) + 1})
    return _spend(replace(state, barbarians=b), e.empire, {e.paid: 1})


@handles(ev.BarbarianBattleFought)
def _barbarian_battle_fought(state: GameState, e: ev.BarbarianBattleFought) -> GameState:
    b = state.barbarians
    assert b is not None
    lost = e.barbarians_lost
    if e.kind == "sea":
        left = b.triremes.get(e.place, 0) - lost
        b = replace(b, triremes={**{k: n for k, n in b.triremes.items() if k != e.place},
                                 **({e.place: left} if left else {})})
    else:  # legions first, the fortress with the last unit (ruling R65)
        legions = b.legions.get(e.place, 0)
        gone = min(lost, legions)
        fort = lost > legions
        b = replace(b, legions={**{k: n for k, n in b.legions.items() if k != e.place},
                                **({e.place: legions - gone} if legions - gone else {})},
                    fortresses=tuple(p for p in b.fortresses if not (fort and p == e.place)))
    step = move_step(state)
    owed = (Loss(empire=e.empire.empire, place=e.place, hits=e.losses),) if e.losses else ()
    # a sea battle closes the trireme moves, a land battle the legion moves, as the empire's own do (4.1)
    stage = ("sea" if step.stage == "naval" else step.stage) if e.kind == "sea" else "battles"
    return _in_move_step(replace(state, barbarians=b), stage=stage,
                         battles=(*step.battles, e.place), losses=(*step.losses, *owed))


@handles(ev.BarbarianPeaceDeclared)
def _barbarian_peace(state: GameState, e: ev.BarbarianPeaceDeclared) -> GameState:
    b = state.barbarians
    assert b is not None
    state = replace(state, barbarians=replace(b, peace=(*b.peace, e.empire)))
    return _in_move_step(state, peace_decided=(*move_step(state).peace_decided, e.empire))
def _troia_fought(state: GameState, e: ev.BattleFought) -> GameState:
    """The War cards readied for this battle are spent; the battle waits for its losses to name a winner."""
    cs = _cities(state)
    fight = Fight(place=e.place, attacker=e.attacker.empire, defender=e.defender.empire)
    return _with_cities(state, tactics=tuple(t for t in cs.tactics if t.place != e.place),
                        fights=(*cs.fights, fight))


@handles(ev.UnitsLost)
def _units_lost(state: GameState, e: ev.UnitsLost) -> GameState:
    if e.triremes:
        sea = state.seas[e.place]
        left = {**sea, e.empire: sea.get(e.empire, 0) - e.triremes}
        state = replace(state, seas={**state.seas, e.place: {k: n for k, n in left.items() if n > 0}})
    if e.legions or e.fortress:
        ps = state.provinces[e.place]
        state = with_province(state, e.place, legions=_legions_plus(ps, e.empire, -e.legions),
                              fortress=None if e.fortress else ps.fortress)
    if e.centaurs:
        state = with_empire(state, e.empire, centaurs=None)
    if e.myrmidons:
        state = with_empire(state, e.empire, myrmidons=None)
    step = move_step(state)
    losses = tuple(x for x in step.losses if (x.empire, x.place) != (e.empire, e.place))
    return _in_move_step(state, losses=losses)


@handles(ev.OccupationsEnded)
def _occupations_ended(state: GameState, e: ev.OccupationsEnded) -> GameState:
    ps = state.provinces[e.province]
    return with_province(
        state, e.province,
        occupied={s: emp for s, emp in ps.occupied.items() if s not in e.spaces},
        circe={s: emp for s, emp in ps.circe.items() if s not in e.circe},
        marker_occupier=None if e.marker else ps.marker_occupier)


@handles(ev.Pillaged)
def _pillaged(state: GameState, e: ev.Pillaged) -> GameState:
    ps = state.provinces[e.province]
    state = with_province(state, e.province,
                          buildings={s: k for s, k in ps.buildings.items() if s != e.space},
                          occupied={s: emp for s, emp in ps.occupied.items() if s != e.space})
    state = _gain_from_reserve(state, e.empire, e.gained)
    return _conquest_chosen(state, e.province)


def _conquest_chosen(state: GameState, pid: ProvinceId) -> GameState:
    return _in_move_step(state, decided=(*move_step(state).decided, pid))


@handles(ev.BuildingsOccupied)
def _buildings_occupied(state: GameState, e: ev.BuildingsOccupied) -> GameState:
    occupied = {**state.provinces[e.province].occupied, **{sid: e.empire for sid in e.spaces}}
    return _conquest_chosen(with_province(state, e.province, occupied=occupied), e.province)


@handles(ev.MarkerOccupied)
def _marker_occupied(state: GameState, e: ev.MarkerOccupied) -> GameState:
    state = with_province(state, e.province, marker_occupier=e.empire, marker_round=state.round)
    return _conquest_chosen(state, e.province)


@handles(ev.ConquestHeld)
def _conquest_held(state: GameState, e: ev.ConquestHeld) -> GameState:
    return _conquest_chosen(state, e.province)


@handles(ev.CirceLegionPlaced)
def _circe_legion_placed(state: GameState, e: ev.CirceLegionPlaced) -> GameState:
    return with_province(state, e.province, circe={**state.provinces[e.province].circe, e.space: e.empire})


@handles(ev.MoveTurnEnded)
def _move_turn_ended(state: GameState, e: ev.MoveTurnEnded) -> GameState:
    step = state.step
    if not isinstance(step, MoveStep):  # as _in_move_step: an arranged position's step is left alone
        return state
    return replace(state, step=replace(step, active=None, done=(*step.done, e.empire)))


@handles(ev.ControlConverted)
def _control_converted(state: GameState, e: ev.ControlConverted) -> GameState:
    ps = state.provinces[e.province]
    state = with_province(state, e.province, controller=e.empire if e.replaced else None,
                          marker_occupier=None,
                          legions=_legions_plus(ps, e.empire, -1) if e.sheba else ps.legions)
    if e.sheba:
        used = (*state.empires[e.empire].used, *_converting(state, e.empire))
        state = with_empire(state, e.empire, used=used)
        if state.empires[e.empire].centaurs == e.province and not state.provinces[e.province].legions.get(e.empire):
            state = with_empire(state, e.empire, centaurs=None)  # the Centaurs were the legion given up
        if state.empires[e.empire].myrmidons == e.province and not state.provinces[e.province].legions.get(e.empire):
            state = with_empire(state, e.empire, myrmidons=None)
    return state


def _converting(state: GameState, empire: Empire) -> tuple[TileId, ...]:
    """The powers that converted at once (10.queen-of-sheba): the empire's, held or copied."""
    es = state.empires[empire]
    return tuple(t.id for t in tiles_at(load_ruleset(), "convert_at_once")
                 if t.id in es.tiles or t.id == es.copied)


# --- leadership ----------------------------------------------------------------------------------------

@handles(ev.TitleTied)
def _title_tied(state: GameState, e: ev.TitleTied) -> GameState:
    step = state.step if isinstance(state.step, LeadershipStep) else LeadershipStep()
    tie = TitleTie(track=e.track, holder=e.holder, tied=e.tied)
    return replace(state, step=replace(step, ties=(*step.ties, tie)))


@handles(ev.TitleClaimed)
def _title_claimed(state: GameState, e: ev.TitleClaimed) -> GameState:
    step = state.step
    if isinstance(step, LeadershipStep) and step.ties:  # no tie left: the step is kept as it is
        step = replace(step, ties=tuple(t for t in step.ties if t.track != e.track))
    titles = {**state.titles, e.track: e.empire}
    if e.track == "trade" and e.empire != state.exchange_holder:
        # a new Trade Leader takes possession of all three markers (2.1)
        return replace(state, exchange_holder=e.empire, exchange_played=(), titles=titles, step=step)
    return replace(state, titles=titles, step=step)


# --- sandboxes -----------------------------------------------------------------------------------------

@handles(ev.FixedOutcomeUsed)
def _fixed_outcome_used(state: GameState, e: ev.FixedOutcomeUsed) -> GameState:
    if not e.queued:  # fixed by the order itself: nothing was waiting
        return state
    i = state.fixed.index(e.outcome)
    return replace(state, fixed=state.fixed[:i] + state.fixed[i + 1:])


@handles(ev.OutcomeFixed)
def _outcome_fixed(state: GameState, e: ev.OutcomeFixed) -> GameState:
    return replace(state, fixed=(*state.fixed, e.outcome))


@handles(ev.FixedOutcomesCleared)
def _fixed_outcomes_cleared(state: GameState, e: ev.FixedOutcomesCleared) -> GameState:
    return replace(state, fixed=())


# --- the Legendary City expansions ------------------------------------------------------------------------

def _cities(state: GameState) -> CitiesState:
    return state.cities or CitiesState()


def _with_cities(state: GameState, **changes: object) -> GameState:
    return replace(state, cities=replace(_cities(state), **changes))


def _without(cards: tuple[str, ...], gone: Iterable[str]) -> tuple[str, ...]:
    """cards with each of gone removed once."""
    left = list(cards)
    for card in gone:
        left.remove(card)
    return tuple(left)


def _with_hand(state: GameState, empire: Empire, hand: tuple[str, ...]) -> GameState:
    hands = {**_cities(state).hands, empire: hand}
    return _with_cities(state, hands={e: h for e, h in hands.items() if h})


def _with_draw(state: GameState, **changes: object) -> GameState:
    draws = _cities(state).draws
    return _with_cities(state, draws=(replace(draws[0], **changes), *draws[1:]))


@handles(ev.CitiesSetUp)
def _cities_set_up(state: GameState, e: ev.CitiesSetUp) -> GameState:
    # 10.midas: "If Midas is in play, add 2 Gold commodity tokens ... to the commodity reserve pile"
    return replace(state, supply=bag_add(state.supply, e.supply),
                   cities=CitiesState(expansions=e.expansions, objectives=e.objectives, decks=dict(e.decks)))


@handles(ev.ObjectiveFulfilled)
def _objective_fulfilled(state: GameState, e: ev.ObjectiveFulfilled) -> GameState:
    from mncore.rulesets.empires.cities import objective_info
    cs = _cities(state)
    draw = CardDraw(drawer=e.empire, objective=e.objective, deck=objective_info(e.objective)[0].id)
    draws = (*cs.draws, draw) if e.draws else cs.draws
    return _with_cities(state, fulfilled={**cs.fulfilled, e.objective: e.empire}, draws=draws)


@handles(ev.BonusCardsDrawn)
def _bonus_cards_drawn(state: GameState, e: ev.BonusCardsDrawn) -> GameState:
    decks = _cities(state).decks
    state = _with_cities(state, decks={**decks, e.deck: _without(decks[e.deck], e.cards)})
    return _with_draw(state, count=e.count, holder=e.empire, hand=e.cards)


@handles(ev.BonusCardKept)
def _bonus_card_kept(state: GameState, e: ev.BonusCardKept) -> GameState:
    state = _with_hand(state, e.empire, (*_cities(state).hands.get(e.empire, ()), e.card))
    draw = _cities(state).draws[0]
    hand = _without(draw.hand, [e.card])
    if not hand:  # every card drawn is taken: the draw is over
        return _with_cities(state, draws=_cities(state).draws[1:])
    return _with_draw(state, hand=hand, received=(*draw.received, e.empire))


@handles(ev.BonusCardsDiscarded)
def _bonus_cards_discarded(state: GameState, e: ev.BonusCardsDiscarded) -> GameState:
    cs = _cities(state)
    return _with_cities(state, discard=(*cs.discard, *e.cards), draws=cs.draws[1:])


@handles(ev.DiscardCardDrawn)
def _discard_card_drawn(state: GameState, e: ev.DiscardCardDrawn) -> GameState:
    state = _with_cities(state, discard=_without(_cities(state).discard, [e.card]))
    state = with_empire(state, e.empire, used=(*state.empires[e.empire].used, e.tile))
    return _with_hand(state, e.empire, (*_cities(state).hands.get(e.empire, ()), e.card))


@handles(ev.BonusCardPlayed)
def _bonus_card_played(state: GameState, e: ev.BonusCardPlayed) -> GameState:
    played = (e.played, e.played) if e.as_card is not None else (e.played,)
    state = _with_hand(state, e.empire, _without(_cities(state).hands.get(e.empire, ()), played))
    return _with_cities(state, discard=(*_cities(state).discard, *played))


@handles(ev.TriremeSunk)
def _trireme_sunk(state: GameState, e: ev.TriremeSunk) -> GameState:
    sea = state.seas[e.sea]
    left = {**sea, e.owner: sea.get(e.owner, 0) - 1}
    return replace(state, seas={**state.seas, e.sea: {k: n for k, n in left.items() if n > 0}})


@handles(ev.BuildingDestroyed)
def _building_destroyed(state: GameState, e: ev.BuildingDestroyed) -> GameState:
    ps = state.provinces[e.province]
    return with_province(state, e.province, buildings={s: k for s, k in ps.buildings.items() if s != e.space},
                         occupied={s: emp for s, emp in ps.occupied.items() if s != e.space})


@handles(ev.TollPaid)
def _toll_paid(state: GameState, e: ev.TollPaid) -> GameState:
    payer, payee = state.empires[e.empire], state.empires[e.to]
    state = with_empire(state, e.empire, resources=bag_sub(payer.resources, {"coin": 1}))
    return with_empire(state, e.to, resources=bag_add(payee.resources, {"coin": 1}))


@handles(ev.FreeTriremeBuilt)
def _free_trireme_built(state: GameState, e: ev.FreeTriremeBuilt) -> GameState:
    here = state.seas[e.sea]
    state = replace(state, seas={**state.seas, e.sea: {**here, e.empire: here.get(e.empire, 0) + 1}})
    return _with_cities(state, launched=(*_cities(state).launched, e.tile))


@handles(ev.OfferChanged)
def _offer_changed(state: GameState, e: ev.OfferChanged) -> GameState:
    es = state.empires[e.empire]
    state = with_empire(state, e.empire, resources=bag_sub(bag_add(es.resources, e.returned), e.offer))
    step = trade_step(state)
    return _with_step(state, replace(step, offers={**step.offers, e.empire: e.offer}))


@handles(ev.ResourceForced)
def _resource_forced(state: GameState, e: ev.ResourceForced) -> GameState:
    step = trade_step(state)
    one = {e.token: 1}
    return _with_step(state, replace(
        step, offers={**step.offers, e.empire: bag_sub(step.offers.get(e.empire, {}), one)},
        claimed={**step.claimed, e.to: bag_add(step.claimed.get(e.to, {}), one)}))


@handles(ev.BonusCardsPassed)
def _bonus_cards_passed(state: GameState, e: ev.BonusCardsPassed) -> GameState:
    return _with_draw(state, holder=e.to)


@handles(ev.LeaderBoosted)
def _leader_boosted(state: GameState, e: ev.LeaderBoosted) -> GameState:
    boost = Boost(empire=e.empire, track=e.track, amount=e.amount, round=e.round)
    return _with_cities(state, boosts=(*_cities(state).boosts, boost))


@handles(ev.ProvinceShielded)
def _province_shielded(state: GameState, e: ev.ProvinceShielded) -> GameState:
    return _with_cities(state, shields=(*_cities(state).shields, Shield(province=e.province, round=e.round)))


@handles(ev.ProvinceOpened)
def _province_opened(state: GameState, e: ev.ProvinceOpened) -> GameState:
    opened = Opened(empire=e.empire, province=e.province, round=e.round)
    return _with_cities(state, opened=(*_cities(state).opened, opened))


@handles(ev.HalicarnassusPlaced)
def _halicarnassus_placed(state: GameState, e: ev.HalicarnassusPlaced) -> GameState:
    return _with_cities(state, halicarnassus=e.province)


@handles(ev.DiscardsOffered)
def _discards_offered(state: GameState, e: ev.DiscardsOffered) -> GameState:
    pool = DiscardPool(empire=e.empire, tile=e.tile, lost=e.lost, keep=e.keep)
    return _with_cities(state, discards=(*_cities(state).discards, pool))


@handles(ev.DiscardsTaken)
def _discards_taken(state: GameState, e: ev.DiscardsTaken) -> GameState:
    state = with_empire(state, e.empire, resources=bag_add(state.empires[e.empire].resources, e.taken))
    state = replace(state, supply=bag_sub(state.supply, e.taken))
    if state.cities is None or not state.cities.discards:
        return state  # taken as Build ended, before the holder named them (logs before ruling R213 changed)
    rest = tuple(p for p in state.cities.discards if (p.empire, p.tile) != (e.empire, e.tile))
    return _with_cities(state, discards=rest)


# --- Troia (lc.5) ------------------------------------------------------------------------------------------

@handles(ev.MyrmidonsBuilt)
def _myrmidons_built(state: GameState, e: ev.MyrmidonsBuilt) -> GameState:
    ps = state.provinces[e.province]
    state = with_province(state, e.province, legions=_legions_plus(ps, e.empire, 1))
    state = _spend(state, e.empire, e.paid) if e.paid else state
    return with_empire(state, e.empire, myrmidons=e.province)


@handles(ev.BattleCardReady)
def _battle_card_ready(state: GameState, e: ev.BattleCardReady) -> GameState:
    tactic = Tactic(empire=e.empire, played=e.played, place=e.place)
    return _with_cities(state, tactics=(*_cities(state).tactics, tactic))


@handles(ev.ChariotsHarnessed)
def _chariots_harnessed(state: GameState, e: ev.ChariotsHarnessed) -> GameState:
    return _in_move_step(state, chariots=True)


@handles(ev.LossImposed)
def _loss_imposed(state: GameState, e: ev.LossImposed) -> GameState:
    return _in_move_step(state, losses=(*move_step(state).losses, Loss(empire=e.owner, place=e.place, hits=1)))


@handles(ev.BattleWon)
def _battle_won(state: GameState, e: ev.BattleWon) -> GameState:
    cs = _cities(state)
    return _with_cities(state, fights=tuple(f for f in cs.fights if f.place != e.place),
                        victories={**cs.victories, e.empire: cs.victories.get(e.empire, 0) + 1})


# every handler, and the kernel's events passed over (the kernel folds them: mncore/core/kernel_state.py)
_FOLD: dict[type, Handler] = kernel_passed(HANDLERS)


# every type _FOLD folds, with the handler of its runs (evolve_runs.RUNS) or None: a subscript, where
# RUNS.get was a method's call for every event
_JOINS: dict[type, RunHandler | None] = {t: RUNS.get(t) for t in _FOLD}


def evolve_all(state: GameState, events: Iterable[Any]) -> GameState:
    """The state evolve gives over each event in turn; where the state keeps no facts, without evolve's
    call per event, and each run of a family of events folded at once (evolve_runs)."""
    if state.__dict__:  # kept facts are carried event by event, as evolve does
        for e in events:
            state = evolve(state, e)
        return state
    # no handler writes a state's instance dict, and a replace leaves it out: every state after an
    # empty one is as empty, so evolve would carry nothing
    fold, joins = _FOLD, _JOINS
    run: list[Any] = []
    gathering: RunHandler | None = None  # the handler of the run gathered, if any
    for e in events:
        t = type(e)
        handler = joins[t]
        if handler is gathering and handler is not None:
            run.append(e)
            continue
        if run:
            state = _run_folded(state, gathering, run)
            run = []
        gathering = handler
        if handler is None:
            state = fold[t](state, e)
        else:
            run.append(e)
    return _run_folded(state, gathering, run) if run else state


def _run_folded(state: GameState, handler: RunHandler | None, run: list[Any]) -> GameState:
    """A run folded at once by its handler (evolve_runs), or one event at a time where it declines."""
    if len(run) > 1 and handler is not None:
        after = handler(state, run)
        if after is not None:
            return after
    for e in run:
        state = HANDLERS[type(e)](state, e)
    return state
