"""The Punic War's Barbarian orders as text (barbarians move, attack barbarians, peace with barbarians) and
sentences for their events."""

from __future__ import annotations

from mncore.core.errors import InvalidCommand
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.commands import AnyOrder, AttackBarbarians, MoveBarbarians, PeaceWithBarbarians
from mncore.rulesets.empires.display_names import title
from mncore.rulesets.empires.game_data import load_ruleset
from mncore.rulesets.empires.text.parsing import Ctx
from mncore.rulesets.empires.text.sandbox import parse_dice
from mncore.rulesets.empires.text.trade import parse_token
from mncore.rulesets.empires.typed_names import resolve_empire, resolve_place, resolve_province, resolve_sea
from mncore.secrecy.seen import Withheld

USAGE = {
    "barbarians": "barbarians move legion|trireme PLACE to PLACE pay coin|gold [dice barbarians=N,... "
                  "EMPIRE=N,...]   (the Punic War; dice: sandboxes)",
    "attack": "attack barbarians in SEA|PROVINCE [dice barbarians=N,... EMPIRE=N,...]",
}
BARBARIANS = "barbarians"


def _dice(words: list[str], usage: str) -> tuple[list[str], dict[str, tuple[int, ...]]]:
    """The words before 'dice', and the fixed dice after it, keyed 'barbarians' or by empire."""
    lowered = [w.lower() for w in words]
    if "dice" not in lowered:
        return words, {}
    at = lowered.index("dice")
    specs = words[at + 1:]
    if not specs:
        raise InvalidCommand(f"usage: {usage}")
    dice: dict[str, tuple[int, ...]] = {}
    for spec in specs:
        who, _, faces = spec.partition("=")
        key = BARBARIANS if who.lower() == BARBARIANS else resolve_empire(load_ruleset(), who)
        dice[key] = parse_dice([faces], usage)
    return words[:at], dice


def parse_move(ctx: Ctx, words: list[str]) -> AnyOrder:
    """barbarians move legion|trireme FROM to TO pay TOKEN [dice ...]"""
    usage = USAGE["barbarians"]
    words, dice = _dice(words, usage)
    lowered = [w.lower() for w in words]
    if (len(words) < 7 or lowered[0] != "move" or lowered[1] not in ("legion", "trireme")
            or "to" not in lowered or lowered[-2] != "pay"):
        raise InvalidCommand(f"usage: {usage}")
    to = lowered.index("to")
    src, dst = " ".join(words[2:to]), " ".join(words[to + 1:-2])
    if not src or not dst:
        raise InvalidCommand(f"usage: {usage}")
    board = ctx.state.geo_board
    pay = parse_token(words[-1:], usage)
    if lowered[1] == "trireme":
        return MoveBarbarians(empire=ctx.empire, unit="trireme", from_place=resolve_sea(board, src),
                              to_place=resolve_sea(board, dst), pay=pay, dice=dice)
    return MoveBarbarians(empire=ctx.empire, unit="legion", from_place=resolve_province(board, src),
                          to_place=resolve_province(board, dst), pay=pay, dice=dice)


def parse_attack(ctx: Ctx, words: list[str]) -> AnyOrder:
    """attack barbarians in PLACE [dice ...] (words after 'attack barbarians')"""
    usage = USAGE["attack"]
    words, dice = _dice(words, usage)
    if len(words) < 2 or words[0].lower() != "in":
        raise InvalidCommand(f"usage: {usage}")
    return AttackBarbarians(empire=ctx.empire, place=resolve_place(ctx.state.geo_board, " ".join(words[1:])),
                            dice=dice)


def peace(ctx: Ctx) -> AnyOrder:
    return PeaceWithBarbarians(empire=ctx.empire)


VERBS = {"barbarians": parse_move}


def _fixed(dice: dict[str, tuple[int, ...]]) -> str:
    return (" dice " + " ".join(f"{k}={','.join(map(str, v))}" for k, v in dice.items())) if dice else ""


def format_order(order: AnyOrder) -> str | None:
    match order:
        case MoveBarbarians(unit=unit, from_place=src, to_place=dst, pay=pay, dice=dice):
            return f"barbarians move {unit} {src} to {dst} pay {pay}" + _fixed(dice)
        case AttackBarbarians(place=place, dice=dice):
            return f"attack barbarians in {place}" + _fixed(dice)
        case PeaceWithBarbarians():
            return "peace with barbarians"
    return None


def _name(place: str) -> str:
    return title(place)


def describe(event: ev.AnyEvent, withheld: Withheld) -> str | None:
    match event:
        case ev.BarbariansMoved(empire=emp, unit=unit, from_place=src, to_place=dst, paid=paid):
            return (f"{title(emp)} pays {title(paid)} to move a Barbarian {unit} from {_name(src)} to "
                    f"{_name(dst)}.")
        case ev.BarbarianBattleFought(place=place, kind=kind, attacker=attacker, empire=side, barbarians=b,
                                      barbarians_lost=lost, losses=losses):
            who = ("the Barbarians attacking " + title(side.empire) if attacker == "barbarians"
                   else title(side.empire) + " attacking the Barbarians")
            dice = "+".join(map(str, b.dice)) or "no dice"
            fort = f" +{b.fortress} (fortress)" if b.fortress else ""
            mods = "".join(f" +{n} ({title(k)})" for k, n in sorted(side.modifiers.items()))
            mine = "+".join(map(str, side.dice)) or "no dice"
            return (f"{kind.title()} battle in {_name(place)}, {who}: the Barbarians rolled {dice}{fort} = "
                    f"{b.total}: {b.hits} hit(s); {title(side.empire)} rolled {mine}{mods} = {side.total}: "
                    f"{side.hits} hit(s). The Barbarians lose {lost} unit(s); {title(side.empire)} must "
                    f"lose {losses}.")
        case ev.BarbarianPeaceDeclared(empire=emp):
            return f"{title(emp)} declares peace with the Barbarians for this round (Statue of Zeus)."
    return None
