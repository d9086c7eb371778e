"""Bonus Cards (lc.3.2, lc.3.3): the hidden draw-and-pass, and playing a card at any moment it allows."""

from __future__ import annotations

from mncore.core.dice import Rng
from mncore.core.errors import InvalidCommand, require
from mncore.core.protocol import Option, Pending
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.cities import CardInfo, City, card_info, load_city
from mncore.rulesets.empires.commands import (
    ChooseBonusCard,
    CitiesCommand,
    DrawBonusCards,
    LaunchFreeTrireme,
    PlaceHalicarnassus,
    PlayBonusCard,
    TakeDiscards,
)
from mncore.rulesets.empires.display_names import title
from mncore.rulesets.empires.game_data import load_ruleset
from mncore.rulesets.empires.ids import CardId, Empire, commodity_of
from mncore.rulesets.empires.rules import card_effects, dido, guards
from mncore.rulesets.empires.state import CardDraw, CitiesState, GameState, bag_add, build_step, move_step, trade_step

MAX_DRAW = 5  # lc.3.2: between 1 and 5 cards
DECOY = "decoy"


def cities(state: GameState) -> CitiesState:
    return state.cities or CitiesState()


def open_draw(state: GameState) -> CardDraw | None:
    """The draw-and-pass in progress, if any: nothing else is decided until it is over (ruling R200)."""
    draws = cities(state).draws
    return draws[0] if draws else None


def section_of(city: City, info: CardInfo) -> str:
    """A card's rules section: its expansion's card list, e.g. lc.6.3.poseidon."""
    return f"{city.section}.3.{info.id}"


def card(card_id: str) -> tuple[City, CardInfo]:
    try:
        return card_info(card_id)
    except KeyError:
        raise InvalidCommand(f"unknown Bonus Card '{card_id}'") from None


def phase_closed(state: GameState, closing: list[ev.AnyEvent]) -> list[ev.AnyEvent]:
    """What follows a phase's end (10.dido): what the holder may take of the commodities the
    opponents discarded at the end of Build, which he then names (ruling R213)."""
    return dido.offered(state, closing)


def decide(state: GameState, order: CitiesCommand, rng: Rng) -> list[ev.AnyEvent]:
    require(state.cities is not None, "lc.2", "this game is played without Legendary City expansions")
    match order:
        case DrawBonusCards():
            return draw(state, order, rng)
        case ChooseBonusCard():
            return choose(state, order)
        case PlayBonusCard():
            return play(state, order, rng)
        case PlaceHalicarnassus():
            return guards.place_halicarnassus(state, order)
        case LaunchFreeTrireme():
            return guards.launch(state, order)
        case TakeDiscards():
            return dido.take(state, order)


# --- the draw-and-pass (lc.3.2) -----------------------------------------------------------------------

def pending(state: GameState) -> list[Pending]:
    """The draw-and-pass waits for its drawer's count, then for each holder's choice."""
    d = open_draw(state)
    if d is None:
        return dido.pending(state) or guards.pending(state)
    name = load_city(d.deck).deck
    if d.count == 0:
        return [Pending(empire=d.drawer, kind="draw",
                        text=f"fulfilled an Objective: says how many {name} Bonus Cards it draws (1 to 5)")]
    assert d.holder is not None
    return [Pending(empire=d.holder, kind="choose",
                    text=f"keeps one of {len(d.hand)} {name} Bonus Cards and passes on the rest")]


def _eligible(state: GameState, d: CardDraw, holder: Empire) -> list[Empire]:
    """Who may receive the cards left: an empire that has not received one yet (lc.3.2)."""
    return [e for e in state.empires if e != holder and e not in d.received]


