"""A number beyond bounds is refused in every place of every event, in the words it had before msgspec bounded any."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal, get_args

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st
from msgspec.structs import replace

from mncore.core.bounded_decoding import numbers_bounded
from mncore.core.bounds import BOUNDED_WHILE_DECODING, MAX_NUMBER, Number, out_of_bounds, within
from mncore.core.errors import IntegrityFailure
from mncore.games import log_reading
from mncore.games.log_reading import decode_row, decoded
from mncore.games.transfer import read_export
from mncore.rulesets import registry
from mncore.rulesets.empires import events as ev
from mncore.store import Row

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
GAMES = sorted(FIXTURES.glob("*.jsonl"))
WHAT = "cannot decode the stored event"
TOO_LARGE = (MAX_NUMBER + 1, -10**30)  # just beyond, and beyond 64 bits
PLACES_A_TYPE = 12  # places tried per event type (a board has thousands: the first ones, then spread)


def _rows(path: Path) -> list[Row]:
    _, rows = read_export(path.read_bytes(), path.stem)
    return list(rows)


def _row(seq: int, kind: str, payload: str) -> Row:
    return Row(seq=seq, type=kind, payload=payload, recorded_at="", actor="host", batch=seq, hash="")


def _places(value: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The path of every number (not a bool) in a decoded JSON value."""
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _places(v, (*at, k))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _places(v, (*at, i))]
    return [at] if isinstance(value, int | float) and not isinstance(value, bool) else []


def _with(doc: Any, place: tuple[Any, ...], number: int) -> Any:
    if not place:
        return number
    out = dict(doc) if isinstance(doc, dict) else list(doc)
    out[place[0]] = _with(doc[place[0]], place[1:], number)
    return out


def _refusal(ruleset: Any, row: Row) -> str | None:
    try:
        decode_row(ruleset, row, WHAT)
    except IntegrityFailure as err:
        assert err.seq == row.seq
        return err.reason
    return None


def _chunked(ruleset: Any, rows: list[Row]) -> list[tuple[int, Any]]:
    out: list[tuple[int, Any]] = []
    try:
        for r, event in decoded(ruleset, rows, WHAT):
            out.append((r.seq, event))
    except IntegrityFailure as err:
        out.append((err.seq, err.reason))
    return out


def _cases() -> list[tuple[Path, Row]]:
    """The first row of each event type in each golden game (GameCreated once a ruleset)."""
    out, seen = [], set()
    for path in GAMES:
        for row in _rows(path):
            key = (path.name.split("-")[0] == "classic", row.type)
            if key not in seen:
                seen.add(key)
                out.append((path, row))
    return out


