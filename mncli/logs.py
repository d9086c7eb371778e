"""structlog set-up: canonical log lines on stderr, console on a terminal, JSON otherwise.

structlog itself is imported and configured only when the first line is due (mncore.core.log_lines).
"""

from __future__ import annotations

import sys

from mncore.core import log_lines


def configure_logging(verbose: int, log_format: str | None) -> None:
    """Log to stderr at a level set by -v; structlog is configured when the first line is due."""
    level = log_lines.WARNING - 10 * min(verbose, 2)
    fmt = log_format or ("console" if sys.stderr.isatty() else "json")
    log_lines.set_level(level, lambda: _configure_structlog(level, fmt))


def _configure_structlog(level: int, fmt: str) -> None:
    import structlog

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
