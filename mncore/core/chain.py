"""The hash chain of a game's log, in its two formats, and the content chain that keys every draw.

Version 1 hashed the payload alone: `hash = SHA-256(previous ‖ payload)`. Version 2 hashes the whole
row, so that who gave an order, when, in which batch and with which command cannot be rewritten:
`hash = SHA-256(previous ‖ canonical JSON of {v, seq, type, actor, batch, recorded_at, command,
payload})` (docs/log-format.md). Draws are keyed by the content chain (the version-1 formula over
the payloads), so that a game plays the same dice whatever the clock said and in either format.

Hidden values are committed, not hashed bare (version 2): a ruleset names the fields of a payload or
command that some sides may not see (`payload/offer`, `command/tokens`); each is replaced, in the
bytes the hash covers, by `{"commit": SHA-256(salt ‖ canonical JSON of the value)}` with
`salt = HMAC-SHA256(secret, "salt|" ‖ seq ‖ "|" ‖ field)`. A row without hidden fields hashes its
bytes unchanged. This module is the one place that knows these formulas.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from typing import Any

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
COMMIT_KEY = "commit"  # a committed field reads {"commit": hex} in the bytes a version-2 hash covers
PAYLOAD, COMMAND = "payload", "command"  # the roots of a hidden field's name: payload/offer


class CommitError(ValueError):
    """A hidden field names a path its JSON does not have, or the JSON is not an object."""


def salt(secret: bytes, seq: int, field: str) -> str:
    """The salt of hidden field `field` (payload/offer) of event seq: only the secret's holder knows it."""
    return hmac.new(secret, f"salt|{seq}|{field}".encode(), hashlib.sha256).hexdigest()


def commit(salt_hex: str, value: Any) -> str:
    """SHA-256(salt ‖ canonical JSON of value), hex: without the salt no candidate can be tried."""
    return hashlib.sha256(bytes.fromhex(salt_hex) + _ENCODER.encode(value)).hexdigest()


def is_commitment(value: Any) -> bool:
    """Whether a JSON value is a committed field's placeholder {"commit": hex}."""
    return (isinstance(value, dict) and list(value) == [COMMIT_KEY]
            and isinstance(value[COMMIT_KEY], str) and len(value[COMMIT_KEY]) == 64)


def split_field(field: str) -> tuple[str, list[str]]:
    """(root, JSON path parts) of a field name: "payload/display/3/tile" -> ("payload", [...])."""
    root, _, rest = field.partition("/")
    return root, rest.split("/") if rest else []


def _step(node: Any, part: str) -> tuple[Any, Any]:
    if isinstance(node, dict) and part in node:
        return node, part
    if isinstance(node, list) and part.isdigit() and int(part) < len(node):
        return node, int(part)
    raise CommitError(f"no field {part!r} here")


def get_path(doc: Any, parts: list[str]) -> Any:
    node = doc
    for part in parts:
        parent, key = _step(node, part)
        node = parent[key]
    return node


def set_path(doc: Any, parts: list[str], value: Any) -> None:
    if not parts:
        raise CommitError("a hidden field must be inside the JSON object, not all of it")
    node = get_path(doc, parts[:-1])
    parent, key = _step(node, parts[-1])
    parent[key] = value


def committed(text: str | None, root: str, salts: Mapping[str, str]) -> str | None:
    """The JSON `text` (a payload or command) as a version-2 hash covers it.

    Each field of `root` in `salts` is replaced by {"commit": its commitment}; fields a copy made
    for one side already holds as placeholders stay as they are. Text with no salted field is
    returned unchanged, byte for byte. CommitError if a field is not there.
    """
    mine = {f: s for f, s in salts.items() if split_field(f)[0] == root}
    if text is None or not mine:
        return text
    doc = msgspec.json.decode(text)
    for field, salt_hex in sorted(mine.items()):
        parts = split_field(field)[1]
        set_path(doc, parts, {COMMIT_KEY: commit(salt_hex, get_path(doc, parts))})
    return _ENCODER.encode(doc).decode()


def withheld(text: str | None, root: str, commitments: Mapping[str, str]) -> str | None:
    """The JSON `text` with each field of `root` in `commitments` replaced by {"commit": hex}."""
    mine = {f: h for f, h in commitments.items() if split_field(f)[0] == root}
    if text is None or not mine:
        return text
    doc = msgspec.json.decode(text)
    for field, hex_ in sorted(mine.items()):
        set_path(doc, split_field(field)[1], {COMMIT_KEY: hex_})
    return _ENCODER.encode(doc).decode()


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
         recorded_at: str, command: str | None, payload: str,
         salts: Mapping[str, str] | None = None) -> str:
    """The hash of one row after `previous`, in the log format `version`.

    `salts` opens the row's hidden fields (payload/offer: salt): in version 2 each is hashed as its
    commitment. Version 1 hashes the payload as it is, whatever is hidden.
    """
    if version == LOG_V1:
        return content_link(previous, payload)
    if salts:
        payload = committed(payload, PAYLOAD, salts) or payload
        command = committed(command, COMMAND, salts)
    row = canonical_row(seq=seq, type=type, actor=actor, batch=batch, recorded_at=recorded_at,
                        command=command, payload=payload)
    return hashlib.sha256(previous.encode("ascii") + row).hexdigest()
