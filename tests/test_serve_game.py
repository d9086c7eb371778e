"""A game played by `mn serve` running as a separate process (issue 25): scripted players answer its
mails through a real SMTP server (STARTTLS and AUTH) and the host reads them from Dovecot over IMAP;
the service is killed with -9 at random points and started again; two services share one PostgreSQL
database. Nothing is applied twice, nothing is lost, no mail reaches the server twice."""

from __future__ import annotations

import os
import random
import signal
import smtplib
import ssl
import subprocess
import sys
import time
from collections.abc import Callable
from email.message import EmailMessage
from pathlib import Path

import pytest

from mailkit import nonce
from mncore.games import lifecycle, reading
from mncore.pbem import signing
from mncore.store import open_store
from mncore.store.service_tables import ServiceTables
from pg import PgServer
from servegame import SIDES, answer, new_game, reply, write_config
from servekit import PASSWORD, USER, Smtp, dovecot, smtp_tls, why_no_dovecot

MN = [sys.executable, "-m", "mncli"]


def _config(tmp_path: Path, db: str, smtp: Smtp, inbox: str) -> Path:
    return write_config(tmp_path / "host.toml", f"""db = "{db}"
sender = "{USER}"
poll_seconds = 0.3
lease_seconds = 2
stale_seconds = 1
{inbox}
[smtp]
host = "{smtp.host}"
port = {smtp.port}
security = "starttls"
user = "{USER}"
password_env = "MN_SERVE_SMTP_PASSWORD"
ca_file = "{tmp_path / 'cert.pem'}"
timeout = 10
[retry]
first_seconds = 0.5
[policy]
reminders = [2]
export = "delta"
[games.g1.addresses]
{chr(10).join(f'{s} = "{s}@example.org"' for s in SIDES)}
""")


def _start(config: Path, log: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "MN_SERVE_SMTP_PASSWORD": PASSWORD}
    with open(log, "ab") as err:
        return subprocess.Popen([*MN, "serve", "--config", str(config), "--log-json"], env=env,
                                stdout=subprocess.DEVNULL, stderr=err)


def _send(smtp: Smtp, tmp_path: Path, msg: EmailMessage) -> None:
    """A player mails the host through the server, as a mail program does (STARTTLS, then AUTH)."""
    with smtplib.SMTP(smtp.host, smtp.port, timeout=10) as conn:
        conn.starttls(context=ssl.create_default_context(cafile=str(tmp_path / "cert.pem")))
        conn.login(USER, PASSWORD)
        conn.send_message(msg)


class Players:
    """The scripted players: each answers every report that asks it something, once; the first
    answer applied is followed by an undo signed at its receipt."""

    def __init__(self, db: str, keys: Path, smtp: Smtp, tmp_path: Path) -> None:
        self.db, self.keys, self.smtp, self.tmp = db, keys, smtp, tmp_path
        self.done: set[str] = set()
        self.sent = 0
        self.undone = False  # an undo was applied (the batch taken back, or its consent asked: K1, K2)
        self.tries = 0

    def turn(self) -> None:
        for msg in [m for m in self.smtp.received if str(m["To"]) != USER]:
            mid = str(msg["Message-ID"])
            if mid in self.done:
                continue
            self.done.add(mid)
            text = _body(msg)
            if "APPLIED, all its orders as one batch.\n    undo\n" in text:
                self.undone = True
            elif not self.undone and self.tries < 6 and "APPLIED" in text:
                self._undo(msg)  # the report it came with is answered after the undo's own
                continue
            if msg["X-MN-Kind"] in ("report", "notice", "reminder", "digest"):
                block = answer(self.db, self.keys, msg, self.sent)
                if block is not None:
                    self._mail(msg, block)

    def _mail(self, msg: EmailMessage, text: str) -> None:
        _send(self.smtp, self.tmp, reply(USER, msg, text))
        self.sent += 1

    def _undo(self, msg: EmailMessage) -> None:
        """Take back the batch just applied, signed against the game's head as the player last read it."""
        side = str(msg["To"]).split("@")[0]
        seq, head = reading.current(open_store(self.db), "g1").head
        key = signing.read_key_file(str(self.keys / f"g1-{side}.key"))
        block = signing.armour(signing.sign(key.private, game="g1", side=side, seq=seq, head=head,
                                            orders=("undo",), nonce=nonce("undo", side, seq)))
        self._mail(msg, block)
        self.tries += 1


def _body(msg: EmailMessage) -> str:
    part = msg.get_body(("plain",))
    return "" if part is None else str(part.get_content()).replace("\r\n", "\n")


def _until(check: Callable[[], bool], seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.2)
    return check()


def _checks(db: str, smtp: Smtp, delivered: int) -> None:
    """Nothing applied twice, nothing lost, no mail twice at the server, the game verifies."""
    store = open_store(db)
    tables = ServiceTables(store)
    assert all(n == 1 for n in smtp.by_id().values()), {k: n for k, n in smtp.by_id().items() if n > 1}
    seen = tables._read("select count(*) from mail_seen")[0][0]
    assert seen == delivered  # every mail the players sent was read and recorded once
    counts = tables.counts()
    assert counts["sending"] == 0 and counts["queued"] == 0
    for row in tables.mails(state="failed", limit=1000):
        assert "interrupted while being sent" in row[6]  # only a send a kill cut short, never resent
    assert counts["sent"] + counts["failed"] == len(tables._read("select id from mail_out"))
    loaded = reading.load(store, "g1")
    nonces = [r.command for r in loaded.rows if r.seq == r.batch and r.command and '"nonce"' in r.command]
    assert len(nonces) == len(set(nonces))
    assert lifecycle.verify_game(store, "g1").ok


