"""Owners' card powers (ruling C16): a vocabulary of effects the rules already have, combined per card."""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec

from mncore.core.errors import InvalidCommand
from mncore.rulesets.classic.components import Board, game_data
from mncore.rulesets.classic.ids import TAX

Count = Annotated[int, msgspec.Meta(ge=1)]


class Effect(msgspec.Struct, frozen=True, tag=True, forbid_unknown_fields=True, kw_only=True):
    """One effect, written {type = "<ClassName>", ...fields} in an owner's file."""


class ExtraCards(Effect, frozen=True, kw_only=True):
    """Commerce, with the revenues (3.1): `count` more `card` cards (tax or a commodity)."""

    card: str
    count: Count = 1


class AutoSix(Effect, frozen=True, kw_only=True):
    """Military, each ground battle the owner fights (6.7, 6.8): `count` more automatic sixes."""

    count: Count = 1


class Discount(Effect, frozen=True, kw_only=True):
    """Construction (5.3): `item` costs `by` cards fewer, never less than 1 (ruling C18)."""

    item: str
    by: Count = 1


class IgnoreBlockade(Effect, frozen=True, kw_only=True):
    """Military (6.13): the owner's invasions by sea are never stopped by a blockade."""


class FreeUnit(Effect, frozen=True, kw_only=True):
    """Construction, as the phase begins (5): a `unit` in the owner's capital for nothing, where 5.7-5.9
    allow it there."""

    unit: Literal["legion", "trireme", "fortress", "creature"]


class WinWith(Effect, frozen=True, kw_only=True):
    """Victory (7.2, 7.3): the owner wins holding `cards` heroes and wonders."""

    cards: Count


AnyEffect = ExtraCards | AutoSix | Discount | IgnoreBlockade | FreeUnit | WinWith
# said by mn new and mn show of a game created without an owner's tiles file
NO_POWERS = ("No owner's tiles file: heroes, wonders, gods and creatures have the rules' effects only, no "
             "powers of their own (ruling classic:C3; docs/classic-tiles.md, mn new --option tiles=FILE).")
LASTING = (AutoSix, Discount, IgnoreBlockade, WinWith)  # a god's: for the rest of the phase (C17)


class Power(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    """One card's power: its printed words for readers and the effects the engine applies."""

    card: str
    text: str = ""
    effects: tuple[AnyEffect, ...]


class TilesFile(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """An owner's file: `[[power]]` entries."""

    power: tuple[Power, ...] = ()


class Powers(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    """What a game plays with, recorded whole in its first event: the file's powers and its SHA-256."""

    sha256: str
    power: tuple[Power, ...] = ()

    def of(self, card: str) -> tuple[AnyEffect, ...]:
        return _by_card(self).get(card, ())


@functools.cache
def _by_card(powers: Powers) -> dict[str, tuple[AnyEffect, ...]]:
    return {p.card: p.effects for p in powers.power}


def read(path: str, board: Board) -> Powers:
    """An owner's file as the powers a game records; InvalidCommand naming the field that is wrong."""
    try:
        raw = Path(path).read_bytes()
        parsed = msgspec.toml.decode(raw, type=TilesFile)
    except OSError as err:
        raise InvalidCommand(f"cannot read tiles file {path}: {err.strerror}") from None
    except msgspec.DecodeError as err:  # ValidationError is a DecodeError; it names the field
        raise InvalidCommand(f"tiles file {path}: {err}") from None
    problems = check(parsed, board)
    if problems:
        raise InvalidCommand(f"tiles file {path}: " + "; ".join(problems))
    return Powers(sha256=hashlib.sha256(raw).hexdigest(), power=parsed.power)


def from_doc(doc: Any, board: Board, label: str = "powers") -> Powers:
    """Powers from plain data (a rule case's `[[power]]`), checked as a file is."""
    parsed = msgspec.convert({"power": doc}, type=TilesFile)
    problems = check(parsed, board)
    if problems:
        raise InvalidCommand(f"{label}: " + "; ".join(problems))
    return Powers(sha256=hashlib.sha256(msgspec.json.encode(parsed)).hexdigest(), power=parsed.power)


def check(parsed: TilesFile, board: Board) -> list[str]:
    """What is wrong in an owner's file, each naming its field (empty: nothing)."""
    data = game_data()
    gods = {g.id for g in data.god}
    known = {c.id for c in data.card if c.kind != "pyramids"} | gods | {c.id for c in data.creature}
    cards = [TAX, *sorted({r for p in board.province for r in p.resources})]
    out: list[str] = []
    seen: set[str] = set()
    for i, power in enumerate(parsed.power):
        at = f"power[{i}]"
        if power.card not in known:
            out.append(f"{at}.card: '{power.card}' is not a hero, wonder, god or creature of the game data "
                       "(the Pyramids' power is the win, 7.1)")
        if power.card in seen:
            out.append(f"{at}.card: {power.card} has a power already")
        seen.add(power.card)
        if not power.effects:
            out.append(f"{at}.effects: a power has at least one effect")
        for j, effect in enumerate(power.effects):
            out += [f"{at}.effects[{j}].{p}" for p in _effect_problems(effect, cards, power.card in gods)]
    return out


def _effect_problems(effect: AnyEffect, cards: list[str], god: bool) -> list[str]:
    match effect:
        case ExtraCards(card=card) if card not in cards:
            return [f"card: '{card}' is not a resource card of the board: {', '.join(cards)}"]
        case Discount(item=item) if item not in game_data().cost:
            return [f"item: '{item}' has no price; one of {', '.join(game_data().cost)}"]
        case WinWith() if god:
            return ["type: WinWith is not a god's effect (a god's power lasts one phase, ruling C17)"]
    return []


def describe_effect(effect: AnyEffect) -> str:
    """An effect in words, for the log and the options."""
    match effect:
        case ExtraCards(card=card, count=n):
            return f"{n} more {card} card(s) with the revenues"
        case AutoSix(count=n):
            return f"{n} more automatic 6 in each ground battle"
        case Discount(item=item, by=by):
            return f"{'a hero or wonder' if item == 'hero' else item} costs {by} card(s) fewer"
        case IgnoreBlockade():
            return "invasions by sea pass any blockade"
        case FreeUnit(unit=unit):
            return f"a free {unit} in the capital as Construction begins"
        case WinWith(cards=n):
            return f"wins holding {n} heroes and wonders"
    return type(effect).__name__
