"""The Military phase (6): in the Military Leader's order, naval movement and battles, then ground
movement, obligatory battles, and the invader's choice: sack, occupy or convert."""

from __future__ import annotations

from collections import deque
from itertools import combinations
from typing import cast

from mncore.core.dice import Rng
from mncore.core.errors import InvalidCommand, require
from mncore.core.protocol import Option, Pending
from mncore.rulesets.classic import commands as cm
from mncore.rulesets.classic import events as ev
from mncore.rulesets.classic.components import game_data
from mncore.rulesets.classic.ids import Aftermath, Mover
from mncore.rulesets.classic.rules import powers
from mncore.rulesets.classic.rules.commerce import first_claims
from mncore.rulesets.classic.rules.common import at_war, name, require_turn
from mncore.rulesets.classic.rules.fold import Fold
from mncore.rulesets.classic.state import Built, Land, State, Units

LOSS_ORDER = ("legion", "fortress", "creature")  # the first choice listed, and the default (ruling C9)


def begin(state: State, rng: Rng) -> list[ev.AnyEvent]:
    """6.10: units in a province at war fight again, one round, as the phase begins (ruling C13)."""
    out: list[ev.AnyEvent] = []
    for pid in sorted(state.lands):
        land = state.lands[pid]
        if at_war(land):
            present = land.present()
            attacker = next((c for c in present if c != land.influence), present[0])
            defender = next(c for c in present if c != attacker)
            out.append(battle(state, pid, attacker, defender, rng))
    return out


def _seat(state: State, civ: str) -> int:
    order = (*state.civs, *state.neutrals)
    return order.index(civ) if civ in order else len(order)


def battle(state: State, pid: str, attacker: str, defender: str, rng: Rng) -> ev.GroundBattle:
    """One round (6.6-6.9): a die per legion, an automatic 6 per creature or fortress; one unit lost
    for each 5 points of the other's total, chosen by its owner where he has a choice (ruling C9);
    powers add sixes (C16)."""
    land = state.land(pid)
    data = game_data()
    rolls: dict[str, tuple[int, ...]] = {}
    sixes: dict[str, int] = {}
    totals: dict[str, int] = {}
    by_power: dict[str, int] = {}
    for civ in (attacker, defender):
        u = land.units.get(civ, Units())
        rolls[civ] = tuple(rng.roll(state.the_board().dice) for _ in range(u.legion))
        extra = powers.auto_sixes(state, civ)
        if extra:
            by_power[civ] = extra
        sixes[civ] = u.creature + u.fortress + extra
        totals[civ] = sum(rolls[civ]) + data.auto_six * sixes[civ]
    losses: dict[str, Units] = {}
    owed: dict[str, int] = {}
    for civ, other in ((attacker, defender), (defender, attacker)):
        hits = totals[other] // data.hit_every
        units = land.units.get(civ, Units())
        forced = forced_loss(units, hits) if civ in state.civs else loss_choices(units, hits)[0]
        if forced is None:
            owed[civ] = hits
        else:
            losses[civ] = forced
    return ev.GroundBattle(province=pid, attacker=attacker, defender=defender, rolls=rolls,
                           sixes=sixes, losses=losses, by_power=by_power, owed=owed)


def forced_loss(units: Units, hits: int) -> Units | None:
    """The units lost when their owner has no choice (6.9): none, all, or of the one kind he has there."""
    if hits >= units.ground():
        return Units(legion=units.legion, fortress=units.fortress, creature=units.creature)
    kinds = [k for k in LOSS_ORDER if getattr(units, k)]
    if hits == 0 or len(kinds) == 1:
        return Units(**{kinds[0]: hits}) if hits else Units()
    return None


def loss_choices(units: Units, hits: int) -> list[Units]:
    """Every way to lose hits (at most all) of these units, legions then fortresses then creatures first:
    a neutral's losses, and the default of an overdue choice (ruling C9)."""
    hits = min(hits, units.ground())
    return [Units(legion=lg, fortress=ft, creature=hits - lg - ft)
            for lg in range(min(hits, units.legion), -1, -1)
            for ft in range(min(hits - lg, units.fortress), -1, -1)
            if hits - lg - ft <= units.creature]


