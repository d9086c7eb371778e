"""The service's live acts from a game's Current (mncore/games/live_log.py) write what they write from the
whole log: games by mail played twice, once each way, their logs and refusals compared; and the live path
of an order and of a tick reads no whole log."""

from __future__ import annotations

import datetime as dt
import hashlib
import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import msgspec
import pytest

import classic_signed
from by_mail_game import PACED_AT, SECRET, SIDES, clock, grow_paced, paced, play
from by_mail_game import _undo as undo
from mncore.core import kernel_state
from mncore.core.actors import DEADLINE, FORCED, QUEUED, STANDING, bot_actor
from mncore.core.errors import CommandRejected
from mncore.core.kernel_acts import DefaultOrders, PublishKeys, QueuedOrder, StandingOrder
from mncore.core.protocol import NewGame
from mncore.games import by_mail, reading, writing
from mncore.games.live_log import LiveLog, log_of
from mncore.games.reading import _log
from mncore.pbem import draw_keys, seats, signing, turns
from mncore.rulesets.empires.seam import RULESET as EMPIRES
from mncore.store import Row, SqliteStore, Store

Reader = Callable[[Store, str], "reading.Loaded | reading.Current"]


def _bot(ruleset: Any, state: Any, side: str, level: str, budget: int, events: int) -> tuple[str, ...] | None:
    """A bot of the test's own: the first order line the rules accept now."""
    for option in ruleset.options(state, side):
        if option.order and turns.queue_refusal(ruleset, state, side, option.order) is None:
            return (option.order,)
    return None


def _lines(game: Any, side: str, rand: random.Random) -> list[str]:
    options = EMPIRES.options(game.state, side)
    lines = [o.order for o in options if o.order]
    lines += [o.template.format(**{k: rand.choice(v) for k, v in o.parts.items()})
              for o in options if o.template and not o.template.startswith("fix")]
    return rand.sample(lines, len(lines))


def _play_paced(store: SqliteStore, moves: int, read: Reader) -> list[str]:
    """A paced game (forced answers, Carthage's standing orders) whose orders queue more now and then,
    Greece's seat held by a bot for a while, every 5th move a tick past the deadlines; the refusals met."""
    refusals: list[str] = []
    rand = random.Random(5)
    with clock() as now:
        paced(store, "g")
        for move in range(1, moves + 1):
            now[0] += dt.timedelta(hours=1)
            game = read(store, "g")
            pending = EMPIRES.pending(game.state)
            if not pending or game.meta.over:
                break
            if move in (20, 45):
                by_mail.set_seat(store, "g", "greece", **({"bot": "test", "budget": 1} if move == 20 else
                                                            {"player": "Gus"}))
                continue
            if move % 5 == 0:
                now[0] += dt.timedelta(hours=25)
                by_mail.tick(store, "g", now[0].isoformat())
                continue
            side = pending[0].empire
            if move % 7 == 0:
                refusals += _refused(store, game, side, now[0].isoformat())
            lines = _lines(game, side, rand)
            for n, line in enumerate(lines):
                given = [line, *(f"queue {q}" for q in lines[n + 1:n + 3])] if move % 3 == 0 else [line]
                try:
                    writing.give(store, game, writing.batch_command(game, side, given))
                except CommandRejected as err:
                    refusals.append(err.message)
                    continue
                break
    return refusals


def _refused(store: SqliteStore, game: Any, side: str, at: str) -> list[str]:
    """Acts of play by email that the log before them refuses (K4: its deadline, as the waits say;
    K6, K9) and a batch with a line the rules refuse: their messages."""
    out = []
    for act in (DefaultOrders(side=side, orders=("done",), due="2030-01-01T00:00:00+00:00", at=at),
                StandingOrder(side=side, order="build none"), QueuedOrder(side=side, order="trade 9"),
                writing.batch_command(game, side, [*_lines(game, side, random.Random(at))[:1], "no such order"])):
        with pytest.raises(CommandRejected) as refused:
            writing.give(store, game, act)
        out.append(refused.value.message)
    return out


