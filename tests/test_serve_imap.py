"""mn serve reading a real IMAP mailbox: Debian's Dovecot started on loopback over TLS (skipped, saying
why, where it is not installed)."""

from __future__ import annotations

import mailbox
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

import pytest

from mncore.games import by_mail, lifecycle, reading
from mncore.pbem.mail import limits
from mncore.service import config as configs
from mncore.service import transport
from mncore.service.loop import Service
from mncore.store import open_store
from mncore.store.service_tables import ServiceTables
from servegame import SIDES, answer, new_game, reply, write_config
from servekit import PASSWORD, USER, Imap, dovecot, why_no_dovecot

pytestmark = pytest.mark.skipif(why_no_dovecot() is not None, reason=why_no_dovecot() or "")


@pytest.fixture
def imap() -> Iterator[Imap]:
    with dovecot() as server:
        yield server


def _box(imap: Imap, tmp_path: Path) -> configs.Inbox:
    return configs.Inbox(kind="imap", host="127.0.0.1", port=imap.port, security="ssl", user=USER,
                         password=PASSWORD, ca_file=str(imap.cert), timeout=10)


def _put(imap: Imap, data: bytes) -> None:
    import os
    box = mailbox.Maildir(str(imap.maildir), create=False)
    key = box.add(data)
    st = os.stat(imap.maildir)
    os.chown(imap.maildir / "new" / key, st.st_uid, st.st_gid)


def test_imap_over_tls_each_mail_fetched_then_marked_read(imap: Imap, tmp_path: Path) -> None:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"], msg["Message-ID"] = "ann@example.org", USER, "hello", "<a@x>"
    msg.set_content("no block here")
    _put(imap, bytes(msg))
    box = _box(imap, tmp_path)
    first = list(transport.fetch(box, limits.Limits()))
    assert len(first) == 1
    key, where, mail, seen = first[0]
    assert isinstance(mail, EmailMessage) and mail["Subject"] == "hello"
    assert where.startswith("imap INBOX uid ")
    again = []
    for k, _, _, mark in transport.fetch(box, limits.Limits()):  # not marked read yet: fetched again
        again.append(k)
        mark()  # as the service does once the mail is recorded
    assert again == [key]
    assert list(transport.fetch(box, limits.Limits())) == []


def test_an_imap_mail_over_the_size_limit_is_refused_without_downloading_it(imap: Imap, tmp_path: Path) -> None:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"], msg["Message-ID"] = "ann@example.org", USER, "huge", "<h@x>"
    msg.set_content("x" * 70 + "\n" * 3000)
    _put(imap, bytes(msg))
    (key, _, mail, _), = transport.fetch(_box(imap, tmp_path), limits.Limits(max_bytes=4096))
    assert isinstance(mail, limits.Refusal)
    assert mail.reason == "the mail is over the 4 KiB limit on its size (max_bytes)"
    assert (mail.sender, mail.subject, mail.message_id) == ("ann@example.org", "huge", "<h@x>")


def test_a_wrong_imap_password_is_a_clear_error(imap: Imap, tmp_path: Path) -> None:
    box = configs.Inbox(kind="imap", host="127.0.0.1", port=imap.port, security="ssl", user=USER,
                        password="wrong", ca_file=str(imap.cert), timeout=10)
    with pytest.raises(Exception) as err:
        list(transport.fetch(box, limits.Limits()))
    assert "imap host@example.org@127.0.0.1" in str(err.value) and "wrong" not in str(err.value)


