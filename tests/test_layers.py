"""The import graph of mncore and mncli: no cycle, no upward import between the declared layers."""

from __future__ import annotations

import ast
import fnmatch
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("mncore", "mncli")
E = "mncore.rulesets.empires"

# The layers, lowest first. A module may import its own layer and any lower one, never a higher one.
# A layer given as a dict holds independent groups: a group may not import another group of its layer.
# Patterns are module names or globs; the most specific pattern (an exact name, else the longest glob)
# places a module.
LAYERS: tuple[tuple[str, list[str] | dict[str, list[str]]], ...] = (
    ("kernel", ["mncore", "mncore.*"]),
    ("ids", [f"{E}.ids"]),
    ("data", [f"{E}.data", f"{E}.ruleset", f"{E}.boardtypes", f"{E}.boardcheck", f"{E}.board",
              f"{E}.names", f"{E}.naming", f"{E}.book", f"{E}.atlas", f"{E}.cities"]),
    ("state", [f"{E}.state"]),
    ("facts", [f"{E}.events", f"{E}.commands", f"{E}.projections", f"{E}.draws", f"{E}.rules.fold"]),
    # the rules check and return events; the reducer applies them and checks nothing: neither knows the other
    ("rules | reducer", {"rules": [f"{E}.rules", f"{E}.rules.*", f"{E}.powers", f"{E}.powers.*"],
                         "reducer": [f"{E}.evolve"]}),
    ("flow", [f"{E}.flow", f"{E}.decide"]),
    ("text", [f"{E}.text", f"{E}.text.*"]),
    ("views", [f"{E}.render", f"{E}.explain", f"{E}.diff", f"{E}.position", f"{E}.positioncheck",
               f"{E}.autoplay", f"{E}.defaults", f"{E}.sampler", f"{E}.maptext", f"{E}.draw"]),
    # the seam is the package as the kernel sees it; the demo plays through the kernel's service
    ("ruleset packages", ["mncore.rulesets", E, f"{E}.seam", f"{E}.demo"]),
    ("cli", ["mncli", "mncli.*"]),
)

# The kernel is written against the Ruleset protocol and names no ruleset: only the registry, the one
# place that finds rulesets by id, imports ruleset packages.
KERNEL_MAY_IMPORT_RULESETS = {"mncore.registry"}
# Kernel modules that still import a ruleset directly, not through the Ruleset protocol (none now; the
# test fails while an entry is stale).
KERNEL_NOT_YET_BEHIND_THE_PROTOCOL: set[str] = set()


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES: dict[str, Path] = {_module_name(p): p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))}


def _imported(name: str, path: Path) -> Iterator[str]:
    """Every module of ours that a module imports, at module or function level (TYPE_CHECKING too)."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            for alias in node.names:
                submodule = f"{source}.{alias.name}"  # `from pkg import mod` imports the module pkg.mod
                yield submodule if submodule in MODULES else source


def _graph() -> dict[str, set[str]]:
    return {name: {m for m in _imported(name, path) if m.split(".")[0] in PACKAGES and m != name
                   and not _lookup(name, m)}
            for name, path in MODULES.items()}


def _lookup(module: str, target: str) -> bool:
    """The registry's imports of ruleset packages: a run-time lookup by the id a log records (the
    plugin point), not a dependency of the kernel; every other edge counts."""
    return module == "mncore.registry" and target.startswith("mncore.rulesets.")


GRAPH = _graph()


def _place(module: str) -> tuple[int, str]:
    """(layer index, group) of a module, by the most specific pattern that matches it."""
    best: tuple[tuple[bool, int], int, str] | None = None
    for index, (_, spec) in enumerate(LAYERS):
        groups = spec if isinstance(spec, dict) else {"": spec}
        for group, patterns in groups.items():
            for pattern in patterns:
                if fnmatch.fnmatchcase(module, pattern):
                    rank = (pattern == module, len(pattern))
                    if best is None or rank > best[0]:
                        best = (rank, index, group)
    assert best is not None, f"{module} is in no layer: add it to LAYERS"
    return best[1], best[2]


def _cycles() -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(GRAPH[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(GRAPH):
        if v not in index:
            visit(v)
    return out


def _is_kernel(module: str) -> bool:
    return module.startswith("mncore") and not module.startswith("mncore.rulesets")


def test_every_import_names_a_module_that_exists() -> None:
    """Each import of ours resolves to a module or package file (the graph has no dangling edge)."""
    dangling = sorted(f"{m} -> {t}" for m, targets in GRAPH.items() for t in targets if t not in MODULES)

    assert not dangling, "\n".join(dangling)


def test_every_module_has_a_layer() -> None:
    """Each module of mncore and mncli is placed by LAYERS (a new module must be given a place)."""
    for module in MODULES:
        _place(module)


def test_no_import_cycle() -> None:
    """No group of modules imports itself round, even through imports inside functions."""
    cycles = _cycles()

    assert not cycles, "\n".join("import cycle among " + ", ".join(c) for c in cycles)


def test_no_upward_import() -> None:
    """No module imports a higher layer, or another group of its own layer (the kernel's pending list apart)."""
    upward = []
    for module, targets in sorted(GRAPH.items()):
        layer, group = _place(module)
        for target in sorted(targets):
            t_layer, t_group = _place(target)
            if t_layer > layer or (t_layer == layer and t_group != group):
                if _is_kernel(module) and module in KERNEL_NOT_YET_BEHIND_THE_PROTOCOL | KERNEL_MAY_IMPORT_RULESETS:
                    continue
                upward.append(f"{module} ({LAYERS[layer][0]}) imports {target} ({LAYERS[t_layer][0]})")

    assert not upward, "\n".join(upward)


def test_the_kernel_names_no_ruleset_and_no_cli() -> None:
    """Only the registry imports a ruleset; the pending list is exactly the modules that still do."""
    naming = {m for m, targets in GRAPH.items() if _is_kernel(m) and m not in KERNEL_MAY_IMPORT_RULESETS
              and any(t.startswith("mncore.rulesets") for t in targets)}
    cli = sorted(m for m, targets in GRAPH.items() if _is_kernel(m) and any(t.startswith("mncli") for t in targets))

    assert sorted(naming) == sorted(KERNEL_NOT_YET_BEHIND_THE_PROTOCOL)
    assert cli == []


def test_the_rules_import_neither_the_reducer_nor_presentation() -> None:
    """No rules module imports evolve, flow, decide, text, render, explain or autoplay (stated apart from LAYERS)."""
    above = (f"{E}.evolve", f"{E}.flow", f"{E}.decide", f"{E}.text", f"{E}.render", f"{E}.explain",
             f"{E}.autoplay")
    found = sorted(f"{m} -> {t}" for m, targets in GRAPH.items() if m.startswith(f"{E}.rules")
                   for t in targets if t.startswith(above))

    assert not found, "\n".join(found)


def test_no_dynamic_import() -> None:
    """No importlib.import_module or __import__ (they hide edges from this graph); the registry apart."""
    found = []
    for module, path in MODULES.items():
        if module in KERNEL_MAY_IMPORT_RULESETS:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call):
                f = node.func
                called = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
                if called in ("import_module", "__import__"):
                    found.append(f"{module}:{node.lineno}")

    assert not found, "dynamic imports: " + ", ".join(found)


def test_the_graph_sees_imports_inside_functions() -> None:
    """The parser follows function-level imports (mncli.cli imports its command modules inside main)."""
    assert "mncli.audit_cmds" in GRAPH["mncli.cli"]
