"""Phase 4, Move and Battle (4.0, 4.1): Zeus's peace, turn order, movement, the turn's stages, 6.3."""

from __future__ import annotations

from mncore.core.cache import ObjectCache
from mncore.core.dice import Rng
from mncore.core.errors import InvalidCommand, refuse, require
from mncore.core.protocol import Option, Pending
from mncore.rulesets.empires import atlas, random_draws, tile_powers
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.board import Board, geo
from mncore.rulesets.empires.commands import (  # Punic
    AnswerSeaBattle,  # Ptolemy (ruling R212)
    Attack,
    AttackBarbarians,
    ChooseLosses,
    ChooseMover,
    DeclarePeace,
    EndMoveTurn,
    HoldConquest,
    MoveBarbarians,
    MoveCommand,
    MoveLegions,
    MoveTriremes,
    OccupyBuildings,
    OccupyMarker,
    PeaceWithBarbarians,
    Pillage,
    PlaceCirceLegion,
)
from mncore.rulesets.empires.display_names import title
from mncore.rulesets.empires.game_data import load_ruleset
from mncore.rulesets.empires.ids import Empire, ProvinceId, SeaId
from mncore.rulesets.empires.kept import standing
from mncore.rulesets.empires.projections import great_cities, great_city_count
from mncore.rulesets.empires.rules import (
    atlantis,
    barbarian_orders,
    barbarians,
    battle,
    conquest,
    guards,
    land_units,
    troia,  # the Troia expansion (lc.5)
)
from mncore.rulesets.empires.rules.battle import empires_at, enemies_at, place_name, units_at
from mncore.rulesets.empires.rules.fold import Fold
from mncore.rulesets.empires.state import GameState, MoveStep, ProvinceState, move_step

# --- queries ------------------------------------------------------------------------------------------

def at_war(state: GameState, province: ProvinceId) -> bool:
    """Two or more empires have legions or a fortress in the province (4.2.1)."""
    return len(empires_at(state, province)) >= 2


def military_leader(state: GameState) -> Empire:
    """Who names the active empires (4.0); without a Military Leader, the first empire in play (R49)."""
    leader = state.titles.get("military")
    return leader if leader is not None else next(iter(state.empires))


def undecided_peace(state: GameState) -> list[Empire]:
    step = move_step(state)
    return [e for e in tile_powers.holders_at(state, "peace") if e not in step.peace_decided]


def peace_partners(state: GameState, empire: Empire) -> list[Empire]:
    """The opponents the Statue of Zeus may make peace with: never last round's (11.statue-of-zeus)."""
    last = state.empires[empire].last_peace
    return [e for e in state.empires if e not in (empire, last)]  # and the Barbarians (barbarians.py)


def required_battles(state: GameState) -> list[ProvinceId]:
    """Provinces where the active empire's units (a fortress alone too) meet an opponent's, not at peace,
    and no battle was fought yet this turn (4.1.2, ruling R47).

    Found once per state object (kept in its instance dict, as flow.waiting): a player's options and
    the end of its turn ask it of the same state."""
    found: tuple[ProvinceId, ...] | None = state.__dict__.get(_BATTLES)
    if found is None:
        found = state.__dict__[_BATTLES] = tuple(_required_battles(state))
    return list(found)


_BATTLES = "_required_battles"  # the instance dict's key of required_battles()'s answer


def _required_battles(state: GameState) -> list[ProvinceId]:
    step = move_step(state)
    if step.active is None:
        return []
    active = step.active
    provinces = state.provinces
    # only where its units stand (kept.standing: counted once per board, not over it each question), and
    # only where another empire's units stand too (most of them hold its units alone)
    return sorted({*(pid for pid in standing(state, active) if pid not in step.battles
                     and _others_in(provinces[pid], active)
                     and any(not guards.exempt(state, pid, active, e) for e in enemies_at(state, pid, active))),
                   *barbarian_orders.required(state, active)})


def _others_in(ps: ProvinceState, empire: Empire) -> bool:
    """Whether units of another empire stand in the province (enemies_at() is empty otherwise)."""
    fortress = ps.fortress
    return (fortress is not None and fortress != empire) or any(
        n > 0 and e != empire for e, n in ps.legions.items())


