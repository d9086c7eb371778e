"""Conquest (4.3): pillage, occupation of buildings and marker, conversion, capitals, Hamilcar, Sheba, Circe."""

from __future__ import annotations

from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.flow import pending
from mncore.rulesets.empires.projections import level
from mncore.rulesets.empires.rules import conquest
from support import Play, of_type
from test_rules_battle import example_1_in_cyrenaica
from test_rules_military import building, control, gains, legions, lose, move_phase, refused, with_dice


def conquered_cyrenaica(*more: ev.AnyEvent) -> Play:
    """Example 1 continued: Rome won with the rulebook's dice, 2 legions remain in Cyrenaica."""
    play = example_1_in_cyrenaica(*more)
    with_dice(play, 5, 4, 3, 3)
    play.order("rome", "attack egypt in cyrenaica")
    return play


def next_round_rome_moves(play: Play) -> list[ev.AnyEvent]:
    """Rome's turn of the next round (the other turns and phases between change nothing here)."""
    play.given(ev.PhaseBegan(round=2, phase="collect"), ev.PhaseBegan(round=2, phase="move"))
    return play.order("rome", "mover rome")


# --- 4.3 the Conqueror --------------------------------------------------------------------------------

def test_4_3_sole_units_in_an_opponents_province_make_a_conqueror() -> None:
    """After the battle Rome alone has units in Egyptian Cyrenaica: it must choose before ending."""
    play = conquered_cyrenaica()

    err = refused(play, "rome", "done")

    assert conquest.open_conquests(play.state) == ["cyrenaica"]
    assert err.section == "4.3"


def test_4_3_entering_an_empty_opponent_province_conquers_it() -> None:
    """Walking into an undefended opponent province makes a Conqueror too (ruling R46)."""
    play = move_phase(control("egypt", "germania"), legions("rome", "gallia"))
    play.order("rome", "mover rome")

    play.order("rome", "move legion gallia to germania")

    assert conquest.open_conquests(play.state) == ["germania"]


def test_4_3_hold_chooses_nothing() -> None:
    """The Conqueror may hold: nothing is pillaged or occupied, and the turn may end."""
    play = conquered_cyrenaica()

    play.order("rome", "hold cyrenaica")
    play.order("rome", "done")

    assert play.state.provinces["cyrenaica"].buildings["caravan-papyrus"] == "caravan"


# --- 4.3.1 pillage --------------------------------------------------------------------------------------

def test_4_3_1_example_pillage_of_the_papyrus_caravan() -> None:
    """Rome destroys the papyrus caravan and gains 1 papyrus at once; the caravan leaves the board."""
    play = conquered_cyrenaica()
    papyrus = play.state.empires["rome"].resources.get("papyrus", 0)

    play.order("rome", "pillage caravan-papyrus in cyrenaica")

    assert "caravan-papyrus" not in play.state.provinces["cyrenaica"].buildings
    assert play.state.empires["rome"].resources["papyrus"] == papyrus + 1


def test_4_3_1_pillage_a_city_gives_a_coin() -> None:
    """A city yields one coin."""
    play = conquered_cyrenaica()

    out = play.order("rome", "pillage city in cyrenaica")

    assert of_type(out, ev.Pillaged)[0].gained == {"coin": 1}


def test_4_3_1_pillage_a_market_gives_nothing() -> None:
    """A market yields nothing, but Egypt loses its doubling."""
    play = conquered_cyrenaica()

    out = play.order("rome", "pillage market in cyrenaica")

    assert of_type(out, ev.Pillaged)[0].gained == {}


def test_4_3_1_only_one_building() -> None:
    """A second pillage in the same province this turn is refused."""
    play = conquered_cyrenaica()
    play.order("rome", "pillage market in cyrenaica")

    err = refused(play, "rome", "pillage city in cyrenaica")

    assert err.section == "4.3"


def asia_with_troia(*more: ev.AnyEvent) -> Play:
    """Greece controls Asia and its Troia; a Roman legion stands there alone."""
    play = move_phase(control("greece", "asia"), building("greece", "asia", "troia", "legendary"),
                      legions("rome", "asia"), *more)
    play.order("rome", "mover rome")
    return play


def test_4_3_1_legendary_city_coin_or_legendary() -> None:
    """Pillaging Troia, Rome takes a legendary commodity drawn from the pile."""
    play = asia_with_troia()
    pile = len(play.state.legendary_pile)

    out = play.order("rome", "pillage troia in asia take legendary")

    gained = of_type(out, ev.Pillaged)[0].gained
    assert len(gained) == 1 and next(iter(gained)).startswith("legendary-")
    assert len(play.state.legendary_pile) == pile - 1


def test_4_3_1_legendary_city_needs_a_choice() -> None:
    """Without Hamilcar the Conqueror says whether it takes the coin or the legendary commodity."""
    play = asia_with_troia()

    err = refused(play, "rome", "pillage troia in asia")

    assert err.section == "4.3.1"


