"""mncore.rulesets.players_by_id: each ruleset's demonstration game found by ruleset id, above the service."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from mncli.cli import main
from mncore.core.protocol import Demo, Ruleset
from mncore.rulesets import players_by_id, registry
from toy import RULESET as TOY


def mn(db: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["--db", str(db), *args])


def test_each_builtin_ruleset_has_a_demo_found_by_its_id() -> None:
    """Empires seats 3 to 5 scripted players, the 2003 game 3 to 6; each demo names its ruleset."""
    found = {r.short: players_by_id.demo_for(r) for r in registry.builtin()}

    assert {short: (d.ruleset_id, d.players) for short, d in found.items() if d is not None} == {
        "empires": ("mare-nostrum-empires-2016", (3, 5)), "classic": ("mare-nostrum-classic-2003", (3, 6))}


def test_a_ruleset_without_a_demo_has_none() -> None:
    """The toy registers no demo: demo_for says so, and mn demo refuses it as bad input."""
    assert players_by_id.demo_for(TOY) is None


def test_a_registered_demo_is_what_mn_demo_plays(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A plugin's demo, registered for its ruleset, is played by mn demo within its own bounds."""
    monkeypatch.setattr(players_by_id, "_registered", {})
    played: list[tuple[str, int, str]] = []

    def play(ruleset: Ruleset, store: Any, count: int, seed: str, max_orders: int,
             echo: Callable[[str], None]) -> str:
        played.append((ruleset.id, count, seed))
        echo("played")
        return "g"

    players_by_id.register(Demo(ruleset_id=TOY.id, players=(3, 4), play=play))

    ok = mn(tmp_path / "d.db", "demo", "--ruleset", "toy", "--players", "3", "--seed", "s")
    too_many = mn(tmp_path / "d.db", "demo", "--ruleset", "toy", "--players", "5")

    assert ok.exit_code == 0 and ok.output == "played\n"
    assert too_many.exit_code == 2 and "plays 3 to 4" in too_many.output
    assert played == [(TOY.id, 3, "s")]