def unmoved_triremes(state: GameState, empire: Empire, sea: str) -> int:
    return state.seas[sea].get(empire, 0) - move_step(state).moved_triremes.get(sea, 0)


def unmoved_legions(state: GameState, empire: Empire, pid: ProvinceId) -> int:
    return state.provinces[pid].legions.get(empire, 0) - move_step(state).moved_legions.get(pid, 0)


def legion_destinations(state: GameState, empire: Empire, pid: ProvinceId) -> list[ProvinceId]:
    """Provinces in play adjacent to pid, or adjoining it through the empire's triremes (4.1.2)."""
    board = state.geo_board
    seas = conquest.trireme_seas(state, empire)
    known = _reaches(board)
    found = known.get((pid, seas))
    if found is None:
        g = geo(board)
        near = g.adjacent(pid)
        reach = near | g.adjoining(pid, seas) if seas else near  # no trireme chain: the land borders alone
        if len(known) >= 4096:
            known.clear()
        found = known[(pid, seas)] = tuple(sorted(reach))  # the few reached sorted, not the whole board
    provinces = state.provinces
    return [p for p in found if p in provinces]


# per board: (a province, the seas holding an empire's triremes) -> the provinces a legion there
# reaches, sorted, in play or not (a player asks it for each province it moves from, every turn)
_reaches: ObjectCache[Board, dict[tuple[ProvinceId, frozenset[SeaId]], tuple[ProvinceId, ...]]] = ObjectCache(
    lambda board: {}, limit=8)


# --- the phase ----------------------------------------------------------------------------------------

def begin(state: GameState, rng: Rng, fold: Fold) -> list[ev.AnyEvent]:
    return []


def waiting(state: GameState) -> list[tuple[Empire, str]]:
    """Who must decide what kind of thing now, as (empire, kind), without the words (4.0, 4.1)."""
    step = move_step(state)
    peace = undecided_peace(state)
    if peace:
        return [(e, "peace") for e in peace]
    if step.challenge is not None:
        return [(step.challenge.defender, "sea-battle")]
    if step.losses:
        return [(x.empire, "losses") for x in step.losses]
    if step.active is not None:
        return [(step.active, "turn")]
    if any(e not in step.done for e in state.empires):
        return [(military_leader(state), "mover")]
    return []


def pending(state: GameState) -> list[Pending]:
    """waiting(), each decision in words (the words cost the battles and conquests open: say them only
    when shown)."""
    step = move_step(state)
    found = waiting(state)
    if not found:
        return []
    kind = found[0][1]
    if kind == "peace":
        whom = "EMPIRE|barbarians" if barbarians.in_play(state) else "EMPIRE"  # ruling R67
        return [Pending(empire=e, kind="peace",
                        text=f"Statue of Zeus: declare peace with an opponent (peace with {whom}) or "
                             "not (no peace)") for e, _ in found]
    if kind == "sea-battle" and step.challenge is not None:
        c = step.challenge
        return [Pending(empire=c.defender, kind="sea-battle",
                        text=f"{title(c.attacker)} attacks your triremes in {place_name(state, c.sea)}: fight the "
                             "sea battle or refuse it (Ptolemy: fight battle | refuse battle)")]
    if kind == "losses":
        return [Pending(empire=x.empire, kind="losses",
                        text=f"choose {x.hits} unit(s) lost in {place_name(state, x.place)} "
                             f"(lose ... in {x.place})") for x in step.losses]
    if kind == "turn":
        return [Pending(empire=found[0][0], kind="turn", text=_turn_text(state, step))]
    left = ", ".join(title(e) for e in state.empires if e not in step.done)
    return [Pending(empire=found[0][0], kind="mover", text=f"name the next empire to move and battle ({left})")]


def _turn_text(state: GameState, step: MoveStep) -> str:
    battles = required_battles(state)
    conquests = conquest.open_conquests(state)
    if battles:
        return "battle in " + ", ".join(place_name(state, p) for p in battles) + (
            " (attack EMPIRE|barbarians in PROVINCE)" if barbarians.in_play(state) else " (attack EMPIRE in PROVINCE)")
    if conquests:
        return ("choose what to do in " + ", ".join(place_name(state, p) for p in conquests)
                + " (pillage, occupy or hold)")
    return {"naval": "move triremes, attack at sea, move legions, or done",
            "sea": "attack at sea, move legions, or done",
            "land": "move legions, or done",
            "battles": "done"}[step.stage]


