"""The acts every game shares, whatever its rules: revealing the secret, publishing keys, signed orders."""

from __future__ import annotations

from typing import NoReturn

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
# --- player keys and signed orders (docs/security.md) -------------------------------------------

class PublishKeys(msgspec.Struct, frozen=True, tag=True, forbid_unknown_fields=True, kw_only=True,
                  omit_defaults=True):
    """Publish each side's Ed25519 public key, right after creation (the host's act)."""

    keys: dict[str, str]  # side -> public key, 64 hex digits
    signed_only: bool = False  # refuse every order that is not signed by its side


class KeysPublished(msgspec.Struct, frozen=True, tag=True, forbid_unknown_fields=True, kw_only=True,
                    omit_defaults=True):
    """Each side's public key: from here on an order signed with it is that side's own."""

    keys: dict[str, str]  # side -> public key, 64 hex digits
    signed_only: bool = False


class SignedOrders(msgspec.Struct, frozen=True, tag=True, forbid_unknown_fields=True, kw_only=True,
                   omit_defaults=True):
    """A side's order block, signed with its key (mncore/signing.py): stored whole as its batch's
    command, so that anyone holding the log can check the signature against the published key."""

    game: str
    side: str
    seq: int  # the event the block answers: the log's last event when it was signed
    head: str  # that event's hash
    key: str  # the signer's public key, 64 hex digits
    nonce: str  # fresh random hex from the player: no two blocks sign the same text
    orders: tuple[str, ...]  # the order lines, decided in turn as one batch
    signature: str  # Ed25519 over signing.message(), 128 hex digits


KERNEL_COMMANDS = (PublishKeys, SignedOrders)  # decided by the kernel (mncore/signing.py), not a ruleset


def kernel_only(command: PublishKeys | SignedOrders) -> NoReturn:
    """A ruleset's decide() given a command that only the kernel decides (a bug in the caller)."""
    raise InvalidCommand(f"{type(command).__name__} is decided by the kernel (mncore.signing), "
                         "not by a ruleset")
