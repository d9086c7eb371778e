"""Phase 2, Trade Resources: the rulebook's clauses and examples, Antigone, rulings R23–R29."""

from __future__ import annotations

import copy
import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.players.autoplay import choose
from mncore.rulesets.empires.rules import trade
from mncore.rulesets.empires.state import Bag, bag_tokens, trade_step
from mncore.rulesets.empires.text import format_order, parse_order
from support import FIVE, FOUR, THREE, Play, assert_refused, new_game, of_type, said_to, seen_by

# The rulebook's players, as empires: Grady leads Trade (Carthage, the starting Trade Leader).
GRADY, KIRSTEN, DAVE, BILL = "carthage", "greece", "rome", "egypt"

OFFERS_FOUR_3 = {"rome": "offer coin wine wine", "greece": "offer coin coin coin",
                 "egypt": "offer coin coin papyrus", "carthage": "offer gold oil sheep"}


def offered(players: dict[str, str], value: int, offers: dict[str, str]) -> Play:
    """A new game where Carthage plays `value` and every empire gives its offer line."""
    play = new_game(players)  # type: ignore[arg-type]
    play.order("carthage", f"trade {value}")
    for emp, line in offers.items():
        play.order(emp, line)  # type: ignore[arg-type]
    return play


def claims(play: Play, *steps: tuple[str, str]) -> list[ev.AnyEvent]:
    out: list[ev.AnyEvent] = []
    for emp, line in steps:
        out += play.order(emp, line)  # type: ignore[arg-type]
    return out


def everything(play: Play) -> dict[str, int]:
    """Every token held by empires, on offer or claimed: what trading must conserve."""
    total: dict[str, int] = {}
    step = trade_step(play.state) if play.state.phase == "trade" else None
    bags = [es.resources for es in play.state.empires.values()]
    if step is not None:
        bags += [*step.offers.values(), *step.claimed.values()]
    for bag in bags:
        for t, n in bag.items():
            total[t] = total.get(t, 0) + n
    return total


# --- 2.1 exchange markers -----------------------------------------------------------------------------

def test_2_1_grady_plays_the_3_and_next_round_either_remaining_marker() -> None:
    """Grady plays the 3/4 marker for 3; next round only the 5/0 and 2/1 markers remain to him."""
    play = new_game(FIVE)
    play.order(GRADY, "trade 3")  # type: ignore[arg-type]

    play.given(ev.PhaseBegan(round=2, phase="trade"))

    assert [o.order for o in trade.options(play.state, GRADY)] == ["trade 5", "trade 0", "trade 2",
                                                                   "trade 1"]
    assert_refused(play, GRADY, "trade 4", "2.1")


def test_2_1_all_three_markers_played_are_all_available_again() -> None:
    """Once all three markers have been played, all three are available again."""
    play = new_game(FIVE)
    play.given(ev.ExchangeMarkerPlayed(empire=GRADY, marker=0, value=0),  # type: ignore[arg-type]
               ev.ExchangeMarkerPlayed(empire=GRADY, marker=1, value=2),  # type: ignore[arg-type]
               ev.PhaseBegan(round=3, phase="trade"))

    play.order(GRADY, "trade 3")  # type: ignore[arg-type]
    play.given(ev.PhaseBegan(round=4, phase="trade"))

    assert len(trade.available_markers(play.state)) == 3


def test_2_1_a_new_trade_leader_takes_all_three_markers() -> None:
    """A new Trade Leader may play any of the three markers, whatever was played before."""
    play = new_game(FIVE)
    play.order(GRADY, "trade 3")  # type: ignore[arg-type]

    play.given(ev.TitleClaimed(track="trade", empire="rome", levels={}),
               ev.PhaseBegan(round=2, phase="trade"))

    assert len(trade.available_markers(play.state)) == 3
    assert trade.pending(play.state)[0].empire == "rome"


def test_2_1_exchange_value_0_ends_trading_at_once() -> None:
    """With the 0 marker nobody offers anything and the phase moves on to Build."""
    play = new_game(FIVE)

    out = play.order(GRADY, "trade 0")  # type: ignore[arg-type]

    assert of_type(out, ev.TradingEnded)[0].section == "R23"
    assert play.state.phase == "build"


def test_2_1_offers_are_hidden_from_the_other_empires_until_all_are_in() -> None:
    """Ruling R29: another empire sees only how many tokens were offered; all are revealed at once."""
    play = new_game(FIVE)
    play.order(GRADY, "trade 3")  # type: ignore[arg-type]

    out = play.order("rome", "offer coin wine wine")

    offer = of_type(out, ev.ResourcesOffered)[0]
    assert said_to(offer, "greece") == "Rome placed 3 resources face down."
    assert seen_by(offer, "greece").offer == {}  # type: ignore[union-attr]
    assert "Wine" in said_to(offer, "rome") and seen_by(offer, "rome") == offer
    assert not trade_step(play.state).revealed and not of_type(out, ev.OffersRevealed)


