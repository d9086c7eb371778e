"""An export's header bound to its log: each field checked against the chain, the rest under a seal."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import msgspec
from msgspec.structs import replace

from mncore.core.chain import GENESIS_HASH, VERSIONS, CommitError, link
from mncore.core.errors import IntegrityFailure
from mncore.store import Row

EXPORT_FORMAT = "mare-nostrum/log"  # an export's version is the log format of its game (chain.py)


class ExportHeader(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True,
                   omit_defaults=True):
    """The first line of an export: what it is, which game, how long, where its chain ends."""

    format: str
    version: int
    game: str
    ruleset: str
    events: int
    head_hash: str
    made_for: str | None = None  # an export made for one empire, with hidden parts withheld
    seal: str = ""  # SHA-256 of the header less its seal ("": an export of an older mn, unsealed)


class HeaderEdited(IntegrityFailure):
    """An export's header contradicts its log, or its seal: seq 0 stands for the header."""

    def __init__(self, reason: str) -> None:
        super().__init__(0, reason)
        self.message = reason


# the fields the log itself vouches for (checked against it); the seal alone covers the others
CHECKED = ("format", "version", "ruleset", "events", "head_hash")
_ENCODER = msgspec.json.Encoder(order="deterministic")


def sealed(header: ExportHeader) -> ExportHeader:
    """The header with its seal: what a reader recomputes to see that no field was edited."""
    return replace(header, seal=seal_of(header))


def seal_of(header: ExportHeader) -> str:
    return hashlib.sha256(b"mare-nostrum/log header\n" + _ENCODER.encode(replace(header, seal=""))).hexdigest()


def sealed_only() -> list[str]:
    """The header's fields the log cannot vouch for, which only the seal covers (and the seal)."""
    return [f for f in ExportHeader.__struct_fields__ if f not in CHECKED]


def chain_version(rows: Sequence[Row]) -> int | None:
    """The log format whose hash the first row carries, or None (no rows, or no known format)."""
    if not rows:
        return None
    r = rows[0]
    for version in VERSIONS:
        try:
            if link(version, GENESIS_HASH, seq=r.seq, type=r.type, actor=r.actor, batch=r.batch,
                    recorded_at=r.recorded_at, command=r.command, payload=r.payload,
                    salts=r.salts) == r.hash:
                return version
        except (CommitError, msgspec.DecodeError, ValueError):
            continue
    return None


def header_problem(header: ExportHeader, rows: Sequence[Row], withholds: bool) -> str | None:
    """What is wrong with the header against the rows it heads, naming the field; None if nothing.

    `withholds`: some line withholds a hidden field (an export made for one side).
    """
    for field, problem in (("format", _format(header)), ("version", _version(header, rows)),
                           ("ruleset", _ruleset(header, rows)), ("events", _events(header, rows)),
                           ("head_hash", _head(header, rows)), ("made_for", _made_for(header, withholds)),
                           ("seal", _seal(header))):
        if problem is not None:
            return f"the export header's {field} {problem}"
    return None


def _format(header: ExportHeader) -> str | None:
    return None if header.format == EXPORT_FORMAT else f"is '{header.format}', not {EXPORT_FORMAT} (edited)"


def _version(header: ExportHeader, rows: Sequence[Row]) -> str | None:
    found = chain_version(rows)
    if found is None or found == header.version:
        return None  # no format matches event 1: the chain check names it
    return f"says log format v{header.version}, but its chain is in format v{found} (edited)"


def _ruleset(header: ExportHeader, rows: Sequence[Row]) -> str | None:
    if not rows:
        return None
    try:
        first = msgspec.json.decode(rows[0].payload)
        recorded = f"{first['ruleset_id']}@{first['ruleset_version']}"
    except (msgspec.DecodeError, KeyError, TypeError):
        return None  # not a creation event: the replay names event 1
    if header.ruleset == recorded:
        return None
    return f"says {header.ruleset}, but the first event records {recorded} (edited)"


def _events(header: ExportHeader, rows: Sequence[Row]) -> str | None:
    if header.events == len(rows):
        return None
    return f"says {header.events} events, but the file holds {len(rows)} (cut short, or edited)"


def _head(header: ExportHeader, rows: Sequence[Row]) -> str | None:
    last = rows[-1].hash if rows else GENESIS_HASH
    if header.head_hash == last:
        return None
    return (f"{header.head_hash[:16]} is not the hash of its last event ({last[:16]}): the log was cut "
            "short or rewritten, or the header edited")


def _made_for(header: ExportHeader, withholds: bool) -> str | None:
    if withholds and header.made_for is None:
        return "names no side, but the export withholds hidden fields (edited)"
    return None


def _seal(header: ExportHeader) -> str | None:
    if not header.seal or header.seal == seal_of(header):
        return None  # "": an export of an older mn, whose header had no seal
    return (f"does not match the header: one of {', '.join(sealed_only())}, which the log cannot "
            "vouch for, was edited")
