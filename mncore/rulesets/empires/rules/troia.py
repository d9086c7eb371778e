"""The Troia expansion's heroes in the phases (lc.5.1): the Myrmidons, Aeneas, Agamemnon, Odysseus."""

from __future__ import annotations

from mncore.core.errors import require
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires import tile_powers
from mncore.rulesets.empires.board import geo
from mncore.rulesets.empires.commands import BuildUnit, MoveLegions
from mncore.rulesets.empires.display_names import title as name
from mncore.rulesets.empires.game_data import Tile, load_ruleset, tiles_at
from mncore.rulesets.empires.ids import BuildingKind, Empire, ProvinceId, TileId
from mncore.rulesets.empires.rules import payment
from mncore.rulesets.empires.rules.buildable import build_place_problem, capital_of
from mncore.rulesets.empires.rules.powers import has_power
from mncore.rulesets.empires.state import GameState, move_step

SECTION = "10.achilles"
ODYSSEUS = "10.odysseus"


# --- Achilles' Myrmidons (ruling R230, as the Centaurs of R55) -----------------------------------------

def myrmidons_tile() -> Tile | None:
    """The tile whose holder has the Myrmidons (Achilles), if the ruleset has one."""
    return next(iter(tiles_at(load_ruleset(), "myrmidons")), None)


def is_myrmidons_power(power: TileId | None) -> bool:
    found = myrmidons_tile()
    return found is not None and power == found.id


def myrmidons_in(state: GameState, empire: Empire, place: str) -> int:
    """1 if the empire's Myrmidons stand in that province, else 0."""
    es = state.empires.get(empire)
    return int(es is not None and es.myrmidons == place)


def on_recruit(state: GameState, empire: Empire, tile_id: TileId) -> list[ev.AnyEvent]:
    """Recruiting Achilles places the Myrmidons at once, free, in the recruiter's capital province (R230)."""
    capital = capital_of(state, empire)
    if not is_myrmidons_power(tile_id) or capital is None:
        return []
    return [ev.MyrmidonsBuilt(empire=empire, province=capital)]


def rebuild(state: GameState, order: BuildUnit) -> list[ev.AnyEvent]:
    """Rebuilding the Myrmidons once destroyed: a legion's place, the tile's price (10.achilles)."""
    info = myrmidons_tile()
    assert info is not None, "the caller checked that the power is the Myrmidons'"
    emp = order.empire
    require(order.kind == "legion", SECTION, f"the Myrmidons are built as a legion is, not as a {order.kind}")
    require(has_power(state, emp, info.id), SECTION, f"{name(emp)} does not hold {info.name}")
    require(state.empires[emp].myrmidons is None, SECTION, "the Myrmidons are already on the board")
    problem = build_place_problem(state, emp, order.place)
    require(problem is None, "3.1.2", problem or "")
    payment.require_set(state, emp, order.pay, info.myrmidons, "the Myrmidons")
    return [ev.MyrmidonsBuilt(empire=emp, province=order.place, paid=order.pay)]


def extra_dice(state: GameState, place: ProvinceId, empire: Empire) -> dict[str, int]:
    """The Myrmidons' second die in a land battle (ruling R230)."""
    return {"myrmidons": 1} if myrmidons_in(state, empire, place) else {}


def fortress_negates(state: GameState, place: ProvinceId, scorer: Empire) -> bool:
    """Whether the opponent's fortress negates the scorer's hits: not while his Myrmidons fight (R230)."""
    return not myrmidons_in(state, scorer, place)


# --- Aeneas (ruling R231) ----------------------------------------------------------------------------

def negated_by_power(state: GameState, place: str, target: Empire, left: int) -> dict[str, int]:
    """Hits of the opponent negated by the target's powers in a land battle (10.aeneas): one each."""
    if place not in state.provinces or left <= 0:
        return {}
    return {t.id: 1 for t in tile_powers.powers_of(state, target, "negate_hit")}


# --- Agamemnon (ruling R232) -------------------------------------------------------------------------

def rebuilt_after_pillage(state: GameState, empire: Empire, kind: BuildingKind, victim: Empire | None
                          ) -> list[ev.AnyEvent]:
    """A market or temple pillaged from an opponent is rebuilt free on the holder's first empty space."""
    tiles = tile_powers.powers_of(state, empire, "rebuild_pillaged")
    if not tiles or kind not in ("market", "temple") or victim in (None, empire):
        return []
    g = geo(state.geo_board)
    for p in state.geo_board.provinces:
        ps = state.provinces.get(p.id)
        if ps is None or ps.controller != empire:
            continue
        for space in g.province(p.id).spaces:
            if space.kind == kind and space.id not in ps.buildings:
                return [ev.BuildingBuilt(empire=empire, province=p.id, space=space.id, kind=kind, paid={},
                                         power=tiles[0].id)]
    return []


# --- Odysseus (ruling R233) --------------------------------------------------------------------------

def crossing_seas(state: GameState, order: MoveLegions) -> frozenset[str]:
    """The sea Odysseus' holder may cross this move without a trireme: none unless the order names it."""
    if not order.across:
        return frozenset()
    emp = order.empire
    tiles = tile_powers.powers_of(state, emp, "sea_crossing")
    require(bool(tiles), ODYSSEUS, f"{name(emp)} does not hold Odysseus: no sea is crossed without a trireme")
    require(order.across in state.seas, ODYSSEUS, f"'{order.across}' is not a sea")
    step = move_step(state)
    if step.crossing:
        require(order.across == step.crossing, ODYSSEUS,
                f"this turn Odysseus crosses {step.crossing}, one sea only (ruling R233)")
    else:
        require(tiles[0].id not in state.empires[emp].used, ODYSSEUS,
                "Odysseus' power was already used this round (once per round)")
    return frozenset({order.across})


def odysseus_tile(state: GameState, empire: Empire) -> TileId | None:
    tiles = tile_powers.powers_of(state, empire, "sea_crossing")
    return tiles[0].id if tiles else None