def test_2_1_the_last_offer_reveals_them_all() -> None:
    """When the last participant has offered, all offers are flipped face up together."""
    play = offered(FOUR, 3, OFFERS_FOUR_3)

    revealed = of_type(play.events, ev.OffersRevealed)[0]

    assert revealed.offers["rome"] == {"coin": 1, "wine": 2}
    assert trade.pending(play.state)[0].empire == GRADY


def test_2_1_an_offer_must_have_exactly_the_exchange_value() -> None:
    """An empire offers exactly as many resources as the exchange value; the refusal changes nothing."""
    play = new_game(FIVE)
    play.order(GRADY, "trade 3")  # type: ignore[arg-type]

    assert_refused(play, "rome", "offer coin wine", "2.1")


def test_2_1_an_empire_offers_only_what_it_holds() -> None:
    """An offer must come from the empire's own resources; the refusal changes nothing."""
    play = new_game(FIVE)
    play.order(GRADY, "trade 3")  # type: ignore[arg-type]

    assert_refused(play, "rome", "offer 3 gems", "2.1")


def test_R23_an_empire_with_too_few_resources_sits_out() -> None:
    """Ruling R23: Greece, holding 2 resources, sits out a trade of 3; it may not offer."""
    play = new_game(FIVE)
    play.given(ev.ResourcesDiscarded(empire="greece", discarded={"coin": 5, "metal": 2}, count=7))

    out = play.order(GRADY, "trade 3")  # type: ignore[arg-type]

    opened = of_type(out, ev.TradeOpened)[0]
    assert opened.sitting_out == ("greece",) and "greece" not in opened.participants
    assert "Greece sits out, holding only 2" in said_to(opened, None)
    assert_refused(play, "greece", "offer coin oil", "R23")


def test_R23_the_log_says_who_takes_part_in_good_english() -> None:
    """Nobody, one or several empires take part; a sitting-out empire holds "no resources", "1
    resource" or "N resources" (the sentence of TradeOpened, ruling R23)."""
    nobody = ev.TradeOpened(participants=(), sitting_out=("rome", "greece", "egypt"),
                            held={"rome": 0, "greece": 1, "egypt": 2})
    one = ev.TradeOpened(participants=("rome",), sitting_out=("greece",), held={"rome": 3, "greece": 0})
    two = ev.TradeOpened(participants=("rome", "egypt"), opener="rome")

    assert said_to(nobody, None) == (
        "Trading: nobody takes part; Rome sits out, holding no resources, Greece sits out, holding only "
        "1 resource, Egypt sits out, holding only 2 resources (ruling R23).")
    assert said_to(one, None).startswith("Trading: Rome takes part; Greece sits out, holding no resources")
    assert said_to(two, None) == "Trading: Rome, Egypt take part; Rome claims first."


def test_10_antigone_may_offer_from_zero_to_five_resources() -> None:
    """Antigone's holder offers any number from 0 to 5 whatever the value, but not 6."""
    play = new_game(FIVE)
    play.given(ev.TileGained(empire="rome", tile="antigone", paid={}, rank=2))
    play.order(GRADY, "trade 3")  # type: ignore[arg-type]

    assert_refused(play, "rome", "offer coin 2 wine 2 metal oil", "10.antigone")
    copy.deepcopy(play).order("rome", "offer nothing")
    play.order("rome", "offer coin 2 wine 2 metal")

    assert trade_step(play.state).offered["rome"] == 5


# --- 2.2 claims -------------------------------------------------------------------------------------------

def test_2_2_grady_dave_kirsten_claim_chain() -> None:
    """Grady claims Dave's; Dave claims Kirsten's; Kirsten claims Dave's; Dave claims Bill's: the chain passes."""
    play = offered(FOUR, 3, OFFERS_FOUR_3)

    claims(play, (GRADY, "claim wine from rome"), (DAVE, "claim coin from greece"),
           (KIRSTEN, "claim wine from rome"), (DAVE, "claim papyrus from egypt"))

    assert trade_step(play.state).claimant == BILL
    assert trade_step(play.state).claimed[DAVE] == {"coin": 1, "papyrus": 1}


