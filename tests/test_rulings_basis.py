"""Every ruling says what it rests on, and every clause it quotes stands in the rules text it names."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from mncore.core.kernel_rulings import KERNEL_BOOK
from mncore.core.rulebook import Rulebook, Ruling
from mncore.rulesets.classic.rules_index import RULEBOOK as CLASSIC_BOOK
from mncore.rulesets.empires.rules_index import RULEBOOK as EMPIRES_BOOK

ROOT = Path(__file__).resolve().parent.parent
# The publisher's texts are not shipped; they are read where the project keeps them beside the code.
TEXTS = Path(os.environ.get("MN_RULES_TEXTS", ROOT.parent / "shared" / "rules"))
# The texts each ruleset's rulings may quote, authority first.
FILES = {"empires": ("empires-rulebook.md", "atlas-expansion.md", "empires-overview.md"),
         "classic": ("classic-mythology-summary.md", "classic-mythology-reference.md")}
BOOKS = {"empires": EMPIRES_BOOK, "classic": CLASSIC_BOOK}
_CUT = re.compile(r"\s*(?:\.\.\.|…)\s*")


def _norm(text: str) -> str:
    """Text as compared: straight quotes and dashes, no markdown emphasis, single spaces, lower case."""
    for curly, straight in (("‘", "'"), ("’", "'"), ("“", '"'), ("”", '"'), ("–", "-"), ("—", "-")):
        text = text.replace(curly, straight)
    return re.sub(r"\s+", " ", re.sub(r"[*_`]", "", text)).strip().lower()


def found(words: str, text: str) -> bool:
    """True when the words stand in the (normalised) text, each part cut by "..." in its order."""
    at = 0
    for part in (p.strip(" .,;:") for p in _CUT.split(_norm(words))):
        if part:
            at = text.find(part, at)
            if at < 0:
                return False
            at += len(part)
    return True


def _texts() -> dict[str, str]:
    if not all((TEXTS / f).is_file() for files in FILES.values() for f in files):
        pytest.skip(f"the rules texts are not at {TEXTS} (set MN_RULES_TEXTS to the folder that holds "
                    "empires-rulebook.md and the others)")
    return {f: _norm((TEXTS / f).read_text()) for files in FILES.values() for f in files}


def _rulings() -> list[tuple[str, Ruling]]:
    return [(name, r) for name, book in BOOKS.items() for r in book.rulings.values()]


def test_every_game_ruling_rests_on_words_of_the_texts() -> None:
    """A ruling about a game is a silence, an ambiguity or a conflict of named words, never bare."""
    bare = [r.id for _, r in _rulings() if r.basis.kind != "not in the game" and not r.basis.texts]

    assert bare == []
    assert all(r.basis.open for _, r in _rulings())


def test_every_quoted_basis_stands_verbatim_in_the_file_it_names() -> None:
    """Each `basis.texts` quote is found in its file (whitespace, quotes and emphasis normalised)."""
    texts = _texts()

    wrong = [f"{r.id}: {q.file}: {q.words}" for name, r in _rulings() for q in r.basis.texts
             if q.file not in FILES[name] or not found(q.words, texts[q.file])]

    assert wrong == []


def test_every_clause_quoted_in_a_ruling_stands_in_a_text_of_its_ruleset() -> None:
    """A double-quoted passage of `clauses` is the texts' own words; a paraphrase is not quoted."""
    texts = _texts()

    wrong = [f"{r.id}: {q}" for name, r in _rulings() for q in re.findall(r'"([^"]+)"', r.clauses)
             if not any(found(q, texts[f]) for f in FILES[name])]

    assert wrong == []


# Rulings found (issue 29) to make for a player a choice the text gives him; each says in its basis what
# following the text would take. The list only shrinks: a new ruling may not narrow a text.
NARROWING: set[str] = set()


def test_only_the_known_rulings_narrow_a_text_and_each_says_how_to_follow_it() -> None:
    """A ruling that narrows a plain sentence is a defect on record, never a new way to decide."""
    narrowing = {r.id for _, r in _rulings() if r.basis.kind == "narrows the text"}

    assert narrowing == NARROWING
    assert all("To follow the text" in r.basis.open for _, r in _rulings() if r.id in narrowing)


def test_the_kernel_rules_on_the_service_only() -> None:
    """The kernel's rulings are about the service, which no game's text speaks of."""
    assert {r.basis.kind for r in KERNEL_BOOK.rulings.values()} == {"not in the game"}


@pytest.mark.parametrize("book", [EMPIRES_BOOK, CLASSIC_BOOK, KERNEL_BOOK], ids=lambda b: b.namespace)
def test_the_generated_document_says_what_each_ruling_rests_on(book: Rulebook) -> None:
    """Each ruling's entry in its document has a "Rests on." line with its kind and quotes."""
    doc = book.render_doc()

    for r in book.rulings.values():
        entry = doc.split(f"## {r.id} — ", 1)[1].split("\n## ", 1)[0]
        line = next(x for x in entry.splitlines() if x.startswith("**Rests on.** "))
        assert line.startswith(f"**Rests on.** {r.basis.kind}: ")
        assert all(f'{q.file}, {q.section}: "{q.words}"' in line for q in r.basis.texts)


def test_a_cut_quote_is_found_part_by_part_in_order_and_a_paraphrase_is_not() -> None:
    """The matcher itself: "..." cuts, parts in order; changed words or swapped parts fail."""
    text = _norm("The Trade Leader **begins** by claiming any one Resource offered by another player.")

    assert found("the Trade Leader ... any one Resource", text)
    assert not found("any one Resource ... the Trade Leader", text)
    assert not found("the Trade Leader begins by taking any Resource", text)
