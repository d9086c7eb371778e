"""Export and import: a game's log as JSON Lines for the host or one side, read back and checked."""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec.structs import replace

from mncore.audits.sealing import (
    CHECKED,
    EXPORT_FORMAT,
    HeaderEdited,
    chain_version,
    header_problem,
    sealed,
    sealed_only,
)
from mncore.audits.sealing import ExportHeader as ExportHeader
from mncore.audits.verify import Head, Report, verify_rows, verify_side_rows
from mncore.core.bounds import MAX_NUMBER, number_text, out_of_bounds
from mncore.core.chain import GENESIS_HASH, VERSIONS, CommitError, link
from mncore.core.errors import DataError, IntegrityFailure
from mncore.core.protocol import Ruleset
from mncore.games import reading
from mncore.games.log_reading import ruleset_of
from mncore.games.reading import Loaded, load
from mncore.secrecy import boundary, side_fold
from mncore.store import Row, Store


def verify_export(data: bytes, source: str, held: str | None = None) -> Report:
    """Verify an export file, holding it to its header's count and head, and to a head a player kept.

    An export made for one side (some fields withheld) is checked as far as its reader can: the
    whole chain, every hidden field it may see against its commitment; the rest stay committed.
    """
    parsed = _parse(data, source)
    header = parsed.header
    try:
        _check_header(parsed, source)
    except HeaderEdited as err:
        return Report(ok=False, events=len(parsed.rows), head_hash=header.head_hash, first_bad=0,
                      reason=err.reason, version=header.version, made_for=header.made_for)
    heads = [Head(source="the export header", seq=header.events, hash=header.head_hash)]
    if held is not None:
        heads.append(Head(source="the head you hold", hash=held, last=False))
    if parsed.withheld:
        report = verify_side_rows(parsed.rows, header.version, parsed.withheld, heads,
                                  header.made_for or "one side")
    else:
        report = verify_rows(parsed.rows, header.version, heads)
    if report.ok:
        report.proven.append(_header_proof(header))
    return report


def _header_proof(header: ExportHeader) -> str:
    """What the header's check proved: every field, or all but those an older mn left unsealed."""
    if header.seal:
        return (f"every field of its header holds: {', '.join(CHECKED)} against the log; "
                f"{', '.join(sealed_only()[:-1])} by its seal (game {header.game})")
    return (f"its header's {', '.join(CHECKED)} hold against the log; it has no seal (an export of an "
            f"older mn), so nothing vouches for its game id {header.game}")


# --- export and import -----------------------------------------------------------------------------------

class ExportLine(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True,
                 omit_defaults=True):
    """One event of an export: its store row with the payload embedded as canonical JSON.

    A full export carries the salt of every hidden field (`salts`), so that it verifies without the
    secret. An export made for one side carries the salts of the hidden fields it may see; each of
    the others reads {"commit": hex} in payload or command and is named in `withheld`.
    """

    seq: int
    type: str
    recorded_at: str
    actor: str
    batch: int
    command: msgspec.Raw  # the command that caused the batch, on its first line; else null
    payload: msgspec.Raw
    hash: str
    redacted: bool = False  # some hidden field of this line is withheld (an export made for one side)
    salts: dict[str, str] = {}  # hidden field -> salt, for the fields the reader may open
    withheld: dict[str, str] = {}  # hidden field -> commitment, for the fields it may not
    # made for one side: what its fold of the events it sees misses of its board (secrecy/side_fold.py)
    public: list[list[Any]] = []


_LINE = msgspec.json.Encoder()


def _raw(text: str | None) -> msgspec.Raw:
    return msgspec.Raw(text.encode() if text is not None else b"null")


def export_line(loaded_ruleset: Ruleset, row: Row, viewer: str | None, opened: bool,
                version: int) -> ExportLine:
    """One row as an export line, for the host (viewer None: every salt) or one side."""
    if viewer is None:
        return ExportLine(seq=row.seq, type=row.type, recorded_at=row.recorded_at, actor=row.actor,
                          batch=row.batch, command=_raw(row.command), payload=_raw(row.payload),
                          hash=row.hash, salts=row.salts)
    side = boundary.side_row(loaded_ruleset, row, viewer, opened, version)
    return ExportLine(seq=row.seq, type=row.type, recorded_at=row.recorded_at, actor=row.actor,
                      batch=row.batch, command=_raw(side.command), payload=_raw(side.payload),
                      hash=row.hash, redacted=bool(side.withheld), salts=side.salts,
                      withheld=side.withheld)


def export_lines(loaded: Loaded, viewer: str | None = None) -> list[bytes]:
    """JSON Lines: a header, then one line per event with its sequence number and hash.

    Every line made for one side passes the redaction boundary (mncore/secrecy/boundary.py).
    """
    rows, ruleset, meta = loaded.rows, loaded.ruleset, loaded.meta
    head = rows[-1].hash if rows else GENESIS_HASH
    header = sealed(ExportHeader(format=EXPORT_FORMAT, version=loaded.version, game=loaded.game_id,
                                 ruleset=f"{meta.ruleset_id}@{meta.ruleset_version}",
                                 events=len(rows), head_hash=head, made_for=viewer))
    opened = meta.secret is not None
    lines = [export_line(ruleset, r, viewer, opened, loaded.version) for r in rows]
    if viewer is not None and rows:
        facts = side_fold.line_facts(ruleset, rows, loaded.events, lines, viewer)
        lines = [replace(line, public=f) if f else line for line, f in zip(lines, facts, strict=True)]
    return [_LINE.encode(header)] + [_LINE.encode(line) for line in lines]


