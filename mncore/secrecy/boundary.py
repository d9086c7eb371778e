"""The one redaction boundary: every output made for one side passes here, hidden fields withheld."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from mncore.core import chain
from mncore.core.chain import COMMAND, LOG_V1, PAYLOAD, split_field
from mncore.core.errors import InvalidCommand
from mncore.core.kernel_acts import (
    BotOrders,
    DefaultOrders,
    ForcedOrders,
    OrderBatch,
    OrdersQueued,
    QueuedOrder,
    SetStandingOrders,
    SignedOrders,
    StandingOrder,
    StandingOrdersSet,
)
from mncore.core.protocol import Hidden, Meta, Option, Ruleset
from mncore.secrecy.seen import _MINT, Seen
from mncore.secrecy.withholding import withhold
from mncore.store import Row

MASK = "(withheld)"  # an order line others read in place of a side's own
WITHHELD: dict[str, Any] = {"hidden": True}  # a hidden value in an output no row's salt commits
NONCE = "command/nonce"  # a signed block's nonce: its side's (a block recorded before, without its salt: bare)


class SideRow(msgspec.Struct, frozen=True, kw_only=True):
    """A row as one side may read it: each field hidden from it replaced by {"commit": hex}.

    `salts` opens the hidden fields it may see (their plain values are in payload and command);
    `withheld` names the fields it may not, whose commitments stand in their place.
    """

    seq: int
    type: str
    actor: str
    recorded_at: str
    batch: int
    command: str | None
    payload: str
    hash: str
    salts: dict[str, str] = {}
    withheld: dict[str, str] = {}  # field -> its commitment


# --- what is hidden, and the salts that commit it ---------------------------------------------------

# the commands that carry a side's order lines; a tuple made once (a union written in place is built
# again at each call, and verify asks of every row)
_LINES_OF_A_SIDE = (SignedOrders, OrderBatch, DefaultOrders, ForcedOrders, SetStandingOrders, BotOrders)
_ONE_LINE_OF_A_SIDE = (StandingOrder, QueuedOrder)


def declared(ruleset: Ruleset, event: Any, command: Any | None) -> list[Hidden]:
    """The hidden fields of a recorded event (payload/...) and of the command on its row (command/...):
    what the log commits."""
    out = recorded(ruleset, event)
    if command is None:  # every row but a batch's first
        return out
    if isinstance(command, _LINES_OF_A_SIDE):
        # a block or batch carries its side's order lines (an offer's tokens among them) as text: the
        # whole list is its side's until the secret is out; a signature stays public
        out.append(Hidden(field="command/orders", visible_to=(command.side,)))
        if isinstance(command, SignedOrders):
            # its signature covers the lines and the nonce: with the nonce public, a script would check
            # the (public) signature against candidate lines; 128 withheld random bits forbid it
            out.append(Hidden(field=NONCE, visible_to=(command.side,)))
    elif isinstance(command, _ONE_LINE_OF_A_SIDE):
        out.append(Hidden(field="command/order", visible_to=(command.side,)))
    else:
        out += ruleset.hidden_command(command)
    return out


def recorded(ruleset: Ruleset, event: Any) -> list[Hidden]:
    """The hidden fields of an event's payload once it is in the log: the ruleset's (not those it turns
    face up, public once recorded) and the kernel's own events'."""
    fields = _event_fields(ruleset, event)
    return [h for h in fields if not h.revealed] if fields else []


def _event_fields(ruleset: Ruleset, event: Any) -> list[Hidden]:
    """Every hidden field declared of an event's payload, those it turns face up included."""
    if isinstance(event, StandingOrdersSet):  # a side's plans are its own; that it has some is public
        return [Hidden(field="payload/orders", visible_to=(event.side,), public=_masked(event.orders))]
    if isinstance(event, OrdersQueued):  # so are its queued orders, and why they were dropped (K9)
        return [Hidden(field=f"payload/{f}", visible_to=(event.side,), public=_masked(getattr(event, f)))
                for f in ("orders", "dropped", "reason")]
    return ruleset.hidden(event)


def _masked(lines: tuple[str, ...] | str) -> tuple[str, ...] | None:
    """What others read in place of a side's order lines: that there are some, not what they say."""
    return (MASK,) if lines and not isinstance(lines, str) else None


def row_hidden(ruleset: Ruleset, row: Row) -> list[Hidden]:
    command = ruleset.decode_command(row.command) if row.command is not None else None
    return committed(declared(ruleset, ruleset.decode_event(row.payload), command), row.salts)


def committed(hidden: list[Hidden], salts: dict[str, str]) -> list[Hidden]:
    """The declared fields a recorded row commits: a signed block recorded before its nonce was
    withheld has no salt for it, and keeps it bare and public, as its hash covers it."""
    return [h for h in hidden if h.field != NONCE or h.field in salts]


