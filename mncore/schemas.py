"""JSON Schemas of every event and command of each built-in ruleset, generated from its msgspec types.

Regenerate with `python -m mncore.generated` (writes schemas/<ruleset>/); tests/test_meta.py fails
when they are stale.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import get_args

import msgspec

from mncore.rulesets.registry import builtin

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "schemas"


def schemas() -> dict[str, str]:
    """Relative path -> schema text, for every event and command and both unions of each ruleset."""
    out: dict[str, str] = {}
    for ruleset in builtin():
        for folder, union in (("events", ruleset.event_type), ("commands", ruleset.command_type)):
            for cls in get_args(union):
                out[f"{ruleset.short}/{folder}/{cls.__name__}.json"] = _text(msgspec.json.schema(cls))
            out[f"{ruleset.short}/{folder}.json"] = _text(msgspec.json.schema(union))
    return out


def _text(schema: dict[str, object]) -> str:
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


def write(root: Path = SCHEMA_DIR) -> list[str]:
    """Write every schema under root, removing stale ones; returns the paths written."""
    wanted = schemas()
    for old in list(root.rglob("*.json")):
        if str(old.relative_to(root)) not in wanted:
            old.unlink()
    for rel, text in wanted.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return sorted(wanted)

