"""Reading a log: the ruleset it was created under, its events, its fold and its content chain."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import islice
from typing import Any

import msgspec

from mncore.core.bounds import BOUNDED_WHILE_DECODING, out_of_bounds, within
from mncore.core.chain import GENESIS_HASH, content_link
from mncore.core.collector import collector_paused as collector_paused  # its readers' name for it
from mncore.core.errors import IntegrityFailure, InvalidCommand
from mncore.core.protocol import FoldsMany, Ruleset
from mncore.rulesets import registry
from mncore.store import Row

# a number beyond bounds.MAX_NUMBER has at least 7 digits in a row: translated through this table
# (each ASCII digit to "0", every other byte to "."), a payload holds "0000000" only if it may have one
_DIGITS = bytes(0x30 if 0x30 <= b <= 0x39 else 0x2E for b in range(256))
_SEVEN_DIGITS = b"0" * 7


def ruleset_of(first_payload: str, where: str) -> Ruleset:
    """The ruleset a log was created under, refusing an unknown or newer one before reading on."""
    try:
        head = msgspec.json.decode(first_payload)  # msgspec, not json: one import less per command
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
    what = "cannot decode the stored event"
    out: list[Any] = []
    with collector_paused():
        for at in range(0, len(rows), CHUNK):  # no generator: a list of events per chunk
            chunk = rows[at:at + CHUNK]
            events = _events_of(ruleset, chunk)
            out += events if events is not None else [decode_row(ruleset, r, what) for r in chunk]
    return ruleset, out


CHUNK = 256  # rows decoded in one comprehension


def decoded(ruleset: Ruleset, rows: Iterable[Row], what: str) -> Iterator[tuple[Row, Any]]:
    """Each row with its event, as decode_row gives them; rows are read CHUNK at a time (a stream
    stays a stream), and a chunk with no number beyond bounds skips the check row by row."""
    it = iter(rows)
    while chunk := list(islice(it, CHUNK)):
        events = _events_of(ruleset, chunk)
        if events is None:  # row by row: the rows before a bad one are handed out before it is refused
            yield from ((r, decode_row(ruleset, r, what)) for r in chunk)
        else:
            yield from zip(chunk, events)


def _events_of(ruleset: Ruleset, chunk: Sequence[Row]) -> list[Any] | None:
    """The chunk's events in one comprehension, or None if a row must be read alone: one does not
    decode, or one of a type not declared bounds.bounded_while_decoding has a number beyond bounds."""
    decode = ruleset.decode_event
    try:
        events = [decode(r.payload) for r in chunk]
    except (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError, RecursionError):
        return None
    bounded = BOUNDED_WHILE_DECODING
    if bounded.issuperset(map(type, events)):  # msgspec refused every number beyond bounds
        return events
    for row, event in zip(chunk, events):  # the others' rows as decode_row bounds them
        if type(event) not in bounded and not _numbers_within(row.payload):
            return None
    return events


def decode_row(ruleset: Ruleset, row: Row, what: str) -> Any:
    """The event of a row, its numbers bounded (bounds.MAX_NUMBER); IntegrityFailure at its seq, worded
    as before msgspec bounded any number (bounded_decoding.as_unbounded)."""
    try:
        event = _as_before_bounds(ruleset, row.payload)
        problems = [] if _numbers_within(row.payload) else out_of_bounds(msgspec.json.decode(row.payload), "payload")
    except (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError, RecursionError) as err:
        raise IntegrityFailure(row.seq, f"{what}: {err}") from None
    if problems:
        raise IntegrityFailure(row.seq, f"{what}: {problems[0]}")
    return event


def _numbers_within(payload: str) -> bool:
    """No number of a payload that decodes is beyond bounds (only one with 7 digits in a row is walked:
    a bytes translate is a tenth of a regex)."""
    return _SEVEN_DIGITS not in payload.encode().translate(_DIGITS) or within(msgspec.json.decode(payload))


def _as_before_bounds(ruleset: Ruleset, payload: str) -> Any:
    """The event, or the error, that decoding payload gave before bounds.Number."""
    try:
        return ruleset.decode_event(payload)
    except msgspec.ValidationError as err:
        from mncore.core import bounded_decoding  # msgspec.inspect: only for a refused row

        if not bounded_decoding.beyond_bounds(err):
            raise
        return bounded_decoding.as_unbounded(ruleset.decode_event, ruleset.event_type, payload)


def content_head(rows: Iterable[Row], head: str = GENESIS_HASH) -> str:
    """The content chain over the rows' payloads (which keys every draw), from head."""
    for r in rows:
        head = content_link(head, r.payload)
    return head


def fold(ruleset: Ruleset, events: Iterable[Any], state: Any = None) -> Any:
    """The state after events, from state (the empty state by default)."""
    if state is None:
        state = ruleset.initial("")
    evolve = ruleset.evolve
    with collector_paused():
        if isinstance(ruleset, FoldsMany):  # the ruleset's own loop: one call an event less
            return ruleset.evolve_all(state, events)
        for e in events:
            state = evolve(state, e)
    return state


def replay_rows(ruleset: Ruleset, rows: Iterable[Row], state: Any = None) -> Any:
    """The fold of a log's rows, each decoded as it is read (from Store.stream_rows): neither the
    rows nor their events are held, so memory does not grow with the log."""
    return fold_rows(ruleset, decoded(ruleset, rows, "cannot decode the stored event"), state)


def fold_rows(ruleset: Ruleset, pairs: Iterable[tuple[Row, Any]], state: Any = None) -> Any:
    """The fold of each row's event, from state (the empty state by default); a row that does not
    replay is an IntegrityFailure at its seq."""
    if state is None:
        state = ruleset.initial("")
    evolve = ruleset.evolve
    with collector_paused():
        for row, event in pairs:
            try:
                state = evolve(state, event)
            except Exception as err:  # an edited database, whatever the error: mn verify says more
                raise IntegrityFailure(row.seq, f"does not replay ({type(err).__name__}: {err}); "
                                                "run mn verify") from None
    return state
