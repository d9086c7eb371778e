"""The expansions' protections: Halicarnassus and Athena (no land battle), Solomon's toll, Moses."""

from __future__ import annotations

from mncore.core.errors import refuse, require
from mncore.core.protocol import Option, Pending
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires import tile_powers
from mncore.rulesets.empires.board import geo
from mncore.rulesets.empires.commands import AnswerSeaBattle, Attack, LaunchFreeTrireme, PlaceHalicarnassus
from mncore.rulesets.empires.display_names import title
from mncore.rulesets.empires.game_data import Tile, load_ruleset, tile
from mncore.rulesets.empires.ids import Empire, ProvinceId
from mncore.rulesets.empires.rules.battle import place_name
from mncore.rulesets.empires.state import GameState, move_step

SHELTER_SECTION = "11.halicarnassus"
PTOLEMY = "10.ptolemy"
ATHENA_SECTION = "lc.6.3.athena"


def _shelter_tiles() -> str:
    return tile_powers.names_at("unattackable")


def sheltered_forever(state: GameState, pid: ProvinceId) -> bool:
    """The province where the Halicarnassus miniature stands (11.halicarnassus)."""
    return state.cities is not None and state.cities.halicarnassus == pid


def shielded(state: GameState, pid: ProvinceId) -> bool:
    """The province a card protects this round (Athena)."""
    return state.cities is not None and any(s.province == pid and s.round == state.round
                                            for s in state.cities.shields)


def no_land_battle(state: GameState, pid: ProvinceId) -> tuple[str, str] | None:
    """Why no land battle may be fought in the province, as (section, reason); None if one may."""
    if sheltered_forever(state, pid):
        return SHELTER_SECTION, (f"{place_name(state, pid)} may not be attacked: {_shelter_tiles()} stands "
                                 "there (ruling R205)")
    if shielded(state, pid):
        return ATHENA_SECTION, f"Athena protects {place_name(state, pid)} from land battles this round (R205)"
    return None


def tolled(state: GameState, pid: ProvinceId, attacker: Empire, defender: Empire) -> bool:
    """Attacking the defender's units in his own province costs a coin (10.solomon, ruling R206)."""
    ps = state.provinces.get(pid)
    return (ps is not None and ps.controller == defender and attacker != defender
            and tile_powers.has_at(state, defender, "toll"))


def exempt(state: GameState, pid: ProvinceId, attacker: Empire, defender: Empire) -> bool:
    """The active empire need not fight here (4.1.2): no battle may be fought, or it would cost a toll."""
    return no_land_battle(state, pid) is not None or tolled(state, pid, attacker, defender)


def before_attack(state: GameState, place: str, attacker: Empire, defender: Empire) -> list[ev.AnyEvent]:
    """Refuse a battle the expansions forbid; Solomon's holder is paid his coin first."""
    if place not in state.provinces:
        if (place, defender) in move_step(state).refused:  # worded only when it refuses: every sea attack asks
            refuse(PTOLEMY, f"{title(defender)} refused {title(attacker)}'s attack in {place_name(state, place)} "
                            f"this turn ({tile_powers.names_at('no_sea_battle')}, ruling R212)")
        return []
    problem = no_land_battle(state, place)
    require(problem is None, *(problem or ("", "")))
    if not tolled(state, place, attacker, defender):
        return []
    section = "10.solomon"
    require(state.empires[attacker].resources.get("coin", 0) >= 1, section,
            f"attacking {title(defender)}'s units in its province {place_name(state, place)} costs a coin "
            f"paid to {title(defender)} ({tile_powers.names_at('toll')}); {title(attacker)} has none")
    return [ev.TollPaid(empire=attacker, to=defender, province=place)]


# --- Ptolemy: "Player may refuse any Sea Battle" (10.ptolemy, ruling R212) ------------------------------

def answers_at_sea(state: GameState, place: str, defender: Empire) -> bool:
    """An attack at sea on the defender waits for his answer: he holds Ptolemy (10.ptolemy)."""
    return place in state.seas and tile_powers.has_at(state, defender, "no_sea_battle")


def offer_sea_battle(order: Attack) -> ev.SeaBattleOffered:
    """The attack at sea, no dice yet: Ptolemy's holder fights it or refuses it (ruling R212)."""
    return ev.SeaBattleOffered(empire=order.empire, opponent=order.opponent, sea=order.place, dice=order.dice)


