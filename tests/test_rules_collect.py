"""Phase 1, Collect Resources: the rulebook's clauses and examples, heroes and wonders, rulings R20–R22."""

from __future__ import annotations

import copy

from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.evolve import replay
from mncore.rulesets.empires.rules import collect
from mncore.rulesets.empires.state import bag_sub, bag_total, collect_step
from mncore.rulesets.empires.text import format_order, parse_order
from support import FIVE, Play, assert_refused, new_game, of_type, said_to, seen_by

ALL_LEGENDARY = ("ceramic", "gems", "papyrus", "metal", "spices", "stone", "wood",
                 "gold", "grain", "oil", "sheep", "wine", "gladiator")


def start_collect(play: Play) -> list[ev.AnyEvent]:
    """Begin round 2's Collect phase as flow.settle does: PhaseBegan, then the phase's begin()."""
    play.given(ev.PhaseBegan(round=2, phase="collect"))
    out = collect.begin(play.state, play.rng(), replay)
    play.given(*out)
    return out


def collected(events: list[ev.AnyEvent], empire: str) -> dict[str, int]:
    total: dict[str, int] = {}
    for e in of_type(events, ev.ResourcesCollected):
        if e.empire == empire:
            for t, n in e.gained.items():
                total[t] = total.get(t, 0) + n
    return total


def rome_holds_ierusalem(play: Play, temple: bool) -> None:
    """Rome controls Judea with Ierusalem built (and a temple), arranged with build events."""
    play.given(ev.ControlBuilt(empire="rome", province="judea", paid={}),
               ev.BuildingBuilt(empire="rome", province="judea", space="ierusalem", kind="legendary",
                                paid={}))
    if temple:
        play.given(ev.BuildingBuilt(empire="rome", province="judea", space="temple", kind="temple",
                                    paid={}))


# --- 1.1 and set-up step 3 ----------------------------------------------------------------------------

def test_setup_3_each_empire_collects_its_nine_starting_resources() -> None:
    """Set-up step 3: every empire collects the 9 resources its starting buildings yield."""
    play = new_game(FIVE)

    gains = {e.empire: e.gained for e in of_type(play.events, ev.ResourcesCollected)}

    assert {emp: bag_total(g) for emp, g in gains.items()} == dict.fromkeys(FIVE, 9)
    assert {emp: g.get("coin", 0) for emp, g in gains.items()} == {
        "rome": 1, "greece": 5, "babylon": 3, "egypt": 5, "carthage": 1}


def test_1_1_dave_collects_the_wheat_and_gold_of_aethiopia() -> None:
    """The Aethiopia example: Egypt's two caravans there, with no market, yield 1 grain and 1 gold."""
    play = new_game(FIVE)

    out = start_collect(play)

    egypt = next(e for e in of_type(out, ev.ResourcesCollected) if e.empire == "egypt")
    assert "Aethiopia, Caravan Grain: 1 grain" in egypt.sources
    assert "Aethiopia, Caravan Gold: 1 gold" in egypt.sources


def test_1_1_temple_doubles_coins_and_market_doubles_commodities() -> None:
    """A temple held in a province doubles its cities' coins; a market doubles its caravans."""
    play = new_game(FIVE)

    owed, draws, sources = collect.base_income(play.state, "greece")

    assert owed == {"coin": 5, "metal": 2, "oil": 2} and draws == 0
    assert "Achaea, Athenae: 2 coin (doubled by the temple)" in sources
    assert "Thracia, City: 1 coin" in sources
    assert "Achaea, Caravan Oil: 2 oil (doubled by the market)" in sources


def test_1_1_legendary_city_yields_a_coin_and_a_legendary_draw() -> None:
    """A legendary city without a temple gives 1 coin and 1 legendary commodity drawn from the pile."""
    play = new_game(FIVE)
    rome_holds_ierusalem(play, temple=False)
    pile = len(play.state.legendary_pile)

    out = start_collect(play)

    gained = collected(out, "rome")
    assert gained["coin"] == 2
    assert sum(n for t, n in gained.items() if t.startswith("legendary-")) == 1
    assert len(play.state.legendary_pile) == pile - 1
    assert collect_step(play.state).legendary_choices == ()
    assert play.state.phase == "collect" and not collect.pending(play.state)


