"""The hash chain of a game's log, in its two formats, and the content chain that keys every draw.

Version 1 hashed the payload alone: `hash = SHA-256(previous ‖ payload)`. Version 2 hashes the whole
row, so that who gave an order, when, in which batch and with which command cannot be rewritten:
`hash = SHA-256(previous ‖ canonical JSON of {v, seq, type, actor, batch, recorded_at, command,
payload})` (docs/log-format.md). Draws are keyed by the content chain (the version-1 formula over
the payloads), so that a game plays the same dice whatever the clock said and in either format.
"""

from __future__ import annotations

import hashlib

import msgspec

GENESIS_HASH = "0" * 64
LOG_V1 = 1
LOG_V2 = 2
CURRENT = LOG_V2
VERSIONS = (LOG_V1, LOG_V2)


class Chained(msgspec.Struct, frozen=True, kw_only=True):
    """What a version-2 hash covers besides the previous hash, in this field order."""

    v: int
    seq: int
    type: str
    actor: str
    batch: int
    recorded_at: str
    command: msgspec.Raw  # canonical JSON of the batch's command on its first row, else null
    payload: msgspec.Raw  # canonical JSON of the event


_ENCODER = msgspec.json.Encoder()


def content_link(previous: str, payload: str) -> str:
    """SHA-256(previous ‖ payload), hex: the version-1 hash, and the content chain of every version."""
    return hashlib.sha256((previous + payload).encode("utf-8")).hexdigest()


def canonical_row(*, seq: int, type: str, actor: str, batch: int, recorded_at: str,
                  command: str | None, payload: str) -> bytes:
    """The bytes a version-2 hash covers after the previous hash."""
    return _ENCODER.encode(Chained(
        v=LOG_V2, seq=seq, type=type, actor=actor, batch=batch, recorded_at=recorded_at,
        command=msgspec.Raw(command.encode() if command is not None else b"null"),
        payload=msgspec.Raw(payload.encode())))


def link(version: int, previous: str, *, seq: int, type: str, actor: str, batch: int,
         recorded_at: str, command: str | None, payload: str) -> str:
    """The hash of one row after `previous`, in the log format `version`."""
    if version == LOG_V1:
        return content_link(previous, payload)
    row = canonical_row(seq=seq, type=type, actor=actor, batch=batch, recorded_at=recorded_at,
                        command=command, payload=payload)
    return hashlib.sha256(previous.encode("ascii") + row).hexdigest()