def end(state: GameState, rng: Rng) -> list[ev.AnyEvent]:
    """6.3: four capital and/or legendary cities controlled or occupied at the end of the phase; three
    in the Punic War (ruling R61)."""
    chosen = atlas.variant(state.options.setup)
    needed = (chosen.great_cities_to_win if chosen and chosen.great_cities_to_win
              else load_ruleset().numbers.great_cities_to_win)
    winners = [e for e in state.empires if great_city_count(state, e) >= needed]  # listed only for a winner
    if not winners:
        return []
    leader = state.titles.get("military")
    if len(winners) > 1 and leader in winners:
        # R45: by analogy with 6.2, the Military Leader wins among several
        winners = [leader]
    detail = "; ".join(f"{title(e)} holds " + ", ".join(_city_name(state, p, s)
                                                         for p, s in great_cities(state, e))
                       for e in winners)
    return [ev.GameWon(empires=tuple(winners), condition="6.3", detail=detail)]


def _city_name(state: GameState, pid: ProvinceId, sid: str) -> str:
    _, space = geo(state.geo_board).space(f"{pid}/{sid}")
    return space.name or f"{sid} in {place_name(state, pid)}"


# --- orders -------------------------------------------------------------------------------------------

def decide(state: GameState, order: MoveCommand, rng: Rng, fold: Fold) -> list[ev.AnyEvent]:
    if state.phase != "move":  # worded only when it refuses: every order of the phase passes here
        refuse("4.0", f"this is the {state.phase} phase; move and battle orders are given in Move and Battle")
    match order:
        case ChooseMover():
            return choose_mover(state, order, fold)
        case DeclarePeace():
            return declare_peace(state, order, fold)
        case PeaceWithBarbarians():
            _require_peace_turn(state, order.empire)
            return barbarian_orders.declare_peace(state, order)
        case AnswerSeaBattle():
            return answer_sea_battle(state, order, rng, fold)
        case ChooseLosses():  # a loss where no battle was fought this turn is a War card's (R235)
            fought = order.place in move_step(state).battles
            return _then_settle(state, fold, [battle.choose_losses(state, order)], order.place, battle=fought)
    _require_turn(state, order.empire)
    match order:
        case MoveTriremes():
            return move_triremes(state, order)
        case MoveLegions():
            return move_legions(state, order, fold)
        case Attack():
            return attack(state, order, rng, fold)
        case Pillage():
            return conquest.pillage(state, order, rng)
        case OccupyBuildings():
            return conquest.occupy_buildings(state, order)
        case OccupyMarker():
            return conquest.occupy_marker(state, order)
        case HoldConquest():
            return conquest.hold(state, order)
        case PlaceCirceLegion():
            return conquest.place_circe_legion(state, order)
        case EndMoveTurn():
            return end_turn(state, order)
        case MoveBarbarians():
            return _with_forced_losses(state, fold, barbarian_orders.move(state, order, rng, fold), order.to_place)
        case AttackBarbarians():
            return _with_forced_losses(state, fold, barbarian_orders.attack(state, order, rng), order.place)
    raise InvalidCommand(f"{type(order).__name__} is not a Move and Battle order")


def _require_turn(state: GameState, empire: Empire) -> None:
    step = move_step(state)
    if step.active != empire:  # worded only when refused: every order of a turn passes here
        refuse("4.0", f"it is not {title(empire)}'s Move and Battle turn"
                      + (f" ({title(step.active)} is active)" if step.active else ""))
    for x in step.losses:
        require(False, "4.2", f"{title(x.empire)} must first choose {x.hits} unit(s) lost in "
                              f"{place_name(state, x.place)}")
    c = step.challenge
    if c is not None:
        refuse(guards.PTOLEMY, f"{title(c.defender)} must first fight or refuse the attack "
                               f"in {place_name(state, c.sea)} (ruling R212)")


def _then_settle(state: GameState, fold: Fold, events: list[ev.AnyEvent], *places: str, battle: bool = True
                 ) -> list[ev.AnyEvent]:
    """Events followed by the occupations they end in the provinces concerned (4.3, R43)."""
    after = fold(events, state)
    for place in places:
        if place in after.provinces:
            ended = conquest.settle_occupations(after, place, battle)
            events, after = events + ended, fold(ended, after)
    return events


