"""evolve(state, event): the state after one event. It applies facts and checks nothing."""

from __future__ import annotations

from collections.abc import Iterable
from typing import assert_never, cast

from msgspec.structs import replace

from mncore.rulesets.classic import events as ev
from mncore.rulesets.classic.components import game_data
from mncore.rulesets.classic.ids import TAX, Item
from mncore.rulesets.classic.state import (
    Award,
    Blockade,
    Built,
    GodCard,
    Invasion,
    Land,
    Owed,
    State,
    Trade,
    Turns,
    Units,
    Won,
)


def evolve(state: State, event: ev.AnyEvent) -> State:
    """The state after one event; checks nothing."""
    match event:
        case ev.GameCreated():
            return _created(state, event)
        case ev.PositionLoaded(state=loaded):  # the fork record and commitment are the game's own
            return replace(loaded, commitment=state.commitment, options=state.options)
        case ev.CardsSetAside(cards=cards):
            return replace(state, set_aside=cards)
        case ev.RoleAssigned(role=role, civ=civ):
            return replace(state, roles={**state.roles, role: civ}, award=None,
                           turns=replace(state.turns, assessed=True))
        case ev.RoleTied(role=role, holder=holder, tied=tied):
            return replace(state, award=Award(role=role, holder=holder, tied=tied))
        case ev.PhaseBegan():
            return _phase(state, event)
        case ev.TurnOrder(order=order):
            step = game_data().advanced_step if state.phase == "setup" else 0
            return replace(state, turns=replace(state.turns, order=order, points=step))
        case ev.IncomeCollected(civ=civ, cards=cards) | ev.CardsGained(civ=civ, cards=cards):
            return _hand(state, civ, cards.items())
        case ev.TradeAsked(count=n, traders=traders):
            return replace(state, trade=Trade(asked=n, traders=traders))
        case ev.CardsOffered(civ=civ, cards=cards):
            offers = {**state.trade.offers, civ: cards or ()}
            return _hand(replace(state, trade=replace(state.trade, offers=offers)), civ,
                         [(c, -1) for c in cards or ()])
        case ev.OffersRevealed(offers=offers):
            director = state.roles.get("director", "")
            return replace(state, trade=replace(state.trade, revealed=True, open=dict(offers),
                                                taker=director))
        case ev.CardTaken():
            return _taken(state, event)
        case ev.CardGiven(civ=civ, to=to, card=card):
            return _given(state, civ, to, card or TAX)
        case ev.TradeEnded(returned=returned):
            return _trade_ended(state, returned)
        case ev.GodsReturned():
            return replace(state, gods={})
        case ev.GodTaken(civ=civ, god=god, paid=paid):
            return _hand(replace(state, gods={**state.gods, civ: GodCard(god=god)}), civ,
                         [(c, -1) for c in paid])
        case ev.GodInvoked(civ=civ, god=god):
            return replace(state, gods={**state.gods, civ: GodCard(god=god, face_up=False, active=True)})
        case ev.TurnEnded():
            step = game_data().advanced_step if state.phase == "setup" else 0
            return replace(state, turns=replace(state.turns, index=state.turns.index + 1, ground=False,
                                                placed=(), arrived={}, points=step))
        case ev.Placed():
            return _placed(state, event)
        case ev.ItemBuilt():
            return _built(state, event)
        case ev.InfluencePlaced():
            return _influence(state, event)
        case ev.CardBought(civ=civ, card=card, paid=paid):
            return _pay(replace(state, cards={**state.cards, civ: (*state.cards.get(civ, ()), card)}),
                        civ, paid)
        case ev.HandsDiscarded(kept=kept):
            # in the log's order (its canonical JSON sorts a dict's keys), not the deciding side's: the state
            # folded as the orders are given must be the one a replay folds (a snapshot is checked against it)
            return replace(state, hands={c: ({TAX: n} if n else {}) for c, n in sorted(kept.items())})
        case ev.TriremesSailed():
            return _sailed(state, event)
        case ev.NavalBattle(sea=sea, losses=losses):
            here = {c: n - losses.get(c, 0) for c, n in state.seas.get(sea, {}).items()}
            return replace(state, seas={**state.seas, sea: {c: n for c, n in here.items() if n > 0}})
        case ev.Marched():
            return _marched(state, event)
        case ev.BlockadeDeclared():
            b = event
            return replace(state, blockade=Blockade(greek=b.greek, civ=b.civ, unit=b.unit, count=b.count,
                                                    source=b.source, dest=b.dest, via=b.via, then=b.then,
                                                    sack=b.sack))
        case ev.BlockadeEnded():
            return replace(state, blockade=None)
        case ev.GroundBattle():
            return _battle(state, event)
        case ev.InvasionHeld(civ=civ, province=p, fought=fought, then=then, sack=sack):
            return replace(state, invasion=Invasion(civ=civ, province=p, fought=fought, then=then, sack=sack))
        case ev.LossesChosen():
            return _chosen(state, event)
        case ev.Sacked():
            return _sacked(state, event)
        case ev.Settled(civ=civ, province=p, how=how, claims=claims, due=due):
            land = state.land(p)
            land = replace(land, occupier=civ, claims=claims) if how == "occupy" else replace(land, converter=civ)
            return replace(state, lands={**state.lands, p: land}, claiming=p if due else state.claiming)
        case ev.BuildingsClaimed(province=p, claims=claims):
            land = replace(state.land(p), claims=claims)
            return replace(state, lands={**state.lands, p: land}, claiming="" if state.claiming == p else state.claiming)
        case ev.GameWon(civ=civ, condition=condition, detail=detail):
            return replace(state, winner=Won(civ=civ, condition=condition, round=state.round,
                                             detail=detail))
        case _:
            assert_never(event)


