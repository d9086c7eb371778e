"""The same CLI scenario on every ruleset: per ruleset, how to make a game and one legal and one refused order."""

from __future__ import annotations

from dataclasses import dataclass

THREE = ("--empire", "rome", "--empire", "greece", "--empire", "carthage")


@dataclass(frozen=True)
class Spec:
    """A three-player game of one ruleset and what the tests order in it (each at the game's start)."""

    ruleset: str
    flag: tuple[str, ...]  # what names the ruleset to mn new and mn demo
    new: tuple[str, ...]  # `mn new` arguments but --seed and --id
    side: str  # who decides first
    legal: str  # an order that side may give at the start
    legal_events: int  # how many events it causes
    legal_type: str  # the type of its first event
    legal_line: str  # the first line `mn order` prints for it, in a game of seed "orders" ("{n}": its number)
    again: str  # an order the same side may not give after `legal` (a batch's second order)
    again_refusal: str  # its message, section included
    json_legal: str  # `legal` in its JSON form
    json_side: str  # how the refusal of `json_legal` given --as refused_side names the two sides
    unknown_verb: str  # what the error for the order 'sail away' says
    refused_side: str  # who may not give `legal` now
    section: str  # the section the refusal cites
    refusal: str  # its message
    last_made: int  # the events of a new game with seed "orders", before any order
    hidden_word: str  # a word `mn diff` prints for a change of what a side holds
    waiting: str  # what `mn status` says the new game waits for
    sixth: str  # `mn log`'s line for event 6
    round_began: str  # `mn log`'s line for round 1's first phase, in a game of seed "e"


EMPIRES = Spec(
    ruleset="empires", flag=(), new=(*THREE, "--display", "experienced"), side="carthage", legal="trade 3",
    legal_events=2, legal_type="ExchangeMarkerPlayed",
    legal_line="    7  Carthage, the Trade Leader, plays the exchange marker for 3.",
    again="trade 4", again_refusal="an exchange marker was already played this round [rule empires:2.1]",
    json_legal='{"type": "PlayExchangeMarker", "empire": "carthage", "value": 3}',
    json_side="the order is for Carthage, but given --as Rome", unknown_verb="unknown order 'sail'",
    refused_side="rome", section="empires:2.1",
    refusal="only the Trade Leader (Carthage) plays an exchange marker", last_made=6,
    hidden_word="resources:",
    waiting="  Carthage (Carthage): exchange-marker — play an exchange marker for one of its values "
            "(5, 0, 2, 1, 4, 3)",
    sixth="    6  Round 1: the Trade Resources phase begins.",
    round_began="    6  Round 1: the Trade Resources phase begins.")

CLASSIC = Spec(
    ruleset="classic", flag=("--ruleset", "classic"), new=("--ruleset", "classic", *THREE), side="carthage", legal="ask 1", legal_events=1,
    legal_type="TradeAsked",
    legal_line="   12  Carthage asked for 1 card; trading: Rome, Greece, Carthage", again="ask 2",
    again_refusal="the number of cards to offer is asked once, in the Commerce phase [rule classic:3.2.1]",
    json_legal='{"type": "Ask", "civ": "carthage", "count": 1}',
    json_side="the order is for Carthage, but given --as Rome", unknown_verb="cannot read 'sail away' as an order",
    refused_side="rome", section="classic:3.2.1", refusal="the Director of Commerce, Carthage, asks",
    last_made=11, hidden_word="hands.", waiting="  Carthage: ask — ask how many cards each player offers",
    sixth="    6  Rome holds the Military Leader card", round_began="    7  Round 1: the commerce phase began")

SPECS = (EMPIRES, CLASSIC)
IDS = tuple(s.ruleset for s in SPECS)
