"""The reconstructed Atlantis board (6 PLAYER EXPANSION) against every fact the text gives, and its join."""

from __future__ import annotations

from collections import Counter

import pytest

from mncore.rulesets.empires import atlas
from mncore.rulesets.empires.board import Board, Setup, geo, load_board
from mncore.rulesets.empires.boardcheck import validate_board
from mncore.rulesets.empires.game_data import load_ruleset

WESTERN_SEAS = {"mare-sardoum", "mare-tyrrhenum", "mare-africum"}


@pytest.fixture(scope="module")
def joined() -> Board:
    return atlas.board_for("atlantis", load_board())


def _atlantis(board: Board) -> Setup:
    return next(s for s in board.setups if s.empire == "atlantis")


def test_atlas_atlantis_board_file_is_marked_reconstructed() -> None:
    """The Atlantis board is labelled a reconstruction, replaceable by the owner's board file."""
    ext = atlas.extension_board("atlantis.toml")

    assert ext.reconstructed
    assert ext.provenance.startswith("A reconstruction, not the printed Atlantis board")


def test_atlas_atlantis_joined_board_is_valid_and_its_seas_touch_the_western_seas(joined: Board) -> None:
    """Joined in the west: an Atlantis sea borders a western sea, listed on both sides."""
    ext = atlas.extension_board("atlantis.toml")
    g = geo(joined)

    assert validate_board(joined, atlas.with_extensions("atlantis")) == []
    links = {(s.id, o) for s in ext.seas for o in g.sea(s.id).borders if o in WESTERN_SEAS}
    assert links == {("fretum-gaditanum", "mare-sardoum")}
    assert "fretum-gaditanum" in g.sea("mare-sardoum").borders


def test_atlas_atlantis_empire_has_capital_caravans_market_city_and_temple(joined: Board) -> None:
    """Additional Buildings: Caravan, Market, City, Capital City and Temple, on its starting screen."""
    g = geo(joined)
    kinds = Counter(g.space(ref)[1].kind for ref in _atlantis(joined).buildings)

    assert kinds == {"capital": 1, "temple": 1, "city": 1, "caravan": 4, "market": 1}


def test_atlas_atlantis_commodities_of_seven_types(joined: Board) -> None:
    """Additional Resources: commodities of 7 types, on its board's caravans and added to the reserves."""
    ext = atlas.extension_board("atlantis.toml")
    types = {s.commodity for p in ext.provinces for s in p.spaces if s.kind == "caravan"}
    added = {t for t in atlas.extensions("atlantis")[0].supply if t != "coin"}

    assert len(types) == 7 and added == types


def test_atlas_atlantis_units_and_control_markers_within_its_set(joined: Board) -> None:
    """8 legions, 5 triremes, 5 fortresses and 7 control markers: the set-up uses no more."""
    setup, components = _atlantis(joined), load_ruleset().components

    assert (components.units, components.control_markers) == (
        {"legion": 8, "trireme": 5, "fortress": 5}, 7)
    assert sum(setup.legions.values()) <= 8 and len(setup.fortresses) <= 5
    assert sum(setup.triremes.values()) <= 5 and len(setup.provinces) <= 7


def test_atlas_atlantis_starting_values_within_the_range_of_the_others(joined: Board) -> None:
    """Its starting Trade, Culture and Military values lie within the five empires' ranges (set-up 4)."""
    g = geo(joined)

    def values(setup: Setup) -> tuple[int, int, int]:
        kinds = Counter(g.space(ref)[1].kind for ref in setup.buildings)
        units = sum(setup.legions.values()) + len(setup.fortresses) + sum(setup.triremes.values())
        return (kinds["caravan"] + kinds["market"],
                kinds["temple"] + kinds["city"] + kinds["capital"] + kinds["legendary"], units)

    others = [values(s) for s in joined.setups if s.empire != "atlantis"]
    mine = values(_atlantis(joined))

    assert mine == (5, 3, 3)
    for track in range(3):
        assert min(v[track] for v in others) <= mine[track] <= max(v[track] for v in others)


def test_atlas_setup_titles_follow_ruling_r51() -> None:
    """R51: a covered starting leader's title goes to the highest starting value in play on that track."""
    values = {"rome": (7, 1, 3), "greece": (4, 4, 3), "babylon": (5, 3, 2), "egypt": (4, 4, 2),
              "carthage": (7, 1, 2), "atlantis": (5, 3, 3)}
    standard = load_ruleset().starting_leaders

    # the Punic War's titles are the text's own (1.1: Carthage Trade and Culture, Rome Military)
    for v in (v for v in atlas.load_setups().variants if v.id != "punic-war"):
        for i, track in enumerate(("trade", "culture", "military")):
            holder = standard[track]  # type: ignore[index]
            if holder in v.empires:
                assert v.leaders[track] == holder, (v.id, track)  # type: ignore[index]
            else:
                best = max(values[e][i] for e in v.empires)
                assert [e for e in v.empires if values[e][i] == best] == [v.leaders[track]], (v.id, track)  # type: ignore[index]


def test_atlas_setups_data_refuses_a_variant_that_does_not_add_up() -> None:
    """A variant plays as many empires as its player count, joins known boards, titles go to players."""
    good = atlas.load_setups()
    bad = atlas.Variant(id="x", name="x", section="atlas.setup-3", players=3, empires=("greece", "egypt"),
                        covered=("egypt",), extensions=("mu",), leaders={"trade": "rome"})

    assert [p for v in good.variants for p in atlas._variant_problems(v, good)] == []
    assert atlas._variant_problems(bad, good) == [
        "extension mu is not among [extensions]",
        "3 players, but empires ['greece', 'egypt'] (covered ['egypt'])",
        "leaders.trade: rome is not in play",
    ]