def salts_for(ruleset: Ruleset, secret: bytes | None, seq: int, event: Any,
              command: Any | None) -> dict[str, str]:
    """The salts of the hidden fields of event seq: from the secret, so that `mn reveal` opens them.

    A database without the secret (an imported game) salts at random and keeps the salts.
    """
    hidden = declared(ruleset, event, command)
    if not hidden:  # most events
        return {}
    if secret is not None:
        return {h.field: chain.salt(secret, seq, h.field) for h in hidden}
    import secrets as pysecrets  # only where an imported game's event is written: a lean start

    return {h.field: pysecrets.token_hex(32) for h in hidden}


def may_see(hidden: Hidden, viewer: str | None, opened: bool) -> bool:
    """The host (None) sees everything; a side what the field shows it; everyone once the secret is out."""
    return viewer is None or opened or viewer in hidden.visible_to


# --- rows as a side reads them (log, export, dispute) -------------------------------------------------

def side_row(ruleset: Ruleset, row: Row, viewer: str | None, opened: bool, version: int) -> SideRow:
    """The row as viewer may read it; the host's copy carries every salt."""
    hidden = row_hidden(ruleset, row)
    shut = [h.field for h in hidden if not may_see(h, viewer, opened)]
    if shut and version == LOG_V1:
        raise InvalidCommand("this game's log is in format 1, which hashes hidden values bare: "
                             "an output made for one side cannot carry its hashes")
    if any(h.field not in row.salts for h in hidden) and version != LOG_V1:
        raise InvalidCommand(f"event {row.seq} has hidden fields without salts: verify the game")
    commitments = {f: chain.commit(row.salts[f], _value(row, f)) for f in shut}
    return SideRow(
        seq=row.seq, type=row.type, actor=row.actor, recorded_at=row.recorded_at, batch=row.batch,
        command=chain.withheld(row.command, COMMAND, commitments),
        payload=chain.withheld(row.payload, PAYLOAD, commitments) or row.payload, hash=row.hash,
        salts={h.field: row.salts[h.field] for h in hidden if h.field not in shut and h.field in row.salts},
        withheld=commitments)


def _value(row: Row, field: str) -> Any:
    root, parts = split_field(field)
    text = row.payload if root == PAYLOAD else row.command
    return chain.get_path(msgspec.json.decode(text or "null"), parts)


def visible_command(ruleset: Ruleset, row: Row, viewer: str | None, opened: bool) -> str | None:
    """The row's command if viewer may read all of it, else None (an offer's tokens are hidden)."""
    if row.command is None:
        return None
    hidden = [h for h in declared(ruleset, ruleset.decode_event(row.payload),
                                  ruleset.decode_command(row.command)) if h.field.startswith("command/")]
    return row.command if all(may_see(h, viewer, opened) for h in hidden) else None


def rows_for(ruleset: Ruleset, rows: Sequence[Row], viewer: str | None, opened: bool) -> list[Row]:
    """Rows for a ruleset's own readers (explain): commands viewer may not read whole left out."""
    if viewer is None or opened:
        return list(rows)
    return [msgspec.structs.replace(r, command=visible_command(ruleset, r, viewer, opened), salts={})
            for r in rows]


# --- events as a side reads them (log --json, check --json) ------------------------------------------

def event_doc(ruleset: Ruleset, event: Any, viewer: str | None, opened: bool,
              commitments: dict[str, str] | None = None) -> Any:
    """A recorded event's JSON as viewer may read it: hidden fields become their commitment (a
    format-1 log, which has none: {"hidden": true})."""
    return _doc(ruleset, event, _shut(recorded(ruleset, event), viewer, opened), commitments or {})


def _shut(hidden: Sequence[Hidden], viewer: str | None, opened: bool) -> list[str]:
    return [h.field for h in hidden if not may_see(h, viewer, opened)]


def _doc(ruleset: Ruleset, event: Any, shut: Sequence[str], commitments: dict[str, str]) -> Any:
    doc = msgspec.json.decode(ruleset.encode_event(event))
    for field in shut:
        hex_ = commitments.get(field)
        chain.set_path(doc, split_field(field)[1], {chain.COMMIT_KEY: hex_} if hex_ else dict(WITHHELD))
    return doc


# --- events an order not given would cause (mn check) ------------------------------------------------

UNSHOWN = "what it would turn face up of others' hidden facts is not shown"


class Hypothetical(msgspec.Struct, frozen=True, kw_only=True):
    """One event a hypothetical order would cause, as the side asking may read it."""

    type: str
    event: Any  # its JSON, each field hidden from the side {"hidden": true}
    text: str
    withheld: tuple[str, ...] = ()  # the fields withheld (payload/...)