def _whole(store: Store, game_id: str) -> reading.Loaded:
    return reading.load(store, game_id)


@pytest.fixture
def test_bot(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(seats, "_chooser", [_bot])
    monkeypatch.setenv("MN_SNAPSHOT_EVERY", "16")  # many snapshots: the waits are read back through them


def _rows(store: SqliteStore) -> list[Row]:
    return store.rows("g")


def test_a_paced_game_played_from_its_current_writes_what_the_whole_log_writes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, test_bot: None) -> None:
    """Forced answers, standing and queued orders, a bot's answers and the deadlines' defaults given from
    the Current (the log read from the store as the acts ask it) and from the whole log (by_mail.tick's
    game loaded whole): the same rows, payloads, times and hashes, and the same refusals word for word."""
    live = SqliteStore(str(tmp_path / "live.db"), create=True)
    live_refusals = _play_paced(live, 160, reading.current)
    whole = SqliteStore(str(tmp_path / "whole.db"), create=True)
    with monkeypatch.context() as m:
        m.setattr(by_mail, "current", reading.load)
        whole_refusals = _play_paced(whole, 160, _whole)

    assert _rows(live) == _rows(whole)
    assert live_refusals == whole_refusals and live_refusals
    actors = {r.actor for r in _rows(live)}
    assert {FORCED, STANDING, QUEUED, DEADLINE, bot_actor("test", 1)} <= actors
    assert not reading.current(live, "g").kernel.email.undone  # no undo: every wait was read back from snapshots
    assert live.last_snapshot_seq("g") > 100


def test_a_game_by_mail_with_undos_and_a_correction_played_from_its_current_writes_what_the_whole_log_writes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """tests/by_mail_game.py's game (undos alone and with consent, a correction, deadlines, forced answers,
    standing orders) played from the Current and with every game read whole: the same rows."""
    monkeypatch.setenv("MN_SNAPSHOT_EVERY", "16")
    live = SqliteStore(str(tmp_path / "live.db"), create=True)
    play(live, 120, game_id="g")
    whole = SqliteStore(str(tmp_path / "whole.db"), create=True)
    with monkeypatch.context() as m:
        m.setattr(by_mail, "current", reading.load)
        m.setattr(reading, "current", reading.load)
        play(whole, 120, game_id="g")

    assert _rows(live) == _rows(whole)
    types = {r.type for r in _rows(live)}
    assert {"BatchUndone", "Corrected"} <= types
    assert {DEADLINE, FORCED} <= {r.actor for r in _rows(live)}


def _play_keyed(store: SqliteStore, moves: int, read: Reader) -> None:
    """A game of signed orders only under K11 with a pace and forced answers: each side signs its order,
    Carthage's seat is held by a bot, and every 4th move a tick passes the deadlines (the service's acts
    keyed by each side's last signed block, K10, and their settling draws by the orders in play, K11)."""
    private = {s: hashlib.sha256(f"live|{s}".encode()).hexdigest() for s in SIDES}
    keys = PublishKeys(keys={s: signing.public_of(k) for s, k in private.items()}, signed_only=True,
                       draws=draw_keys.K11)
    with clock() as now:
        writing.create(store, EMPIRES, EMPIRES.new_game(NewGame(sides=SIDES)), SECRET, "g", keys)
        by_mail.set_pace(store, "g", 24, {}, True)
        by_mail.set_seat(store, "g", "carthage", bot="test", budget=1)
        for move in range(1, moves + 1):
            now[0] += dt.timedelta(hours=1)
            game = read(store, "g")
            pending = [p.empire for p in EMPIRES.pending(game.state) if p.empire != "carthage"]
            if game.meta.over:
                break
            lines = _bot(EMPIRES, game.state, pending[0], "", 0, 0) if pending else None
            if move % 4 == 0 or lines is None:
                now[0] += dt.timedelta(hours=25)
                by_mail.tick(store, "g", now[0].isoformat())
                continue
            seq, head = game.head
            block = signing.sign(private[pending[0]], game="g", side=pending[0], seq=seq, head=head,
                                 orders=lines, nonce=f"{seq:032x}")
            writing.give(store, game, block)