@pytest.mark.slow
@pytest.mark.skipif(why_no_dovecot() is not None, reason=why_no_dovecot() or "")
def test_a_game_served_by_a_separate_process_killed_at_random_points(tmp_path: Path) -> None:
    db = str(tmp_path / "g.db")
    keys = tmp_path / "keys"
    new_game(db, keys, hours=48)
    rand = random.Random(25)
    with smtp_tls(tmp_path) as smtp, dovecot() as imap:
        st = os.stat(imap.maildir)
        from servekit import deliver_to
        to_host = deliver_to(imap.maildir, st.st_uid, st.st_gid)
        smtp.deliver = lambda msg, raw: to_host(msg, raw) if str(msg["To"]) == USER else None
        config = _config(tmp_path, db, smtp, f"""[inbox]
kind = "imap"
host = "127.0.0.1"
port = {imap.port}
security = "ssl"
user = "{USER}"
password_env = "MN_SERVE_SMTP_PASSWORD"
ca_file = "{imap.cert}"
timeout = 10""")
        log = tmp_path / "serve.log"
        players = Players(db, keys, smtp, tmp_path)
        kills = 0
        proc = _start(config, log)
        deadline = time.monotonic() + 150
        try:
            while time.monotonic() < deadline and players.sent < 40:
                players.turn()
                time.sleep(rand.uniform(0.1, 0.6))
                if rand.random() < 0.15 and kills < 8:
                    proc.send_signal(signal.SIGKILL)  # our own child, by its id
                    proc.wait(timeout=10)
                    kills += 1
                    proc = _start(config, log)
            assert players.sent >= 10, log.read_text()[-3000:]
            # a deadline missed: the reminder two hours before it, then the default at it (--once --now)
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(timeout=30) == 0  # a clean stop
            env = {**os.environ, "MN_SERVE_SMTP_PASSWORD": PASSWORD}
            from mncore.games import hosting
            from mncore.service.loop import _later
            flushed = subprocess.run([*MN, "serve", "--config", str(config), "--once"], env=env,
                                     capture_output=True, timeout=120)
            assert flushed.returncode == 0, flushed.stderr[-2000:]
            store = open_store(db)
            due = min(hosting.summary(store, store.games()[0]).due.values())
            for at in (_later(due, -3600), _later(due, 60)):
                done = subprocess.run([*MN, "serve", "--config", str(config), "--once", "--now", at], env=env,
                                      capture_output=True, timeout=120)
                assert done.returncode == 0, done.stderr[-2000:]
            kinds = [str(m["X-MN-Kind"]) for m in smtp.received]
            assert "reminder" in kinds and "notice" in kinds
            assert any(r.actor == "deadline" for r in reading.load(open_store(db), "g1").rows)
            # the last mails read and answered
            delivered = len([m for m in smtp.received if str(m["To"]) == USER])
            subprocess.run([*MN, "serve", "--config", str(config), "--once"], env=env, capture_output=True,
                           timeout=120)
            players.turn()  # the last answers read (an undo's among them)
        finally:
            if proc.poll() is None:
                proc.send_signal(signal.SIGKILL)
                proc.wait(timeout=10)
        assert kills >= 3
        assert players.undone
        _checks(db, smtp, delivered)


@pytest.mark.slow
def test_two_services_on_one_postgresql_database(tmp_path: Path, pg_server: PgServer) -> None:
    db = pg_server.new_database()
    keys = tmp_path / "keys"
    new_game(db, keys, hours=48)
    inbox = tmp_path / "inbox"
    import mailbox
    box = mailbox.Maildir(str(inbox), create=True)
    with smtp_tls(tmp_path) as smtp:
        smtp.deliver = lambda msg, raw: box.add(raw) if str(msg["To"]) == USER else None
        config = _config(tmp_path, db, smtp, f'[inbox]\nkind = "maildir"\npath = "{inbox}"')
        log = tmp_path / "serve.log"
        procs = [_start(config, log), _start(config, log)]
        players = Players(db, keys, smtp, tmp_path)
        try:
            end = time.monotonic() + 90
            while time.monotonic() < end and players.sent < 25:
                players.turn()
                time.sleep(0.3)
            assert players.sent >= 10, log.read_text()[-3000:]
            delivered = len([m for m in smtp.received if str(m["To"]) == USER])
            store = open_store(db)
            tables = ServiceTables(store)
            assert _until(lambda: tables._read("select count(*) from mail_seen")[0][0] == delivered
                          and tables.counts()["queued"] == 0 and tables.counts()["sending"] == 0, 60)
        finally:
            for p in procs:
                p.send_signal(signal.SIGTERM)
            codes = [p.wait(timeout=30) for p in procs]
        assert codes == [0, 0]
        # what was queued as they stopped goes with the next run
        flushed = subprocess.run([*MN, "serve", "--config", str(config), "--once"], capture_output=True, timeout=120,
                                 env={**os.environ, "MN_SERVE_SMTP_PASSWORD": PASSWORD})
        assert flushed.returncode == 0, flushed.stderr[-2000:]
        owners = {o for (o,) in tables._read("select distinct owner from mail_out where state = 'sent'")}
        assert len(owners) >= 1
        _checks(db, smtp, delivered)
