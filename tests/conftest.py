"""pytest set-up: quiet library logs, the tests folder importable, the toy ruleset known, --update-golden."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import pytest
import structlog

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mncore.rulesets import registry  # noqa: E402  (after the path: the toy lives in tests/toy)
from pg import new_db, pg_server, store_kind  # noqa: E402, F401  (the PostgreSQL fixtures: tests/pg.py)
from toy import RULESET as TOY  # noqa: E402

registry.register(TOY)  # every test sees the toy beside the built-in rulesets, as a plugin would be


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true",
                     help="Rewrite the golden fixtures from their scripted games (review the diff).")


@pytest.fixture(autouse=True)
def _quiet_logs() -> None:
    """Library log lines would otherwise go to stdout with structlog's defaults."""
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
