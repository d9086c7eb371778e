"""mn serve's inbound listener (a host with their own mail server): a signed block delivered over LMTP (a
Unix socket) or SMTP (loopback) is applied once however often it is delivered; a mail over the size
limit is refused 552 with nothing written; a listener configured wrong is refused, saying why."""

from __future__ import annotations

import email
import email.policy
import os
import signal
import smtplib
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from email.message import EmailMessage
from pathlib import Path

import pytest
from click.testing import CliRunner

from mailkit import free_port
from mncli.cli import main
from mncore.games import reading
from mncore.service import config as configs
from mncore.service import policy
from mncore.service.listener import Listener
from mncore.service.loop import Service
from mncore.store import open_store
from mncore.store.service_tables import ServiceTables
from servegame import SIDES, answer, new_game, reply, write_config

HOST = "mn@example.org"


def _config(tmp_path: Path, listen: str, extra: str = "") -> Path:
    return write_config(tmp_path / "host.toml", f"""db = "{tmp_path / 'g.db'}"
sender = "{HOST}"
poll_seconds = 30
{extra}
[listen]
{listen}
spool = "{tmp_path / 'spool'}"
[games.g1.addresses]
{chr(10).join(f'{s} = "{s}@example.org"' for s in SIDES)}
""")


@contextmanager
def _running(path: Path) -> Iterator[ServiceTables]:
    """mn serve's loop with its listener, in a thread (its own connection to the store), as `mn serve`
    runs it; its tables, read from here; stopped on leaving."""
    conf = configs.load(str(path))
    stop = threading.Event()
    failed: list[BaseException] = []

    def run() -> None:
        try:
            service = Service(conf, open_store(conf.db))
            service.stop = stop
            service.run()
        except BaseException as err:  # noqa: BLE001 - handed to the test
            failed.append(err)

    tables = ServiceTables(open_store(conf.db))
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        _until(lambda: bool(failed) or bool(tables.status().get("last_cycle")))  # listening before it
        yield tables
    finally:
        stop.set()
        thread.join(20)
    assert not failed, failed
    assert not thread.is_alive()


def _block_mail(db: str, tmp_path: Path) -> EmailMessage:
    """A player's signed block answering the report that the game waits on (as the first cycle mailed it)."""
    loaded = reading.load(open_store(db), "g1")
    side = sorted({p.empire for p in loaded.ruleset.pending(loaded.state)})[0]
    _, data = policy._message(loaded, side, 0, "report", f"{side}@example.org", HOST, configs.Policy(), 0)
    report = email.message_from_bytes(data, policy=email.policy.default)
    assert isinstance(report, EmailMessage)
    text = answer(db, tmp_path / "keys", report, 1)
    assert text is not None
    return reply(HOST, report, text)


def _until(check: Callable[[], bool], seconds: float = 20.0) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if check():
            return
        time.sleep(0.1)
    raise AssertionError("not within the time")


def _wire(msg: EmailMessage) -> bytes:
    """A mail as a mail server sends it: lines end CRLF (smtplib sends bytes as they are)."""
    return bytes(msg).replace(b"\n", b"\r\n")


def _spool_files(tmp_path: Path) -> list[str]:
    return sorted(os.listdir(tmp_path / "spool" / "new")) + sorted(os.listdir(tmp_path / "spool" / "cur"))


@pytest.mark.parametrize("kind", ["lmtp", "smtp"])
def test_a_block_delivered_over_lmtp_or_smtp_is_applied_once_however_often_it_comes(
        tmp_path: Path, kind: str) -> None:
    db = str(tmp_path / "g.db")
    new_game(db, tmp_path / "keys")
    sock, port = str(tmp_path / "lmtp.sock"), free_port()
    listen = f'lmtp = "unix:{sock}"' if kind == "lmtp" else f'smtp = "127.0.0.1:{port}"'
    mail = _block_mail(db, tmp_path)
    start = reading.load(open_store(db), "g1").head[0]
    with _running(_config(tmp_path, listen)) as tables:
        for _ in range(2):  # the same mail twice: a mail server's retry, a second delivery
            with (smtplib.LMTP(sock) if kind == "lmtp" else smtplib.SMTP("127.0.0.1", port, timeout=10)) as conn:
                if kind == "smtp":
                    conn.ehlo()
                assert conn.sendmail(str(mail["From"]), [HOST], _wire(mail)) == {}
        # the loop wakes when a mail is taken: well before its 30 s poll
        _until(lambda: len(tables._read("select key from mail_seen")) == 1)
        _until(lambda: reading.load(open_store(db), "g1").head[0] > start)
        time.sleep(0.5)
        seen = tables._read("select key, outcome from mail_seen")
    assert len(seen) == 1 and seen[0][1] == "applied"
    assert len(_spool_files(tmp_path)) == 2  # both taken; the second read as the same mail, not applied
    rows = reading.load(open_store(db), "g1").rows
    assert sum(1 for r in rows if r.seq == r.batch and r.actor in SIDES) == 1
    assert not os.path.exists(sock)  # the socket is removed on a clean stop


