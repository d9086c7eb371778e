"""The Commerce phase (3): revenues, then trading between players led by the Director of Commerce."""

from __future__ import annotations

from collections import Counter

from mncore.core.errors import require
from mncore.core.protocol import Option, Pending
from mncore.rulesets.classic import commands as cm
from mncore.rulesets.classic import events as ev
from mncore.rulesets.classic.ids import TAX
from mncore.rulesets.classic.rules import powers
from mncore.rulesets.classic.rules.common import name, require_in_hand
from mncore.rulesets.classic.rules.fold import Fold
from mncore.rulesets.classic.state import Built, Land, State, Units

# --- revenues (3.1) --------------------------------------------------------------------------------

def begin(state: State) -> list[ev.AnyEvent]:
    """Every player's income, in the phase's order, with the cards its powers add (C16)."""
    out: list[ev.AnyEvent] = []
    for civ in state.turns.order:
        cards: Counter[str] = Counter()
        for land in state.lands.values():
            cards.update(income(land, civ))
        out.append(ev.IncomeCollected(civ=civ, cards=dict(sorted(cards.items()))))
        out += powers.extra_cards(state, civ)
    return out


def income(land: Land, civ: str) -> Counter[str]:
    """What one province yields a civilisation: its own, or what its occupying units claim (3.1.1)."""
    holder, occupier = _claims(land)
    out: Counter[str] = Counter()
    for who, claimed in ((land.influence, holder), (land.occupier, occupier)):
        if who != civ:
            continue
        kinds = {b.kind for b in claimed}
        for b in claimed:
            if b.kind == "city":
                out[TAX] += 2 if "temple" in kinds else 1
            elif b.kind == "caravan":
                out[b.resource] += 2 if "market" in kinds else 1
    return out


def first_claims(land: Land) -> list[Built]:
    """The buildings in the order an occupier's units took them before he named them: cities and
    caravans as built, then the temple, then the market (the first choice listed, ruling C7)."""
    return ([b for b in land.buildings if b.kind in ("city", "caravan")]
            + [b for b in land.buildings if b.kind == "temple"] + [b for b in land.buildings if b.kind == "market"])


def _claims(land: Land) -> tuple[list[Built], list[Built]]:
    """The buildings each of the influence holder and the occupier collects from: the occupier's units
    stand on those he named, as many as he has units there, the first named first (ruling C7); a
    province occupied with no claims named (an older log, a position) takes them in first_claims' order."""
    if not land.occupier:
        return list(land.buildings), []
    units = land.units.get(land.occupier, Units()).movers()
    named = list(land.claims) if land.claims else first_claims(land)
    rest, taken = list(land.buildings), list[Built]()
    for b in named:
        if len(taken) < units and b in rest:  # a position may name a building the province lacks
            rest.remove(b)
            taken.append(b)
    return rest, taken


# --- trading (3.2) -------------------------------------------------------------------------------

def ask(state: State, cmd: cm.Ask) -> list[ev.AnyEvent]:
    director = state.roles.get("director", "")
    require(state.phase == "commerce" and state.trade.asked is None, "3.2.1",
            "the number of cards to offer is asked once, in the Commerce phase")
    require(cmd.civ == director, "3.2.1", f"the Director of Commerce, {name(state, director)}, asks")
    held = state.hand_size(cmd.civ)
    require(0 <= cmd.count <= held, "3.2.1", f"the Director may ask for 0 to {held} cards (his hand), "
                                             f"not {cmd.count}")
    traders = tuple(c for c in state.civs if state.hand_size(c) >= cmd.count) if cmd.count else ()
    events: list[ev.AnyEvent] = [ev.TradeAsked(civ=cmd.civ, count=cmd.count, traders=traders)]
    if len(traders) < 2:  # nobody to trade with (ruling C6)
        events.append(ev.TradeEnded())
    return events


def offer(state: State, cmd: cm.Offer) -> list[ev.AnyEvent]:
    t = state.trade
    require(state.phase == "commerce" and t.asked is not None and not t.revealed, "3.2.2",
            "cards are offered after the Director asks, before they are turned face up")
    require(cmd.civ in t.traders, "3.2.2", f"{name(state, cmd.civ)} holds fewer than the {t.asked} "
                                           "cards asked and does not trade this turn")
    require(cmd.civ not in t.offers, "3.2.2", f"{name(state, cmd.civ)} has already offered")
    require(len(cmd.cards) == t.asked, "3.2.2", f"offer exactly {t.asked} card{'s' * (t.asked != 1)}, not {len(cmd.cards)}")
    require_in_hand(state, cmd.civ, cmd.cards)
    events: list[ev.AnyEvent] = [ev.CardsOffered(civ=cmd.civ, cards=tuple(sorted(cmd.cards)))]
    offers = {**t.offers, cmd.civ: tuple(sorted(cmd.cards))}
    if set(offers) == set(t.traders):
        events.append(ev.OffersRevealed(offers={c: offers[c] for c in t.traders}))
    return events


