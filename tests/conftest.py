"""pytest set-up: quiet library logs, the tests folder importable, and --update-golden."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import pytest
import structlog

sys.path.insert(0, str(Path(__file__).resolve().parent))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true",
                     help="Rewrite the golden fixtures from their scripted games (review the diff).")


@pytest.fixture(autouse=True)
def _quiet_logs() -> None:
    """Library log lines would otherwise go to stdout with structlog's defaults."""
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
