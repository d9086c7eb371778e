"""The expansions' orders as text (draw, choose, play, halicarnassus) and sentences for their events."""

from __future__ import annotations

from mncore.core.errors import InvalidCommand
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.cities import card_info, load_city, objective_info
from mncore.rulesets.empires.commands import (
    AnyOrder,
    ChooseBonusCard,
    DrawBonusCards,
    LaunchFreeTrireme,
    PlaceHalicarnassus,
    PlayBonusCard,
    TakeDiscards,
)
from mncore.rulesets.empires.display_names import tile_name, title
from mncore.rulesets.empires.game_data import load_ruleset
from mncore.rulesets.empires.ids import TRACKS, Track
from mncore.rulesets.empires.state import bag_of
from mncore.rulesets.empires.text.build import parse_tokens, show_tokens
from mncore.rulesets.empires.text.military import resolve_space
from mncore.rulesets.empires.text.parsing import Ctx, Parser, bounded, need
from mncore.rulesets.empires.typed_names import (
    resolve_empire,
    resolve_place,
    resolve_province,
    resolve_sea,
    resolve_tile,
)
from mncore.secrecy.seen import Withheld

PLAY_USAGE = ("play CARD [as CARD] [in PROVINCE|SEA] [at SPACE] [on EMPIRE] [track TRACK] [sea SEA] "
              "[take TOKENS] [pay TOKENS]   (e.g. play poseidon in mare-ionium on greece; "
              "play fortune-tellers as horus track culture)")
KEYWORDS = ("as", "in", "at", "on", "track", "sea", "take", "pay")


def _card_id(word: str) -> str:
    key = word.lower().replace(" ", "-")
    try:
        card_info(key)
    except KeyError:
        raise InvalidCommand(f"unknown Bonus Card '{word}'") from None
    return key


def _draw(ctx: Ctx, words: list[str]) -> AnyOrder:
    need(words, 1, "draw N   (1 to 5 Bonus Cards, once you fulfilled an Objective)")
    return DrawBonusCards(empire=ctx.empire, count=bounded(words[0], "cards drawn", 99))


def _choose(ctx: Ctx, words: list[str]) -> AnyOrder:
    usage = "choose CARD [pass EMPIRE]   (keep one card, hand the rest to an empire with none yet)"
    if len(words) not in (1, 3) or (len(words) == 3 and words[1].lower() != "pass"):
        raise InvalidCommand(f"usage: {usage}")
    to = resolve_empire(load_ruleset(), words[2]) if len(words) == 3 else None
    return ChooseBonusCard(empire=ctx.empire, card=_card_id(words[0]), to=to)


def _play(ctx: Ctx, words: list[str]) -> AnyOrder:
    if not words:
        raise InvalidCommand(f"usage: {PLAY_USAGE}")
    parts: dict[str, list[str]] = {}
    key = ""
    for word in words[1:]:
        if word.lower() in KEYWORDS and (key == "" or parts[key]):
            key = word.lower()
            if key in parts:
                raise InvalidCommand(f"'{key}' is given twice; usage: {PLAY_USAGE}")
            parts[key] = []
        elif key:
            parts[key].append(word)
        else:
            raise InvalidCommand(f"usage: {PLAY_USAGE}")
    if any(not v for k, v in parts.items()):
        raise InvalidCommand(f"usage: {PLAY_USAGE}")
    board = ctx.state.geo_board
    place = resolve_place(board, " ".join(parts["in"])) if "in" in parts else ""
    space = resolve_space(ctx.state, resolve_province(board, place), " ".join(parts["at"])) if "at" in parts else ""
    target = resolve_empire(load_ruleset(), " ".join(parts["on"])) if "on" in parts else None
    track: Track | None = None
    if "track" in parts:
        word = " ".join(parts["track"]).lower()
        if word not in TRACKS:
            raise InvalidCommand(f"unknown track '{word}' (trade, culture or military)")
        track = word
    pay = bag_of(parse_tokens(parts["pay"])) if "pay" in parts else {}
    take = bag_of(parse_tokens(parts["take"])) if "take" in parts else {}
    sea = resolve_sea(board, " ".join(parts["sea"])) if "sea" in parts else ""
    return PlayBonusCard(empire=ctx.empire, played=_card_id(words[0]),
                         as_card=_card_id(" ".join(parts["as"])) if "as" in parts else None,
                         place=place, space=space, target=target, track=track, pay=pay, take=take, sea=sea)


