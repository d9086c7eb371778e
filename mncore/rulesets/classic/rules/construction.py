"""The Construction phase (5): in the Political Leader's order, sets of cards buy influence,
buildings, units, heroes and wonders."""

from __future__ import annotations

from mncore.core.errors import InvalidCommand, require
from mncore.core.protocol import Option, Pending
from mncore.rulesets.classic import commands as cm
from mncore.rulesets.classic import events as ev
from mncore.rulesets.classic.card_powers import FreeUnit
from mncore.rulesets.classic.components import game_data
from mncore.rulesets.classic.ids import BUILDINGS, TAX
from mncore.rulesets.classic.rules import powers
from mncore.rulesets.classic.rules.common import at_war, cost, creatures, name, require_payment, require_turn
from mncore.rulesets.classic.rules.fold import Fold
from mncore.rulesets.classic.rules.victory import after_purchase
from mncore.rulesets.classic.state import State, Units


def _pay(cmd: cm.Build | cm.PlaceInfluence | cm.Buy) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(sorted(group)) for group in cmd.pay)


def price(state: State, civ: str, item: str) -> int:
    """5.3's price for civ: less its powers' discounts (C16), never under 1 card (C18)."""
    base = cost(state, item)
    if item == "pyramids":
        return base
    cut = powers.discount(state, civ, "hero" if item in ("hero", "wonder") else item)
    return max(1, base - cut) if cut else base


def begin(state: State, fold: Fold) -> list[ev.AnyEvent]:
    """As Construction begins, in its order: the units powers give for nothing (FreeUnit, C16)."""
    out: list[ev.AnyEvent] = []
    for civ in state.turns.order:
        placed = free_unit_events(state, civ, powers.free_units(state, civ), fold)
        state = fold(placed, state)
        out += placed
    return out


def free_unit_events(state: State, civ: str, found: list[tuple[str, FreeUnit]], fold: Fold) -> list[ev.AnyEvent]:
    """Each free unit placed in civ's capital where the rules allow one there (5.7-5.9); else none."""
    capital = state.the_board().capital_of(civ)
    out: list[ev.AnyEvent] = []
    for card, effect in found:
        if build_problem(state, civ, effect.unit, capital) is None:
            built = ev.ItemBuilt(civ=civ, item=effect.unit, province=capital, power=card)
            state = fold([built], state)  # the next unit is checked against the one placed
            out.append(built)
    return out


def build(state: State, cmd: cm.Build) -> list[ev.AnyEvent]:
    require_turn(state, cmd.civ, "construction", "5")
    board = state.the_board()
    if not board.is_province(cmd.province):
        raise InvalidCommand(f"'{cmd.province}' is not a province")
    problem = build_problem(state, cmd.civ, cmd.item, cmd.province, cmd.resource)
    if problem:
        require(False, *problem)
    require_payment(state, cmd.civ, cmd.pay, price(state, cmd.civ, cmd.item), f"a {cmd.item}")
    return [ev.ItemBuilt(civ=cmd.civ, item=cmd.item, province=cmd.province, resource=cmd.resource,
                         paid=_pay(cmd))]


def build_problem(state: State, civ: str, item: str, pid: str, resource: str = "") -> tuple[str, str] | None:
    """Why civ may not build item in a province now (section, message), in the rules' order; or None."""
    board, land = state.the_board(), state.land(pid)
    where = name(state, pid)
    if land.influence != civ:
        return "5.4", f"{name(state, civ)} has no influence marker in {where}"
    if pid in state.turns.placed:
        return "5.6", f"influence was placed in {where} this turn: nothing else is built there"
    own_capital = board.capital_of(civ) == pid
    if (at_war(land) or (land.occupier and land.occupier != civ)) and not own_capital:
        return "5.9", f"{where} is at war or under military occupation"
    prov = board.prov(pid)
    if item == "city" and land.count("city") >= prov.cities:
        return "5.7", f"{where} has {prov.cities} city site(s), all built"
    if item == "caravan":
        if resource not in prov.resources:
            return "5.7", f"{where} has no {resource or 'such'} resource icon: {', '.join(prov.resources)}"
        if any(b.kind == "caravan" and b.resource == resource for b in land.buildings):
            return "5.7", f"{where} already has a caravan on its {resource}"
    if item in ("temple", "market") and land.count(item) >= 1:
        return "5.7", f"{where} already has a {item}"
    if item == "fortress" and any(u.fortress for u in land.units.values()):
        return "5.7", f"{where} already has a fortress"
    if item == "trireme" and not (prov.island or prov.seas):
        return "5.8", f"{where} is neither an island nor beside a sea"
    if item == "creature" and creatures(state, civ) >= game_data().max_creatures:
        return "6.8", f"{name(state, civ)} already has {game_data().max_creatures} creatures"
    if item in BUILDINGS and state.supply.get(item, 0) <= 0:
        return "5.11", f"no {item} token is left beside the board"
    return None


def influence_problem(state: State, civ: str, pid: str) -> tuple[str, str] | None:
    """Why civ may not place influence in a province now; or None (5.5, 6.11 c, 6.12)."""
    land, where = state.land(pid), name(state, pid)
    if land.influence == civ:
        return "5.5", f"{name(state, civ)} already has influence in {where}"
    converting = land.converter == civ and land.units.get(civ, Units()).movers() > 0
    if land.influence and not converting:
        return "5.5", f"{where} is under {name(state, land.influence)}'s influence"
    if land.influence and state.the_board().capital_of(land.influence) == pid:
        return "6.12", f"the influence marker in {name(state, land.influence)}'s capital is never converted"
    start = state.turns.controlled.get(civ, ())
    if not any(adjacent(state, pid, p) for p in start):
        return "5.5", (f"{where} is not adjacent to a province {name(state, civ)} controlled at the "
                       "start of the turn")
    return None