def test_1_1_legendary_city_with_temple_takes_the_extra_coin() -> None:
    """With a temple, the holder of a legendary city chooses the extra coin (a pending decision)."""
    play = new_game(FIVE)
    rome_holds_ierusalem(play, temple=True)
    start_collect(play)
    coins = play.state.empires["rome"].resources["coin"]
    assert [p.kind for p in collect.pending(play.state)] == ["legendary-bonus"]

    play.order("rome", "bonus ierusalem coin")

    assert play.state.empires["rome"].resources["coin"] == coins + 1
    assert play.state.phase == "trade"


def test_1_1_legendary_city_with_temple_may_draw_a_second_legendary() -> None:
    """The bonus may instead be one more legendary commodity, drawn at random and recorded."""
    play = new_game(FIVE)
    rome_holds_ierusalem(play, temple=True)
    start_collect(play)
    pile = len(play.state.legendary_pile)

    out = play.order("rome", "bonus judea legendary")

    taken = of_type(out, ev.LegendaryBonusTaken)[0]
    assert len(taken.gained) == 1 and next(iter(taken.gained)).startswith("legendary-")
    assert len(play.state.legendary_pile) == pile - 1


def test_1_1_bonus_refused_when_no_choice_is_open() -> None:
    """An empire without a legendary city and temple there has no bonus to choose; nothing changes."""
    play = new_game(FIVE)
    rome_holds_ierusalem(play, temple=True)
    start_collect(play)

    assert_refused(play, "greece", "bonus judea coin", "1.1")


def test_1_2_legendary_draws_are_hidden_from_other_empires() -> None:
    """Other empires see how many legendary commodities were drawn, never which (1.2, face down)."""
    play = new_game(FIVE)
    rome_holds_ierusalem(play, temple=False)

    out = start_collect(play)

    rome = next(e for e in of_type(out, ev.ResourcesCollected) if e.empire == "rome")
    token = next(t for t in rome.gained if t.startswith("legendary-"))
    name = token.removeprefix("legendary-").title()
    assert name in said_to(rome, "rome")
    assert name not in said_to(rome, "greece") and "1 legendary commodity face down" in said_to(rome, "greece")
    assert token not in seen_by(rome, "greece").gained  # type: ignore[union-attr]
    assert seen_by(rome, "greece").drawn == 1  # type: ignore[union-attr]


# --- occupation (4.3.2, 9.0) -----------------------------------------------------------------------------

def test_4_3_2_occupier_collects_the_occupied_caravan_doubled_by_the_occupied_market() -> None:
    """The Cyrenaica example: Rome occupies caravan and market, collects 2 papyrus; Egypt keeps the city coin."""
    play = new_game(FIVE)
    play.given(ev.BuildingsOccupied(empire="rome", province="cyrenaica",
                                    spaces=("caravan-papyrus", "market")))

    out = start_collect(play)

    assert collected(out, "rome")["papyrus"] == 2
    egypt = next(e for e in of_type(out, ev.ResourcesCollected) if e.empire == "egypt")
    assert "Cyrenaica, City: 1 coin" in egypt.sources
    assert not any(s.startswith("Cyrenaica, Caravan") for s in egypt.sources)


def test_4_3_2_occupied_market_alone_yields_nothing_and_stops_the_controllers_doubling() -> None:
    """Ruling R3: a market occupied alone gives its occupier nothing and no longer doubles the controller."""
    play = new_game(FIVE)
    play.given(ev.BuildingsOccupied(empire="rome", province="cyrenaica", spaces=("market",)))

    out = start_collect(play)

    rome = next(e for e in of_type(out, ev.ResourcesCollected) if e.empire == "rome")
    assert not any(s.startswith("Cyrenaica") for s in rome.sources)
    egypt = next(e for e in of_type(out, ev.ResourcesCollected) if e.empire == "egypt")
    assert "Cyrenaica, Caravan Papyrus: 1 papyrus" in egypt.sources


