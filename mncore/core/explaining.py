"""The explanation of one event (mn explain), as every ruleset gives it and lays it out."""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from mncore.core.actors import BOT, act_label
from mncore.core.rulebook import Cited


class Explanation(msgspec.Struct, frozen=True, kw_only=True):
    """Why event `seq` happened: its cause, the rules and rulings it applies, its figures."""

    seq: int
    type: str
    text: str
    actor: str  # who gave the order of its batch: a side or "host"
    batch: int  # seq of the batch's first event
    command: str  # that order's line, "(hidden)" where the viewer may not read it, or the host's command
    direct: bool  # the order's own event, rather than one that followed by itself (flow)
    sections: list[Cited] = []
    rulings: list[Cited] = []
    details: list[str] = []


def render(x: Explanation, who: str, ruling_line: Callable[[Cited], str]) -> str:
    """The explanation as text; who names the actor, ruling_line says each ruling applied."""
    how = "the order's own event" if x.direct else "followed by itself from that order"
    if x.actor.startswith(BOT + ":"):  # a seated bot (K14): named by its level and budget, not as a side
        who = f"the bot holding the seat ({act_label(x.actor).removeprefix(BOT + ' ')})"
    lines = [f"Event {x.seq} ({x.type}): {x.text}",
             f"Caused by: {who}: '{x.command}' (batch starting at event {x.batch}); {how}."]
    if x.sections:
        lines.append("Rules applied:")
        lines += [f"  {c.id:<18} {c.title}" for c in x.sections]
    if x.rulings:
        lines.append("Rulings applied:")
        lines += [f"  {c.id:<18} {ruling_line(c)}" for c in x.rulings]
    if x.details:
        lines.append("Details:")
        lines += [f"  {d}" for d in x.details]
    return "\n".join(lines)