def _launch(ctx: Ctx, words: list[str]) -> AnyOrder:
    usage = "launch HERO in SEA   (the free trireme of Archimedes or Ptolemy)"
    if len(words) < 3 or words[1].lower() != "in":
        raise InvalidCommand(f"usage: {usage}")
    return LaunchFreeTrireme(empire=ctx.empire, tile=resolve_tile(load_ruleset(), words[0]),
                             sea=resolve_sea(ctx.state.geo_board, " ".join(words[2:])))


def _halicarnassus(ctx: Ctx, words: list[str]) -> AnyOrder:
    if not words:
        raise InvalidCommand("usage: halicarnassus PROVINCE   (where its miniature stands, 11.halicarnassus)")
    return PlaceHalicarnassus(empire=ctx.empire, province=resolve_province(ctx.state.geo_board, " ".join(words)))


TAKE_USAGE = "take COMMODITY [COMMODITY] | take nothing   (Dido: of the commodities opponents lost as Build ended)"


def _take(ctx: Ctx, words: list[str]) -> AnyOrder:
    if not words:
        raise InvalidCommand(f"usage: {TAKE_USAGE}")
    tokens = parse_tokens(words) if [w.lower() for w in words] != ["nothing"] else []
    return TakeDiscards(empire=ctx.empire, take=bag_of(tokens))


VERBS: dict[str, Parser] = {"draw": _draw, "choose": _choose, "play": _play, "halicarnassus": _halicarnassus,
                            "launch": _launch, "take": _take}


def format_order(order: AnyOrder) -> str | None:
    match order:
        case DrawBonusCards(count=n):
            return f"draw {n}"
        case ChooseBonusCard(card=c, to=to):
            return f"choose {c}" + (f" pass {to}" if to else "")
        case TakeDiscards(take=taken):
            return f"take {show_tokens(taken)}"
        case PlayBonusCard():
            line = f"play {order.played}" + (f" as {order.as_card}" if order.as_card else "")
            line += f" in {order.place}" if order.place else ""
            line += f" at {order.space}" if order.space else ""
            line += f" on {order.target}" if order.target else ""
            line += f" track {order.track}" if order.track else ""
            line += f" sea {order.sea}" if order.sea else ""
            take = " ".join(t for t in sorted(order.take) for _ in range(order.take[t]))
            line += f" take {take}" if take else ""
            pay = " ".join(t for t in sorted(order.pay) for _ in range(order.pay[t]))
            return line + (f" pay {pay}" if pay else "")
        case PlaceHalicarnassus(province=pid):
            return f"halicarnassus {pid}"
        case LaunchFreeTrireme(tile=t, sea=sea):
            return f"launch {t} in {sea}"
    return None


# --- sentences ---------------------------------------------------------------------------------------------

def _name(card: str) -> str:
    return card_info(card)[1].name if card else "a card"


def _names(cards: tuple[str, ...]) -> str:
    return ", ".join(_name(c) for c in cards)




def _place(event_place: str) -> str:
    from mncore.rulesets.empires.board import load_board
    board = load_board()
    names = {p.id: p.name for p in board.provinces} | {s.id: s.name for s in board.seas}
    return names.get(event_place, event_place)


