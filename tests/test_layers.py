"""The import graph of mncore and mncli: no cycle, no upward import between the declared layers."""

from __future__ import annotations

import ast
import fnmatch
from collections.abc import Iterator, Mapping, Set
from pathlib import Path
from typing import TypeAlias

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("mncore", "mncli")
E = "mncore.rulesets.empires"
C = "mncore.rulesets.classic"

# A layer is a list of patterns (module names or globs), a stack or a set of groups side by side.
# In a stack (a tuple, lowest first) a module may import its own layer and any lower one, never a higher
# one. Side by side (a dict), the groups are independent: a group may not import another. The most
# specific pattern (an exact name, else the longest glob) places a module.
Layer: TypeAlias = "list[str] | tuple[tuple[str, Layer], ...] | dict[str, Layer]"

# Each ruleset's own layers, lowest first. The rules check and return events and the reducer applies
# them and checks nothing: neither knows the other, the rules see the state after their own events
# through the Fold (rules/fold.py) the flow passes in.
EMPIRES: Layer = (
    ("ids", [f"{E}.ids"]),
    ("data", [f"{E}.data", f"{E}.game_data", f"{E}.boardtypes", f"{E}.boardcheck", f"{E}.board",
              f"{E}.typed_names", f"{E}.display_names", f"{E}.rules_index", f"{E}.atlas", f"{E}.cities"]),
    ("state", [f"{E}.state"]),
    ("facts", [f"{E}.events", f"{E}.commands", f"{E}.kept", f"{E}.projections", f"{E}.random_draws",
               f"{E}.rules.fold"]),
    ("rules | reducer", {"rules": [f"{E}.rules", f"{E}.rules.*", f"{E}.tile_powers", f"{E}.tile_powers.*"],
                         "reducer": [f"{E}.evolve", f"{E}.evolve_runs"]}),
    ("flow", [f"{E}.flow", f"{E}.decide"]),
    ("text", [f"{E}.text", f"{E}.text.*"]),
    ("views", [f"{E}.render", f"{E}.explain", f"{E}.diff", f"{E}.position", f"{E}.positioncheck",
               f"{E}.defaults", f"{E}.maptext", f"{E}.geo", f"{E}.board_svg"]),
    ("seam", [E, f"{E}.seam"]),
)
CLASSIC: Layer = (
    ("ids", [f"{C}.ids"]),
    ("data", [f"{C}.data", f"{C}.components", f"{C}.rules_index", f"{C}.card_powers"]),
    ("state", [f"{C}.state"]),
    ("facts", [f"{C}.events", f"{C}.commands", f"{C}.rules.fold"]),
    ("rules | reducer", {"rules": [f"{C}.rules", f"{C}.rules.*"], "reducer": [f"{C}.evolve"]}),
    ("flow", [f"{C}.flow"]),
    ("text", [f"{C}.text"]),
    ("views", [f"{C}.render", f"{C}.board_svg", f"{C}.maptext", f"{C}.hiding", f"{C}.audit_tools"]),
    ("seam", [C, f"{C}.seam"]),
)
RULESETS = {"empires": E, "classic": C}

# The whole tree, as its folders show it. The kernel knows no game: its core (mncore/core: the protocol,
# the envelope of its own acts, chain, dice, refusals), the store (mncore/store), the secrecy boundary
# (mncore/secrecy), the kernel's acts of play by email (mncore/pbem: turns, signing, trust, draw keys)
# and the drawing aids (mncore/pictures: coast, labels, the kept labels, raster). The rulesets stand on it (mncore/rulesets/*),
# side by side; the registry finds them by id (mncore/rulesets/registry.py). The game service stands on
# the registry, lowest first: reading a log; its verification and a game's state; the games' service
# (mncore/games) with its audits (mncore/audits), reports and pictures; the mail in and out; mn serve
# and the player's client. The scripted players play through the service, found by
# mncore.rulesets.players_by_id; the CLI last. The registry's imports of the seams are edges like any other.
KERNEL: Layer = ["mncore", "mncore.data", "mncore.core", "mncore.core.*", "mncore.store", "mncore.store.*",
                 "mncore.secrecy", "mncore.secrecy.*", "mncore.pbem", "mncore.pbem.turns", "mncore.pbem.signing",
                 "mncore.pbem.trust", "mncore.pbem.draw_keys", "mncore.pbem.line_problems", "mncore.pbem.seats",
                 "mncore.pbem.mail",
                 "mncore.pbem.mail.blocks", "mncore.pbem.mail.book", "mncore.pbem.mail.limits",
                 "mncore.pictures", "mncore.pictures.coast", "mncore.pictures.labels", "mncore.pictures.kept_labels",
                 "mncore.pictures.raster"]