def test_9_0_uncontrolled_province_yields_nothing_to_anyone() -> None:
    """Q&A of chapter 9: a marker removed and not replaced leaves the province's buildings yielding nothing."""
    play = new_game(FIVE)
    play.given(ev.ControlConverted(empire="greece", province="cyrenaica", previous="egypt", replaced=False))

    out = start_collect(play)

    assert not any(s.startswith("Cyrenaica") for e in of_type(out, ev.ResourcesCollected)
                   for s in e.sources)


# --- heroes and wonders --------------------------------------------------------------------------------------

def test_11_temple_of_artemis_gives_one_extra_coin() -> None:
    """The Temple of Artemis gives its holder one extra coin in each Collect phase."""
    play = new_game(FIVE)
    play.given(ev.TileGained(empire="greece", tile="temple-of-artemis", paid={}, rank=2))

    out = start_collect(play)

    assert collected(out, "greece")["coin"] == 6


def test_11_colossus_takes_one_commodity_of_its_choice_after_collecting() -> None:
    """The Colossus holder picks a commodity from the reserve after collection; the phase then ends."""
    play = new_game(FIVE)
    play.given(ev.TileGained(empire="rome", tile="colossus", paid={}, rank=2))
    start_collect(play)
    gems = play.state.supply["gems"]
    assert [p.kind for p in collect.pending(play.state)] == ["colossus"]

    out = play.order("rome", "colossus gems")

    assert of_type(out, ev.ColossusCommodityTaken)[0].commodity == "gems"
    assert play.state.empires["rome"].resources["gems"] == 1
    assert play.state.supply["gems"] == gems - 1
    assert play.state.phase == "trade"
    assert "Rome took 1 Gems" in said_to(out[0], "greece")


def test_11_colossus_refuses_a_commodity_the_reserve_does_not_hold() -> None:
    """The Colossus takes only what the reserve holds; the refusal changes nothing."""
    play = new_game(FIVE)
    play.given(ev.TileGained(empire="rome", tile="colossus", paid={}, rank=2),
               ev.ResourcesCollected(empire="babylon", gained={"ceramic": 3}))
    start_collect(play)

    assert_refused(play, "rome", "colossus ceramic", "11.colossus")


def test_10_circe_legion_on_an_empty_caravan_space_collects_doubled_by_the_market() -> None:
    """Ruling R21: Circe's legion on Libya's empty sheep caravan space yields sheep, doubled by the market."""
    play = new_game(FIVE)
    play.given(ev.TileGained(empire="carthage", tile="circe", paid={}, rank=2),
               ev.LegionsMoved(empire="carthage", from_province="africa", to_province="libya", count=1),
               ev.CirceLegionPlaced(empire="carthage", province="libya", space="caravan-sheep"))

    owed, _, sources = collect.base_income(play.state, "carthage")

    assert owed["sheep"] == 4  # 2 from Africa's caravan, 2 from the legion
    assert "Libya, Caravan Sheep: 2 sheep (Circe's legion) (doubled by the market)" in sources


def test_10_castor_pollux_copy_of_circe_collects_like_circe() -> None:
    """An empire that copied Circe with Castor & Pollux collects from its legion as Circe would."""
    play = new_game(FIVE)
    play.given(ev.TileGained(empire="carthage", tile="castor-pollux", paid={}, rank=2, copied="circe"),
               ev.LegionsMoved(empire="carthage", from_province="africa", to_province="libya", count=1),
               ev.CirceLegionPlaced(empire="carthage", province="libya", space="caravan-sheep"))

    owed, _, _ = collect.base_income(play.state, "carthage")

    assert owed["sheep"] == 4


# --- R20: a short reserve ------------------------------------------------------------------------------------

