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
from concurrent.futures import ThreadPoolExecutor
from email.message import EmailMessage
from pathlib import Path

import pytest

from mailkit import nonce
from mncore.games import lifecycle, reading
from mncore.pbem import signing
from mncore.store import Store, open_store
from mncore.store.service_tables import ServiceTables
from pg import PgServer
from servegame import SIDES, answer, new_game, reply, write_config
from servekit import PASSWORD, USER, Imap, Smtp, dovecot, smtp_tls, why_no_dovecot

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
    assert _seen(store) == delivered  # every mail the players sent was read and recorded once
    counts = tables.counts()
    assert counts["sending"] == 0 and counts["queued"] == 0
    for row in tables.mails(state="failed", limit=1000):
        assert "interrupted while being sent" in row[6]  # only a send a kill cut short, never resent
    assert counts["sent"] + counts["failed"] == len(tables._read("select id from mail_out"))
    loaded = reading.load(store, "g1")
    nonces = [r.command for r in loaded.rows if r.seq == r.batch and r.command and '"nonce"' in r.command]
    assert len(nonces) == len(set(nonces))
    assert lifecycle.verify_game(store, "g1").ok


EMPIRES = ("rome", "greece", "carthage", "egypt")
STYLE = {"rome": "builder", "greece": "general", "carthage": "random", "egypt": "builder"}  # as mn demo's


def _four(db: str, keys: Path) -> None:
    """A fair-play four-empire game (no known seed: no sandbox orders) taking signed orders only, an hour
    a decision, forced answers taken at once."""
    args = ["new", "--id", "g1", "--keys-dir", str(keys), "--signed-only"]
    for side in EMPIRES:
        args += ["--empire", side]
    assert subprocess.run([*MN, "--db", db, *args], capture_output=True).returncode == 0
    assert subprocess.run([*MN, "--db", db, "deadline", "g1", "--hours", "1", "--forced"],
                          capture_output=True).returncode == 0


