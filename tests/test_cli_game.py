"""A whole game played through mn alone, as its players would: status, options, order, to a win."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from mncli.cli import main


def mn(db: Path, *args: str) -> Result:
    result = CliRunner().invoke(main, ["--db", str(db), *args])
    assert result.exit_code == 0, result.output
    return result


def _line(option: dict, rand: random.Random) -> str:  # type: ignore[type-arg]
    if option["order"]:
        return str(option["order"])
    return str(option["template"].format(**{k: rand.choice(v) for k, v in option["parts"].items()}))


@pytest.mark.slow
def test_a_game_played_through_the_cli_reaches_a_win_and_verifies(tmp_path: Path) -> None:
    """Players who read status and options and give orders finish a game; its log verifies."""
    db = tmp_path / "pbem.db"
    gid = mn(db, "new", "--empire", "rome", "--empire", "greece", "--empire", "carthage",
             "--seed", "cli-game").stdout.strip()
    rand = random.Random(7)

    for _ in range(2500):
        status = json.loads(mn(db, "status", gid, "--json").stdout)
        if status["winner"]:
            break
        empire = rand.choice(sorted({p["empire"] for p in status["pending"]}))
        options = [o for o in json.loads(mn(db, "options", gid, "--as", empire, "--json").stdout)
                   if o["kind"] != "fix"]
        builds = [o for o in options if o["kind"] != "done"]
        option = rand.choice(builds if builds and rand.random() < 0.7 else options)
        mn(db, "order", gid, "--as", empire, _line(option, rand))

    assert status["winner"], "no winner after 2500 orders"
    mn(db, "reveal", gid)
    verified = mn(db, "verify", gid)
    assert "every random outcome recomputes" in verified.stdout
    export = tmp_path / "game.jsonl"
    mn(db, "export", gid, "-o", str(export))
    assert mn(tmp_path / "copy.db", "import", str(export)).stdout.strip() == gid
