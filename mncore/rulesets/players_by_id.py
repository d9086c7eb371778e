"""The scripted players of each ruleset, above the service: its demonstration game and its bots'
tactics (mncore.bots), by ruleset id.

They play through mncore.games, which reads logs through the registry, which loads the seams: a seam
that named its players would close an import circle, so the CLI finds them here instead. The built-in
rulesets' demos are imported only when asked for; other packages add theirs with `register()` or
through the `mare_nostrum.demos` entry point group (a `Demo`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mncore.core.errors import CommandRejected
from mncore.core.protocol import Demo, Ruleset
from mncore.pbem import seats

if TYPE_CHECKING:  # a bot's tactics are imported only where a bot plays: a lean start
    from mncore.bots.tactics import Tactics


def _empires() -> Demo:
    from mncore.rulesets.empires.players.demo import DEMO
    return DEMO


def _classic() -> Demo:
    from mncore.rulesets.classic.players.demo import DEMO
    return DEMO


# ruleset id -> loader of its demo
_BUILTIN: dict[str, Callable[[], Demo]] = {
    "mare-nostrum-empires-2016": _empires,
    "mare-nostrum-classic-2003": _classic,
}

_registered: dict[str, Demo] = {}
_plugins_loaded = False


def register(demo: Demo) -> None:
    """Make a demo known for its ruleset (a later one for the same ruleset replaces it)."""
    _registered[demo.ruleset_id] = demo


def _load_plugins() -> None:
    global _plugins_loaded
    if _plugins_loaded:
        return
    _plugins_loaded = True
    from importlib.metadata import entry_points  # only when a ruleset not built in asks for a demo

    for entry in entry_points(group="mare_nostrum.demos"):
        register(entry.load())


def demo_for(ruleset: Ruleset) -> Demo | None:
    """The demonstration game of a ruleset, or None if it has none."""
    if ruleset.id not in _registered and ruleset.id in _BUILTIN:
        register(_BUILTIN[ruleset.id]())
    if ruleset.id not in _registered:
        _load_plugins()
    return _registered.get(ruleset.id)


def _empires_tactics() -> Tactics:
    from mncore.rulesets.empires.players.bot_tactics import TACTICS
    return TACTICS


def _classic_tactics() -> Tactics:
    from mncore.rulesets.classic.players.bot_tactics import TACTICS
    return TACTICS


# ruleset id -> loader of its bots' tactics
_TACTICS: dict[str, Callable[[], Tactics]] = {
    "mare-nostrum-empires-2016": _empires_tactics,
    "mare-nostrum-classic-2003": _classic_tactics,
}


def tactics_for(ruleset: Ruleset) -> Tactics | None:
    """What a ruleset's bots know of its game, or None if no bot plays it."""
    loader = _TACTICS.get(ruleset.id)
    return loader() if loader is not None else None


SEAT_SEED = "0"  # the seed of a seated bot's decisions: `mn bot GAME --as SIDE` (seed 0) gives its advice


def choose(ruleset: Ruleset, state: Any, side: str, level: str, budget: int, events: int) -> tuple[str, ...] | None:
    """The order of the bot that holds side's seat (a mncore.pbem.turns.seats chooser): decided on worlds drawn
    from the game's commitment, its event count and SEAT_SEED, never its secret, as `mn bot` advises.
    None if no bot plays the game, the level is unknown, or the bot finds no order."""
    from mncore.bots import worlds
    from mncore.bots.choosing import LEVELS, decide

    tactics = tactics_for(ruleset)
    if tactics is None or level not in LEVELS:
        return None
    public = worlds.public_seed(ruleset.meta(state).commitment, events, SEAT_SEED)
    try:
        return decide(ruleset, tactics, state, side, level, budget, public, SEAT_SEED).lines
    except CommandRejected:
        return None  # the side waits for its deadline, as a person's would


def seat_bots() -> None:
    """Let bots answer for the seats the host hands them (mn seat): register the chooser."""
    seats.register(choose)
