"""Seats held by bots: the chooser a bot decides through, injected from above, and its answer (K14).

The kernel knows no bot (mncore/bots stands above the service): whoever plays bots registers a
chooser here (mncli does, through mncore.rulesets.players_by_id). The kernel only asks it for the side's order when
a bot holds the side's seat and the side must decide, and decides that order as any other; verify
decides it again without the chooser (the seat, the pending decision, the order's legality).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mncore.core import log_lines as log
from mncore.core.kernel_acts import BotOrders
from mncore.core.kernel_state import PlayByEmail, bot_holder
from mncore.core.protocol import Ruleset

# (ruleset, state, side, level, budget, events in the log) -> the order lines, or None (no bot plays it);
# the state is the host's: the chooser must read it only through the side's concealment
Chooser = Callable[[Ruleset, Any, str, str, int, int], tuple[str, ...] | None]

_chooser: list[Chooser] = []  # the one registered, if any


def register(chooser: Chooser) -> None:
    """Make `chooser` the one that decides for every seat a bot holds (a later one replaces it)."""
    _chooser[:] = [chooser]


def registered() -> bool:
    """Whether a chooser was registered: without one a bot's seat waits, as a person's does."""
    return bool(_chooser)


def bot_answer(ruleset: Ruleset, state: Any, side: str, events: int,
               email: PlayByEmail) -> BotOrders | None:
    """The answer of the bot that holds the side's seat to its pending decision, or None (a person
    holds the seat, no chooser is registered, or no bot plays this game); `events`: how many the log holds."""
    seat = bot_holder(email, side)  # the kernel's state holds the seats: no scan of the log per answer
    if seat is None or not _chooser:
        return None
    try:
        lines = _chooser[0](ruleset, state, side, seat.bot, seat.budget, events)
    except Exception as err:  # a bot's bug must not fail the command it answers after: the side waits
        log.info("bot gave no answer", side=side, level=seat.bot, error=f"{type(err).__name__}: {err}")
        return None
    if not lines:
        return None
    return BotOrders(side=side, level=seat.bot, budget=seat.budget, orders=tuple(lines))
