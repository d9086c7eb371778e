"""Matching the names users type (any case, accents, spacing, aliases, unique prefixes) to ids."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from mncore.core.errors import AmbiguousName, InvalidCommand

if TYPE_CHECKING:
    from mncore.core.protocol import Ruleset

_IGNORED = str.maketrans("", "", " -_'’&.")


def normalise(text: str) -> str:
    """Lowercase, without accents, spaces, hyphens, apostrophes, '&' or dots: "Castor & Pollux" ->
    "castorpollux"."""
    decomposed = unicodedata.normalize("NFKD", text)
    bare = "".join(c for c in decomposed if not unicodedata.combining(c))
    return bare.casefold().translate(_IGNORED)


class NameTable:
    """The normalised names of one kind of thing, ready for exact and prefix lookups."""

    def __init__(self, kind: str, entries: Mapping[str, Iterable[str]]) -> None:
        self.kind = kind
        self.display: dict[str, str] = {}
        self.exact: dict[str, set[str]] = {}
        for item_id, names in entries.items():
            names = list(names)
            self.display[item_id] = names[0] if names else item_id
            for name in (item_id, *names):
                self.exact.setdefault(normalise(name), set()).add(item_id)
        self.keys = sorted(self.exact)

    def resolve(self, text: str) -> str:
        """The id that text names: an exact match wins, else a unique prefix; else refuse."""
        key = normalise(text)
        found = self.exact.get(key) if key else None
        if not found and key:
            found = {i for k in self.keys if k.startswith(key) for i in self.exact[k]}
        if not found:
            close = suggest(text, {n: self.display[i] for n, ids in self.exact.items() for i in ids})
            hint = f"did you mean {' or '.join(close)}? " if close else ""
            raise InvalidCommand(f"unknown {self.kind} '{text}'; {hint}expected one of: "
                                 f"{self._names(self.display)}")
        if len(found) > 1:
            raise AmbiguousName(f"ambiguous {self.kind} '{text}': could be {self._names(found)}")
        return next(iter(found))

    def _names(self, ids: Iterable[str]) -> str:
        return ", ".join(sorted(self.display[i] for i in ids))


def resolve(kind: str, text: str, entries: Mapping[str, Iterable[str]]) -> str:
    """Match text to an id of entries (id -> display name, then aliases); kind names it in errors.

    InvalidCommand if nothing matches, AmbiguousName if several things do.
    """
    return NameTable(kind, entries).resolve(text)


def suggest(text: str, names: Mapping[str, str], n: int = 3) -> list[str]:
    """The display names whose normalised name is closest to text (typos), best first, distinct.

    `names` maps each normalised name (or alias) to the display name it stands for.
    """
    key = normalise(text)
    out: list[str] = []
    import difflib  # only a name not found pays for it

    for match in difflib.get_close_matches(key, list(names), n=n * 2, cutoff=0.8):
        if names[match] not in out:
            out.append(names[match])
    return out[:n]


def resolve_side_in_game(ruleset: Ruleset, state: Any, text: str) -> str:
    """The side text names in this game: a side (any name the ruleset accepts) or a player's name.

    A player's name counts when exactly one side is played under it. A side not in the game, or
    a typo, is refused naming the sides in play and the closest of their names.
    """
    meta = ruleset.meta(state)
    key = normalise(text)
    by_player = [s for s in meta.sides if meta.players.get(s) and normalise(meta.players[s]) == key]
    try:
        side: str | None = ruleset.resolve_side(text)
    except AmbiguousName:
        if len(by_player) == 1:
            return by_player[0]
        raise
    except InvalidCommand:
        side = None
    if len(by_player) > 1:
        raise AmbiguousName(f"'{text}' plays {_listed(ruleset, meta.players, by_player)}: give "
                            "the empire")
    if by_player and side is not None and side != by_player[0] and side in meta.sides:
        raise AmbiguousName(f"ambiguous empire '{text}': could be {ruleset.side_name(side)} or "
                            f"{_listed(ruleset, meta.players, by_player)}")
    if by_player:
        return by_player[0]
    in_play = _listed(ruleset, meta.players, meta.sides)
    if side is None:
        names = {normalise(ruleset.side_name(s)): ruleset.side_name(s) for s in meta.sides}
        names |= {normalise(name): ruleset.side_name(s) for s, name in meta.players.items() if name}
        close = suggest(text, names)
        hint = f"did you mean {' or '.join(close)}? " if close else ""
        raise InvalidCommand(f"unknown empire '{text}'; {hint}the empires in play: {in_play}")
    if side not in meta.sides:
        raise InvalidCommand(f"{ruleset.side_name(side)} is not in this game; the empires in play: "
                             f"{in_play}")
    return side


def _listed(ruleset: Ruleset, players: Mapping[str, str], sides: Iterable[str]) -> str:
    """Sides as "Rome (Ann), Greece": the player named when it is not the side's own name."""
    out = []
    for s in sides:
        name, player = ruleset.side_name(s), players.get(s, "")
        out.append(f"{name} ({player})" if player and player != name else name)
    return ", ".join(out)


def sides_in_words(ruleset: Ruleset, state: Any, sides: Iterable[str]) -> str:
    """Sides of this game as "Rome (Ann), Greece": each with its player, as refusals name them."""
    return _listed(ruleset, ruleset.meta(state).players, sides)
