"""The rules index and the rulings register: what a citation [rule X] refers to.

`python -m mncore.rulebook` regenerates docs/rulings.md from mncore/rulesets/empires/data/rulings.toml.
"""

from __future__ import annotations

import functools
import sys
from importlib import resources
from pathlib import Path

import msgspec

DOC = Path(__file__).resolve().parent.parent / "docs" / "rulings.md"


class Ruling(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One decision where the rules are silent, ambiguous or contradictory."""

    id: str
    title: str
    question: str
    clauses: str
    decision: str
    reason: str


class _Rulings(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    ruling: tuple[Ruling, ...]


class _Index(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    sections: dict[str, str]


def _data(name: str) -> bytes:
    return resources.files("mncore.rulesets.empires.data").joinpath(name).read_bytes()


@functools.cache
def index() -> dict[str, str]:
    """Section id -> short title, for every section the engine may cite."""
    return msgspec.toml.decode(_data("rules_index.toml"), type=_Index).sections


@functools.cache
def rulings() -> dict[str, Ruling]:
    """Ruling id -> ruling, in register order."""
    return {r.id: r for r in msgspec.toml.decode(_data("rulings.toml"), type=_Rulings).ruling}


def citable(ref: str) -> bool:
    """True when a citation names a section of the index or a ruling."""
    return ref in index() or ref in rulings()


def render_ruling(r: Ruling) -> str:
    return (f"## {r.id} — {r.title}\n\n**Question.** {r.question}\n\n**Clauses.** {r.clauses}\n\n"
            f"**Decision.** {r.decision}\n\n**Reason.** {r.reason}\n")


HEADER = """# Rulings register

Where the rules texts are silent, ambiguous or contradictory, the project decides once and writes the
decision here. Each entry has an id; the engine cites that id where it applies the ruling, and refusal
messages carry it in brackets, e.g. `[rule R1]`; `mn rules R1` prints that entry.

Authority: `empires-rulebook.md` (Mare Nostrum: Empires, rules v54) first, with its Q&A (chapter 9) and its
hero and wonder texts (chapters 10 and 11); `empires-overview.md` is a loose secondary summary, used
only where the rulebook is silent.

This file is generated from `mncore/rulesets/empires/data/rulings.toml` by `python -m mncore.rulebook`; edit that file.
"""


def render_doc() -> str:
    return HEADER + "".join("\n" + render_ruling(r) for r in rulings().values())


if __name__ == "__main__":
    DOC.write_text(render_doc())
    print(f"wrote {DOC} ({len(rulings())} rulings)", file=sys.stderr)
