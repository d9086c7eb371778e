"""Meta-tests: citations exist, schemas and rulings doc are current, every event, command and verb is covered."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import get_args

import click
import pytest

from mncli.cli import main
from mncore import schemas
from mncore.core.kernel_rulings import KERNEL_BOOK
from mncore.core.rulebook import Rulebook
from mncore.rulesets.classic.rules_index import RULEBOOK as CLASSIC_BOOK
from mncore.rulesets.empires.commands import AnyCommand
from mncore.rulesets.empires.events import AnyEvent
from mncore.rulesets.empires.rules_index import RULEBOOK
from mncore.rulesets.empires.text import verbs

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted((ROOT / "mncore").rglob("*.py")) + sorted((ROOT / "mncli").rglob("*.py"))
_CITE_ARG = {"require": 1, "refuse": 0, "RuleViolation": 0}
_CITE_TEXT = re.compile(r"\[rule ([^\]\s]+)\]|\(ruling (R\d+)\)|ruling (R\d+)")


def _citations() -> list[tuple[str, int, str]]:
    """Every section id cited in the code, with where."""
    found: list[tuple[str, int, str]] = []
    for path in SOURCES:
        tree = ast.parse(path.read_text())
        docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                      if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef)) and n.body
                      and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
        for node in ast.walk(tree):
            if id(node) in docstrings:
                continue
            if isinstance(node, ast.Call):
                name = getattr(node.func, "id", getattr(node.func, "attr", None))
                pos = _CITE_ARG.get(name or "")
                if pos is not None and len(node.args) > pos:
                    arg = node.args[pos]
                    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                        found.append((str(path.relative_to(ROOT)), node.lineno, arg.value))
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                for m in _CITE_TEXT.finditer(node.value):
                    ref = next(g for g in m.groups() if g)
                    if "{" not in ref:
                        found.append((str(path.relative_to(ROOT)), node.lineno, ref))
    return found


def _book(path: str) -> Rulebook:
    """The rulebook a module's citations belong to: its ruleset's (the classic game's, or Empires')."""
    return CLASSIC_BOOK if path.startswith("mncore/rulesets/classic/") else RULEBOOK


def test_every_cited_section_exists_in_the_rules_index_or_the_rulings() -> None:
    """A refusal's [rule X] can always be looked up with mn rules X."""
    missing = [f"{p}:{line}: {ref}" for p, line, ref in _citations()
               if not (_book(p).citable(ref) or KERNEL_BOOK.citable(ref))]

    assert missing == []
    assert len(_citations()) > 10


def test_schemas_are_current() -> None:
    """schemas/ holds exactly what `python -m mncore.generated` would write."""
    wanted = schemas.schemas()
    on_disk = {str(p.relative_to(ROOT / "schemas")): p.read_text()
               for p in (ROOT / "schemas").rglob("*.json")}

    assert sorted(on_disk) == sorted(wanted), "run: python -m mncore.generated"
    assert all(on_disk[k] == wanted[k] for k in wanted), "run: python -m mncore.generated"


def test_rulings_doc_is_current() -> None:
    """docs/rulings.md is generated from mncore/rulesets/empires/data/rulings.toml."""
    assert RULEBOOK.doc is not None and RULEBOOK.doc.read_text() == RULEBOOK.render_doc(), "run: python -m mncore.generated"


def test_kernel_rulings_doc_is_current() -> None:
    """docs/kernel-rulings.md is generated from mncore/data/rulings.toml."""
    assert KERNEL_BOOK.doc is not None
    assert KERNEL_BOOK.doc.read_text() == KERNEL_BOOK.render_doc(), "run: python -m mncore.generated"


def test_kernel_rulings_are_well_formed_and_cited_by_the_kernel() -> None:
    """Every kernel ruling has an id Kn and all its parts, and the kernel cites it."""
    code = "\n".join(p.read_text() for p in SOURCES)

    for rid, r in KERNEL_BOOK.rulings.items():
        assert re.fullmatch(r"K\d+", rid)
        assert r.question and r.clauses and r.decision and r.reason
        assert re.search(rf"\b{rid}\b", code), rid


def test_ruling_ids_are_unique_and_well_formed() -> None:
    """Every ruling has an id Rn and all its parts."""
    for rid, r in RULEBOOK.rulings.items():
        assert re.fullmatch(r"R\d+", rid)
        assert r.question and r.clauses and r.decision and r.reason


