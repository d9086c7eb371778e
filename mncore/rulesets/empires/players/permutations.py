"""random.Random's sample and shuffle as it draws them (the same items, the same random numbers used), at
less cost: a scripted player's later draws stay those of the sampler before (tests/test_sampler_same.py)."""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Sequence
from typing import TypeVar

T = TypeVar("T")


def shuffled(rand: random.Random, items: Sequence[T]) -> list[T]:
    """rand.sample(items, len(items)): the same list and the same random numbers used, so that a
    player's later draws stay those of the sampler before it (tests/test_sampler_same.py)."""
    return first_passing(rand, items, lambda _: True, len(items))


def first_passing(rand: random.Random, items: Sequence[T], ok: Callable[[T], bool], most: int,
                  among: Collection[T] | None = None) -> list[T]:
    """The first `most` items that pass ok in the order rand.sample(items, len(items)) gives, ok asked
    only until then and only of those among the collection given (if one is: ok refuses the others);
    the random numbers used are still those of the whole order."""
    if type(rand) is not random.Random:  # a subclass may draw its numbers otherwise: ask it
        return [item for item in rand.sample(items, len(items))
                if (among is None or item in among) and ok(item)][:most]
    # random.Random.sample's pool branch (always taken when all are drawn) with _randbelow written
    # out: one getrandbits call an item instead of two Python calls
    getrandbits = rand.getrandbits
    left = len(items)
    out: list[T] = []
    if among is None or among:
        pool = list(items)
        while left and len(out) < most:
            bits = left.bit_length()
            j = getrandbits(bits)
            while j >= left:
                j = getrandbits(bits)
            left -= 1
            item = pool[j]
            pool[j] = pool[left]
            if (among is None or item in among) and ok(item):
                out.append(item)
    while left:  # the draws of the items not looked at
        bits = left.bit_length()
        while getrandbits(bits) >= left:
            pass
        left -= 1
    return out


def shuffle(rand: random.Random, items: list[T]) -> None:
    """rand.shuffle(items), in place: the same order and the same random numbers used."""
    if type(rand) is not random.Random:
        rand.shuffle(items)
        return
    getrandbits = rand.getrandbits
    for i in range(len(items) - 1, 0, -1):
        n = i + 1
        bits = n.bit_length()
        j = getrandbits(bits)
        while j >= n:
            j = getrandbits(bits)
        items[i], items[j] = items[j], items[i]


def sample(rand: random.Random, items: Sequence[T], k: int) -> list[T]:
    """rand.sample(items, k) for k up to 5: the same items in the same order and the same random
    numbers used (random.Random.sample's two branches, as it chooses them for so few)."""
    n = len(items)
    if type(rand) is not random.Random or not 0 <= k <= min(n, 5):
        return rand.sample(items, k)
    getrandbits = rand.getrandbits
    out: list[T] = []
    if n <= 21:  # sample's pool branch: its small-set size is 21 while k <= 5
        pool = list(items)
        for left in range(n, n - k, -1):
            bits = left.bit_length()
            j = getrandbits(bits)
            while j >= left:
                j = getrandbits(bits)
            out.append(pool[j])
            pool[j] = pool[left - 1]
        return out
    bits = n.bit_length()
    chosen: set[int] = set()
    for _ in range(k):
        j = getrandbits(bits)
        while j >= n or j in chosen:
            j = getrandbits(bits)
        chosen.add(j)
        out.append(items[j])
    return out
