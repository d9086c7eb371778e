"""Canonical log lines of the service, with structlog imported only when a line is emitted.

Most commands log nothing at the default level, so they never pay for importing structlog; the CLI
sets the level from -v and says how to configure structlog when the first line is due.
"""

from __future__ import annotations

from collections.abc import Callable

# the standard logging levels, without importing logging on every command
INFO, WARNING = 20, 30

_state: dict[str, object] = {"level": WARNING, "configure": None}


def set_level(level: int, configure: Callable[[], None] | None = None) -> None:
    """Emit lines at `level` and above; `configure` runs once, before the first line is emitted."""
    _state["level"], _state["configure"] = level, configure


def info(event: str, **fields: object) -> None:
    _emit(INFO, event, fields)


def enabled(level: int) -> bool:
    """Whether a line at `level` would be emitted: a caller on a hot path builds its fields only then."""
    threshold = _state["level"]
    return not (isinstance(threshold, int) and level < threshold)


def _emit(level: int, event: str, fields: dict[str, object]) -> None:
    threshold = _state["level"]
    if isinstance(threshold, int) and level < threshold:
        return
    configure = _state["configure"]
    if callable(configure):
        _state["configure"] = None
        configure()
    import structlog

    structlog.get_logger("mncore").log(level, event, **fields)


def warning(event: str, **fields: object) -> None:
    _emit(WARNING, event, fields)