def choose_mover(state: GameState, order: ChooseMover, fold: Fold) -> list[ev.AnyEvent]:
    step = move_step(state)
    require(not undecided_peace(state), "11.statue-of-zeus",
            "the Statue of Zeus's peace is declared at the beginning of the phase, before anyone moves")
    leader = military_leader(state)
    # each refusal worded only when it refuses: every turn of the phase is named here
    if order.empire != leader:
        refuse("4.0", f"only the Military Leader ({title(leader)}) names the next empire to move and battle")
    if step.active is not None:
        refuse("4.0", f"{title(step.active)} has not finished its turn")
    if order.mover not in state.empires:
        refuse("4.0", f"{title(order.mover)} is not in this game")
    if order.mover in step.done:
        refuse("4.0", f"{title(order.mover)} has had its Move and Battle turn this round")
    out: list[ev.AnyEvent] = [ev.MoverChosen(empire=order.empire, mover=order.mover)]
    # R40: a marker still occupied at the start of the conqueror's turn is converted by itself
    return out + conquest.conversions(fold(out, state), order.mover)


def declare_peace(state: GameState, order: DeclarePeace, fold: Fold) -> list[ev.AnyEvent]:
    _require_peace_turn(state, order.empire)
    if order.opponent is None:
        return [ev.PeaceDeclined(empire=order.empire)]
    opp = order.opponent
    require(opp in state.empires and opp != order.empire, "11.statue-of-zeus",
            f"{title(opp)} is not an opponent in this game")
    require(opp != state.empires[order.empire].last_peace, "11.statue-of-zeus",
            f"{title(order.empire)} made peace with {title(opp)} last round; never the same opponent "
            "two rounds in a row")
    # R48: legions in the holder's provinces go home; occupations they held end with them (R43)
    capital = next(s.capital for s in state.geo_board.setups if s.empire == opp)
    returned = {pid: ps.legions[opp] for pid, ps in sorted(state.provinces.items())
                if ps.controller == order.empire and ps.legions.get(opp, 0) and pid != capital}
    events: list[ev.AnyEvent] = [ev.PeaceDeclared(empire=order.empire, opponent=opp, capital=capital,
                                                  returned=returned)]
    return _then_settle(state, fold, events, *returned)


def _require_peace_turn(state: GameState, empire: Empire) -> None:
    require(tile_powers.has_at(state, empire, "peace"), "11.statue-of-zeus",
            f"{title(empire)} does not hold the Statue of Zeus")
    require(empire in undecided_peace(state), "11.statue-of-zeus",
            "the Statue of Zeus's peace is declared once, at the beginning of the phase")


def _with_forced_losses(state: GameState, fold: Fold, events: list[ev.AnyEvent], place: str
                        ) -> list[ev.AnyEvent]:
    """A battle's events with the losses their owner has no choice about (4.2), then the occupations
    they end (4.3, R43)."""
    after = fold(events, state)
    for loss in move_step(after).losses:
        forced = battle.forced_losses(after, loss)
        if forced is not None:
            events.append(forced)
    return _then_settle(state, fold, events, place)


def _require_moves(state: GameState, kind: str) -> None:
    stage = move_step(state).stage
    if kind == "trireme":
        require(stage == "naval", "4.1", "triremes move before any sea battle and before any legion "
                                         "moves; each unit moves once")
    else:
        require(stage != "battles", "4.1.2",
                "legions move before the land battles: a battle or conquest closed the movement")


def move_triremes(state: GameState, order: MoveTriremes) -> list[ev.AnyEvent]:
    g = geo(state.geo_board)
    src, dst = g.sea(order.from_sea), g.sea(order.to_sea)
    _require_moves(state, "trireme")
    require(order.count >= 1, "4.1.1", "move at least one trireme")
    free = unmoved_triremes(state, order.empire, src.id)
    if free < order.count:  # each refusal worded only when it refuses
        refuse("4.1", f"{title(order.empire)} has {free} trireme(s) in {src.name} that have not moved this "
               "turn; each unit moves once")
    if dst.id not in g.sea_neighbours(src.id):
        refuse("4.1.1", f"{dst.name} is not adjacent to {src.name}; a trireme moves to an adjacent sea")
    return [ev.TriremesMoved(empire=order.empire, from_sea=src.id, to_sea=dst.id, count=order.count)]


