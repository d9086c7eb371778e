"""A real PostgreSQL server for the tests: initdb and pg_ctl in a temporary directory on a loopback port.

The server binaries come from Debian's `postgresql` package (/usr/lib/postgresql/*/bin), or from
PATH; without them, or without psycopg, every PostgreSQL test is skipped saying why. Each test gets
fresh databases as schemas of their own (`?options=-csearch_path=...`), which is cheaper than
CREATE DATABASE and just as separate for our tables.
"""

from __future__ import annotations

import glob
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

KINDS = ("sqlite", "postgresql")
_names = itertools.count(1)


def server_bin() -> Path | None:
    """The folder holding initdb and pg_ctl, newest version first, or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2]), reverse=True)
    on_path = shutil.which("initdb")
    for folder in [*found, *([os.path.dirname(on_path)] if on_path else [])]:
        if os.access(os.path.join(folder, "initdb"), os.X_OK) and os.access(os.path.join(folder, "pg_ctl"), os.X_OK):
            return Path(folder)
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PgServer:
    """A running server and a way to hand out empty databases on it."""

    def __init__(self, bin_dir: Path) -> None:
        self.bin = bin_dir
        # initdb refuses to run as root: then the server runs as the package's postgres user
        self.user = "postgres" if os.geteuid() == 0 else None
        self.dir = Path(tempfile.mkdtemp(prefix="mn-pg-"))
        if self.user:
            os.chown(self.dir, pwd.getpwnam(self.user).pw_uid, -1)
        self.port = _free_port()
        self._run("initdb", "-D", str(self.dir / "data"), "-U", "mn", "--auth=trust", "-E", "UTF8",
                  "--no-locale", "--no-sync")
        self._run("pg_ctl", "-D", str(self.dir / "data"), "-l", str(self.dir / "log"), "-w", "-o",
                  f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off "
                  "-c synchronous_commit=off -c full_page_writes=off -c max_connections=60", "start")

    def _run(self, tool: str, *args: str) -> None:
        subprocess.run([str(self.bin / tool), *args], check=True, capture_output=True, user=self.user)

    def url(self, schema: str | None = None) -> str:
        base = f"postgresql://mn@127.0.0.1:{self.port}/postgres"
        return base + (f"?options={quote(f'-csearch_path={schema}')}" if schema else "")

    def new_database(self) -> str:
        """The URL of an empty database of our own (a schema nobody else uses)."""
        import psycopg
        schema = f"t{os.getpid()}_{next(_names)}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f"create schema {schema}")
        return self.url(schema)

    def stop(self) -> None:
        subprocess.run([str(self.bin / "pg_ctl"), "-D", str(self.dir / "data"), "-m", "immediate", "stop"],
                       capture_output=True, user=self.user)
        shutil.rmtree(self.dir, ignore_errors=True)


def why_no_server() -> str | None:
    """Why the PostgreSQL tests cannot run here, or None."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg is not installed (pip install -e '.[test]')"
    if server_bin() is None:
        return ("no PostgreSQL server binaries (initdb, pg_ctl) under /usr/lib/postgresql/*/bin or on PATH: "
                "apt-get install postgresql (.ci/run does)")
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root and there is no postgres user to run the server as"
    return None


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """One server for the whole session, started on first use."""
    reason = why_no_server()
    if reason:
        pytest.skip(reason)
    server = PgServer(server_bin())  # type: ignore[arg-type]
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(params=KINDS)
def store_kind(request: pytest.FixtureRequest) -> str:
    """Each store kind in turn: a test that takes it runs over both."""
    return str(request.param)


@pytest.fixture
def new_db(store_kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> Callable[[str], str]:
    """new_db(name): what --db takes for a fresh database of this test's store kind."""
    if store_kind == "sqlite":
        return lambda name: str(tmp_path / f"{name}.db")
    server: PgServer = request.getfixturevalue("pg_server")
    made: dict[str, str] = {}
    return lambda name: made.setdefault(name, server.new_database())
