"""Where the names of a shipped board go, searched once and kept as data beside the ruleset's board."""

from __future__ import annotations

import functools
import hashlib
from typing import Any

import msgspec

from mncore.pictures.labels import Label


class Placed(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One board's names (x, y, size, angle) and each place's marks: the points the ruleset's drawing
    moved its pieces to so that the name has room (its own meaning, its own length)."""

    labels: dict[str, tuple[float, float, float, float]]
    marks: dict[str, tuple[float, ...]]

    def names(self) -> dict[str, Label]:
        return {pid: Label(*lb) for pid, lb in self.labels.items()}


def key_of(*inputs: Any) -> str:
    """What the search reads (the regions, names, starting points and sizes), as one digest: a board, a
    coastline or a size that changes finds no kept entry and is searched again."""
    return hashlib.sha256(msgspec.msgpack.encode(inputs)).hexdigest()


@functools.cache
def _read(path: str) -> dict[str, Placed]:
    try:
        with open(path, "rb") as f:
            return msgspec.json.decode(f.read(), type=dict[str, Placed])
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return {}  # no kept names: every board is searched, as a user's own board always is


def kept(path: str, key: str) -> Placed | None:
    """The names kept in the data file at path for the inputs of digest key, or None."""
    return _read(path).get(key)


def write(path: str, entries: dict[str, Placed]) -> None:
    """Keep these boards' names at path (one line per board, sorted, so a change reads as a diff)."""
    lines = [f"{msgspec.json.encode(k).decode()}: {msgspec.json.encode(v).decode()}" for k, v in sorted(entries.items())]
    with open(path, "w", encoding="utf-8") as f:
        f.write("{\n" + ",\n".join(lines) + "\n}\n")
    _read.cache_clear()