def hypothetical(ruleset: Ruleset, events: Sequence[Any], viewer: str, opened: bool) -> list[Hypothetical]:
    """Events an order not given would cause, as viewer may read them: besides the fields hidden once
    recorded, what they would turn face up of facts viewer may not know now (the others' offers) is
    withheld, so that the answer is the same whatever those facts are."""
    out = []
    for event in events:
        shut = [h for h in _event_fields(ruleset, event) if not may_see(h, viewer, opened)]
        text = ruleset.describe(Seen(withhold(event, shut), viewer,
                                     frozenset(h.field for h in shut), _MINT))
        if any(h.revealed for h in shut):
            text = f"{text.removesuffix('.')} ({UNSHOWN})" + ("." if text.endswith(".") else "")
        fields = [h.field for h in shut]
        out.append(Hypothetical(type=ruleset.event_type_of(event), event=_doc(ruleset, event, fields, {}),
                                text=text, withheld=tuple(fields)))
    return out


def seen_event(ruleset: Ruleset, event: Any, viewer: str | None, opened: bool) -> Seen[Any]:
    """A recorded event as viewer may see it: each field its declaration hides from viewer withheld
    (read as the declared public part, else empty). Every sentence made for a side is made of one."""
    viewer = None if opened else viewer
    shut = [h for h in recorded(ruleset, event) if not may_see(h, viewer, opened)]
    return Seen(withhold(event, shut) if shut else event, viewer, frozenset(h.field for h in shut),
                _MINT)


def describe(ruleset: Ruleset, event: Any, viewer: str | None, opened: bool) -> str:
    """The event's sentence for viewer, made from the event as viewer may see it."""
    return ruleset.describe(seen_event(ruleset, event, viewer, opened))


def options(ruleset: Ruleset, state: Any, side: str) -> list[Option]:
    """What side may order now; options are always made for the side asking (never the host's view)."""
    return ruleset.options(state, side)


def seen_state(ruleset: Ruleset, state: Any, viewer: str | None) -> Seen[Any]:
    """A state as viewer may see it (None: the host, or anyone once the secret is out): each field the
    ruleset's declaration (`hidden_state`) hides from viewer withheld. Every view, picture and position
    made for a side is made of one."""
    shut = [h for h in ruleset.hidden_state(state) if not may_see(h, viewer, False)]
    return Seen(withhold(state, shut) if shut else state, viewer, frozenset(h.field for h in shut), _MINT)


def as_host(value: Any) -> Seen[Any]:
    """A value as the host sees it (or anyone once the secret is out): nothing withheld."""
    return Seen(value, None, frozenset(), _MINT)


def view(ruleset: Ruleset, state: Any, viewer: str | None) -> dict[str, Any]:
    """The state as viewer may see it (show, replay, status --json)."""
    out: dict[str, Any] = ruleset.view(seen_state(ruleset, state, viewer))
    return out


def log_doc(ruleset: Ruleset, row: Row, viewer: str | None, opened: bool, version: int) -> dict[str, Any]:
    """One event of `mn log --json` as viewer may read it: the hash beside the committed payload.

    A format-1 log hashed hidden values bare, so an output made for one side carries no hash.
    """
    event = ruleset.decode_event(row.payload)
    withheld: dict[str, str] = {}
    if viewer is None or opened:
        doc = msgspec.json.decode(row.payload)
    elif version == LOG_V1:
        doc = event_doc(ruleset, event, viewer, opened)
    else:
        side = side_row(ruleset, row, viewer, opened, version)
        doc, withheld = msgspec.json.decode(side.payload), side.withheld
    out: dict[str, Any] = {"seq": row.seq, "type": row.type, "actor": row.actor,
                           "recorded_at": row.recorded_at, "event": doc,
                           "text": describe(ruleset, event, viewer, opened)}
    if version != LOG_V1 or viewer is None or opened:
        out["hash"] = row.hash
    if withheld:
        out["withheld"] = withheld
    return out


def explain(audits: Any, rows: Sequence[Row], seq: int, viewer: str | None, opened: bool) -> Any:
    """mn explain's answer for viewer (an `Audits` ruleset's): made from the rows it may read, each
    event in it as it may see it."""
    viewer = None if opened else viewer
    return audits.explain(rows_for(audits, rows, viewer, opened), seq,
                          lambda event: seen_event(audits, event, viewer, opened))


def viewer_of(meta: Meta, viewer: str | None) -> str | None:
    """The viewer an output is made for: nobody's hidden fields stay hidden once the secret is out."""
    return None if meta.secret is not None else viewer


def diff_views(ruleset: Ruleset, a: Any, b: Any, viewer: str) -> list[dict[str, Any]]:
    """What differs between two states as viewer sees them (mn diff --as): its views, path by path."""
    out: list[dict[str, Any]] = []
    _diff(view(ruleset, a, viewer), view(ruleset, b, viewer), [], out)
    return out


def _diff(a: Any, b: Any, path: list[str], out: list[dict[str, Any]]) -> None:
    if isinstance(a, dict) and isinstance(b, dict):
        for k in list(a) + [k for k in b if k not in a]:
            _diff(a.get(k), b.get(k), [*path, str(k)], out)
        return
    if a != b:
        where = "/".join(path)
        out.append({"path": where, "before": a, "after": b,
                    "text": f"{where}: {msgspec.json.encode(a).decode()} -> {msgspec.json.encode(b).decode()}"})
