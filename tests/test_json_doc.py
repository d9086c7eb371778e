"""docs/json.md documents every --json document: each table's fields are what the command prints."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mncli.cli import main

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "json.md").read_text()

POSITION = """
round = 2
phase = "build"
[step]
active = "rome"
[empires.rome]
resources = { coin = 1, grain = 1, metal = 1, oil = 1, wine = 1, papyrus = 1 }
[empires.greece]
[empires.carthage]
[provinces.latium]
controller = "rome"
"""


def tables(heading: str) -> list[set[str]]:
    """The field names (first column, in backticks) of each table under a `## heading`."""
    section = DOC.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    out: list[set[str]] = []
    for block in re.split(r"\n(?!\|)", section):
        rows = [r for r in block.splitlines() if r.startswith("| `")]
        if rows:
            out.append({re.match(r"\| `([^`]+)`", r)[1] for r in rows})  # type: ignore[index]
    return out


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A sandbox game in the Build phase where Rome has built a caravan (3 events), and a bundle."""
    tmp = tmp_path_factory.mktemp("json")
    path, db = tmp / "p.toml", tmp / "mn.db"
    path.write_text(POSITION)
    for args in (["new", "--position", str(path), "--id", "b"],
                 ["order", "b", "--as", "rome", "build caravan in latium at caravan-metal pay grain metal oil"],
                 ["dispute", "b", "--at", "3", "-o", str(tmp / "bundle.json")]):
        assert CliRunner().invoke(main, ["--db", str(db), *args]).exit_code == 0
    return db


def printed(db: Path, *args: str) -> Any:
    result = CliRunner().invoke(main, ["--db", str(db), *args, "--json"])
    return json.loads(result.stdout)


CASES = [
    ("`mn show` and `mn replay`", 0, ["show", "b"], None),
    ("`mn show` and `mn replay`", 0, ["replay", "b", "--to", "2"], None),
    ("`mn show` and `mn replay`", 1, ["show", "b"], lambda d: d["empires"]["rome"]),
    ("`mn show` and `mn replay`", 2, ["show", "b"], lambda d: d["provinces"]["latium"]),
    ("`mn status`", 0, ["status", "b"], None),
    ("`mn games`", 0, ["games"], lambda d: d[0]),
    ("`mn log`", 0, ["log", "b"], lambda d: d[0]),
    ("`mn options`", 0, ["options", "b", "--as", "rome"], lambda d: d[0]),
    ("`mn check`", 0, ["check", "b", "--as", "rome", "done"], None),
    ("`mn check`", 1, ["check", "b", "--as", "greece", "done"], None),
    ("`mn diff`", 0, ["diff", "b", "--at", "2"], lambda d: d[0]),
    ("`mn explain`", 0, ["explain", "b", "3"], None),
    ("`mn verify`", 0, ["verify", "b"], None),
    ("`mn verify`", 1, ["verify", "BUNDLE"], None),
    ("`mn rules`", 0, ["rules"], None),
    ("`mn rules`", 1, ["rules", "4.2"], None),
    ("`mn rules`", 2, ["rules", "R1"], None),
    ("`mn map show`", 0, ["map", "show", "crete"], None),
    ("`mn map show`", 1, ["map", "show", "mare-aegaeum"], None),
]


@pytest.mark.parametrize("heading, table, args, pick", CASES,
                         ids=[" ".join(c[2]) for c in CASES])
def test_each_json_document_has_the_documented_fields(db: Path, heading: str, table: int,
                                                      args: list[str], pick: Any) -> None:
    """The command's JSON document (or the part picked) has exactly the fields the table lists."""
    args = [str(db.parent / "bundle.json") if a == "BUNDLE" else a for a in args]
    doc = printed(db, *args)

    shown = pick(doc) if pick else doc

    assert set(shown) == tables(heading)[table]


def test_a_rule_refusal_as_json_carries_its_section_as_documented(db: Path) -> None:
    """A RuleViolation's error document adds `section`; a DataError's adds `problems`."""
    documented = tables("Errors")[0]

    error = printed(db, "explain", "b", "99")["error"]

    assert set(error) <= documented and {"code", "kind", "message"} <= set(error)


def test_every_command_with_json_has_its_section() -> None:
    """Each command that takes --json is named by a heading of docs/json.md."""
    import click

    def walk(group: click.Group, prefix: str) -> list[str]:
        out = []
        for name, cmd in group.commands.items():
            if isinstance(cmd, click.Group):
                out += walk(cmd, f"{prefix}{name} ")
            elif any(p.name == "as_json" for p in cmd.params):
                out.append(f"{prefix}{name}")
        return out

    headings = re.findall(r"^## (.*)$", DOC, re.M)

    assert [c for c in walk(main, "mn ") if not any(f"`{c}`" in h for h in headings)] == []