def answer_sea_battle(state: GameState, order: AnswerSeaBattle) -> ev.SeaBattleAnswered:
    """Ptolemy's holder answers the attack on him at sea (10.ptolemy, ruling R212)."""
    c = move_step(state).challenge
    require(c is not None and c.defender == order.empire, PTOLEMY,
            f"{title(order.empire)} has no attack at sea to fight or refuse")
    assert c is not None
    return ev.SeaBattleAnswered(empire=order.empire, attacker=c.attacker, sea=c.sea, fight=order.fight)


def no_conquest(state: GameState, pid: ProvinceId) -> bool:
    """No pillage, occupation or conversion in the province (Athena, Halicarnassus)."""
    return sheltered_forever(state, pid) or shielded(state, pid)


def sanctuary(state: GameState, pid: ProvinceId) -> tuple[str, str] | None:
    """Why the province may be neither pillaged nor converted (Moses), as (section, reason)."""
    ps = state.provinces[pid]
    if ps.controller is not None and tile_powers.has_at(state, ps.controller, "sanctuary"):
        return "10.moses", (f"{tile_powers.names_at('sanctuary')} protects {title(ps.controller)}'s "
                            f"{place_name(state, pid)} from pillage and conversion")
    return None


# --- placing the Halicarnassus miniature -------------------------------------------------------------

def unplaced(state: GameState) -> list[Empire]:
    """Holders of the Halicarnassus tile whose miniature is not on the board yet."""
    if state.cities is None or state.cities.halicarnassus is not None:
        return []
    return tile_powers.holders_at(state, "unattackable")


def pending(state: GameState) -> list[Pending]:
    return [Pending(empire=e, kind="halicarnassus",
                    text=f"places the {_shelter_tiles()} miniature on one of its provinces")
            for e in unplaced(state)] + [
        Pending(empire=e, kind="launch", text=f"builds {t.name}'s free trireme in a sea next to its provinces")
        for e, t in unlaunched(state)]


def unlaunched(state: GameState) -> list[tuple[Empire, Tile]]:
    """Holders of a hero whose free trireme is still to be built (10.archimedes, 10.ptolemy)."""
    if state.cities is None:
        return []
    launched = state.cities.launched
    return [(e, t) for e in tile_powers.holders_at(state, "free_trireme")
            for t in tile_powers.powers_of(state, e, "free_trireme") if t.id not in launched
            and t.id in state.empires[e].tiles]


def _coast_seas(state: GameState, empire: Empire) -> list[str]:
    g = geo(state.geo_board)
    return sorted({s for p in _own_provinces(state, empire) for s in g.province(p).seas})


def launch(state: GameState, order: LaunchFreeTrireme) -> list[ev.AnyEvent]:
    due = [t for e, t in unlaunched(state) if e == order.empire and t.id == order.tile]
    require(bool(due), tile(load_ruleset(), order.tile).section,
            f"{title(order.empire)} has no free trireme of {tile(load_ruleset(), order.tile).name} to build")
    require(order.sea in _coast_seas(state, order.empire), due[0].section,
            f"the free trireme goes in a sea next to one of {title(order.empire)}'s provinces: "
            + ", ".join(_coast_seas(state, order.empire)))
    return [ev.FreeTriremeBuilt(empire=order.empire, tile=order.tile, sea=order.sea)]


def _own_provinces(state: GameState, empire: Empire) -> list[ProvinceId]:
    return sorted(p for p, ps in state.provinces.items() if ps.controller == empire)


def options(state: GameState, empire: Empire) -> list[Option]:
    out = [Option(kind="launch", order=f"launch {t.id} in {s}") for e, t in unlaunched(state) if e == empire
           for s in _coast_seas(state, empire)]
    if empire not in unplaced(state):
        return out
    return out + [Option(kind="halicarnassus", order=f"halicarnassus {p}") for p in _own_provinces(state, empire)]


def place_halicarnassus(state: GameState, order: PlaceHalicarnassus) -> list[ev.AnyEvent]:
    require(order.empire in unplaced(state), SHELTER_SECTION,
            f"{title(order.empire)} has no {_shelter_tiles()} miniature to place")
    require(order.province in _own_provinces(state, order.empire), SHELTER_SECTION,
            f"the miniature goes on one of {title(order.empire)}'s provinces, not "
            f"{place_name(state, order.province) if order.province in state.provinces else order.province}")
    return [ev.HalicarnassusPlaced(empire=order.empire, province=order.province)]