def move_legions(state: GameState, order: MoveLegions, fold: Fold) -> list[ev.AnyEvent]:
    g = geo(state.geo_board)
    src, dst = g.province(order.from_province), g.province(order.to_province)
    _require_moves(state, "legion")
    require(order.count >= 1, "4.1.2", "move at least one legion")
    if dst.id not in state.provinces:  # worded only when it refuses
        refuse("setup.players", f"{dst.name} is covered with this number of players and cannot be entered")
    again = land_units.require_move(state, order)  # the Centaurs, the Myrmidons, Chariots (R55, R230, R236)
    adjacent = g.is_adjacent(src.id, dst.id)
    across = troia.crossing_seas(state, order)  # Odysseus (R233)
    by_sea = not adjacent and g.is_adjoining(src.id, dst.id, conquest.trireme_seas(state, order.empire) | across)
    # each refusal worded only when it refuses: every legion moved passes here
    if not (adjacent or by_sea):
        refuse("4.1.2", f"{dst.name} is neither adjacent to {src.name} nor adjoining it through a continuous "
                        f"chain of {title(order.empire)}'s triremes")
    owner = state.provinces[dst.id].controller
    if owner is not None and battle.at_peace(state, order.empire, owner):
        refuse("11.statue-of-zeus", f"{title(order.empire)} is at peace with {title(owner)} this round and "
                                    f"may not enter its province {dst.name}")
    if barbarians.at_peace(state, order.empire) and barbarians.units(state, dst.id):
        refuse("R67", f"{title(order.empire)} is at peace with the Barbarians this round and may not enter "
                      f"{dst.name}, where they stand (ruling R67)")
    if across and not by_sea:
        refuse(troia.ODYSSEUS, f"{dst.name} is reached without crossing {order.across}")
    events: list[ev.AnyEvent] = [ev.LegionsMoved(empire=order.empire, from_province=src.id,
                                                 to_province=dst.id, count=order.count, by_sea=by_sea,
                                                 centaurs=order.centaurs, myrmidons=order.myrmidons,
                                                 across=order.across, again=again)]
    return _then_settle(state, fold, events, src.id)


def attack(state: GameState, order: Attack, rng: Rng, fold: Fold) -> list[ev.AnyEvent]:
    step = move_step(state)
    place = order.place
    if place not in state.seas and place not in state.provinces:
        raise InvalidCommand(f"unknown province or sea '{place}'")
    if order.dice:
        random_draws.require_sandbox(state, "battle dice")
        require(set(order.dice) <= {order.empire, order.opponent}, "R7",
                "dice can be fixed only for the two sides of the battle, "
                f"{title(order.empire)} and {title(order.opponent)} (ruling R7)")
    sea = place in state.seas
    if sea:
        require(step.stage in ("naval", "sea"), "4.1.1",
                "sea battles are fought before any legion moves")
    # each refusal worded only when it refuses: every battle passes here
    if place in step.battles:
        refuse("9.0", f"a battle was already fought in {place_name(state, place)} this turn; only one battle "
                      "per place per turn")
    if units_at(state, place, order.empire) <= 0:
        refuse("4.2", f"{title(order.empire)} has no {'triremes' if sea else 'units'} in {place_name(state, place)}")
    if order.opponent == order.empire or units_at(state, place, order.opponent) <= 0:
        refuse("4.2", f"{title(order.opponent)} has no {'triremes' if sea else 'legions or fortress'} in "
                      f"{place_name(state, place)}")
    if battle.at_peace(state, order.empire, order.opponent):
        refuse("11.statue-of-zeus", f"{title(order.empire)} and {title(order.opponent)} are at peace this round")
    # the expansions: a land battle forbidden there (Athena, Halicarnassus), or a toll paid first (Solomon)
    events = guards.before_attack(state, place, order.empire, order.opponent)
    if guards.answers_at_sea(state, place, order.opponent):  # Ptolemy's holder fights or refuses (R212)
        return [guards.offer_sea_battle(order)]
    if not sea:  # then the Centaurs strike before the battle (atlas.chiron)
        events += atlantis.strike(fold(events, state) if events else state, place, order.empire, order.opponent)
    events += battle.fight(fold(events, state) if events else state, place, order.empire, order.opponent,
                           rng, order.dice)
    return _with_forced_losses(state, fold, events, place)


