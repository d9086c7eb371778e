"""A game's mail policy: who is mailed what after each cycle (reports, notices, digests, reminders).

Every text and attachment a side is mailed is made by the report (mncore/pbem/report.py) and the export
for that side (transfer.export_lines), both through the redaction boundary; this module only chooses
whom to mail and when. Whether an event touches a side (kernel ruling K13) is read from the event as
the boundary lets that side see it (the ruleset's Notices, else its sentence naming the side), from
the service's acts for it, and from undos and corrections.
"""

from __future__ import annotations

import datetime as dt
import gzip
from collections.abc import Callable, Iterator
from email.message import EmailMessage

import msgspec

from mncore.core.actors import DEADLINE, is_service_actor
from mncore.core.kernel_acts import UNDO_TYPES
from mncore.core.kernel_state import undone_seqs
from mncore.core.protocol import Notices, Pictures
from mncore.games import reading, transfer
from mncore.pbem import report as reports
from mncore.pbem import turns
from mncore.pbem.mail import outbox
from mncore.secrecy import boundary
from mncore.service.config import Policy
from mncore.store.service_tables import Mark, NewMail

ANSWER = "answer:"  # the marks holding a side's answers waiting to go with its next mail, one a mark


class Answer(msgspec.Struct, frozen=True, kw_only=True):
    """The answer to a side's own mail whose blocks were all applied, held until the game's mails of
    this cycle are planned: it goes before the report the side is sent now, or alone."""

    key: str
    to: str
    subject: str
    text: str
    message: bytes
    in_reply_to: str = ""  # the Message-ID of the side's mail


def pending_answers(marks: dict[tuple[str, str], str], side: str) -> list[tuple[str, Answer]]:
    """The side's held answers by their marks' names, oldest first (a mark each: clearing those sent
    leaves alone one held meanwhile by another process)."""
    return [(name, msgspec.json.decode(value.encode(), type=Answer))
            for (s, name), value in sorted(marks.items()) if s == side and name.startswith(ANSWER) and value]


def held(game_id: str, side: str, answer: Answer, at: str) -> Mark:
    """The mark that holds an answer until the side's next mail."""
    return Mark(game_id, side, f"{ANSWER}{at}:{answer.key}", msgspec.json.encode(answer).decode())


KINDS = {"report": "report", "notice": "notice", "digest": "digest", "reminder": "reminder",
         "final": "final report"}


def touched(loaded: reading.Loaded, side: str, since: int) -> bool:
    """Whether an event after `since` touches side (touches)."""
    return next(touches(loaded, side, since), None) is not None


def touches(loaded: reading.Loaded, side: str, since: int) -> Iterator[tuple[int, bool]]:
    """The events after `since` that touch side (kernel ruling K13), each as (seq, whether side may
    answer it at once): the default the service took for it at its deadline, an undo or a correction
    (side may ask an undo, or consent to one); or another side's act that strikes it, as the ruleset
    says (Notices: attacked, a unit or a province lost), or else whose sentence, as side reads it,
    names side and not every side (an event naming every side is an announcement: the next report or
    digest carries it). What the service did for side itself (its forced, standing or queued orders)
    is its own act."""
    ruleset, name = loaded.ruleset, loaded.ruleset.side_name(side)
    everyone = [ruleset.side_name(s) for s in loaded.meta.sides]
    opened = loaded.meta.secret is not None
    gone = undone_seqs(loaded.kernel.email)
    acted_for: dict[int, str] = {}  # batch -> the side a service act was for
    for row, event in zip(loaded.rows[since:], loaded.events[since:], strict=True):
        if row.type in UNDO_TYPES:
            yield row.seq, True
            continue
        if is_service_actor(row.actor) and row.seq == row.batch:
            command = msgspec.json.decode(row.command) if row.command else {}
            acted_for[row.batch] = str(command.get("side", "")) if isinstance(command, dict) else ""
            if acted_for[row.batch] == side and row.actor == DEADLINE:
                yield row.seq, True
                continue
        if row.seq in gone or row.actor == side or acted_for.get(row.batch) == side:
            continue
        seen = boundary.seen_event(ruleset, event, side, opened)
        if isinstance(ruleset, Notices):
            if side in ruleset.struck(seen):
                yield row.seq, False
            continue
        text = ruleset.describe(seen)
        if name in text and not all(n in text for n in everyone):
            yield row.seq, False


def phases_before(loaded: reading.Loaded) -> list[str]:
    """The phase (its heading, with the round) each event happened in, by position: the phase of the
    state before it, so that the act that ends a phase belongs to that phase."""
    ruleset = loaded.ruleset
    gone = turns.undone_seqs(loaded.rows)
    state = ruleset.initial("")
    out: list[str] = []
    for row, event in zip(loaded.rows, loaded.events, strict=True):
        out.append(reports.phase_of(ruleset, state))
        if row.seq not in gone:
            state = ruleset.evolve(state, event)
    return out


