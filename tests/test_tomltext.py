"""TOML text written by tomli-w under a comment header reads back to the same document."""

from __future__ import annotations

import tomllib

from mncore.core.toml_text import toml_text


def test_a_document_reads_back_the_same_under_its_header_of_comments() -> None:
    """Every header line is a comment; keys that need quotes, accents, nesting and arrays survive."""
    doc = {"round": 2, "name": "Ægyptus \"Nile\"", "titles": {"military": "rome"},
           "provinces": {"mare-ionium": {"legions": {"rome": 1}}, "a b": {}},
           "display": [{"tile": "caesar", "face_up": True}], "done": ["greece"], "empty": []}

    text = toml_text(doc, "first line\nsecond line")

    assert text.startswith("# first line\n# second line\n")
    assert tomllib.loads(text) == doc