def answer_sea_battle(state: GameState, order: AnswerSeaBattle, rng: Rng, fold: Fold) -> list[ev.AnyEvent]:
    """Ptolemy's holder refuses the attack at sea, or fights it: the battle is rolled now (R212)."""
    answered = guards.answer_sea_battle(state, order)
    if not answered.fight:
        return [answered]
    c = move_step(state).challenge
    assert c is not None
    events: list[ev.AnyEvent] = [answered]
    events += battle.fight(fold(events, state), c.sea, c.attacker, c.defender, rng, c.dice)
    return _with_forced_losses(state, fold, events, c.sea)


def end_turn(state: GameState, order: EndMoveTurn) -> list[ev.AnyEvent]:
    battles = required_battles(state)
    if battles:  # each refusal worded only when it refuses: every turn ends here
        refuse("4.1.2", "a land battle must be fought in " + ", ".join(
            f"{place_name(state, p)} (against {' or '.join(_foes(state, p, order.empire))})" for p in battles))
    open_ = conquest.open_conquests(state)
    if open_:
        refuse("4.3", f"{title(order.empire)} is the Conqueror of " + ", ".join(place_name(state, p) for p in open_)
                      + ": pillage, occupy or hold first")
    return [ev.MoveTurnEnded(empire=order.empire)]


def _foes(state: GameState, place: str, empire: Empire) -> list[str]:
    """The opponents' names at a place, the Barbarians among them (ruling R66)."""
    return [title(e) for e in enemies_at(state, place, empire)] + (
        ["the Barbarians"] if place in barbarian_orders.required(state, empire) else [])


# --- options --------------------------------------------------------------------------------------------

def options(state: GameState, empire: Empire) -> list[Option]:
    out: list[Option] = []
    for who, kind in waiting(state):
        if who != empire:
            continue
        if kind == "peace":
            out += [Option(kind="peace", order=f"peace with {e}") for e in peace_partners(state, empire)]
            out += barbarian_orders.peace_option(state, empire)
            out.append(Option(kind="peace", order="no peace"))
        elif kind == "mover":
            step = move_step(state)
            out += [Option(kind="mover", order=f"mover {e}") for e in state.empires if e not in step.done]
        elif kind == "sea-battle":
            out += [Option(kind="sea-battle", order="refuse battle"), Option(kind="sea-battle", order="fight battle")]
        elif kind == "losses":
            out += _loss_options(state, empire)
        elif kind == "turn":
            out += _turn_options(state, empire)
    return out


def _turn_options(state: GameState, empire: Empire) -> list[Option]:
    step = move_step(state)
    g = geo(state.geo_board)
    out: list[Option] = []
    if step.stage == "naval":
        out += [Option(kind="move-trireme", order=f"move trireme {s} to {t}")
                for s in sorted(state.seas) if unmoved_triremes(state, empire, s) > 0
                for t in sorted(g.sea_neighbours(s))]
    if step.stage in ("naval", "sea"):
        out += [Option(kind="attack", order=f"attack {e} in {s}") for s in sorted(state.seas)
                if s not in step.battles and state.seas[s].get(empire, 0)
                for e in enemies_at(state, s, empire) if (s, e) not in step.refused]
    if step.stage != "battles":
        for p in sorted(state.provinces):
            centaurs = land_units.may_step(state, empire, p, "centaurs")
            myrmidons = land_units.may_step(state, empire, p, "myrmidons")
            plain = sum(land_units.plain(state, empire, p))
            if plain <= 0 and not centaurs and not myrmidons:
                continue  # no legion of its may move from there: where they could go is not asked
            targets = [t for t in legion_destinations(state, empire, p) if _may_enter(state, empire, t)]
            out += [Option(kind="move-legion", order=f"move legion {p} to {t}") for t in targets if plain > 0]
            out += [Option(kind="move-legion", order=f"move legion {p} to {t} with centaurs")
                    for t in targets if centaurs]
            out += [Option(kind="move-legion", order=f"move legion {p} to {t} with myrmidons")
                    for t in targets if myrmidons]
            if plain > 0:
                out += troia_crossings(state, empire, p, targets)
    out += [Option(kind="attack", order=f"attack {e} in {p}") for p in required_battles(state)
            for e in enemies_at(state, p, empire)]
    out += barbarian_orders.attack_options(state, empire) + barbarian_orders.move_options(state, empire)
    for pid in conquest.open_conquests(state):
        out += _conquest_options(state, empire, pid)
    out += [Option(kind="circe", order=f"place legion on {sid} in {pid}")
            for pid, sid in conquest.circe_spaces(state, empire)]
    if not required_battles(state) and not conquest.open_conquests(state):
        out.append(Option(kind="done", order="done"))
    return out


