"""Every refused line of a batch, not only the first: each decided in turn, a refused one left out."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from mncore.core.dice import Rng
from mncore.core.errors import CommandRejected, InvalidCommand
from mncore.core.protocol import Conceals, Ruleset
from mncore.pbem.turns import split_queue


def hypothetical_world(ruleset: Ruleset, state: Any, side: str, commitment: str, seq: int,
                       conceal: bool = True) -> tuple[Any, Rng]:
    """The state a hypothetical order of side is decided on, and its draws: what side may not know
    replaced by stand-ins (unless `conceal` is False: the secret is out), both drawn from public facts
    only (the game's commitment and the event count), never from the secret."""
    public = hashlib.sha256(f"mn check|{commitment}|{seq}".encode()).digest()
    if conceal and isinstance(ruleset, Conceals):
        state = ruleset.conceal(state, side, Rng(public, "conceal:" + side))
    return state, Rng(public, "draws:" + side)


def every_problem(ruleset: Ruleset, state: Any, side: str, lines: Sequence[str], commitment: str,
                  seq: int) -> list[str]:
    """`order N ('LINE'): why [rule X]` for each line of a refused batch the rules refuse, deciding
    the others in turn on the state they leave. Decided as `mn check` decides (mncore/games/checking.py):
    on stand-ins for what side may not know, drawing from public facts only, so that the list says
    nothing of others' hidden facts or of the game's draws; only the messages are kept."""
    state, rng = hypothetical_world(ruleset, state, side, commitment, seq)
    try:
        now, _ = split_queue(lines)
    except CommandRejected as err:
        return [err.message]
    out = []
    for n, line in enumerate(now, start=1):
        try:
            command = ruleset.parse_order(line, state, side)
            if ruleset.actor_of(command) != side:
                raise InvalidCommand(f"'{line}' is not an order {ruleset.side_name(side)} gives")
            _, state = ruleset.decide(state, command, rng)
        except CommandRejected as err:
            out.append(f"order {n} ('{line}'): {err.message}")
    return out
