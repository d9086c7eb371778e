"""random.Random's sample and shuffle as it draws them (the same items, the same random numbers used), at
less cost: a scripted player's later draws stay those of the sampler before (tests/test_sampler_same.py)."""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Sequence
from typing import TypeVar

T = TypeVar("T")

_MOST = 1024  # lists up to this long are drawn with the tables below (the sampler's are far shorter)
# per size of a pool: (that size, the bits _randbelow draws for it, the pool's last index)
_STEP = [(left, left.bit_length(), left - 1) for left in range(_MOST + 1)]
# per length of a list, made when first asked: the steps random.Random.sample takes to draw all of
# it, its sizes from the length down to 1
_STEPS: dict[int, tuple[tuple[int, int, int], ...]] = {}


def _steps(n: int) -> tuple[tuple[int, int, int], ...]:
    found = _STEPS.get(n)
    if found is None:
        found = _STEPS[n] = tuple(_STEP[n:0:-1])
    return found


def shuffled(rand: random.Random, items: Sequence[T]) -> list[T]:
    """rand.sample(items, len(items)): the same list and the same random numbers used, so that a
    player's later draws stay those of the sampler before it (tests/test_sampler_same.py)."""
    return first_passing(rand, items, lambda _: True, len(items))


def first_passing(rand: random.Random, items: Sequence[T], ok: Callable[[T], bool], most: int,
                  among: Collection[T] | None = None) -> list[T]:
    """The first `most` items that pass ok in the order rand.sample(items, len(items)) gives, ok asked
    only until then and only of those among the collection given (if one is: ok refuses the others);
    the random numbers used are still those of the whole order."""
    n = len(items)
    if type(rand) is not random.Random or n > _MOST:  # a subclass may draw its numbers otherwise: ask it
        return [item for item in rand.sample(items, n)
                if (among is None or item in among) and ok(item)][:most]
    # random.Random.sample's pool branch (always taken when all are drawn) with _randbelow written
    # out: one getrandbits call a draw, its sizes read from a table instead of counted down
    getrandbits = rand.getrandbits
    steps = iter(_STEPS.get(n) or _steps(n))
    out: list[T] = []
    if (among is None or among) and most > 0:
        pool = list(items)
        for left, bits, last in steps:
            j = getrandbits(bits)
            while j >= left:
                j = getrandbits(bits)
            item = pool[j]
            pool[j] = pool[last]
            if (among is None or item in among) and ok(item):
                out.append(item)
                if len(out) >= most:
                    break
    for left, bits, _ in steps:  # the draws of the items not looked at
        while getrandbits(bits) >= left:
            pass
    return out


def choice(rand: random.Random, items: Sequence[T]) -> T:
    """rand.choice(items): the same item and the same random numbers used, without its two calls."""
    n = len(items)
    if type(rand) is not random.Random or not 0 < n <= _MOST:
        return rand.choice(items)
    getrandbits = rand.getrandbits
    bits = _STEP[n][1]  # choice's _randbelow draws n.bit_length() bits, as sample's steps
    j = getrandbits(bits)
    while j >= n:
        j = getrandbits(bits)
    return items[j]


def shuffle(rand: random.Random, items: list[T]) -> None:
    """rand.shuffle(items), in place: the same order and the same random numbers used."""
    n = len(items)
    if type(rand) is not random.Random or n > _MOST:
        rand.shuffle(items)
        return
    getrandbits = rand.getrandbits
    for left, bits, i in (_STEPS.get(n) or _steps(n))[:-1]:  # sizes n down to 2: the swap of a size-1 list is not drawn
        j = getrandbits(bits)
        while j >= left:
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