def draw(state: GameState, order: DrawBonusCards, rng: Rng) -> list[ev.AnyEvent]:
    d = open_draw(state)
    require(d is not None and d.count == 0 and d.drawer == order.empire, "lc.3.2",
            f"{title(order.empire)} has no Objective to draw Bonus Cards for")
    assert d is not None
    deck = list(cities(state).decks.get(d.deck, ()))
    require(1 <= order.count <= MAX_DRAW, "lc.3.2", f"draw 1 to {MAX_DRAW} Bonus Cards, not {order.count}")
    require(order.count <= len(deck), "R203",
            f"the {load_city(d.deck).deck} deck holds only {len(deck)} card(s) (ruling R203)")
    cards = tuple(deck.pop(rng.below(len(deck))) for _ in range(order.count))
    return [ev.BonusCardsDrawn(empire=order.empire, deck=d.deck, count=order.count, cards=cards)]


def choose(state: GameState, order: ChooseBonusCard) -> list[ev.AnyEvent]:
    d = open_draw(state)
    emp = order.empire
    require(d is not None and d.count > 0 and d.holder == emp, "lc.3.2",
            f"{title(emp)} holds no drawn Bonus Cards to choose from")
    assert d is not None
    require(order.card in d.hand, "lc.3.2", f"{card(order.card)[1].name} is not among the cards {title(emp)} "
            "looks at")
    rest = list(d.hand)
    rest.remove(order.card)
    kept: list[ev.AnyEvent] = [ev.BonusCardKept(empire=emp, card=order.card)]
    eligible = _eligible(state, d, emp)
    if rest and eligible:
        require(order.to in eligible, "lc.3.2",
                f"pass the {len(rest)} card(s) left to an empire that has not received one: "
                + ", ".join(title(e) for e in eligible))
        assert order.to is not None
        return kept + [ev.BonusCardsPassed(empire=emp, to=order.to, count=len(rest), cards=tuple(rest))]
    require(order.to is None, "lc.3.2", "no card is left to pass on" if not rest else
            "every empire has received a card: the cards left are discarded")
    if rest:
        return kept + [ev.BonusCardsDiscarded(empire=emp, count=len(rest), cards=tuple(rest))]
    return kept


def draw_options(state: GameState, empire: Empire) -> list[Option]:
    d = open_draw(state)
    if d is None:
        return dido.options(state, empire) if dido.pools(state) else guards.options(state, empire)
    if d.count == 0:
        left = len(cities(state).decks.get(d.deck, ()))
        return [Option(kind="draw", order=f"draw {n}") for n in range(1, min(MAX_DRAW, left) + 1)
                if d.drawer == empire]
    if d.holder != empire:
        return []
    rest = len(d.hand) - 1
    targets: list[Empire | None] = list(_eligible(state, d, empire)) if rest else []
    return [Option(kind="choose", order=f"choose {c}" + (f" pass {t}" if t else ""))
            for c in sorted(set(d.hand)) for t in (targets or [None])]


# --- playing a card (lc.3.3) ----------------------------------------------------------------------------

def active_player(state: GameState) -> Empire | None:
    """The Active Player (ruling R204): the builder, the mover, the claiming empire in Trade."""
    match state.phase:
        case "build":
            return build_step(state).active
        case "move":
            return move_step(state).active
        case "trade":
            return trade_step(state).claimant
    return None


def play(state: GameState, order: PlayBonusCard, rng: Rng) -> list[ev.AnyEvent]:
    emp = order.empire
    city, info = card(order.played)
    hand = cities(state).hands.get(emp, ())
    require(order.played in hand, section_of(city, info), f"{title(emp)} holds no {info.name} card")
    used_city, used = city, info
    if info.effect == DECOY:
        require(order.as_card is not None, "R204", f"{info.name} alone have no effect: play two of them "
                f"as another card ('play {info.id} as CARD ...', ruling R204)")
        assert order.as_card is not None
        used_city, used = card(order.as_card)
        require(hand.count(order.played) >= 2, "R204", f"{title(emp)} needs two {info.name} cards")
        require(active_player(state) == emp, "R204",
                f"{info.name} are played as another card only by the Active Player (ruling R204)")
        require(used.effect != DECOY and used_city.id in cities(state).expansions, "R204",
                f"two {info.name} stand for a card of an expansion in play, not {used.name}")
    else:
        require(order.as_card is None, "R204", "only two Fortune Tellers stand for another card")
    section = section_of(used_city, used)
    require(used.phase in ("any", state.phase), section,
            f"{used.name} is played in the {_PHASES[used.phase]} phase")
    played = ev.BonusCardPlayed(empire=emp, played=order.played, as_card=order.as_card)
    return [played, *card_effects.effect(state, order, used, section, rng)]


