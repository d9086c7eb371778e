"""The worlds a bot may imagine: its side's view with every hidden fact a stand-in (the one concealment)."""

from __future__ import annotations

import hashlib
from typing import Any

from mncore.core.dice import Rng
from mncore.core.errors import InvalidCommand
from mncore.core.protocol import Conceals, Ruleset
from mncore.secrecy.boundary import may_see


def public_seed(commitment: str, events: int, seed: str) -> bytes:
    """The bytes every bot draw of a decision derives from: public facts and the bot's own seed only,
    never the game's secret, so twin games that differ in a hidden fact draw alike."""
    return hashlib.sha256(f"mn bot|{commitment}|{events}|{seed}".encode()).digest()


def sample(ruleset: Ruleset, state: Any, side: str, public: bytes, count: int, opened: bool = False) -> list[Any]:
    """count worlds consistent with what side may see: the ruleset's `Conceals.conceal` (the stand-ins
    `mn check` decides on) drawn from the public seed; the state itself once the secret is out (`opened`).

    InvalidCommand if the ruleset hides facts from side and cannot stand them in: a bot there would
    read what its side may not."""
    if opened:
        return [state] * count
    if not isinstance(ruleset, Conceals):
        if any(not may_see(h, side, False) for h in ruleset.hidden_state(state)):
            raise InvalidCommand(f"{ruleset.name} cannot stand in the facts {side} may not see: "
                                 "no bot may play it")
        return [state] * count
    return [ruleset.conceal(state, side, Rng(public, f"world:{side}:{i}")) for i in range(count)]
