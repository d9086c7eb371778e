"""The shipped board and ruleset against the board brief's constraints C1-C10; board validation."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import msgspec
import pytest

from mncore.core.errors import DataError, InvalidCommand
from mncore.rulesets.empires.board import (
    DEFAULT_BOARD_SOURCE,
    Board,
    Setup,
    board_digest,
    decode_board,
    geo,
    load_board,
)
from mncore.rulesets.empires.boardcheck import validate_board
from mncore.rulesets.empires.game_data import RULESET_ID, RULESET_VERSION, load_ruleset, tile
from mncore.rulesets.empires.ids import OWNER_TILE_IDS, TILE_IDS

BOARD_FILE = Path(__file__).parent.parent / "mncore" / "rulesets" / "empires" / "data" / "board.toml"


@pytest.fixture(scope="module")
def board() -> Board:
    return load_board()


def _setup(board: Board, empire: str) -> Setup:
    return next(s for s in board.setups if s.empire == empire)


def _space_kinds(board: Board, setup: Setup) -> Counter[str]:
    g = geo(board)
    return Counter(g.space(ref)[1].kind for ref in setup.buildings)


def _with_province(board: Board, province_id: str, **changes: object) -> Board:
    provinces = tuple(msgspec.structs.replace(p, **changes) if p.id == province_id else p
                      for p in board.provinces)
    return msgspec.structs.replace(board, provinces=provinces)


# --- the shipped data ------------------------------------------------------------------------------

def test_shipped_board_is_valid_and_marked_reconstructed(board: Board) -> None:
    """The reference board passes every check and says it is a reconstruction, not the printed board."""
    assert validate_board(board, load_ruleset()) == []
    assert board.reconstructed
    assert "reconstruction, not the printed board" in board.provenance
    assert "mn map check FILE" in board.provenance
    assert (len(board.provinces), len(board.seas), len(board.setups)) == (30, 9, 5)


def test_ruleset_identity_and_counts() -> None:
    """The packaged ruleset is the engine's ruleset, with 5 empires (and the Atlas expansion's Atlantis),
    13 commodities and 23 tiles (and the expansion's)."""
    ruleset = load_ruleset()

    assert (ruleset.id, ruleset.version) == (RULESET_ID, RULESET_VERSION)
    assert [e.id for e in ruleset.empires] == ["rome", "greece", "babylon", "egypt", "carthage", "atlantis"]
    assert len(ruleset.commodities) == 13
    assert sorted(t.id for t in ruleset.tiles) == sorted(i for i in TILE_IDS if i not in OWNER_TILE_IDS)


def test_components_supply_counts() -> None:
    """Supply counts are those of Game Components; the dice default to faces 1-6 (ruling R1)."""
    c = load_ruleset().components

    assert c.coins == 44 and c.legendary_per_commodity == 1 and c.control_markers == 7
    assert c.commodities["ceramic"] == 3 and c.commodities["gold"] == 7
    assert c.commodities["gladiator"] == 11 and sum(c.commodities.values()) == 87
    assert c.buildings == {"caravan": 37, "market": 25, "city": 8, "capital": 5, "legendary": 3,
                           "temple": 14}
    assert c.units == {"legion": 8, "trireme": 5, "fortress": 5}
    assert c.exchange_markers == ((5, 0), (2, 1), (4, 3))
    assert (c.dice.land_count, c.dice.sea_count) == (9, 5)
    assert c.dice.land_faces == c.dice.sea_faces == (1, 2, 3, 4, 5, 6)


def test_costs_3_0() -> None:
    """Build costs are 3 for control, cities, caravans and units, 6 for temples and markets, 7-10, 12."""
    costs = load_ruleset().costs

    assert costs.control == 3
    assert costs.buildings == {"city": 3, "capital": 3, "legendary": 3, "caravan": 3, "temple": 6,
                               "market": 6}
    assert costs.units == {"legion": 3, "trireme": 3, "fortress": 3}
    assert costs.tiles == (7, 8, 9, 10) and costs.pyramids == 12


def test_tiles_23_with_5_starting_heroes() -> None:
    """23 tiles: 17 heroes of which 5 start, 5 wonders and the Pyramids; Hercules alone has no phase
    (the Legendary City expansions' tiles aside: tests/test_legendary_cities.py)."""
    tiles = [t for t in load_ruleset().tiles if not t.expansion]

    assert Counter(t.kind for t in tiles) == {"hero": 17, "wonder": 5, "pyramids": 1}
    assert {t.id for t in tiles if t.starting} == {"caesar", "pericles", "hammurabi", "cleopatra",
                                                    "hannibal"}
    assert [t.id for t in tiles if t.phase is None] == ["hercules"]


def test_tile_bonuses_as_printed_in_10_and_11() -> None:
    """Leader bonuses are those printed in chapters 10 and 11; every other tile has none."""
    printed = {"circe": (1, 0, 1), "penthesilea": (0, 2, 2), "perseus": (1, 2, 1),
               "hamilcar": (1, 1, 1), "queen-of-sheba": (0, 1, 1), "hercules": (2, 2, 2),
               "antigone": (2, 2, 0), "hanging-gardens": (2, 0, 0),
               # the Legendary City expansions (atlas sections 5-7)
               "adonis": (0, 1, 0), "croesus": (1, 1, 0), "halicarnassus": (0, 2, 0),
               "archimedes": (0, 0, 1), "dido": (1, 1, 0), "minos": (1, 0, 0), "ptolemy": (2, 0, 0),
               "agamemnon": (0, 1, 1), "helen": (0, 0, 4), "odysseus": (0, 0, 1)}
    ruleset = load_ruleset()

    bonuses = {t.id: (t.bonus.trade, t.bonus.culture, t.bonus.military) for t in ruleset.tiles}

    assert bonuses == {i: printed.get(i, (0, 0, 0)) for i in TILE_IDS if i not in OWNER_TILE_IDS}
    assert tile(ruleset, "perseus").bonus.on("culture") == 2


def test_tile_unknown_is_refused() -> None:
    """Asking for a tile the ruleset does not have raises InvalidCommand."""
    with pytest.raises(InvalidCommand, match="unknown hero or wonder 'zeus'"):
        tile(load_ruleset(), "zeus")


# --- constraints C1-C10 ----------------------------------------------------------------------------

def test_c1_starting_leader_values_from_setups(board: Board) -> None:
    """C1: counting each set-up's markets+caravans, temples+cities and units gives the printed values."""
    printed = {"rome": (7, 1, 3), "greece": (4, 4, 3), "babylon": (5, 3, 2), "egypt": (4, 4, 2),
               "carthage": (7, 1, 2)}

    values = {}
    for setup in board.setups:
        kinds = _space_kinds(board, setup)
        units = (sum(setup.legions.values()) + len(setup.fortresses) + sum(setup.triremes.values()))
        values[setup.empire] = (kinds["caravan"] + kinds["market"],
                                kinds["temple"] + kinds["city"] + kinds["capital"] + kinds["legendary"],
                                units)

    assert values == printed


def test_c3_starting_leaders() -> None:
    """C3: Rome starts as Military, Egypt as Culture (Greece with 3 players), Carthage as Trade Leader."""
    ruleset = load_ruleset()

    assert ruleset.starting_leaders == {"trade": "carthage", "culture": "egypt", "military": "rome"}
    assert ruleset.starting_leaders_by_players == {"3": {"culture": "greece"}}


def test_c4_dacia_adjacent_to_germania(board: Board) -> None:
    """C4 (3.1.1 example): Dacia is adjacent to Germania."""
    g = geo(board)

    assert g.is_adjacent("dacia", "germania") and g.is_adjacent("germania", "dacia")


def test_c4_asia_adjoins_thracia_and_achaea_only_through_mare_aegaeum(board: Board) -> None:
    """C4 (3.1.1): Asia is adjacent to neither Thracia nor Achaea, and adjoins them with a trireme in
    Mare Aegaeum."""
    g = geo(board)
    aegaeum = frozenset({"mare-aegaeum"})

    for greek in ("thracia", "achaea", "macedonia"):
        assert not g.is_adjacent("asia", greek)
        assert not g.is_adjoining(greek, "asia", frozenset())
        assert g.is_adjoining(greek, "asia", aegaeum)
        assert g.adjacent_or_adjoining("asia", greek, aegaeum)


def test_c4_asia_has_troia_and_no_caravan_or_market(board: Board) -> None:
    """C4 (3.1.2 example): Asia has a city space, the legendary Troia, and no caravan or market space."""
    asia = geo(board).province("asia")

    kinds = {s.kind for s in asia.spaces}

    assert ("legendary", "Troia") in {(s.kind, s.name) for s in asia.spaces}
    assert not kinds & {"caravan", "market"}


def test_c5_italia_to_cyrenaica_through_ionium_and_africum(board: Board) -> None:
    """C5 (4.1.2 example 1): Italia-Mare Ionium-Mare Africum-Cyrenaica, and Creta on Mare Africum."""
    g = geo(board)

    assert "mare-ionium" in g.seas_of("italia")
    assert "mare-africum" in g.sea_neighbours("mare-ionium")
    assert {"cyrenaica", "creta"} <= g.coasts_of("mare-africum")
    assert g.is_adjoining("italia", "cyrenaica", frozenset({"mare-ionium", "mare-africum"}))
    assert g.is_adjoining("creta", "cyrenaica", frozenset({"mare-africum"}))
    assert not g.is_adjoining("italia", "cyrenaica", frozenset({"mare-ionium"}))


def test_c6_cyrenaica_and_aethiopia_spaces(board: Board) -> None:
    """C6: Cyrenaica has a Papyrus caravan, a market and a city; Aethiopia has Grain and Gold caravans."""
    g = geo(board)

    cyrenaica = {(s.kind, s.commodity) for s in g.province("cyrenaica").spaces}
    aethiopia = {(s.kind, s.commodity) for s in g.province("aethiopia").spaces}

    assert {("caravan", "papyrus"), ("market", None), ("city", None)} <= cyrenaica
    assert {("caravan", "grain"), ("caravan", "gold")} <= aethiopia


def test_c7_cilicia_borders_judea_and_asia(board: Board) -> None:
    """C7 (4.1.2 example 2): Cilicia borders Judea and Asia."""
    g = geo(board)

    assert g.is_adjacent("cilicia", "judea") and g.is_adjacent("cilicia", "asia")


def test_c8_covered_regions(board: Board) -> None:
    """C8: with 3 players the Babylonian and Egyptian regions are covered, with 4 the Babylonian, with 5
    none."""
    g = geo(board)
    babylon = {"syria", "mesopotamia", "babylonia", "armenia", "arabia", "media"}
    egypt = {"cyrenaica", "aegyptus", "aethiopia", "nubia"}

    assert g.covered_provinces(3) == babylon | egypt
    assert g.covered_provinces(4) == babylon
    assert g.covered_provinces(5) == frozenset()


def test_c9_capitals_and_legendary_cities(board: Board) -> None:
    """C9: the capitals are Roma, Athenae, Babylon, Alexandria, Carthago; the legendary cities Troia,
    Ierusalem, Syracusae."""
    named = {(s.kind, s.name) for p in board.provinces for s in p.spaces if s.kind != "city"
             and s.name}

    assert {n for k, n in named if k == "capital"} == {"Roma", "Athenae", "Babylon", "Alexandria",
                                                       "Carthago"}
    assert {n for k, n in named if k == "legendary"} == {"Troia", "Ierusalem", "Syracusae"}


def test_c9_each_setup_capital_is_its_capital_city(board: Board) -> None:
    """C9: each empire's capital province holds its capital city, built at set-up."""
    expected = {"rome": "latium/roma", "greece": "achaea/athenae", "babylon": "babylonia/babylon",
                "egypt": "aegyptus/alexandria", "carthage": "africa/carthago"}

    for setup in board.setups:
        assert expected[setup.empire].startswith(setup.capital + "/")
        assert expected[setup.empire] in setup.buildings


def test_c10_adjacency_symmetric(board: Board) -> None:
    """C10: every land border, sea border and coast is listed on both sides."""
    g = geo(board)

    for p in board.provinces:
        assert all(g.is_adjacent(o, p.id) for o in p.borders)
        assert all(p.id in g.coasts_of(s) for s in p.seas)
    for s in board.seas:
        assert all(s.id in g.sea_neighbours(o) for o in s.borders)
        assert all(s.id in g.seas_of(p) for p in s.coasts)


def test_c10_every_place_reachable_and_every_province_linked(board: Board) -> None:
    """C10: every province and sea is reachable from Latium; every province touches a sea or a province."""
    g = geo(board)
    reached, frontier = {"latium"}, ["latium"]
    while frontier:
        here = frontier.pop()
        links = (g.adjacent(here) | g.seas_of(here)) if g.is_province(here) else (
            g.sea_neighbours(here) | g.coasts_of(here))
        for nxt in links - reached:
            reached.add(nxt)
            frontier.append(nxt)

    assert reached == {p.id for p in board.provinces} | {s.id for s in board.seas}
    assert all(p.seas or p.borders for p in board.provinces)


# --- set-ups ---------------------------------------------------------------------------------------

SETUP_TABLE = {  # the brief's set-up table: hero, provinces, building kinds, legions, fortresses, triremes
    "rome": ("caesar", ("latium", "italia", "gallia"),
             {"capital": 1, "caravan": 4, "market": 3}, {"latium": 1}, ("latium",),
             {"mare-tyrrhenum": 1}),
    "greece": ("pericles", ("achaea", "macedonia", "thracia"),
               {"capital": 1, "city": 2, "temple": 1, "caravan": 2, "market": 2}, {"achaea": 1},
               ("achaea",), {"mare-aegaeum": 1}),
    "babylon": ("hammurabi", ("babylonia", "mesopotamia", "syria"),
                {"capital": 1, "temple": 1, "caravan": 3, "market": 2, "city": 1}, {"babylonia": 1},
                ("babylonia",), {}),
    "egypt": ("cleopatra", ("aegyptus", "cyrenaica", "aethiopia"),
              {"capital": 1, "city": 2, "temple": 1, "caravan": 3, "market": 1}, {"cyrenaica": 1},
              ("cyrenaica",), {}),
    "carthage": ("hannibal", ("africa", "numidia", "libya"),
                 {"capital": 1, "caravan": 4, "market": 3}, {"africa": 1}, (), {"mare-africum": 1}),
}


@pytest.mark.parametrize("empire", list(SETUP_TABLE))
def test_setup_matches_the_brief_table(board: Board, empire: str) -> None:
    """Set-up step 3: each empire's hero, provinces (capital first), buildings and units are the brief's."""
    hero, provinces, kinds, legions, fortresses, triremes = SETUP_TABLE[empire]

    setup = _setup(board, empire)

    assert (setup.hero, setup.provinces, setup.capital) == (hero, provinces, provinces[0])
    assert _space_kinds(board, setup) == kinds
    assert (dict(setup.legions), setup.fortresses, dict(setup.triremes)) == (legions, fortresses, triremes)


def test_setup_caravans_match_the_brief(board: Board) -> None:
    """Set-up step 3: the starting caravans carry the commodities of the brief's set-up table."""
    g = geo(board)
    expected = {"rome": ["grain", "metal", "oil", "wine"], "greece": ["metal", "oil"],
                "babylon": ["grain", "sheep", "spices"], "egypt": ["gold", "grain", "papyrus"],
                "carthage": ["gold", "oil", "sheep", "spices"]}

    caravans = {s.empire: sorted(str(g.space(r)[1].commodity) for r in s.buildings
                                 if g.space(r)[1].kind == "caravan") for s in board.setups}

    assert caravans == expected


def test_setups_within_supply(board: Board) -> None:
    """Components: the buildings all five set-ups place together fit within the building supply."""
    supply = load_ruleset().components.buildings

    used: Counter[str] = Counter()
    for setup in board.setups:
        used += _space_kinds(board, setup)

    assert all(used[kind] <= supply[kind] for kind in supply)
    assert used == {"capital": 5, "caravan": 16, "market": 11, "city": 5, "temple": 3}


# --- loading and validation ------------------------------------------------------------------------

def test_load_board_from_a_file_equals_the_default(board: Board) -> None:
    """Loading the shipped file by path gives the same board, with the same digest, as the default."""
    from_file = load_board(str(BOARD_FILE))

    assert from_file == board
    assert board_digest(from_file) == board_digest(board)
    assert len(board_digest(board)) == 64
    assert load_board() is board


def test_validation_refuses_a_one_sided_border(board: Board) -> None:
    """C10: a land border listed by Gallia but not by Latium is reported naming both and `borders`."""
    broken = _with_province(board, "latium", borders=("italia",))

    problems = validate_board(broken, load_ruleset())

    assert "province gallia: borders lists latium but latium.borders does not list gallia" in problems


def test_validation_refuses_a_one_sided_coast(board: Board) -> None:
    """C10: a province listing a sea whose coasts do not list it is reported."""
    broken = _with_province(board, "germania", seas=("mare-hadriaticum",))

    problems = validate_board(broken, load_ruleset())

    assert ("province germania: seas lists mare-hadriaticum but mare-hadriaticum.coasts does not "
            "list germania") in problems


def test_validation_refuses_an_unknown_province_in_a_setup(board: Board) -> None:
    """A set-up naming a province the board lacks is reported with the setup and the field."""
    setups = tuple(msgspec.structs.replace(s, provinces=("latium", "italia", "narnia"))
                   if s.empire == "rome" else s for s in board.setups)
    broken = msgspec.structs.replace(board, setups=setups)

    problems = validate_board(broken, load_ruleset())

    assert "setup rome: provinces lists narnia, which is not a province" in problems


def test_validation_refuses_an_unreachable_province(board: Board) -> None:
    """C10: a province with no border and no sea is reported as linked to nothing and unreachable."""
    broken = _with_province(board, "germania", borders=())
    broken = _with_province(broken, "gallia", borders=("latium", "dalmatia"))
    broken = _with_province(broken, "dalmatia", borders=("gallia", "dacia", "macedonia"))
    broken = _with_province(broken, "dacia", borders=("dalmatia", "macedonia", "thracia"))

    problems = validate_board(broken, load_ruleset())

    assert problems == [
        "province germania: touches no sea (seas) and borders no province (borders)",
        "province germania: cannot be reached from province gallia through land borders, coasts "
        "and seas",
    ]


def test_validation_refuses_setup_faults(board: Board) -> None:
    """Set-ups: a foreign building, two fortresses in a province and a far trireme are each reported."""
    rome = _setup(board, "rome")
    bad = msgspec.structs.replace(rome, buildings=(*rome.buildings, "achaea/temple"),
                                  fortresses=("latium", "latium"), triremes={"pontus-euxinus": 1})
    broken = msgspec.structs.replace(board, setups=tuple(bad if s is rome else s
                                                         for s in board.setups))

    problems = validate_board(broken, load_ruleset())

    assert "setup rome: buildings lists achaea/temple, which is not in one of its provinces" in problems
    assert ("setup rome: fortresses lists latium twice; a province holds at most one fortress"
            in problems)
    assert "setup rome: triremes in pontus-euxinus, which touches none of its provinces" in problems


def test_decode_refuses_a_misspelt_field(tmp_path: Path) -> None:
    """A misspelt field (`bordres`) is refused, naming its path and province."""
    text = BOARD_FILE.read_text().replace('borders = ["latium", "germania", "dalmatia"]',
                                          'bordres = ["latium", "germania", "dalmatia"]')
    path = tmp_path / "board.toml"
    path.write_text(text)

    with pytest.raises(DataError) as err:
        load_board(str(path))

    assert err.value.problems == ["$.provinces[0].bordres (province gallia): unknown field (misspelt?)"]


def test_decode_refuses_a_wrong_kind_naming_its_path() -> None:
    """A bad space kind is refused with the field path `$.provinces[0].spaces[0].kind`."""
    data = BOARD_FILE.read_bytes().replace(b'kind = "caravan"', b'kind = "caravn"', 1)

    with pytest.raises(DataError, match=r"\$\.provinces\[0\]\.spaces\[0\]\.kind \(province gallia\): "
                                        "Invalid enum value 'caravn'"):
        decode_board(data, DEFAULT_BOARD_SOURCE)


def test_geo_unknown_names_are_refused(board: Board) -> None:
    """Geography lookups of unknown ids raise InvalidCommand naming them."""
    g = geo(board)

    with pytest.raises(InvalidCommand, match="unknown province 'narnia'"):
        g.province("narnia")
    with pytest.raises(InvalidCommand, match="unknown space 'latium/forum'"):
        g.space("latium/forum")


def test_3_1_1_adjoining_needs_a_continuous_chain_of_trireme_seas(board: Board) -> None:
    """3.1.1: Latium adjoins Achaea through Tyrrhenum and Ionium, but not Asia through two seas that do
    not touch each other; a province never adjoins itself."""
    g = geo(board)

    assert g.is_adjoining("latium", "achaea", frozenset({"mare-tyrrhenum", "mare-ionium"}))
    assert not g.is_adjoining("latium", "asia", frozenset({"mare-tyrrhenum", "mare-aegaeum"}))
    assert g.is_adjoining("latium", "asia", frozenset({"mare-tyrrhenum", "mare-ionium", "mare-aegaeum"}))
    assert not g.is_adjoining("latium", "latium", frozenset({"mare-tyrrhenum"}))