def replay(events: Iterable[ev.AnyEvent], state: State) -> State:
    for e in events:
        state = evolve(state, e)
    return state


def _created(state: State, e: ev.GameCreated) -> State:
    data, board = game_data(), e.board
    lands: dict[str, Land] = {}
    for p in board.province:
        if p.capital:  # the capital city is printed on the board
            lands[p.id] = Land(buildings=(Built(kind="city"),))
    for civ in e.civs:  # the advanced set-up sets up the capital only (1.7)
        for i, pid in enumerate(data.civ_of(civ).home[:1] if e.options.setup == "advanced" else
                                data.civ_of(civ).home):
            lands[pid] = _start(lands.get(pid, Land()), civ, board.prov(pid).resources, i == 0,
                                bool(board.prov(pid).seas))
    for civ in e.neutrals:  # 1.6: a neutral capital and the provinces about it (ruling C2)
        home = data.civ_of(civ).home
        # a log recorded before neutral_lands set up the neutral's home provinces: it folds as played
        about = e.neutral_lands[civ] if e.neutral_lands else home[1:]
        for i, pid in enumerate((home[0], *about)):
            units = Units(legion=1, fortress=1, creature=1 if i == 0 else 0)
            lands[pid] = replace(lands.get(pid, Land()), influence=civ, units={civ: units})
    return replace(state, ruleset_id=e.ruleset_id, ruleset_version=e.ruleset_version,
                   commitment=e.commitment, board=board, civs=e.civs, neutrals=e.neutrals,
                   players=e.players, options=e.options, lands=lands, supply=dict(e.supply), powers=e.powers,
                   hands={c: {} for c in e.civs}, cards={c: () for c in e.civs})


def _start(land: Land, civ: str, resources: tuple[str, ...], capital: bool, coastal: bool) -> Land:
    """A played civilisation's starting set-up in one home province (ruling C1)."""
    if capital:
        units = Units(legion=2, fortress=1, trireme=1 if coastal else 0)
        return replace(land, influence=civ, units={civ: units},
                       buildings=(*land.buildings, Built(kind="temple")))
    caravan = (Built(kind="caravan", resource=resources[0]),) if resources else ()
    return replace(land, influence=civ, buildings=land.buildings + caravan,
                   units={civ: Units(legion=1)})


