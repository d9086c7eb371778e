"""The refusals the engine raises, and require()."""

from __future__ import annotations

from typing import NoReturn


class MareNostrumError(Exception):
    """Base of every error the engine reports to a user."""

    exit_code = 2

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class CommandRejected(MareNostrumError):
    """A command was not accepted; nothing was written."""


class InvalidCommand(CommandRejected):
    """The command is malformed or names something that does not exist."""

    exit_code = 2


class AmbiguousName(InvalidCommand):
    """A name matches several things; the message lists the candidates."""


class RuleViolation(CommandRejected):
    """The command is well formed but the rules forbid it here (section or ruling cited)."""

    exit_code = 1

    def __init__(self, section: str, message: str) -> None:
        super().__init__(f"{message} [rule {section}]")
        self.section = section
        self.reason = message


class SigningRefused(InvalidCommand):
    """A signed order block is malformed, for another game, signed with the wrong key or edited after
    signing; or an unsigned order where the game takes signed ones only (docs/security.md)."""


class StaleOrders(CommandRejected):
    """A signed block answers a decision that is no longer pending; nothing was written."""

    exit_code = 3


class AlreadyApplied(CommandRejected):
    """A signed block that was applied before: each is applied once; nothing was written."""

    exit_code = 3


class DataError(MareNostrumError):
    """A data file (board, position, import) is invalid; every problem is listed."""

    exit_code = 2

    def __init__(self, source: str, problems: list[str]) -> None:
        lines = "\n".join(f"  {p}" for p in problems)
        super().__init__(f"{source}: {len(problems)} problem(s)\n{lines}" if len(problems) > 1
                         else f"{source}: {problems[0]}")
        self.source = source
        self.problems = problems


class UnknownGame(MareNostrumError):
    """No game has that id in this database."""

    exit_code = 2


class StoreError(MareNostrumError):
    """The database file is missing, unreadable or not a mare-nostrum database."""

    exit_code = 2


class OutputError(MareNostrumError):
    """An output file (-o) cannot be written there; nothing was left behind."""

    exit_code = 2


class Conflict(MareNostrumError):
    """Another writer appended first; the message says where the game now stands."""

    exit_code = 3

    def __init__(self, game_id: str, expected: int, actual: int) -> None:
        super().__init__(
            f"game {game_id} moved on: expected to append after event {expected}, "
            f"but it now stands at event {actual}; nothing was written, look again and retry")
        self.expected = expected
        self.actual = actual


class IntegrityFailure(MareNostrumError):
    """The log fails verification at a named sequence number."""

    exit_code = 4

    def __init__(self, seq: int, reason: str) -> None:
        super().__init__(f"event {seq}: {reason}")
        self.seq = seq
        self.reason = reason


def require(condition: bool, section: str, message: str) -> None:
    """Refuse with RuleViolation(section, message) unless condition holds."""
    if not condition:
        raise RuleViolation(section, message)


def refuse(section: str, message: str) -> NoReturn:
    raise RuleViolation(section, message)
