"""The rule-case corpus (tests/cases/): each worked example and Q&A of the rulebook, played through the engine.

A case file holds `section`, `title`, optional `seed` (the sandbox's secret, chosen to give the
rulebook's dice), a `[position]` (docs/positions.md), `[[orders]]` (`empire`, `order`, and `refused =
"<section>"` if the rules must refuse it) and `[expect]`: `events` (each a type and a subset of fields
that some event caused by the orders must match) and `view` (dotted paths into `mn show --json`).
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
from mncli.render import view
from mncore import events as ev
from mncore.decide import decide
from mncore.dice import GENESIS_HASH, Rng, commitment, seeded_secret
from mncore.errors import RuleViolation
from mncore.evolve import replay
from mncore.position import creation_command, creation_events, position_state, write_position
from mncore.store import chain_hash
from mncore.text import parse_order

CASES = sorted((Path(__file__).parent / "cases").glob("*.toml"))


def load_case(path: Path) -> dict[str, Any]:
    return tomllib.loads(path.read_text())


def lookup(doc: Any, dotted: str) -> Any:
    for key in dotted.split("."):
        doc = doc[int(key)] if isinstance(doc, list) else doc[key]
    return doc


def matches(event: ev.AnyEvent, wanted: dict[str, Any]) -> bool:
    doc = msgspec.to_builtins(event)
    return all(doc.get(k) == v for k, v in wanted.items())


class Engine:
    """A case's sandbox game in memory, its draws keyed by the chain head as the store does."""

    def __init__(self, case: dict[str, Any], path: Path) -> None:
        state = position_state(case["position"], str(path), path.parent)
        self.secret = seeded_secret(case.get("seed", "case"))
        self.events = creation_events(creation_command(state), Rng(self.secret, GENESIS_HASH),
                                      commitment(self.secret))
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
    caused: list[ev.AnyEvent] = []

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
    shown = json.loads(json.dumps(view(engine.state, None)))
    for dotted, value in expect.get("view", {}).items():
        assert lookup(shown, dotted) == value, dotted


def test_the_corpus_is_not_empty_and_names_its_sections() -> None:
    """Every case file names a cited section and is named after it."""
    from mncore.rulebook import citable

    assert CASES
    for path in CASES:
        case = load_case(path)
        assert citable(case["section"]) and path.stem.startswith(case["section"].replace(".", "_"))


def test_the_whole_corpus_plays_the_same_through_the_cli(tmp_path: Path) -> None:
    """mn new --position, mn order and mn show --json give each case's expected outcome."""
    run = CliRunner()
    for n, path in enumerate(CASES):
        case = load_case(path)
        db, pos = str(tmp_path / f"{n}.db"), tmp_path / f"{n}.toml"
        pos.write_text(write_position(position_state(case["position"], str(path), path.parent)))
        created = run.invoke(main, ["--db", db, "new", "--position", str(pos), "--id", "case",
                                    "--seed", case.get("seed", "case")])
        assert created.exit_code == 0, (path.stem, created.output)
        for step in case.get("orders", []):
            result = run.invoke(main, ["--db", db, "order", "case", "--as", step["empire"], step["order"]])
            if "refused" in step:
                assert result.exit_code == 1 and f"[rule {step['refused']}]" in result.stderr, path.stem
            else:
                assert result.exit_code == 0, (path.stem, result.output)
        shown = json.loads(run.invoke(main, ["--db", db, "show", "case", "--json"]).stdout)
        for dotted, value in case.get("expect", {}).get("view", {}).items():
            assert lookup(shown, dotted) == value, (path.stem, dotted)
        assert run.invoke(main, ["--db", db, "verify", "case"]).exit_code == 0, path.stem
