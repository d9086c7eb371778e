"""Mail in: messages read from a .eml, an mbox or a Maildir, each block applied whole, each message answered."""

from __future__ import annotations

import email.parser
import email.policy
import io
import os
import re
from collections.abc import Iterable, Iterator
from email.message import EmailMessage
from typing import BinaryIO

import msgspec

from mncore.core.actors import act_label
from mncore.core.errors import DataError, InvalidCommand, MareNostrumError, RuleViolation, SigningRefused
from mncore.core.kernel_acts import UNDO_TYPES, SignedOrders
from mncore.games import by_mail, reading, writing
from mncore.pbem import signing, turns
from mncore.pbem.line_problems import every_problem
from mncore.pbem.mail import blocks
from mncore.pbem.mail import limits as mail_limits
from mncore.secrecy import boundary
from mncore.store import Row, Store


class Outcome(msgspec.Struct, frozen=True, kw_only=True):
    """What became of one block (or of a message without one): applied with a receipt, or refused."""

    applied: bool
    message: str  # the refusal's reason, or "" when applied
    code: int = 0  # the exit code mn order --signed would give
    rule: str = ""  # the section or ruling a rules refusal cites
    game: str = ""
    side: str = ""
    orders: tuple[str, ...] = ()
    events: tuple[str, ...] = ()  # the applied events as the block's side reads them
    seq: int = 0  # the receipt: the last event and its hash after the block
    head: str = ""
    note: str = ""  # what is still wanted (an undo waiting for consents)
    problems: tuple[str, ...] = ()  # a batch refused by the rules: each of its lines refused, not the first only


class Letter(msgspec.Struct, frozen=True, kw_only=True):
    """One message read: where from, its subject and id, and what became of each block in it."""

    sender: str
    subject: str
    message_id: str
    outcomes: list[Outcome]


Mail = EmailMessage | mail_limits.Refusal  # a message read within the limits, or the limit it passed


def _parse(data: bytes) -> EmailMessage:
    parser = email.parser.BytesFeedParser(policy=email.policy.default)
    parser.feed(data)
    msg = parser.close()
    assert isinstance(msg, EmailMessage)  # the default policy makes EmailMessage objects
    return msg


def _chunks(stream: BinaryIO, first: bytes = b"") -> Iterator[bytes]:
    if first:
        yield first
    while chunk := stream.read(mail_limits.CHUNK):
        yield chunk


def _mail(chunks: Iterable[bytes], limits: mail_limits.Limits) -> Mail:
    """One message: parsed only once all of it was read within the limits."""
    read = mail_limits.gated(chunks, limits)
    return read if isinstance(read, mail_limits.Refusal) else _parse(read)


def messages(path: str, stream: BinaryIO | None = None,
             limits: mail_limits.Limits | None = None) -> Iterator[tuple[str, Mail]]:
    """(where, message or refusal) for each message at path: a Maildir (its unseen messages, each
    marked seen once read), an mbox (a file starting 'From '), or one .eml; `stream` is stdin for '-'.
    Each is read in chunks within the limits, so a huge or hostile mail is refused unparsed."""
    limits = limits or mail_limits.Limits()
    if path == "-":
        yield from _from_stream("stdin", stream or io.BytesIO(), limits)
        return
    if os.path.isdir(path):
        yield from _maildir(path, limits)
        return
    try:
        with open(path, "rb") as f:
            yield from _from_stream(path, f, limits)
    except OSError as err:
        raise DataError(path, [f"cannot read it ({err.strerror})"]) from None


def _from_stream(source: str, stream: BinaryIO, limits: mail_limits.Limits) -> Iterator[tuple[str, Mail]]:
    first = stream.read(mail_limits.CHUNK)
    if not first.strip() and len(first) < mail_limits.CHUNK:
        raise DataError(source, ["empty: no message to read"])
    if first.startswith(b"From "):
        yield from _mbox(source, _chunks(stream, first), limits)
    else:
        yield source, _mail(_chunks(stream, first), limits)


_FROM_LINE = b"\nFrom "


