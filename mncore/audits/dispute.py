"""Dispute bundles: one JSON file proving what the log says up to an event, and why it happened."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import msgspec
from msgspec.structs import replace

import mncore
from mncore.audits.sealing import chain_version
from mncore.audits.verify import Head, verify_rows, verify_side_rows
from mncore.core.bounds import MAX_NUMBER, number_text
from mncore.core.chain import VERSIONS, link
from mncore.core.dice import commitment
from mncore.core.errors import InvalidCommand, MareNostrumError
from mncore.core.kernel_acts import RevealSecret, SecretRevealed
from mncore.core.kernel_state import secret_of
from mncore.core.protocol import HOST, Audits, Ruleset
from mncore.core.rulebook import Cited
from mncore.games import reading
from mncore.games.log_reading import fold, ruleset_of
from mncore.games.transfer import ExportLine, export_line
from mncore.pbem import turns
from mncore.secrecy import boundary
from mncore.store import Row

FORMAT = "mare-nostrum/dispute"
_ENCODER = msgspec.json.Encoder(order="deterministic")


class Bundle(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A dispute bundle (docs/disputes.md); `digest` is SHA-256 of the bundle with digest = ""."""

    format: str
    version: int  # the log format of `log`
    game: str
    at: int  # the event disputed
    engine_version: str  # the engine that made the bundle
    ruleset: str  # id@version, as in the game's first event
    commitment: str  # of the game's random secret (event 1)
    secret: str | None = None  # the secret, if the game's log has revealed it
    head_hash: str  # the chain hash of the last event included
    log: list[ExportLine]  # events 1 to the end of the batch holding `at`, as export lines
    rulings: list[Cited]  # the rulings in force when the bundle was made
    before: dict[str, Any] | None  # the position before event `at` (None before event 1)
    after: dict[str, Any]  # the position after event `at`
    explanation: msgspec.Raw  # the ruleset's explanation of event `at` (mn explain --json)
    also_format: str  # FORMAT again: no single changed byte can make a bundle look like another file
    digest: str
    made_for: str | None = None  # a bundle made for one side: hidden fields withheld, its view only


class BundleCheck(msgspec.Struct, kw_only=True):
    """What verifying a bundle found: ok or what fails, and what it proves."""

    ok: bool
    at: int = 0
    failed: str | None = None
    proven: list[str] = []
    notes: list[str] = []


def is_bundle(data: bytes) -> bool:
    """Whether a file is (or was, before damage) a dispute bundle rather than an export."""
    return FORMAT.encode() in data


def make_bundle(game_id: str, rows: Sequence[Row], at: int, version: int,
                viewer: str | None = None) -> bytes:
    """The bundle for event `at` of a game whose whole log is rows (with its secret, if revealed).

    For a viewer, every part passes the redaction boundary: the log as its export, the positions
    and the explanation as it may see them.
    """
    if not 1 <= at <= len(rows):
        raise InvalidCommand(f"--at {at}: game {game_id} has events 1 to {len(rows)}")
    end = _batch_end(rows, at)
    kept = list(rows[:end])
    ruleset = _audits(ruleset_of(kept[0].payload, f"game {game_id}"))
    meta = replace(ruleset.meta(turns.fold_live(ruleset, rows, [ruleset.decode_event(r.payload) for r in rows])),
                   secret=secret_of(rows))  # the kernel's (KernelState.secret)
    opened = meta.secret is not None
    if opened:
        viewer = None  # the secret is out: nothing is hidden any more
    before, after = _positions(ruleset, kept, at, viewer)
    bundle = Bundle(
        format=FORMAT, version=version, game=game_id, at=at, engine_version=mncore.__version__,
        ruleset=f"{meta.ruleset_id}@{meta.ruleset_version}", commitment=meta.commitment,
        secret=meta.secret, head_hash=kept[-1].hash,
        log=[export_line(ruleset, r, viewer, opened, version) for r in kept],
        rulings=[Cited(id=r.id, title=r.title, decision=r.decision)
                 for r in ruleset.rulebook.rulings.values()],
        before=before, after=after, explanation=_explanation(ruleset, kept, at, viewer),
        also_format=FORMAT, digest="", made_for=viewer)
    return _encode(replace(bundle, digest=_digest(bundle)))


def _batch_end(rows: Sequence[Row], at: int) -> int:
    """The number of rows up to the end of the batch holding event `at` (a batch is re-decided whole)."""
    end = at
    while end < len(rows) and rows[end].batch == rows[at - 1].batch:
        end += 1
    return end


