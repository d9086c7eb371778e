"""Sandbox orders as text (fix dice, fix legendary, fix tile, fix clear) and sentences for their events."""

from __future__ import annotations

from mncore.core.errors import InvalidCommand
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.commands import AnyOrder, ClearFixedOutcomes, FixOutcome
from mncore.rulesets.empires.display_names import tile_name, title
from mncore.rulesets.empires.game_data import load_ruleset
from mncore.rulesets.empires.ids import LEGENDARY_PREFIX
from mncore.rulesets.empires.state import FixedBarbarianDice, FixedDice, FixedLegendary, FixedOutcome, FixedTile
from mncore.rulesets.empires.text.parsing import NUMBER_CEILING, Ctx, Parser, bounded, is_number
from mncore.rulesets.empires.typed_names import resolve_commodity, resolve_empire, resolve_tile
from mncore.secrecy.seen import Withheld

USAGE = ("fix dice EMPIRE|barbarians N [N ...] | fix legendary COMMODITY | fix tile TILE | fix clear   "
         "(sandboxes only: the next battle dice of EMPIRE or the Barbarians, legendary commodity drawn, "
         "tile turned up)")


def parse_dice(words: list[str], usage: str) -> tuple[int, ...]:
    """Dice as `5 4 3` or `5,4,3`; InvalidCommand with the usage if one is not a number."""
    faces = [w for word in words for w in word.split(",") if w]
    if not faces or not all(is_number(f) for f in faces):
        raise InvalidCommand(f"usage: {usage}")
    # a face the dice lack is the rules' to refuse (R1); only an unreadable number is refused here
    return tuple(bounded(f, "die face", NUMBER_CEILING) for f in faces)


def _fix(ctx: Ctx, words: list[str]) -> AnyOrder:
    what = words[0].lower() if words else ""
    rest = words[1:]
    rs = load_ruleset()
    outcome: FixedOutcome
    if what == "clear" and not rest:
        return ClearFixedOutcomes(empire=ctx.empire)
    if what == "dice" and len(rest) >= 2 and rest[0].lower() == "barbarians":  # the Punic War (R7)
        outcome = FixedBarbarianDice(dice=parse_dice(rest[1:], USAGE))
    elif what == "dice" and len(rest) >= 2:
        outcome = FixedDice(empire=resolve_empire(rs, rest[0]), dice=parse_dice(rest[1:], USAGE))
    elif what == "legendary" and rest:
        name = " ".join(rest)
        name = name[len(LEGENDARY_PREFIX):] if name.lower().startswith(LEGENDARY_PREFIX) else name
        outcome = FixedLegendary(commodity=resolve_commodity(rs, name))
    elif what == "tile" and rest:
        outcome = FixedTile(tile=resolve_tile(rs, " ".join(rest)))
    else:
        raise InvalidCommand(f"usage: {USAGE}")
    return FixOutcome(empire=ctx.empire, outcome=outcome)


VERBS: dict[str, Parser] = {"fix": _fix}


def format_order(order: AnyOrder) -> str | None:
    match order:
        case ClearFixedOutcomes():
            return "fix clear"
        case FixOutcome(outcome=FixedDice(empire=empire, dice=dice)):
            return f"fix dice {empire} {' '.join(map(str, dice))}"
        case FixOutcome(outcome=FixedBarbarianDice(dice=dice)):
            return f"fix dice barbarians {' '.join(map(str, dice))}"
        case FixOutcome(outcome=FixedLegendary(commodity=commodity)):
            return f"fix legendary {commodity}"
        case FixOutcome(outcome=FixedTile(tile=tile)):
            return f"fix tile {tile}"
    return None


# --- sentences ------------------------------------------------------------------------------------------

def _what(outcome: FixedOutcome) -> str:
    """The outcome fixed, in words."""
    match outcome:
        case FixedDice(empire=empire, dice=dice):
            return f"{title(empire)}'s dice for its next battle: {', '.join(map(str, dice))}"
        case FixedBarbarianDice(dice=dice):
            return f"the Barbarians' dice for their next battle: {', '.join(map(str, dice))}"
        case FixedLegendary(commodity=commodity):
            return ("the next legendary commodity drawn" +
                    (f": {title(commodity)}" if commodity else ", face down"))
        case FixedTile(tile=tile):
            return f"the next tile turned up: {tile_name(tile)}"


def describe(event: ev.AnyEvent, withheld: Withheld) -> str | None:
    match event:
        case ev.OutcomeFixed(empire=emp, outcome=outcome):
            return f"{title(emp)} fixes {_what(outcome)} (sandbox, ruling R7)."
        case ev.FixedOutcomeUsed(outcome=FixedDice(empire=emp, dice=dice), place=place):
            return (f"(fixed) {title(emp)}'s dice in {title(place)} are {', '.join(map(str, dice))}, "
                    "fixed in the sandbox, not rolled.")
        case ev.FixedOutcomeUsed(outcome=FixedBarbarianDice(dice=dice), place=place):
            return (f"(fixed) the Barbarians' dice in {title(place)} are {', '.join(map(str, dice))}, "
                    "fixed in the sandbox, not rolled.")
        case ev.FixedOutcomeUsed(outcome=FixedLegendary(commodity=commodity), empire=emp):
            what = f"a legendary {title(commodity)}" if commodity else "a legendary commodity"
            return (f"(fixed) {title(emp or 'nobody')} draws {what}, fixed in the sandbox, "
                    "not drawn at random.")
        case ev.FixedOutcomeUsed(outcome=FixedTile(tile=tile)):
            return (f"(fixed) {tile_name(tile)} is turned up, fixed in the sandbox instead of the "
                    "next face-down tile.")
        case ev.FixedOutcomesCleared(empire=emp, cleared=cleared):
            what = "; ".join(_what(o) for o in cleared) or "none was waiting"
            return f"{title(emp)} clears the fixed outcomes not yet used ({what}) (sandbox)."
    return None


def _hidden(outcome: FixedOutcome) -> FixedOutcome:
    return FixedLegendary(commodity=None) if isinstance(outcome, FixedLegendary) else outcome
