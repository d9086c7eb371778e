"""The rule-case corpus (tests/cases/): each worked example and Q&A of the rulebook, played through the engine.

A case file holds `section`, `title`, optional `seed` (the sandbox's secret, chosen to give the
rulebook's dice), a `[position]` (docs/positions.md), `[[orders]]` (`empire`, `order`, and `refused =
"<section>"` if the rules must refuse it) and `[expect]`: `events` (each a type and a subset of fields,
nested tables matched as subsets too, that some event must match: an event that followed the position
by itself, e.g. the next phase's collection, or one caused by the orders), `view` (dotted paths into
`mn show --json`) and `null` (dotted paths whose value must be null, which TOML cannot write).
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import msgspec
import pytest
from click.testing import CliRunner

from mncli.cli import main
from mncore.core.chain import content_link as chain_hash  # the content chain keys the draws
from mncore.core.dice import GENESIS_HASH, Rng, commitment, seeded_secret
from mncore.core.errors import RuleViolation
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.decide import decide
from mncore.rulesets.empires.evolve import replay
from mncore.rulesets.empires.position import creation_command, creation_events, position_state, write_position
from mncore.rulesets.empires.render import view
from mncore.rulesets.empires.text import parse_order
from mncore.secrecy.boundary import as_host

CASES = sorted((Path(__file__).parent / "cases").glob("*.toml"))


def load_case(path: Path) -> dict[str, Any]:
    return tomllib.loads(path.read_text())


def lookup(doc: Any, dotted: str) -> Any:
    for key in dotted.split("."):
        doc = doc[int(key)] if isinstance(doc, list) else doc[key]
    return doc


def subset(doc: Any, wanted: Any) -> bool:
    """wanted is doc, or for a table, a subset of its keys each matching in turn."""
    if isinstance(wanted, dict) and isinstance(doc, dict):
        return all(k in doc and subset(doc[k], v) for k, v in wanted.items())
    return bool(doc == wanted)


def _full(obj: Any) -> Any:
    """An event as JSON-like data with every field, defaults included (the stored JSON omits them)."""
    if isinstance(obj, msgspec.Struct):
        out = {f: _full(getattr(obj, f)) for f in obj.__struct_fields__}
        tag = obj.__struct_config__.tag
        return {**out, "type": tag} if tag else out
    if isinstance(obj, dict):
        return {k: _full(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_full(v) for v in obj]
    return obj


def matches(event: ev.AnyEvent, wanted: dict[str, Any]) -> bool:
    return subset(json.loads(json.dumps(_full(event))), wanted)


class Engine:
    """A case's sandbox game in memory, its draws keyed by the chain head as the store does."""

    def __init__(self, case: dict[str, Any], path: Path) -> None:
        state = position_state(case["position"], str(path), path.parent)
        self.secret = seeded_secret(case.get("seed", "case"))
        self.events = creation_events(creation_command(state), Rng(self.secret, GENESIS_HASH),
                                      commitment(self.secret))
        self.opening = self.events[2:]  # what followed GameCreated and PositionLoaded by itself
        self.head = GENESIS_HASH
        for e in self.events:
            self.head = chain_hash(self.head, ev.encode_event(e).decode())
        self.state = replay(self.events)

    def order(self, empire: str, line: str) -> list[ev.AnyEvent]:
        out = decide(self.state, parse_order(line, self.state, empire), Rng(self.secret, self.head))  # type: ignore[arg-type]
        for e in out:
            self.head = chain_hash(self.head, ev.encode_event(e).decode())
        self.events += out
        self.state = replay(out, self.state)
        return out


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_case(path: Path) -> None:
    """The case's orders are refused with their section or accepted, with the expected outcome."""
    case = load_case(path)
    engine = Engine(case, path)
    caused: list[ev.AnyEvent] = list(engine.opening)

    for step in case.get("orders", []):
        before = engine.state
        if "refused" in step:
            with pytest.raises(RuleViolation) as err:
                engine.order(step["empire"], step["order"])
            assert err.value.section == step["refused"], f"{step['order']}: {err.value.message}"
            assert engine.state == before
        else:
            caused += engine.order(step["empire"], step["order"])

    expect = case.get("expect", {})
    for wanted in expect.get("events", []):
        assert any(matches(e, wanted) for e in caused), wanted
    shown = json.loads(json.dumps(view(as_host(engine.state))))
    for dotted, value in expect.get("view", {}).items():
        assert lookup(shown, dotted) == value, dotted
    for dotted in expect.get("null", []):
        assert lookup(shown, dotted) is None, dotted


def test_the_corpus_is_not_empty_and_names_its_sections() -> None:
    """Every case file names a cited section and is named after it."""
    from mncore.rulesets.empires.rules_index import RULEBOOK

    assert CASES
    for path in CASES:
        case = load_case(path)
        # a hyphen in a section id may be an underscore in the file name (atlas.punic-trade)
        stem = path.stem.replace("-", "_")
        assert RULEBOOK.citable(case["section"]) and stem.startswith(case["section"].replace(".", "_").replace("-", "_"))


@pytest.mark.slow
def test_the_whole_corpus_plays_the_same_through_the_cli(tmp_path: Path) -> None:
    """mn new --position, mn order and mn show --json give each case's expected outcome."""
    run = CliRunner()
    for n, path in enumerate(CASES):
        case = load_case(path)
        db, pos = str(tmp_path / f"{n}.db"), tmp_path / f"{n}.toml"
        pos.write_text(write_position(as_host(position_state(case["position"], str(path), path.parent))))
        created = run.invoke(main, ["--db", db, "new", "--position", str(pos), "--id", "case",
                                    "--seed", case.get("seed", "case")])
        assert created.exit_code == 0, (path.stem, created.output)
        for step in case.get("orders", []):
            result = run.invoke(main, ["--db", db, "order", "case", "--as", step["empire"], step["order"]])
            if "refused" in step:
                assert result.exit_code == 1 and f"[rule empires:{step['refused']}]" in result.stderr, path.stem
            else:
                assert result.exit_code == 0, (path.stem, result.output)
        shown = json.loads(run.invoke(main, ["--db", db, "show", "case", "--json"]).stdout)
        for dotted, value in case.get("expect", {}).get("view", {}).items():
            assert lookup(shown, dotted) == value, (path.stem, dotted)
        for dotted in case.get("expect", {}).get("null", []):
            assert lookup(shown, dotted) is None, (path.stem, dotted)
        assert run.invoke(main, ["--db", db, "verify", "case"]).exit_code == 0, path.stem