def _audits(ruleset: Ruleset) -> Any:
    if not isinstance(ruleset, Audits):
        raise InvalidCommand(f"{ruleset.name} offers no positions or explanations: no dispute bundle")
    return ruleset


def _explanation(ruleset: Any, rows: Sequence[Row], at: int, viewer: str | None = None) -> msgspec.Raw:
    return msgspec.Raw(_ENCODER.encode(boundary.explain(ruleset, rows, at, viewer, False)))


def _positions(ruleset: Any, rows: Sequence[Row], at: int, viewer: str | None = None
               ) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    events = [ruleset.decode_event(r.payload) for r in rows[:at]]
    folded = [ruleset.initial(""), *turns.states(ruleset, rows[:at], events)]  # an undo steps back (K1)
    before, after = folded[-2], folded[-1]
    return (_doc(ruleset, before, viewer) if at > 1 else None), _doc(ruleset, after, viewer)


def _doc(ruleset: Any, state: Any, viewer: str | None) -> dict[str, Any]:
    out: dict[str, Any] = msgspec.to_builtins(ruleset.position_doc(boundary.seen_state(ruleset, state, viewer)), order="deterministic")
    return out


def _encode(bundle: Bundle) -> bytes:
    return _ENCODER.encode(bundle) + b"\n"


def _digest(bundle: Bundle) -> str:
    return hashlib.sha256(_encode(replace(bundle, digest=""))).hexdigest()


# --- verification ----------------------------------------------------------------------------------

class _Failed(Exception):
    pass


def verify_bundle(data: bytes, held: str | None = None) -> BundleCheck:
    """Check a bundle: its bytes and digest, the log's chain and re-decision, and every derived part.

    `held` is a head hash the checker kept (published by the host when the bundle was made, or an
    earlier one): it must be in the bundle's log, so a bundle whose log was rewritten, digest and all,
    is caught by anyone holding a head.
    """
    try:
        bundle = _decode(data)
        _check_fields(bundle)
        if _digest(bundle) != bundle.digest:
            raise _Failed(f"the digest does not match the bundle: one of {', '.join(sealed_fields())}, "
                          "which the log cannot vouch for, was edited")
        proven = _check(bundle)
        if held is not None:
            if held not in {line.hash for line in bundle.log}:
                raise _Failed(f"the head you hold, {held[:16]}, is not in the bundle's log: it was "
                              "rewritten, or the head is later than the disputed event")
            proven.append(f"its log holds the head you hold ({held[:16]})")
    except _Failed as err:
        return BundleCheck(ok=False, failed=str(err))
    except (MareNostrumError, msgspec.MsgspecError, ValueError, KeyError, IndexError, TypeError,
            RecursionError) as err:
        # only a forger who recomputed the digest gets here: the contents do not make sense
        return BundleCheck(ok=False, failed=f"the bundle's contents do not hold together ({err})")
    notes = _ruling_notes(bundle)
    if bundle.engine_version != mncore.__version__:
        notes.append(f"made by engine {bundle.engine_version}, checked by {mncore.__version__}")
    return BundleCheck(ok=True, at=bundle.at, proven=proven, notes=notes)


def _decode(data: bytes) -> Bundle:
    try:
        bundle = msgspec.json.decode(data, type=Bundle)
    except (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError, RecursionError) as err:
        raise _Failed(f"not a readable dispute bundle ({err})") from None
    if not 1 <= bundle.at <= MAX_NUMBER:
        raise _Failed(f"at: {number_text(bundle.at)} is not an event number (1 to {MAX_NUMBER:,})")
    if _encode(bundle) != data:
        raise _Failed("the file is not byte for byte the bundle it decodes to (edited or re-encoded)")
    return bundle


# the parts recomputed from the log whole (_check); every other field is the bundle's header
EVIDENCE = ("log", "before", "after", "explanation")
# the header fields checked against the log one by one (_check_fields); the digest alone covers the rest
VOUCHED = ("format", "also_format", "version", "at", "ruleset", "commitment", "secret", "head_hash")


def sealed_fields() -> list[str]:
    """The header fields the log cannot vouch for, which only the digest covers (and the digest)."""
    return [f for f in Bundle.__struct_fields__ if f not in EVIDENCE and f not in VOUCHED]


