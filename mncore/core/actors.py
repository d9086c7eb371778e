"""Whom an act is recorded under when the service takes it for a side: a deadline, a forced, standing or queued order, a seated bot."""

from __future__ import annotations

DEADLINE = "deadline"  # the actor of a default applied when a deadline passed (mn tick)
FORCED = "forced"  # the actor of a decision that had exactly one legal answer
STANDING = "standing"  # the actor of an order a side left in advance (its standing orders)
QUEUED = "queued"  # the actor of an order a side queued for a coming decision of the round (K9)
SERVICE_ACTORS = (DEADLINE, FORCED, STANDING, QUEUED)
BOT = "bot"  # a bot's answer is recorded as bot:LEVEL:BUDGET, the bot that holds the side's seat (K14)


def bot_actor(level: str, budget: int) -> str:
    """The actor of the answers of a bot of this level and budget (K14)."""
    return f"{BOT}:{level}:{budget}"


def is_service_actor(actor: str) -> bool:
    """Whether an actor is the service's, answering for a side: a deadline, forced, standing, queued
    order, or the bot that holds its seat."""
    return actor in SERVICE_ACTORS or actor.startswith(BOT + ":")


def act_label(actor: str) -> str:
    """How a log line marks an act the service took for a side ("" for any other): the kind of act,
    a bot's with its level and budget."""
    if actor.startswith(BOT + ":"):
        _, level, budget = (actor.split(":") + ["", ""])[:3]
        return f"bot {level}, budget {budget}"
    return actor if actor in SERVICE_ACTORS else ""
