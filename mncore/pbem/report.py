"""A side's turn report: what happened since its last one, its board, its decision, and a receipt.

Game-neutral: every sentence, view and option comes through the redaction boundary
(mncore/secrecy/boundary.py); a ruleset's phase headings, waits and resources through `protocol.Reports`.
"""

from __future__ import annotations

from typing import Any

import msgspec

from mncore.core.actors import act_label
from mncore.core.errors import InvalidCommand
from mncore.core.kernel_state import held_by, queue, seated
from mncore.core.protocol import Option, Pending, Reports, Ruleset
from mncore.games import reading
from mncore.pbem import turns
from mncore.secrecy import boundary
from mncore.store import Row

CORRECTED = "Corrected"  # the host's correction event (K3): every side reads its reason
SIGN_LINE = "mn sign --key KEYFILE --game {game} --seq {seq} --head {head} 'ORDER' ..."


class Line(msgspec.Struct, frozen=True, kw_only=True):
    """One event as the side may read it."""

    seq: int
    text: str
    undone: bool = False  # taken back by an undo or a correction: in the log, skipped by replay
    act: str = ""  # the service's act for the side: "forced", "standing", "deadline", "queued", "bot LEVEL, budget N"


class Group(msgspec.Struct, frozen=True, kw_only=True):
    """The events of one phase (the ruleset's heading), in log order."""

    phase: str
    events: list[Line]


class Wait(msgspec.Struct, frozen=True, kw_only=True):
    """A decision the game waits for, as the side may know it."""

    side: str
    name: str  # the side's display name
    kind: str
    text: str
    due: str | None = None  # its deadline (ISO 8601, UTC), if the host set one (mn deadline)


class Receipt(msgspec.Struct, frozen=True, kw_only=True):
    """What the side keeps to hold the host to this log later: mn verify FILE --head HASH."""

    game: str
    seq: int
    head: str


class TurnReport(msgspec.Struct, frozen=True, kw_only=True):
    """Everything one side is told after a turn; its JSON is documented in docs/json.md."""

    game: str
    side: str
    name: str  # the side's display name
    player: str
    phase: str  # the ruleset's heading of the present ("round 2, Build phase")
    since: int  # events after this one are reported
    events: list[Group]
    board: str  # the board as the side sees it (the ruleset's show text)
    resources: str
    decide: list[Wait]  # what the side must decide now
    deadline: str | None  # when its decision falls to the default (docs/defaults.md), if ever
    corrections: list[Line]  # the host's corrections since `since`, each with its reason (K3)
    options: list[Option]  # the orders it may give now, whole lines or templates with their parts
    queued: list[str]  # its queued orders still waiting for its coming decisions of the round (K9)
    waiting_for: list[Wait]  # what the game waits for from the other sides
    over: bool
    result: str
    receipt: Receipt
    sign: str  # the mn sign line to answer this report with ("" in a game without keys)
    view: dict[str, Any]  # the state as the side may see it (mn show --as SIDE --json)


def phase_of(ruleset: Ruleset, state: Any) -> str:
    """The heading of a state: the ruleset's, or the round alone."""
    if isinstance(ruleset, Reports):
        return ruleset.phase_of(state)
    round_ = ruleset.meta(state).round
    return f"round {round_}" if round_ else "set-up"


def grouped(ruleset: Ruleset, rows: list[Row], events: list[Any], side: str, since: int,
            opened: bool) -> list[Group]:
    """The events after `since`, one sentence each as side may read it, under their phase's heading
    (the phase of the state each event leads to; an event taken back changes no state)."""
    gone = turns.undone_seqs(rows)
    marks = turns.service_marks(rows)
    state = ruleset.initial("")
    out: list[Group] = []
    for row, event in zip(rows, events, strict=True):
        if row.seq not in gone:
            state = ruleset.evolve(state, event)
        if row.seq <= since:
            continue
        heading = phase_of(ruleset, state)
        line = Line(seq=row.seq, text=boundary.describe(ruleset, event, side, opened),
                    undone=row.seq in gone, act=act_label(marks.get(row.seq, "")))
        if out and out[-1].phase == heading:
            out[-1].events.append(line)
        else:
            out.append(Group(phase=heading, events=[line]))
    return out


def waits(ruleset: Ruleset, state: Any, side: str, due: dict[str, str | None]) -> list[Wait]:
    """Every decision pending as side may know it (its own in full, the others' as public), with
    its deadline (`due`: side -> when, from turns.waiting)."""
    found: list[Pending] = (ruleset.waiting(state, side) if isinstance(ruleset, Reports)
                            else ruleset.pending(state))
    return [Wait(side=p.empire, name=ruleset.side_name(p.empire), kind=p.kind, text=p.text,
                 due=due.get(p.empire)) for p in found]


