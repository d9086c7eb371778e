"""Battles (4.2): units at a place, the dice and their modifiers, hits, and the losses each side takes."""

from __future__ import annotations

from mncore.core.cache import ObjectCache
from mncore.core.dice import Rng
from mncore.core.errors import require
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires import random_draws, tile_powers
from mncore.rulesets.empires.board import Board
from mncore.rulesets.empires.commands import ChooseLosses
from mncore.rulesets.empires.display_names import title
from mncore.rulesets.empires.game_data import load_ruleset
from mncore.rulesets.empires.ids import EMPIRES, Empire
from mncore.rulesets.empires.rules import (
    lasting_cards,  # the Troia expansion (lc.5)
    troia,
)
from mncore.rulesets.empires.rules.atlantis import centaurs_in
from mncore.rulesets.empires.state import GameState, Loss, move_step


def place_name(state: GameState, place: str) -> str:
    """The display name of a province or sea."""
    return _place_names(state.geo_board).get(place, place)


def _names(board: Board) -> dict[str, str]:
    """Each place's display name: the first province of an id, else its first sea."""
    out: dict[str, str] = {}
    for p in board.provinces:
        out.setdefault(p.id, p.name)
    for s in board.seas:
        out.setdefault(s.id, s.name)
    return out


# asked by conquests and battles on every order, to word a refusal or a pending text: read once per board
_place_names: ObjectCache[Board, dict[str, str]] = ObjectCache(_names)


def is_sea(state: GameState, place: str) -> bool:
    return place in state.seas


def units_at(state: GameState, place: str, empire: Empire) -> int:
    """The empire's units fighting at a place: triremes at sea; legions and fortress on land."""
    if is_sea(state, place):
        return state.seas[place].get(empire, 0)
    ps = state.provinces[place]
    return ps.legions.get(empire, 0) + (1 if ps.fortress == empire else 0)


def empires_at(state: GameState, place: str) -> list[Empire]:
    """The empires with units at a place, in the fixed empire order: units_at() > 0, the place read
    once (required battles ask it of every province an empire stands in, each decision)."""
    empires = state.empires
    sea = state.seas.get(place)
    if sea is not None:
        return [e for e in EMPIRES if e in empires and sea.get(e, 0) > 0]
    ps = state.provinces[place]
    legions, fortress = ps.legions, ps.fortress
    return [e for e in EMPIRES if e in empires and legions.get(e, 0) + (1 if fortress == e else 0) > 0]


def at_peace(state: GameState, a: Empire, b: Empire) -> bool:
    """Whether a Statue of Zeus peace binds the two empires this round (11.statue-of-zeus)."""
    return state.empires[a].peace_with == b or state.empires[b].peace_with == a


def enemies_at(state: GameState, place: str, empire: Empire) -> list[Empire]:
    """The opponents the empire may battle at a place: units there, and no peace with them."""
    return [e for e in empires_at(state, place) if e != empire and not at_peace(state, empire, e)]


def dice_count(state: GameState, place: str, empire: Empire) -> tuple[int, dict[str, int]]:
    """One die per legion or trireme (ruling R42: more units than dice roll again), plus extra dice."""
    if is_sea(state, place):
        return state.seas[place].get(empire, 0), {}
    extra = tile_powers.extra_dice(state, place, empire)
    if state.cities is not None:  # the Myrmidons' second die, Siege Vessels (lc.5)
        extra = {**extra, **troia.extra_dice(state, place, empire), **lasting_cards.siege_dice(state, place, empire)}
    return state.provinces[place].legions.get(empire, 0), extra


def roll_battle(state: GameState, place: str, attacker: Empire, defender: Empire, rng: Rng,
                fixed: dict[Empire, tuple[int, ...]] | None = None) -> ev.BattleFought:
    """The one roll of a battle (4.2): dice from rng (or fixed, in a sandbox: R7), then the arithmetic."""
    fought = fight(state, place, attacker, defender, rng, fixed)[-1]
    assert isinstance(fought, ev.BattleFought)
    return fought


