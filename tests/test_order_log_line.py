"""The line an accepted order logs: built only when a level that emits it is set (mn -v)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from mncli.cli import main
from mncore.core import log_lines
from mncore.store import open_store

TOY = ["new", "--ruleset", "toy", "--empire", "red", "--empire", "blue", "--player", "red=Ann",
       "--player", "blue=Ben", "--seed", "toy", "--id", "g"]


def _stderr_lines(db: Path, *args: str) -> list[dict[str, object]]:
    result = CliRunner().invoke(main, ["--db", str(db), "--log-format", "json", *args])
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stderr.splitlines() if line.startswith("{")]


def test_an_accepted_order_is_logged_at_v_and_not_without(tmp_path: Path) -> None:
    db = tmp_path / "mn.db"
    try:
        _stderr_lines(db, *TOY)
        quiet = _stderr_lines(db, "order", "g", "--as", "red", "muster ford")
        told = _stderr_lines(db, "-v", "order", "g", "--as", "blue", "muster ford")
    finally:
        log_lines.set_level(log_lines.WARNING)  # the next tests' default

    assert [line for line in quiet if line.get("event") == "order accepted"] == []
    accepted = [line for line in told if line.get("event") == "order accepted"]
    assert len(accepted) == 1
    assert {k: accepted[0][k] for k in ("game", "actor", "head")} == {
        "game": "g", "actor": "blue", "head": open_store(str(db)).head("g")[0]}