def describe(event: ev.AnyEvent, withheld: Withheld) -> str | None:
    match event:
        case ev.CitiesSetUp():
            cities = [load_city(x) for x in event.expansions]
            return (f"Legendary City expansions: {', '.join(c.name for c in cities)}. "
                    f"{', '.join(tile_name(t) for t in event.added)} replace "
                    f"{', '.join(tile_name(t) for t in event.removed)}; Objective tiles face up: "
                    f"{', '.join(objective_info(o)[1].name for o in event.objectives)}; "
                    + "; ".join(f"the {c.deck} deck of {len(event.decks[c.id])} Bonus Cards face down"
                                for c in cities) + ".")
        case ev.ObjectiveFulfilled(empire=emp, objective=o, detail=detail, draws=draws):
            info = objective_info(o)[1]
            then = "" if draws else "; its deck is empty, no card is drawn (ruling R203)"
            return (f"{title(emp)} fulfilled the Objective {info.name}"
                    + (f" ({detail})" if detail else "") + f": the tile is turned to its used side{then}.")
        case ev.BonusCardsDrawn(empire=emp, deck=deck, count=n, cards=cards):
            seen = f": {_names(cards)}" if "payload/cards" not in withheld and cards else ", face down"
            return f"{title(emp)} drew {n} {load_city(deck).deck} Bonus Card{'s' * (n != 1)}{seen}."
        case ev.BonusCardKept(empire=emp, card=card):
            return f"{title(emp)} kept {_name(card) if 'payload/card' not in withheld and card else 'one card'}, face down."
        case ev.BonusCardsPassed(empire=emp, to=to, count=n, cards=cards):
            what = _names(cards) if "payload/cards" not in withheld and cards else f"{n} card{'s' * (n != 1)}"
            return f"{title(emp)} passed {what} to {title(to)}."
        case ev.BonusCardsDiscarded(empire=emp, count=n, cards=cards):
            what = _names(cards) if "payload/cards" not in withheld and cards else f"{n} card{'s' * (n != 1)}"
            return f"{title(emp)} discarded {what}: every empire has received a card."
        case ev.DiscardCardDrawn(empire=emp, tile=t, card=card):
            what = _name(card) if "payload/card" not in withheld and card else "a card"
            return f"{title(emp)} drew {what} from the discard pile ({tile_name(t)})."
        case ev.BonusCardPlayed(empire=emp, played=card, as_card=as_card):
            if as_card:
                return f"{title(emp)} played two {_name(card)} as {_name(as_card)}."
            return f"{title(emp)} played {_name(card)}."
        case ev.TriremeSunk(owner=owner, sea=sea):
            return f"{title(owner)}'s trireme in {_place(sea)} was destroyed."
        case ev.BuildingDestroyed(owner=owner, province=pid, kind=kind):
            whose = f"{title(owner)}'s " if owner else "the "
            return f"{whose}{kind} in {_place(pid)} was destroyed."
        case ev.LeaderBoosted(empire=emp, track=track, amount=n):
            return f"{title(emp)} gains +{n} on the {title(track)} track until the end of the round."
        case ev.ProvinceOpened(empire=emp, province=pid):
            return f"{title(emp)} may build in {_place(pid)} this round, whatever opponent units stand there."
        case ev.ProvinceShielded(province=pid):
            return f"{_place(pid)} is protected from land battles, pillage and occupation this round."
        case ev.HalicarnassusPlaced(empire=emp, province=pid):
            return f"{title(emp)} placed the Halicarnassus miniature in {_place(pid)}: it may not be attacked."
        case ev.TollPaid(empire=emp, to=to, province=pid):
            return f"{title(emp)} paid {title(to)} a coin to attack in {_place(pid)} (Solomon)."
        case ev.FreeTriremeBuilt(empire=emp, tile=t, sea=sea):
            return f"{title(emp)} built {tile_name(t)}'s free trireme in {_place(sea)}."
        case ev.DiscardsOffered(empire=emp, tile=t, lost=lost, keep=keep):
            what = f" ({show_tokens(lost)})" if "payload/lost" not in withheld else ""
            return (f"{title(emp)} may take up to {keep} of the commodities the opponents lost{what} "
                    f"with {tile_name(t)}.")
        case ev.DiscardsTaken(empire=emp, tile=t, taken=taken):
            what = show_tokens(taken) if "payload/taken" not in withheld and taken else "discarded commodities"
            return f"{title(emp)} took {what} with {tile_name(t)}."
        case ev.OfferChanged(empire=emp, offer=offer):
            return f"{title(emp)} changed its offer to {show_tokens(offer)}."
        case ev.ResourceForced(empire=emp, to=to, token=token):
            return f"{title(to)} is forced to take {token} from {title(emp)}'s offer."
        case ev.MyrmidonsBuilt(empire=emp, province=pid, paid=paid):
            how = f"rebuilds them, paying {show_tokens(paid)}" if paid else "places them at no cost"
            return f"{title(emp)}'s Myrmidons (Achilles): {title(emp)} {how} in {_place(pid)}."
        case ev.BattleCardReady(empire=emp, played=card, place=place):
            return f"{title(emp)}'s {_name(card)} will fight in the next battle in {_place(place)} this turn."
        case ev.ChariotsHarnessed(empire=emp):
            return f"{title(emp)}'s legions may move a second step this turn (Chariots)."
        case ev.LossImposed(owner=owner, place=place):
            return f"{title(owner)} must lose one unit of its choice in {_place(place)} (Cretan Archers)."
        case ev.BattleWon(empire=emp, place=place, over=over):
            return f"{title(emp)} won the battle in {_place(place)} over {title(over)}: a Battle Victory marker."
    return None
