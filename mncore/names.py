"""Matching the names users type (any case, accents, spacing, aliases, unique prefixes) to ids."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping

from mncore.errors import AmbiguousName, InvalidCommand

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
            raise InvalidCommand(f"unknown {self.kind} '{text}'; expected one of: "
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