def fight(state: GameState, place: str, attacker: Empire, defender: Empire, rng: Rng,
          fixed: dict[Empire, tuple[int, ...]] | None = None) -> list[ev.AnyEvent]:
    """The battle's events: a record of each side's dice fixed in a sandbox (R7), then the battle."""
    dice_set = load_ruleset().components.dice
    faces = dice_set.sea_faces if is_sea(state, place) else dice_set.land_faces
    rolled: dict[Empire, tuple[int, ...]] = {}
    counted: dict[Empire, tuple[int, dict[str, int]]] = {}
    used: list[ev.AnyEvent] = []
    for emp in (attacker, defender):
        units, extra = counted[emp] = dice_count(state, place, emp)
        fives = units if lasting_cards.sure_fives(state, place, emp) and (fixed or {}).get(emp) is None else 0
        rolled[emp], record = random_draws.battle_dice(state, rng, emp, units - fives + sum(extra.values()), faces,
                                                place, (fixed or {}).get(emp))
        rolled[emp] = (5,) * fives + rolled[emp]  # War Elephants: legion dice show 5 (ruling R235)
        used += [record] if record else []
    return [*used, resolve_battle(state, place, attacker, defender, rolled, counted)]


def resolve_battle(state: GameState, place: str, attacker: Empire, defender: Empire,
                   dice: dict[Empire, tuple[int, ...]],
                   counted: dict[Empire, tuple[int, dict[str, int]]] | None = None) -> ev.BattleFought:
    """The battle's arithmetic on given dice: totals with modifiers, total // 5 hits, fortress (4.2).
    `counted`: each side's dice_count() of this state, when the caller has it (fight rolled by it)."""
    land = not is_sea(state, place)
    fortress = state.provinces[place].fortress if land else None
    numbers = load_ruleset().numbers
    sides = {emp: _side_total(state, place, emp, emp == attacker, dice[emp], (counted or {}).get(emp))
             for emp in (attacker, defender)}
    out: dict[Empire, ev.BattleSide] = {}
    powers_negated: dict[Empire, dict[str, int]] = {}
    for emp, other in ((attacker, defender), (defender, attacker)):
        units, extra, modifiers, total = sides[emp]
        # divided and rounded down; never 'roll a 1 to hit' (ruling R2)
        scored = total // lasting_cards.divisor(state, place, other, numbers.total_per_hit)
        negates = fortress == other and troia.fortress_negates(state, place, emp)  # not the Myrmidons' (R230)
        negated = min(numbers.fortress_negates, scored) if negates else 0
        by = troia.negated_by_power(state, place, other, scored - negated)  # Aeneas (R231)
        negated = min(scored, negated + sum(by.values()))
        out[emp] = ev.BattleSide(empire=emp, units=units, dice=dice[emp], extra_dice=extra,
                                 modifiers=modifiers, total=total, scored=scored, negated=negated,
                                 hits=scored - negated)
        if any(by.values()):
            powers_negated[emp] = {k: v for k, v in by.items() if v}
    losses = {attacker: min(out[defender].hits, units_at(state, place, attacker)),
              defender: min(out[attacker].hits, units_at(state, place, defender))}
    return ev.BattleFought(place=place, kind="land" if land else "sea", attacker=out[attacker],
                           defender=out[defender], losses=losses, negated_by=powers_negated)


def _side_total(state: GameState, place: str, empire: Empire, active: bool, dice: tuple[int, ...],
                counted: tuple[int, dict[str, int]] | None = None
                ) -> tuple[int, dict[str, int], dict[str, int], int]:
    units, extra = counted if counted is not None else dice_count(state, place, empire)
    modifiers: dict[str, int] = {}
    if not is_sea(state, place):
        # a power's bonus per die counts the legion dice only (R42), not the extra ones, nor the
        # Centaurs' (no legion bonus, atlas.chiron)
        legions = units - centaurs_in(state, empire, place) - troia.myrmidons_in(state, empire, place)
        modifiers = tile_powers.battle_bonus(state, tile_powers.Side(place, empire, active, legions))
        if state.provinces[place].fortress == empire:
            modifiers["fortress"] = load_ruleset().numbers.fortress_bonus
    return units, extra, modifiers, sum(dice) + sum(modifiers.values())