def of_game(loaded: reading.Loaded, side: str, since: int) -> TurnReport:
    """The report for side of a game read whole (a Loaded: its rows, events and state)."""
    if not 0 <= since <= loaded.head[0]:
        raise InvalidCommand(f"--since {since}: game {loaded.game_id} has events 1 to {loaded.head[0]}")
    ruleset, state, game_id = loaded.ruleset, loaded.state, loaded.game_id
    meta = loaded.meta  # the secret in it is the kernel's
    opened = meta.secret is not None
    view = boundary.view(ruleset, seated(ruleset, state, loaded.kernel.email), boundary.viewer_of(meta, side))
    due = {s: w.due for s, w in turns.waiting(ruleset, turns.Log(rows=loaded.rows, events=loaded.events,
                                                                email=loaded.kernel.email)).items()}
    pending = waits(ruleset, state, side, due)
    events = grouped(ruleset, loaded.rows, loaded.events, side, since, opened)
    seq, hash_ = loaded.head
    signed = loaded.kernel.ledger.published
    return TurnReport(
        game=game_id, side=side, name=ruleset.side_name(side),
        player=held_by(loaded.kernel.email, side) or meta.players.get(side, ""),
        phase=phase_of(ruleset, state), since=since, events=events,
        board=ruleset.show_text(view),
        resources=ruleset.resources_text(view, side) if isinstance(ruleset, Reports) else "",
        decide=[w for w in pending if w.side == side], deadline=due.get(side),
        corrections=[ln for g in events for ln in g.events
                     if loaded.rows[ln.seq - 1].type == CORRECTED],
        options=boundary.options(ruleset, state, side) if not meta.over else [],
        queued=list(queue(loaded.kernel.email, side, meta.round)),
        waiting_for=[w for w in pending if w.side != side],
        over=meta.over, result=meta.result,
        receipt=Receipt(game=game_id, seq=seq, head=hash_),
        sign=SIGN_LINE.format(game=game_id, seq=seq, head=hash_) if signed else "", view=view)


# --- the report in words -------------------------------------------------------------------------------

def option_lines(options: list[Option]) -> list[str]:
    """The options as mn options prints them: a whole order, or a template and its legal parts."""
    out: list[str] = []
    for o in options:
        note = f"    # {o.note}" if o.note else ""
        if o.order:
            out.append(o.order + note)
            continue
        out.append(f"{o.template}{note}")
        for part, values in o.parts.items():
            more = o.more.get(part, ())
            out.append(f"    {part}: {' | '.join(values)}"
                       + (f" (and {len(more)} more: any other {part} the rules accept is taken too)"
                          if more else ""))
    return out


def _sections(r: TurnReport) -> list[tuple[str, list[str]]]:
    """The report's sections, each a heading and its lines, in the order a player reads them."""
    happened: list[str] = []
    for g in r.events:
        happened += [f"{g.phase}:"] + [f"  {e.seq:>5}  {_marks(e)}{e.text}" for e in g.events]
    decide = ([f"{w.kind}: {w.text}" for w in r.decide] if r.decide
              else ["Nothing: the game does not wait for you now."])
    if r.decide and r.deadline:
        decide.append(f"Deadline: {r.deadline} (then the default of docs/defaults.md is taken)")
    if r.decide and r.options:
        decide += ["", "Your legal orders now (grammar: docs/orders.md):",
                   *(f"  {ln}" for ln in option_lines(r.options)), "",
                   *(["Answer with a signed block:", f"  {r.sign}"] if r.sign
                     else ["Answer with your orders, one a line."])]
    return [
        (f"What happened since event {r.since}", happened or ["Nothing new."]),
        *([("Host corrections", [f"{c.seq:>5}  {c.text}" for c in r.corrections])]
          if r.corrections else []),
        ("Your board", r.board.splitlines()),
        *([("Your resources", [r.resources])] if r.resources else []),
        ("You must decide", decide if not r.over else [f"Nothing: the game is over. {r.result}"]),
        *([("Your queued orders", [*(f"  {ln}" for ln in r.queued),
                                   "Applied in turn as your decisions come, each if legal as written "
                                   "(ruling K9)."])]
          if r.queued else []),
        ("The game also waits for",
         [f"{w.name}: {w.kind}: {w.text}" + (f" (deadline {w.due})" if w.due else "")
          for w in r.waiting_for] or ["Nobody else."]),
        ("Receipt", [f"game {r.receipt.game}, event {r.receipt.seq}, head {r.receipt.head}",
                     "Keep it: mn verify EXPORT --head HASH shows the log was not cut or rewritten."]),
    ]


def _marks(line: Line) -> str:
    """[undone] before an event taken back, [forced] / [standing] / [deadline] before a service act."""
    return ("[undone] " if line.undone else "") + (f"[{line.act}] " if line.act else "")


def title_line(r: TurnReport) -> str:
    """The one-line title of a report (and of its mail's subject)."""
    return f"Game {r.game}, {r.phase}: report for {r.name}" + (f" ({r.player})" if r.player else "")


def text(r: TurnReport) -> str:
    """The report as plain text."""
    out = [title_line(r), "=" * len(title_line(r))]
    for heading, lines in _sections(r):
        out += ["", heading, "-" * len(heading), *lines]
    return "\n".join(out) + "\n"


def markdown(r: TurnReport) -> str:
    """The report as Markdown: a heading a section, the board and the orders as code blocks."""
    out = [f"# {title_line(r)}"]
    for heading, lines in _sections(r):
        out += ["", f"## {heading}", ""]
        if heading in ("Your board", "You must decide"):
            out += ["```", *lines, "```"]
        elif heading.startswith("What happened"):
            out += [f"### {ln[:-1]}" if not ln.startswith(" ") else _md_event(ln.strip()) for ln in lines]
        else:
            out += [f"- {ln.strip()}" if ln.strip() else "" for ln in lines]
    return "\n".join(out) + "\n"


def _md_event(line: str) -> str:
    """An event line as a Markdown item; one taken back struck out, as mn log marks it [undone]."""
    return f"- ~~{line.replace('[undone] ', '', 1)}~~ (undone)" if "[undone] " in line else f"- {line}"


def doc(r: TurnReport) -> Any:
    """The report as a JSON document (docs/json.md, Turn report)."""
    return msgspec.to_builtins(r, order="deterministic")
