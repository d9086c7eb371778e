"""The kernel and the CLI know no game: no module outside the ruleset packages names a game's things."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from mncore.rulesets.classic.components import game_data as classic_data
from mncore.rulesets.empires.game_data import load_ruleset
from mncore.rulesets.empires.ids import COMMODITIES, EMPIRES, PHASES, TILE_IDS

ROOT = Path(__file__).resolve().parent.parent
RULESETS = ROOT / "mncore" / "rulesets"  # each game's own package names its things
KERNEL = [p for p in sorted((ROOT / "mncore").rglob("*.py")) + sorted((ROOT / "mncli").rglob("*.py"))
          if RULESETS not in p.parents]


def _distinctive() -> set[str]:
    """Empire, commodity and tile ids with their names and aliases: words no other game would use."""
    data = load_ruleset()
    names: set[str] = {*EMPIRES, *COMMODITIES, *TILE_IDS}
    for things in (data.empires, data.commodities, data.tiles):
        for thing in things:
            names |= {thing.id, thing.name, *thing.aliases}
    classic = classic_data()  # the 2003 game's civilisations and creatures
    for civ in classic.civ:
        names |= {civ.id, civ.name, *civ.aliases}
    names |= {c.name for c in classic.creature}
    return {n.lower() for n in names}


DISTINCTIVE = _distinctive()
# "trade", "build", "move" are also plain English: a phase is flagged only as a whole literal or name
PHASE_NAMES = {p.lower() for p in PHASES}
_WORDS = re.compile(r"\b(" + "|".join(re.escape(n) for n in sorted(DISTINCTIVE, key=len, reverse=True))
                    + r")\b", re.IGNORECASE)


def _docstrings(tree: ast.AST) -> set[int]:
    """The docstrings that are prose for readers of the code; a decorated function's (a click
    command's) is its help text, shown to users, and is read as code."""
    return {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and not (isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.decorator_list)
            and n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}


def _identifiers(node: ast.AST) -> list[str]:
    match node:
        case ast.Name(id=name) | ast.Attribute(attr=name) | ast.arg(arg=name):
            return [name]
        case ast.FunctionDef(name=name) | ast.AsyncFunctionDef(name=name) | ast.ClassDef(name=name):
            return [name]
        case ast.keyword(arg=str(name)):
            return [name]
        case ast.alias(name=name, asname=asname):
            return [*name.split("."), *([asname] if asname else [])]
        case ast.ImportFrom(module=str(module)):
            return module.split(".")
    return []


def _findings(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    skip = _docstrings(tree)
    where = path.relative_to(ROOT)
    out: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            words = [m.group(1) for m in _WORDS.finditer(node.value)]
            if node.value.strip().lower() in PHASE_NAMES:
                words.append(node.value)
            out += [f"{where}:{node.lineno}: string names '{w}'" for w in words]
        for name in _identifiers(node):
            parts = {p.lower() for p in name.split("_") if p}
            hits = sorted(parts & DISTINCTIVE) + ([name] if name.lower() in PHASE_NAMES else [])
            out += [f"{where}:{getattr(node, 'lineno', 0)}: identifier {name} names '{h}'"
                    for h in hits]
    return out


def test_the_grep_knows_the_empires_names() -> None:
    """The names searched for are loaded from the Empires and classic data, not typed here."""
    assert {"rome", "carthage", "wine", "caesar", "pyramids"} <= DISTINCTIVE
    assert {"atlantis", "atlanteon", "minotaur"} <= DISTINCTIVE
    assert PHASE_NAMES == {"collect", "trade", "build", "move", "leadership"}


def test_the_grep_finds_a_name_in_code() -> None:
    """A literal, a help text and an identifier naming an Empires thing are caught; prose is not."""
    probe = ROOT / "tests" / "_probe_kernel_names.py"
    probe.write_text('"""A docstring: Rome."""\nrome = 1\nhelp = "e.g. --empire greece"\n'
                     'phase = "leadership"\n\n@click.command()\ndef new() -> None:\n'
                     '    """mn new --empire carthage"""\n')
    try:
        found = sorted(f.split(": ", 1)[1] for f in _findings(probe))
    finally:
        probe.unlink()

    assert found == ["identifier rome names 'rome'", "string names 'carthage'",
                     "string names 'greece'", "string names 'leadership'"]


def test_no_kernel_or_cli_module_names_an_empires_thing() -> None:
    """Outside mncore/rulesets/, no literal or name is an Empires empire, commodity, tile or phase, or
    a classic civilisation or creature."""
    found = [f for path in KERNEL for f in _findings(path)]

    assert found == [], "\n".join(found)
