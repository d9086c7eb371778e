"""Phase 5, Claim Leadership (5.0), and victory by the three titles (6.4), through the engine."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from mncore.core.errors import RuleViolation
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.commands import AwardTitle
from mncore.rulesets.empires.evolve import replay
from mncore.rulesets.empires.flow import pending, settle
from mncore.rulesets.empires.ids import Empire
from mncore.rulesets.empires.projections import level
from mncore.rulesets.empires.rules import leadership
from mncore.rulesets.empires.text import describe, format_order, parse_order
from support import FIVE, Play, new_game, of_type


def claim_leadership(play: Play) -> list[ev.AnyEvent]:
    """The Claim Leadership phase begins as the flow begins it, and runs until a decision is due."""
    out: list[ev.AnyEvent] = [ev.PhaseBegan(round=play.state.round, phase="leadership")]
    play.given(*out)
    opening = leadership.begin(play.state, play.rng(), replay)
    play.given(*opening)
    closing = settle(play.state, play.rng())
    play.given(*closing)
    return out + opening + closing


def pillaged(play: Play, *refs: str, by: Empire = "babylon") -> Play:
    """Buildings were pillaged away earlier in the game (arranging the track levels)."""
    for ref in refs:
        pid, space = ref.split("/")
        kind = play.state.provinces[pid].buildings[space]
        play.given(ev.Pillaged(empire=by, province=pid, space=space, kind=kind))
    return play


def without_title_holders(play: Play) -> Play:
    """No empire holds a title: no event leads there in a real game, so the state is edited directly."""
    play.state = replace(play.state, titles={})
    return play


def refused(play: Play, empire: Empire, line: str, section: str) -> str:
    """The order is refused citing section, and nothing changes; returns the reason."""
    state, events = play.state, list(play.events)

    with pytest.raises(RuleViolation) as err:
        play.order(empire, line)

    assert err.value.section == section, err.value.message
    assert play.state == state and play.events == events
    return err.value.reason


def test_5_0_rome_becomes_trade_leader_in_the_track_example() -> None:
    """Rome 3 caravans + 2 markets (V), Greece 2 + 2 (IV), Egypt and Carthage 2 + 1 (III), Babylon
    3 + 1 (IV, not the example's misprinted III: ruling R37): Rome takes the Trade title."""
    play = pillaged(new_game(FIVE), "latium/caravan-wine", "gallia/market", "syria/market",
                    "aethiopia/caravan-gold", "africa/caravan-spices", "libya/caravan-oil",
                    "numidia/market", "libya/market")
    play = pillaged(play, "mesopotamia/caravan-sheep", by="rome")
    play.given(ev.BuildingBuilt(empire="babylon", province="mesopotamia", space="caravan-sheep",
                                kind="caravan", paid={}))

    out = claim_leadership(play)

    claimed = [e for e in of_type(out, ev.TitleClaimed) if e.track == "trade"]
    assert claimed[0].levels == {"rome": 5, "greece": 4, "babylon": 4, "egypt": 3, "carthage": 3}
    assert play.state.titles["trade"] == "rome"
    assert play.state.exchange_holder == "rome"


def test_5_0_a_tie_is_decided_by_the_previous_holder() -> None:
    """At the start Rome and Carthage tie on Trade (VII): Carthage, the previous Trade Leader, decides;
    likewise Egypt for Culture (Greece, Egypt IV) and Rome for Military (Rome, Greece III)."""
    play = new_game(FIVE)

    claim_leadership(play)

    assert [(p.empire, p.kind) for p in pending(play.state)] == [
        ("carthage", "award-title"), ("egypt", "award-title"), ("rome", "award-title")]
    assert "title trade to rome" in [o.order for o in leadership.options(play.state, "carthage")]
    refused(play, "rome", "title trade to rome", "5.0")
    refused(play, "carthage", "title trade to greece", "5.0")
    refused(play, "carthage", "title culture to rome", "5.0")
    out = play.order("carthage", "title trade to rome")
    assert play.state.titles["trade"] == "rome"
    assert of_type(out, ev.TitleClaimed)[0].decided_by == "carthage"
    play.order("egypt", "title culture to greece")
    out = play.order("rome", "title military to rome")
    assert ev.PhaseBegan(round=2, phase="collect") in out
    assert play.state.titles == {"trade": "rome", "culture": "greece", "military": "rome"}


def test_5_0_the_previous_holder_may_keep_the_title() -> None:
    """The tie-breaker may award the title to himself when he is among the tied."""
    play = new_game(FIVE)
    claim_leadership(play)

    play.order("carthage", "title trade to carthage")

    assert play.state.titles["trade"] == "carthage"


def test_5_0_the_highest_level_takes_the_title() -> None:
    """Culture: Greece and Egypt level IV at the start; Greece builds a city and leads Culture."""
    play = new_game(FIVE).given(
        ev.ControlBuilt(empire="greece", province="creta", paid={}),
        ev.BuildingBuilt(empire="greece", province="creta", space="city", kind="city", paid={}))

    out = claim_leadership(play)

    culture = [e for e in of_type(out, ev.TitleClaimed) if e.track == "culture"][0]
    assert culture.empire == "greece" and culture.levels["greece"] == 5


def test_5_0_a_tie_with_no_previous_holder_is_drawn() -> None:
    """No previous holder in the game: the title is drawn among the tied (ruling R36)."""
    play = without_title_holders(new_game(FIVE))

    out = leadership.begin(play.state, play.rng(), replay)

    trade = [e for e in out if isinstance(e, ev.TitleClaimed) and e.track == "trade"][0]
    assert trade.drawn and trade.empire in ("rome", "carthage")


def test_6_4_all_three_titles_win() -> None:
    """An empire holding the Trade, Culture and Military titles at the end of the phase wins."""
    play = new_game(FIVE).given(
        ev.ControlBuilt(empire="rome", province="sicilia", paid={}),
        ev.BuildingBuilt(empire="rome", province="sicilia", space="temple", kind="temple", paid={}),
        ev.BuildingBuilt(empire="rome", province="sicilia", space="syracusae", kind="legendary", paid={}),
        ev.TileGained(empire="rome", tile="hercules", paid={}, rank=2))
    assert level(play.state, "rome", "culture") == 5

    out = claim_leadership(play)

    assert of_type(out, ev.GameWon) == [ev.GameWon(
        empires=("rome",), condition="6.4",
        detail="Rome holds the Trade, Culture and Military Leader titles.")]
    with pytest.raises(RuleViolation, match="Rome won by 6.4"):
        play.order("rome", "title trade to rome")


def test_6_4_after_the_win_a_refusal_cites_the_victorys_section() -> None:
    """Once Rome has won by the three titles, every order is refused under 6.4, not a bare 'game'."""
    play = new_game(FIVE).given(ev.GameWon(empires=("rome",), condition="6.4", detail="Rome wins."))

    with pytest.raises(RuleViolation) as err:
        play.order("greece", "title trade to greece")

    assert err.value.section == "6.4"
    assert "the game is over: Rome won by 6.4" in err.value.reason


def test_5_0_title_orders_round_trip_and_read() -> None:
    """The tie-break order's line parses back; title events read as sentences."""
    play = new_game(FIVE)

    order = parse_order("title Trade to Romans", play.state, "carthage")

    assert order == AwardTitle(empire="carthage", track="trade", to="rome")
    assert format_order(order) == "title trade to rome"
    assert describe(ev.TitleClaimed(track="military", empire="rome", levels={"rome": 18, "greece": 3})) == \
        "Rome is the Military Leader (Rome 15+3, Greece 3)."
