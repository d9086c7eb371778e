"""The options of the Build phase: what an empire may order now, as lines or templates (3.0–3.1.3)."""

from __future__ import annotations

from mncore.core.protocol import Option
from mncore.rulesets.empires import tile_powers
from mncore.rulesets.empires.game_data import load_ruleset, tile, tiles_at
from mncore.rulesets.empires.ids import COIN, Empire, TileId, commodity_of, legendary
from mncore.rulesets.empires.rules import atlantis, barbarians, payment, troia
from mncore.rulesets.empires.rules.buildable import (
    build_place_problem,
    buildings_left,
    capital_of,
    control_places,
    copyable,
    culture_leader,
    face_up,
    free_spaces,
    is_pyramids,
    keep_waiting,
    markers_left,
    penthesilea_legions,
    perseus_open,
    rank_cost,
    tile_cost,
    tile_rank,
    to_build,
    trireme_sea_problem,
    units_left,
)
from mncore.rulesets.empires.rules.powers import has_power
from mncore.rulesets.empires.state import GameState, build_step


def options(state: GameState, empire: Empire) -> list[Option]:
    if state.phase != "build":
        return []
    step = build_step(state)
    out: list[Option] = []
    if tile_powers.has_at(state, empire, "build_first") and perseus_open(state):
        out += perseus_options(state, empire)
    if step.active == empire:
        return out + build_options(state, empire) + [Option(kind="done", order="done")]
    waiting = to_build(state)
    if step.active is None and waiting and empire == (culture_leader(state) or waiting[0]):
        out += [Option(kind="builder", order=f"builder {e}") for e in waiting]
    if empire in keep_waiting(state) and not waiting:
        out += keep_choices(state, empire)
    return out


# --- options ------------------------------------------------------------------------------------------

SHOWN_PAYMENTS = 6  # ways to pay listed in a template; the others go to Option.more


def _pays(state: GameState, empire: Empire, cost: int) -> tuple[str, ...]:
    return tuple(payment.show(b) for b in payment.payment_hints(state, empire, cost, limit=60))


def _template(template: str, pays: tuple[str, ...], parts: dict[str, tuple[str, ...]] | None = None,
              kind: str = "build", note: str = "") -> list[Option]:
    """One option when every part has legal values and the empire can pay; else none."""
    parts = parts or {}
    if not pays or any(not values for values in parts.values()):
        return []
    more = {"payment": pays[SHOWN_PAYMENTS:]} if len(pays) > SHOWN_PAYMENTS else {}
    return [Option(kind=kind, template=template, parts={**parts, "payment": pays[:SHOWN_PAYMENTS]},
                   more=more, note=note)]


def build_options(state: GameState, empire: Empire) -> list[Option]:
    """What the active builder may build now, as templates with legal places and payments."""
    out: list[Option] = []
    if markers_left(state, empire) > 0:
        places = tuple(control_places(state, empire))
        out += _template("build control in {province} pay {payment}",
                         _pays(state, empire, load_ruleset().costs.control), {"province": places})
        out += [Option(kind="build", template=f"build control in {{province}} with {power}",
                       parts={"province": places})
                for power in tile_powers.ids_at("free_control") if places and _power_ready(state, empire, power)]
    return out + _unit_options(state, empire) + _building_options(state, empire) + _coin_build_options(
        state, empire) + _tile_options(state, empire, perseus=False)