def export_for(loaded: reading.Loaded, side: str, how: str, acked: int) -> bytes | None:
    """The side's export to attach: whole, or its header and the lines after the head it last
    acknowledged (a delta: merge_delta joins it to the export it keeps), or none."""
    if how == "none":
        return None
    lines = transfer.export_lines(loaded, side)
    if how == "delta":
        lines = [lines[0], *lines[1 + acked:]]
    return b"".join(line + b"\n" for line in lines)


def merge_delta(kept: bytes, delta: bytes) -> bytes:
    """A player's export brought up to date: the delta's header, the kept lines up to where the delta
    starts, then the delta's lines. The result verifies against the new head and the head kept."""
    old, new = kept.splitlines(), delta.splitlines()
    if not new:
        return kept
    first = msgspec.json.decode(new[1]).get("seq", 1) if len(new) > 1 else len(old)
    return b"".join(line + b"\n" for line in [new[0], *old[1:first], *new[1:]])


def _slim(msg: EmailMessage, packed: bool) -> None:
    """The JSON and export attachments as compact JSON, gzipped (NAME.gz, in base64: outbox.attachments
    unpacks it, bounded) or else in quoted-printable (their text is ASCII: base64 would add a third), so
    that a report stays small; their bytes, once unpacked and decoded, are unchanged but for the report
    JSON's indentation."""
    for part in msg.iter_attachments():
        kind, name = part.get_content_type(), part.get_filename() or "attachment"
        data = part.get_payload(decode=True)
        if kind not in ("application/json", "application/x-ndjson") or not isinstance(data, bytes):
            continue
        if kind == "application/json":
            data = msgspec.json.encode(msgspec.json.decode(data)) + b"\n"
        if packed:  # mtime 0: the same bytes pack alike
            part.set_content(gzip.compress(data, 9, mtime=0), "application", "gzip", cte="base64",
                             disposition="attachment", filename=f"{name}.gz")
            continue
        main, sub = kind.split("/")
        part.set_content(data, main, sub, cte="quoted-printable", disposition="attachment", filename=name)


def _preface(msg: EmailMessage, answers: list[Answer]) -> None:
    """The answers to the side's own mails read in this cycle, put before the report they led to, the
    mail threaded under the last of them."""
    body = msg.get_body(("plain",))
    if body is None or not answers:
        return
    text = "\n".join(a.text for a in answers) + "\n" + "=" * 70 + "\n\n" + str(body.get_content())
    body.set_content(text)
    if answers[-1].in_reply_to:
        msg["In-Reply-To"] = answers[-1].in_reply_to
        msg["References"] = " ".join(a.in_reply_to for a in answers if a.in_reply_to)
    msg["X-MN-Outcome"] = f"{len(answers)} mail(s) of yours applied"


def _message(loaded: reading.Loaded, side: str, since: int, kind: str, to: str, sender: str, policy: Policy,
             acked: int, note: str = "", answers: list[Answer] | None = None) -> tuple[str, bytes]:
    ruleset = loaded.ruleset
    r = reports.of_game(loaded, side, since)
    viewer = boundary.viewer_of(loaded.meta, side)
    seen = boundary.seen_state(ruleset, loaded.state, viewer) if policy.picture else None
    svg = ruleset.draw_svg(seen) if seen is not None and isinstance(ruleset, Pictures) else None
    msg = outbox.report_message(r, to, sender, svg, export_for(loaded, side, policy.export, acked))
    _slim(msg, policy.gzip)
    _preface(msg, answers or [])
    subject = f"[mn {r.game}] {r.phase}: {KINDS[kind]} for {r.name}{note}"
    msg.replace_header("Subject", subject)
    msg["X-MN-Kind"] = kind
    msg["Auto-Submitted"] = "auto-generated"  # RFC 3834: autoresponders leave it unanswered
    if policy.export == "delta":
        msg["X-MN-Export"] = f"delta after event {acked}"
    return subject, bytes(msg)


def _hours_left(due: str, now: str) -> float:
    return (dt.datetime.fromisoformat(due) - dt.datetime.fromisoformat(now)).total_seconds() / 3600


