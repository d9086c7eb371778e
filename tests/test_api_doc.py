"""docs/api.md: its bot example runs as written, through the documented API only."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_the_bot_example_of_the_api_doc_plays_orders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """The bot of docs/api.md creates a game, gives orders through game.give and reports."""
    code = re.search(r"```python\n(.*?)```", (ROOT / "docs" / "api.md").read_text(), re.S)
    assert code is not None
    monkeypatch.chdir(tmp_path)

    exec(compile(code[1], "docs/api.md", "exec"), {"__name__": "api_doc"})

    out = capsys.readouterr().out
    assert (tmp_path / "bot.db").exists()
    assert "refused" not in out
    last = out.splitlines()[-1]
    assert re.fullmatch(r"round \d+, \d+ events", last) and int(last.split()[2]) > 6
