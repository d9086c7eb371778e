"""Troia's War Bonus Cards (lc.5.3): played at a battle about to be fought (ruling R235), or Chariots."""

from __future__ import annotations

from mncore.core.errors import InvalidCommand, require
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.board import geo
from mncore.rulesets.empires.cities import CardInfo
from mncore.rulesets.empires.commands import PlayBonusCard
from mncore.rulesets.empires.display_names import title
from mncore.rulesets.empires.ids import Empire
from mncore.rulesets.empires.rules import battle, conquest
from mncore.rulesets.empires.rules.battle import enemies_at, place_name, units_at
from mncore.rulesets.empires.state import GameState, Loss, move_step

EFFECTS = ("destroy-fortress", "chariots", "destroy-unit", "sure-fives", "siege", "phalanx", "ram")
_SEA = ("ram",)  # the cards played at a sea battle; the others at a land battle


def opponents(state: GameState, empire: Empire, place: str) -> list[Empire]:
    """Whom the empire may face in a battle still to be fought at the place this turn (ruling R235):
    the active empire faces its enemies there; another empire, the active one if both have units."""
    step = move_step(state)
    active = step.active
    if state.phase != "move" or active is None or place in step.battles or step.losses:
        return []
    if place in state.seas and step.stage not in ("naval", "sea"):
        return []  # sea battles come before any legion moves (4.1.1)
    if empire == active:
        return enemies_at(state, place, active)
    return [active] if units_at(state, place, empire) and empire in enemies_at(state, place, active) else []


def effect(state: GameState, order: PlayBonusCard, used: CardInfo, section: str) -> list[ev.AnyEvent]:
    """The events of a War card played now: checks in the card's own words, then its effect."""
    emp = order.empire
    if used.effect == "chariots":
        step = move_step(state)
        require(state.phase == "move" and step.active == emp and step.stage != "battles", section,
                f"Chariots are played in {title(emp)}'s own Move and Battle turn, before its land battles "
                "(ruling R236)")
        require(not step.chariots, section, "Chariots are already harnessed this turn")
        return [ev.ChariotsHarnessed(empire=emp)]
    place = _place(state, order, used)
    facing = opponents(state, emp, place)
    require(bool(facing), section, f"{title(emp)} faces no battle still to be fought in {place_name(state, place)} "
            "this turn (ruling R235)")
    opp = order.target or (facing[0] if len(facing) == 1 else None)
    if opp is None:
        raise InvalidCommand(f"name the opponent: 'on EMPIRE' ({', '.join(facing)})")
    require(opp in facing, section, f"{title(emp)} faces no battle against {title(opp)} in {place_name(state, place)}")
    match used.effect:
        case "siege":
            require(siege_triremes(state, emp, place) > 0, section,
                    f"{title(emp)} has no trireme in a sea next to {place_name(state, place)}: Siege Vessels "
                    "would add no die (ruling R235)")
        case "destroy-fortress":
            require(move_step(state).active == emp, section, "Catapults are played by the Attacker, the active empire")
            require(state.provinces[place].fortress == opp, section,
                    f"{title(opp)} has no fortress in {place_name(state, place)}")
            return [ev.UnitsLost(empire=opp, place=place, fortress=True)]
        case "destroy-unit":
            forced = battle.forced_losses(state, Loss(empire=opp, place=place, hits=1))
            return [forced] if forced is not None else [ev.LossImposed(empire=emp, owner=opp, place=place)]
        case "ram":
            return [ev.TriremeSunk(empire=emp, owner=opp, sea=place)]
    return [ev.BattleCardReady(empire=emp, played=used.id, place=place)]


def _place(state: GameState, order: PlayBonusCard, used: CardInfo) -> str:
    sea = used.effect in _SEA
    if order.place not in (state.seas if sea else state.provinces):
        raise InvalidCommand(f"name the {'sea' if sea else 'province'} of the battle: 'in PLACE' "
                             f"({order.place or 'none given'})")
    return order.place


def targets(state: GameState, empire: Empire, info: CardInfo) -> list[str]:
    """The order endings of a War card playable now."""
    if info.effect == "chariots":
        step = move_step(state)
        ok = state.phase == "move" and step.active == empire and step.stage != "battles" and not step.chariots
        return [""] if ok else []
    places = state.seas if info.effect in _SEA else state.provinces
    out: list[str] = []
    for place in sorted(places):
        for opp in opponents(state, empire, place):
            if info.effect == "destroy-fortress" and (move_step(state).active != empire
                                                      or state.provinces[place].fortress != opp):
                continue
            if info.effect == "siege" and not siege_triremes(state, empire, place):
                continue
            out.append(f" in {place} on {opp}")
    return out


def siege_triremes(state: GameState, empire: Empire, place: str) -> int:
    """The empire's triremes in the seas next to the province: Siege Vessels' dice (lc.5.3.siege-vessels)."""
    return sum(state.seas.get(s, {}).get(empire, 0) for s in geo(state.geo_board).province(place).seas)


# --- Battle Victory markers (lc.5.2.3, ruling R234) ---------------------------------------------------------

def battle_wins(state: GameState) -> list[ev.AnyEvent]:
    """The battles whose losses are all taken and one side alone has units left: a victory each."""
    if state.cities is None:
        return []
    pending = {x.place for x in move_step(state).losses}
    out: list[ev.AnyEvent] = []
    for f in state.cities.fights:
        if f.place in pending:
            continue
        left = {e: units_at(state, f.place, e) for e in (f.attacker, f.defender)}
        for winner, loser in ((f.attacker, f.defender), (f.defender, f.attacker)):
            if left[winner] and not left[loser]:
                out.append(ev.BattleWon(empire=winner, place=f.place, over=loser))
    return out


def occupations_after(state: GameState, events: list[ev.AnyEvent]) -> list[ev.AnyEvent]:
    """The occupations a War card's destroyed units end: those too few legions are left to hold (R43, R235).
    No battle was fought there, so units of both sides left there end nothing by themselves (4.3)."""
    places = sorted({e.place for e in events if isinstance(e, ev.UnitsLost) and e.place in state.provinces})
    return [x for p in places for x in conquest.settle_occupations(state, p, battle=False)]