def test_2_2_two_empires_may_not_claim_each_other_twice_in_a_row() -> None:
    """Grady claimed Dave's, Dave claimed Grady's: Grady may not claim Dave's now, but may claim another's."""
    play = offered(FOUR, 3, OFFERS_FOUR_3)
    claims(play, (GRADY, "claim wine from rome"), (DAVE, "claim gold from carthage"))

    assert_refused(play, GRADY, "claim coin from rome", "2.2")
    play.order(GRADY, "claim coin from greece")  # type: ignore[arg-type]

    assert trade_step(play.state).claimant == KIRSTEN


def test_2_2_dave_and_bill_stop_after_claiming_from_each_other() -> None:
    """Kirsten's and Grady's offers gone, Dave claims Bill's, Bill claims Dave's: the trade ends, rest returns."""
    play = offered(FOUR, 3, OFFERS_FOUR_3)
    claims(play, (GRADY, "claim coin from rome"), (DAVE, "claim coin from greece"),
           (KIRSTEN, "claim gold from carthage"), (GRADY, "claim coin from greece"),
           (KIRSTEN, "claim coin from egypt"), (BILL, "claim oil from carthage"),
           (GRADY, "claim coin from greece"), (KIRSTEN, "claim sheep from carthage"),
           (GRADY, "claim wine from rome"))
    assert not trade_step(play.state).offers[KIRSTEN] and not trade_step(play.state).offers[GRADY]

    out = claims(play, (DAVE, "claim coin from egypt"), (BILL, "claim wine from rome"))

    ended = of_type(out, ev.TradingEnded)[0]
    assert ended.section == "2.2" and ended.returned == {BILL: {"papyrus": 1}}  # Dave's were all claimed
    assert play.state.phase in ("trade", "build")
    assert not any(p.kind == "claim" for p in trade.pending(play.state))


def test_R26_a_claimant_with_only_its_own_offer_left_ends_the_trade() -> None:
    """Ruling R26: Egypt must claim but only its own papyrus is left: trading ends and it goes back."""
    play = offered(FOUR, 2, {"rome": "offer wine wine", "greece": "offer coin coin",
                             "egypt": "offer papyrus coin", "carthage": "offer gold oil"})

    out = claims(play, ("carthage", "claim wine from rome"), ("rome", "claim coin from greece"),
                 ("greece", "claim wine from rome"), ("rome", "claim gold from carthage"),
                 ("carthage", "claim coin from greece"), ("greece", "claim oil from carthage"),
                 ("carthage", "claim coin from egypt"))

    ended = of_type(out, ev.TradingEnded)[0]
    assert ended.section == "R26" and ended.returned == {"egypt": {"papyrus": 1}}


def test_2_2_claims_refused_out_of_turn_from_oneself_or_for_a_missing_token() -> None:
    """Only the current claimant claims, from another empire, a token still offered; refusals change nothing."""
    play = offered(FOUR, 3, OFFERS_FOUR_3)

    assert_refused(play, "rome", "claim coin from greece", "2.2")
    assert_refused(play, GRADY, "claim gold from carthage", "2.2")
    assert_refused(play, GRADY, "claim gems from rome", "2.2")


def test_2_2_trading_conserves_resources() -> None:
    """Tokens only move between empires during a whole trade; nothing is created or lost."""
    play = new_game(THREE)
    before = everything(play)

    play.order(GRADY, "trade 1")  # type: ignore[arg-type]
    for emp, line in (("rome", "offer wine"), ("greece", "offer coin"), ("carthage", "offer gold")):
        assert everything(play) == before
        play.order(emp, line)  # type: ignore[arg-type]
    claims(play, (GRADY, "claim coin from greece"), ("greece", "claim gold from carthage"),
           (GRADY, "claim wine from rome"))
    play.order(GRADY, "give oil to rome")  # type: ignore[arg-type]

    assert play.state.phase == "build"
    assert everything(play) == before


# --- 2.2.1 uneven ------------------------------------------------------------------------------------------

def test_2_2_1_grady_gives_his_extra_resource_to_the_empty_handed_player() -> None:
    """The '1' example: Grady claims Kirsten's, Kirsten claims Grady's, Grady claims another's, then gives him one."""
    play = offered(THREE, 1, {"rome": "offer wine", "greece": "offer coin", "carthage": "offer gold"})
    claims(play, (GRADY, "claim coin from greece"), (KIRSTEN, "claim gold from carthage"),
           (GRADY, "claim wine from rome"))
    assert [p.kind for p in trade.pending(play.state)] == ["give"]

    assert_refused(play, GRADY, "give oil to greece", "2.2.1")
    assert_refused(play, "rome", "give wine to greece", "2.2.1")
    out = play.order(GRADY, "give oil to rome")  # type: ignore[arg-type]

    assert of_type(out, ev.ResourceGiven)[0].to == "rome"
    assert play.state.phase == "build"


# --- options and text ---------------------------------------------------------------------------------------