def test_a_signed_game_played_from_its_current_writes_what_the_whole_log_writes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, test_bot: None) -> None:
    """Signed blocks, a bot's seat, forced answers and defaults under K11, from the Current and from the
    whole log: the same rows, so the same dice."""
    live = SqliteStore(str(tmp_path / "live.db"), create=True)
    _play_keyed(live, 90, reading.current)
    whole = SqliteStore(str(tmp_path / "whole.db"), create=True)
    with monkeypatch.context() as m:
        m.setattr(by_mail, "current", reading.load)
        _play_keyed(whole, 90, _whole)

    assert _rows(live) == _rows(whole)
    actors = {r.actor for r in _rows(live)}
    assert {FORCED, DEADLINE, bot_actor("test", 1), "rome", "greece"} <= actors


def _signed_undos(path: Path, read: Reader) -> tuple[list[Row], list[str]]:
    """A keyed, signed-only 2003 game (draws K11) whose players sign `undo` and `consent N` blocks now and
    then (K1, K2), each block given on the game as `read` reads it; its rows, and the refusals met."""
    with clock():  # the rows' times: the same in both games
        return _undos_signed(path, read)


def _undos_signed(path: Path, read: Reader) -> tuple[list[Row], list[str]]:
    store, _ = classic_signed.new_game(path, draw_keys.K11)
    game, rand, n, refusals = read(store, "c"), random.Random(classic_signed.SEED), 0, []
    for round_ in range(6):
        game = classic_signed.play_until(store, game, _after(10), rand, start=n)
        n += 10
        last = store.row_at("c", store.head("c")[0])
        assert last is not None
        batch = by_mail.last_batch(store, game, last.actor)
        if round_ % 2:  # another side acts first: the undo then needs its consent (K2)
            game = classic_signed.play_until(store, game, _after(1), rand, start=n)
            n += 1
        for side, lines in [(last.actor, ["undo"]), *[(s, [f"consent {batch}"]) for s in game.meta.sides
                                                      if s != last.actor]]:
            game = read(store, "c")
            if batch in kernel_state.undone_seqs(game.kernel.email):
                break
            try:
                writing.give(store, game, classic_signed.block(game, side, lines, n), answer=False)
            except CommandRejected as err:
                refusals.append(err.message)
            finally:
                n += 1
        game = read(store, "c")
    return store.rows("c"), refusals


def _after(blocks: int) -> Callable[[Any], bool]:
    """A stop for classic_signed.play_until: true once it was asked `blocks` times."""
    asked = iter(range(blocks))
    return lambda _: next(asked, None) is None


def test_signed_undos_and_consents_given_on_the_current_write_what_the_whole_log_writes(tmp_path: Path) -> None:
    """Signed `undo` and `consent N` blocks decided on the live log (the side's last batch found back from
    the head, the state before it from a snapshot) and on the whole log: the same rows, the same refusals."""
    live, live_refusals = _signed_undos(tmp_path / "live.db", reading.current)
    whole, whole_refusals = _signed_undos(tmp_path / "whole.db", _whole)

    assert live == whole and live_refusals == whole_refusals
    assert sum(r.type == "BatchUndone" for r in live) >= 3 and any(r.type == "UndoConsented" for r in live)