def test_10_hamilcar_doubles_pillage() -> None:
    """With Hamilcar, Troia yields a coin and a legendary commodity."""
    play = asia_with_troia(gains("rome", "hamilcar"))

    out = play.order("rome", "pillage troia in asia")

    gained = of_type(out, ev.Pillaged)[0].gained
    assert gained["coin"] == 1 and sum(n for t, n in gained.items() if t != "coin") == 1


def test_10_hamilcar_two_commodities_for_a_caravan() -> None:
    """With Hamilcar, the papyrus caravan yields 2 papyrus."""
    play = conquered_cyrenaica(gains("rome", "hamilcar"))

    out = play.order("rome", "pillage caravan-papyrus in cyrenaica")

    assert of_type(out, ev.Pillaged)[0].gained == {"papyrus": 2}


# --- 4.3.2 occupy buildings ------------------------------------------------------------------------------

def test_4_3_2_example_occupy_caravan_and_market_moves_trade_at_once() -> None:
    """Rome occupies the caravan and the market: +2 Trade for Rome, -2 for Egypt, immediately (4.3.4)."""
    play = conquered_cyrenaica()
    rome, egypt = level(play.state, "rome", "trade"), level(play.state, "egypt", "trade")

    play.order("rome", "occupy caravan-papyrus market in cyrenaica")

    assert level(play.state, "rome", "trade") == rome + 2
    assert level(play.state, "egypt", "trade") == egypt - 2


def test_4_3_2_one_legion_per_building() -> None:
    """Two legions cannot occupy three buildings."""
    play = conquered_cyrenaica()

    err = refused(play, "rome", "occupy caravan-papyrus market city in cyrenaica")

    assert err.section == "4.3.2"


def test_4_3_2_occupation_ends_when_the_legions_leave() -> None:
    """When Rome's legions leave Cyrenaica, Egypt regains the caravan and market (ruling R43)."""
    play = conquered_cyrenaica()
    play.order("rome", "occupy caravan-papyrus market in cyrenaica")
    play.order("rome", "done")
    next_round_rome_moves(play)

    out = play.order("rome", "move 2 legions cyrenaica to libya")

    assert of_type(out, ev.OccupationsEnded)
    assert play.state.provinces["cyrenaica"].occupied == {}


def test_4_3_occupation_ends_when_the_province_goes_to_war() -> None:
    """Egyptian legions arrive and both sides remain: the Conqueror occupies nothing any more."""
    play = conquered_cyrenaica()
    play.order("rome", "occupy caravan-papyrus market in cyrenaica")
    play.order("rome", "done")
    play.given(legions("egypt", "aegyptus", 2))
    play.order("rome", "mover egypt")
    play.order("egypt", "move 2 legions aegyptus to cyrenaica")
    with_dice(play, 1, 1, 1, 1)

    out = play.order("egypt", "attack rome in cyrenaica")

    assert of_type(out, ev.OccupationsEnded)
    assert play.state.provinces["cyrenaica"].occupied == {}


def test_4_3_conqueror_chooses_again_in_a_later_round() -> None:
    """Still alone in Cyrenaica next round, Rome chooses again: it may now pillage."""
    play = conquered_cyrenaica()
    play.order("rome", "occupy caravan-papyrus market in cyrenaica")
    play.order("rome", "done")

    next_round_rome_moves(play)
    out = play.order("rome", "pillage city in cyrenaica")

    assert of_type(out, ev.OccupationsEnded)[0].spaces == ("caravan-papyrus", "market")


# --- 4.3.3 convert provincial control --------------------------------------------------------------------

def test_4_3_3_example_marker_occupied_then_converted_a_round_later() -> None:
    """Rome occupies Egypt's marker in Cyrenaica; Egypt still collects; at Rome's next turn the marker
    becomes Roman (ruling R40)."""
    play = conquered_cyrenaica()
    play.order("rome", "occupy marker in cyrenaica")
    play.order("rome", "done")

    assert play.state.provinces["cyrenaica"].controller == "egypt"
    out = next_round_rome_moves(play)

    assert of_type(out, ev.ControlConverted)[0].replaced
    assert play.state.provinces["cyrenaica"].controller == "rome"
    assert play.state.provinces["cyrenaica"].marker_occupier is None


def test_4_3_3_marker_needs_an_adjacent_or_adjoining_province() -> None:
    """Rome alone in Judea, linked to none of its provinces, may not occupy the marker (ruling R50):
    the refusal says why and what Rome may do instead."""
    play = move_phase(control("egypt", "judea"), legions("rome", "judea"))
    play.order("rome", "mover rome")

    err = refused(play, "rome", "occupy marker in judea")

    assert err.section == "R50"
    assert "could not be converted (4.3.3)" in err.reason and "occupy buildings instead" in err.reason


