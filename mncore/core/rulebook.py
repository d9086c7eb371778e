"""A ruleset's rules index and rulings register: what a citation [rule X] refers to.

Section ids are namespaced by ruleset (`empires:4.3.1`, `empires:R27`) so that two rulebooks'
numbering cannot clash; inside its own package a ruleset cites them bare (`4.3.1`).
`python -m mncore.generated` regenerates each built-in ruleset's rulings document.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Literal

import msgspec

from mncore.core.errors import RuleViolation

if TYPE_CHECKING:
    from pathlib import Path

BasisKind = Literal["silence", "ambiguity", "conflict between texts", "component not in the texts",
                    "the text restated", "not in the game", "narrows the text"]
"""Why a ruling may decide at all: the texts say nothing, read two ways, disagree, lack a printed
component's facts, or already say it (recorded for a reader who asked); or it is about this program,
not the game. A ruling never overrides a sentence the texts state plainly: one found doing so is marked
"narrows the text" until the engine follows the text (tests/test_rulings_basis.py lists them)."""


class Quote(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Words of a rules text, verbatim ("..." marks a cut), and where they stand."""

    file: str  # a file of the rules texts, e.g. empires-rulebook.md
    section: str  # the section or heading they stand under
    words: str


class Basis(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What a ruling rests on: its kind, what the texts leave open, and the words it rests on."""

    kind: BasisKind
    open: str  # what the texts do not say, or where they read two ways or disagree
    texts: tuple[Quote, ...] = ()


class Ruling(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One decision where the rules are silent, ambiguous or contradictory."""

    id: str
    title: str
    question: str
    clauses: str
    decision: str
    reason: str
    basis: Basis


class Cited(msgspec.Struct, frozen=True, kw_only=True):
    """A rulebook section or ruling applied: its id, title and, for a ruling, the decision."""

    id: str
    title: str
    decision: str = ""


class _Rulings(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    ruling: tuple[Ruling, ...] = ()


class _Index(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    sections: dict[str, str]


class Rulebook:
    """The sections and rulings of one ruleset, read from its data package."""

    def __init__(self, namespace: str, package: str, *, source: str, doc: str | None = None,
                 header: str = "", text_at: str = "") -> None:
        self.namespace = namespace
        self.package = package
        self.source = source  # the rules text the section ids number, for people
        self._doc = doc  # the register's path in a checkout, from its root (docs/...)
        self.header = header
        # where a reader finds a section's own words, which the engine does not ship ("" if it does)
        self.text_at = text_at

    @functools.cached_property
    def doc(self) -> Path | None:
        """The generated register of rulings in a checkout (python -m mncore.generated writes it)."""
        from pathlib import Path  # only generating or checking the register needs it (a lean start)

        return Path(__file__).resolve().parents[2] / self._doc if self._doc is not None else None

    def _data(self, name: str) -> bytes:
        # imported when a section is first looked up: importlib.resources (with pathlib) would cost
        # every command's start, most of which cite nothing
        from importlib import resources

        return resources.files(self.package).joinpath(name).read_bytes()

    @functools.cached_property
    def index(self) -> dict[str, str]:
        """Bare section id -> short title, for every section the ruleset may cite."""
        return msgspec.toml.decode(self._data("rules_index.toml"), type=_Index).sections

    @functools.cached_property
    def rulings(self) -> dict[str, Ruling]:
        """Bare ruling id -> ruling, in register order."""
        return {r.id: r for r in msgspec.toml.decode(self._data("rulings.toml"), type=_Rulings).ruling}

    def qualify(self, ref: str) -> str:
        """The namespaced id of a citation ("4.3.1" -> "empires:4.3.1"); namespaced ones unchanged."""
        return ref if ":" in ref else f"{self.namespace}:{ref}"

    def bare(self, ref: str) -> str | None:
        """The id inside this rulebook of a citation, or None if it names another ruleset's."""
        ns, sep, rest = ref.partition(":")
        if not sep:
            return ref
        return rest if ns == self.namespace else None

    def citable(self, ref: str) -> bool:
        """True when a citation names a section of the index or a ruling of this rulebook."""
        key = self.bare(ref)
        return key is not None and (key in self.index or key in self.rulings)

    def qualified(self, err: RuleViolation) -> RuleViolation:
        """The same refusal, its section namespaced."""
        if ":" in err.section:
            return err
        return RuleViolation(self.qualify(err.section), err.reason)

    def render_doc(self) -> str:
        return self.header + "".join("\n" + render_ruling(r) for r in self.rulings.values())


def render_basis(b: Basis) -> str:
    """One line: the kind, what the texts leave open, and each text quoted with its file and section."""
    quoted = "; ".join(f"{q.file}, {q.section}: \"{q.words}\"" for q in b.texts)
    end = "" if quoted.endswith(('."', '?"', '!"')) else "."
    return f"{b.kind}: {b.open}" + (f" Words: {quoted}{end}" if quoted else "")


def render_ruling(r: Ruling) -> str:
    return (f"## {r.id} — {r.title}\n\n**Question.** {r.question}\n\n**Clauses.** {r.clauses}\n\n"
            f"**Rests on.** {render_basis(r.basis)}\n\n"
            f"**Decision.** {r.decision}\n\n**Reason.** {r.reason}\n")

