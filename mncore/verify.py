"""Verification of a log: the hash chain, a full replay, and the re-decision of every command."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.commands import CreateFromPosition, CreateGame, Order, RevealSecret, decode_command
from mncore.rulesets.empires.decide import create_game, decide, decide_host
from mncore.dice import GENESIS_HASH, Rng, SecretNeeded, commitment
from mncore.errors import CommandRejected, IntegrityFailure, MareNostrumError
from mncore.rulesets.empires.evolve import evolve
from mncore.game import check_ruleset
from mncore.rulesets.empires.state import GameState
from mncore.store import Row, chain_hash


class Report(msgspec.Struct, kw_only=True):
    """What verification found: ok or the first bad event, and what was proven."""

    ok: bool
    events: int
    head_hash: str
    first_bad: int | None = None
    reason: str | None = None
    secret_revealed: bool = False
    commands_checked: int = 0  # commands re-decided to the same events
    random_unchecked: int = 0  # commands that drew at random, unchecked until the secret is out
    inherited: int = 0  # events a fork copied from its parent (checked in the parent)
    proven: list[str] = []


def verify_rows(rows: Sequence[Row]) -> Report:
    """Check a whole log; the first failure stops the check and is named by its sequence number."""
    head = rows[-1].hash if rows else GENESIS_HASH
    report = Report(ok=True, events=len(rows), head_hash=head)
    try:
        _check_chain(rows)
        events = _replay(rows)
        _redecide(rows, events, report)
    except IntegrityFailure as err:
        report.ok, report.first_bad, report.reason = False, err.seq, err.reason
        return report
    report.proven = _proven(report)
    return report


def _check_chain(rows: Sequence[Row]) -> None:
    if not rows:
        raise IntegrityFailure(1, "the log is empty")
    previous = GENESIS_HASH
    for i, r in enumerate(rows, start=1):
        if r.seq != i:
            raise IntegrityFailure(i, f"event {i} is missing (the next stored event is {r.seq})")
        if chain_hash(previous, r.payload) != r.hash:
            raise IntegrityFailure(i, "its hash does not match its payload and the chain before it "
                                      "(edited payload or hash)")
        previous = r.hash


def _replay(rows: Sequence[Row]) -> list[ev.AnyEvent]:
    try:
        check_ruleset(rows[0].payload, "log")
    except MareNostrumError as err:
        raise IntegrityFailure(1, err.message) from None
    events: list[ev.AnyEvent] = []
    state = GameState()
    for r in rows:
        try:
            event = ev.decode_event(r.payload)
        except (msgspec.DecodeError, msgspec.ValidationError) as err:
            raise IntegrityFailure(r.seq, f"the payload is not a valid event ({err})") from None
        if ev.event_type(event) != r.type:
            raise IntegrityFailure(r.seq, f"stored as {r.type} but the payload is {ev.event_type(event)}")
        try:
            state = evolve(state, event)
        except Exception as err:  # a log that does not fold is corrupt, whatever the error
            raise IntegrityFailure(r.seq, f"does not replay ({type(err).__name__}: {err})") from None
        events.append(event)
    return events


def _batches(rows: Sequence[Row]) -> list[tuple[int, int]]:
    """(start, end) index ranges of the rows appended by one command each."""
    out: list[tuple[int, int]] = []
    for i, r in enumerate(rows):
        if r.batch == r.seq:
            out.append((i, i + 1))
        elif out and r.batch == out[-1][0] + 1:
            out[-1] = (out[-1][0], i + 1)
        else:
            raise IntegrityFailure(r.seq, f"belongs to batch {r.batch}, which does not lead to it")
    return out


def _redecide(rows: Sequence[Row], events: list[ev.AnyEvent], report: Report) -> None:
    first = events[0]
    assert isinstance(first, ev.GameCreated)
    secret_hex = next((e.secret for e in events if isinstance(e, ev.SecretRevealed)), None)
    secret = bytes.fromhex(secret_hex) if secret_hex else None
    report.secret_revealed = secret is not None
    if secret is not None and commitment(secret) != first.commitment:
        seq = next(i + 1 for i, e in enumerate(events) if isinstance(e, ev.SecretRevealed))
        raise IntegrityFailure(seq, "the revealed secret does not match the commitment of event 1")
    inherited = first.options.fork_of.at if first.options.fork_of else 0
    report.inherited = inherited
    state = GameState()
    previous = GENESIS_HASH
    for start, end in _batches(rows):
        if rows[start].seq > inherited:
            _redecide_batch(state, rows[start:end], secret, previous, report)
        for e in events[start:end]:
            state = evolve(state, e)
        previous = rows[end - 1].hash


def _redecide_batch(state: GameState, rows: Sequence[Row], secret: bytes | None, previous: str,
                    report: Report) -> None:
    seq = rows[0].seq
    if rows[0].command is None:
        raise IntegrityFailure(seq, "no command is recorded for the events it starts")
    try:
        cmd = decode_command(rows[0].command)
    except (msgspec.DecodeError, msgspec.ValidationError) as err:
        raise IntegrityFailure(seq, f"its recorded command is not valid ({err})") from None
    rng = Rng(secret, previous)
    try:
        if isinstance(cmd, CreateGame):
            first = ev.decode_event(rows[0].payload)
            assert isinstance(first, ev.GameCreated)
            produced = create_game(cmd, rng, first.commitment)
        elif isinstance(cmd, CreateFromPosition):
            from mncore.rulesets.empires.position import creation_events  # a sandbox game started from a position

            first = ev.decode_event(rows[0].payload)
            assert isinstance(first, ev.GameCreated)
            produced = creation_events(cmd, rng, first.commitment)
        elif isinstance(cmd, RevealSecret):
            produced = decide_host(state, cmd)
        else:
            assert isinstance(cmd, Order)
            produced = decide(state, cmd, rng)
    except SecretNeeded:
        report.random_unchecked += 1
        return
    except CommandRejected as err:
        raise IntegrityFailure(seq, f"its command is refused when decided again: {err.message}") from None
    expected = [ev.encode_event(e).decode() for e in produced]
    stored = [r.payload for r in rows]
    for i, (want, got) in enumerate(zip(expected, stored, strict=False)):
        if want != got:
            raise IntegrityFailure(rows[i].seq, "differs from what its command produces when decided "
                                                "again (not what the rules or the dice give)")
    if len(expected) != len(stored):
        raise IntegrityFailure(seq, f"its command produces {len(expected)} events when decided again, "
                                    f"but {len(stored)} are stored")
    report.commands_checked += 1


def _proven(report: Report) -> list[str]:
    out = [f"the hash chain of all {report.events} events is intact (head {report.head_hash[:16]})",
           "the whole log replays under the ruleset it was created with",
           f"{report.commands_checked} commands decided again give exactly the stored events"]
    if report.secret_revealed:
        out.append("the revealed secret matches the commitment, and every random outcome recomputes")
    elif report.random_unchecked:
        out.append(f"{report.random_unchecked} commands that drew at random cannot be checked until "
                   "the secret is revealed (mn reveal)")
    if report.inherited:
        out.append(f"events 1 to {report.inherited} were copied from the game this one forks; "
                   "verify that game for them")
    return out