def lose(state: State, cmd: cm.ChooseLosses, rng: Rng, fold: Fold) -> list[ev.AnyEvent]:
    """6.9: the owner names the units lost; a march held for them then fights on (ruling C9)."""
    owed = next((o for o in state.owed if (o.civ, o.province) == (cmd.civ, cmd.province)), None)
    require(owed is not None, "6.9", f"{name(state, cmd.civ)} has no losses to choose in {name(state, cmd.province)}")
    assert owed is not None
    chosen = Units(legion=cmd.legion, fortress=cmd.fortress, creature=cmd.creature)
    if min(cmd.legion, cmd.fortress, cmd.creature) < 0:
        raise InvalidCommand("a number of units lost is never negative")
    require(chosen.ground() == owed.hits, "6.9", f"{name(state, cmd.civ)} must lose exactly {owed.hits} "
                                                 f"unit(s) in {name(state, cmd.province)}, not {chosen.ground()}")
    have = state.land(cmd.province).units.get(cmd.civ, Units())
    for kind in LOSS_ORDER:
        require(getattr(chosen, kind) <= getattr(have, kind), "6.9",
                f"{name(state, cmd.civ)} has only {getattr(have, kind)} {kind}(s) in {name(state, cmd.province)}")
    taken = ev.LossesChosen(civ=cmd.civ, province=cmd.province, lost=chosen)
    after = fold([taken], state)
    held = state.invasion
    if after.owed or held is None:
        return [taken]
    return [taken, *_fight(after, held.civ, held.province, held.then, held.sack, rng, fold,
                           held.fought)]


def require_settled(state: State, order: cm.AnyOrder) -> None:
    """While a battle's losses wait for their owners (6.9, ruling C9), or an occupier's claims for him
    (6.11 b, ruling C7), nothing else is played."""
    if state.owed and not isinstance(order, cm.ChooseLosses):
        o = state.owed[0]
        require(False, "6.9", f"{name(state, o.civ)} first chooses the {o.hits} unit(s) it loses in "
                              f"{name(state, o.province)}: 'lose N legion|fortress|creature ... in {o.province}'")
    p = state.claiming
    if p and not state.owed and not isinstance(order, cm.Claim):
        require(False, "6.11", f"{name(state, state.land(p).occupier)} first names the buildings its units "
                               f"claim in {name(state, p)}: 'claim BUILDING ... in {p}'")


def sail(state: State, cmd: cm.Sail) -> list[ev.AnyEvent]:
    require_turn(state, cmd.civ, "military", "6.1")
    board = state.the_board()
    require(not state.turns.ground, "6.1", "all naval movement comes before ground movement")
    if not board.is_sea(cmd.sea):
        raise InvalidCommand(f"'{cmd.sea}' is not a sea")
    require(cmd.count >= 1, "6.2", "move at least one trireme")
    if board.is_sea(cmd.source):
        have = state.seas.get(cmd.source, {}).get(cmd.civ, 0) - _arrived_at_sea(state, cmd.source)
        require(board.water().linked(cmd.source, cmd.sea), "6.2",
                f"{name(state, cmd.sea)} is not adjacent to {name(state, cmd.source)}")
    else:
        if not board.is_province(cmd.source):
            raise InvalidCommand(f"'{cmd.source}' is neither a province nor a sea")
        have = state.land(cmd.source).units.get(cmd.civ, Units()).trireme
        require(cmd.sea in board.prov(cmd.source).seas, "6.2",
                f"{name(state, cmd.source)} does not touch {name(state, cmd.sea)}")
    require(have >= cmd.count, "6.2", f"{name(state, cmd.civ)} has {max(have, 0)} trireme(s) in "
                                      f"{name(state, cmd.source)} that may still move")
    return [ev.TriremesSailed(civ=cmd.civ, count=cmd.count, source=cmd.source, sea=cmd.sea)]


