"""mn check: what a side's orders would cause now, decided on what it may know and shown through the boundary."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from mncore.games.reading import Current
from mncore.pbem.line_problems import hypothetical_world
from mncore.pbem.turns import decide_lines
from mncore.secrecy import boundary


class Checked(msgspec.Struct, frozen=True, kw_only=True):
    """The answer to `mn check`: the orders as read, and the events they would cause as the side may read them."""

    orders: tuple[str, ...]  # each line as the ruleset writes it back (one order), or as given (a batch)
    events: list[boundary.Hypothetical]
    random_example: bool  # some outcome was drawn: an example, not the game's


def check_orders(loaded: Current, side: str, lines: Sequence[str]) -> Checked:
    """Would side's order lines be accepted now, as one batch? RuleViolation or InvalidCommand if not.

    The orders are decided on the state with stand-ins for what the side may not know, drawing from
    a generator seeded with public facts only (the game's commitment and the event count): twin games
    that differ in a hidden fact answer alike, byte for byte, and no answer says anything of the
    game's real draws, which come from its secret.
    """
    ruleset = loaded.ruleset
    opened = loaded.meta.secret is not None
    state, rng = hypothetical_world(ruleset, loaded.state, side, loaded.meta.commitment, loaded.head[0],
                                    conceal=not opened)
    shown = written(loaded, side, lines)
    events, _ = decide_lines(ruleset, state, side, lines, rng, queue_ok=len(lines) > 1)
    return Checked(orders=shown, events=boundary.hypothetical(ruleset, events, side, opened),
                   random_example=rng.counter > 0)


def written(loaded: Current, side: str, lines: Sequence[str]) -> tuple[str, ...]:
    """One order as the ruleset writes it back (InvalidCommand if malformed); a batch's lines as given."""
    if len(lines) != 1:
        return tuple(lines)
    ruleset: Any = loaded.ruleset
    return (ruleset.format_order(ruleset.parse_order(lines[0], loaded.state, side)),)
