"""A player's own export (or the report mail that carries it) opened as a game, with no database.

The export was made for one side through the redaction boundary: each field hidden from that side
reads {"commit": hex}. Opening it verifies the chain against its header's head (and the receipt's,
from a mail), then reads each event as the side may see it: every withheld field is put back as the
declaration's public part (else empty) by `redaction.seen_event`, never guessed. What is shown is
made of that alone, so two games that differ in a fact hidden from the side open alike.

The events are not folded into a board: a withheld field (another side's face-down offer) feeds
public facts later (the reserve, the others' counts), so a board folded from the export alone would
show wrong public facts; the board comes from the host's report (mn mail open, mn play).
"""

from __future__ import annotations

import functools
import os
from typing import Any

import msgspec

from mncore import chain, game, pbem, redaction
from mncore.errors import DataError, IntegrityFailure, InvalidCommand
from mncore.host import SERVICE_ACTORS
from mncore.logread import ruleset_of
from mncore.store import Row
from mncore.verify import Report

MAX_EXPORT = 64 * 1024 * 1024  # an export is read whole: a bigger file is refused unread


class SideGame(msgspec.Struct, kw_only=True):
    """A side's export read as a game: its rows and events as the side may read them, and no more."""

    game_id: str
    ruleset: Any
    rows: list[Row]  # each payload the event as seen; a command the side may not read whole: None
    events: list[Any]
    opened: bool  # the secret was revealed in it (every field open)
    side: str
    source: str
    report: Report  # the export's verification, against its header's head (and the mail's receipt)


def is_export_path(target: str) -> bool:
    """Whether a command's GAME argument names a file (an export or a mail) rather than a stored game."""
    return target.endswith((".jsonl", ".eml")) and os.path.isfile(target)


def read_bytes(path: str, limit: int = MAX_EXPORT) -> bytes:
    """A file read whole, refused unread past `limit` bytes; DataError if it cannot be read."""
    try:
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except OSError as err:
        raise DataError(path, [f"cannot read it ({err.strerror})"]) from None
    if len(data) > limit:
        raise DataError(path, [f"over the {limit // (1024 * 1024)} MiB limit on an export; not read"])
    return data


def _starts_json(path: str) -> bool:
    """Whether a file begins as an export does (its header's JSON), not as a mail (a Maildir entry)."""
    try:
        with open(path, "rb") as f:
            return f.read(1) == b"{"
    except OSError as err:
        raise DataError(path, [f"cannot read it ({err.strerror})"]) from None


def export_of(path: str, kept: bytes | None = None) -> tuple[bytes, str, str | None]:
    """(the export, its name, the head of the mail's receipt if it came in a report mail).

    A report of `mn serve` may carry the export since the head the player last acknowledged only (a
    delta, `X-MN-Export`): it is joined to `kept`, the player's export from before, and the whole
    verifies against both heads; without `kept` it is refused, saying what to give.
    """
    if not path.endswith(".eml") and _starts_json(path):
        return read_bytes(path), path, None
    from mncore.mail import outbox
    msg = outbox.read_message(path)
    files = outbox.attachments(msg)
    name = next((n for n in files if n.endswith(".jsonl")), None)
    if name is None:
        raise DataError(path, ["this mail carries no export (no .jsonl attachment): open the "
                               "report mail the host sent"])
    receipt = str(msg.get("X-MN-Receipt") or "").split()
    data, delta = files[name], str(msg.get("X-MN-Export") or "")
    # a delta after event 0 (a side's first report from mn serve) holds the whole export: nothing to join
    if delta.startswith("delta") and delta.split()[-1] != "0":
        if kept is None:
            raise DataError(path, [f"this report carries your export's {delta} only: give --kept "
                                   "YOUR-EXPORT.jsonl (your export from before), or the Maildir holding "
                                   "your earlier reports"])
        from mncore.service.policy import merge_delta
        data = merge_delta(kept, data)
    return data, f"{path} ({os.path.basename(name)})", receipt[1] if len(receipt) == 2 else None


def open_side(path: str, held: str | None = None, kept: bytes | None = None) -> SideGame:
    """The export at path (a .jsonl, or a report .eml carrying one), verified, as its side sees it.

    IntegrityFailure (exit 4) if it does not verify against its header's head, the mail's receipt
    or `held`; DataError if it is no export, or a full one (the host's: open it with mn import).
    """
    data, source, receipt = export_of(path, kept)
    header, _ = _header(data, source)
    for head in dict.fromkeys([None, receipt, held]):
        report = game.verify_export(data, source, head)
        if not report.ok:
            raise IntegrityFailure(report.first_bad or 1, f"{source} does not verify"
                                   + (f" against head {head[:16]}" if head else "")
                                   + f": {report.reason}")
    side = header.made_for
    if not side:
        raise InvalidCommand(f"{source} is a full export (the host's, not made for one side): "
                             "mn import it into a database")
    return side_loaded(data, source, report)


