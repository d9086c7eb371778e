"""The classic game's rules index and rulings register (citations are namespaced `classic:`)."""

from __future__ import annotations

from mncore.core.rulebook import Rulebook

HEADER = """# Rulings register: Mare Nostrum (2003) with the Mythology expansion

Where the rules texts are silent, ambiguous or contradictory, the project decides once and writes the
decision here. Each entry has an id (C1, C2, ...); the engine cites it where it applies the ruling, and
refusal messages carry it in brackets, namespaced by ruleset, e.g. `[rule classic:C4]`.

Authority: `classic-mythology-summary.md` (a rules summary close to the printed rules) first;
`classic-mythology-reference.md` (a longer reference) where the summary is silent. Where they disagree
the summary wins, and each such choice is a ruling below. Each entry's **Rests on.** line names the kind
of gap it fills and the words it rests on, quoted from the named file and section.

This file is generated from `mncore/rulesets/classic/data/rulings.toml` by `python -m mncore.generated`;
edit that file.
"""

TEXT_AT = "the rules of Mare Nostrum (2003) and its Mythology expansion, which come with the game"

RULEBOOK = Rulebook("classic", "mncore.rulesets.classic.data", source="classic-mythology-summary.md",
                    doc="docs/classic-rulings.md",
                    header=HEADER, text_at=TEXT_AT)
