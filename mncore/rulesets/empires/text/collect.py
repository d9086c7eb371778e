"""Collect orders as text (`bonus judea coin`, `colossus wine`), sentences for collect events, redaction."""

from __future__ import annotations

from mncore.core.errors import InvalidCommand
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.commands import AnyOrder, ChooseLegendaryBonus, TakeColossusCommodity
from mncore.rulesets.empires.display_names import title
from mncore.rulesets.empires.game_data import load_ruleset
from mncore.rulesets.empires.state import Bag
from mncore.rulesets.empires.text.parsing import Ctx, need
from mncore.rulesets.empires.typed_names import resolve, resolve_commodity
from mncore.secrecy.seen import Withheld

BONUS_USAGE = "bonus PROVINCE coin|legendary   (e.g. bonus judea coin, bonus ierusalem legendary)"


def _bonus(ctx: Ctx, words: list[str]) -> AnyOrder:
    need(words, 2, BONUS_USAGE)
    take = words[1].lower()
    if take not in ("coin", "legendary"):
        raise InvalidCommand(f"take 'coin' or 'legendary', not '{words[1]}'; usage: {BONUS_USAGE}")
    province = _legendary_province(ctx, words[0])
    return ChooseLegendaryBonus(empire=ctx.empire, province=province,
                                take="coin" if take == "coin" else "legendary")


def _legendary_province(ctx: Ctx, text: str) -> str:
    """A province with a legendary city space, named by itself or by its city ("Ierusalem")."""
    board = ctx.state.geo_board
    entries = {p.id: (p.name, *p.aliases, *(s.name for s in p.spaces if s.kind == "legendary" and s.name))
               for p in board.provinces if any(s.kind == "legendary" for s in p.spaces)}
    return resolve("province with a legendary city", text, entries)


def _colossus(ctx: Ctx, words: list[str]) -> AnyOrder:
    need(words, 1, "colossus COMMODITY   (take one commodity from the reserve, e.g. colossus wine)")
    return TakeColossusCommodity(empire=ctx.empire, commodity=resolve_commodity(load_ruleset(), words[0]))


VERBS = {"bonus": _bonus, "colossus": _colossus}


def format_order(order: AnyOrder) -> str | None:
    match order:
        case ChooseLegendaryBonus(province=province, take=take):
            return f"bonus {province} {take}"
        case TakeColossusCommodity(commodity=commodity):
            return f"colossus {commodity}"
    return None


def _bag_words(bag: Bag) -> str:
    parts = [f"{n} {title(t)}" for t, n in sorted(bag.items())]
    return ", ".join(parts) if parts else "nothing"




def describe(event: ev.AnyEvent, withheld: Withheld) -> str | None:
    match event:
        case ev.ResourcesCollected(empire=emp, gained=gained, missed=missed, drawn=drawn):
            # others read the public part only (text/hidden.py), and how many were drawn face down
            text = f"{title(emp)} collected {_bag_words(gained)}"
            if drawn and "payload/gained" in withheld:
                text += f" and {drawn} legendary commodit{'y' if drawn == 1 else 'ies'} face down"
            if missed:
                text += f"; the reserve was short of {_bag_words(missed)} (ruling R20)"
            return text + "."
        case ev.LegendaryPileReshuffled():
            return "The legendary discard pile was shuffled into a new face-down draw pile."
        case ev.CollectChoicesOpened(legendary=choices, colossus=colossus):
            parts = [f"{title(emp)} chooses a coin or a legendary commodity for {title(pid)}"
                     for emp, pid in choices]
            parts += [f"{title(emp)} takes a commodity with the Colossus of Rhodes" for emp in colossus]
            return "Open choices: " + "; ".join(parts) + "."
        case ev.LegendaryBonusTaken(empire=emp, province=pid, take=take, gained=gained):
            what = ("an extra coin" if take == "coin" else
                    f"a legendary {title(next(iter(gained)).removeprefix('legendary-'))}"
                    if gained else
                    "a legendary commodity face down")
            return f"{title(emp)} took {what} for the temple by the legendary city in {title(pid)}."
        case ev.ColossusCommodityTaken(empire=emp, commodity=commodity):
            return f"{title(emp)} took 1 {title(commodity)} from the reserve with the Colossus of Rhodes."
    return None
