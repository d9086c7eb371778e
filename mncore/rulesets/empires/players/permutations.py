"""A random order of a whole sequence drawn as random.Random.sample draws it, at half its cost."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


def shuffled(rand: random.Random, items: Sequence[T]) -> list[T]:
    """rand.sample(items, len(items)): the same list and the same random numbers used, so that a
    player's later draws stay those of the sampler before it (tests/test_sampler_same.py)."""
    if type(rand) is not random.Random:  # a subclass may draw its numbers otherwise: ask it
        return rand.sample(items, len(items))
    # random.Random.sample's pool branch (always taken when all are drawn) with _randbelow written
    # out: one getrandbits call an item instead of two Python calls
    pool = list(items)
    out = []
    getrandbits = rand.getrandbits
    for left in range(len(pool), 0, -1):
        bits = left.bit_length()
        j = getrandbits(bits)
        while j >= left:
            j = getrandbits(bits)
        out.append(pool[j])
        pool[j] = pool[left - 1]
    return out