SERVICE: Layer = (
    ("log reading", ["mncore.games.log_reading", "mncore.audits.sealing"]),
    ("verification, the state", ["mncore.audits.verify", "mncore.audits.verify_stream", "mncore.audits.verify_acts",
                                 "mncore.audits.verify_carry", "mncore.games.reading"]),
    ("games", ["mncore.games", "mncore.games.*", "mncore.audits", "mncore.audits.*", "mncore.pbem.report",
               "mncore.pictures.changes", "mncore.pictures.pages", "mncore.schemas", "mncore.generated"]),
    ("mail", ["mncore.pbem.mail.inbox", "mncore.pbem.mail.outbox"]),
    ("mn serve, the client", ["mncore.service", "mncore.service.*", "mncore.client", "mncore.client.*"]),
)
LAYERS: Layer = (
    ("kernel", KERNEL),
    ("rulesets", {"empires": EMPIRES, "classic": CLASSIC}),
    ("registry", ["mncore.rulesets", "mncore.rulesets.registry"]),
    ("service", SERVICE),
    # the bots' machinery knows no game; each ruleset's players (its tactics among them) stand on it
    ("players", (("bots", ["mncore.bots", "mncore.bots.*"]),
                 ("rulesets' players", {"empires": [f"{E}.players", f"{E}.players.*"],
                                        "classic": [f"{C}.players", f"{C}.players.*"]}))),
    ("players' registry", ["mncore.rulesets.players_by_id"]),
    ("cli", ["mncli", "mncli.*"]),
)

# The two lookup tables by ruleset id, the only kernel modules that import a ruleset's modules.
LOOKUPS = {"mncore.rulesets.registry", "mncore.rulesets.players_by_id"}


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


Graph: TypeAlias = Mapping[str, Set[str]]
GRAPH: Graph = {name: {m for m in _imported(name, path) if m.split(".")[0] in PACKAGES and m != name}
                for name, path in MODULES.items()}

# A place in LAYERS: per level, the index of a stack's layer or the name of a group side by side.
Step: TypeAlias = "int | str"


def _patterns(layer: Layer, path: tuple[Step, ...] = ()) -> Iterator[tuple[str, tuple[Step, ...]]]:
    """Every pattern of a layer, with the place it gives."""
    if isinstance(layer, list):
        yield from ((pattern, path) for pattern in layer)
    elif isinstance(layer, tuple):
        for index, (_, inner) in enumerate(layer):
            yield from _patterns(inner, (*path, index))
    else:
        for group, inner in layer.items():
            yield from _patterns(inner, (*path, group))


PATTERNS = list(_patterns(LAYERS))


def _placing(module: str) -> tuple[str, tuple[Step, ...]]:
    """(pattern, place) of a module, by the most specific pattern that matches it."""
    found = [(pattern == module, len(pattern), pattern, path) for pattern, path in PATTERNS
             if fnmatch.fnmatchcase(module, pattern)]
    assert found, f"{module} is in no layer: add it to LAYERS"
    _, _, pattern, path = max(found, key=lambda f: (f[0], f[1]))
    return pattern, path


def _place(module: str) -> tuple[Step, ...]:
    return _placing(module)[1]


def _name(path: tuple[Step, ...]) -> str:
    """A place in words: 'rulesets/classic/rules | reducer/rules'."""
    names, layer = [], LAYERS
    for step in path:
        if isinstance(step, int):
            assert isinstance(layer, tuple)
            name, layer = layer[step]
        else:
            assert isinstance(layer, dict)
            name, layer = step, layer[step]
        names.append(name)
    return "/".join(names)


def _allowed(source: tuple[Step, ...], target: tuple[Step, ...]) -> bool:
    """Whether a module at source may import one at target: where their places part, the target lies
    lower in a stack; parting side by side (another group) is never allowed."""
    for s, t in zip(source, target):
        if s != t:
            return isinstance(s, int) and isinstance(t, int) and t < s
    return True


def _upward(graph: Graph) -> list[str]:
    """Every import of a higher layer or of another group side by side."""
    found = []
    for module, targets in sorted(graph.items()):
        here = _place(module)
        for target in sorted(targets):
            there = _place(target)
            if not _allowed(here, there):
                found.append(f"{module} ({_name(here)}) imports {target} ({_name(there)})")
    return found


