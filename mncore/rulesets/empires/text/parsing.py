"""What every phase's text module shares: the parsing context, the parser type and the usage check."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mncore.core.bounds import shown as shown
from mncore.core.errors import InvalidCommand
from mncore.rulesets.empires.commands import AnyOrder
from mncore.rulesets.empires.game_data import load_ruleset
from mncore.rulesets.empires.ids import COIN, Empire, Token, commodity_of, is_legendary
from mncore.rulesets.empires.state import GameState


@dataclass(frozen=True)
class Ctx:
    """What a parser needs: the state (for names) and who gives the order."""

    state: GameState
    empire: Empire


Parser = Callable[[Ctx, list[str]], AnyOrder]


def need(words: list[str], count: int, usage: str) -> None:
    """Refuse an order line with too few or too many words, showing its usage."""
    if len(words) != count:
        raise InvalidCommand(f"usage: {usage}")


# Numbers a rule only compares (a die's face, an exchange marker's value) have no component to bound
# them: this ceiling keeps them small enough to read and store, and the rules still judge the rest.
NUMBER_CEILING = 999
_MAX_DIGITS = 6  # longer digit strings are refused before int() reads them


def is_number(word: str) -> bool:
    """Whether word is a count as orders write them: ASCII digits only ('²' and '٣' are not)."""
    return word.isascii() and word.isdigit()


def bounded(word: str, field: str, limit: int, what: str = "") -> int:
    """The number word writes, refused (InvalidCommand) unless it is 0..limit.

    The bound is checked on the text before anything is allocated from it, so `offer 2147483648 wine`
    costs nothing; the message names the field, the value and the limit (and what sets the limit).
    """
    if not is_number(word):
        raise InvalidCommand(f"{field}: '{shown(word)}' is not a whole number")
    if len(word.lstrip("0")) > _MAX_DIGITS or int(word) > limit:
        because = f" ({what})" if what else ""
        raise InvalidCommand(f"{field}: {shown(word)} is more than {limit}{because}")
    return int(word)


def token_limit(token: Token) -> tuple[int, str]:
    """How many of a resource token the game has (Game Components), and those words for a message."""
    comp = load_ruleset().components
    if token == COIN:
        return comp.coins, f"the game has {comp.coins} coins"
    if is_legendary(token):
        n = comp.legendary_per_commodity
        return n, f"the game has {n} {token}"
    n = comp.commodities.get(commodity_of(token), 0)  # type: ignore[call-overload]
    return n, f"the game has {n} {token}"


def token_count(word: str | None, token: Token, field: str) -> int:
    """The count written before a token (1 if none), bounded by the supply of that token."""
    if word is None:
        return 1
    limit, what = token_limit(token)
    return bounded(word, field, limit, what)
