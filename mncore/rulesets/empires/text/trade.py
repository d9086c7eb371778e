"""Trade orders as text (`trade 4`, `offer coin coin wine`, `claim wine from greece`, `give oil to rome`)."""

from __future__ import annotations

from mncore.core.errors import InvalidCommand
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.commands import (
    AnyOrder,
    ClaimForeign,
    ClaimResource,
    DiscardOffered,
    GiveResource,
    OfferResources,
    PlayExchangeMarker,
)
from mncore.rulesets.empires.display_names import title
from mncore.rulesets.empires.game_data import load_ruleset
from mncore.rulesets.empires.ids import COIN, LEGENDARY_PREFIX, Empire, Token, legendary
from mncore.rulesets.empires.state import Bag
from mncore.rulesets.empires.text.parsing import NUMBER_CEILING, Ctx, bounded, is_number, need, shown, token_count
from mncore.rulesets.empires.typed_names import resolve_commodity, resolve_empire
from mncore.secrecy.seen import Withheld

OFFER_USAGE = ("offer TOKEN ...   (e.g. offer coin coin wine, offer 2 coin wine, offer legendary-wine, "
               "offer legendary wine; with Antigone also: offer nothing)")
CLAIM_USAGE = ("claim TOKEN from EMPIRE   (e.g. claim wine from greece, claim legendary-wine from rome; "
               "the Punic War: claim legendary-wine from foreign)")
DISCARD_USAGE = "discard TOKEN   (the Punic War: e.g. discard wine, discard legendary-oil)"
FOREIGN = "foreign"
GIVE_USAGE = "give TOKEN to EMPIRE   (e.g. give wine to rome)"


def _trade(ctx: Ctx, words: list[str]) -> AnyOrder:
    need(words, 1, "trade VALUE   (play the exchange marker showing VALUE: 5, 0, 2, 1, 4 or 3)")
    if not is_number(words[0]):
        raise InvalidCommand(f"trade takes a number, not '{shown(words[0])}'")
    return PlayExchangeMarker(empire=ctx.empire, value=bounded(words[0], "trade VALUE", NUMBER_CEILING))


def parse_token(words: list[str], usage: str) -> Token:
    """A resource token: coin, a commodity, legendary-COMMODITY or legendary COMMODITY (1.2)."""
    if not words or len(words) > 2:
        raise InvalidCommand(f"name one resource; usage: {usage}")
    first = words[0].lower()
    if len(words) == 2:
        if first != "legendary":
            raise InvalidCommand(f"'{' '.join(words)}' is not one resource; usage: {usage}")
        return legendary(resolve_commodity(load_ruleset(), words[1]))
    if first in ("coin", "coins"):
        return COIN
    if first.startswith("legendary-"):
        return legendary(resolve_commodity(load_ruleset(), first.removeprefix("legendary-")))
    return resolve_commodity(load_ruleset(), words[0])


def _offer(ctx: Ctx, words: list[str]) -> AnyOrder:
    if not words:
        raise InvalidCommand(f"usage: {OFFER_USAGE}")
    if len(words) == 1 and words[0].lower() in ("nothing", "none"):
        return OfferResources(empire=ctx.empire, tokens=())
    tokens: list[Token] = []
    i = 0
    while i < len(words):
        count_word = None
        if is_number(words[i]):
            count_word = words[i]
            i += 1
        if i >= len(words):
            raise InvalidCommand(f"a count must be followed by a resource; usage: {OFFER_USAGE}")
        width = 2 if words[i].lower() == "legendary" else 1
        token = parse_token(words[i:i + width], OFFER_USAGE)
        # bounded by the supply before the list is made: `offer 2147483648 wine` allocates nothing
        tokens += [token] * token_count(count_word, token, "offer count")
        i += width
    return OfferResources(empire=ctx.empire, tokens=tuple(tokens))


def _split(words: list[str], keyword: str, usage: str) -> tuple[list[str], str]:
    lowered = [w.lower() for w in words]
    if keyword not in lowered or lowered.index(keyword) != len(words) - 2:
        raise InvalidCommand(f"usage: {usage}")
    return words[:-2], words[-1]


