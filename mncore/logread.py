"""Reading a log: the ruleset it was created under, its events, its fold and its content chain."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

import msgspec

from mncore import registry
from mncore.bounds import out_of_bounds
from mncore.chain import GENESIS_HASH, content_link
from mncore.errors import IntegrityFailure, InvalidCommand
from mncore.protocol import Ruleset
from mncore.store import Row


_LONG_NUMBER = re.compile(r"\d{7}")


def ruleset_of(first_payload: str, where: str) -> Ruleset:
    """The ruleset a log was created under, refusing an unknown or newer one before reading on."""
    try:
        head = json.loads(first_payload)
    except (ValueError, RecursionError):
        raise IntegrityFailure(1, f"{where}: the first event is not JSON") from None
    if not isinstance(head, dict) or head.get("type") != "GameCreated":
        raise IntegrityFailure(1, f"{where}: the first event is not GameCreated")
    rid, version = head.get("ruleset_id"), head.get("ruleset_version")
    try:
        ruleset = registry.get(str(rid))
    except InvalidCommand as err:
        raise InvalidCommand(f"{where}: created under ruleset '{rid}', which this engine does not "
                             f"know ({err.message.split('; ', 1)[-1]}); refusing to read it") from None
    if not isinstance(version, int) or version > ruleset.version:
        raise InvalidCommand(f"{where}: created under {rid} version {version}, newer than this "
                             f"engine's version {ruleset.version}; upgrade mn to read it")
    if version < ruleset.version:
        raise InvalidCommand(f"{where}: created under {rid} version {version}; this engine replays "
                             f"only version {ruleset.version}")
    return ruleset


def decode_rows(rows: Sequence[Row], where: str) -> tuple[Ruleset | None, list[Any]]:
    """The ruleset of a log (None if empty) and its events; IntegrityFailure naming an undecodable row."""
    if not rows:
        return None, []
    ruleset = ruleset_of(rows[0].payload, where)
    out = []
    for r in rows:
        out.append(decode_row(ruleset, r, "cannot decode the stored event"))
    return ruleset, out


def decode_row(ruleset: Ruleset, row: Row, what: str) -> Any:
    """The event of a row, its numbers bounded (bounds.MAX_NUMBER); IntegrityFailure at its seq."""
    try:
        # a number beyond the ceiling has at least 7 digits: only then is the payload walked
        problems = (out_of_bounds(msgspec.json.decode(row.payload), "payload")
                    if _LONG_NUMBER.search(row.payload) else [])
        event = ruleset.decode_event(row.payload)
    except (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError, RecursionError) as err:
        raise IntegrityFailure(row.seq, f"{what}: {err}") from None
    if problems:
        raise IntegrityFailure(row.seq, f"{what}: {problems[0]}")
    return event


def content_head(rows: Iterable[Row], head: str = GENESIS_HASH) -> str:
    """The content chain over the rows' payloads (which keys every draw), from head."""
    for r in rows:
        head = content_link(head, r.payload)
    return head


def fold(ruleset: Ruleset, events: Iterable[Any], state: Any = None) -> Any:
    """The state after events, from state (the empty state by default)."""
    if state is None:
        state = ruleset.initial("")
    for e in events:
        state = ruleset.evolve(state, e)
    return state