def _arrived_at_sea(state: State, sea: str) -> int:
    return state.turns.arrived.get(sea, Units()).trireme


def attack(state: State, cmd: cm.Attack, rng: Rng) -> list[ev.AnyEvent]:
    """6.3: an optional naval battle against another's triremes in a sea where the attacker has some."""
    require_turn(state, cmd.civ, "military", "6.1")
    require(not state.turns.ground, "6.3", "naval battles come before any legion moves")
    here = state.seas.get(cmd.sea, {})
    require(here.get(cmd.civ, 0) > 0, "6.6", f"{name(state, cmd.civ)} has no trireme in "
                                             f"{name(state, cmd.sea)}")
    require(cmd.target != cmd.civ and here.get(cmd.target, 0) > 0, "6.6",
            f"{name(state, cmd.target)} has no trireme at sea in {name(state, cmd.sea)}")
    return [_naval(state, cmd.sea, cmd.civ, cmd.target, rng)]


def _naval(state: State, sea: str, attacker: str, defender: str, rng: Rng) -> ev.NavalBattle:
    """One round at sea (6.6, 6.9): a die per trireme; one trireme lost for each 5 points."""
    here = state.seas.get(sea, {})
    dice = state.the_board().dice
    rolls = {c: tuple(rng.roll(dice) for _ in range(here[c])) for c in (attacker, defender)}
    every = game_data().hit_every
    losses = {attacker: min(here[attacker], sum(rolls[defender]) // every),
              defender: min(here[defender], sum(rolls[attacker]) // every)}
    return ev.NavalBattle(sea=sea, attacker=attacker, defender=defender, rolls=rolls, losses=losses)


def sea_route(state: State, civ: str, source: str, dest: str) -> tuple[str, ...] | None:
    """The shortest chain of seas holding civ's triremes from source's coast to dest's (6.4)."""
    board = state.the_board()
    mine = {s for s, here in state.seas.items() if here.get(civ, 0) > 0}
    start = [s for s in board.prov(source).seas if s in mine]
    goal = set(board.prov(dest).seas)
    seen: dict[str, tuple[str, ...]] = {s: (s,) for s in start}
    todo = deque(start)
    while todo:
        sea = todo.popleft()
        if sea in goal:
            return seen[sea]
        for nxt in sorted(board.water().of(sea)):
            if nxt in mine and nxt not in seen:
                seen[nxt] = (*seen[sea], nxt)
                todo.append(nxt)
    return None


def march(state: State, cmd: cm.March, rng: Rng, fold: Fold) -> list[ev.AnyEvent]:
    require_turn(state, cmd.civ, "military", "6.1")
    board = state.the_board()
    for pid in (cmd.source, cmd.dest):
        if not board.is_province(pid):
            raise InvalidCommand(f"'{pid}' is not a province")
    require(cmd.count >= 1, "6.4", "move at least one unit")
    have = getattr(state.land(cmd.source).units.get(cmd.civ, Units()), cmd.unit)
    moved = getattr(state.turns.arrived.get(cmd.source, Units()), cmd.unit)
    require(have - moved >= cmd.count, "C8", f"{name(state, cmd.civ)} has {max(have - moved, 0)} "
                                             f"{cmd.unit}(s) in {name(state, cmd.source)} that may still move")
    via: tuple[str, ...] = ()
    if not board.land().linked(cmd.source, cmd.dest):
        route = sea_route(state, cmd.civ, cmd.source, cmd.dest)
        require(route is not None, "6.4", f"{name(state, cmd.dest)} is neither adjacent to "
                f"{name(state, cmd.source)} nor reached by a chain of {name(state, cmd.civ)}'s triremes")
        assert route is not None
        via = route
    _require_aftermath(state, cmd)
    greek = _blockader(state, cmd.civ, cmd.dest, via)
    if greek:
        return [ev.BlockadeDeclared(greek=greek, civ=cmd.civ, unit=cmd.unit, count=cmd.count,
                                    source=cmd.source, dest=cmd.dest, via=via, then=cmd.then, sack=cmd.sack)]
    return _go(state, cmd, via, rng, fold)


def _go(state: State, cmd: cm.March, via: tuple[str, ...], rng: Rng, fold: Fold) -> list[ev.AnyEvent]:
    marched = ev.Marched(civ=cmd.civ, unit=cmd.unit, count=cmd.count, source=cmd.source, dest=cmd.dest,
                         via=via)
    return [marched, *_fight(fold([marched], state), cmd.civ, cmd.dest, cmd.then, cmd.sack, rng, fold)]


def _blockader(state: State, civ: str, dest: str, via: tuple[str, ...]) -> str:
    """6.13: the player whose influence blockades dest, if he has a trireme in a sea of the chain."""
    holder = state.land(dest).influence
    if not via or holder == civ or holder not in state.civs or not game_data().civ_of(holder).blockade:
        return ""
    if powers.ignores_blockade(state, civ):  # IgnoreBlockade (C16)
        return ""
    return holder if any(state.seas.get(s, {}).get(holder, 0) for s in via) else ""


def blockade(state: State, cmd: cm.Blockade | cm.LetPass, rng: Rng, fold: Fold) -> list[ev.AnyEvent]:
    """6.13: the Greek player attacks the transporting triremes in one sea of the chain, or lets the
    march pass; a chain broken sends the units back to their start, free to move again."""
    b = state.blockade
    require(b is not None, "6.13", "no invasion waits at a blockade")
    assert b is not None
    require(cmd.civ == b.greek, "6.13", f"{name(state, b.greek)} answers the blockade")
    march = cm.March(civ=b.civ, unit=cast(Mover, b.unit), count=b.count, source=b.source, dest=b.dest,
                     then=cast(Aftermath, b.then), sack=b.sack)
    if isinstance(cmd, cm.LetPass):
        passed = ev.BlockadeEnded(broken=True)
        return [passed, *_go(fold([passed], state), march, b.via, rng, fold)]
    require(cmd.sea in b.via, "6.13", f"{name(state, cmd.sea)} is not a sea of the invasion's chain: "
                                      + ", ".join(name(state, s) for s in b.via))
    here = state.seas.get(cmd.sea, {})
    require(here.get(cmd.civ, 0) > 0, "6.13", f"{name(state, cmd.civ)} has no trireme in {name(state, cmd.sea)}")
    fought = _naval(state, cmd.sea, cmd.civ, b.civ, rng)
    after = fold([fought], state)
    route = sea_route(after, b.civ, b.source, b.dest)
    ended = ev.BlockadeEnded(broken=route is not None)
    if route is None:
        return [fought, ended]
    return [fought, ended, *_go(fold([ended], after), march, route, rng, fold)]


def _require_aftermath(state: State, cmd: cm.March) -> None:
    """6.11, 6.12: what the invader means to do if left alone, checked before the dice."""
    land = state.land(cmd.dest)
    if not cmd.then:
        return
    require(bool(land.influence) and land.influence != cmd.civ, "6.11",
            f"{name(state, cmd.dest)} is not under another's influence: nothing to sack, occupy or convert")
    if cmd.then == "sack":
        require(land.count(cmd.sack) > 0, "6.11", f"{name(state, cmd.dest)} has no {cmd.sack or 'such building'}")
    if cmd.then == "convert":
        require(state.the_board().capital_of(land.influence) != cmd.dest, "6.12",
                f"the influence marker in {name(state, land.influence)}'s capital is never converted")


def _fight(state: State, civ: str, dest: str, then: Aftermath, sack: str, rng: Rng, fold: Fold,
           fought: tuple[str, ...] = ()) -> list[ev.AnyEvent]:
    """6.5: battles with every other civilisation's ground units there, then the invader's choice; a
    battle whose losses wait for their owner holds the rest until they are chosen (ruling C9)."""
    out: list[ev.AnyEvent] = []
    for enemy in sorted((c for c in state.land(dest).present() if c != civ and c not in fought),
                        key=lambda c: _seat(state, c)):
        if state.land(dest).units.get(civ, Units()).ground() == 0:
            break
        battled = battle(state, dest, civ, enemy, rng)
        out.append(battled)
        state = fold([battled], state)  # the next battle is fought with what is left
        fought = (*fought, enemy)
        if battled.owed:
            return [*out, ev.InvasionHeld(civ=civ, province=dest, fought=fought, then=then, sack=sack)]
    land = state.land(dest)
    if land.present() == [civ] and then:
        out += _aftermath(land, civ, dest, then, sack)
    return out


def _aftermath(land: Land, civ: str, dest: str, then: Aftermath, sack: str) -> list[ev.AnyEvent]:
    if then == "sack":
        gone = next(b for b in land.buildings if b.kind == sack)
        return [ev.Sacked(civ=civ, province=dest, building=gone.kind, resource=gone.resource)]
    if then == "occupy":  # 6.11 b: a unit on each building, all of them if he can; else he names them (C7)
        if land.units.get(civ, Units()).movers() >= len(land.buildings):
            return [ev.Settled(civ=civ, province=dest, how=then, claims=tuple(first_claims(land)))]
        return [ev.Settled(civ=civ, province=dest, how=then, due=True)]
    return [ev.Settled(civ=civ, province=dest, how=then)]


def claim(state: State, cmd: cm.Claim) -> list[ev.AnyEvent]:
    """6.11 b: the occupier places a single legion or creature on each building he claims, as he
    occupies the province or anew in his own Military turn (ruling C7)."""
    if not state.the_board().is_province(cmd.province):
        raise InvalidCommand(f"'{cmd.province}' is not a province")
    land = state.land(cmd.province)
    where = name(state, cmd.province)
    require(land.occupier == cmd.civ, "6.11", f"{name(state, cmd.civ)} does not occupy {where}")
    if state.claiming != cmd.province:
        require_turn(state, cmd.civ, "military", "6.11")
    units = land.units.get(cmd.civ, Units()).movers()
    require(len(cmd.claims) <= units, "6.11", f"{name(state, cmd.civ)} has {units} legion(s) and creature(s) in "
                                              f"{where}: a single one on each building claimed, not {len(cmd.claims)}")
    rest = list(land.buildings)
    for b in cmd.claims:
        what = building_words(b)
        require(b in land.buildings, "6.11", f"{where} has no {what}")
        require(b in rest, "6.11", f"a single unit is placed on each building: the {what} in {where} is named twice")
        rest.remove(b)
    return [ev.BuildingsClaimed(civ=cmd.civ, province=cmd.province, claims=cmd.claims)]


def building_words(b: Built) -> str:
    """A building as the order grammar names it: city, temple, market, caravan RESOURCE."""
    return f"caravan {b.resource}" if b.kind == "caravan" else b.kind


def claim_choices(land: Land, units: int) -> list[tuple[Built, ...]]:
    """Every set of buildings as many units can claim, the first order (ruling C7) first."""
    first = first_claims(land)
    size = min(units, len(first))
    out: list[tuple[Built, ...]] = [tuple(first[:size])]
    for combo in combinations(first, size):
        if sorted(combo, key=_key) not in [sorted(c, key=_key) for c in out]:
            out.append(combo)
    return out


def _key(b: Built) -> tuple[str, str]:
    return b.kind, b.resource


def end_turn(state: State, cmd: cm.EndTurn) -> list[ev.AnyEvent]:
    require_turn(state, cmd.civ, "military", "6.1")
    return [ev.TurnEnded(civ=cmd.civ)]


def done(state: State) -> bool:
    return state.turns.index >= len(state.turns.order)


def pending(state: State) -> list[Pending]:
    if state.owed:
        return [Pending(empire=o.civ, kind="losses", text=f"choose the {o.hits} unit(s) lost in "
                                                          f"{name(state, o.province)}") for o in state.owed]
    if state.claiming:
        land = state.land(state.claiming)
        return [Pending(empire=land.occupier, kind="claim",
                        text=f"name the buildings your {land.units.get(land.occupier, Units()).movers()} unit(s) "
                             f"claim in {name(state, state.claiming)} (claim BUILDING ... in {state.claiming})")]
    b = state.blockade
    if b is not None:
        return [Pending(empire=b.greek, kind="blockade",
                        text=f"attack {name(state, b.civ)}'s triremes carrying its invasion of "
                             f"{name(state, b.dest)}, or let it pass")]
    due = state.turns.current()
    return [Pending(empire=due, kind="military", text="move and fight, then done")] if due else []


def options(state: State, civ: str) -> list[Option]:
    if state.owed:
        return [Option(kind="losses", order=f"lose {_units_words(u)} in {o.province}")
                for o in state.owed if o.civ == civ
                for u in loss_choices(state.land(o.province).units.get(civ, Units()), o.hits)]
    if state.claiming:
        land = state.land(state.claiming)
        return [] if land.occupier != civ else _claim_options(state, civ, state.claiming)
    b = state.blockade
    if b is not None:
        if civ != b.greek:
            return []
        return [Option(kind="blockade", order="let pass")] + [
            Option(kind="blockade", order=f"blockade {s}") for s in b.via if state.seas.get(s, {}).get(civ, 0)]
    if state.turns.current() != civ:
        return []
    out = [Option(kind="done", order="done")]
    board = state.the_board()
    if not state.turns.ground:
        for pid, land in sorted(state.lands.items()):
            if land.units.get(civ, Units()).trireme:
                out += [Option(kind="sail", order=f"sail 1 from {pid} to {s}") for s in board.prov(pid).seas]
        for sea, here in sorted(state.seas.items()):
            if here.get(civ, 0) > _arrived_at_sea(state, sea):
                out += [Option(kind="sail", order=f"sail 1 from {sea} to {s}")
                        for s in sorted(board.water().of(sea))]
                out += [Option(kind="attack", order=f"attack {c} in {sea}") for c in sorted(here)
                        if c != civ and here[c] > 0 and here.get(civ, 0) > 0]
    for pid, land in sorted(state.lands.items()):  # more units there than claims named: claim anew (C7)
        if land.occupier == civ and land.claims and len(land.claims) < min(len(land.buildings),
                                                                            land.units.get(civ, Units()).movers()):
            out += _claim_options(state, civ, pid)
    for pid, land in sorted(state.lands.items()):
        u = land.units.get(civ, Units())
        moved = state.turns.arrived.get(pid, Units())
        for unit in ("legion", "creature"):
            if getattr(u, unit) - getattr(moved, unit) > 0:
                out += [Option(kind="march", order=f"march 1 {unit} from {pid} to {dest}{_then(state, civ, dest)}")
                        for dest in _destinations(state, civ, pid)]
    return out


def _destinations(state: State, civ: str, pid: str) -> list[str]:
    board = state.the_board()
    land = sorted(board.land().of(pid))
    sea = [p.id for p in board.province if p.id != pid and p.id not in land
           and sea_route(state, civ, pid, p.id) is not None]
    return land + sea


def _then(state: State, civ: str, dest: str) -> str:
    land = state.land(dest)
    if not land.influence or land.influence == civ:
        return ""
    if state.the_board().capital_of(land.influence) == dest:
        return " then occupy"
    return " then convert"


def _units_words(u: Units) -> str:
    return " ".join(f"{getattr(u, k)} {k}" for k in LOSS_ORDER if getattr(u, k))


def _claim_options(state: State, civ: str, pid: str) -> list[Option]:
    land = state.land(pid)
    return [Option(kind="claim", order=f"claim {' '.join(building_words(b) for b in c) or 'nothing'} in {pid}")
            for c in claim_choices(land, land.units.get(civ, Units()).movers())]