@pytest.mark.parametrize("path,row", _cases(), ids=lambda x: x.type if isinstance(x, Row) else x.stem)
def test_a_too_large_number_in_any_place_of_an_event_is_refused_as_before(path: Path, row: Row) -> None:
    """Each number of the event (a Struct's field, a dict's value, a list's or tuple's item, nested,
    a float's place, a board's) made too large: refused at its seq with out_of_bounds' words, as before
    the event types bounded their numbers, alone and in a chunk of the log's rows."""
    ruleset = registry.get(msgspec.json.decode(_rows(path)[0].payload)["ruleset_id"])
    doc = msgspec.json.decode(row.payload)
    places = _places(doc)
    tried = places[:PLACES_A_TYPE // 2] + places[PLACES_A_TYPE // 2::max(1, len(places) // PLACES_A_TYPE)]
    before = _rows(path)[:row.seq - 1]
    for place in tried:
        for number in TOO_LARGE:
            bad = replace(row, payload=msgspec.json.encode(_with(doc, place, number)).decode())
            want = f"{WHAT}: {out_of_bounds(msgspec.json.decode(bad.payload), 'payload')[0]}"
            assert _refusal(ruleset, bad) == want, (row.type, place)
            assert _chunked(ruleset, [*before, bad])[-1] == (row.seq, want), (row.type, place)


BOUNDED_EVENT = '{"empire":"rome","gained":{"coin":%s,"wine":1},%s"type":"ResourcesCollected"}'


class ResourcesCollected(msgspec.Struct, frozen=True, tag=True, forbid_unknown_fields=True, kw_only=True,
                         omit_defaults=True):
    """The event as it was declared before bounds.Number: its integers plain."""

    empire: Literal["rome", "greece", "babylon", "egypt", "carthage", "atlantis"]
    gained: dict[str, int]
    sources: tuple[str, ...] = ()
    missed: dict[str, int] = {}
    drawn: int = 0


def _as_before(payload: str) -> str | None:
    """The refusal of a row of that event before bounds.Number (decode_row's words then)."""
    try:
        msgspec.json.decode(payload, type=ResourcesCollected)
    except (msgspec.DecodeError, msgspec.ValidationError) as err:
        return f"{WHAT}: {err}"
    problems = out_of_bounds(msgspec.json.decode(payload), "payload")
    return f"{WHAT}: {problems[0]}" if problems else None


@pytest.mark.parametrize("rest", [
    '"drawn":"two",',  # a later field of the wrong type
    '"drawn":1.5,',
    '"missed":{"oil":12345678},"drawn":[],',
    '"sources":[3],',
    '"sources":[123456789012345678901234567890],',  # msgspec's word for a number past 64 bits: float
    '"unknown":1,',
    '"drawn":2,"drawn":x,',  # malformed after it: msgspec's own words, byte offset and all
    '"drawn":2,"drawn":12345678.,',
    '"drawn":-99999999,',
    '',
])
@pytest.mark.parametrize("number", ["12345678", "-123456789012345678901234567890", "7"])
def test_a_row_refused_for_another_reason_too_keeps_that_reason(rest: str, number: str) -> None:
    """Before bounds.Number, a long number where an integer belongs was read and the row refused for
    what came after it, if anything; it still is, in msgspec's words and at the same byte."""
    from mncore.rulesets.empires.seam import RULESET
    payload = BOUNDED_EVENT % (number, rest)
    assert _refusal(RULESET, _row(7, "ResourcesCollected", payload)) == _as_before(payload)
    in_a_chunk = _chunked(RULESET, [_row(7, "ResourcesCollected", payload)])[-1]
    assert in_a_chunk[1] == (_as_before(payload) or decode_row(RULESET, _row(7, "", payload), WHAT))


def test_a_forged_payload_nested_deep_and_wide_after_a_long_number_is_refused_as_before() -> None:
    """Reading it again as it was before bounds.Number walks it once: no path is made for its thousands
    of values, none beyond DEEPEST levels (a path a value made it take minutes for 600 KB)."""
    from mncore.rulesets.empires.seam import RULESET
    junk = "[" * 100_000 + ",".join(["12345678"] * 60_000) + "]" * 100_000
    # the tag first: msgspec then refuses the unknown field before it reads what the field holds
    payload = '{"type":"ResourcesCollected","empire":"rome","gained":{"coin":12345678},"junk":' + junk + "}"
    assert _refusal(RULESET, _row(7, "ResourcesCollected", payload)) == _as_before(payload)
    assert _as_before(payload) == f"{WHAT}: Object contains unknown field `junk`"


def test_a_long_number_a_later_key_replaces_is_read_as_before() -> None:
    """A repeated key: the last value is the event's, as before (msgspec and out_of_bounds both keep it)."""
    from mncore.rulesets.empires.seam import RULESET
    row = _row(3, "PhaseBegan", '{"phase":"trade","round":12345678,"round":3,"type":"PhaseBegan"}')
    assert decode_row(RULESET, row, WHAT) == ev.PhaseBegan(round=3, phase="trade")
    assert [e for _, e in decoded(RULESET, [row], WHAT)] == [ev.PhaseBegan(round=3, phase="trade")]


def test_the_chunks_of_bounded_types_skip_the_digit_check_and_refuse_as_row_by_row(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from mncore.rulesets.empires.seam import RULESET
    monkeypatch.setattr(log_reading, "CHUNK", 16)
    rows = _rows(FIXTURES / "game-6-1.jsonl")[:80]
    assert numbers_bounded(ev.PhaseBegan) and not numbers_bounded(ev.GameCreated)
    calls: list[str] = []

    def checked(payload: str) -> bool:
        calls.append(payload)
        return True
    monkeypatch.setattr(log_reading, "_numbers_within", checked)
    assert len(_chunked(RULESET, rows)) == len(rows)
    assert calls == [rows[0].payload]  # GameCreated's alone: a board holds floats
    monkeypatch.undo()
    monkeypatch.setattr(log_reading, "CHUNK", 16)
    at = 50
    rows[at] = replace(rows[at], payload='{"phase":"trade","round":10000000,"type":"PhaseBegan"}')
    got = _chunked(RULESET, rows)
    assert got[:-1] == [(r.seq, decode_row(RULESET, r, WHAT)) for r in rows[:at]]
    assert got[-1] == (rows[at].seq, f"{WHAT}: payload.round: 10000000 is out of bounds (at most 1,000,000 either way)")


class _Plain(msgspec.Struct, forbid_unknown_fields=True):
    n: int


class _Bounded(msgspec.Struct, forbid_unknown_fields=True):
    n: Number
    bag: dict[str, Number] = {}
    rolls: tuple[Number, ...] = ()
    maybe: Number | None = None


class _Loose(msgspec.Struct):  # an unknown field, and its numbers, pass through
    n: Number


class _Floating(msgspec.Struct, forbid_unknown_fields=True):
    x: float  # takes 12345678 as 12345678.0: out_of_bounds still finds it


class _Untyped(msgspec.Struct, forbid_unknown_fields=True):
    any: Any


class _Nested(msgspec.Struct, forbid_unknown_fields=True):
    inner: _Nested | None = None  # holds itself: its numbers may sit at any depth
    n: Number = 0


class _Deep(msgspec.Struct, forbid_unknown_fields=True):
    n: list[list[list[list[list[list[list[list[list[list[list[list[list[list[list[list[Number]]]]]]]]]]]]]]]]


class _DeepEnough(msgspec.Struct, forbid_unknown_fields=True):
    n: list[list[list[list[list[list[list[list[list[list[list[list[list[list[list[Number]]]]]]]]]]]]]]]


class _Counted(msgspec.Struct, forbid_unknown_fields=True):
    n: Annotated[int, msgspec.Meta(ge=1)]  # another ceiling: not bounds.Number's


@pytest.mark.parametrize("ruleset", registry.builtin(), ids=lambda r: r.short)
def test_the_event_types_declared_bounded_are_those_whose_numbers_msgspec_bounds(ruleset: Any) -> None:
    """Each ruleset's (and the kernel's) declaration, held to the types: a type declared in error would
    let a long number through unread, one left out would only be read more slowly."""
    kinds = get_args(ruleset.event_type)
    assert [k.__name__ for k in kinds if (k in BOUNDED_WHILE_DECODING) is not numbers_bounded(k)] == []
    assert sum(k in BOUNDED_WHILE_DECODING for k in kinds) > len(kinds) // 2


@pytest.mark.parametrize("kind,bounded", [(_Plain, False), (_Bounded, True), (_Loose, False), (_Floating, False),
                                          (_Untyped, False), (_Counted, False), (_Nested, False),
                                          (_Deep, False), (_DeepEnough, True), (ev.ResourcesCollected, True),
                                          (ev.TradingEnded, True), (ev.GameCreated, False)])
def test_a_type_is_bounded_only_if_msgspec_refuses_every_long_number_in_it(kind: type, bounded: bool) -> None:
    assert numbers_bounded(kind) is bounded


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=3),
                           lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=2), inner,
                                                                                          max_size=4), max_leaves=20)


@given(value=json_values)
def test_within_is_out_of_bounds_finding_nothing(value: Any) -> None:
    assert within(value) is (out_of_bounds(value) == [])
