"""A log's rows decoded a chunk at a time give the events and the refusals of decode_row, row by row."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from msgspec.structs import replace

from mncore.core.errors import IntegrityFailure
from mncore.games import log_reading
from mncore.games.log_reading import decode_row, decode_rows, decoded
from mncore.games.transfer import read_export
from mncore.rulesets.empires.seam import RULESET
from mncore.store import Row

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
WHAT = "cannot decode the stored event"


def _rows() -> list[Row]:
    _, rows = read_export((FIXTURES / "game-6-1.jsonl").read_bytes(), "game-6-1")
    return list(rows)


def _one_by_one(rows: list[Row]) -> list[tuple[int, Any]]:
    """What each row gives alone: its event, or the IntegrityFailure's message (and nothing after it)."""
    out: list[tuple[int, Any]] = []
    for r in rows:
        try:
            out.append((r.seq, decode_row(RULESET, r, WHAT)))
        except IntegrityFailure as err:
            out.append((err.seq, str(err)))
            break
    return out


def _chunked(rows: list[Row]) -> list[tuple[int, Any]]:
    out: list[tuple[int, Any]] = []
    try:
        for r, event in decoded(RULESET, rows, WHAT):
            out.append((r.seq, event))
    except IntegrityFailure as err:
        out.append((err.seq, str(err)))
    return out


@pytest.fixture(autouse=True)
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(log_reading, "CHUNK", 16)  # several chunks, and a last one cut short


def test_a_golden_log_decodes_as_row_by_row() -> None:
    rows = _rows()
    assert len(rows) > 3 * log_reading.CHUNK
    alone = _one_by_one(rows)
    assert _chunked(rows) == alone
    assert decode_rows(rows, "game")[1] == [event for _, event in alone]


@pytest.mark.parametrize("edit", ["not json", "unknown type", "huge number", "wrong type"])
@pytest.mark.parametrize("at", [1, 2, 20, 37])
def test_a_bad_row_is_refused_at_its_seq_after_the_rows_before_it(edit: str, at: int) -> None:
    """The rows before a bad one are handed out first (a stream's reader checks them), then it is
    refused with decode_row's own message: in the first chunk (GameCreated's commitment has 7 digits
    in a row, so it is read row by row) or in a later one, which has none but for a huge number."""
    rows = _rows()[:60]
    bad = rows[at]
    rows[at] = replace(bad, payload={
        "not json": bad.payload[:-1],
        "unknown type": '{"type":"NoSuchEvent"}',
        "huge number": '{"phase":"trade","round":10000000,"type":"PhaseBegan"}',
        "wrong type": '{"phase":"trade","round":"one","type":"PhaseBegan"}'}[edit])
    alone = _one_by_one(rows)
    assert isinstance(alone[-1][1], str) and alone[-1][0] == bad.seq
    if edit == "huge number":
        assert "out of bounds" in alone[-1][1]
    assert _chunked(rows) == alone
    with pytest.raises(IntegrityFailure) as refused:
        decode_rows(rows, "game")
    assert (refused.value.seq, str(refused.value)) == alone[-1]


def test_seven_digits_in_a_string_are_read_not_refused() -> None:
    rows = _rows()[:40]
    rows[20] = replace(rows[20], payload='{"condition":"c","detail":"1234567","empires":["rome"],"type":"GameWon"}')
    assert _chunked(rows) == _one_by_one(rows)
    assert len(decode_rows(rows, "game")[1]) == len(rows)
    assert all(not isinstance(e, str) for _, e in _chunked(rows))