def test_serve_applies_a_block_read_over_imap(imap: Imap, tmp_path: Path) -> None:
    db = str(tmp_path / "g.db")
    new_game(db, tmp_path / "keys")
    conf = write_config(tmp_path / "host.toml", f"""db = "{db}"
sender = "{USER}"
[inbox]
kind = "imap"
host = "127.0.0.1"
port = {imap.port}
security = "ssl"
user = "{USER}"
password = "{PASSWORD}"
ca_file = "{imap.cert}"
[games.g1.addresses]
{chr(10).join(f'{s} = "{s}@example.org"' for s in SIDES)}
""")
    service = Service(configs.load(str(conf)), open_store(db))
    service.cycle()
    tables = ServiceTables(open_store(db))
    import email
    import email.policy
    report = next(email.message_from_bytes(m, policy=email.policy.default)
                  for (m,) in tables._read("select message from mail_out where kind = 'report'"))
    assert isinstance(report, EmailMessage)
    text = answer(db, tmp_path / "keys", report, 1)
    assert text is not None
    _put(imap, bytes(reply(USER, report, text)))
    done = service.cycle()
    assert (done.read, done.applied, done.errors) == (1, 1, [])
    assert service.cycle().read == 0
    assert lifecycle.verify_game(open_store(db), "g1").ok


def test_imap_idle_returns_when_a_mail_comes_and_else_when_the_time_is_up(imap: Imap, tmp_path: Path) -> None:
    import threading
    import time
    box = _box(imap, tmp_path)
    t0 = time.monotonic()
    assert transport.idle(box, 1.0) is False
    assert 0.9 <= time.monotonic() - t0 < 10
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "ann@example.org", USER, "wake up"
    msg.set_content("hello")
    timer = threading.Timer(1.0, _put, (imap, bytes(msg)))
    timer.start()
    t0 = time.monotonic()
    try:
        assert transport.idle(box, 30.0) is True
    finally:
        timer.join()
    assert time.monotonic() - t0 < 20


def test_imap_idle_returns_at_once_for_a_mail_that_came_before_it_began(imap: Imap, tmp_path: Path) -> None:
    """A mail delivered after the service last read the box and before IDLE began raises no EXISTS while
    idling: idle sees it unread and returns at once (CI, loaded, once delivered it before IDLE began)."""
    import time
    box = _box(imap, tmp_path)
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "ann@example.org", USER, "already here"
    msg.set_content("hello")
    _put(imap, bytes(msg))
    t0 = time.monotonic()
    assert transport.idle(box, 30.0) is True
    assert time.monotonic() - t0 < 10


def test_mn_play_reads_the_players_reports_from_their_imap_mailbox(imap: Imap, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """mn play --imap: the side's reports of its game fetched over TLS (others' mail left out), the delta
    joined to the full report before it, the mailbox left unread; a wrong password said plainly."""
    from click.testing import CliRunner

    from mncli.cli import main
    from mncore.service import policy

    db = str(tmp_path / "g.db")
    new_game(db, tmp_path / "keys")
    store = open_store(db)
    before = reading.load(store, "g1")
    side = SIDES[0]
    _, full = policy._message(before, side, 0, "report", f"{side}@example.org", USER,
                              configs.Policy(export="full"), 0)
    by_mail.tick(store, "g1", "2030-06-01T00:00:00+00:00")
    later = reading.load(store, "g1")
    _, delta = policy._message(later, side, before.head[0], "report", f"{side}@example.org", USER,
                               configs.Policy(export="delta"), before.head[0])
    _, other = policy._message(later, SIDES[1], 0, "report", f"{SIDES[1]}@example.org", USER,
                               configs.Policy(export="full"), 0)
    for data in (full, other, delta):
        _put(imap, data)
    key = str(tmp_path / "keys" / f"g1-{side}.key")
    args = ["play", "--imap", f"127.0.0.1:{imap.port}", "--imap-ca", str(imap.cert), "--key", key]
    monkeypatch.setenv("MN_IMAP_USER", USER)
    monkeypatch.setenv("MN_IMAP_PASSWORD", PASSWORD)

    result = CliRunner().invoke(main, args, input="")
    monkeypatch.setenv("MN_IMAP_PASSWORD", "wrong")
    refused = CliRunner().invoke(main, args, input="")

    assert f"its export verified against head {later.head[1][:16]})" in result.stdout, result.output
    assert refused.exit_code != 0 and "AUTHENTICATIONFAILED" in refused.stderr.upper().replace(" ", "")
    assert len(list(transport.fetch(_box(imap, tmp_path), limits.Limits()))) == 3  # all still unread
