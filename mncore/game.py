"""The game service: create, load, submit orders, verify, export/import, fork and reveal games."""

from __future__ import annotations

import datetime as dt
import json
import secrets as pysecrets
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import msgspec
import structlog
from msgspec.structs import replace

from mncore import trust
from mncore.chain import CURRENT, GENESIS_HASH, VERSIONS, link
from mncore.dice import Rng, commitment
from mncore.errors import DataError, IntegrityFailure, InvalidCommand, StoreError
from mncore.host import PublishKeys, SignedOrders
from mncore.logread import content_head, decode_rows, fold, ruleset_of
from mncore.protocol import HOST, ForkRef, Meta, Ruleset
from mncore.store import NewRow, Row, Store
from mncore.verify import Head, Report, verify_rows

log = structlog.get_logger("mncore")

EXPORT_FORMAT = "mare-nostrum/log"  # an export's version is the log format of its game (chain.py)


def utc_now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="microseconds")


class Loaded(msgspec.Struct, kw_only=True):
    """A game read from the store: its ruleset, rows, decoded events and the state they fold into."""

    game_id: str
    ruleset: Any  # a Ruleset (the protocol is not a type msgspec can hold)
    version: int  # the log format (chain.py)
    rows: list[Row]
    events: list[Any]
    state: Any
    draw_head: str  # the content chain's head, which keys the next command's draws

    @property
    def head(self) -> tuple[int, str]:
        return (self.rows[-1].seq, self.rows[-1].hash) if self.rows else (0, GENESIS_HASH)

    @property
    def meta(self) -> Meta:
        meta: Meta = self.ruleset.meta(self.state)
        return meta


# --- reading ---------------------------------------------------------------------------------------------

def load(store: Store, game_id: str, upto: int | None = None) -> Loaded:
    """The game as of event `upto` (the whole log by default)."""
    store.require_game(game_id)
    rows = store.rows(game_id, 1, upto)
    ruleset, events = decode_rows(rows, f"game {game_id}")
    if ruleset is None:
        raise IntegrityFailure(1, f"game {game_id} has no events")
    state = ruleset.named(fold(ruleset, events), game_id)
    return Loaded(game_id=game_id, ruleset=ruleset, version=store.log_version(game_id), rows=rows,
                  events=events, state=state, draw_head=content_head(rows))


# --- writing ---------------------------------------------------------------------------------------------

def _new_rows(ruleset: Ruleset, events: Iterable[Any], actor: str, command: bytes | None,
              now: str) -> list[NewRow]:
    out = []
    for i, e in enumerate(events):
        out.append(NewRow(type=ruleset.event_type_of(e), payload=ruleset.encode_event(e).decode(),
                          recorded_at=now, actor=actor,
                          command=command.decode() if (command is not None and i == 0) else None))
    return out


def new_game_id() -> str:
    return "g" + pysecrets.token_hex(4)


def creation(ruleset: Ruleset, cmd: Any, secret: bytes) -> tuple[list[Any], Any]:
    """The events of a creation command and the state they fold into; nothing is stored.

    `mn new` reads the sides in play here before it makes their keys (they may be drawn at random).
    """
    events, state = ruleset.decide(ruleset.initial(commitment(secret)), cmd, Rng(secret, GENESIS_HASH))
    return list(events), state


def create(store: Store | Callable[[], Store], ruleset: Ruleset, cmd: Any, secret: bytes,
           game_id: str | None = None, keys: PublishKeys | None = None) -> Loaded:
    """Decide a creation command and store the new game's first events with its secret; with `keys`,
    the host publishes each side's public key as the second batch, in the same transaction.

    The command is decided before the store is opened (when given as a callable that opens it), so
    a refused one writes nothing, not even a new database file.
    """
    events, state = creation(ruleset, cmd, secret)
    batches = [_new_rows(ruleset, events, HOST, ruleset.encode_command(cmd), utc_now())]
    if keys is not None:
        published, _ = trust.decide(ruleset, state, keys, secret=secret, draw_head=GENESIS_HASH,
                                    ledger=trust.Ledger(), batch=2)
        batches.append(_new_rows(ruleset, published, HOST, ruleset.encode_command(keys), utc_now()))
    if not isinstance(store, Store):
        store = store()
    gid = game_id or new_game_id()
    rows = store.create_game(gid, utc_now(), secret.hex(), *batches)
    log.info("game created", game=gid, ruleset=ruleset.short, events=len(rows), keys=keys is not None)
    return load(store, gid)


