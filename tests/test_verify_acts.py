"""mn verify of a stored game by mail streams its log, acts decided on the log before them and all, with
the very report of verify_rows over the whole log, for good and tampered logs."""

from __future__ import annotations

import json
import random
import shutil
from collections import Counter
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import msgspec
import pytest
from click.testing import CliRunner
from msgspec.structs import replace

import by_mail_game
import classic_signed
from by_mail_game import SIDES, clock, play
from mncli.cli import main
from mncore.audits import verify, verify_acts, verify_carry, verify_stream
from mncore.audits.verify import Head, verify_rows
from mncore.audits.verify_stream import verify_stored
from mncore.core.errors import CommandRejected
from mncore.core.kernel_state import undone_seqs
from mncore.games import by_mail, lifecycle, reading, writing
from mncore.games.lifecycle import rechain
from mncore.pbem import draw_keys, turns
from mncore.pbem.draw_keys import K11
from mncore.rulesets.empires.seam import RULESET as EMPIRES
from mncore.store import Row, Store, open_store
from mncore.store.sqlite import SqliteStore


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The database of a game by mail of 150 scripted turns: deadlines' defaults, forced answers, a
    standing order, undos alone and with consent, a correction; a snapshot cached every 64 events."""
    path = tmp_path_factory.mktemp("by-mail") / "source.db"
    store = open_store(str(path), create=True)
    with pytest.MonkeyPatch.context() as m:
        m.setenv("MN_SNAPSHOT_EVERY", "64")
        play(store, 150)
    store.close()
    return path


@pytest.fixture(scope="module")
def mailed(source: Path) -> tuple[int, list[Row]]:
    """That game's log format and rows."""
    store = open_store(str(source))
    rows, version = store.rows("g"), store.log_version("g")
    store.close()
    return version, rows


def _stored(path: Path, rows: list[Row], version: int) -> Store:
    path.mkdir(exist_ok=True)
    store = open_store(str(path / "mn.db"), create=True)
    store.import_rows("g", "2030-02-01T00:00:00+00:00", rows, version)
    return store


def _chunks_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every store refuses to give more than a chunk of rows at once: the log is never read whole."""
    rows_of = SqliteStore.rows

    def chunk(self: SqliteStore, game_id: str, start: int = 1, end: int | None = None) -> list[Row]:
        if end is None or end - start + 1 > verify_stream.CHUNK:
            raise AssertionError(f"read whole: rows {start} to {end}")
        return rows_of(self, game_id, start, end)
    monkeypatch.setattr(SqliteStore, "rows", chunk)


def _streamed(monkeypatch: pytest.MonkeyPatch, path: Path, rows: list[Row], version: int,
              heads: list[Head] | None = None) -> verify.Report:
    """verify_stored of the stored log, never read whole, decided again in one pass in several segments
    (with 1 and 2 workers asked for), gives verify_rows' report of the whole log, byte for byte."""
    held = heads or []
    whole = verify_rows(rows, version, held, workers=1)
    store = _stored(path, rows, version)
    _chunks_only(monkeypatch)
    monkeypatch.setattr(verify_stream, "CHUNK", 97)
    monkeypatch.setattr(verify_acts, "SEGMENT", 61)
    redecided: list[int] = []
    redecide = verify_acts.redecide

    def counted(*args: Any) -> None:
        redecided.append(1)
        redecide(*args)
    monkeypatch.setattr(verify_acts, "redecide", counted)
    for workers in (1, 2):
        streamed = verify_stored(store, "g", held, workers=workers)
        assert msgspec.json.encode(streamed) == msgspec.json.encode(whole), workers
    store.close()
    assert redecided == [1, 1] or not whole.ok
    return whole


