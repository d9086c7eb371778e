"""Matching users' names: case, accents, spacing, aliases, unique prefixes, ambiguity and unknown names."""

from __future__ import annotations

import pytest

from mncore.core.errors import AmbiguousName, InvalidCommand
from mncore.rulesets.empires.board import load_board
from mncore.rulesets.empires.game_data import load_ruleset
from mncore.rulesets.empires.typed_names import (
    normalise,
    resolve,
    resolve_commodity,
    resolve_empire,
    resolve_place,
    resolve_province,
    resolve_sea,
    resolve_tile,
)

ENTRIES = {"mare-aegaeum": ["Mare Aegaeum", "Aegean Sea"], "mare-africum": ["Mare Africum"],
           "achaea": ["Achaea", "Achaia"], "castor-pollux": ["Castor & Pollux", "Castor and Pollux"]}


def test_normalise_ignores_case_accents_spaces_hyphens_apostrophes_and_ampersands() -> None:
    """Normalising drops case, accents, spaces, hyphens, apostrophes and '&'."""
    assert normalise("Castor & Pollux") == "castorpollux"
    assert normalise("Mâre Aégaeum") == "mareaegaeum"
    assert normalise("Queen o'Sheba") == "queenosheba"


def test_exact_match_on_id_name_or_alias() -> None:
    """An id, display name or alias matches exactly, whatever its case and spacing."""
    assert resolve("thing", "MARE AEGAEUM", ENTRIES) == "mare-aegaeum"
    assert resolve("thing", "mare-africum", ENTRIES) == "mare-africum"
    assert resolve("thing", "aegeansea", ENTRIES) == "mare-aegaeum"
    assert resolve("thing", "castor-pollux", ENTRIES) == "castor-pollux"


def test_accents_are_ignored() -> None:
    """Accented input matches the unaccented name."""
    assert resolve("thing", "Achaïa", ENTRIES) == "achaea"


def test_unique_prefix_matches() -> None:
    """A prefix of exactly one thing's names selects it."""
    assert resolve("thing", "mare aeg", ENTRIES) == "mare-aegaeum"
    assert resolve("thing", "castor and", ENTRIES) == "castor-pollux"


def test_ambiguous_prefix_lists_candidates() -> None:
    """A prefix of several things raises AmbiguousName listing their display names."""
    with pytest.raises(AmbiguousName) as err:
        resolve("sea", "ma", ENTRIES)

    assert str(err.value) == "ambiguous sea 'ma': could be Mare Aegaeum, Mare Africum"


def test_unknown_name_lists_what_is_expected() -> None:
    """A name matching nothing raises InvalidCommand listing every display name."""
    with pytest.raises(InvalidCommand) as err:
        resolve("thing", "xyz", ENTRIES)

    assert not isinstance(err.value, AmbiguousName)
    assert str(err.value) == ("unknown thing 'xyz'; expected one of: Achaea, Castor & Pollux, "
                              "Mare Aegaeum, Mare Africum")


def test_empty_name_is_unknown() -> None:
    """An empty or blank name matches nothing rather than everything."""
    with pytest.raises(InvalidCommand, match="unknown thing ' '"):
        resolve("thing", " ", ENTRIES)


def test_exact_match_beats_a_longer_name() -> None:
    """Africa is the province even though it is also a prefix of Africum."""
    board = load_board()

    assert resolve_place(board, "africa") == "africa"
    assert resolve_place(board, "Asia") == "asia"


def test_board_aliases() -> None:
    """The board's aliases resolve: Crete, Achaia, Iudaea, Egypt (the province Aegyptus), Black Sea."""
    board = load_board()

    assert resolve_province(board, "Crete") == "creta"
    assert resolve_province(board, "achaia") == "achaea"
    assert resolve_province(board, "Iudaea") == resolve_province(board, "Judaea") == "judea"
    assert resolve_province(board, "egypt") == "aegyptus"
    assert resolve_sea(board, "black sea") == "pontus-euxinus"
    assert resolve_sea(board, "tyrrhenian") == "mare-tyrrhenum"


def test_provinces_and_seas_are_separate_kinds() -> None:
    """resolve_province does not answer with a sea, nor resolve_sea with a province."""
    board = load_board()

    with pytest.raises(InvalidCommand, match="unknown province 'Mare Ionium'"):
        resolve_province(board, "Mare Ionium")
    with pytest.raises(InvalidCommand, match="unknown sea 'latium'"):
        resolve_sea(board, "latium")


def test_ruleset_names() -> None:
    """Empires, commodities and tiles resolve from their adjectives and alternative names."""
    ruleset = load_ruleset()

    assert resolve_empire(ruleset, "Romans") == "rome"
    assert resolve_empire(ruleset, "carthaginian") == "carthage"
    assert resolve_commodity(ruleset, "Wheat") == "grain"
    assert resolve_commodity(ruleset, "perfume") == "spices"
    assert resolve_commodity(ruleset, "Diamonds") == "gems"
    assert resolve_commodity(ruleset, "olive oil") == "oil"
    assert resolve_commodity(ruleset, "iron") == "metal"
    assert resolve_tile(ruleset, "Ramses II") == "ramses"
    assert resolve_tile(ruleset, "colossus of rhodes") == "colossus"
    assert resolve_tile(ruleset, "Lighthouse of Pharos") == "pharos"
    assert resolve_tile(ruleset, "castor and pollux") == "castor-pollux"
    assert resolve_tile(ruleset, "Sheba") == "queen-of-sheba"


def test_ruleset_ambiguous_prefix() -> None:
    """'g' could be several commodities, so it is refused with the candidates named."""
    with pytest.raises(AmbiguousName, match="ambiguous commodity 'g': could be Gems, Gladiator, Gold, "
                                            "Grain"):
        resolve_commodity(load_ruleset(), "g")


def test_a_name_resolved_again_is_the_same_and_one_refused_is_refused_again() -> None:
    """Answers are remembered per name table (typed_names._named): asked twice, the same id; a sea's
    name is still no province; an ambiguous or unknown text is refused each time."""
    board, ruleset = load_board(), load_ruleset()
    for _ in range(2):
        assert resolve_province(board, "Crete") == "creta"
        assert resolve_place(board, "Crete") == "creta"
        assert resolve_sea(board, "black sea") == "pontus-euxinus"
        assert resolve_commodity(ruleset, "Wheat") == "grain"
        with pytest.raises(InvalidCommand, match="unknown province 'black sea'"):
            resolve_province(board, "black sea")
        with pytest.raises(AmbiguousName, match="ambiguous commodity 'g'"):
            resolve_commodity(ruleset, "g")
