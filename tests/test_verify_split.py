"""verify split in segments over processes gives the very report of one pass, for good and tampered logs."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import msgspec
import pytest
from msgspec.structs import replace

import classic_signed
from mncore.audits import verify, verify_acts, verify_carry, verify_stream
from mncore.audits.verify import Head, verify_rows
from mncore.audits.verify_stream import verify_stored
from mncore.games import lifecycle, reading, transfer
from mncore.games.lifecycle import rechain
from mncore.games.log_reading import decode_rows
from mncore.pbem import draw_keys, signing
from mncore.pbem.draw_keys import K11
from mncore.rulesets.classic.seam import RULESET as CLASSIC
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


def _signed(tmp_path: Path, blocks: int = 90, reveal: bool = True) -> tuple[int, list[Row]]:
    """A keyed, signed-only 2003 game (K11) of `blocks` signed blocks, its secret revealed at the end."""
    store, loaded = classic_signed.new_game(tmp_path / "signed-source.db", K11)
    count = [0]

    def stop(_: object) -> bool:
        count[0] += 1
        return count[0] > blocks
    loaded = classic_signed.play_until(store, loaded, stop, random.Random(classic_signed.SEED))
    if reveal:
        lifecycle.reveal(store, loaded.game_id, force=True)
    rows, version = store.rows(loaded.game_id), store.log_version(loaded.game_id)
    store.close()
    return version, rows


def _one_reads(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """verify_stream._fused watched: True for each log it verified in its one read, False for each it
    left to the passes one by one (_Fallback)."""
    fused, taken = verify_stream._fused, []

    def counted(*args: Any) -> verify.Report:
        try:
            report = fused(*args)
        except verify_stream._Fallback:
            taken.append(False)
            raise
        taken.append(True)
        return report
    monkeypatch.setattr(verify_stream, "_fused", counted)
    return taken


def _streamed_not_whole(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, rows: list[Row], version: int,
                        heads: list[Head] | None = None) -> verify.Report:
    """The stored log is streamed (never handed whole to verify_rows) in several segments, with 1 and 2
    workers, and its report is verify_rows' of the whole log: a clean one from the one read (_fused)."""
    store, _ = _stored(tmp_path, rows, version)
    _chunks_only(monkeypatch, store)
    segments = _segments_counted(monkeypatch)
    read = _one_reads(monkeypatch)
    report = _streamed_like_one_pass(monkeypatch, store, rows, version, heads or [])
    store.close()
    assert len(segments) > 2 or not report.ok
    assert read == ([True, True] if report.ok else [False, False]) or not read  # two reveals: no one read
    return report


def _segments_counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The first batch number of each segment decided by the reader or handed to a worker, in either read."""
    segments: list[int] = []
    _counted(monkeypatch, segments, segments)
    return segments


def _counted(monkeypatch: pytest.MonkeyPatch, here: list[int], handed: list[int]) -> None:
    """The first batch number of each segment the reader decides appended to here, of each it hands a
    worker to handed."""
    decided, packed = verify_stream._decided, verify_stream._packed

    def decided_here(task: Any) -> Any:
        here.append(task[0])  # a worker appends to its own copy of the list
        return decided(task)

    def handing(ruleset: Any, task: Any) -> Any:
        handed.append(task[0])
        return packed(ruleset, task)
    monkeypatch.setattr(verify_stream, "_decided", decided_here)
    monkeypatch.setattr(verify_stream, "_packed", handing)


def _chunks_only(monkeypatch: pytest.MonkeyPatch, store: Store) -> None:
    """The store refuses to give more than a chunk of rows at once: the log is never read whole."""
    rows_of = store.rows

    def chunk(game_id: str, start: int = 1, end: int | None = None) -> list[Row]:
        if end is None or end - start + 1 > verify_stream.CHUNK:
            raise AssertionError(f"read whole: rows {start} to {end}")
        return rows_of(game_id, start, end)
    monkeypatch.setattr(store, "rows", chunk)


def test_a_stored_signed_game_is_streamed_with_the_report_of_one_pass(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Keys published, signed blocks: the blocks' checks read only what was carried to their segment."""
    version, rows = _signed(tmp_path)
    held = [Head(source="the database's head record", seq=len(rows), hash=rows[-1].hash)]
    report = _streamed_not_whole(monkeypatch, tmp_path, rows, version, held)
    assert report.ok and report.signed_checked == 90 and report.secret_revealed and report.draws == K11


