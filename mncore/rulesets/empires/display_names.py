"""Display names for ids in messages and sentences: shared by the rules and the text below both."""

from __future__ import annotations

from mncore.rulesets.empires.game_data import load_ruleset, tile


def title(name: str) -> str:
    return name.replace("-", " ").title()


def tile_name(tile_id: str) -> str:
    """A hero's or wonder's printed name (Ramses II, Colossus of Rhodes)."""
    return tile(load_ruleset(), tile_id).name