def submit(store: Store, loaded: Loaded, command: Any) -> tuple[Loaded, list[Row]]:
    """Decide one command against the loaded game and append its events; nothing written if refused.

    In a game with published keys an order given this way carries no signature: it is recorded as
    the host's (actor "host"), and refused if the game takes signed orders only.
    """
    ruleset = loaded.ruleset
    ledger = trust.ledger_of(ruleset, loaded.rows)
    secret = store.secret(loaded.game_id)
    events, state = trust.decide(ruleset, loaded.state, command,
                                 secret=bytes.fromhex(secret) if secret else None,
                                 draw_head=loaded.draw_head, ledger=ledger, batch=_batches(loaded) + 1)
    return _append(store, loaded, command, events, state, trust.recorded_actor(ruleset, ledger, command))


def submit_signed(store: Store, loaded: Loaded, block: SignedOrders) -> tuple[Loaded, list[Row]]:
    """Check a signed block (trust.check_block: this game, its side's key, unedited, new, still
    pending), decide its orders in turn and append them as one batch; nothing written if refused."""
    ruleset = loaded.ruleset
    ledger = trust.ledger_of(ruleset, loaded.rows)
    trust.check_block(ruleset, block, ledger=ledger, rows=loaded.rows, game_id=loaded.game_id,
                      pending_at=lambda seq: ruleset.pending(fold(ruleset, loaded.events[:seq])),
                      pending_now=ruleset.pending(loaded.state))
    secret = store.secret(loaded.game_id)
    events, state = trust.decide(ruleset, loaded.state, block,
                                 secret=bytes.fromhex(secret) if secret else None,
                                 draw_head=loaded.draw_head, ledger=ledger, batch=_batches(loaded) + 1)
    return _append(store, loaded, block, events, state, block.side)


def _batches(loaded: Loaded) -> int:
    return sum(1 for r in loaded.rows if r.batch == r.seq)


def _append(store: Store, loaded: Loaded, command: Any, events: list[Any], state: Any,
            actor: str) -> tuple[Loaded, list[Row]]:
    seq, _ = loaded.head
    ruleset = loaded.ruleset
    rows = store.append(loaded.game_id, seq,
                        _new_rows(ruleset, events, actor, ruleset.encode_command(command), utc_now()))
    log.info("order accepted", game=loaded.game_id, actor=actor, order=type(command).__name__,
             events=len(rows), head=rows[-1].seq if rows else seq)
    return Loaded(game_id=loaded.game_id, ruleset=ruleset, version=loaded.version,
                  rows=loaded.rows + rows, events=loaded.events + events, state=state,
                  draw_head=content_head(rows, loaded.draw_head)), rows


def verify_game(store: Store, game_id: str, held: str | None = None) -> Report:
    """Verify a stored game, holding it to the head its store recorded and to a head a player kept."""
    store.require_game(game_id)
    heads: list[Head] = []
    recorded = store.recorded_head(game_id)
    if recorded is not None:
        heads.append(Head(source="the database's head record", seq=recorded[0], hash=recorded[1]))
    if held is not None:
        heads.append(Head(source="the head you hold", hash=held, last=False))
    return verify_rows(store.rows(game_id), store.log_version(game_id), heads)


def verify_export(data: bytes, source: str, held: str | None = None) -> Report:
    """Verify an export file, holding it to its header's count and head, and to a head a player kept."""
    header, rows = parse_export(data, source)
    heads = [Head(source="the export header", seq=header.events, hash=header.head_hash)]
    if held is not None:
        heads.append(Head(source="the head you hold", hash=held, last=False))
    return verify_rows(rows, header.version, heads)