def test_4_3_5_capital_province_is_never_converted() -> None:
    """Rome alone in Aegyptus may pillage or occupy, but not take the printed marker."""
    play = move_phase(control("rome", "judea"), legions("rome", "aegyptus"))
    play.order("rome", "mover rome")

    err = refused(play, "rome", "occupy marker in aegyptus")

    assert err.section == "4.3.5"


def test_4_3_5_an_occupied_capital_marker_is_never_converted() -> None:
    """Even if a legion stands on Greece's printed marker in Achaea (an arranged position), Rome's next
    turn does not convert the capital: only its other occupied markers are converted."""
    play = move_phase(control("rome", "macedonia"), legions("rome", "achaea"),
                      ev.MarkerOccupied(empire="rome", province="achaea"))

    out = play.order("rome", "mover rome")

    assert not of_type(out, ev.ControlConverted)
    assert play.state.provinces["achaea"].controller == "greece"


def test_9_0_conqueror_out_of_reach_removes_the_marker_without_replacing_it() -> None:
    """Q&A: Greece occupies Egypt's marker in Cyrenaica but lost the trireme linking it: at its turn the
    marker is removed and the province is uncontrolled."""
    play = move_phase(legions("greece", "cyrenaica"), lose("egypt", "cyrenaica", legions=1, fortress=True),
                      ev.MarkerOccupied(empire="greece", province="cyrenaica"))

    play.order("rome", "mover greece")

    assert play.state.provinces["cyrenaica"].controller is None
    assert play.state.provinces["cyrenaica"].legions == {"greece": 1}


def test_r41_no_marker_left_conversion_waits() -> None:
    """With its seven markers on the board, Rome keeps occupying; the marker stays Egyptian."""
    extra = [control("rome", p) for p in ("germania", "dalmatia", "dacia", "sicilia", "creta")]
    play = conquered_cyrenaica(*extra)
    play.order("rome", "occupy marker in cyrenaica")
    play.order("rome", "done")

    out = next_round_rome_moves(play)

    assert not of_type(out, ev.ControlConverted)
    assert play.state.provinces["cyrenaica"].marker_occupier == "rome"


def test_10_queen_of_sheba_converts_at_once_sacrificing_the_legion() -> None:
    """With the Queen of Sheba, Rome converts Cyrenaica now and loses the occupying legion."""
    play = conquered_cyrenaica(gains("rome", "queen-of-sheba"))

    play.order("rome", "occupy marker in cyrenaica with sheba")

    assert play.state.provinces["cyrenaica"].controller == "rome"
    assert play.state.provinces["cyrenaica"].legions == {"rome": 1}
    assert "queen-of-sheba" in play.state.empires["rome"].used


def test_10_queen_of_sheba_once_per_round() -> None:
    """Used in Cyrenaica, the Queen of Sheba may not convert Carthaginian Libya the same round."""
    play = conquered_cyrenaica(gains("rome", "queen-of-sheba"), legions("rome", "libya"))
    play.order("rome", "occupy marker in cyrenaica with sheba")

    err = refused(play, "rome", "occupy marker in libya with sheba")

    assert err.section == "10.queen-of-sheba"


# --- 10.circe ------------------------------------------------------------------------------------------

def test_10_circe_places_a_legion_on_an_empty_caravan_space() -> None:
    """Rome with Circe puts its legion on Italia's empty metal caravan space."""
    play = move_phase(gains("rome", "circe"), legions("rome", "italia"))
    play.order("rome", "mover rome")

    play.order("rome", "place legion on caravan-metal in italia")

    assert play.state.provinces["italia"].circe == {"caravan-metal": "rome"}


def test_10_circe_not_on_a_built_caravan() -> None:
    """The oil caravan is built in Italia: the space is not empty."""
    play = move_phase(gains("rome", "circe"), legions("rome", "italia"))
    play.order("rome", "mover rome")

    err = refused(play, "rome", "place legion on caravan-oil in italia")

    assert err.section == "10.circe"


def test_10_circe_only_with_circe() -> None:
    """Without Circe the order is refused."""
    play = move_phase(legions("rome", "italia"))
    play.order("rome", "mover rome")

    err = refused(play, "rome", "place legion on caravan-metal in italia")

    assert err.section == "10.circe"


def test_10_circe_legion_leaving_stops_acting_as_caravan() -> None:
    """The Circe legion moves out of Italia: the space is empty again (R43, R44)."""
    play = move_phase(gains("rome", "circe"), legions("rome", "italia"))
    play.order("rome", "mover rome")
    play.order("rome", "place legion on caravan-metal in italia")

    play.order("rome", "move legion italia to latium")

    assert play.state.provinces["italia"].circe == {}
    assert pending(play.state)[0].kind == "turn"