def _coin_build_options(state: GameState, empire: Empire) -> list[Option]:
    """What a once-a-round coin pricing power builds now, at its price in coins (10.croesus)."""
    coins = state.empires[empire].resources.get(COIN, 0)
    out: list[Option] = []
    for power in tile_powers.ids_at("coin_build"):
        prices = tile(load_ruleset(), power).coin_costs
        if not _power_ready(state, empire, power):
            continue
        if "control" in prices and prices["control"] <= coins and markers_left(state, empire) > 0:
            places = tuple(control_places(state, empire))
            if places:
                out.append(Option(kind="build", template=f"build control in {{province}} with {power} pay "
                                  f"{prices['control']} coin", parts={"province": places}))
        for pid in sorted(state.provinces):
            if build_place_problem(state, empire, pid) is not None:
                continue
            for kind in load_ruleset().costs.buildings:
                price = prices.get(kind, coins + 1)
                free = tuple(free_spaces(state, pid, kind))
                if not free or price > coins or buildings_left(state, kind) <= 0:
                    continue
                line = f"build {kind} in {pid}" + (" at {space}" if len(free) > 1 else "")
                line += f" with {power} pay {price} coin"
                out.append(Option(kind="build", template=line, parts={"space": free}) if len(free) > 1
                           else Option(kind="build", order=line))
    return out


def _power_ready(state: GameState, empire: Empire, power: str) -> bool:
    return has_power(state, empire, power) and power not in state.empires[empire].used  # type: ignore[arg-type]


def _unit_options(state: GameState, empire: Empire) -> list[Option]:
    held = state.empires[empire].resources
    provinces = tuple(p for p in sorted(state.provinces) if build_place_problem(state, empire, p) is None)
    places = {"legion": provinces, "trireme": tuple(s for s in sorted(state.seas)
                                                    if trireme_sea_problem(state, empire, s) is None),
              "fortress": tuple(p for p in provinces if state.provinces[p].fortress is None)}
    out: list[Option] = []
    for kind in ("legion", "fortress", "trireme"):
        if units_left(state, empire, kind) <= 0:
            continue
        noun = "sea" if kind == "trireme" else "province"
        where = {noun: places[kind]}
        out += _template(f"build {kind} in {{{noun}}} pay {{payment}}",
                         _pays(state, empire, payment.unit_cost(state, empire, kind)), where)
        for info in tiles_at(load_ruleset(), "cheap_unit"):
            if info.cheap is not None and info.cheap.unit == kind and _power_ready(state, empire, info.id):
                commodity = info.cheap.commodity
                cheap = tuple(t for t in (COIN, commodity, legendary(commodity)) if held.get(t, 0) > 0)
                out += _template(f"build {kind} in {{{noun}}} with {info.id} pay {{payment}}", cheap, where)
    capital = capital_of(state, empire)
    if capital and penthesilea_legions(state, empire) > 0:
        out += [Option(kind="build", order=f"build legion in {capital} with {power}")
                for power in tile_powers.ids_at("free_legions") if _power_ready(state, empire, power)]
    return out + _centaurs_options(state, empire, provinces) + _myrmidons_options(state, empire, provinces)


def _myrmidons_options(state: GameState, empire: Empire, provinces: tuple[str, ...]) -> list[Option]:
    """Rebuilding the Myrmidons where a legion may be built, for the tile's price (10.achilles)."""
    info = troia.myrmidons_tile()
    if info is None or not has_power(state, empire, info.id) or state.empires[empire].myrmidons is not None:
        return []
    return _template(f"build legion in {{province}} with {info.id} pay {{payment}}",
                     _pays(state, empire, info.myrmidons), {"province": provinces})


def _centaurs_options(state: GameState, empire: Empire, provinces: tuple[str, ...]) -> list[Option]:
    """Rebuilding the Centaurs where a legion may be built, for the tile's price (atlas.chiron)."""
    info = atlantis.centaurs_tile()
    if info is None or not has_power(state, empire, info.id) or state.empires[empire].centaurs is not None:
        return []
    return _template(f"build legion in {{province}} with {info.id} pay {{payment}}",
                     _pays(state, empire, info.centaurs), {"province": provinces})


def _building_options(state: GameState, empire: Empire) -> list[Option]:
    costs = load_ruleset().costs.buildings
    out: list[Option] = []
    for pid in sorted(state.provinces):
        if build_place_problem(state, empire, pid) is not None:
            continue
        for kind in costs:
            free = tuple(free_spaces(state, pid, kind))
            if not free or buildings_left(state, kind) <= 0:
                continue
            pays = _pays(state, empire, costs[kind])
            if len(free) == 1:
                out += _template(f"build {kind} in {pid} pay {{payment}}", pays)
            else:
                out += _template(f"build {kind} in {pid} at {{space}} pay {{payment}}", pays, {"space": free})
    return out


