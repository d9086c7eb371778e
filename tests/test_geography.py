"""The kernel's board geography: links read as listed, one-sided links found, groups and reach."""

from __future__ import annotations

import pytest

from mncore.core.errors import InvalidCommand
from mncore.core.geography import Links

SEAS = Links("sea", {"a": ["b"], "b": ["a", "c"], "c": ["b"], "d": ["e"], "e": ["d"], "f": []})


def test_linked_places_are_linked_both_ways_and_never_to_themselves() -> None:
    """A listed link holds; a place is not linked to itself; an unlisted pair is not linked."""
    assert SEAS.linked("a", "b") and SEAS.linked("b", "a")
    assert not SEAS.linked("a", "a") and not SEAS.linked("a", "c")


def test_an_unknown_place_is_refused_naming_its_kind() -> None:
    """Asking about a place the board lacks is bad input (exit 2), with the kind in the message."""
    with pytest.raises(InvalidCommand, match="unknown sea 'z'"):
        SEAS.of("z")


def test_one_sided_links_are_found() -> None:
    """A link listed on one side only is reported as (from, to)."""
    lopsided = Links("province", {"x": ["y"], "y": []})

    assert lopsided.one_sided() == [("x", "y")]
    assert SEAS.one_sided() == []


def test_groups_number_the_connected_places_within_a_subset() -> None:
    """Chains of places, moving only through the subset: a-b-c is one, d-e another, f alone."""
    groups = SEAS.groups({"a", "b", "c", "d", "e", "f", "unknown"})

    assert groups["a"] == groups["b"] == groups["c"]
    assert groups["d"] == groups["e"] != groups["a"]
    assert len(set(groups.values())) == 3 and "unknown" not in groups


def test_groups_break_where_the_subset_breaks() -> None:
    """Without b, a and c are no longer one group."""
    groups = SEAS.groups({"a", "c"})

    assert groups["a"] != groups["c"]


def test_reach_stays_within_the_subset() -> None:
    """Reach follows links from the start, only through the places allowed."""
    assert SEAS.reach("a") == {"a", "b", "c"}
    assert SEAS.reach("a", frozenset({"a", "b"})) == {"a", "b"}
