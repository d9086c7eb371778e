"""The Empires rules index and rulings register (citations are namespaced `empires:`)."""

from __future__ import annotations

from mncore.core.rulebook import Rulebook

HEADER = """# Rulings register

Where the rules texts are silent, ambiguous or contradictory, the project decides once and writes the
decision here. Each entry has an id; the engine cites that id where it applies the ruling, and refusal
messages carry it in brackets, namespaced by ruleset, e.g. `[rule empires:R1]`; `mn rules R1` prints
that entry.

Authority: `empires-rulebook.md` (Mare Nostrum: Empires, rules v54) first, with its Q&A (chapter 9) and its
hero and wonder texts (chapters 10 and 11); `empires-overview.md` is a loose secondary summary, used
only where the rulebook is silent.

A ruling fills a silence, settles an ambiguity or chooses between texts that disagree; it never overrides
a sentence the texts state plainly. Each entry's **Rests on.** line says which: its kind, what the texts
leave open, and the words it rests on, quoted from the named file and section (`tests/test_rulings_basis.py`
finds every quoted clause in the texts, from `MN_RULES_TEXTS` or `../shared/rules`). Where the review of
issue 29 found a ruling making a choice that the text leaves to a player, the line says so.

This file is generated from `mncore/rulesets/empires/data/rulings.toml` by `python -m mncore.generated`;
edit that file.
"""

# The rulebook's text is the publisher's: the engine ships only its section numbers and our titles.
TEXT_AT = "the rulebook of Mare Nostrum: Empires (rules v54), which comes with the game"

RULEBOOK = Rulebook("empires", "mncore.rulesets.empires.data", source="empires-rulebook.md",
                    doc="docs/rulings.md", header=HEADER,
                    text_at=TEXT_AT)