def plan(game: reading.Loaded | reading.Current, policy: Policy, addresses: dict[str, str],
         marks: dict[tuple[str, str], str], sender: str, now: str, *, log: turns.Log,
         whole: Callable[[], reading.Loaded]) -> tuple[list[NewMail], list[Mark]]:
    """The mails this game owes its sides now, and the marks they move; each keyed so that however
    often it is planned (a crash, two processes) it is queued once. `game`: the game at its head;
    `log`: its log as play by email reads it (the deadlines); `whole`: the game with its whole log up
    to that head, read only if a mail is owed or a notice may be (a game with nothing new costs no
    read of its log)."""
    gid, ruleset, head = game.game_id, game.ruleset, game.head[0]
    meta = game.meta
    waited = {p.empire for p in ruleset.pending(game.state)} if not meta.over else set()
    phase = reports.phase_of(ruleset, game.state)
    due = {s: w.due for s, w in turns.waiting(ruleset, log).items()}
    mails: list[NewMail] = []
    moved: list[Mark] = []
    read: list[reading.Loaded] = []
    folded: list[list[str]] = []

    def loaded() -> reading.Loaded:  # read once a plan, and only if a mail or a notice may be due
        if not read:
            read.append(whole())
        return read[0]

    def before() -> list[str]:  # folded once a plan, and only if a notice may be due
        if not folded:
            folded.append(phases_before(loaded()))
        return folded[0]

    for side in meta.sides:
        to = addresses.get(side)
        if not to:
            continue
        last = int(marks.get((side, "mailed"), "0"))
        acked = min(int(marks.get((side, "acked"), "0")), head)
        kind = None
        if head > last:
            kind = ("final" if meta.over else "report" if side in waited or last == 0
                    else "notice" if _notice_due(loaded(), policy, marks, side, phase, last, before)
                    else "digest" if (policy.digest == "phase" and marks.get((side, "phase")) != phase)
                    or (policy.digest == "round" and marks.get((side, "round")) != str(meta.round))
                    else None)
        pending = pending_answers(marks, side)
        answers = [a for _, a in pending]
        if kind is not None:
            subject, data = _message(loaded(), side, last, kind, to, sender, policy, acked,
                                     answers=answers)
            mails.append(NewMail(key=f"{gid}:{side}:{head}", game_id=gid, side=side, kind=kind, recipient=to,
                                 subject=subject, message=data))
            moved += [Mark(gid, side, "mailed", str(head)), Mark(gid, side, "phase", phase),
                      Mark(gid, side, "round", str(meta.round))]
            if kind == "notice":
                moved.append(Mark(gid, side, "noticed", phase))
        elif policy.answers == "at-once" or policy.digest == "none":  # each answer goes alone, now
            mails += [NewMail(key=a.key, game_id=gid, side=side, kind="answer", recipient=a.to, subject=a.subject,
                              message=a.message) for a in answers]
        else:
            pending = []  # they wait for the side's next mail (the round's digest at the latest)
        moved += [Mark(gid, side, name, "") for name, _ in pending]
        when = due.get(side)
        if side in waited and when and kind is None:
            mails += _reminder(loaded, side, when, now, policy, to, sender, acked, marks, moved)
    return mails, moved


def _notice_due(loaded: reading.Loaded, policy: Policy, marks: dict[tuple[str, str], str], side: str, phase: str,
                last: int, before: Callable[[], list[str]]) -> bool:
    """Whether a side not waited on is sent a notice now, of the events since its last mail: at each
    touching event ("each"); at the first of each phase ("phase"); or never ("none"). With "batch"
    (kernel ruling K13): at once for an event side may answer at once (a default taken for it, an
    undo, a correction), else once the phase of the first touching event not yet mailed is over (a
    report or digest before then carries it). Phases by their heading, which names the round."""
    if policy.notices == "batch":
        found = list(touches(loaded, side, last))
        return any(now for _, now in found) or (bool(found) and before()[found[0][0] - 1] != phase)
    may = policy.notices == "each" or (policy.notices == "phase" and marks.get((side, "noticed")) != phase)
    return may and touched(loaded, side, last)


def _reminder(whole: Callable[[], reading.Loaded], side: str, due: str, now: str, policy: Policy, to: str,
              sender: str, acked: int, marks: dict[tuple[str, str], str], moved: list[Mark]) -> list[NewMail]:
    left = _hours_left(due, now)
    reached = [h for h in policy.reminders if 0 < left <= h]
    name = f"reminded:{due}"
    if not reached or marks.get((side, name)) == str(min(reached)):
        return []
    loaded = whole()
    gid = loaded.game_id
    quiet = msgspec.structs.replace(policy, export="none", picture=False)
    subject, data = _message(loaded, side, loaded.head[0], "reminder", to, sender, quiet, acked,
                             f" (deadline {due}, in {left:.1f} hours)")
    moved.append(Mark(gid, side, name, str(min(reached))))
    return [NewMail(key=f"{gid}:{side}:remind:{due}:{min(reached)}", game_id=gid, side=side, kind="reminder",
                    recipient=to, subject=subject, message=data)]


def utc_now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="microseconds")
