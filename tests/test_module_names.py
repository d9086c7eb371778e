"""Module names say what they hold and never collide: one name, one module, in the kernel and in each ruleset."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MNCORE = ROOT / "mncore"
RULESETS = [MNCORE / "rulesets" / name for name in ("empires", "classic")]
# a ruleset's topic may have a module in each of these folders: its rules, its sentences, its powers
PARALLEL = {"", "rules", "text", "tile_powers"}


def _name(path: Path) -> str:
    return path.parent.name if path.name == "__init__.py" else path.stem


def _names(paths: list[Path]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = defaultdict(list)
    for path in paths:
        found[_name(path)].append(str(path.relative_to(ROOT)))
    return found


def _kernel_modules() -> list[Path]:
    return [p for p in MNCORE.rglob("*.py") if not any(r in p.parents for r in RULESETS)]


def test_no_two_kernel_modules_share_a_name() -> None:
    """Outside the rulesets no two modules or packages share a name (once `draw.py` stood beside
    `draws.py`, two `registry.py`, three `bounds.py`-like names)."""
    repeated = {n: ps for n, ps in _names(_kernel_modules()).items() if len(ps) > 1}

    assert not repeated, repeated


def test_a_ruleset_repeats_a_name_only_for_one_topic_in_its_parallel_folders() -> None:
    """Within a ruleset a name repeats only as one topic's rules, sentences and powers (rules/trade.py,
    text/trade.py), never twice in one folder or in another folder."""
    for ruleset in RULESETS:
        modules = [p for p in ruleset.rglob("*.py") if "data" not in p.relative_to(ruleset).parts]
        for name, paths in _names(modules).items():
            if len(paths) < 2:
                continue
            folders = [str(Path(p).parent.relative_to(ruleset.relative_to(ROOT))).replace(".", "") for p in paths]
            assert len(set(folders)) == len(folders), (name, paths)
            assert set(folders) <= PARALLEL, (name, paths)


def test_no_ruleset_module_is_named_after_a_kernel_package() -> None:
    """A ruleset's `audits.py` beside the kernel's `mncore/audits/` read as one thing; no longer."""
    packages = {p.parent.name for p in _kernel_modules() if p.name == "__init__.py"} - {"mncore", "rulesets", "data"}
    clashes = sorted(str(p.relative_to(ROOT)) for r in RULESETS for p in r.rglob("*.py") if _name(p) in packages)

    assert clashes == []