def _may_enter(state: GameState, empire: Empire, pid: ProvinceId) -> bool:
    owner = state.provinces[pid].controller
    if barbarians.at_peace(state, empire) and barbarians.units(state, pid):
        return False  # ruling R67
    return owner is None or not battle.at_peace(state, empire, owner)


def _loss_options(state: GameState, empire: Empire) -> list[Option]:
    out: list[Option] = []
    for x in move_step(state).losses:
        if x.empire != empire or x.place not in state.provinces:
            continue
        ps = state.provinces[x.place]
        legions = ps.legions.get(empire, 0)
        specials = [w for w, here in (("centaurs", atlantis.centaurs_in(state, empire, x.place)),
                                      ("myrmidons", troia.myrmidons_in(state, empire, x.place))) if here]
        for fortress in (False, True) if ps.fortress == empire else (False,):
            n = x.hits - int(fortress)
            if not 0 <= n <= legions:
                continue
            # with the Centaurs or Myrmidons there, their owner says whether they are among the legions lost
            for lost in _special_choices(specials, n, legions):
                units = ([f"{n} legion" + ("s" if n > 1 else "")] if n else []) + lost + (
                    ["fortress"] if fortress else [])
                out.append(Option(kind="losses", order=f"lose {' '.join(units)} in {x.place}"))
    return out


def _special_choices(specials: list[str], n: int, legions: int) -> list[list[str]]:
    """Which special units may be among n legions lost of legions: all of them when every one is lost."""
    if n == legions:
        return [specials]
    subsets: list[list[str]] = [[]]
    for w in specials:
        subsets += [s + [w] for s in subsets]
    return [s for s in subsets if len(s) <= n and legions - n >= len(specials) - len(s)]


def _conquest_options(state: GameState, empire: Empire, pid: ProvinceId) -> list[Option]:
    ps = state.provinces[pid]
    out: list[Option] = []
    for sid, kind in sorted(ps.buildings.items()):
        chosen = kind == "legendary" and tile_powers.pillage(state, empire, kind) is None
        takes = (" take coin", " take legendary") if chosen else ("",)
        out += [Option(kind="pillage", order=f"pillage {sid} in {pid}{t}") for t in takes]
    if ps.legions.get(empire, 0) and ps.buildings:
        out.append(Option(kind="occupy", template=f"occupy {{space}} in {pid}",
                          parts={"space": tuple(sorted(ps.buildings))}))
    if (ps.legions.get(empire, 0) and not conquest.is_capital_province(state, pid)
            and conquest.reaches_own(state, empire, pid)):
        out.append(Option(kind="occupy-marker", order=f"occupy marker in {pid}"))
        if conquest.sheba_problem(state, empire, pid) is None:
            out.append(Option(kind="occupy-marker", order=f"occupy marker in {pid} with sheba"))
    out.append(Option(kind="hold", order=f"hold {pid}"))
    return out


def troia_crossings(state: GameState, empire: Empire, pid: ProvinceId, reached: list[ProvinceId]) -> list[Option]:
    """Moves Odysseus' crossing of one sea opens (10.odysseus, ruling R233)."""
    tile = troia.odysseus_tile(state, empire)
    step = move_step(state)
    if tile is None or (not step.crossing and tile in state.empires[empire].used):
        return []
    g = geo(state.geo_board)
    own = conquest.trireme_seas(state, empire)
    seas = [step.crossing] if step.crossing else sorted(g.province(pid).seas)
    return [Option(kind="move-legion", order=f"move legion {pid} to {t} across {s}") for s in seas
            for t in sorted(state.provinces) if t != pid and t not in reached and _may_enter(state, empire, t)
            and g.is_adjoining(pid, t, own | {s})]
