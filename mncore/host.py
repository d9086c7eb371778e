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


class UpgradeLog(msgspec.Struct, frozen=True, tag=True, forbid_unknown_fields=True, kw_only=True,
                 omit_defaults=True):
    """Rewrite a log of an older format into the current one (the host's act, `mn upgrade`)."""

    from_version: int
    previous_head: str  # the last hash of the log in its old format


class LogUpgraded(msgspec.Struct, frozen=True, tag=True, forbid_unknown_fields=True, kw_only=True,
                  omit_defaults=True):
    """The log before this event was rewritten from an older format; its old head is kept here.

    Anyone who kept the old head can check that the rewritten log is the one they knew: verify
    recomputes the old format's chain over the events before this one.
    """

    from_version: int
    previous_head: str


def upgrade_events(command: UpgradeLog) -> list[LogUpgraded]:
    """The record of an upgrade; verify checks previous_head against the events before it."""
    return [LogUpgraded(from_version=command.from_version, previous_head=command.previous_head)]
