"""The kernel's rulings register (K1, K2, ...): decisions about the service itself, whatever the game."""

from __future__ import annotations

from mncore.core.rulebook import Rulebook

HEADER = """# Kernel rulings register

Decisions about the service itself, which no game's rules make: undo, consent, host corrections,
deadlines and their defaults, forced answers and standing orders (play by email). The kernel cites
these ids in its refusals, namespaced `kernel:`, e.g. `[rule kernel:K1]`. Each game's own rulings are in
its register (`docs/rulings.md` for Empires).

This file is generated from `mncore/data/rulings.toml` by `python -m mncore.generated`; edit that file.
"""

KERNEL_BOOK = Rulebook("kernel", "mncore.data", source="mncore/data/rulings.toml",
                       doc="docs/kernel-rulings.md",
                       header=HEADER)