def test_trade_every_option_line_is_accepted() -> None:
    """Every concrete line options() lists is accepted by decide, and a filled offer template too."""
    play = new_game(THREE)
    for line in [o.order for o in trade.options(play.state, GRADY)]:
        copy.deepcopy(play).order(GRADY, line)  # type: ignore[arg-type]
    play.order(GRADY, "trade 1")  # type: ignore[arg-type]

    for emp in THREE:
        template = trade.options(play.state, emp)[0]  # type: ignore[arg-type]
        for part in template.parts["tokens"]:
            copy.deepcopy(play).order(emp, template.template.format(tokens=part))  # type: ignore[arg-type, union-attr]
        play.order(emp, "offer " + template.parts["tokens"][0])  # type: ignore[arg-type]
    while trade.pending(play.state):
        who = trade.pending(play.state)[0].empire
        lines = [o.order for o in trade.options(play.state, who) if o.order]
        for line in lines:
            copy.deepcopy(play).order(who, line)
        play.order(who, lines[-1])

    assert play.state.phase == "build"


def test_2_2_order_lines_round_trip() -> None:
    """Offer, claim and give lines parse to commands whose canonical line parses back the same."""
    play = new_game(FIVE)

    cmds = [parse_order(line, play.state, "rome") for line in
            ("offer 2 coin legendary wine", "offer nothing", "claim legendary-wine from Greeks",
             "claim Wheat from egypt", "give coin to carthage")]

    assert [format_order(c) for c in cmds] == [
        "offer coin coin legendary-wine", "offer nothing", "claim legendary-wine from greece",
        "claim grain from egypt", "give coin to carthage"]
    assert all(parse_order(format_order(c), play.state, "rome") == c for c in cmds)


def _offers_as_before(held: Bag, sizes: range) -> tuple[str, ...]:
    """trade.legal_offers as it was: every combination of the token list, the repeats dropped."""
    seen: dict[str, None] = {}
    for n in sizes:
        for combo in itertools.combinations(bag_tokens(held), n):
            seen[" ".join(combo) or "nothing"] = None
            if len(seen) >= trade.OFFER_SAMPLES:
                return tuple(seen)
    return tuple(seen)


OFFER_TOKENS = ["coin", "wine", "grain", "wood", "cloth", "gems", "legendary-wine", "legendary-gems"]


@settings(max_examples=300, deadline=None)
@given(held=st.dictionaries(st.sampled_from(OFFER_TOKENS), st.integers(-1, 5), max_size=6),
       low=st.integers(0, 6), many=st.integers(0, 6))
def test_the_offers_listed_are_the_different_combinations_of_the_tokens_in_their_order(
        held: Bag, low: int, many: int) -> None:
    assert trade.legal_offers(held, range(low, low + many)) == _offers_as_before(held, range(low, low + many))


@settings(max_examples=300, deadline=None)
@given(held=st.dictionaries(st.sampled_from(OFFER_TOKENS), st.integers(-1, 5), max_size=6),
       low=st.integers(0, 6), many=st.integers(0, 6), seed=st.integers(0, 1000))
def test_the_offers_read_as_asked_are_those_listed_in_their_order(held: Bag, low: int, many: int, seed: int) -> None:
    """trade.Offers (counted, each made when read: what the scripted players draw from) is legal_offers:
    its length, every offer in order, and any read alone (a few at random, the last from the end)."""
    sizes = range(low, low + many)
    listed, offers = trade.legal_offers(held, sizes), trade.Offers(held, sizes)
    assert len(offers) == len(listed) and tuple(offers) == listed
    fresh = trade.Offers(held, sizes)
    for j in random.Random(seed).sample(range(len(listed)), min(3, len(listed))):
        assert fresh[j] == listed[j]
    if listed:
        assert fresh[-1] == listed[-1] and fresh[1:3] == listed[1:3]
    with pytest.raises(IndexError):
        fresh[len(listed)]


@pytest.mark.parametrize("players", [THREE, FOUR, FIVE])
def test_waiting_names_whom_pending_names_in_every_trade(players: dict[str, str]) -> None:
    """trade.waiting (what trade.options asks) gives trade.pending's (empire, kind) at every order of
    scripted trades."""
    play = new_game(players, seed="trade-waiting")  # type: ignore[arg-type]
    rand = random.Random(3)
    seen = 0
    for _ in range(400):
        state = play.state
        if state.phase == "trade":
            assert trade.waiting(state) == [(p.empire, p.kind) for p in trade.pending(state)]
            seen += 1
        choice = choose(state, rand, play.rng())
        if choice is None or state.winner is not None:
            break
        play.given(*choice.events)
    assert seen > 10
