"""Objective tiles (lc.3.1): each fulfilled by the first empire to meet it, checked after every order."""

from __future__ import annotations

from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.board import geo
from mncore.rulesets.empires.cities import ObjectiveInfo, objective_info
from mncore.rulesets.empires.display_names import title
from mncore.rulesets.empires.ids import COIN, EMPIRES, Empire, commodity_of
from mncore.rulesets.empires.projections import held_buildings
from mncore.rulesets.empires.state import GameState


def open_objectives(state: GameState) -> list[ObjectiveInfo]:
    """The Objective tiles still face up."""
    if state.cities is None:
        return []
    return [objective_info(o)[1] for o in state.cities.objectives if o not in state.cities.fulfilled]


def _legendary_province(state: GameState, pid: str) -> bool:
    return any(s.kind == "legendary" for s in geo(state.geo_board).province(pid).spaces)


def by_event(state: GameState, objective: ObjectiveInfo, event: ev.AnyEvent) -> tuple[Empire, str] | None:
    """Who an event makes meet an objective that asks for a deed, with the deed in words."""
    match event:
        case ev.BuildingBuilt(empire=emp, province=pid, kind="temple") if objective.test == "legendary-temple":
            if _legendary_province(state, pid):
                return emp, f"built a temple in {geo(state.geo_board).province(pid).name}"
        case ev.ControlConverted(empire=emp, province=pid, previous=prev, replaced=True) \
                if objective.test == "conversion":
            return emp, f"converted {title(prev)}'s {geo(state.geo_board).province(pid).name}"
    return None


def by_state(state: GameState, objective: ObjectiveInfo) -> list[tuple[Empire, str]]:
    """Who meets an objective that asks for a standing on the board, in the fixed empire order."""
    empires = [e for e in EMPIRES if e in state.empires]
    match objective.test:
        case "titles":
            held = {e: [t for t, h in state.titles.items() if h == e] for e in empires}
            return [(e, f"holds {' and '.join(title(t) for t in sorted(held[e]))} Leader titles")
                    for e in empires if len(held[e]) >= objective.count]
        case "plenty" if state.phase == "build":
            return [(e, why) for e in empires if (why := _plenty(state, e, objective.count))]
        case "buildings":
            return [(e, f"controls {n} buildings") for e in empires
                    if (n := len(held_buildings(state, e))) >= objective.count]
        case "garrisons":
            return [(e, f"holds {n} provinces, each with one of its military units") for e in empires
                    if (n := _garrisons(state, e)) >= objective.count]
        case "seas":
            return [(e, f"occupies {n} seas alone with its triremes") for e in empires
                    if (n := sum(1 for here in state.seas.values() if set(here) == {e})) >= objective.count]
        case "victories" if state.cities is not None:
            return [(e, f"has won {n} battles") for e in empires
                    if (n := state.cities.victories.get(e, 0)) >= objective.count]
        case "markets-temples":
            return [(e, f"controls {n} markets and temples") for e in empires
                    if (n := sum(1 for *_, k in held_buildings(state, e) if k in ("market", "temple")))
                    >= objective.count]
    return []


def _garrisons(state: GameState, empire: Empire) -> int:
    """The empire's provinces holding one of its legions (the Myrmidons are one) or its fortress (lc.5.2.1)."""
    return sum(1 for ps in state.provinces.values() if ps.controller == empire
               and (ps.legions.get(empire, 0) > 0 or ps.fortress == empire))


# lc.7.2.1: "8 different Commodities OR 9 Coins"
PLENTY_COINS = 9


def _plenty(state: GameState, empire: Empire, kinds: int) -> str:
    """Why the empire holds plenty in the Build phase (lc.7.2.1), or ''. Whatever it holds counts, however
    it came by it, kept from before the phase included (ruling R218)."""
    held = state.empires[empire].resources
    types = {commodity_of(t) for t in held if t != COIN}
    why = (f"holds {len(types)} different commodities" if len(types) >= kinds else
           f"holds {held[COIN]} coins" if held.get(COIN, 0) >= PLENTY_COINS else "")
    return f"{why}; what it held before the phase counts, ruling R218" if why else ""


def check(after: GameState, events: list[ev.AnyEvent], giver: Empire) -> list[ev.AnyEvent]:
    """The objectives an order's events fulfil: a deed by the first event that does it, a standing
    by the state they lead to; when several empires meet one at once, the order's giver, then the
    fixed empire order (ruling R202)."""
    out: list[ev.AnyEvent] = []
    for objective in open_objectives(after):
        deeds = [found for e in events if (found := by_event(after, objective, e)) is not None]
        standing = sorted(by_state(after, objective), key=lambda m: m[0] != giver)
        met = deeds or standing
        if met:
            who, detail = met[0]
            deck = objective_info(objective.id)[0].id
            out.append(ev.ObjectiveFulfilled(empire=who, objective=objective.id, detail=detail,
                                             draws=bool(after.cities and after.cities.decks.get(deck))))
    return out
