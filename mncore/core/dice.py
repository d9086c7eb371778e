"""The game's committed secret and every random outcome derived from it (dice, draws, shuffles)."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Sequence
from typing import TypeVar

from mncore.core.chain import GENESIS_HASH as GENESIS_HASH  # the hash before a log's first event
from mncore.core.errors import MareNostrumError

T = TypeVar("T")


class SecretNeeded(MareNostrumError):
    """A random outcome was asked for but the secret is not known here (verify before reveal)."""


def new_secret() -> bytes:
    import secrets  # only where a game is created: a lean start

    return secrets.token_bytes(32)


def seeded_secret(seed: str) -> bytes:
    """A known secret from a text seed, for tests and sandboxes (not a fair-play game)."""
    return hashlib.sha256(b"mare-nostrum seed:" + seed.encode("utf-8")).digest()


def commitment(secret: bytes) -> str:
    """The SHA-256 commitment published in the first event."""
    return hashlib.sha256(secret).hexdigest()


class Rng:
    """Draws derived from HMAC-SHA256(secret, key ‖ counter): the same log gives the same draws.

    The key is the content head before the command (no player can know a draw before the log
    reaches that point), or in a game with keys a signed block's signature and, under ruling K10,
    the service's acts keyed by their side's last signed block (mncore/pbem/draw_keys.py), so that the
    host's schedule moves no draw. Anyone can recompute them once the secret is out.

    `settle`, under ruling K11, gives the order count that keys what a ruleset's settle step draws
    when a phase ends or begins (settling); without it those draws continue this stream.
    """

    def __init__(self, secret: bytes | None, head_hash: str,
                 settle: Callable[[], int] | None = None) -> None:
        self._secret = secret
        self._head = head_hash.encode("ascii")
        self.counter = 0
        self._settle = settle
        self._settling: dict[str, Rng] | None = None  # made at the first settling(): most batches settle nothing

    def settling(self, label: str) -> Rng:
        """The generator of the draws that follow by themselves once a phase's decisions are in
        (`label`: the round and phase the settle step starts in; K11). Under K11 it is keyed by
        `settle:LABEL:M`, M the number of the players' order batches in play before this one, so
        that which pending block the host applies last does not choose them; under older schemes,
        and for the host's own acts, it is this generator itself, as those logs were made. The same
        label twice in one batch gives the same generator, its counter running on: never a stream
        drawn twice."""
        if self._settle is None:
            return self
        if self._settling is None:
            self._settling = {}
        if label not in self._settling:
            self._settling[label] = _Settling(self._secret, label, self._settle)
        return self._settling[label]

    def _block(self) -> int:
        if self._secret is None:
            raise SecretNeeded("this needs the game's secret, which is not revealed")
        # HMAC-SHA256 (RFC 2104) from the two padded hashes: copying hmac.HMAC costs twice as much
        inner, outer = _pads(self._secret)
        inner = inner.copy()
        inner.update(self._head + b"|" + str(self.counter).encode("ascii"))
        outer = outer.copy()
        outer.update(inner.digest())
        self.counter += 1
        return int.from_bytes(outer.digest()[:8], "big")

    def below(self, n: int) -> int:
        """A uniform integer in [0, n), by rejection so that no value is favoured."""
        if n <= 0:
            raise ValueError("below() needs a positive bound")
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            v = self._block()
            if v < limit:
                return v % n

    def roll(self, faces: Sequence[int]) -> int:
        return faces[self.below(len(faces))]

    def choice(self, items: Sequence[T]) -> T:
        return items[self.below(len(items))]

    def shuffled(self, items: Sequence[T]) -> list[T]:
        """A Fisher-Yates shuffle of a copy."""
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = self.below(i + 1)
            out[i], out[j] = out[j], out[i]
        return out


@functools.lru_cache(maxsize=8)
def _pads(secret: bytes) -> tuple[hashlib._Hash, hashlib._Hash]:
    """SHA-256 fed the secret's inner and outer HMAC pads, no message yet: each draw copies both (a game
    has one secret)."""
    key = hashlib.sha256(secret).digest() if len(secret) > _BLOCK else secret  # RFC 2104: a long key hashed
    key = key.ljust(_BLOCK, b"\0")
    return hashlib.sha256(key.translate(_INNER)), hashlib.sha256(key.translate(_OUTER))


_BLOCK = 64  # SHA-256's block size in bytes
_INNER = bytes(b ^ 0x36 for b in range(256))  # each key byte XOR ipad, as a bytes.translate table
_OUTER = bytes(b ^ 0x5C for b in range(256))  # and XOR opad


class _Settling(Rng):
    """A settling generator whose key is worked out at its first draw: counting the orders before a
    batch reads the log, which most settle steps (no phase ends) never need."""

    def __init__(self, secret: bytes | None, label: str, orders: Callable[[], int]) -> None:
        super().__init__(secret, "")
        self._label = label
        self._orders = orders
        self._keyed = False

    def _block(self) -> int:
        if not self._keyed and self._secret is not None:
            self._head = f"settle:{self._label}:{self._orders()}".encode("ascii")
            self._keyed = True
        return super()._block()
