"""TOML text of a plain document (positions, board files), written by tomli-w under a comment header."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import tomli_w


def toml_text(doc: Mapping[str, Any], header: str = "") -> str:
    """The header's lines as `#` comments, then the document as TOML that tomllib and msgspec read
    back to the same values (TOML has no null: a document never holds None)."""
    comments = "".join(f"# {line}\n" for line in header.splitlines())
    # two spaces inside multi-line arrays, as position files were written before tomli-w
    return comments + tomli_w.dumps(doc, indent=2)