def _mbox(source: str, chunks: Iterator[bytes], limits: mail_limits.Limits) -> Iterator[tuple[str, Mail]]:
    """An mbox's messages, split at its 'From ' lines as the bytes stream in; a message refused is
    skipped to the next 'From ' line unheld."""
    buf, n, gate = b"", 0, None
    for chunk in chunks:
        buf += chunk
        while True:
            if gate is None:  # inside a 'From ' line: dropped, up to its end
                end = buf.find(b"\n")
                if end < 0:
                    buf = b""
                    break
                buf, n, gate = buf[end + 1:], n + 1, mail_limits.Gate(limits, unquote_from=True)
            at = buf.find(_FROM_LINE)
            if at < 0:
                keep = len(_FROM_LINE) - 1  # a 'From ' line may start in this chunk and end in the next
                gate.feed(buf[:-keep])
                buf = buf[-keep:]
                break
            gate.feed(buf[:at + 1])
            yield f"{source} message {n}", _closed(gate)
            buf, gate = buf[at + 1:], None
    if gate is not None:
        gate.feed(buf)
        yield f"{source} message {n}", _closed(gate)


def _closed(gate: mail_limits.Gate) -> Mail:
    read = gate.close()
    return read if isinstance(read, mail_limits.Refusal) else _parse(read)


def _maildir(path: str, limits: mail_limits.Limits) -> Iterator[tuple[str, Mail]]:
    if not all(os.path.isdir(os.path.join(path, sub)) for sub in ("cur", "new", "tmp")):
        raise DataError(path, ["a folder that is not a Maildir (cur/, new/ and tmp/ expected)"])
    # a message read before has flag S: each message is taken once
    unseen = [(key, sub, name) for key, sub, name in _files(path) if "S" not in _flags(name)]
    for key, sub, name in sorted(unseen, key=lambda e: arrival(e[0])):
        file = os.path.join(path, sub, name)
        try:
            with open(file, "rb") as f:
                mail = _mail(_chunks(f), limits)
        except OSError as err:
            raise DataError(file, [f"cannot read it ({err.strerror})"]) from None
        yield f"{path} {key}", mail
        # marked seen by its name alone, as Maildir readers do: the mail itself is not read again
        os.rename(file, os.path.join(path, "cur", f"{key}:2,{''.join(sorted({*_flags(name), 'S'}))}"))


def _files(path: str) -> Iterator[tuple[str, str, str]]:
    for sub in ("new", "cur"):
        for name in os.listdir(os.path.join(path, sub)):
            if not name.startswith("."):
                yield name.partition(":")[0], sub, name


def _flags(name: str) -> str:
    info = name.partition(":")[2]  # Maildir's "KEY:2,FLAGS"
    return info[2:] if info.startswith("2,") else ""


def entries(path: str) -> Iterator[tuple[str, str, str]]:
    """(key, subdir, flags) of each message of a Maildir, read from the file names alone: a box that
    grows all game long is not parsed whole for each message taken from it."""
    for key, sub, name in _files(path):
        yield key, sub, _flags(name)


_KEY = re.compile(r"(\d+)\.M(\d+)P\d+Q(\d+)")


def arrival(key: str) -> tuple[int, int, int, str]:
    """The order messages arrived in, from Python's Maildir names (seconds, microseconds not
    zero-padded, a counter); other names after, by name."""
    m = _KEY.match(key)
    return (int(m[1]), int(m[2]), int(m[3]), key) if m else (2 ** 62, 0, 0, key)


