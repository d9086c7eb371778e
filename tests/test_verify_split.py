"""verify split in segments over processes gives the very report of one pass, for good and tampered logs."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import msgspec
import pytest
from msgspec.structs import replace

import classic_signed
from mncore.audits import verify, verify_stream
from mncore.audits.verify import Head, verify_rows
from mncore.audits.verify_stream import verify_stored
from mncore.games import reading, transfer
from mncore.games.lifecycle import rechain
from mncore.pbem.draw_keys import K11
from mncore.store import Row, Store, open_store

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
GOLDEN = sorted(FIXTURES.glob("*.jsonl"))


@pytest.fixture(autouse=True)
def _split_short_logs(monkeypatch: pytest.MonkeyPatch) -> None:
    """The golden games are short: split them all the same."""
    monkeypatch.setattr(verify, "SPLIT_MIN", 1)


def _rows(path: Path) -> tuple[int, list[Row]]:
    header, rows = transfer.parse_export(path.read_bytes(), path.name)
    return header.version, rows


def _both(rows: list[Row], version: int, heads: list[Head] | None = None) -> verify.Report:
    """The report of one pass, checked equal to those of 2 and 3 processes."""
    one = verify_rows(rows, version, heads or [], workers=1)
    for workers in (2, 3):
        split = verify_rows(rows, version, heads or [], workers=workers)
        assert msgspec.json.encode(split) == msgspec.json.encode(one), workers
    return one


def test_a_plain_log_is_split_and_a_signed_one_decided_in_one_pass(monkeypatch: pytest.MonkeyPatch,
                                                                    tmp_path: Path) -> None:
    version, rows = _rows(FIXTURES / "game-6-1.jsonl")
    store, loaded = classic_signed.new_game(tmp_path / "signed.db", K11)
    loaded = _forty(store, loaded)
    signed = store.rows(loaded.game_id)

    def one_pass(*args: object, **kwargs: object) -> None:
        raise AssertionError("decided in one pass")
    monkeypatch.setattr(verify, "_redecide", one_pass)

    assert verify_rows(rows, version, workers=2).ok
    with pytest.raises(AssertionError, match="one pass"):
        verify_rows(signed, store.log_version(loaded.game_id), workers=2)


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.stem)
def test_a_golden_log_has_the_same_report_split_or_in_one_pass(path: Path) -> None:
    version, rows = _rows(path)
    report = _both(rows, version, [Head(source="the export header", seq=len(rows), hash=rows[-1].hash)])
    assert report.ok and report.commands_checked > 50


@pytest.mark.parametrize("where", [0.2, 0.5, 0.9])
def test_a_rehashed_changed_payload_has_the_same_report_split_or_in_one_pass(where: float) -> None:
    version, rows = _rows(FIXTURES / "game-6-2.jsonl")
    targets = [r for r in rows if r.type == "ResourcesCollected" and '"coin":1' in r.payload]
    target = targets[int(len(targets) * where)]
    forged = rechain([replace(r, payload=r.payload.replace('"coin":1', '"coin":9', 1)) if r.seq == target.seq
                      else r for r in rows], version)
    report = _both(forged, version)
    assert not report.ok and report.first_bad == target.seq and "decided again" in (report.reason or "")


def test_a_changed_payload_not_rehashed_has_the_same_report() -> None:
    version, rows = _rows(FIXTURES / "game-6-3.jsonl")
    seq = len(rows) // 2
    edited = [replace(r, payload=r.payload.replace('"', ' "', 1)) if r.seq == seq else r for r in rows]
    report = _both(edited, version)
    assert not report.ok and report.first_bad == seq


def test_a_cut_log_has_the_same_report_split_or_in_one_pass() -> None:
    version, rows = _rows(FIXTURES / "game-6-4.jsonl")
    held = [Head(source="the database's head record", seq=len(rows), hash=rows[-1].hash)]
    cut = rows[: len(rows) - 40]
    report = _both(cut, version, held)
    assert not report.ok and "cut short" in (report.reason or "")
    assert _both(cut, version).ok  # with no head held, the shorter log verifies as far as it goes


def test_a_bad_signature_has_the_same_report_split_or_in_one_pass(tmp_path: Path) -> None:
    store, loaded = classic_signed.new_game(tmp_path / "signed.db", K11)
    loaded = _forty(store, loaded)
    rows = store.rows(loaded.game_id)
    version = store.log_version(loaded.game_id)
    assert _both(rows, version).ok
    signed = [r for r in rows if r.command is not None and '"signature":"' in r.command]
    target = signed[len(signed) // 2]
    command = msgspec.json.decode(target.command or "")
    sig = command["signature"]
    command["signature"] = ("0" if sig[0] != "0" else "1") + sig[1:]
    forged = rechain([replace(r, command=msgspec.json.encode(command).decode()) if r.seq == target.seq else r
                      for r in rows], version)
    report = _both(forged, version)
    assert not report.ok and report.first_bad == target.seq and "signed block" in (report.reason or "")


def _forty(store: Store, loaded: reading.Loaded) -> reading.Loaded:
    """Forty signed blocks of the scripted players."""
    count = [0]

    def stop(_: object) -> bool:
        count[0] += 1
        return count[0] > 40
    return classic_signed.play_until(store, loaded, stop, random.Random(classic_signed.SEED))  # type: ignore[no-any-return]


# --- the stored game read pass by pass (mncore/audits/verify_stream.py) -----------------------------------------

def _stored(tmp_path: Path, rows: list[Row], version: int) -> tuple[Store, str]:
    store = open_store(str(tmp_path / "streamed.db"), create=True)
    store.import_rows("g", "2026-11-26T00:00:00+00:00", rows, version)
    return store, "g"


def _streamed_like_one_pass(monkeypatch: pytest.MonkeyPatch, store: Store, rows: list[Row], version: int,
                            heads: list[Head]) -> verify.Report:
    """verify_stored, read in small chunks and segments, with 1 and 2 workers, gives verify_rows' report."""
    monkeypatch.setattr(verify_stream, "CHUNK", 97)
    monkeypatch.setattr(verify_stream, "SEGMENT_ROWS", 61)
    one = verify_rows(rows, version, heads, workers=1)
    for workers in (1, 2):
        streamed = verify_stored(store, "g", heads, workers=workers)
        assert msgspec.json.encode(streamed) == msgspec.json.encode(one), workers
    return one


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.stem)
def test_a_stored_golden_game_read_pass_by_pass_has_the_report_of_one_pass(
        path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    version, rows = _rows(path)
    store, gid = _stored(tmp_path, rows, version)
    heads = [Head(source="the database's head record", seq=len(rows), hash=rows[-1].hash)]
    assert _streamed_like_one_pass(monkeypatch, store, rows, version, heads).ok


@pytest.mark.parametrize("where", [0.1, 0.6])
def test_a_stored_game_with_a_rehashed_forgery_has_the_report_of_one_pass(
        where: float, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    version, rows = _rows(FIXTURES / "game-6-2.jsonl")
    targets = [r for r in rows if r.type == "ResourcesCollected" and '"coin":1' in r.payload]
    target = targets[int(len(targets) * where)]
    forged = rechain([replace(r, payload=r.payload.replace('"coin":1', '"coin":9', 1)) if r.seq == target.seq
                      else r for r in rows], version)
    store, _ = _stored(tmp_path, forged, version)
    report = _streamed_like_one_pass(monkeypatch, store, forged, version, [])
    assert not report.ok and report.first_bad == target.seq


def test_a_stored_game_edited_or_cut_has_the_report_of_one_pass(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    version, rows = _rows(FIXTURES / "game-6-3.jsonl")
    seq = len(rows) // 2
    edited = [replace(r, payload=r.payload.replace('"', ' "', 1)) if r.seq == seq else r for r in rows]
    (tmp_path / "a").mkdir()
    store, _ = _stored(tmp_path / "a", edited, version)
    assert not _streamed_like_one_pass(monkeypatch, store, edited, version, []).ok
    held = [Head(source="the database's head record", seq=len(rows), hash=rows[-1].hash)]
    cut = rows[:-30]
    (tmp_path / "b").mkdir()
    store, _ = _stored(tmp_path / "b", cut, version)
    report = _streamed_like_one_pass(monkeypatch, store, cut, version, held)
    assert not report.ok and "cut short" in (report.reason or "")


def test_a_stored_signed_game_is_read_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keys published: verify_stored hands the whole log to verify_rows (its checks read what came before)."""
    store, loaded = classic_signed.new_game(tmp_path / "signed.db", K11)
    loaded = _forty(store, loaded)
    whole: list[int] = []

    def counted(rows: list[Row], *args: Any, **kwargs: Any) -> verify.Report:
        whole.append(len(rows))
        return verify_rows(rows, *args, **kwargs)
    monkeypatch.setattr(verify_stream, "verify_rows", counted)
    report = verify_stored(store, loaded.game_id, [])
    assert report.ok and whole == [len(store.rows(loaded.game_id))]


@pytest.mark.parametrize("path", GOLDEN[:3], ids=lambda p: p.stem)
def test_the_one_read_gives_the_report_of_the_passes_one_by_one(
        path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A clean log is reported by the one read (_fused), with the passes' very report; forgeries fall back."""
    version, rows = _rows(path)
    store, gid = _stored(tmp_path, rows, version)
    heads = [Head(source="the database's head record", seq=len(rows), hash=rows[-1].hash)]
    monkeypatch.setattr(verify_stream, "SEGMENT_ROWS", 61)
    fused = verify_stream._fused
    taken: list[bool] = []

    def counted(*args: Any) -> verify.Report:
        try:
            report = fused(*args)
        except verify_stream._Fallback:
            taken.append(False)
            raise
        taken.append(True)
        return report
    monkeypatch.setattr(verify_stream, "_fused", counted)
    for workers in (1, 2):
        one_read = verify_stored(store, gid, heads, workers=workers)

        def refused(*args: Any) -> verify.Report:
            raise verify_stream._Fallback
        with monkeypatch.context() as m:
            m.setattr(verify_stream, "_fused", refused)
            passes = verify_stored(store, gid, heads, workers=workers)
        assert msgspec.json.encode(one_read) == msgspec.json.encode(passes) and one_read.ok
    assert taken == [True, True]
    version, rows = _rows(FIXTURES / "game-6-2.jsonl")
    forged = rechain([replace(r, payload=r.payload.replace('"coin":1', '"coin":9', 1))
                      if r.type == "ResourcesCollected" else r for r in rows], version)
    assert forged != rows
    (tmp_path / "f").mkdir()
    store, gid = _stored(tmp_path / "f", forged, version)
    assert not verify_stored(store, gid, [], workers=2).ok and taken[-1] is False