def test_a_signed_undo_and_the_consent_that_completes_it_read_no_whole_log(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """In a keyed 2003 game of over 500 events with a snapshot every 32, a side's signed `undo` after
    another side acted (its request, K2) and that side's signed `consent N`, which takes the batch back,
    each read far fewer rows than the log holds."""
    monkeypatch.setenv("MN_SNAPSHOT_EVERY", "32")
    with clock():
        made, _ = classic_signed.new_game(tmp_path / "c.db", draw_keys.K11)
        made.close()
        store = _Counting(str(tmp_path / "c.db"))
        rand = random.Random(classic_signed.SEED)
        game = classic_signed.play_until(store, reading.current(store, "c"), _after(360), rand)
        assert game.head[0] >= 500
        giver, n = _actor_at(store, game.head[0]), 360
        while True:  # blocks until another side acts after the last batch of `giver`
            game = classic_signed.play_until(store, game, _after(1), rand, start=n)
            other, n = _actor_at(store, game.head[0]), n + 1
            if other != giver:
                break
        batch = by_mail.last_batch(store, game, giver)
        reads = []
        for side, lines in [(giver, ["undo"]), (other, [f"consent {batch}"])]:
            game = reading.current(store, "c")
            store.read = 0
            writing.give(store, game, classic_signed.block(game, side, lines, n), answer=False)
            n += 1
            reads.append(store.read)
    assert batch in kernel_state.undone_seqs(reading.current(store, "c").kernel.email)
    assert max(reads) < 150, reads


def _actor_at(store: SqliteStore, seq: int) -> str:
    row = store.row_at("c", seq)
    assert row is not None
    return row.actor


def test_the_live_log_answers_what_the_whole_log_answers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """LiveLog's state now, waits, state before each batch (folded from the snapshot at or before it), and
    rows and events from a batch on, against turns.Log of the whole log; after an undo, the same again."""
    monkeypatch.setenv("MN_SNAPSHOT_EVERY", "16")
    store = SqliteStore(str(tmp_path / "g.db"), create=True)
    grow_paced(store, paced(store, "g"), random.Random(3), 400)
    _same_answers(store)
    play(store, 12, game_id="u")  # its 11th move takes a batch back
    assert reading.current(store, "u").kernel.email.undone
    _same_answers(store, "u")


def test_the_live_log_answers_what_the_whole_log_answers_at_every_move_of_a_game_that_takes_back(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """tests/by_mail_game.py's game (undos alone and with consent, a correction) with a snapshot every 8
    events, asked at every move: the waits and the state before each of the last batches are the whole
    log's, from the snapshots that what was taken back later leaves standing, and the others passed over."""
    monkeypatch.setenv("MN_SNAPSHOT_EVERY", "8")
    store = SqliteStore(str(tmp_path / "g.db"), create=True)
    current = reading.current
    passed_over = []

    def asked(store: SqliteStore, game_id: str) -> reading.Current:
        cur = current(store, game_id)
        if cur.kernel.email.undone:
            loaded = reading.load(store, game_id)
            assert EMPIRES.encode_state(cur.state) == EMPIRES.encode_state(loaded.state), cur.head
            live, whole = log_of(store, cur), _log(loaded)
            assert live.waited(EMPIRES)[1] == whole.waited(EMPIRES)[1], cur.head
            starts = [r.seq for r in whole.rows if r.batch == r.seq]
            named = [first for first, _ in cur.kernel.email.undone]
            for batch in starts[-6:] + named[-2:]:
                assert EMPIRES.encode_state(EMPIRES.named(live.state_before(EMPIRES, batch), game_id)) == \
                    EMPIRES.encode_state(EMPIRES.named(whole.state_before(EMPIRES, batch), game_id)), (cur.head, batch)
            snap = reading.snapshot_at_or_before(store, game_id, EMPIRES, cur.head[0])
            passed_over.append(snap is not None and not reading.stands(snap, cur.kernel))
            for side in SIDES:  # each side's last batch in play, read back from the head, is the spans' last
                assert _last_batch(store, cur, side) == _last_span(whole.rows, cur.kernel.email.undone, side), \
                    (cur.head, side)
        return cur

    monkeypatch.setattr(reading, "current", asked)
    play(store, 90, game_id="g")
    assert any(passed_over) and not all(passed_over), passed_over
    assert len(current(store, "g").kernel.email.undone) >= 5


def _last_batch(store: SqliteStore, cur: reading.Current, side: str) -> int | None:
    try:
        return by_mail.last_batch(store, cur, side)
    except CommandRejected:
        return None


def _last_span(rows: Sequence[Row], undone: Sequence[tuple[int, int]], side: str) -> int | None:
    """The first event of the side's last batch of orders still in play, by the spans read from the first."""
    gone = {s for first, through in undone for s in range(first, through + 1)}
    found = [s.first for s in turns.spans(EMPIRES, rows)
             if s.giver == side and s.first not in gone and s.kind not in turns.BESIDE_PLAY]
    return found[-1] if found else None


def _same_answers(store: SqliteStore, game_id: str = "g") -> None:
    cur, loaded = reading.current(store, game_id), reading.load(store, game_id)
    live, whole = log_of(store, cur), _log(loaded)
    assert isinstance(live, LiveLog)
    encode = EMPIRES.encode_state
    assert encode(live.now(EMPIRES)) == encode(loaded.state)
    assert live.waited(EMPIRES)[1] == whole.waited(EMPIRES)[1]
    assert live.record == whole.record
    starts = [r.seq for r in loaded.rows if r.batch == r.seq]
    for batch in starts[:: max(1, len(starts) // 25)] + starts[-3:]:
        assert encode(EMPIRES.named(live.state_before(EMPIRES, batch), game_id)) == \
            encode(EMPIRES.named(whole.state_before(EMPIRES, batch), game_id)), batch
        assert _bare(live.rows_from(batch)) == _bare(whole.rows_from(batch))
        assert [e for _, e in live.pairs_from(batch)] == [e for _, e in whole.pairs_from(batch)]
    assert list(live.events) == list(loaded.events) and live.events[-1] == loaded.events[-1]
    assert _bare([live.rows[-1]]) == _bare(loaded.rows[-1:])
    for side in SIDES:  # the service's draw keys (K10) and K11's count, read back from the end and streamed
        assert draw_keys.service_key(live.rows, side) == draw_keys.service_key(loaded.rows, side)
    assert draw_keys.orders_before(live.rows) == draw_keys.orders_before(loaded.rows)


def _bare(rows: Iterable[Row]) -> list[Row]:
    """The rows without their salts, which a stream leaves out (the acts read none)."""
    return [msgspec.structs.replace(r, salts={}) for r in rows]


class _Counting(SqliteStore):
    """A store that counts the rows it reads."""

    read = 0

    def rows(self, game_id: str, first: int = 1, last: int | None = None) -> list[Row]:
        found = super().rows(game_id, first, last)
        self.read += len(found)
        return found

    def stream_rows(self, game_id: str, first: int = 1, last: int | None = None) -> Iterator[Row]:
        for r in super().stream_rows(game_id, first, last):
            self.read += 1
            yield r

    def row_at(self, game_id: str, seq: int) -> Row | None:
        self.read += 1
        return super().row_at(game_id, seq)


def test_an_order_and_a_tick_in_a_paced_game_read_no_whole_log(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """In a paced game of 500 events with standing orders and a snapshot every 32, an order with the
    service's answers after it, and a tick that records deadlines' defaults and the answers after them,
    each read far fewer rows than the log holds (those after the last snapshot, and back to where each
    wait began); from the whole log each read every row at least once."""
    monkeypatch.setenv("MN_SNAPSHOT_EVERY", "32")
    store = _Counting(str(tmp_path / "g.db"), create=True)
    grow_paced(store, paced(store, "g"), random.Random(11), 500)
    cur = reading.current(store, "g")  # as mn order reads it
    command = _order_now(cur)
    store.read = 0
    outcome = writing.give(store, cur, command)
    assert outcome.written and store.read < 150, store.read

    later = (dt.datetime.fromisoformat(PACED_AT) + dt.timedelta(hours=49)).isoformat()
    store.read = 0
    ticked = by_mail.tick(store, "g", later)
    assert DEADLINE in {r.actor for r in ticked} and store.read < 150, store.read


def test_an_order_and_a_tick_in_a_paced_game_that_took_a_batch_back_read_no_whole_log(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same after a side took its last batch back (K1, with the others' consent where it needs it)
    and play went on past the next snapshots: the waits and the acts are read from those snapshots, which
    what was taken back leaves standing, not from the whole log."""
    monkeypatch.setenv("MN_SNAPSHOT_EVERY", "32")
    store = _Counting(str(tmp_path / "g.db"), create=True)
    rand = random.Random(11)
    cur = grow_paced(store, paced(store, "g"), rand, 300)
    side = next(r.actor for r in reversed(store.rows("g")) if r.actor in SIDES)
    undo(store, "g", side)
    assert reading.current(store, "g").kernel.email.undone
    grow_paced(store, reading.current(store, "g"), rand, 500)
    cur = reading.current(store, "g")
    store.read = 0
    outcome = writing.give(store, cur, _order_now(cur))
    assert outcome.written and store.read < 150, store.read

    later = (dt.datetime.fromisoformat(PACED_AT) + dt.timedelta(hours=49)).isoformat()
    store.read = 0
    ticked = by_mail.tick(store, "g", later)
    assert DEADLINE in {r.actor for r in ticked} and store.read < 150, store.read


def test_an_undo_its_consents_and_a_correction_read_no_whole_log(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """In a paced game of 500 events with a snapshot every 32: a side's undo of its last batch (its
    request, where the others' consent is needed, K2), each consent that follows, the game read right
    after the undo, and the host's correction of a batch (K3) each read far fewer rows than the log holds
    (its last batch found back from the end, the state before it from the snapshot before it, the state
    after the undo folded from the last snapshot less what it took back)."""
    monkeypatch.setenv("MN_SNAPSHOT_EVERY", "32")
    store = _Counting(str(tmp_path / "g.db"), create=True)
    rand = random.Random(11)
    grow_paced(store, paced(store, "g"), rand, 500)
    side = next(r.actor for r in reversed(store.rows("g")) if r.actor in SIDES)
    batch = by_mail.last_batch(store, reading.current(store, "g"), side)
    reads = []
    store.read = 0
    _, missing = by_mail.undo(store, "g", side)
    reads.append(store.read)
    for other in missing:
        if other != side:
            store.read = 0
            by_mail.consent(store, "g", other, batch)
            reads.append(store.read)
    store.read = 0
    taken = reading.current(store, "g")  # the game read right after the undo: no snapshot after it yet
    reads.append(store.read)
    assert batch in taken.kernel.email.undone[-1]
    assert EMPIRES.encode_state(taken.state) == EMPIRES.encode_state(reading.load(store, "g").state)
    cur = grow_paced(store, taken, rand, 560)
    last = next(r.batch for r in reversed(store.rows("g")) if r.actor in SIDES)
    store.read = 0
    written = by_mail.correct(store, "g", last, "the player's mail was read twice")
    reads.append(store.read)
    assert written[0].type == "Corrected" and cur.head[0] > 540
    assert max(reads) < 150, reads


def _order_now(cur: reading.Current) -> Any:
    side = EMPIRES.pending(cur.state)[0].empire
    lines: Sequence[str] = [o.order for o in EMPIRES.options(cur.state, side) if o.order]
    for line in lines:
        if turns.queue_refusal(EMPIRES, cur.state, side, line) is None:
            return writing.batch_command(cur, side, [line])
    raise AssertionError(f"{side} has no order to give")