def apply_block(store: Store, text: str) -> Outcome:
    """One block applied whole through writing.submit_signed (orders, or the player's own `undo`,
    `consent N`, `standing ORDER` lines), or refused with its reason (nothing written)."""
    try:
        block = signing.parse_block(text, "the block")
    except MareNostrumError as err:
        return Outcome(applied=False, message=err.message, code=err.exit_code)
    base = Outcome(applied=False, message="", game=block.game, side=block.side, orders=block.orders)
    try:
        rows = writing.give(store, reading.current(store, block.game), block, answer=False).written
    except MareNostrumError as err:
        return _refused(store, base, block, err)
    rows += writing.advance(store, block.game)  # forced answers and standing orders, as mn order does
    after = reading.current(store, block.game)
    ruleset, opened = after.ruleset, after.meta.secret is not None
    marks = turns.service_marks(rows)
    events = tuple(f"{r.seq:>5}  {_mark(marks.get(r.seq, ''))}"
                   f"{boundary.describe(ruleset, ruleset.decode_event(r.payload), block.side, opened)}"
                   for r in rows)
    return msgspec.structs.replace(base, applied=True, events=events, seq=after.head[0],
                                   head=after.head[1], note=_undo_note(store, block, rows))


def _refused(store: Store, base: Outcome, block: SignedOrders, err: MareNostrumError) -> Outcome:
    """A refused block's outcome, with the game's head to sign again against and, for a batch the rules
    refused, every line they refuse (mncore/pbem/line_problems.py)."""
    out = msgspec.structs.replace(base, message=err.message, code=err.exit_code,
                                  rule=err.section if isinstance(err, RuleViolation) else "")
    if not store.has_game(block.game):
        return out
    cur = reading.current(store, block.game)
    out = msgspec.structs.replace(out, seq=cur.head[0], head=cur.head[1])
    rules = isinstance(err, RuleViolation | InvalidCommand) and not isinstance(err, SigningRefused)
    if rules and len(block.orders) > 1 and turns.act_kind(block.orders) is None and block.side in cur.meta.sides:
        found = every_problem(cur.ruleset, cur.state, block.side, block.orders, cur.meta.commitment,
                              cur.head[0])
        out = msgspec.structs.replace(out, problems=tuple(found))
    return out


def _undo_note(store: Store, block: SignedOrders, rows: list[Row]) -> str:
    """For an undo that was recorded as a request (K2): whose consent it waits for, and how to give it."""
    if turns.act_kind(block.orders) != "UndoBatch" or any(r.type in UNDO_TYPES for r in rows):
        return ""
    cur = reading.current(store, block.game)
    ruleset = cur.ruleset
    batch = by_mail.last_batch(store, cur, block.side)
    missing = [s for s in by_mail.undo_missing(store, cur, batch) if s != block.side]
    return (f"the undo of the batch of event {batch} waits for the consent of "
            f"{', '.join(ruleset.side_name(s) for s in missing)} (ruling K2): each sends a signed "
            f"block 'consent {batch}'" if missing else "")


def _mark(actor: str) -> str:
    """An act the service took for a side, marked as mn log marks it: [forced], [standing], [deadline]."""
    label = act_label(actor)
    return f"[{label}] " if label else ""


NO_BLOCK = ("no signed order block was found in this message (a '-----BEGIN MARE NOSTRUM ORDERS-----' "
            "line, the fields, an '-----END MARE NOSTRUM ORDERS-----' line); make one with mn sign")


def read_letter(store: Store, msg: EmailMessage) -> Letter:
    """Every block of one message applied in turn, each whole or not at all."""
    found = blocks.found(msg)
    outcomes = ([apply_block(store, text) for text in found] if found
                else [Outcome(applied=False, message=NO_BLOCK, code=2)])
    return Letter(sender=str(msg.get("Reply-To") or msg.get("From") or ""),
                  subject=str(msg.get("Subject") or ""), message_id=str(msg.get("Message-ID") or ""),
                  outcomes=outcomes)


def letter_of(store: Store, mail: Mail) -> Letter:
    """A message read within the limits, its blocks applied; or one refused unread, answered with the
    limit it passed (none of it quoted back)."""
    if isinstance(mail, EmailMessage):
        return read_letter(store, mail)
    return Letter(sender=mail.sender, subject=mail.subject, message_id=mail.message_id,
                  outcomes=[Outcome(applied=False, code=2, message=(
                      f"{mail.reason}: it was not read, so no block in it was; send the signed block "
                      f"in a smaller mail (without quoting the report's attachments)"))])
