"""A player's order lines checked against their latest report before they are signed: every problem at once.

The report mail carries what the host's game holds for the side: its legal orders now (made on the
game's state for that side alone) and its own export, verified against the receipt. Each line is
read with the ruleset's grammar (names, verbs: a typo gets a did-you-mean), and the lines that answer
the decision the report asks for are held to its legal orders; lines after the first one that leaves
that decision answer the side's later decisions, which no report can foresee: they are read for
their grammar only (the host decides them, all the batch or none).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from typing import Any

import msgspec

from mncore.client import exported
from mncore.core.errors import CommandRejected, DataError, RuleViolation
from mncore.core.name_matching import normalise
from mncore.core.protocol import Option
from mncore.pbem import report as reports
from mncore.pbem import turns
from mncore.pbem.mail import outbox

KERNEL_VERBS = ("undo", "consent", "standing")  # the service's own lines (K1, K2, K6): no game grammar
_PART = re.compile(r"\{(\w+)\}")


class Problem(msgspec.Struct, frozen=True, kw_only=True):
    """One line that would be refused, and why (its rule, or what was probably meant)."""

    line: int
    text: str
    message: str


class Latest(msgspec.Struct, kw_only=True):
    """A player's latest report: the report as the host made it, and their own export, verified."""

    report: reports.TurnReport
    side_game: exported.SideGame
    source: str


def open_report(path: str, kept: bytes | None = None) -> Latest:
    """The report mail at path, its export (joined to `kept` if it is a delta: exported.export_of)
    verified against its receipt; DataError if it is none."""
    msg = outbox.read_message(path)
    files = outbox.attachments(msg)
    doc = next((data for name, data in files.items() if name.endswith(".json")), None)
    if doc is None:
        raise DataError(path, ["this mail carries no report (no .json attachment): give the report "
                               "mail the host sent"])
    try:
        report = msgspec.json.decode(doc, type=reports.TurnReport)
    except (msgspec.DecodeError, msgspec.ValidationError) as err:
        raise DataError(path, [f"its report attachment is not a turn report ({err})"]) from None
    side_game = exported.open_side(path, kept=kept)
    last = side_game.rows[-1]
    if (report.receipt.seq, report.receipt.head) != (last.seq, last.hash) or report.side != side_game.side:
        raise DataError(path, ["its report and its export disagree (receipt, or empire): the mail was "
                               "edited"])
    return Latest(report=report, side_game=side_game, source=path)


def problems(latest: Latest, lines: Sequence[str]) -> list[Problem]:
    """Every problem of a block's lines, in line order; none: the host would decide them."""
    r = latest.report
    out: list[Problem] = []
    try:
        turns.split_queue(lines)
    except CommandRejected as err:
        out.append(Problem(line=0, text="", message=err.message))
    if r.over:
        return [Problem(line=0, text="", message=f"the game is over: {r.result}")]
    grammar_state = _grammar_state(latest)
    answering, answered = True, False  # still answering the decision the report asks for; some line did
    for n, line in enumerate(lines, start=1):
        words = line.split()
        if not words or words[0] in KERNEL_VERBS:
            continue
        queued = words[0] == turns.QUEUE_VERB
        order = line.split(maxsplit=1)[1] if queued and len(words) > 1 else ("" if queued else line)
        if not order:
            continue
        message = _grammar(latest, grammar_state, order)
        if message is None and answering and not queued:
            message, answering = _legality(r, order, answered)
            answered = answered or answering
        elif not queued:
            answered = True  # a line that cannot be read may have been meant for this decision
        if message is not None:
            out.append(Problem(line=n, text=line, message=message))
    return out


def _grammar_state(latest: Latest) -> Any:
    """A state to read order lines on: the game as created (its board and sides), public to all."""
    sg = latest.side_game
    return sg.ruleset.evolve(sg.ruleset.initial(""), sg.events[0])


def _grammar(latest: Latest, state: Any, order: str) -> str | None:
    ruleset = latest.side_game.ruleset
    try:
        ruleset.parse_order(order, state, latest.report.side)
    except CommandRejected as err:
        return err.message + (f" [rule {err.section}]" if isinstance(err, RuleViolation) else "")
    return None


def _legality(r: reports.TurnReport, order: str, answered: bool) -> tuple[str | None, bool]:
    """(the problem, whether later lines still answer this decision) of a line held to the report;
    `answered`: an earlier line answered it, so that this one may answer a later decision."""
    if not r.decide:
        return (f"the game does not wait for you now (report event {r.receipt.seq}): "
                + (f"it waits for {', '.join(w.name for w in r.waiting_for)}" if r.waiting_for
                   else "nothing is pending"), False)
    if any(_matches(o, order) for o in r.options):
        return None, True
    if answered:
        return None, False  # it answers a later decision: grammar only
    near = difflib.get_close_matches(_norm(order), [_norm(x) for x in _examples(r.options)], n=1,
                                     cutoff=0.6)
    shown = {_norm(x): x for x in _examples(r.options)}
    decision = "; ".join(f"{w.kind}: {w.text}" for w in r.decide)
    hint = f"; did you mean '{shown[near[0]]}'?" if near else ""
    return (f"not among your legal orders now (report event {r.receipt.seq}, {decision}){hint} "
            "(the legal orders: mn play, or the report's 'You must decide')", False)


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def _examples(options: Sequence[Option]) -> list[str]:
    """Each option as a whole line: an order, or a template filled with each of its listed values."""
    out: list[str] = []
    for o in options:
        if o.order:
            out.append(o.order)
            continue
        template = o.template or ""
        names = _PART.findall(template)
        if len(names) == 1:
            out += [template.replace("{" + names[0] + "}", v) for v in o.parts.get(names[0], ())]
        else:
            line = template
            for p in names:
                line = line.replace("{" + p + "}", (o.parts.get(p) or ("",))[0])
            out.append(line)
    return out


def _matches(option: Option, order: str) -> bool:
    """Whether an order line is the option, or its template with legal parts (any case, names by
    their normalised spelling or a unique prefix, tokens in any order)."""
    if option.order:
        return _words(option.order) == _words(order)
    template = option.template or ""
    pattern = "^" + _PART.sub(lambda m: f"(?P<{m[1]}>.+?)", re.escape(template).replace(r"\{", "{")
                              .replace(r"\}", "}")) + "$"
    found = re.match(pattern, _norm(order))
    if found is None:
        return False
    return all(_part_ok(value, (*option.parts.get(part, ()), *option.more.get(part, ())))
               for part, value in found.groupdict().items())


def _part_ok(value: str, legal: Sequence[str]) -> bool:
    if _words(value) in {_words(v) for v in legal}:
        return True
    key = normalise(value)
    return sum(normalise(v).startswith(key) for v in legal) == 1 if key else False


def _words(text: str) -> tuple[str, ...]:
    """An order's words, counts spelled out (`3 coin` is `coin coin coin`), in any order."""
    out: list[str] = []
    words = text.lower().split()
    i = 0
    while i < len(words):
        if words[i].isdigit() and i + 1 < len(words) and not words[i + 1].isdigit():
            out += [words[i + 1]] * min(int(words[i]), 99)
            i += 2
            continue
        out.append(words[i])
        i += 1
    return tuple(sorted(out))
