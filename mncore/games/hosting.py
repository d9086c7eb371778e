"""Hosting many games: each game's summary for the dashboard, copying games between stores, and the
upgrade check that decides every stored game again under the installed engine."""

from __future__ import annotations

import json
from collections.abc import Iterator

import msgspec

from mncore.audits.verify import Divergence, first_divergence
from mncore.core.errors import IntegrityFailure, InvalidCommand, MareNostrumError, StoreError
from mncore.core.kernel_state import players_now
from mncore.games import by_mail, lifecycle, reading, transfer
from mncore.pbem import turns
from mncore.rulesets import registry
from mncore.store import GameRow, Store


class Summary(msgspec.Struct, frozen=True, kw_only=True):
    """A game as the host's dashboard shows it (`mn games`)."""

    id: str
    events: int
    created_at: str
    head_hash: str
    ruleset: str = ""  # the ruleset's short name ("" when the game cannot be read)
    round: int = 0
    over: bool = False
    result: str = ""  # who won and how, once over
    waiting_on: list[str] = []  # the sides a decision is pending from
    players: dict[str, str] = {}  # side -> who holds its seat now (K14), as kernel_state.players_now names it
    problem: str = ""  # why the game cannot be read by this engine ("" when it can)
    due: dict[str, str] = {}  # side -> the deadline of its pending decision, where a pace is set (K4)


def summaries(store: Store) -> Iterator[Summary]:
    """Every game with its state at its head, each folded from its last snapshot (reading.current); a game
    this engine cannot read is listed with the reason, not left out."""
    for row in store.games():
        yield summary(store, row)


def summary(store: Store, row: GameRow) -> Summary:
    listed = Summary(id=row.id, events=row.events, created_at=row.created_at, head_hash=row.head_hash)
    try:
        cur = reading.current(store, row.id)
    except MareNostrumError as err:
        return msgspec.structs.replace(listed, problem=err.message)
    meta = cur.meta
    waiting = list(dict.fromkeys(p.empire for p in cur.ruleset.pending(cur.state)))
    # only a game that set a pace has deadlines; reading them folds back from the head, so others skip it
    due = ({w.side: w.due for w in by_mail.waiting(store, row.id, cur).values() if w.due is not None}
           if cur.ledger.pbem and not meta.over else {})
    return msgspec.structs.replace(listed, ruleset=cur.ruleset.short, round=meta.round, over=meta.over,
                                   result=meta.result, waiting_on=[] if meta.over else waiting,
                                   players=players_now(cur.kernel.email, meta.players), due=due)


def waits_on(s: Summary, who: str) -> bool:
    """Whether a decision is pending from `who`: a side's id or a player's name (any case)."""
    key = who.casefold()
    return any(side.casefold() == key or s.players.get(side, "").casefold() == key for side in s.waiting_on)


def overdue(s: Summary, now: str) -> list[str]:
    """The sides whose deadline has passed at `now` (an ISO 8601 UTC time), as the game waits for them."""
    return [side for side, due in s.due.items() if turns.is_past(due, now)]


def plays(s: Summary, name: str) -> bool:
    return any(p.casefold() == name.casefold() for p in s.players.values())


# --- copying -----------------------------------------------------------------------------------------------

class Copied(msgspec.Struct, frozen=True, kw_only=True):
    """One game of `mn copy-db`: copied (or already there, the same), with what was checked."""

    id: str
    events: int
    outcome: str  # "copied" or "already there"
    export_sha256: str  # of the export, the same from both stores


def copy_game(source: Store, target: Store, row: GameRow) -> Copied:
    """Copy one game whole (rows, salts, secret, log format) and check it: the source verifies first,
    the copy verifies, and the export from each store is byte-identical. A game already in the target
    is left alone if its export is the same; otherwise StoreError."""
    import hashlib

    report = lifecycle.verify_game(source, row.id)
    if not report.ok:
        raise IntegrityFailure(report.first_bad or 0, f"game {row.id} in {source.path} does not verify "
                                                      f"({report.reason}); not copied")
    exported = _export(source, row.id)
    outcome = "copied"
    if target.has_game(row.id):
        if _export(target, row.id) != exported:
            raise StoreError(f"a different game '{row.id}' already exists in {target.path}; nothing "
                             "more was copied")
        outcome = "already there"
    else:
        target.import_rows(row.id, row.created_at, source.rows(row.id), source.log_version(row.id),
                           source.secret(row.id) or None)
    copy = lifecycle.verify_game(target, row.id)
    if not copy.ok or _export(target, row.id) != exported:
        raise IntegrityFailure(copy.first_bad or 0, f"the copy of game {row.id} in {target.path} is not "
                                                    f"the original ({copy.reason or 'its export differs'})")
    return Copied(id=row.id, events=row.events, outcome=outcome,
                  export_sha256=hashlib.sha256(exported).hexdigest())


def _export(store: Store, game_id: str) -> bytes:
    return b"".join(line + b"\n" for line in transfer.export_lines(reading.load(store, game_id)))


# --- the upgrade check -------------------------------------------------------------------------------------

class Checked(msgspec.Struct, frozen=True, kw_only=True):
    """One game under the installed engine: the same, where it would first differ and why, or served
    by the older ruleset version it was created with."""

    id: str
    events: int
    verdict: str  # "same", "differs", "older" or "unreadable"
    ruleset: str  # the ruleset id its first event records
    created_version: int | None
    installed_version: int | None
    seq: int | None = None  # the first event that would differ
    event_type: str | None = None  # its stored type
    why: str = ""  # "refused", "another event", "a new field: ...", ...
    section: str | None = None  # the rule or ruling a refusal cites
    reason: str = ""  # the whole sentence


def check_game(store: Store, row: GameRow) -> Checked:
    """Replay and decide the game again with the host's secret (so that every draw is checked too)."""
    rows = store.rows(row.id)
    rid, created = _created_under(rows[0].payload if rows else "")
    base = Checked(id=row.id, events=len(rows), verdict="same", ruleset=rid, created_version=created,
                   installed_version=None)
    try:
        installed = registry.get(rid).version
    except InvalidCommand as err:
        return msgspec.structs.replace(base, verdict="unreadable", reason=err.message)
    base = msgspec.structs.replace(base, installed_version=installed)
    if created is not None and created < installed:
        return msgspec.structs.replace(base, verdict="older", reason=(
            f"created under {rid} version {created}; the installed engine plays version {installed}, "
            f"so a game stays with the engine it was created with: keep an mn with version {created} "
            "to serve it"))
    try:
        secret = store.secret(row.id)
        failure = first_divergence(rows, store.log_version(row.id), bytes.fromhex(secret) if secret else None)
    except MareNostrumError as err:
        return msgspec.structs.replace(base, verdict="unreadable", reason=err.message)
    if failure is None:
        return base
    stored = next((r.type for r in rows if r.seq == failure.seq), None)
    if isinstance(failure, Divergence):
        return msgspec.structs.replace(base, verdict="differs", seq=failure.seq, event_type=stored,
                                       why=failure.difference, section=failure.section, reason=failure.reason)
    return msgspec.structs.replace(base, verdict="unreadable", seq=failure.seq, event_type=stored,
                                   reason=failure.reason)


def _created_under(first_payload: str) -> tuple[str, int | None]:
    """The ruleset id and version a log's first event records (its JSON alone: an unknown or other
    version is still named)."""
    try:
        head = json.loads(first_payload)
    except (ValueError, RecursionError):
        return "", None
    if not isinstance(head, dict):
        return "", None
    version = head.get("ruleset_version")
    return str(head.get("ruleset_id", "")), version if isinstance(version, int) else None
