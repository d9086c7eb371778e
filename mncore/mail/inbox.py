"""Mail in: messages read from a .eml, an mbox or a Maildir, each block applied whole, each message answered."""

from __future__ import annotations

import email
import email.policy
import mailbox
import os
import re
from collections.abc import Iterator
from email.message import EmailMessage

import msgspec

from mncore import game, pbem, redaction, signing
from mncore.errors import DataError, MareNostrumError, RuleViolation
from mncore.host import SERVICE_ACTORS, UNDO_TYPES, SignedOrders
from mncore.mail import blocks
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


class Letter(msgspec.Struct, frozen=True, kw_only=True):
    """One message read: where from, its subject and id, and what became of each block in it."""

    sender: str
    subject: str
    message_id: str
    outcomes: list[Outcome]


def _parse(data: bytes) -> EmailMessage:
    msg = email.message_from_bytes(data, policy=email.policy.default)
    assert isinstance(msg, EmailMessage)  # the default policy makes EmailMessage objects
    return msg


def messages(path: str, data: bytes | None = None) -> Iterator[tuple[str, EmailMessage]]:
    """(where, message) for each message at path: a Maildir (its unseen messages, each marked seen
    once read), an mbox (a file starting 'From '), or one .eml; `data` is stdin's bytes for '-'."""
    if path == "-":
        yield from _from_bytes("stdin", data or b"")
        return
    if os.path.isdir(path):
        yield from _maildir(path)
        return
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as err:
        raise DataError(path, [f"cannot read it ({err.strerror})"]) from None
    yield from _from_bytes(path, raw, path)


def _from_bytes(source: str, raw: bytes, path: str | None = None) -> Iterator[tuple[str, EmailMessage]]:
    if not raw.strip():
        raise DataError(source, ["empty: no message to read"])
    if not raw.startswith(b"From "):
        yield source, _parse(raw)
        return
    if path is None:  # an mbox on stdin: the mailbox module reads files only
        for n, chunk in enumerate(_mbox_chunks(raw), start=1):
            yield f"{source} message {n}", _parse(chunk)
        return
    box = mailbox.mbox(path, create=False)
    for n, key in enumerate(box.keys(), start=1):
        yield f"{source} message {n}", _parse(box.get_bytes(key))


def _mbox_chunks(raw: bytes) -> list[bytes]:
    """An mbox's messages, split at its 'From ' lines, their '>From ' lines unquoted (mboxrd)."""
    out: list[list[bytes]] = []
    for line in raw.split(b"\n"):
        if line.startswith(b"From "):
            out.append([])
        elif out:
            out[-1].append(line[1:] if line.lstrip(b">").startswith(b"From ") else line)
    return [b"\n".join(lines) for lines in out]


def _maildir(path: str) -> Iterator[tuple[str, EmailMessage]]:
    if not all(os.path.isdir(os.path.join(path, sub)) for sub in ("cur", "new", "tmp")):
        raise DataError(path, ["a folder that is not a Maildir (cur/, new/ and tmp/ expected)"])
    box = mailbox.Maildir(path, factory=None, create=False)
    # a message read before has flag S: each message is taken once
    for key in sorted((k for k, _, flags in entries(path) if "S" not in flags), key=arrival):
        stored = box.get_message(key)
        yield f"{path} {key}", _parse(box.get_bytes(key))
        stored.set_subdir("cur")
        stored.add_flag("S")
        box[key] = stored


def entries(path: str) -> Iterator[tuple[str, str, str]]:
    """(key, subdir, flags) of each message of a Maildir, read from the file names alone: a box that
    grows all game long is not parsed whole for each message taken from it."""
    for sub in ("new", "cur"):
        for name in os.listdir(os.path.join(path, sub)):
            if name.startswith("."):
                continue
            key, _, info = name.partition(":")  # Maildir's "KEY:2,FLAGS"
            yield key, sub, info[2:] if info.startswith("2,") else ""


_KEY = re.compile(r"(\d+)\.M(\d+)P\d+Q(\d+)")


def arrival(key: str) -> tuple[int, int, int, str]:
    """The order messages arrived in, from Python's Maildir names (seconds, microseconds not
    zero-padded, a counter); other names after, by name."""
    m = _KEY.match(key)
    return (int(m[1]), int(m[2]), int(m[3]), key) if m else (2 ** 62, 0, 0, key)


def apply_block(store: Store, text: str) -> Outcome:
    """One block applied whole through game.submit_signed (orders, or the player's own `undo`,
    `consent N`, `standing ORDER` lines), or refused with its reason (nothing written)."""
    try:
        block = signing.parse_block(text, "the block")
    except MareNostrumError as err:
        return Outcome(applied=False, message=err.message, code=err.exit_code)
    base = Outcome(applied=False, message="", game=block.game, side=block.side, orders=block.orders)
    try:
        rows = game.submit_signed(store, game.current(store, block.game), block)[1]
    except MareNostrumError as err:
        return msgspec.structs.replace(base, message=err.message, code=err.exit_code,
                                       rule=err.section if isinstance(err, RuleViolation) else "")
    rows += game.advance(store, block.game)  # forced answers and standing orders, as mn order does
    after = game.current(store, block.game)
    ruleset, opened = after.ruleset, after.meta.secret is not None
    events = tuple(f"{r.seq:>5}  {_mark(r.actor)}"
                   f"{redaction.describe(ruleset, ruleset.decode_event(r.payload), block.side, opened)}"
                   for r in rows)
    return msgspec.structs.replace(base, applied=True, events=events, seq=after.head[0],
                                   head=after.head[1], note=_undo_note(store, block, rows))


def _undo_note(store: Store, block: SignedOrders, rows: list[Row]) -> str:
    """For an undo that was recorded as a request (K2): whose consent it waits for, and how to give it."""
    if pbem.act_kind(block.orders) != "UndoBatch" or any(r.type in UNDO_TYPES for r in rows):
        return ""
    loaded = game.load(store, block.game)
    ruleset = loaded.ruleset
    log = pbem.Log(rows=loaded.rows, events=loaded.events)
    batch = pbem.last_batch(ruleset, loaded.rows, block.side)
    _, needed = pbem.undo_needs(ruleset, log, block.side, batch)
    missing = [s for s in needed if s not in pbem.consents_of(loaded.rows, batch)]
    return (f"the undo of the batch of event {batch} waits for the consent of "
            f"{', '.join(ruleset.side_name(s) for s in missing)} (ruling K2): each sends a signed "
            f"block 'consent {batch}'" if missing else "")


def _mark(actor: str) -> str:
    """An act the service took for a side, marked as mn log marks it: [forced], [standing], [deadline]."""
    return f"[{actor}] " if actor in SERVICE_ACTORS else ""


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
