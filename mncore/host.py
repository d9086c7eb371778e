"""The acts every game shares, whatever its rules: revealing the secret that every draw came from."""

from __future__ import annotations

import msgspec

from mncore.dice import commitment
from mncore.errors import InvalidCommand, require
from mncore.protocol import Meta


class RevealSecret(msgspec.Struct, frozen=True, tag=True, forbid_unknown_fields=True, kw_only=True,
                   omit_defaults=True):
    """Publish the game's secret so that every draw can be checked (the host's act)."""

    secret: str


class SecretRevealed(msgspec.Struct, frozen=True, tag=True, forbid_unknown_fields=True, kw_only=True,
                     omit_defaults=True):
    """The game's random secret, revealed so that anyone can check every draw."""

    secret: str  # hex


def reveal_events(meta: Meta, command: RevealSecret) -> list[SecretRevealed]:
    """The reveal, checked against the commitment of the game's first event."""
    require(meta.secret is None, "game", "the secret was already revealed")
    try:
        raw = bytes.fromhex(command.secret)
    except ValueError:
        raise InvalidCommand("the secret must be hexadecimal") from None
    require(commitment(raw) == meta.commitment, "game",
            "this secret does not match the commitment in the game's first event")
    return [SecretRevealed(secret=command.secret)]
