"""structlog set-up: canonical log lines on stderr, console on a terminal, JSON otherwise."""

from __future__ import annotations

import logging
import sys

import structlog


def configure_logging(verbose: int, log_format: str | None) -> None:
    """Configure structlog to write to stderr at a level set by -v."""
    level = logging.WARNING - 10 * min(verbose, 2)
    fmt = log_format or ("console" if sys.stderr.isatty() else "json")
    renderer: structlog.typing.Processor = (
        structlog.dev.ConsoleRenderer(colors=False) if fmt == "console"
        else structlog.processors.JSONRenderer())
    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=False,
    )
