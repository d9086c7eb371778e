"""The dice draw exactly what HMAC-SHA256(secret, key | counter) computed from scratch gives, whatever
the secret, key and bound: a keyed HMAC built once per secret changes no draw of any log."""

from __future__ import annotations

import hashlib
import hmac

from hypothesis import given, settings
from hypothesis import strategies as st

from mncore.core.dice import Rng


def scratch_blocks(secret: bytes, head: str, count: int) -> list[int]:
    """The first count 64-bit blocks, each HMAC built anew as the dice first did."""
    return [int.from_bytes(hmac.new(secret, head.encode("ascii") + b"|" + str(i).encode("ascii"),
                                    hashlib.sha256).digest()[:8], "big") for i in range(count)]


def scratch_below(blocks: list[int], n: int) -> tuple[int, int]:
    """below(n) by rejection over the blocks: (value, blocks used)."""
    limit = (1 << 64) - ((1 << 64) % n)
    for used, v in enumerate(blocks, 1):
        if v < limit:
            return v % n, used
    raise AssertionError("no block accepted")


SECRETS = st.binary(min_size=0, max_size=80)  # keys longer than SHA-256's block are hashed first
HEADS = st.text(alphabet="0123456789abcdef:settle", max_size=70)


@settings(max_examples=300, deadline=None)
@given(SECRETS, HEADS, st.lists(st.integers(1, 2**64), min_size=1, max_size=12))
def test_draws_are_those_computed_from_scratch(secret: bytes, head: str, bounds: list[int]) -> None:
    """Each below(n) of a generator is the rejection draw over the blocks a fresh HMAC gives."""
    rng = Rng(secret, head)
    blocks = scratch_blocks(secret, head, 40 * len(bounds))
    at = 0
    for n in bounds:
        want, used = scratch_below(blocks[at:], n)
        assert rng.below(n) == want
        at += used
    assert rng.counter == at


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(SECRETS, HEADS), min_size=2, max_size=6), st.integers(1, 6))
def test_secrets_in_turn_draw_their_own(pairs: list[tuple[bytes, str]], faces: int) -> None:
    """Generators of several secrets drawing in turn each give their own scratch draws."""
    rngs = [Rng(secret, head) for secret, head in pairs]
    for _ in range(3):
        for rng, (secret, head) in zip(rngs, pairs, strict=True):
            blocks = scratch_blocks(secret, head, rng.counter + 20)[rng.counter:]
            want, _ = scratch_below(blocks, faces)
            assert rng.below(faces) == want


def test_settling_draws_are_keyed_by_their_label() -> None:
    """A settling generator's draws are those of the key settle:LABEL:M from scratch."""
    secret = b"s" * 32
    rng = Rng(secret, "00" * 32, settle=lambda: 7)
    settling = rng.settling("3:build")
    blocks = scratch_blocks(secret, "settle:3:build:7", 10)
    want, at = [], 0
    for _ in range(3):
        value, used = scratch_below(blocks[at:], 6)
        want.append(value)
        at += used
    assert [settling.below(6) for _ in range(3)] == want