def test_a_game_by_mail_with_every_act_is_streamed_with_the_report_of_one_pass(
        mailed: tuple[int, list[Row]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Defaults at deadlines, forced answers, a standing order, undos (one with consent) and a correction,
    each decided again on the log before it as the store gives it."""
    version, rows = mailed
    held = [Head(source="the database's head record", seq=len(rows), hash=rows[-1].hash)]

    report = _streamed(monkeypatch, tmp_path, rows, version, held)

    actors = Counter(r.actor for r in rows if r.batch == r.seq)
    kinds = Counter(r.type for r in rows)
    assert report.ok and report.on_log > 50
    assert actors["deadline"] and actors["forced"] and actors["standing"]
    assert kinds["BatchUndone"] > 2 and kinds["UndoConsented"] and kinds["Corrected"] == 1


def _after_undo(rows: list[Row]) -> list[Row]:
    last = max(r.seq for r in rows if r.type in ("BatchUndone", "Corrected"))
    return [r for r in rows if r.seq > last]


def _forged(rows: list[Row], version: int, seq: int, **cells: str) -> list[Row]:
    """The log with row `seq`'s cells replaced and every hash after it recomputed: a forger who rehashes."""
    return rechain([replace(r, **cells) if r.seq == seq else r for r in rows], version)


def _json(doc: object) -> str:
    return json.dumps(doc, separators=(",", ":"), sort_keys=True)


@pytest.mark.parametrize("kind", ["deadline", "forced", "standing"])
def test_a_rehashed_forgery_of_a_services_act_has_the_report_of_one_pass(
        kind: str, mailed: tuple[int, list[Row]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An act of the service's for a side, recorded for another side and rehashed: caught at its seq."""
    version, rows = mailed
    act = next(r for r in reversed(rows) if r.actor == kind and r.batch == r.seq)
    command = json.loads(act.command or "")
    command["side"] = next(s for s in ("rome", "greece", "carthage") if s != command["side"])
    forged = _forged(rows, version, act.seq, command=_json(command))

    report = _streamed(monkeypatch, tmp_path, forged, version)

    assert not report.ok and report.first_bad == act.seq


def test_a_rehashed_forgery_after_an_undo_has_the_report_of_one_pass(
        mailed: tuple[int, list[Row]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A payload changed after the last undo and rehashed: the state the undo went back to, folded again
    from the store, decides it."""
    version, rows = mailed
    varied = [r for r in _after_undo(rows) if r.actor in ("rome", "greece", "carthage")]
    target = varied[len(varied) // 2]
    other = next(r for r in rows if r.type == target.type and r.payload != target.payload)
    forged = _forged(rows, version, target.seq, payload=other.payload)

    report = _streamed(monkeypatch, tmp_path, forged, version)

    assert not report.ok and report.first_bad == target.seq


def test_an_undo_forged_to_take_back_more_has_the_report_of_one_pass(
        mailed: tuple[int, list[Row]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An undo rewritten to name an earlier batch and rehashed: its re-decision on the log before it differs."""
    version, rows = mailed
    undo = [r for r in rows if r.type == "BatchUndone"][-1]
    payload = json.loads(undo.payload)
    earlier = max(r.seq for r in rows if r.batch == r.seq and r.seq < payload["batch"] and r.actor != "host")
    payload["batch"] = earlier
    forged = _forged(rows, version, undo.seq, payload=_json(payload))

    report = _streamed(monkeypatch, tmp_path, forged, version)

    assert not report.ok and report.first_bad == undo.seq


def test_a_cut_or_edited_game_by_mail_has_the_report_of_one_pass(
        mailed: tuple[int, list[Row]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its last rows cut (the head held names them) or a row edited in place: as the whole log says."""
    version, rows = mailed
    held = [Head(source="the database's head record", seq=len(rows), hash=rows[-1].hash)]
    seq = _after_undo(rows)[0].seq
    edited = [replace(r, payload=r.payload.replace('"', ' "', 1)) if r.seq == seq else r for r in rows]

    cut = _streamed(monkeypatch, tmp_path / "cut", rows[:-20], version, held)
    bad = _streamed(monkeypatch, tmp_path / "edited", edited, version)

    assert not cut.ok and "cut short" in (cut.reason or "")
    assert not bad.ok and bad.first_bad == seq


def test_the_log_before_an_act_read_from_the_store_is_read_as_the_held_one(
        mailed: tuple[int, list[Row]], tmp_path: Path) -> None:
    """The waits, spans, states and service keys (K10) of the log before each act, read from the store
    when asked for, are those of the log held in memory."""
    version, rows = mailed
    store = _stored(tmp_path, rows, version)
    ruleset, events = verify._replay(rows)[0], verify._replay(rows)[1]
    for act in [r for r in rows if r.actor == "deadline" and r.batch == r.seq][-3:]:
        length = act.seq - 1
        held = turns.Log(rows=rows[:length], events=events[:length])
        prefix = reading.StoredPrefix(store, "g", length, None)
        stored = turns.Log(rows=prefix, events=reading.StoredEvents(store, ruleset, prefix))
        assert turns.waiting(ruleset, stored) == turns.waiting(ruleset, held)
        assert turns.spans(ruleset, stored.rows) == turns.spans(ruleset, held.rows)
        assert list(turns.states(ruleset, stored.rows, stored.events)) == list(
            turns.states(ruleset, held.rows, held.events))
        carried = reading.StoredPrefix(store, "g", length, None, verify._undone(rows[:length]))
        for side in ("rome", "greece", "carthage"):
            assert draw_keys.service_key(carried, side) == draw_keys.service_key(rows[:length], side)
        assert list(reversed(carried)) == list(reversed(rows[:length]))
        beside = [e for _, e in zip(prefix, stored.events, strict=True)]  # decoded from the rows just read
        assert list(stored.events) == events[:length] == beside
    store.close()


def test_mn_verify_of_a_stored_game_by_mail_streams_it(
        source: Path, mailed: tuple[int, list[Row]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """mn verify GAME --json of the game by mail as the service stored it: exit 0 with verify_rows'
    report, each snapshot after an undo checked against the log folded as a stream; never read whole."""
    version, rows = mailed
    shutil.copy(source, tmp_path / "mn.db")
    whole = verify_rows(rows, version, [Head(source="the database's head record", seq=len(rows),
                                             hash=rows[-1].hash)])
    _chunks_only(monkeypatch)
    monkeypatch.setattr(verify_stream, "CHUNK", 97)

    result = CliRunner().invoke(main, ["--db", str(tmp_path / "mn.db"), "verify", "g", "--json"])

    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    assert {k: v for k, v in shown.items() if k != "snapshots"} == msgspec.to_builtins(whole)
    assert shown["snapshots"]["checked"] >= 2 and not shown["snapshots"]["mismatched"]


def _after(blocks: int) -> Any:
    """A stop for classic_signed.play_until: true once it was asked `blocks` times."""
    count = [0]

    def stop(_: object) -> bool:
        count[0] += 1
        return count[0] > blocks
    return stop


def _keyed_with_undos(path: Path) -> tuple[int, list[Row]]:
    """A keyed, signed-only 2003 game (draws K11) whose players sign `undo` and `consent N` blocks now and
    then, one batch corrected by the host, its secret revealed at the end."""
    store, loaded = classic_signed.new_game(path / "keyed.db", K11)
    rand, n = random.Random(classic_signed.SEED), 0
    for _ in range(6):
        loaded = classic_signed.play_until(store, loaded, _after(12), rand, start=n)
        n += 12
        civ = loaded.rows[-1].actor
        batch = by_mail.last_batch(store, loaded, civ)
        for side, lines in [(civ, ["undo"]), *[(s, [f"consent {batch}"]) for s in loaded.meta.sides if s != civ]]:
            loaded = reading.load(store, "c")
            if batch in undone_seqs(loaded.kernel.email):
                break
            try:
                writing.give(store, loaded, classic_signed.block(loaded, side, lines, n), answer=False)
            except CommandRejected:
                continue
            finally:
                n += 1
        loaded = reading.load(store, "c")
    by_mail.correct(store, "c", by_mail.last_batch(store, loaded, loaded.rows[-1].actor), "applied twice by mistake")
    lifecycle.reveal(store, "c", force=True)
    rows, version = store.rows("c"), store.log_version("c")
    store.close()
    return version, rows


def test_a_keyed_game_with_signed_undos_is_streamed_with_the_report_of_one_pass(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """K11 keys a phase's settling draws by the players' order batches in play before it: the count
    carried as the log is read leaves out those an undo or a correction took back, as the held log's."""
    version, rows = _keyed_with_undos(tmp_path)
    report = _streamed(monkeypatch, tmp_path / "streamed", rows, version)

    kinds = Counter(r.type for r in rows)
    assert report.ok and report.draws == K11 and report.secret_revealed
    assert kinds["BatchUndone"] >= 2 and kinds["Corrected"] == 1


def _passing(store: Store, rows: list[Row]) -> tuple[Any, list[Any], verify_acts.StoredBefore, list[Any]]:
    """The stored log's ruleset and events, StoredBefore at its start (the survey done) and the state after
    each row as the game stood, for a test that walks its batches."""
    needs = verify_carry.Needs()
    for r in rows:
        verify_carry.survey_row(needs, r)
    needs.done()
    ruleset, events, _ = verify._replay(rows)
    context = verify_acts.StoredBefore(store, "g", ruleset, ruleset.initial(""), needs)
    context.enter(rows)
    return ruleset, events, context, list(turns.states(ruleset, rows, events))


def test_the_count_of_orders_in_play_leaves_out_what_undos_took_back(tmp_path: Path) -> None:
    """Before each batch of the keyed game with undos, the count carried (StoredBefore) is
    draw_keys.orders_before of the log before it, which skips the batches taken back."""
    version, rows = _keyed_with_undos(tmp_path)
    store = _stored(tmp_path / "stored", rows, version)
    ruleset, events, context, after = _passing(store, rows)
    counts: list[int] = []
    for start, end in verify._batches(rows):
        counts.append(draw_keys.orders_before(rows[:start]))
        assert context.prior(start).orders_in_play == counts[-1], rows[start].seq
        context.passed(ruleset, rows[start:end], after[end - 1])
    store.close()
    assert any(b < a for a, b in zip(counts, counts[1:], strict=False))  # an undo lowered it


def test_what_the_acts_ask_is_carried_as_the_held_log_answers_it(
        mailed: tuple[int, list[Row]], tmp_path: Path) -> None:
    """Before each act of the game by mail, the log StoredBefore hands it (verify_acts.CarriedLog) gives
    what the held log gives: the state now, since when each side has been waited for, and the state
    before each batch the act may take back; the rows and events from it on."""
    version, rows = mailed
    store = _stored(tmp_path, rows, version)
    ruleset, events, context, after = _passing(store, rows)
    asked = Counter[str]()
    for start, end in verify._batches(rows):
        command = json.loads(rows[start].command or "{}")
        if rows[start].actor in ("deadline", "forced") or "batch" in command:
            carried, held = context.log(start), turns.Log(rows=rows[:start], events=events[:start])
            assert isinstance(carried, verify_acts.CarriedLog)
            assert carried.waited(ruleset) == held.waited(ruleset), rows[start].seq
            named = command.get("batch")
            if named is not None:
                assert carried.state_before(ruleset, named) == held.state_before(ruleset, named)
                assert _cells(carried.pairs_from(named)) == _cells(held.pairs_from(named))
                asked[command["type"]] += 1
        context.passed(ruleset, rows[start:end], after[end - 1])
    store.close()
    assert asked["UndoBatch"] > 2 and asked["ConsentUndo"] and asked["CorrectBatch"] == 1


def _cells(pairs: Any) -> list[tuple[Any, ...]]:
    """What the acts read of rows and their events (a row read through the store's cursor has no salts)."""
    return [(r.seq, r.batch, r.type, r.payload, r.command, r.actor, r.recorded_at, e) for r, e in pairs]


def _far_correction(source: Path, path: Path) -> tuple[int, list[Row], int]:
    """The game by mail with a batch of its first quarter corrected by the host (the state before it kept
    from early in the pass), then orders and deadlines' defaults on the log it left; and that batch."""
    shutil.copy(source, path)
    store = open_store(str(path))
    rows = store.rows("g")
    with clock() as now:
        now[0] = datetime.fromisoformat(rows[-1].recorded_at) + timedelta(hours=1)
        for r in rows[len(rows) // 4::-1]:
            if r.batch == r.seq and r.actor in SIDES:
                try:
                    by_mail.correct(store, "g", r.seq, "the orders were read from the wrong mail")
                except CommandRejected:
                    continue
                break
        rand = random.Random(5)
        for _ in range(12):
            now[0] += timedelta(hours=26)
            if not by_mail.tick(store, "g", now[0].isoformat()):
                cur = reading.current(store, "g")
                by_mail_game._order(store, cur, EMPIRES.pending(cur.state)[0].empire, rand)
    rows, version = store.rows("g"), store.log_version("g")
    store.close()
    return version, rows, r.seq


def test_a_correction_far_back_and_the_acts_after_it_have_the_report_of_one_pass(
        source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A correction reaching back a quarter of the log, and the defaults and orders decided after it on
    the waits it went back to: verify_rows' report; the same log with one default's deadline forged."""
    version, rows, far = _far_correction(source, tmp_path / "far.db")
    corrected = [r for r in rows if r.type == "Corrected"][-1]
    default = next(r for r in rows if r.seq > corrected.seq and r.actor == "deadline" and r.batch == r.seq)
    command = EMPIRES.decode_command(default.command or "")
    hour = datetime.fromisoformat(command.due) + timedelta(hours=1)
    forged = _forged(rows, version, default.seq,
                     command=EMPIRES.encode_command(replace(command, due=hour.isoformat())).decode())

    report = _streamed(monkeypatch, tmp_path / "good", rows, version)
    refused = _streamed(monkeypatch, tmp_path / "forged", forged, version)

    assert json.loads(corrected.payload)["batch"] == far < len(rows) // 4
    assert report.ok
    assert not refused.ok and refused.first_bad == default.seq and "deadline is" in (refused.reason or "")


def test_where_no_state_was_kept_the_acts_read_the_store_with_the_report_of_one_pass(
        mailed: tuple[int, list[Row]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Had the survey named no batch, the pass could not follow the first undo: from there each act reads
    the log before it from the store (turns.Log), and the report is still verify_rows'."""
    version, rows = mailed
    monkeypatch.setattr(verify_carry.Needs, "name", lambda *_: None)
    handed: Counter[str] = Counter()
    log = verify_acts.StoredBefore.log

    def counted(self: verify_acts.StoredBefore, start: int) -> turns.Log:
        found = log(self, start)
        handed[type(found).__name__] += 1
        return found
    monkeypatch.setattr(verify_acts.StoredBefore, "log", counted)

    report = _streamed(monkeypatch, tmp_path, rows, version)

    assert report.ok and handed["CarriedLog"] and handed["Log"] > handed["CarriedLog"]
