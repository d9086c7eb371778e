"""Trade orders as text, and sentences for trade events."""

from __future__ import annotations

from mncore import events as ev
from mncore.commands import AnyOrder, PlayExchangeMarker
from mncore.errors import InvalidCommand
from mncore.ids import Empire
from mncore.text import Ctx, need, title


def _trade(ctx: Ctx, words: list[str]) -> AnyOrder:
    need(words, 1, "trade VALUE   (play the exchange marker showing VALUE: 5, 0, 2, 1, 4 or 3)")
    if not words[0].isdigit():
        raise InvalidCommand(f"trade takes a number, not '{words[0]}'")
    return PlayExchangeMarker(empire=ctx.empire, value=int(words[0]))


VERBS = {"trade": _trade}


def format_order(order: AnyOrder) -> str | None:
    match order:
        case PlayExchangeMarker(value=value):
            return f"trade {value}"
    return None


def describe(event: ev.AnyEvent, viewer: Empire | None) -> str | None:
    match event:
        case ev.ExchangeMarkerPlayed(empire=emp, value=value):
            return f"{title(emp)}, the Trade Leader, plays the exchange marker for {value}."
    return None