def reveal(store: Store, game_id: str, force: bool = False) -> list[Row]:
    """Append the game's secret so that anyone can recompute every draw."""
    loaded = load(store, game_id)
    secret = store.secret(game_id)
    if not secret:
        raise StoreError(f"this database does not hold the secret of game {game_id} "
                         "(an imported game: only the database it was created in has it)")
    if not loaded.meta.over and not force:
        raise InvalidCommand(f"game {game_id} is still running: revealing the secret now lets every "
                             "player foresee the remaining draws; pass --force to reveal anyway (ruling R6)")
    return submit(store, loaded, loaded.ruleset.reveal(secret))[1]


def fork(store: Store, game_id: str, at: int, new_id: str, secret: bytes) -> Loaded:
    """A sandbox copy of events 1..at of a game, marked as a fork; the original is untouched.

    The fork draws from its own new secret, never the original's (ruling R5).
    """
    src = load(store, game_id, at)
    if at < 1 or at > len(src.rows):
        raise InvalidCommand(f"game {game_id} has events 1 to {len(store.rows(game_id))}; "
                             f"cannot fork at {at}")
    ruleset = src.ruleset
    ref = ForkRef(game=game_id, at=at, head_hash=src.rows[-1].hash,
                  commitment=ruleset.meta(fold(ruleset, src.events[:1])).commitment)
    created = ruleset.fork_created(src.events[0], commitment(secret), ref)
    payloads = [ruleset.encode_event(created).decode()] + [r.payload for r in src.rows[1:]]
    rows = rechain([replace(r, payload=p) for r, p in zip(src.rows, payloads, strict=True)], CURRENT)
    store.import_rows(new_id, utc_now(), rows, CURRENT, secret=secret.hex())
    return load(store, new_id)


def rechain(rows: Sequence[Row], version: int) -> list[Row]:
    """The rows with their hashes computed anew in log format `version`."""
    out: list[Row] = []
    head = GENESIS_HASH
    for r in rows:
        head = link(version, head, seq=r.seq, type=r.type, actor=r.actor, batch=r.batch,
                    recorded_at=r.recorded_at, command=r.command, payload=r.payload)
        out.append(replace(r, hash=head))
    return out


# --- export and import -----------------------------------------------------------------------------------

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


class ExportLine(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True,
                 omit_defaults=True):
    """One event of an export: its store row with the payload embedded as canonical JSON."""

    seq: int
    type: str
    recorded_at: str
    actor: str
    batch: int
    command: msgspec.Raw  # the command that caused the batch, on its first line; else null
    payload: msgspec.Raw
    hash: str
    redacted: bool = False  # an export made for one empire: hidden parts of this payload withheld


_LINE = msgspec.json.Encoder()


def export_lines(loaded: Loaded, viewer: str | None = None) -> list[bytes]:
    """JSON Lines: a header, then one line per event with its sequence number and hash."""
    rows, ruleset, meta = loaded.rows, loaded.ruleset, loaded.meta
    head = rows[-1].hash if rows else GENESIS_HASH
    header = ExportHeader(format=EXPORT_FORMAT, version=loaded.version, game=loaded.game_id,
                          ruleset=f"{meta.ruleset_id}@{meta.ruleset_version}",
                          events=len(rows), head_hash=head, made_for=viewer)
    out = [_LINE.encode(header)]
    for r in rows:
        payload, command, redacted = r.payload, r.command, False
        if viewer is not None:
            event = ruleset.decode_event(r.payload)
            shown = ruleset.redact(event, viewer)
            if shown is not event:
                payload, redacted = ruleset.encode_event(shown).decode(), True
            if command is not None and trust.giver(ruleset, ruleset.decode_command(command)) \
                    not in (viewer, HOST):
                # another empire's order may carry hidden choices (an offer); the giver, not the
                # actor: an unsigned order in a game with keys is recorded as the host's
                command = None
        out.append(_LINE.encode(ExportLine(
            seq=r.seq, type=r.type, recorded_at=r.recorded_at, actor=r.actor, batch=r.batch,
            command=msgspec.Raw(command.encode() if command is not None else b"null"),
            payload=msgspec.Raw(payload.encode()), hash=r.hash, redacted=redacted)))
    return out