def _claim(ctx: Ctx, words: list[str]) -> AnyOrder:
    token_words, empire = _split(words, "from", CLAIM_USAGE)
    if empire.lower() == FOREIGN:
        token = parse_token(token_words, CLAIM_USAGE)
        if not token.startswith(LEGENDARY_PREFIX):
            raise InvalidCommand(f"the Foreign Trade resources are legendary commodities: claim legendary-"
                                 f"{shown(token)} from foreign; usage: {CLAIM_USAGE}")
        return ClaimForeign(empire=ctx.empire, commodity=resolve_commodity(
            load_ruleset(), token.removeprefix(LEGENDARY_PREFIX)))
    return ClaimResource(empire=ctx.empire, token=parse_token(token_words, CLAIM_USAGE),
                         source=resolve_empire(load_ruleset(), empire))


def _give(ctx: Ctx, words: list[str]) -> AnyOrder:
    token_words, empire = _split(words, "to", GIVE_USAGE)
    return GiveResource(empire=ctx.empire, token=parse_token(token_words, GIVE_USAGE),
                        to=resolve_empire(load_ruleset(), empire))


def _discard(ctx: Ctx, words: list[str]) -> AnyOrder:
    return DiscardOffered(empire=ctx.empire, token=parse_token(words, DISCARD_USAGE))


VERBS = {"trade": _trade, "offer": _offer, "claim": _claim, "give": _give, "discard": _discard}


def format_order(order: AnyOrder) -> str | None:
    match order:
        case PlayExchangeMarker(value=value):
            return f"trade {value}"
        case OfferResources(tokens=tokens):
            return "offer " + (" ".join(tokens) if tokens else "nothing")
        case ClaimResource(token=token, source=source):
            return f"claim {token} from {source}"
        case GiveResource(token=token, to=to):
            return f"give {token} to {to}"
        case ClaimForeign(commodity=commodity):
            return f"claim {legendary(commodity)} from {FOREIGN}"
        case DiscardOffered(token=token):
            return f"discard {token}"
    return None


def _words(bag: Bag) -> str:
    return ", ".join(f"{n} {title(t)}" for t, n in sorted(bag.items())) or "nothing"


def _names(empires: tuple[Empire, ...] | list[Empire]) -> str:
    return ", ".join(title(e) for e in empires) or "nobody"


def _held(n: int) -> str:
    return "no resources" if n == 0 else f"only {n} resource{'s' * (n != 1)}"


def describe(event: ev.AnyEvent, withheld: Withheld) -> str | None:
    match event:
        case ev.ExchangeMarkerPlayed(empire=emp, value=value):
            return f"{title(emp)}, the Trade Leader, plays the exchange marker for {value}."
        case ev.TradeOpened(participants=takers, sitting_out=out, held=held, opener=opener):
            text = f"Trading: {_names(takers)} take{'s' * (len(takers) < 2)} part"
            if out:
                text += "; " + ", ".join(f"{title(e)} sits out, holding {_held(held.get(e, 0))}"
                                         for e in out) + " (ruling R23)"
            return text + (f"; {title(opener)} claims first." if opener else ".")
        case ev.ResourcesOffered(empire=emp, offer=bag, count=count):
            if "payload/offer" not in withheld:
                return f"{title(emp)} offered {_words(bag)} face down."
            return f"{title(emp)} placed {count} resource{'s' if count != 1 else ''} face down."
        case ev.OffersRevealed(offers=offers):
            shown = "; ".join(f"{title(e)}: {_words(b)}" for e, b in offers.items())
            return f"The offers are revealed: {shown}."
        case ev.ResourceClaimed(empire=emp, source=src, token=token):
            return f"{title(emp)} claimed {title(token)} from {title(src)}."
        case ev.TradingEnded(reason=reason, returned=returned):
            back = "; ".join(f"{_words(b)} back to {title(e)}" for e, b in returned.items())
            return f"Trading ended: {reason}." + (f" Unclaimed offers return: {back}." if back else "")
        case ev.ForeignCommodityDrawn(commodity=commodity):
            return f"A Foreign Trade {title(legendary(commodity))} is drawn face up (atlas.punic-trade)."
        case ev.ForeignCommodityClaimed(empire=emp, commodity=commodity):
            return f"{title(emp)} claimed the Foreign Trade {title(legendary(commodity))} (atlas.punic-trade)."
        case ev.OfferDiscarded(empire=emp, token=token):
            return f"{title(emp)} discarded {title(token)} from its offer: the Barbarians' claim (atlas.punic-trade)."
        case ev.ResourceGiven(empire=emp, to=to, token=token):
            return f"{title(emp)} gave {title(token)} to {title(to)}, who had claimed one too few (2.2.1)."
    return None
