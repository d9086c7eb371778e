"""docs/orders.md: every example order parses, and prints back as the canonical line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mncore.rulesets.empires.text import format_order, parse_order
from support import FIVE, new_game

DOC = Path(__file__).resolve().parent.parent / "docs" / "orders.md"
EXAMPLES = re.findall(r"\| `([^`|]+)` \|\n", DOC.read_text())


def test_the_doc_has_an_example_for_every_row() -> None:
    """Each table row ends in an example."""
    rows = [ln for ln in DOC.read_text().splitlines() if ln.startswith("| `")]

    assert len(EXAMPLES) == len(rows) > 20


@pytest.mark.parametrize("line", EXAMPLES)
def test_each_example_parses_and_round_trips(line: str) -> None:
    """The example is a well-formed order whose canonical form parses to the same command."""
    state = new_game(FIVE).state

    order = parse_order(line, state, "rome")

    assert parse_order(format_order(order), state, "rome") == order