def _check_fields(bundle: Bundle) -> None:
    """Each header field the log vouches for, against the log: _Failed naming the first edited one."""
    rows = [_row(line) for line in bundle.log]
    if not rows:
        raise _Failed("the log is empty")
    first = msgspec.json.decode(rows[0].payload)
    for field, problem in (("format", _named_format(bundle.format)),
                           ("also_format", _named_format(bundle.also_format)),
                           ("version", _version(bundle, rows)), ("head_hash", _head(bundle, rows)),
                           ("at", _at(bundle, rows)), ("ruleset", _ruleset(bundle, first)),
                           ("commitment", _commitment(bundle, first)), ("secret", _secret(bundle)),
                           ("made_for", _made_for(bundle))):
        if problem is not None:
            raise _Failed(f"its {field} {problem}")


def _named_format(value: str) -> str | None:
    return None if value == FORMAT else f"is '{value}', not {FORMAT} (edited)"


def _version(bundle: Bundle, rows: list[Row]) -> str | None:
    found = chain_version(rows)
    if found == bundle.version or (found is None and bundle.version in VERSIONS):
        return None  # no format matches event 1: the chain check names it
    if found is None:
        return f"v{bundle.version} is not a log format this mn knows (v{' or v'.join(map(str, VERSIONS))})"
    return f"says log format v{bundle.version}, but the log's chain is in format v{found} (edited)"


def _head(bundle: Bundle, rows: list[Row]) -> str | None:
    if rows[-1].hash == bundle.head_hash:
        return None
    return f"{bundle.head_hash[:16]} is not the hash of the log's last event ({rows[-1].hash[:16]})"


def _at(bundle: Bundle, rows: list[Row]) -> str | None:
    if bundle.at > len(rows) or _batch_end(rows, bundle.at) != len(rows):
        return f"says event {bundle.at}, but the log ends with the batch of event {rows[-1].batch}"
    explained = msgspec.json.decode(bundle.explanation)
    if not isinstance(explained, dict) or explained.get("seq") != bundle.at:
        return f"says event {bundle.at}, but the explanation is of another event"
    return None


def _ruleset(bundle: Bundle, first: Any) -> str | None:
    recorded = f"{first.get('ruleset_id')}@{first.get('ruleset_version')}" if isinstance(first, dict) else "?"
    return None if bundle.ruleset == recorded else f"says {bundle.ruleset}, but the log's first event records {recorded}"


def _commitment(bundle: Bundle, first: Any) -> str | None:
    recorded = first.get("commitment") if isinstance(first, dict) else None
    return None if bundle.commitment == recorded else "is not the one in the log's first event"


def _secret(bundle: Bundle) -> str | None:
    if bundle.secret is None:
        return None
    try:
        if commitment(bytes.fromhex(bundle.secret)) == bundle.commitment:
            return None
    except ValueError:
        pass
    return "does not match the commitment of the log's first event"


def _made_for(bundle: Bundle) -> str | None:
    if bundle.made_for is None and any(line.withheld for line in bundle.log):
        return "names no side, but the log withholds hidden fields"
    if bundle.made_for is not None and bundle.secret is not None:
        return f"names {bundle.made_for}, but the secret is out: a bundle then withholds nothing"
    return None


def _check(bundle: Bundle) -> list[str]:
    rows = [_row(line) for line in bundle.log]
    if bundle.made_for is not None:
        return _check_side(bundle, rows)
    if not rows or bundle.at > len(rows) or rows[-1].hash != bundle.head_hash:
        raise _Failed("the log does not reach the disputed event or end at the stated head hash")
    ruleset = _audits(ruleset_of(rows[0].payload, "the bundle's log"))
    first = ruleset.meta(fold(ruleset, [ruleset.decode_event(rows[0].payload)]))
    if first.commitment != bundle.commitment:
        raise _Failed("the commitment is not the one in the log's first event")
    if bundle.ruleset != f"{first.ruleset_id}@{first.ruleset_version}":
        raise _Failed(f"the ruleset {bundle.ruleset} is not the log's")
    checked_rows = _with_reveal(ruleset, rows, bundle.secret, bundle.version)
    report = verify_rows(checked_rows, bundle.version,
                         [Head(source="the bundle's head hash", hash=bundle.head_hash, seq=len(rows),
                               last=False)])
    if not report.ok:
        raise _Failed(f"the log fails verification at event {report.first_bad}: {report.reason}")
    before, after = _positions(ruleset, rows, bundle.at)
    for name, mine, theirs in (("state before the event", before, bundle.before),
                               ("state after the event", after, bundle.after),
                               ("explanation", bytes(_explanation(ruleset, rows, bundle.at)),
                                bytes(bundle.explanation))):
        if mine != theirs:
            raise _Failed(f"the {name} is not what the log gives")
    # the revealing event appended for the check is not the bundle's
    appended = len(checked_rows) - len(rows)
    return _proven(ruleset, bundle, report.commands_checked - appended, report.random_unchecked)


