"""The rulesets this engine knows, found by the id a game's first event records or by short name.

The built-in rulesets are imported only when first asked for, so a command pays for the game it
reads and no other. Other packages add theirs with `register()` (tests do, for the toy ruleset) or
through the `mare_nostrum.rulesets` entry point group (an object implementing the protocol).
"""

from __future__ import annotations

from collections.abc import Callable

from mncore.core.collector import collector_paused
from mncore.core.errors import InvalidCommand
from mncore.core.protocol import Ruleset


def _empires() -> Ruleset:
    from mncore.rulesets.empires.seam import RULESET
    return RULESET


def _classic() -> Ruleset:
    from mncore.rulesets.classic.seam import RULESET
    return RULESET


# id -> (short name, loader); the first is the default of `mn new`
_BUILTIN: dict[str, tuple[str, Callable[[], Ruleset]]] = {
    "mare-nostrum-empires-2016": ("empires", _empires),
    "mare-nostrum-classic-2003": ("classic", _classic),
}
# other names `--ruleset` accepts for a built-in ruleset
_ALIASES: dict[str, str] = {"classic-2003": "mare-nostrum-classic-2003"}
DEFAULT = "mare-nostrum-empires-2016"

_registered: dict[str, Ruleset] = {}
_plugins_loaded = False


def register(ruleset: Ruleset) -> None:
    """Make a ruleset known under its id and short name (a later one of the same id replaces it)."""
    _registered[ruleset.id] = ruleset


def _load_plugins() -> None:
    global _plugins_loaded
    if _plugins_loaded:
        return
    _plugins_loaded = True
    from importlib.metadata import entry_points  # only when a log names a ruleset not built in

    for entry in entry_points(group="mare_nostrum.rulesets"):
        register(entry.load())


def get(ruleset_id: str) -> Ruleset:
    """The ruleset a log names; InvalidCommand listing the known ones if it is not known here."""
    if ruleset_id in _registered:
        return _registered[ruleset_id]
    if ruleset_id in _BUILTIN:
        with collector_paused():  # a ruleset's modules and decoders: thousands of objects, no garbage
            ruleset = _BUILTIN[ruleset_id][1]()
        _registered[ruleset_id] = ruleset
        return ruleset
    _load_plugins()
    if ruleset_id in _registered:
        return _registered[ruleset_id]
    raise InvalidCommand(f"unknown ruleset '{ruleset_id}'; this engine knows: {', '.join(known())}")


def by_name(name: str) -> Ruleset:
    """The ruleset a user names, by short name ("empires") or id; InvalidCommand listing them."""
    key = name.strip().lower()
    key = _ALIASES.get(key, key)
    for rid, (short, _) in _BUILTIN.items():
        if key in (short, rid):
            return get(rid)
    _load_plugins()
    for ruleset in _registered.values():
        if key in (ruleset.short, ruleset.id):
            return ruleset
    raise InvalidCommand(f"unknown ruleset '{name}'; this engine knows: {', '.join(known())}")


def known() -> list[str]:
    """Every ruleset known here, as "short (id)"."""
    _load_plugins()
    out = {rid: f"{short} ({rid})" for rid, (short, _) in _BUILTIN.items()}
    out |= {r.id: f"{r.short} ({r.id})" for r in _registered.values()}
    return sorted(out.values())


def builtin() -> list[Ruleset]:
    """The rulesets shipped with the engine."""
    return [get(rid) for rid in _BUILTIN]