def adjacent(state: State, a: str, b: str) -> bool:
    """By a land border or across one sea space both touch (ruling C12)."""
    board = state.the_board()
    return board.land().linked(a, b) or bool(set(board.prov(a).seas) & set(board.prov(b).seas))


def place_influence(state: State, cmd: cm.PlaceInfluence) -> list[ev.AnyEvent]:
    require_turn(state, cmd.civ, "construction", "5")
    if not state.the_board().is_province(cmd.province):
        raise InvalidCommand(f"'{cmd.province}' is not a province")
    problem = influence_problem(state, cmd.civ, cmd.province)
    if problem:
        require(False, *problem)
    require_payment(state, cmd.civ, cmd.pay, price(state, cmd.civ, "influence"), "an influence marker")
    return [ev.InfluencePlaced(civ=cmd.civ, province=cmd.province, paid=_pay(cmd),
                               replaced=state.land(cmd.province).influence)]


def buyable(state: State, civ: str) -> list[str]:
    """The hero and wonder cards civ may buy: not set aside, not held, its own civilisation's hero."""
    held = {c for cards in state.cards.values() for c in cards}
    return [c.id for c in game_data().card
            if c.id not in held and c.id not in state.set_aside and c.civ in ("", civ)]


def buy(state: State, cmd: cm.Buy, fold: Fold) -> list[ev.AnyEvent]:
    require_turn(state, cmd.civ, "construction", "5")
    ids = {c.id for c in game_data().card}
    if cmd.card not in ids:
        raise InvalidCommand(f"'{cmd.card}' is not a hero or wonder card")
    card = game_data().card_of(cmd.card)
    require(not card.civ or card.civ == cmd.civ, "1.4", f"{card.name} is {name(state, card.civ)}'s hero")
    require(cmd.card not in state.set_aside, "1.2", f"{card.name} was set aside at set-up")
    require(cmd.card in buyable(state, cmd.civ), "5.10", f"{card.name} is already held")
    due = price(state, cmd.civ, "pyramids" if card.kind == "pyramids" else "hero")
    require_payment(state, cmd.civ, cmd.pay, due, card.name)
    bought = ev.CardBought(civ=cmd.civ, card=cmd.card, paid=_pay(cmd))
    return [bought, *after_purchase(state, bought, fold)]


def end_turn(state: State, cmd: cm.EndTurn) -> list[ev.AnyEvent]:
    require_turn(state, cmd.civ, "construction", "5")
    return [ev.TurnEnded(civ=cmd.civ)]


def end(state: State) -> list[ev.AnyEvent]:
    """5.2: sets and leftover cards are discarded; each keeps up to 2 tax cards."""
    keep = game_data().tax_kept
    return [ev.HandsDiscarded(kept={c: min(keep, state.hand(c).get(TAX, 0)) for c in state.civs})]


def done(state: State) -> bool:
    return state.turns.index >= len(state.turns.order)


def pending(state: State) -> list[Pending]:
    due = state.turns.current()
    return [Pending(empire=due, kind="construction", text="build, buy, place influence, then done")] \
        if due else []


def payment(hand: dict[str, int], price: int) -> str | None:
    """One way to pay a price from a hand, as order text (sets joined by +), or None."""
    left = dict(hand)
    sets: list[list[str]] = []
    need = price
    while need > 0:
        if left.get(TAX, 0) >= need:
            sets.append([TAX] * need)
            left[TAX] -= need
            need = 0
            break
        kinds = sorted(c for c, n in left.items() if c != TAX and n > 0)
        if not kinds:
            if left.get(TAX, 0) == 0:
                return None
            sets.append([TAX] * left[TAX])
            need -= left[TAX]
            left[TAX] = 0
            continue
        group = kinds[:need]
        for c in group:
            left[c] -= 1
        sets.append(group)
        need -= len(group)
    return "+".join(",".join(g) for g in sets)


def options(state: State, civ: str) -> list[Option]:
    if state.turns.current() != civ:
        return []
    out = [Option(kind="done", order="done")]
    hand, board = state.hand(civ), state.the_board()
    for pid in sorted(p.id for p in board.province):
        if influence_problem(state, civ, pid) is None:
            pay = payment(hand, price(state, civ, "influence"))
            if pay:
                out.append(Option(kind="influence", order=f"influence {pid} pay {pay}"))
        for item in ("city", "temple", "market", "legion", "trireme", "fortress", "creature"):
            pay = payment(hand, price(state, civ, item))
            if pay and build_problem(state, civ, item, pid) is None:
                out.append(Option(kind="build", order=f"build {item} in {pid} pay {pay}"))
        for res in board.prov(pid).resources:
            pay = payment(hand, price(state, civ, "caravan"))
            if pay and build_problem(state, civ, "caravan", pid, res) is None:
                out.append(Option(kind="build", order=f"build caravan {res} in {pid} pay {pay}"))
    for card in buyable(state, civ):
        kind = game_data().card_of(card).kind
        pay = payment(hand, price(state, civ, "pyramids" if kind == "pyramids" else "hero"))
        if pay:
            out.append(Option(kind="buy", order=f"buy {card} pay {pay}"))
    return out