# --- losses -------------------------------------------------------------------------------------------

def forced_losses(state: GameState, loss: Loss) -> ev.UnitsLost | None:
    """The losses when their owner has no choice (4.2): all units, or only one kind there; else None."""
    if is_sea(state, loss.place):
        return ev.UnitsLost(empire=loss.empire, place=loss.place, triremes=loss.hits)
    ps = state.provinces[loss.place]
    legions = ps.legions.get(loss.empire, 0)
    fortress = ps.fortress == loss.empire
    centaurs = bool(centaurs_in(state, loss.empire, loss.place))
    myrmidons = bool(troia.myrmidons_in(state, loss.empire, loss.place))
    if loss.hits >= legions + int(fortress):
        return ev.UnitsLost(empire=loss.empire, place=loss.place, legions=legions, fortress=fortress,
                            centaurs=centaurs, myrmidons=myrmidons)
    if centaurs or myrmidons:
        return None  # whether the Centaurs or Myrmidons are among the losses is their owner's choice (4.2)
    if not fortress:
        return ev.UnitsLost(empire=loss.empire, place=loss.place, legions=loss.hits)
    if legions == 0:
        return ev.UnitsLost(empire=loss.empire, place=loss.place, fortress=True)
    return None


def choose_losses(state: GameState, order: ChooseLosses) -> ev.UnitsLost:
    """The owner's choice of the units destroyed (4.2)."""
    name = place_name(state, order.place)
    owed = [x for x in move_step(state).losses if x.empire == order.empire and x.place == order.place]
    require(state.phase == "move" and bool(owed), "4.2",
            f"{title(order.empire)} has no losses to take in {name}")
    hits = owed[0].hits
    ps = state.provinces[order.place]
    require(order.legions + int(order.fortress) == hits, "4.2",
            f"{title(order.empire)} must lose exactly {hits} unit(s) in {name}, not "
            f"{order.legions + int(order.fortress)}")
    require(order.legions <= ps.legions.get(order.empire, 0), "4.2",
            f"{title(order.empire)} has only {ps.legions.get(order.empire, 0)} legion(s) in {name}")
    require(not order.fortress or ps.fortress == order.empire, "4.2",
            f"{title(order.empire)} has no fortress in {name}")
    _require_centaurs_loss(state, order)
    _require_myrmidons_loss(state, order)
    return ev.UnitsLost(empire=order.empire, place=order.place, legions=order.legions,
                        fortress=order.fortress, centaurs=order.centaurs, myrmidons=order.myrmidons)


def _require_centaurs_loss(state: GameState, order: ChooseLosses) -> None:
    """The Centaurs are lost only as one of the legions lost; with the last legion, necessarily."""
    here = centaurs_in(state, order.empire, order.place)
    require(not order.centaurs or (bool(here) and order.legions >= 1), "atlas.chiron",
            f"{title(order.empire)}'s Centaurs are not among its legions there")
    every = order.legions == state.provinces[order.place].legions.get(order.empire, 0)
    require(order.centaurs or not (here and every), "atlas.chiron",
            "every legion there is lost, the Centaurs with them: write 'lose ... centaurs'")


def _require_myrmidons_loss(state: GameState, order: ChooseLosses) -> None:
    """The Myrmidons are lost only as one of the legions lost; with the last legion, necessarily (R230)."""
    here = troia.myrmidons_in(state, order.empire, order.place)
    require(not order.myrmidons or (bool(here) and order.legions >= 1 + int(order.centaurs)), troia.SECTION,
            f"{title(order.empire)}'s Myrmidons are not among its legions there")
    every = order.legions == state.provinces[order.place].legions.get(order.empire, 0)
    require(order.myrmidons or not (here and every), troia.SECTION,
            "every legion there is lost, the Myrmidons with them: write 'lose ... myrmidons'")