def test_what_a_signed_block_reads_before_it_is_carried_and_then_dropped() -> None:
    """The survey notes the rows and pending decisions a block reads, with the last batch that reads
    them; the carry forgets them after it."""
    needs = verify_carry.Needs()
    block = '{"type":"SignedOrders","game":"c","side":"a","seq":7,"head":"h","key":"k","nonce":"n","orders":["x"],"signature":"s"}'
    row = Row(seq=12, type="T", payload="{}", recorded_at="t", hash="h", actor="a", batch=12, command=block)
    verify_carry.survey_row(needs, row)
    verify_carry.survey_row(needs, replace(row, seq=20, batch=20, command=block.replace('"seq":7', '"seq":8')))
    needs.done()
    assert [needs.row_until(s) for s in (6, 7, 8, 9)] == [0, 12, 20, 20]
    assert [needs.pending_until(s) for s in (7, 8, 9)] == [12, 20, 0] and not needs.on_log
    assert needs.repeated("n") and not needs.repeated("m")  # both blocks carry nonce "n"
    carry = verify_carry.Carry(rows={7: row, 8: row}, pending={7: [], 8: []})
    carry.drop_before(needs, 12)
    assert set(carry.rows) == {7, 8}
    carry.drop_before(needs, 13)
    assert set(carry.rows) == {8} and set(carry.pending) == {8}
    verify_carry.survey_row(needs, replace(row, command='{"type":"UndoBatch","batch":3}'))
    assert needs.on_log


def test_the_carry_counts_K11s_orders_before_each_batch_of_a_keyed_log(tmp_path: Path) -> None:
    """K11: a phase's settling draws are keyed by the count of order batches before it; the carry that
    hands a segment its start counts them as draw_keys.orders_before does over the whole log before."""
    _, rows = _signed(tmp_path, blocks=40, reveal=False)
    needs = verify_carry.Needs()
    for r in rows:
        verify_carry.survey_row(needs, r)
    needs.done()
    ruleset, events = decode_rows(rows, "test")
    assert ruleset is not None and needs.keyed
    carry, state = verify_carry.Carry(), ruleset.initial("")
    for start, end in verify._batches(rows):
        assert carry.orders == draw_keys.orders_before(rows[:start]), start
        for e in events[start:end]:
            state = ruleset.evolve(state, e)
        verify_carry.carry_batch(carry, needs, ruleset, rows[start:end], state)
    assert carry.orders == draw_keys.orders_before(rows) >= 40  # each block an order batch