class Served:
    """mn serve as a separate process: started, killed with -9, stopped cleanly; its --once runs."""

    def __init__(self, config: Path, log: Path) -> None:
        self.config, self.log = config, log
        self.env = {**os.environ, "MN_SERVE_SMTP_PASSWORD": PASSWORD}
        self.proc: subprocess.Popen[bytes] | None = None
        self.kills = 0

    def start(self) -> None:
        self.proc = _start(self.config, self.log)

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)  # our own child, by its id
        self.proc.wait(timeout=30)
        self.kills += 1

    def stop(self) -> int:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(timeout=60)
        self.proc = None
        return code

    def once(self, *args: str) -> str:
        return self.run("--once", *args)

    def run(self, *args: str) -> str:
        done = subprocess.run([*MN, "serve", "--config", str(self.config), *args], env=self.env,
                              capture_output=True, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        return done.stdout.decode()


@pytest.mark.slow
@pytest.mark.skipif(why_no_dovecot() is not None, reason=why_no_dovecot() or "")
def test_a_four_empire_game_played_to_a_win_with_mn_play_while_mn_serve_is_killed(tmp_path: Path) -> None:
    """Four players, each running `mn play` on its own Maildir with scripted input, send their signed
    replies over SMTP (STARTTLS, AUTH); mn serve, a separate process reading Dovecot over TLS, is killed
    with -9 at random points and started again; one deadline is missed (its reminder first), one player
    takes a batch back by mail; the game goes on to its win, and nothing is applied, lost or sent twice."""
    from mncore.core.actors import DEADLINE
    from mncore.core.kernel_acts import UNDO_TYPES
    from mncore.games import hosting
    from mncore.service.loop import _later
    from playkit import Player, player_env, standing, turn
    from servekit import deliver_to

    db = str(tmp_path / "g.db")
    keys = tmp_path / "keys"
    _four(db, keys)
    rand = random.Random(25)
    players = {s: Player(side=s, key=keys / f"g1-{s}.key", maildir=tmp_path / s / "Maildir", style=STYLE[s],
                         rand=random.Random(f"player {s}"),
                         standing=standing(s, list(EMPIRES), random.Random(f"standing {s}"))) for s in EMPIRES}
    for p in players.values():
        p.box()
    with smtp_tls(tmp_path) as smtp, dovecot() as imap:
        st = os.stat(imap.maildir)
        to_host = deliver_to(imap.maildir, st.st_uid, st.st_gid)
        to_player = {f"{s}@example.org": deliver_to(p.maildir) for s, p in players.items()}
        smtp.deliver = lambda msg, raw: (to_host if str(msg["To"]) == USER else to_player[str(msg["To"])])(msg, raw)
        config = _config4(tmp_path, db, smtp, imap)
        served = Served(config, tmp_path / "serve.log")
        env = player_env(USER, PASSWORD)
        at = (smtp.host, smtp.port)
        cert = tmp_path / "cert.pem"
        store = open_store(db)
        served.start()
        missed = reminded = False
        retried = 0  # mails the host sent again (mn serve --retry): a host command each
        kills = sorted(rand.sample(range(5, 300), 10))  # after so many of the players' mails
        undo_asked = False
        idle_since = time.monotonic()
        end = time.monotonic() + 2700
        try:
            with ThreadPoolExecutor(len(EMPIRES)) as pool:
                while time.monotonic() < end:
                    ready = []
                    for p in players.values():
                        news = p.news()
                        for msg in news:
                            if "refused" in str(msg.get("X-MN-Outcome") or "") and "0 refused" not in str(
                                    msg.get("X-MN-Outcome")):
                                p.answered = ""  # refused: answer that report again
                            if (not undo_asked and p.sent >= 8 and msg["X-MN-Kind"] == "report"
                                    and "of yours applied" in str(msg.get("X-MN-Outcome") or "")):
                                p.undo = undo_asked = True  # asked again right after its own batch: take it back
                        if news and p.answered == "" or any(str(m["X-MN-Kind"]) in ("report", "reminder", "final")
                                                   for m in news):
                            ready.append(p)  # a notice or digest is read, not answered
                    if all("final" in _kinds(smtp, s) for s in EMPIRES):
                        break
                    turns = list(pool.map(lambda p: turn(p, at, cert, env), ready))
                    if "sent" in turns:
                        idle_since = time.monotonic()
                    elif time.monotonic() - idle_since > 90:
                        # a report a kill interrupted while it was being sent is never sent again
                        # (docs/pbem.md, "Crash safety"): the host, told by --status, sends it again
                        lost = _lost(store, smtp)
                        assert lost, f"the game stalled: {_stall(store, smtp, served.log)}"
                        for mail_id in lost:
                            assert "queued again" in served.run("--retry", str(mail_id))
                        retried += len(lost)
                        idle_since = time.monotonic()
                    else:
                        time.sleep(0.2)
                    sent = sum(p.sent for p in players.values())
                    if not missed and sent >= 60:
                        # a deadline missed: the players wait; the service stops, and a cycle run at
                        # half an hour before the deadline reminds, one a minute after it takes the default
                        assert served.stop() == 0  # a clean stop
                        served.once()
                        due = min(hosting.summary(store, store.games()[0]).due.values())
                        before = len(smtp.received)
                        served.once("--now", _later(due, -1200))
                        reminded = any(str(m["X-MN-Kind"]) == "reminder" for m in smtp.received[before:])
                        served.once("--now", _later(due, 60))
                        missed = any(r.actor == DEADLINE for r in reading.load(store, "g1").rows)
                        served.start()
                        idle_since = time.monotonic()
                    elif kills and sent >= kills[0]:
                        kills.pop(0)
                        time.sleep(rand.uniform(0, 0.5))  # into whatever the service is doing then
                        served.kill()
                        served.start()
            final = reading.load(store, "g1")
            assert final.meta.over, _stall(store, smtp, served.log)
            # a reply the players sent as the final mails went out is read by a later cycle: the service
            # is stopped once it has read every one and sent what it owed (a mail lost fails _checks)
            assert _until(lambda: _drained(store) and _seen(store) >= _to_host(smtp), 120)
            assert served.stop() == 0
        finally:
            if served.proc is not None:
                served.kill()
        delivered = _to_host(smtp)
        kinds = [str(m["X-MN-Kind"]) for m in smtp.received]
        summary = {s: (p.sent, p.refused_checks) for s, p in players.items()}
        print(f"rounds {final.meta.round}, result {final.meta.result}; player mails {delivered} {summary}; "
              f"host mails {len(smtp.received) - delivered}; kills {served.kills}; mails sent again by the host "
              f"{retried}")
        assert delivered == sum(p.sent for p in players.values())  # every reply mn play sent reached the host
        counts = ServiceTables(open_store(db)).counts()
        # every mail the service sent arrived once; one a kill cut short may have gone or not
        assert counts["sent"] <= len(smtp.received) - delivered <= counts["sent"] + counts["failed"]
        assert missed and reminded and "notice" in kinds
        assert served.kills >= 3
        assert any(r.type in UNDO_TYPES for r in final.rows) and sum(p.undone for p in players.values()) >= 1
        _checks(db, smtp, delivered)
        for args in (["reveal", "g1"], ["verify", "g1"]):
            done = subprocess.run([*MN, "--db", db, *args], capture_output=True, text=True, timeout=600)
            assert done.returncode == 0, done.stdout + done.stderr
        assert "every random outcome recomputes" in done.stdout


def _config4(tmp_path: Path, db: str, smtp: Smtp, imap: Imap) -> Path:
    return write_config(tmp_path / "host.toml", f"""db = "{db}"
sender = "{USER}"
poll_seconds = 3
lease_seconds = 2
stale_seconds = 1
[smtp]
host = "{smtp.host}"
port = {smtp.port}
security = "starttls"
user = "{USER}"
password_env = "MN_SERVE_SMTP_PASSWORD"
ca_file = "{tmp_path / 'cert.pem'}"
timeout = 10
[inbox]
kind = "imap"
idle = true
host = "127.0.0.1"
port = {imap.port}
security = "ssl"
user = "{USER}"
password_env = "MN_SERVE_SMTP_PASSWORD"
ca_file = "{imap.cert}"
timeout = 10
[retry]
first_seconds = 0.5
[policy]
reminders = [0.5]
export = "delta"
[games.g1.addresses]
{chr(10).join(f'{s} = "{s}@example.org"' for s in EMPIRES)}
""")


def _kinds(smtp: Smtp, side: str) -> list[str]:
    return [str(m["X-MN-Kind"]) for m in smtp.received if str(m["To"]) == f"{side}@example.org"]


def _lost(store: Store, smtp: Smtp) -> list[int]:
    """The mails marked failed (a send cut short by a kill) that never reached the server."""
    import email
    import email.policy
    arrived = smtp.by_id()
    out = []
    for mail_id, message in ServiceTables(store)._read("select id, message from mail_out where state = 'failed'"):
        head = email.message_from_bytes(bytes(message), policy=email.policy.default)
        if str(head["Message-ID"]) not in arrived:
            out.append(int(mail_id))
    return out


def _drained(store: Store) -> bool:
    counts = ServiceTables(store).counts()
    return counts["queued"] == 0 and counts["sending"] == 0


def _seen(store: Store) -> int:
    """The mails the service has read and recorded."""
    return int(ServiceTables(store)._read("select count(*) from mail_seen")[0][0])


def _to_host(smtp: Smtp) -> int:
    """The players' mails the server delivered to the host."""
    return len([m for m in smtp.received if str(m["To"]) == USER])


def _stall(store: Store, smtp: Smtp, log: Path) -> str:
    cur = reading.current(store, "g1")
    waiting = sorted({p.empire for p in cur.ruleset.pending(cur.state)})
    return (f"round {cur.meta.round}, waiting on {waiting}, outbox {ServiceTables(store).counts()}, "
            f"{len(smtp.received)} mails at the server; log: {log.read_text()[-3000:]}")


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