def _cycles(graph: Graph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph.get(v, ())):
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

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def _is_kernel(module: str) -> bool:
    return module.startswith("mncore") and (not module.startswith("mncore.rulesets.") or module in LOOKUPS)


def _with(edge: tuple[str, str]) -> Graph:
    """GRAPH with one more import."""
    return {**GRAPH, edge[0]: GRAPH[edge[0]] | {edge[1]}}


def test_every_import_names_a_module_that_exists() -> None:
    """Each import of ours resolves to a module or package file (the graph has no dangling edge)."""
    dangling = sorted(f"{m} -> {t}" for m, targets in GRAPH.items() for t in targets if t not in MODULES)

    assert not dangling, "\n".join(dangling)


def test_every_module_has_a_layer() -> None:
    """Each module of mncore and mncli is placed by LAYERS (a new module must be given a place)."""
    for module in MODULES:
        _place(module)


def test_each_ruleset_module_is_placed_by_its_own_layers() -> None:
    """A ruleset's module is placed by a pattern of that ruleset, never by the kernel's `mncore.*`:
    each ruleset package under mncore/rulesets/ declares its layers, so they are checked."""
    astray = []
    for module in MODULES:
        parts = module.split(".")
        if module.startswith("mncore.rulesets.") and len(parts) > 2:
            package = ".".join(parts[:3])
            pattern, _ = _placing(module)
            if not pattern.startswith(package):
                astray.append(f"{module} placed by {pattern}")

    assert not astray, "\n".join(astray)
    assert {".".join(m.split(".")[:3]) for m in MODULES
            if m.startswith("mncore.rulesets.") and m not in LOOKUPS} == set(RULESETS.values())


def test_no_import_cycle() -> None:
    """No group of modules imports itself round, even through imports inside functions or the registry."""
    cycles = _cycles(GRAPH)

    assert not cycles, "\n".join("import cycle among " + ", ".join(c) for c in cycles)


def test_no_upward_import() -> None:
    """No module imports a higher layer, or another group of its own layer: no exemption, the registry's
    imports of the seams and the players' of the service included."""
    upward = _upward(GRAPH)

    assert not upward, "\n".join(upward)


def test_the_registry_edges_are_in_the_graph() -> None:
    """The registry's run-time lookups of the seams are edges of the graph like any other."""
    assert {f"{E}.seam", f"{C}.seam"} <= GRAPH["mncore.rulesets.registry"]


def test_a_seam_naming_its_players_would_fail() -> None:
    """The circle this test once missed: a seam importing its demo (which plays through mncore.games,
    which reads logs through the registry) is both a cycle through the registry and an upward import."""
    for short, package in RULESETS.items():
        graph = _with((f"{package}.seam", f"{package}.players.demo"))

        assert any({"mncore.rulesets.registry", "mncore.games.writing", f"{package}.seam"} <= set(c) for c in _cycles(graph)), short
        assert f"{package}.seam (rulesets/{short}/seam) imports {package}.players.demo (players/rulesets' players/{short})" in _upward(graph)


def test_a_ruleset_importing_another_would_fail() -> None:
    """The rulesets stand side by side: one importing another's module is refused."""
    assert _upward(_with((f"{C}.flow", f"{E}.ids")))


def test_the_kernel_names_no_ruleset_and_no_cli() -> None:
    """Only the two lookup tables by ruleset id (the registry, the players') import a ruleset's module."""
    naming = sorted(m for m, targets in GRAPH.items() if _is_kernel(m) and m not in LOOKUPS
                    and any(t.startswith("mncore.rulesets.") and t not in LOOKUPS for t in targets))
    cli = sorted(m for m, targets in GRAPH.items() if _is_kernel(m) and any(t.startswith("mncli") for t in targets))

    assert naming == []
    assert cli == []


def test_the_rules_import_neither_the_reducer_nor_presentation() -> None:
    """No rules module of any ruleset imports its evolve, flow, decide, text, views or players (stated
    apart from LAYERS)."""
    found = []
    for package in RULESETS.values():
        above = tuple(f"{package}.{m}" for m in ("evolve", "flow", "decide", "text", "render", "explain",
                                                 "players"))
        found += sorted(f"{m} -> {t}" for m, targets in GRAPH.items() if m.startswith(f"{package}.rules")
                        for t in targets if t.startswith(above))

    assert not found, "\n".join(found)


def test_no_dynamic_import() -> None:
    """No importlib.import_module or __import__ (they hide edges from this graph)."""
    found = []
    for module, path in MODULES.items():
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
