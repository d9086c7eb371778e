"""data/ruleset.json, the ruleset a cold start reads, is the TOML files' ruleset, made from them as they are."""

from __future__ import annotations

import pytest

from mncore.rulesets.empires import game_data


def test_the_compiled_ruleset_is_the_toml_files_ruleset() -> None:
    compiled = game_data.compiled_ruleset()
    assert compiled is not None, "run: python -m mncore.rulesets.empires.game_data"
    assert compiled == game_data.ruleset_from_toml()
    assert game_data.load_ruleset() == game_data.ruleset_from_toml()


def test_a_stale_compiled_ruleset_is_not_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """The TOML changed since the JSON was made: the TOML is read (identical results, only slower)."""
    monkeypatch.setattr(game_data, "_sources_hash", lambda: "0" * 64)
    assert game_data.compiled_ruleset() is None
