"""A player's own export (or the report mail that carries it) opened as a game, with no database.

The export was made for one side through the redaction boundary: each field hidden from that side
reads {"commit": hex}. Opening it verifies the chain against its header's head (and the receipt's,
from a mail), then reads each event as the side may see it: every withheld field is put back as the
declaration's public part (else empty) by `boundary.seen_event`, never guessed. What is shown is
made of that alone, so two games that differ in a fact hidden from the side open alike.

The board is folded from these events and set right by the public facts the export carries where
a withheld field (another side's face-down offer) moves a public count (mncore/secrecy/side_fold.py): it is
the board the host shows the side at each event.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, TypeVar

import msgspec

from mncore.audits.verify import Report
from mncore.core.actors import act_label
from mncore.core.errors import DataError, IntegrityFailure, InvalidCommand, MareNostrumError
from mncore.core.kernel_state import email_of, seated
from mncore.games import transfer
from mncore.games.log_reading import ruleset_of
from mncore.pbem import turns
from mncore.secrecy import boundary, side_fold
from mncore.store import Row

T = TypeVar("T")
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
    facts: dict[int, list[list[Any]]] = {}  # seq -> its public facts (mncore/secrecy/side_fold.py)


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
    from mncore.pbem.mail import outbox
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
        report = transfer.verify_export(data, source, head)
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
    parsed = transfer._parse(data, source)  # noqa: SLF001 - the one reader of export lines
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
        opened = opened or row.type == "SecretRevealed"
        seen_as, seen = side_fold.seen_row(ruleset, row, list(parsed.withheld.get(row.seq, {})), header.made_for, opened,
                                 source)
        rows.append(seen_as)
        events.append(seen)
    return SideGame(game_id=header.game, ruleset=ruleset, rows=rows, events=events, opened=opened,
                    side=header.made_for or "", source=source, report=report, facts=parsed.public)


def states(sg: SideGame) -> list[Any]:
    """The board after each event as the side's export shows it: its seen events folded, its public
    facts put in (mncore/secrecy/side_fold.py), each named as the game."""
    return [sg.ruleset.named(s, sg.game_id)
            for s in side_fold.side_states(sg.ruleset, sg.rows, sg.events, sg.facts, sg.side, sg.source)]


def log_lines(sg: SideGame, start: int = 1, end: int | None = None) -> list[str]:
    """mn log's lines for the export: each event's sentence as its side reads it, marked as mn log marks."""
    gone = turns.undone_seqs(sg.rows)
    marks = turns.service_marks(sg.rows)
    out = []
    for r, event in zip(sg.rows, sg.events, strict=True):
        if r.seq < start or (end is not None and r.seq > end):
            continue
        text = boundary.describe(sg.ruleset, event, sg.side, sg.opened)
        act = act_label(marks.get(r.seq, ""))
        out.append(f"{r.seq:>5}  {'[undone] ' if r.seq in gone else ''}{f'[{act}] ' if act else ''}{text}")
    return out


# --- the side's board from its export: mn show, draw, html and options with no database ---------------

def open_as(path: str, as_text: str | None, kept_file: str | None = None) -> SideGame:
    """open_side(path) (a delta joined to the export in `kept_file`), refused if --as names another
    side than the one it was made for."""
    sg = open_side(path, kept=None if kept_file is None else read_bytes(kept_file))
    if as_text is not None and sg.ruleset.resolve_side(as_text) != sg.side:
        raise InvalidCommand(f"{path} was made for {sg.ruleset.side_name(sg.side)}: it can be read "
                             "only as that empire")
    return sg


def made(sg: SideGame, make: Callable[[], T]) -> T:
    """make() of the export's board (a view, a picture, a page, options); DataError if it cannot be
    made. The public facts are outside the hash chain: an edited one may put in a board that no
    view of the ruleset reads, and that is told as an edited file, not a traceback."""
    try:
        return make()
    except MareNostrumError:
        raise
    except Exception:  # noqa: BLE001 - whatever an edited fact broke
        raise DataError(sg.source, ["its public facts make a board that cannot be read (edited)"]) from None


def upto(sg: SideGame, at: int | None, option: str = "--at") -> int:
    """The event a command stops at (the export's last by default); InvalidCommand outside it."""
    last = sg.rows[-1].seq
    if at is not None and not 1 <= at <= last:
        raise InvalidCommand(f"{option} {at}: {sg.source} holds events 1 to {last}")
    return last if at is None else at


def state_at(sg: SideGame, at: int | None = None) -> Any:
    """The board after event `at` (the last by default) as the export shows it to its side, each seat
    named by who holds it then (K14: the export carries every seat's hand-over)."""
    n = upto(sg, at)
    return seated(sg.ruleset, states(sg)[n - 1], email_of(sg.rows[:n]))


def picture(sg: SideGame, at: int | None, since: int | None) -> str | None:
    """mn draw's picture of the export: the board as its side sees it, with --since what changed."""
    from mncore.pictures import changes
    n = upto(sg, at)
    opened = any(r.type == "SecretRevealed" for r in sg.rows[:n])
    return changes.drawn(sg.ruleset, states(sg)[n - 1], sg.side, opened, sg.rows[:n], sg.events[:n], since)


def page(sg: SideGame) -> str:
    """mn html's page of the export: every frame its side's board, every sentence as it reads it."""
    from mncore.pictures import pages
    return pages.page(sg.ruleset, sg.game_id, sg.rows, sg.events, states(sg), sg.side, sg.opened, sg.report)


def options(sg: SideGame, state: Any) -> list[Any]:
    """What the side may order on the board its export shows it: its options made of its seen
    state (every other side's hidden fact a stand-in), which is all it may know."""
    seen = boundary.seen_state(sg.ruleset, state, sg.side).value
    return boundary.options(sg.ruleset, seen, sg.side)
