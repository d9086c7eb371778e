"""The Atlas expansion's Atlantean heroes in the phases: Chiron's Centaurs (atlas.chiron)."""

from __future__ import annotations

from mncore.core.errors import require
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.commands import BuildUnit
from mncore.rulesets.empires.display_names import title as name
from mncore.rulesets.empires.game_data import Tile, load_ruleset, tiles_at
from mncore.rulesets.empires.ids import Empire, ProvinceId, TileId
from mncore.rulesets.empires.rules import payment
from mncore.rulesets.empires.rules.buildable import build_place_problem, capital_of
from mncore.rulesets.empires.rules.powers import has_power
from mncore.rulesets.empires.state import GameState

SECTION = "atlas.chiron"


def centaurs_tile() -> Tile | None:
    """The tile whose holder has the Centaurs (Chiron), if the ruleset has one."""
    return next(iter(tiles_at(load_ruleset(), "centaurs")), None)


def is_centaurs_power(power: TileId | None) -> bool:
    found = centaurs_tile()
    return found is not None and power == found.id


def centaurs_in(state: GameState, empire: Empire, place: str) -> int:
    """1 if the empire's Centaurs stand in that province, else 0."""
    es = state.empires.get(empire)
    return int(es is not None and es.centaurs == place)


def on_recruit(state: GameState, empire: Empire, tile_id: TileId) -> list[ev.AnyEvent]:
    """Recruiting Chiron places the Centaurs at once, free, in the recruiter's capital province
    (ruling R55: the text names no place; the capital is where a player may always build)."""
    capital = capital_of(state, empire)
    if not is_centaurs_power(tile_id) or capital is None:
        return []
    return [ev.CentaursBuilt(empire=empire, province=capital)]


def rebuild(state: GameState, order: BuildUnit) -> list[ev.AnyEvent]:
    """Rebuilding the Centaurs once destroyed: a legion's place, the tile's price (atlas.chiron)."""
    info = centaurs_tile()
    assert info is not None, "the caller checked that the power is the Centaurs'"
    emp = order.empire
    require(order.kind == "legion", SECTION, f"the Centaurs are built as a legion is, not as a {order.kind}")
    require(has_power(state, emp, info.id), SECTION, f"{name(emp)} does not hold {info.name}")
    require(state.empires[emp].centaurs is None, SECTION, "the Centaurs are already on the board")
    problem = build_place_problem(state, emp, order.place)
    require(problem is None, "3.1.2", problem or "")
    payment.require_set(state, emp, order.pay, info.centaurs, "the Centaurs")
    return [ev.CentaursBuilt(empire=emp, province=order.place, paid=order.pay)]


def strike(state: GameState, place: ProvinceId, attacker: Empire, defender: Empire) -> list[ev.AnyEvent]:
    """Before a land battle the Centaurs, on either side, destroy one opposing legion (atlas.chiron)."""
    for owner, opponent in ((attacker, defender), (defender, attacker)):
        if centaurs_in(state, owner, place) and state.provinces[place].legions.get(opponent, 0) > 0:
            return [ev.CentaursStruck(empire=owner, opponent=opponent, place=place)]
    return []