def _header(data: bytes, source: str) -> tuple[Any, Any]:
    parsed = game._parse(data, source)  # noqa: SLF001 - the one reader of export lines
    return parsed.header, parsed


def side_loaded(data: bytes, source: str, report: Report) -> SideGame:
    """The export's rows and events as its side may read them."""
    header, parsed = _header(data, source)
    if not parsed.rows:
        raise DataError(source, ["the export holds no event"])
    ruleset = ruleset_of(parsed.rows[0].payload, source)
    opened = False
    rows: list[Row] = []
    events: list[Any] = []
    for row in parsed.rows:
        withheld = parsed.withheld.get(row.seq, {})
        event = _event(ruleset, row, [f for f in withheld if chain.split_field(f)[0] == chain.PAYLOAD], source)
        opened = opened or row.type == "SecretRevealed"
        seen = redaction.seen_event(ruleset, event, header.made_for, opened).value
        command = row.command if not any(chain.split_field(f)[0] == chain.COMMAND for f in withheld) else None
        rows.append(msgspec.structs.replace(row, payload=ruleset.encode_event(seen).decode(), command=command,
                                            salts={}))
        events.append(seen)
    return SideGame(game_id=header.game, ruleset=ruleset, rows=rows, events=events, opened=opened,
                    side=header.made_for or "", source=source, report=report)


def log_lines(sg: SideGame, start: int = 1, end: int | None = None) -> list[str]:
    """mn log's lines for the export: each event's sentence as its side reads it, marked as mn log marks."""
    gone = pbem.undone_seqs(sg.rows)
    marks = pbem.service_marks(sg.rows)
    out = []
    for r, event in zip(sg.rows, sg.events, strict=True):
        if r.seq < start or (end is not None and r.seq > end):
            continue
        text = redaction.describe(sg.ruleset, event, sg.side, sg.opened)
        act = marks.get(r.seq, "") if marks.get(r.seq, "") in SERVICE_ACTORS else ""
        out.append(f"{r.seq:>5}  {'[undone] ' if r.seq in gone else ''}{f'[{act}] ' if act else ''}{text}")
    return out


def _event(ruleset: Any, row: Row, fields: list[str], source: str) -> Any:
    """The row's event with each withheld payload field put back as the blank of its type (the
    first value of a literal, else empty, else null): the boundary then withholds it again."""
    if not fields:
        return ruleset.decode_event(row.payload)
    doc = msgspec.json.decode(row.payload)
    kinds = _event_kinds(ruleset.event_type)
    try:
        for field in fields:
            parts = chain.split_field(field)[1]
            chain.set_path(doc, parts, _blank(_at(kinds[doc["type"]], parts)))
        return ruleset.decode_event(msgspec.json.encode(doc))
    except (KeyError, TypeError, chain.CommitError, msgspec.DecodeError, msgspec.ValidationError):
        raise DataError(source, [f"event {row.seq}: a withheld field of its {row.type} reads as no "
                                 "value its type admits"]) from None


@functools.cache
def _event_kinds(event_type: Any) -> dict[Any, Any]:
    """The ruleset's event structs by tag (inspecting the union is slow: once a process, not once an event)."""
    return {i.tag: i for i in _union(msgspec.inspect.type_info(event_type))
            if isinstance(i, msgspec.inspect.StructType)}


def _union(info: Any) -> list[Any]:
    return list(info.types) if isinstance(info, msgspec.inspect.UnionType) else [info]


def _at(info: Any, parts: list[str]) -> Any:
    """The type at a field's path inside a type (struct fields by their JSON names)."""
    for part in parts:
        kinds = [t for t in _union(info) if not isinstance(t, msgspec.inspect.NoneType)] or [info]
        # a union of structs (a tagged union): the one that has the field
        info = next((t for t in kinds if isinstance(t, msgspec.inspect.StructType)
                     and any(part in (f.name, f.encode_name) for f in t.fields)), kinds[0])
        if isinstance(info, msgspec.inspect.StructType):
            info = next(f.type for f in info.fields if part in (f.name, f.encode_name))
        elif isinstance(info, msgspec.inspect.DictType):
            info = info.value_type
        elif isinstance(info, msgspec.inspect.ListType | msgspec.inspect.VarTupleType):
            info = info.item_type
        elif isinstance(info, msgspec.inspect.TupleType):
            info = info.item_types[int(part)]
        else:
            raise TypeError(part)
    return info


def _blank(info: Any) -> Any:
    i = msgspec.inspect
    kinds = _union(info)
    if any(isinstance(t, i.NoneType) for t in kinds):
        return None
    t = kinds[0]
    if isinstance(t, i.LiteralType):
        return t.values[0]
    blanks = {i.StrType: "", i.IntType: 0, i.FloatType: 0.0, i.BoolType: False, i.DictType: {},
              i.ListType: [], i.VarTupleType: [], i.AnyType: None}
    for kind, value in blanks.items():
        if isinstance(t, kind):
            return value
    raise TypeError(type(t).__name__)