def test_R20_a_short_reserve_is_shared_one_at_a_time_from_the_trade_leader() -> None:
    """Ruling R20: with 2 coins left, Carthage (Trade Leader) then Rome get one each; the rest is missed."""
    play = new_game(FIVE)
    play.given(ev.ResourcesCollected(empire="babylon", gained={"coin": play.state.supply["coin"] - 2}))

    out = start_collect(play)

    assert collected(out, "carthage")["coin"] == 1 and collected(out, "rome")["coin"] == 1
    greece = next(e for e in of_type(out, ev.ResourcesCollected) if e.empire == "greece")
    assert "coin" not in greece.gained and greece.missed["coin"] == 5
    assert play.state.supply.get("coin", 0) == 0


def test_R20_the_discard_is_reshuffled_when_the_legendary_pile_is_empty() -> None:
    """1.2 and ruling R20: an empty pile is replaced by the reshuffled discard before drawing."""
    play = new_game(FIVE)
    rome_holds_ierusalem(play, temple=False)
    play.given(ev.ResourcesCollected(empire="babylon", gained={f"legendary-{c}": 1 for c in ALL_LEGENDARY}),
               ev.ResourcesDiscarded(empire="babylon", discarded={"legendary-wine": 1}, count=1))

    out = start_collect(play)

    kinds = [type(e).__name__ for e in out]
    assert kinds.index("LegendaryPileReshuffled") < len(kinds) - 1
    assert collected(out, "rome").get("legendary-wine") == 1
    assert play.state.legendary_pile == () and play.state.legendary_discard == ()


def test_R20_no_legendary_left_is_recorded_as_missed() -> None:
    """Ruling R20: with pile and discard empty nothing is drawn, and the event says what was missed."""
    play = new_game(FIVE)
    rome_holds_ierusalem(play, temple=False)
    play.given(ev.ResourcesCollected(empire="babylon", gained={f"legendary-{c}": 1 for c in ALL_LEGENDARY}))

    out = start_collect(play)

    rome = next(e for e in of_type(out, ev.ResourcesCollected) if e.empire == "rome")
    assert rome.missed["legendary"] == 1 and rome.drawn == 0
    assert "short of" in said_to(rome, None)


def test_collect_resources_are_conserved() -> None:
    """Collecting moves tokens from the reserve to the empires; nothing is created or lost."""
    play = new_game(FIVE)
    rome_holds_ierusalem(play, temple=True)
    before = _everything(play)

    start_collect(play)
    play.order("rome", "bonus judea legendary")

    assert _everything(play) == before


def _everything(play: Play) -> dict[str, int]:
    total = dict(play.state.supply)
    for es in play.state.empires.values():
        for t, n in es.resources.items():
            key = t.removeprefix("legendary-") + ("*" if t.startswith("legendary-") else "")
            total[key] = total.get(key, 0) + n
    for c in (*play.state.legendary_pile, *play.state.legendary_discard):
        total[c + "*"] = total.get(c + "*", 0) + 1
    return total


# --- options and text ---------------------------------------------------------------------------------------

def test_collect_every_option_line_is_accepted() -> None:
    """Every order line that options() lists is accepted by decide."""
    play = new_game(FIVE)
    rome_holds_ierusalem(play, temple=True)
    play.given(ev.TileGained(empire="rome", tile="colossus", paid={}, rank=2))
    start_collect(play)

    lines = [o.order for o in collect.options(play.state, "rome")]

    assert "bonus judea coin" in lines and "colossus wine" in lines
    for line in lines:
        copy.deepcopy(play).order("rome", line)  # type: ignore[arg-type]
    assert collect.options(play.state, "greece") == []


def test_1_1_bonus_and_colossus_lines_round_trip() -> None:
    """Order lines parse to commands whose canonical line parses back to the same command."""
    play = new_game(FIVE)

    cmds = [parse_order(line, play.state, "rome")
            for line in ("bonus ierusalem legendary", "bonus Judea coin", "colossus Wheat")]

    assert [format_order(c) for c in cmds] == ["bonus judea legendary", "bonus judea coin",
                                               "colossus grain"]
    assert all(parse_order(format_order(c), play.state, "rome") == c for c in cmds)
    assert bag_sub({"coin": 1}, {"coin": 1}) == {}