def _tile_options(state: GameState, empire: Empire, perseus: bool) -> list[Option]:
    rs = load_ruleset()
    shown = [t for t in face_up(state) if not is_pyramids(t)]
    cost = rank_cost(state, empire)
    out: list[Option] = []
    copies = tuple(copyable(state, empire))
    copiers = tile_powers.ids_at("copy_hero")
    if cost is not None and (not perseus or tile_rank(state, empire) == rs.numbers.tiles_to_win):
        pays = _pays(state, empire, cost)
        heroes = tuple(t for t in shown if tile(rs, t).kind == "hero"
                       and not (t in copiers and copies))
        wonders = tuple(t for t in shown if tile(rs, t).kind == "wonder")
        out += _template(("perseus" if perseus else "recruit") + " {hero} pay {payment}",
                         _pays_for(state, empire, heroes, pays), {"hero": heroes},
                         "tile", _costs_note(state, empire, heroes))
        out += _template(("perseus" if perseus else "build") + " {wonder} pay {payment}",
                         _pays_for(state, empire, wonders, pays), {"wonder": wonders},
                         "tile", _costs_note(state, empire, wonders))
        for copier in (t for t in copiers if t in shown and copies):
            out += _template(("perseus" if perseus else "recruit")
                             + f" {copier} copy {{hero}} pay {{payment}}", pays, {"hero": copies}, "tile",
                             _costs_note(state, empire, (copier,)))
    for pyramids in (t for t in face_up(state) if is_pyramids(t)):
        out += _template(("perseus" if perseus else "build") + f" {pyramids} pay {{payment}}",
                         _pays(state, empire, rs.costs.pyramids), None, "tile",
                         _costs_note(state, empire, (pyramids,)))
    return out


def _pays_for(state: GameState, empire: Empire, tiles: tuple[TileId, ...], pays: tuple[str, ...]) -> tuple[str, ...]:
    """Ways to pay for these tiles: for their own cost when a power takes the same off each, else `pays`."""
    costs = {tile_cost(state, empire, t) for t in tiles}
    cost = next(iter(costs)) if len(costs) == 1 else None
    return _pays(state, empire, cost) if cost is not None and cost != rank_cost(state, empire) else pays


def _costs_note(state: GameState, empire: Empire, tiles: tuple[TileId, ...]) -> str:
    """What the tiles cost the empire (3.1.3, less its powers' discounts): one number when they agree."""
    costs = {t: tile_cost(state, empire, t) for t in tiles}
    known = {t: c for t, c in costs.items() if c is not None}
    if not known:
        return ""
    if len(set(known.values())) == 1:
        return f"costs {next(iter(known.values()))} resources"
    return "costs " + ", ".join(f"{t} {c}" for t, c in known.items()) + " resources"


def perseus_options(state: GameState, empire: Empire) -> list[Option]:
    """Perseus's winning builds the empire can pay for now (10.perseus)."""
    return _tile_options(state, empire, perseus=True)


def keep_choices(state: GameState, empire: Empire) -> list[Option]:
    """The Hanging Gardens holder's choices: nothing, or one or two different commodities."""
    if barbarians.punic_war(state):  # the Punic War's Hanging Gardens keep gold (ruling R68)
        return [Option(kind="keep", order="keep nothing"), *(
            Option(kind="keep", order=f"keep {g}") for g in barbarians.gardens_choices(state.empires[empire].resources))]
    held = sorted(t for t in state.empires[empire].resources if commodity_of(t) is not None)
    pairs = [f"{a} {b}" for i, a in enumerate(held) for b in held[i + 1:]
             if commodity_of(a) != commodity_of(b)]
    return [Option(kind="keep", order="keep nothing"),
            Option(kind="keep", template="keep {commodities}",
                   parts={"commodities": (*held, *pairs)})]