def parse_export(data: bytes, source: str) -> tuple[ExportHeader, list[Row]]:
    """The header and rows of an export, read line by line; DataError naming a line that is not one.

    The hash chain is not checked here: verify_rows() does that and names the first bad event.
    """
    return _parse(data, source)


def _parse(data: bytes, source: str) -> tuple[ExportHeader, list[Row]]:
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    if not lines:
        raise DataError(source, ["line 1: the file is empty"])
    try:
        header = msgspec.json.decode(lines[0], type=ExportHeader)
    except (msgspec.DecodeError, msgspec.ValidationError) as err:
        raise DataError(source, [f"line 1: not a mare-nostrum export header ({err})"]) from None
    if header.format != EXPORT_FORMAT or header.version not in VERSIONS:
        raise DataError(source, [f"line 1: format {header.format} v{header.version} is not "
                                 f"{EXPORT_FORMAT} v{' or v'.join(map(str, VERSIONS))}"])
    rows: list[Row] = []
    for i, raw in enumerate(lines[1:], start=2):
        try:
            line = msgspec.json.decode(raw, type=ExportLine)
            payload = bytes(line.payload).decode()
        except (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError) as err:
            raise DataError(source, [f"line {i}: malformed event line ({err})"]) from None
        if line.redacted:
            raise DataError(source, [f"line {i}: this export was made for "
                                     f"{header.made_for or 'one empire'} with hidden parts withheld; "
                                     "only a full export can be imported or verified"])
        rows.append(Row(seq=line.seq, type=line.type, payload=payload, recorded_at=line.recorded_at,
                        actor=line.actor, batch=line.batch, hash=line.hash,
                        command=None if bytes(line.command) == b"null" else bytes(line.command).decode()))
    return header, rows


def read_export(data: bytes, source: str) -> tuple[ExportHeader, list[Row]]:
    """Parse and check an export line by line; DataError naming the first bad line."""
    header, rows = _parse(data, source)
    head = GENESIS_HASH
    for i, row in enumerate(rows, start=2):
        expected_seq = i - 1
        if row.seq != expected_seq:
            raise DataError(source, [f"line {i}: event {row.seq} where event {expected_seq} was "
                                     "expected (reordered, missing or duplicated lines)"])
        try:
            kind = msgspec.json.decode(row.payload, type=dict).get("type")
        except msgspec.DecodeError as err:
            raise DataError(source, [f"line {i}: the payload is not JSON ({err})"]) from None
        if kind != row.type:
            raise DataError(source, [f"line {i}: type {row.type} but the payload is {kind}"])
        head = link(header.version, head, seq=row.seq, type=row.type, actor=row.actor, batch=row.batch,
                    recorded_at=row.recorded_at, command=row.command, payload=row.payload)
        if head != row.hash:
            raise DataError(source, [f"line {i}: event {row.seq} hash does not match its payload "
                                     "and the chain before it (edited or corrupted)"])
    if len(rows) != header.events or head != header.head_hash:
        raise DataError(source, [f"line {len(rows) + 2}: the file ends after {len(rows)} events but "
                                 f"its header promises {header.events} ending in "
                                 f"{header.head_hash[:12]} (truncated?)"])
    return header, rows


def check_import(data: bytes, source: str) -> tuple[ExportHeader, list[Row]]:
    """Read an export and verify it whole (chain, replay, every command decided again), refusing it
    with the line at fault; nothing is stored."""
    header, rows = read_export(data, source)
    ruleset_of(rows[0].payload, source) if rows else None  # an unknown ruleset is bad input (exit 2)
    report = verify_rows(rows, header.version)
    if not report.ok:
        raise IntegrityFailure(report.first_bad or 1, f"{source}, line {(report.first_bad or 1) + 1}: "
                                                      f"{report.reason}; nothing imported")
    return header, rows


def import_game(store: Store, header: ExportHeader, rows: list[Row],
                game_id: str | None = None) -> Loaded:
    """Store a checked export (from check_import) as a game."""
    gid = game_id or header.game
    store.import_rows(gid, utc_now(), rows, header.version)
    return load(store, gid)
