"""The host's mail book beside the database: each game's addresses and the last event reported to each side.

Kept out of the log on purpose: an address or a report sent changes nothing in the game, so it must not
touch the hash chain. One JSON file, DB.mail.json, rewritten whole (a temporary file, then a rename).
"""

from __future__ import annotations

import os
import re
import tempfile

import msgspec

from mncore.core.errors import DataError, InvalidCommand

HOST_KEY = "host"  # the address the host's mail comes from
DEFAULT_FROM = "mn@localhost"
_ADDRESS = re.compile(r"[^@\s<>,;\"]+@[^@\s<>,;\"]+\.[^@\s<>,;\".]+|[^@\s<>,;\"]+@localhost")


class GameBook(msgspec.Struct, kw_only=True, omit_defaults=True, forbid_unknown_fields=True):
    """One game's page: side -> address, the host's address, side -> the last event reported to it."""

    addresses: dict[str, str] = {}
    host: str = ""
    reported: dict[str, int] = {}


class Book(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """Every game's page, by game id."""

    games: dict[str, GameBook] = {}

    def page(self, game_id: str) -> GameBook:
        return self.games.setdefault(game_id, GameBook())


def path_for(db: str) -> str:
    """Where the book of a database lives: beside it."""
    return db + ".mail.json"


def load(path: str) -> Book:
    """The book at path (empty if there is none yet); DataError if it is not one."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return Book()
    except OSError as err:
        raise DataError(path, [f"cannot read it ({err.strerror})"]) from None
    try:
        return msgspec.json.decode(data, type=Book)
    except (msgspec.DecodeError, msgspec.ValidationError) as err:
        raise DataError(path, [f"not a mare-nostrum mail book ({err})"]) from None


def save(path: str, book: Book) -> None:
    """Write the book whole or not at all."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".mn-book-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(msgspec.json.format(msgspec.json.encode(book)) + b"\n")
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def checked_address(text: str) -> str:
    """An email address as typed (user@host.tld); InvalidCommand otherwise."""
    address = text.strip()
    if not _ADDRESS.fullmatch(address):
        raise InvalidCommand(f"'{text}' is not an email address (user@example.org)")
    return address