@pytest.mark.parametrize("where", [0.15, 0.5, 0.85])
def test_a_stored_signed_game_with_a_rehashed_forgery_has_the_report_of_one_pass(
        where: float, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    version, rows = _signed(tmp_path)
    varied = {t for t in {r.type for r in rows} if len({r.payload for r in rows if r.type == t}) > 1}
    inside = [r for r in rows if r.seq > 3 and r.type in varied]  # another of its kind: it still decodes
    target = inside[int(len(inside) * where)]
    other = next(r for r in rows if r.type == target.type and r.payload != target.payload)
    forged = rechain([replace(r, payload=other.payload) if r.seq == target.seq else r for r in rows], version)
    report = _streamed_not_whole(monkeypatch, tmp_path, forged, version)
    assert not report.ok and report.first_bad == target.seq


def test_a_stored_signed_game_edited_or_cut_has_the_report_of_one_pass(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    version, rows = _signed(tmp_path)
    seq = len(rows) // 2
    edited = [replace(r, payload=r.payload.replace('"', ' "', 1)) if r.seq == seq else r for r in rows]
    (tmp_path / "a").mkdir()
    report = _streamed_not_whole(monkeypatch, tmp_path / "a", edited, version)
    assert not report.ok and report.first_bad == seq
    held = [Head(source="the database's head record", seq=len(rows), hash=rows[-1].hash)]
    (tmp_path / "b").mkdir()
    report = _streamed_not_whole(monkeypatch, tmp_path / "b", rows[:-30], version, held)
    assert not report.ok and "cut short" in (report.reason or "")


@pytest.mark.parametrize("where", [0.1, 0.9])
def test_a_stored_signed_game_with_a_bad_signature_has_the_report_of_one_pass(
        where: float, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    version, rows = _signed(tmp_path)
    signed = [r for r in rows if r.command is not None and '"signature":"' in r.command]
    target = signed[int(len(signed) * where)]
    command = msgspec.json.decode(target.command or "")
    command["signature"] = ("0" if command["signature"][0] != "0" else "1") + command["signature"][1:]
    forged = rechain([replace(r, command=msgspec.json.encode(command).decode()) if r.seq == target.seq else r
                      for r in rows], version)
    report = _streamed_not_whole(monkeypatch, tmp_path, forged, version)
    assert not report.ok and report.first_bad == target.seq and "signed block" in (report.reason or "")


def test_a_stored_signed_game_with_a_block_applied_twice_or_answering_late_has_the_report_of_one_pass(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A block given again later (its nonce in the ledger), and one moved past its side's next block (stale:
    what it answers was read from a row carried from segments before)."""
    version, rows = _signed(tmp_path, reveal=False)
    batches = [r.seq for r in rows if r.batch == r.seq]
    early = rows[batches[5] - 1]
    end = next(s for s in batches if s > batches[5]) - 1
    again = [replace(r, seq=len(rows) + 1 + i, batch=len(rows) + 1) for i, r in enumerate(rows[early.seq - 1:end])]
    forged = rechain(rows + again, version)
    (tmp_path / "a").mkdir()
    report = _streamed_not_whole(monkeypatch, tmp_path / "a", forged, version)
    assert not report.ok and report.first_bad == len(rows) + 1 and "already applied" in (report.reason or "")
    old = msgspec.json.decode(rows[batches[-20] - 1].command or "")  # signed again, with a fresh nonce
    block = signing.sign(classic_signed.private_key(old["side"]), game="c", side=old["side"], seq=old["seq"],
                         head=old["head"], orders=old["orders"], nonce="f" * 32)
    late = [replace(r, seq=len(rows) + 1 + i, batch=len(rows) + 1, recorded_at=rows[-1].recorded_at,
                    command=CLASSIC.encode_command(block).decode() if i == 0 else None)
            for i, r in enumerate(rows[batches[-20] - 1:batches[-19] - 1])]
    (tmp_path / "b").mkdir()
    report = _streamed_not_whole(monkeypatch, tmp_path / "b", rechain(rows + late, version), version)
    assert not report.ok and report.first_bad == len(rows) + 1 and "stale" in (report.reason or "")


def test_a_stored_game_revealed_twice_is_streamed_with_the_report_of_one_pass(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A second reveal is decided again against the first, carried to its segment."""
    version, rows = _signed(tmp_path)
    reveal = [r for r in rows if r.batch == rows[-1].batch]
    again = [replace(r, seq=len(rows) + 1 + i, batch=len(rows) + 1) for i, r in enumerate(reveal)]
    forged = rechain(rows + again, version)
    report = _streamed_not_whole(monkeypatch, tmp_path, forged, version)
    assert not report.ok and report.first_bad == len(rows) + 1


def _acts_streamed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, rows: list[Row], version: int,
                   heads: list[Head] | None = None) -> verify.Report:
    """A stored log with acts of play by email is streamed (never read whole) and decided again in one
    pass, in several segments (mncore/audits/verify_acts.py), with 1 and 2 workers asked for; its report
    is verify_rows' of the whole log."""
    tmp_path.mkdir(exist_ok=True)
    store, _ = _stored(tmp_path, rows, version)
    _chunks_only(monkeypatch, store)
    monkeypatch.setattr(verify_acts, "SEGMENT", 61)
    segments: list[int] = []
    spans = verify_acts.spans

    def counted(rows: list[Row]) -> list[tuple[int, int]]:
        segments.append(len(rows))
        return spans(rows)
    monkeypatch.setattr(verify_acts, "spans", counted)
    report = _streamed_like_one_pass(monkeypatch, store, rows, version, heads or [])
    store.close()
    assert len(segments) > 4 or (not report.ok and report.commands_checked < 200)
    return report


def test_a_stored_game_with_an_undo_is_streamed_with_the_report_of_one_pass(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The recorded game by mail (undos, consent, a correction, defaults): its acts are decided again on
    the log before them read from the store, never held; clean and forged."""
    version, rows = _rows(FIXTURES / "pbem-4.jsonl")
    report = _acts_streamed(monkeypatch, tmp_path / "a", rows, version)
    assert report.ok and report.on_log >= 4
    undo = next(r for r in rows if r.type == "BatchUndone")
    target = rows[undo.seq - 3]
    forged = rechain([replace(r, payload=r.payload.replace('"', ' "', 1)) if r.seq == target.seq else r
                      for r in rows], version)
    assert not _acts_streamed(monkeypatch, tmp_path / "f", forged, version).ok


@pytest.mark.parametrize("path", GOLDEN[:3], ids=lambda p: p.stem)
def test_the_one_read_gives_the_report_of_the_passes_one_by_one(
        path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A clean log is reported by the one read (_fused), with the passes' very report; forgeries fall back."""
    version, rows = _rows(path)
    store, gid = _stored(tmp_path, rows, version)
    heads = [Head(source="the database's head record", seq=len(rows), hash=rows[-1].hash)]
    monkeypatch.setattr(verify_stream, "SEGMENT_ROWS", 61)
    taken = _one_reads(monkeypatch)
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


def _alternating(monkeypatch: pytest.MonkeyPatch, worker_first: bool) -> tuple[list[int], list[int]]:
    """verify_stream._Hands steered: once the pool is forked, every other segment goes to the worker and
    the others are decided by the reader. The first numbers of those decided here, and of those handed."""
    here: list[int] = []
    handed: list[int] = []

    def to_worker(hands: verify_stream._Hands) -> bool:
        if hands._pool is None:
            return False
        return (len(here) + len(handed)) % 2 == (0 if worker_first else 1)
    monkeypatch.setattr(verify_stream._Hands, "to_worker", to_worker)
    _counted(monkeypatch, here, handed)
    return here, handed


@pytest.mark.parametrize("worker_first", [True, False])
@pytest.mark.parametrize("where", [None, 0.3, 0.5, 0.7, 0.95])
def test_segments_decided_by_the_reader_and_by_a_worker_give_the_report_of_one_pass(
        where: float | None, worker_first: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The reader decides segments itself between those it hands to a worker: whichever decides the
    segment that holds a failure, and whichever the segments before it, the report is the one pass's."""
    version, rows = _rows(FIXTURES / "game-6-2.jsonl")
    if where is not None:  # another collection's payload, rehashed: it replays, and its re-decision differs
        kind = [r for r in rows if r.type == "ResourcesCollected"]
        target = min(kind, key=lambda r: abs(r.seq - len(rows) * where))
        other = next(r for r in kind if r.payload != target.payload)
        rows = rechain([replace(r, payload=other.payload) if r.seq == target.seq else r for r in rows], version)
    store, _ = _stored(tmp_path, rows, version)
    monkeypatch.setattr(verify_stream, "SEGMENT_ROWS", 61)
    one = verify_rows(rows, version, [], workers=1)
    here, handed = _alternating(monkeypatch, worker_first)
    split = verify_stored(store, "g", [], workers=2)
    assert msgspec.json.encode(split) == msgspec.json.encode(one)
    assert here[0] == 1 and len(here) >= 2 and handed, (here, handed)  # the first here, then both
    assert split.ok == (where is None) and (where is None or split.first_bad == target.seq)