@pytest.mark.parametrize("kind", ["lmtp", "smtp"])
def test_a_mail_over_the_size_limit_is_refused_552_and_nothing_is_written(tmp_path: Path, kind: str) -> None:
    db = str(tmp_path / "g.db")
    new_game(db, tmp_path / "keys")
    sock, port = str(tmp_path / "lmtp.sock"), free_port()
    listen = f'lmtp = "unix:{sock}"' if kind == "lmtp" else f'smtp = "127.0.0.1:{port}"'
    big = EmailMessage()
    big["From"], big["To"], big["Subject"] = "rome@example.org", HOST, "orders"
    big.set_content(("y" * 70 + "\n") * 100)
    with _running(_config(tmp_path, listen, "max_bytes = 4096")):
        for declared in (True, False):  # with SIZE declared in MAIL FROM, and without: after the data
            with (smtplib.LMTP(sock) if kind == "lmtp" else smtplib.SMTP("127.0.0.1", port, timeout=10)) as conn:
                conn.ehlo()
                if not declared:
                    conn.esmtp_features.pop("size", None)
                with pytest.raises((smtplib.SMTPSenderRefused, smtplib.SMTPDataError)) as err:
                    conn.sendmail("rome@example.org", [HOST], _wire(big))
                assert err.value.smtp_code == 552
        assert _spool_files(tmp_path) == []
        assert os.listdir(tmp_path / "spool" / "tmp") == []


def test_lmtp_takes_one_recipient_a_transaction(tmp_path: Path) -> None:
    """A second RCPT is told 452 (come again): each DATA then has the one reply LMTP gives per recipient."""
    db = str(tmp_path / "g.db")
    new_game(db, tmp_path / "keys")
    sock = str(tmp_path / "lmtp.sock")
    with _running(_config(tmp_path, f'lmtp = "unix:{sock}"')), smtplib.LMTP(sock) as conn:
        conn.ehlo()
        assert conn.mail("rome@example.org")[0] == 250
        assert conn.rcpt(HOST)[0] == 250
        assert conn.rcpt("other@example.org")[0] == 452


@pytest.mark.parametrize(("listen", "extra", "problem"), [
    ('lmtp = "192.0.2.7:24"', "", "listen.lmtp = '192.0.2.7:24': LMTP has no login, so it listens on a Unix "
                                  "socket or a loopback address (127.0.0.1, ::1, localhost) only"),
    ('lmtp = "unix:relative.sock"', "", "listen.lmtp = 'unix:relative.sock': a Unix socket's path must be "
                                        "absolute (unix:/run/mn/lmtp.sock)"),
    ('smtp = "localhost"', "", "listen.smtp = 'localhost': write HOST:PORT (127.0.0.1:2424) or unix:/PATH"),
    ('smtp = "127.0.0.1:70000"', "", "listen.smtp = '127.0.0.1:70000': write HOST:PORT (127.0.0.1:2424) or "
                                     "unix:/PATH"),
    ("", "", "listen: give lmtp, smtp or both (or leave [listen] out)"),
    ('smtp = "127.0.0.1:2525"', '[inbox]\nkind = "imap"\nhost = "imap.example.org"',
     "listen: the listener writes into the Maildir the service reads as its inbox; inbox.kind = 'imap' is none "
     "(use inbox.kind = \"maildir\", or no [inbox] and listen.spool)"),
])
def test_a_listener_configured_wrong_is_refused_saying_why(tmp_path: Path, listen: str, extra: str,
                                                           problem: str) -> None:
    path = _config(tmp_path, listen)
    if extra:  # sections go after the top-level keys
        path.write_text(path.read_text() + extra + "\n")
    result = CliRunner().invoke(main, ["serve", "--config", str(path), "--once"])
    assert result.exit_code == 2
    assert result.stderr == f"Error: {path}: {problem}\n"
    assert not (tmp_path / "g.db").exists()


def test_a_listener_that_cannot_listen_stops_mn_serve_saying_where(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A socket path whose folder does not exist; a regular file where the socket goes (left alone)."""
    # mn serve, run here in the test's process, would leave its SIGTERM handler to the processes the
    # later tests fork (a pool's workers that SIGTERM no longer ends)
    monkeypatch.setattr(signal, "signal", lambda *_: None)
    new_game(str(tmp_path / "g.db"), tmp_path / "keys")
    nowhere = tmp_path / "no" / "such" / "lmtp.sock"
    path = _config(tmp_path, f'lmtp = "unix:{nowhere}"')
    result = CliRunner().invoke(main, ["serve", "--config", str(path), "--cycles", "1"])
    assert result.exit_code == 2
    assert result.stderr.startswith(f"Error: listen.lmtp = 'unix:{nowhere}': cannot listen there (")
    taken = tmp_path / "file.sock"
    taken.write_text("mine")
    path = _config(tmp_path, f'lmtp = "unix:{taken}"')
    result = CliRunner().invoke(main, ["serve", "--config", str(path), "--cycles", "1"])
    assert result.stderr == f"Error: listen.lmtp = 'unix:{taken}': {taken} exists and is no socket: not removed\n"
    assert taken.read_text() == "mine"


def test_a_socket_left_by_a_stopped_process_is_replaced(tmp_path: Path) -> None:
    """A socket nobody listens on any more (a killed mn serve's) is removed and listened on again."""
    sock = tmp_path / "lmtp.sock"
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(sock))
    stale.close()  # the file stays, with no one behind it
    assert sock.is_socket()
    listener = Listener(configs.load(str(_config(tmp_path, f'lmtp = "unix:{sock}"'))), lambda: None)
    listener.start()
    try:
        with smtplib.LMTP(str(sock)) as conn:
            assert conn.ehlo()[0] == 250
    finally:
        listener.stop()
    assert not sock.exists()
