"""What every phase's rules read: names, control, role counts, turn order, sets of cards, war."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from mncore.core.errors import InvalidCommand, RuleViolation, require
from mncore.rulesets.classic.components import game_data
from mncore.rulesets.classic.ids import TAX
from mncore.rulesets.classic.state import Land, State, Units


def name(state: State, thing: str) -> str:
    """A display name: a civilisation, card, god, role, province or sea."""
    if thing in game_data().names():
        return game_data().names()[thing]
    if state.board is not None:
        return state.board.name_of(thing)
    return thing


def controlled(state: State, civ: str) -> list[str]:
    return [p for p, land in state.lands.items() if land.influence == civ]


def at_war(land: Land) -> bool:
    """6.10: ground units of two or more civilisations in one province."""
    return len(land.present()) > 1


def role_count(state: State, civ: str, role: str) -> int:
    """What a role card counts for a civilisation (2.1): buildings in its provinces, or its units."""
    counts = game_data().role_of(role).counts
    if "legion" in counts:  # units deployed on the board: legions, triremes, fortresses
        units = [land.units.get(civ, Units()) for land in state.lands.values()]
        return (sum(u.legion + u.trireme + u.fortress for u in units)
                + sum(sea.get(civ, 0) for sea in state.seas.values()))
    return sum(land.count(kind) for land in state.lands.values() if land.influence == civ
               for kind in counts)


def order_from(state: State, first: str) -> tuple[str, ...]:
    """The turn order of a phase: its role holder, then the others in seat order (ruling C5)."""
    seats = state.civs
    if first not in seats:
        return seats
    i = seats.index(first)
    return seats[i:] + seats[:i]


def creatures(state: State, civ: str) -> int:
    return sum(land.units.get(civ, Units()).creature for land in state.lands.values())


def hero_count(state: State, civ: str) -> int:
    return len(state.cards.get(civ, ()))


def commodities(state: State) -> list[str]:
    """Every commodity card: one per resource icon printed on the board."""
    board = state.the_board()
    return sorted({r for p in board.province for r in p.resources})


def card_of(state: State, text: str) -> str:
    """A resource card a user names: tax or a commodity; InvalidCommand otherwise."""
    word = text.strip().lower()
    known = [TAX, *commodities(state)]
    if word in known:
        return word
    raise InvalidCommand(f"'{text}' is not a resource card; the cards are {', '.join(known)}")


def set_problem(cards: Sequence[str]) -> str:
    """Why cards are not one set (5.1), or "": tax cards only, or non-matching commodities only."""
    if not cards:
        return "a set holds at least one card"
    if all(c == TAX for c in cards):
        return ""
    if TAX in cards:
        return f"{' '.join(cards)} mixes tax cards and commodities"
    if len(set(cards)) < len(cards):
        same = sorted(c for c, n in Counter(cards).items() if n > 1)
        return f"{' '.join(cards)} holds matching commodities ({', '.join(same)})"
    return ""


def require_payment(state: State, civ: str, pay: Sequence[Sequence[str]], cost: int, what: str) -> None:
    """5.1, 5.3: every set valid, in the hand, and worth at least the cost (ruling C10: no change)."""
    for group in pay:
        problem = set_problem(group)
        require(not problem, "5.1", f"{problem}: not a set")
    require_in_hand(state, civ, [c for group in pay for c in group])
    value = sum(len(group) for group in pay)
    require(value >= cost, "5.3", f"{what} costs {cost} card{'s' * (cost != 1)}; the sets given are worth {value}")


def require_in_hand(state: State, civ: str, cards: Sequence[str]) -> None:
    hand = state.hand(civ)
    for card, n in Counter(cards).items():
        if hand.get(card, 0) < n:
            raise RuleViolation("5.1", f"{name(state, civ)} holds {hand.get(card, 0)} {card} "
                                       f"card(s), not {n}")


def cost(state: State, item: str) -> int:
    data = game_data()
    if item == "pyramids":
        return data.victory[state.options.variant].pyramids
    return data.cost["hero" if item in ("hero", "wonder") else item]


def require_turn(state: State, civ: str, phase: str, section: str) -> None:
    """The order is given in its phase and by the player whose turn it is."""
    require(state.phase == phase, section, f"this is ordered in the {phase} phase, not the "
                                           f"{state.phase or 'set-up'} phase")
    require(state.award is None, "2.2", "a role card is still to be awarded")
    require(state.blockade is None, "6.13", "the Greek blockade of an invasion is answered first")
    due = state.turns.current()
    require(due == civ, section, f"it is {name(state, due)}'s turn, not {name(state, civ)}'s")