def legal_sources(state: State, civ: str) -> list[str]:
    """Whom the taker may take from (3.2.4, 3.2.5): another with a face-up card, not a third trade
    in a row between the same two players."""
    t = state.trade
    recent = [frozenset(x) for x in t.last[-2:]]
    out = []
    for src in t.traders:
        if src == civ or not t.open.get(src):
            continue
        pair = frozenset((civ, src))
        if len(recent) == 2 and all(r == pair for r in recent):
            continue
        out.append(src)
    return out


def take(state: State, cmd: cm.Take, fold: Fold) -> list[ev.AnyEvent]:
    t = state.trade
    require(state.phase == "commerce" and t.revealed and not t.done and not t.short, "3.2.4",
            "cards are taken once the offers are face up")
    require(cmd.civ == t.taker, "3.2.4", f"{name(state, t.taker)} takes the next card")
    require(cmd.source != cmd.civ, "3.2.5", "a player takes from another player, and never a face-down card")
    require(cmd.card in t.open.get(cmd.source, ()), "3.2.4",
            f"{name(state, cmd.source)} has no {cmd.card} card face up")
    require(cmd.source in legal_sources(state, cmd.civ), "3.2.5",
            f"only 2 trades in a row may be made between {name(state, cmd.civ)} and "
            f"{name(state, cmd.source)}")
    events: list[ev.AnyEvent] = [ev.CardTaken(civ=cmd.civ, source=cmd.source, card=cmd.card)]
    return events + after_take(state, cmd, fold)


def after_take(state: State, cmd: cm.Take, fold: Fold) -> list[ev.AnyEvent]:
    """The chain's end: all taken (the one short gets the Director's card, 3.2.6), or stuck (C6)."""
    t = state.trade
    rest = {c: list(cards) for c, cards in t.open.items()}
    rest[cmd.source].remove(cmd.card)
    if not any(rest.values()):
        taken = {c: len(t.taken.get(c, ())) + (1 if c == cmd.civ else 0) for c in t.traders}
        short = [c for c in t.traders if taken[c] < (t.asked or 0)]
        if short and short[0] != state.roles.get("director"):
            return []  # the Director gives a card: see give()
        return [ev.TradeEnded()]
    nxt = fold([ev.CardTaken(civ=cmd.civ, source=cmd.source, card=cmd.card)], state)  # the chain's next step
    if legal_sources(nxt, cmd.source):
        return []
    return [ev.TradeEnded(returned={c: tuple(v) for c, v in rest.items() if v})]


def short_player(state: State) -> str:
    """Who is one card short once every card is taken (3.2.6), or ""."""
    t = state.trade
    if not t.revealed or t.done or any(t.open.values()):
        return ""
    return next((c for c in t.traders if len(t.taken.get(c, ())) < (t.asked or 0)), "")


def give(state: State, cmd: cm.Give) -> list[ev.AnyEvent]:
    short = short_player(state)
    director = state.roles.get("director", "")
    require(bool(short) and state.phase == "commerce", "3.2.6", "nobody is one card short")
    require(cmd.civ == director, "3.2.6", f"the Director of Commerce, {name(state, director)}, gives "
                                          "the card")
    own = list(state.trade.taken.get(cmd.civ, ())) + [c for c, n in state.hand(cmd.civ).items()
                                                      for _ in range(n)]
    require(cmd.card in own, "3.2.6", f"{name(state, cmd.civ)} has no {cmd.card} card in hand or "
                                      "face down")
    return [ev.CardGiven(civ=cmd.civ, to=short, card=cmd.card), ev.TradeEnded()]


def done(state: State) -> bool:
    return state.trade.done


def pending(state: State) -> list[Pending]:
    t = state.trade
    director = state.roles.get("director", "")
    if t.asked is None:
        return [Pending(empire=director, kind="ask", text="ask how many cards each player offers")]
    if not t.revealed:
        return [Pending(empire=c, kind="offer", text=f"offer {t.asked} card{'s' * (t.asked != 1)} face down")
                for c in t.traders if c not in t.offers]
    if short_player(state):
        return [Pending(empire=director, kind="give",
                        text=f"give {name(state, short_player(state))} a card")]
    if not t.done:
        return [Pending(empire=t.taker, kind="take", text="take a face-up card from another player")]
    return []


def options(state: State, civ: str) -> list[Option]:
    t = state.trade
    kinds = {p.kind for p in pending(state) if p.empire == civ}
    hand = sorted(state.hand(civ))
    if "ask" in kinds:
        return [Option(kind="ask", template="ask {count}",
                       parts={"count": tuple(str(n) for n in range(state.hand_size(civ) + 1))})]
    if "offer" in kinds:
        cards = [c for c, n in sorted(state.hand(civ).items()) for _ in range(n)]
        first = " ".join(cards[:t.asked or 0])
        return [Option(kind="offer", order=f"offer {first}".strip() if t.asked else "offer nothing",
                       note=f"or any {t.asked} of: {', '.join(hand)}")]
    if "take" in kinds:
        return [Option(kind="take", order=f"take {card} from {src}")
                for src in legal_sources(state, civ) for card in sorted(set(t.open[src]))]
    if "give" in kinds:
        own = sorted(set(t.taken.get(civ, ())) | set(hand))
        return [Option(kind="give", order=f"give {card}") for card in own]
    return []