def test_every_event_has_its_handler_in_evolve() -> None:
    """evolve()'s dispatch table has one handler for each event of the union and none for anything
    else (what assert_never guaranteed statically for the match it replaced)."""
    from mncore.rulesets.empires.evolve import HANDLERS

    events = set(get_args(AnyEvent))

    assert sorted(c.__name__ for c in events - set(HANDLERS)) == []
    assert sorted(c.__name__ for c in set(HANDLERS) - events) == []


def test_every_command_is_a_frozen_tagged_struct() -> None:
    """Commands and events are frozen and tagged by their class name."""
    for cls in (*get_args(AnyEvent), *get_args(AnyCommand)):
        assert cls.__struct_config__.frozen, cls
        assert cls.__struct_config__.tag == cls.__name__, cls


def _commands(group: click.Group, prefix: str = "") -> list[tuple[str, click.Command]]:
    out = []
    for name, cmd in sorted(group.commands.items()):
        out.append((prefix + name, cmd))
        if isinstance(cmd, click.Group):
            out += _commands(cmd, prefix + name + " ")
    return out


def test_every_cli_command_has_help_and_is_in_the_readme() -> None:
    """Each mn command has a help text and the README's command table names it."""
    readme = (ROOT / "README.md").read_text()

    for name, cmd in _commands(main):
        assert (cmd.help or "").strip(), name
        assert f"mn {name}" in readme, f"README does not document mn {name}"


def test_every_order_verb_is_documented() -> None:
    """docs/orders.md has a section for every order verb."""
    doc = (ROOT / "docs" / "orders.md").read_text()

    missing = [v for v in verbs() if f"`{v}" not in doc]

    assert missing == []


def test_every_module_opens_with_a_docstring() -> None:
    """Small modules with a one-line docstring."""
    missing = [str(p.relative_to(ROOT)) for p in SOURCES
               if p.stat().st_size and ast.get_docstring(ast.parse(p.read_text())) is None]

    assert missing == []


@pytest.mark.slow
def test_mypy_strict_is_clean() -> None:
    """The engine, the CLI and the tests type-check as pyproject.toml configures mypy (strict)."""
    from mypy import api

    out, err, code = api.run(["--config-file", str(ROOT / "pyproject.toml"), "--no-incremental",
                              str(ROOT / "mncore"), str(ROOT / "mncli"), str(ROOT / "tests")])

    assert code == 0, out + err


@pytest.mark.slow
def test_ruff_is_clean() -> None:
    """ruff passes with the rules pyproject.toml selects."""
    result = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", str(ROOT)], cwd=ROOT,
                            capture_output=True, text=True, timeout=120, check=False)

    assert result.returncode == 0, result.stdout + result.stderr


def test_the_package_ships_its_licence_and_type_marker() -> None:
    """LICENSE (MIT) and py.typed exist and pyproject.toml declares the licence (and no invented URL)."""
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]

    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
    assert (ROOT / "mncore" / "py.typed").exists() and (ROOT / "mncli" / "py.typed").exists()
    assert meta["license"] == "MIT"
    assert "urls" not in meta  # no public home yet: an address would be invented


def test_slow_tests_are_marked_and_the_readme_runs_them_all() -> None:
    """The `slow` marker is registered, and the README's test command selects no markers (all run)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    readme = (ROOT / "README.md").read_text()

    assert any(m.startswith("slow:") for m in config["markers"])
    assert "-m" not in config.get("addopts", "")
    assert ".venv/bin/python -m pytest\n" in readme and '-m "not slow"' in readme


def test_every_ruling_is_cited_where_the_code_applies_it() -> None:
    """No interpretation lives in the register alone: each ruling id appears in the engine or CLI."""
    code = "\n".join(p.read_text() for p in SOURCES)

    uncited = [rid for rid in RULEBOOK.rulings if not re.search(rf"\b{rid}\b", code)]

    assert uncited == []


def test_every_command_has_its_home_module_for_a_lean_start() -> None:
    """mn loads a command from its own module only; a command missing from the table would load all."""
    from mncli.cli import _HOME

    names = main.list_commands(click.Context(main))

    assert sorted(set(names) - set(_HOME)) == []