def _check_side(bundle: Bundle, rows: list[Row]) -> list[str]:
    """A bundle made for one side: its chain and what that side may see; the rest stays committed."""
    if not rows or bundle.at > len(rows) or rows[-1].hash != bundle.head_hash:
        raise _Failed("the log does not reach the disputed event or end at the stated head hash")
    withheld = {line.seq: line.withheld for line in bundle.log if line.withheld}
    report = verify_side_rows(rows, bundle.version, withheld,
                              [Head(source="the bundle's head hash", hash=bundle.head_hash,
                                    seq=len(rows), last=False)], bundle.made_for or "one side")
    if not report.ok:
        raise _Failed(f"the log fails verification at event {report.first_bad}: {report.reason}")
    return [f"the bundle is intact: its digest covers every byte (sha256 {bundle.digest[:16]})",
            *report.proven[:-1],
            f"{report.hidden - report.opened} hidden fields stay committed; the positions and the "
            f"explanation are {bundle.made_for}'s view, which only a full bundle recomputes"]


def _row(line: ExportLine) -> Row:
    command = bytes(line.command).decode()
    return Row(seq=line.seq, type=line.type, payload=bytes(line.payload).decode(),
               recorded_at=line.recorded_at, actor=line.actor, batch=line.batch, hash=line.hash,
               command=None if command == "null" else command, salts=line.salts)


def _with_reveal(ruleset: Ruleset, rows: list[Row], secret: str | None, version: int) -> list[Row]:
    """With the secret, a revealing event is appended so that verify_rows recomputes every draw."""
    if secret is None or any(r.type == "SecretRevealed" for r in rows):
        return rows
    try:
        bytes.fromhex(secret)
    except ValueError:
        raise _Failed("the secret is not hexadecimal") from None
    payload = ruleset.encode_event(SecretRevealed(secret=secret)).decode()
    seq, now = len(rows) + 1, reading.utc_now()
    command = ruleset.encode_command(RevealSecret(secret=secret)).decode()
    head = link(version, rows[-1].hash, seq=seq, type="SecretRevealed", actor=HOST, batch=seq,
                recorded_at=now, command=command, payload=payload)
    return [*rows, Row(seq=seq, type="SecretRevealed", payload=payload, recorded_at=now,
                       actor=HOST, batch=seq, hash=head, command=command)]


def _proven(ruleset: Ruleset, bundle: Bundle, checked: int, unchecked: int) -> list[str]:
    n = len(bundle.log)
    explained = msgspec.json.decode(bundle.explanation)
    out = [f"the bundle is intact: its digest covers every byte (sha256 {bundle.digest[:16]})",
           f"events 1 to {n} of game {bundle.game} form an intact hash chain ending in "
           f"{bundle.head_hash[:16]}, and replay under {bundle.ruleset}",
           f"{checked} commands decided again give exactly the stored events"]
    if bundle.secret is not None:
        out.append("the secret matches the commitment of event 1, and every random outcome recomputes")
    elif unchecked:
        out.append(f"{unchecked} commands drew at random; their outcomes cannot be checked without the "
                   "secret (mn reveal, then a new bundle)")
    out += [f"the positions before and after event {bundle.at} and its explanation are what the "
            "log gives",
            f"event {bundle.at} ({explained['type']}) was caused by "
            f"{_who(ruleset, explained['actor'])}: '{explained['command']}'"]
    return out


def _who(ruleset: Ruleset, actor: str) -> str:
    return "the host" if actor == HOST else ruleset.side_name(actor)


def _ruling_notes(bundle: Bundle) -> list[str]:
    ruleset = ruleset_of(bytes(bundle.log[0].payload).decode(), "the bundle's log")
    now = {r.id: r.decision for r in ruleset.rulebook.rulings.values()}
    changed = [c.id for c in bundle.rulings if now.get(c.id) != c.decision]
    return [f"rulings differing from this engine's register: {', '.join(changed)}"] if changed else []
