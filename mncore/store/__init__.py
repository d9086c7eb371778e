"""The event store: the Store protocol and its two kinds, SQLite (a file) and PostgreSQL (a URL)."""

from __future__ import annotations

from mncore.core.errors import Conflict, StoreError
from mncore.store.base import GameRow, LogPrefix, NewRow, Row, Snapshot, SnapshotHead, Store
from mncore.store.sqlite import SqliteStore

__all__ = ["Conflict", "GameRow", "LogPrefix", "NewRow", "Row", "Snapshot", "SnapshotHead", "SqliteStore", "Store", "StoreError",
           "is_postgres", "open_store", "sqlite_path"]


def is_postgres(url: str) -> bool:
    return url.startswith(("postgresql://", "postgres://"))


def sqlite_path(url: str) -> str:
    """The file a `--db` names: as SQLAlchemy writes it, `sqlite:///relative.db` or `sqlite:////abs.db`;
    else the text is the path itself."""
    return url[len("sqlite:///"):] if url.startswith("sqlite:///") else url


def open_store(url: str, *, create: bool = False) -> Store:
    """The store `--db` names: a `postgresql://` URL, else a SQLite file (`sqlite:///path` or a path).

    Without create, a database that does not exist yet is a StoreError (a read makes nothing).
    """
    if is_postgres(url):
        from mncore.store.postgres import PostgresStore  # psycopg is imported only for a URL of its own
        return PostgresStore(url, create=create)
    return SqliteStore(sqlite_path(url), create=create)
