"""The bag helpers the fold uses give what the former two-step sums gave, dict order and all."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from mncore.rulesets.empires.state import Bag, bag_add, bag_minus_one, bag_plus_one, bag_sub, bags_moved

TOKENS = ["coin", "grain", "wine", "oil", "legendary-grain", "metal"]
# counts as the fold meets them, with zeros and negatives too (an unchecked log's)
bags = st.dictionaries(st.sampled_from(TOKENS), st.integers(-2, 4), max_size=6)


def _former(bag: Bag, other: Bag, sign: int) -> Bag:
    """bag_add (sign 1) and bag_sub (-1) as they were before the fold's pass (issue 27)."""
    out = dict(bag)
    for token, n in other.items():
        out[token] = out.get(token, 0) + sign * n
    return out if 0 not in out.values() else {t: n for t, n in out.items() if n}


def _same(a: Bag, b: Bag) -> bool:
    return list(a.items()) == list(b.items())  # the order too: msgpack and the views keep it


@given(bag=bags, other=bags)
def test_sums_keep_the_former_counts_and_order(bag: Bag, other: Bag) -> None:
    assert _same(bag_add(bag, other), _former(bag, other, 1))
    assert _same(bag_sub(bag, other), _former(bag, other, -1))
    gave, took = bags_moved(bag, other, other)
    assert _same(gave, _former(bag, other, -1)) and _same(took, _former(other, other, 1))
    gave, took = bags_moved(other, bag, other)
    assert _same(gave, _former(other, other, -1)) and _same(took, _former(bag, other, 1))


@given(bag=bags, token=st.sampled_from(TOKENS))
def test_one_token_moves_as_a_bag_of_one(bag: Bag, token: str) -> None:
    assert _same(bag_plus_one(bag, token), _former(bag, {token: 1}, 1))
    assert _same(bag_minus_one(bag, token), _former(bag, {token: 1}, -1))
    assert bag_plus_one(bag, token) is not bag and bag_minus_one(bag, token) is not bag