class ParsedExport(msgspec.Struct, kw_only=True):
    """An export read line by line: its header, its rows, and the fields each line withholds."""

    header: ExportHeader
    rows: list[Row]
    withheld: dict[int, dict[str, str]]  # seq -> field -> commitment (an export made for one side)
    public: dict[int, list[list[Any]]] = {}  # seq -> its public facts (an export made for one side)


def parse_export(data: bytes, source: str) -> tuple[ExportHeader, list[Row]]:
    """The header and rows of a full export, read line by line; DataError naming a line that is not one.

    The hash chain is not checked here: verify_rows() does that and names the first bad event.
    """
    parsed = _parse(data, source)
    _known_format(parsed.header, source)
    if parsed.withheld:
        seq = min(parsed.withheld)
        raise DataError(source, [f"line {seq + 1}: this export was made for "
                                 f"{parsed.header.made_for or 'one empire'} with hidden parts "
                                 "withheld; only a full export can be imported"])
    return parsed.header, parsed.rows


def _parse(data: bytes, source: str) -> ParsedExport:
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    if not lines:
        raise DataError(source, ["line 1: the file is empty"])
    try:
        header = msgspec.json.decode(lines[0], type=ExportHeader)
    except (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError, RecursionError) as err:
        raise DataError(source, [f"line 1: not a mare-nostrum export header ({err})"]) from None
    if not 0 <= header.events <= MAX_NUMBER:
        raise DataError(source, [f"line 1: events: {number_text(header.events)} is not a count of "
                                 f"events (0 to {MAX_NUMBER:,})"])
    rows: list[Row] = []
    withheld: dict[int, dict[str, str]] = {}
    public: dict[int, list[list[Any]]] = {}
    for i, raw in enumerate(lines[1:], start=2):
        try:
            line = msgspec.json.decode(raw, type=ExportLine)
            payload = bytes(line.payload).decode()
            # every number bounded before it sizes a loop in a replay or reaches SQLite (64 bits)
            problems = [f"line {i}: {p}" for p in (
                *out_of_bounds({"seq": line.seq, "batch": line.batch}, ""),
                *out_of_bounds(msgspec.json.decode(line.payload), "$.payload"),
                *out_of_bounds(msgspec.json.decode(line.command), "$.command"),
                *out_of_bounds(line.public, "$.public"))]
        except (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError, RecursionError) as err:
            raise DataError(source, [f"line {i}: malformed event line ({err})"]) from None
        if problems:
            raise DataError(source, problems)
        if line.redacted and not line.withheld:
            raise DataError(source, [f"line {i}: this export was made by an older mn for one empire, "
                                     "with hidden parts dropped; it cannot be imported or verified"])
        if line.withheld:
            withheld[line.seq] = line.withheld
        if line.public:
            public[line.seq] = line.public
        rows.append(Row(seq=line.seq, type=line.type, payload=payload, recorded_at=line.recorded_at,
                        actor=line.actor, batch=line.batch, hash=line.hash, salts=line.salts,
                        command=None if bytes(line.command) == b"null" else bytes(line.command).decode()))
    return ParsedExport(header=header, rows=rows, withheld=withheld, public=public)


def _known_format(header: ExportHeader, source: str) -> None:
    """DataError for a file this mn cannot read (another format, or a log format it does not know)."""
    if header.format != EXPORT_FORMAT or header.version not in VERSIONS:
        raise DataError(source, [f"line 1: format {header.format} v{header.version} is not "
                                 f"{EXPORT_FORMAT} v{' or v'.join(map(str, VERSIONS))}"])


def _check_header(parsed: ParsedExport, source: str) -> None:
    """IntegrityFailure naming the header field that the rows below it contradict (edited).

    A version this mn does not know, with a chain in no format it knows, is a newer file: DataError.
    """
    header = parsed.header
    if header.version not in VERSIONS and chain_version(parsed.rows) is None:
        _known_format(header, source)
    problem = header_problem(header, parsed.rows, bool(parsed.withheld))
    if problem is not None:
        raise HeaderEdited(problem)


def read_export(data: bytes, source: str) -> tuple[ExportHeader, list[Row]]:
    """Parse and check an export line by line; DataError naming the first bad line."""
    header, rows = parse_export(data, source)
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
        try:
            head = link(header.version, head, seq=row.seq, type=row.type, actor=row.actor,
                        batch=row.batch, recorded_at=row.recorded_at, command=row.command,
                        payload=row.payload, salts=row.salts)
        except CommitError as err:
            raise DataError(source, [f"line {i}: a salted field is not in the event ({err})"]) from None
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
    problem = header_problem(header, rows, False)
    if problem is not None:
        raise HeaderEdited(f"{source}, line 1: {problem}; nothing imported")
    report = verify_rows(rows, header.version)
    if not report.ok:
        raise IntegrityFailure(report.first_bad or 1, f"{source}, line {(report.first_bad or 1) + 1}: "
                                                      f"{report.reason}; nothing imported")
    return header, rows


def import_game(store: Store, header: ExportHeader, rows: list[Row],
                game_id: str | None = None) -> Loaded:
    """Store a checked export (from check_import) as a game."""
    gid = game_id or header.game
    store.import_rows(gid, reading.utc_now(), rows, header.version)
    return load(store, gid)