_PHASES = {"collect": "Collect Resources", "trade": "Trade Resources", "build": "Build",
           "move": "Move and Battle", "leadership": "Claim Leadership", "any": "any"}


def play_options(state: GameState, empire: Empire) -> list[Option]:
    """The cards the empire may play now, with their targets (the standing window, lc.3.3, R209)."""
    hand = cities(state).hands.get(empire, ())
    out: list[Option] = []
    for card_id in sorted(set(hand)):
        city, info = card(card_id)
        if info.effect == DECOY:
            if hand.count(card_id) >= 2 and active_player(state) == empire:
                out += [_option(state, empire, f"play {card_id} as {c.id}{t}")
                        for x in cities(state).expansions for c in load_city(x).cards
                        if c.effect != DECOY for t in card_effects.targets(state, empire, c)]
            continue
        out += [_option(state, empire, f"play {card_id}{t}") for t in card_effects.targets(state, empire, info)]
    return [o for o in out if o.order or all(o.parts.values())]


def _option(state: GameState, empire: Empire, line: str) -> Option:
    """A card's order line, or a template whose payment is the player's to choose among his resources."""
    control = load_ruleset().costs.control
    for key, choices, note in (("payment", _sets(state, empire, control), f"a set of {control} resources (3.0)"),
                               ("payment6", _sets(state, empire, 6), "6 different resources"),
                               ("offer", _new_offers(state, empire), "as many resources as offered before")):
        if "{" + key + "}" in line:
            return Option(kind="card", template=line, parts={key: choices}, note=note)
    return Option(kind="card", order=line)


def _sets(state: GameState, empire: Empire, cost: int) -> tuple[str, ...]:
    """Simple ways to pay a set of cost resources from what the empire holds: coins, or commodities."""
    held = state.empires[empire].resources
    sets = [f"{cost} coin"] if held.get("coin", 0) >= cost else []
    kinds: list[str] = []
    for t in sorted(held):  # one of each commodity type (a legendary counts as its type, 1.2)
        if t != "coin" and commodity_of(t) not in {commodity_of(k) for k in kinds}:
            kinds.append(t)
    if len(kinds) >= cost:
        sets.append(" ".join(kinds[:cost]))
    return tuple(sets)


def _new_offers(state: GameState, empire: Empire) -> tuple[str, ...]:
    """New offers of the old offer's size from the screen and the old offer (the Oracle of Delphi)."""
    step = trade_step(state)
    old = step.offers.get(empire, {})
    pool = [t for t, n in sorted(bag_add(state.empires[empire].resources, old).items()) for _ in range(n)]
    size = sum(old.values())
    firsts, lasts = " ".join(pool[:size]), " ".join(pool[-size:]) if size else ""
    return tuple(dict.fromkeys(x for x in (lasts, firsts) if x))


def hand_of(state: GameState, empire: Empire) -> tuple[CardId, ...]:
    return cities(state).hands.get(empire, ())


# --- powers that draw from the discard pile (10.adonis) -----------------------------------------------------

def phase_draws(state: GameState, rng: Rng) -> list[ev.AnyEvent]:
    """As a phase begins, each holder of a power of that phase draws, once a round, one card of its
    expansion's deck at random from the discard pile, if it holds one, without an order (rulings
    R201, R208)."""
    from mncore.rulesets.empires import tile_powers
    out: list[ev.AnyEvent] = []
    discard = list(cities(state).discard)
    for emp in tile_powers.holders_at(state, "draw_discard"):
        for t in tile_powers.powers_of(state, emp, "draw_discard"):
            if t.phase != state.phase or t.id in state.empires[emp].used:
                continue
            mine = [c for c in discard if card_info(c)[0].id == t.expansion]
            if mine:
                got = mine[rng.below(len(mine))]
                discard.remove(got)
                out.append(ev.DiscardCardDrawn(empire=emp, tile=t.id, card=got))
    return out