def _phase(state: State, e: ev.PhaseBegan) -> State:
    controlled = {c: tuple(p for p, land in state.lands.items() if land.influence == c)
                  for c in state.civs}
    gods = {c: replace(g, active=False) for c, g in state.gods.items()}  # a god's phase is over (C17)
    return replace(state, round=e.round, phase=e.phase, trade=Trade(), gods=gods,
                   turns=Turns(controlled=controlled))


def _hand(state: State, civ: str, changes: Iterable[tuple[str, int]]) -> State:
    hand = dict(state.hand(civ))
    for card, n in changes:
        hand[card] = hand.get(card, 0) + n
    return replace(state, hands={**state.hands, civ: {k: v for k, v in sorted(hand.items()) if v > 0}})


def _pay(state: State, civ: str, paid: tuple[tuple[str, ...], ...]) -> State:
    return _hand(state, civ, [(c, -1) for group in paid for c in group])


def _taken(state: State, e: ev.CardTaken) -> State:
    t = state.trade
    rest = list(t.open.get(e.source, ()))
    rest.remove(e.card)
    trade = replace(t, open={**t.open, e.source: tuple(rest)},
                    taken={**t.taken, e.civ: (*t.taken.get(e.civ, ()), e.card)},
                    taker=e.source, last=(*t.last[-1:], (e.civ, e.source)))
    return replace(state, trade=trade)


def _given(state: State, civ: str, to: str, card: str) -> State:
    t = state.trade
    taken = dict(t.taken)
    if card in taken.get(civ, ()):  # from the Director's face-down cards, else from his hand
        rest = list(taken[civ])
        rest.remove(card)
        taken[civ] = tuple(rest)
    else:
        state = _hand(state, civ, [(card, -1)])
    taken[to] = (*taken.get(to, ()), card)
    return replace(state, trade=replace(t, taken=taken, short=""))


def _trade_ended(state: State, returned: dict[str, tuple[str, ...]]) -> State:
    for civ, cards in state.trade.taken.items():
        state = _hand(state, civ, [(c, 1) for c in cards])
    for civ, cards in sorted(returned.items()):  # the log's order
        state = _hand(state, civ, [(c, 1) for c in cards])
    return replace(state, trade=Trade(asked=state.trade.asked, revealed=True, done=True))


def _units(land: Land, civ: str, **delta: int) -> Land:
    now = land.units.get(civ, Units())
    new = replace(now, **{k: getattr(now, k) + v for k, v in delta.items()})
    units = {**land.units, civ: new}
    return replace(land, units={c: u for c, u in units.items() if u.total() > 0})


def _built(state: State, e: ev.ItemBuilt) -> State:
    state = _pay(state, e.civ, e.paid)
    land = state.land(e.province)
    if e.item in ("city", "caravan", "temple", "market"):
        land = replace(land, buildings=(*land.buildings, Built(kind=e.item, resource=e.resource)))
        supply = {**state.supply, e.item: state.supply.get(e.item, 0) - 1}
        state = replace(state, supply=supply)
    else:
        land = _units(land, e.civ, **{e.item: 1})
    return replace(state, lands={**state.lands, e.province: land})


def _influence(state: State, e: ev.InfluencePlaced) -> State:
    state = _pay(state, e.civ, e.paid)
    land = replace(state.land(e.province), influence=e.civ, converter="", occupier="", claims=())
    turns = replace(state.turns, placed=(*state.turns.placed, e.province))
    return replace(state, lands={**state.lands, e.province: land}, turns=turns)


def _placed(state: State, e: ev.Placed) -> State:
    turns = replace(state.turns, points=state.turns.points - e.points)
    state = replace(state, turns=turns)
    if e.item == "influence":
        return _influence(state, ev.InfluencePlaced(civ=e.civ, province=e.province))
    if e.item in ("city", "caravan", "temple", "market", "legion", "trireme", "fortress", "creature"):
        return _built(state, ev.ItemBuilt(civ=e.civ, item=cast(Item, e.item), province=e.province,
                                          resource=e.resource))
    return replace(state, cards={**state.cards, e.civ: (*state.cards.get(e.civ, ()), e.item)})


def _sailed(state: State, e: ev.TriremesSailed) -> State:
    seas = dict(state.seas)
    lands = dict(state.lands)
    if e.source in seas or state.the_board().is_sea(e.source):
        src = dict(seas.get(e.source, {}))
        src[e.civ] = src.get(e.civ, 0) - e.count
        seas[e.source] = {c: n for c, n in src.items() if n > 0}
    else:
        lands[e.source] = _units(state.land(e.source), e.civ, trireme=-e.count)
    dest = dict(seas.get(e.sea, {}))
    dest[e.civ] = dest.get(e.civ, 0) + e.count
    seas[e.sea] = dest
    now = state.turns.arrived.get(e.sea, Units())
    arrived = {**state.turns.arrived, e.sea: replace(now, trireme=now.trireme + e.count)}
    return replace(state, seas=seas, lands=lands, turns=replace(state.turns, arrived=arrived))


def _marched(state: State, e: ev.Marched) -> State:
    src = _units(state.land(e.source), e.civ, **{e.unit: -e.count})
    if src.occupier == e.civ and src.units.get(e.civ, Units()).movers() == 0:
        src = replace(src, occupier="", claims=())
    if src.converter == e.civ and src.units.get(e.civ, Units()).movers() == 0:
        src = replace(src, converter="")
    dest = _units(state.land(e.dest), e.civ, **{e.unit: e.count})
    arrived = dict(state.turns.arrived)
    now = arrived.get(e.dest, Units())
    arrived[e.dest] = replace(now, **{e.unit: getattr(now, e.unit) + e.count})
    turns = replace(state.turns, ground=True, arrived=arrived)
    return replace(state, lands={**state.lands, e.source: src, e.dest: dest}, turns=turns)


def _battle(state: State, e: ev.GroundBattle) -> State:
    owed = tuple(Owed(civ=c, province=e.province, hits=h) for c, h in sorted(e.owed.items()))  # the log's order
    return replace(_lost(state, e.province, e.losses), owed=(*state.owed, *owed))


def _chosen(state: State, e: ev.LossesChosen) -> State:
    owed = tuple(o for o in state.owed if (o.civ, o.province) != (e.civ, e.province))
    after = replace(_lost(state, e.province, {e.civ: e.lost}), owed=owed)
    return after if owed else replace(after, invasion=None)


def _lost(state: State, province: str, losses: dict[str, Units]) -> State:
    land = state.land(province)
    for civ, lost in sorted(losses.items()):  # the log's order
        land = _units(land, civ, legion=-lost.legion, creature=-lost.creature, fortress=-lost.fortress)
    for role in ("occupier", "converter"):
        holder = getattr(land, role)
        if holder and land.units.get(holder, Units()).movers() == 0:
            land = replace(land, **{role: ""}, **({"claims": ()} if role == "occupier" else {}))
    return replace(state, lands={**state.lands, province: land})


def _sacked(state: State, e: ev.Sacked) -> State:
    land = state.land(e.province)
    gone = Built(kind=e.building, resource=e.resource)
    rest = list(land.buildings)
    rest.remove(gone)
    claims = list(land.claims)
    if gone in claims:  # the unit on it stands on nothing now (ruling C7)
        claims.remove(gone)
    return replace(state, lands={**state.lands, e.province: replace(land, buildings=tuple(rest),
                                                                       claims=tuple(claims))})
