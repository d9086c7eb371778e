"""mn serve's cycle: fetch and apply, tick deadlines, plan each game's mails, send the outbox.

In that order, so that no answer waits a whole cycle: a block read now is applied, its consequences
(deadlines, forced answers) taken, and its answer and the reports it causes sent in the same cycle.
Several processes may share one database: the inbox and each game are held by a lease (one process
at a time; a dead one's lapses after lease_seconds), and each mail is claimed by one process alone
(mncore/store/service_tables.py).
"""

from __future__ import annotations

import datetime as dt
import email
import email.policy
import os
import smtplib
import socket
import threading
import time
import uuid
from email.message import EmailMessage

import msgspec

from mncore.core import log_lines
from mncore.core.errors import MareNostrumError
from mncore.games import by_mail, live_log, reading
from mncore.pbem import signing
from mncore.pbem.mail import blocks, inbox, outbox
from mncore.pbem.mail import book as books
from mncore.pbem.mail.limits import Limits
from mncore.service import policy, transport
from mncore.service.config import Config
from mncore.store import Store
from mncore.store.service_tables import Mark, NewMail, ServiceTables


class Cycle(msgspec.Struct, kw_only=True):
    """What one cycle did."""

    read: int = 0
    applied: int = 0
    refused: int = 0
    ticked: int = 0
    queued: int = 0
    sent: int = 0
    failed: int = 0
    errors: list[str] = []


def _later(now: str, seconds: float) -> str:
    return (dt.datetime.fromisoformat(now) + dt.timedelta(seconds=seconds)).isoformat(timespec="microseconds")


def _epoch(now: str) -> float:
    return dt.datetime.fromisoformat(now).timestamp()


class Service:
    """One mn serve process on one database."""

    def __init__(self, conf: Config, store: Store) -> None:
        self.conf = conf
        self.store = store
        self.tables = ServiceTables(store)
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.stop = threading.Event()
        self.wake = threading.Event()  # a mail was delivered to the listener: cycle now

    # --- the cycle --------------------------------------------------------------------------------

    def cycle(self, now: str | None = None) -> Cycle:
        """One cycle at `now` (default: the clock)."""
        at = now or policy.utc_now()
        done = Cycle()
        for step in (self.fetch, self.games, self.send):
            if self.stop.is_set():
                break
            try:
                step(at, done)
            except MareNostrumError as err:
                done.errors.append(f"{step.__name__}: {err.message}")
                log_lines.warning("serve.error", step=step.__name__, error=err.message)
        self.tables.set_status({"last_cycle": at, "owner": self.owner, "last_errors": "; ".join(done.errors),
                                **({"last_fetch": at} if "fetch" not in " ".join(done.errors) else {})})
        log_lines.info("serve.cycle", **msgspec.structs.asdict(done))
        return done

    def _held(self, name: str, at: str) -> bool:
        return self.tables.lease(name, self.owner, _epoch(at), self.conf.lease_seconds)

    def fetch(self, at: str, done: Cycle) -> None:
        """Every new mail of the inbox applied once (its key recorded with its answer), then marked read."""
        if self.conf.inbox.kind == "none" or not self._held("inbox", policy.utc_now()):
            return
        limits = Limits(max_bytes=self.conf.max_bytes)
        for key, where, mail, seen in transport.fetch(self.conf.inbox, limits):
            if self.stop.is_set():
                return
            if not self.tables.seen(key):
                self._apply(key, where, mail, at, done)
            seen()

    def _apply(self, key: str, where: str, mail: inbox.Mail, at: str, done: Cycle) -> None:
        letter = inbox.letter_of(self.store, mail)
        done.read += 1
        acks: list[Mark] = []
        texts = blocks.found(mail) if isinstance(mail, EmailMessage) else []
        for text, o in zip(texts, letter.outcomes):
            done.applied += o.applied
            done.refused += not o.applied
            if o.applied:
                block = signing.parse_block(text, "the block")
                acks.append(Mark(block.game, block.side, "acked", str(block.seq)))
            log_lines.info("serve.block", where=where, game=o.game, side=o.side, applied=o.applied,
                      code=o.code, reason=o.message[:200])
        if not texts:
            done.refused += 1
        games = sorted({o.game for o in letter.outcomes if o.game})
        answer = outbox.answer_message(letter, self.conf.sender)
        sides = sorted({o.side for o in letter.outcomes if o.side})
        answer["Auto-Submitted"] = "auto-replied"  # RFC 3834: an autoresponder does not answer it
        mails = ([NewMail(key=f"answer:{key}", game_id=games[0] if len(games) == 1 else "",
                          side=sides[0] if len(sides) == 1 else "", kind="answer",
                          recipient=letter.sender, subject=str(answer["Subject"]), message=bytes(answer))]
                 if letter.sender and not self._automatic(mail, letter.sender) else [])
        held = self._hold(mails, letter, games, sides, at)
        if held is not None:  # all applied, from the side's own address: it goes with the side's next report
            mails, acks = [], [*acks, held]
        outcome = ", ".join("applied" if o.applied else f"refused {o.code}" for o in letter.outcomes)
        self.tables.record(key, ",".join(games), outcome, at, mails, acks)

    def _automatic(self, mail: inbox.Mail, sender: str) -> bool:
        """A mail not to answer: an autoresponder's or a list's (RFC 3834), or one of our own come back;
        answering it could start a loop of mails."""
        if self.conf.sender.casefold() in sender.casefold():
            return True
        if not isinstance(mail, EmailMessage):
            return False
        auto = str(mail.get("Auto-Submitted") or "no").strip().lower()
        precedence = str(mail.get("Precedence") or "").strip().lower()
        return auto != "no" or precedence in ("bulk", "junk", "list")

    def _hold(self, mails: list[NewMail], letter: inbox.Letter, games: list[str], sides: list[str],
              at: str) -> Mark | None:
        if len(mails) != 1 or len(games) != 1 or len(sides) != 1 or not all(o.applied for o in letter.outcomes):
            return None
        gid, side, mail = games[0], sides[0], mails[0]
        if gid not in self.game_ids() or self.addresses(gid).get(side, "").casefold() not in letter.sender.casefold():
            return None
        parsed = email.message_from_bytes(mail.message, policy=email.policy.default)
        body = parsed.get_body(("plain",)) if isinstance(parsed, EmailMessage) else None
        text = "" if body is None else str(body.get_content())
        held = policy.Answer(key=mail.key, to=mail.recipient, subject=mail.subject, text=text, message=mail.message,
                             in_reply_to=letter.message_id)
        return policy.held(gid, side, held, policy.utc_now())

    def game_ids(self) -> list[str]:
        if self.conf.games:
            return sorted(self.conf.games)
        book = books.load(books.path_for(self.conf.db))
        return sorted(gid for gid, page in book.games.items() if page.addresses)

    def addresses(self, game_id: str) -> dict[str, str]:
        conf = self.conf.games.get(game_id)
        if conf is not None and conf.addresses:
            return dict(conf.addresses)
        return dict(books.load(books.path_for(self.conf.db)).page(game_id).addresses)

    def games(self, at: str, done: Cycle) -> None:
        for gid in self.game_ids():
            if self.stop.is_set():
                return
            try:
                self.game(gid, at, done)
            except MareNostrumError as err:
                done.errors.append(f"game {gid}: {err.message}")
                log_lines.warning("serve.error", game=gid, error=err.message)

    def game(self, gid: str, at: str, done: Cycle) -> None:
        """Deadlines ticked, then the mails the game owes (keyed: each queued once)."""
        if not self._held(f"game:{gid}", policy.utc_now()):
            return
        ticked = by_mail.tick(self.store, gid, at)
        done.ticked += len(ticked)
        cur = reading.current(self.store, gid)
        head = cur.head[0]  # the whole log, if a mail needs it, read up to the head planned from
        mails, marks = policy.plan(cur, self.conf.policy_of(gid), self.addresses(gid), self.tables.marks(gid),
                                   self.conf.sender, at, log=live_log.log_of(self.store, cur),
                                   whole=lambda: reading.load(self.store, gid, head))
        if mails or marks:
            done.queued += self.tables.enqueue(mails, marks, at)
        for m in mails:
            log_lines.info("serve.queued", game=gid, side=m.side, kind=m.kind, bytes=len(m.message))

    def send(self, at: str, done: Cycle) -> None:
        """Every mail due handed to the SMTP server once; a failure is retried later with back-off."""
        if self.conf.smtp is None:
            return
        self.tables.interrupted(_later(at, -self.conf.stale_seconds))
        smtp = transport.Smtp(self.conf.smtp)
        try:
            while not self.stop.is_set():
                mail = self.tables.claim(self.owner, at)
                if mail is None:
                    return
                try:
                    smtp.send(self.conf.sender, mail.recipient, mail.message)
                except (smtplib.SMTPException, OSError) as err:
                    self._failed(mail.id, mail.attempts, f"{type(err).__name__}: {err}", at, done)
                    return  # the server is failing: the rest wait for the next cycle
                self.tables.sent(mail.id, policy.utc_now())
                done.sent += 1
                log_lines.info("serve.sent", id=mail.id, key=mail.key, to=mail.recipient)
        finally:
            smtp.close()

    def _failed(self, mail_id: int, attempts: int, error: str, at: str, done: Cycle) -> None:
        retry = self.conf.retry
        wait = min(retry.first_seconds * retry.factor ** (attempts - 1), retry.max_seconds)
        final = attempts >= retry.attempts
        self.tables.failed(mail_id, error, None if final else _later(at, wait))
        done.failed += 1
        done.errors.append(f"send: {error}")
        log_lines.warning("serve.send_failed", id=mail_id, attempts=attempts, error=error, final=final)

    # --- running ----------------------------------------------------------------------------------

    def run(self, cycles: int | None = None) -> None:
        """Cycle until stopped (SIGTERM, SIGINT) or `cycles` are done; between cycles wait for the poll
        interval (or, with IMAP IDLE, for a new mail; with a listener, until a mail is delivered).
        DataError if the listener cannot listen."""
        from mncore.service.listener import Listener

        listener = Listener(self.conf, self.wake.set) if self.conf.listen is not None else None
        if listener is not None:
            listener.start()
        n = 0
        try:
            while not self.stop.is_set() and (cycles is None or n < cycles):
                self.cycle()
                n += 1
                if self.conf.inbox.kind == "imap" and self.conf.inbox.idle and not self.stop.is_set():
                    try:
                        transport.idle(self.conf.inbox, self.conf.poll_seconds)
                    except MareNostrumError as err:
                        log_lines.warning("serve.error", step="idle", error=err.message)
                        self.stop.wait(self.conf.poll_seconds)
                else:
                    self._pause(self.conf.poll_seconds)
        finally:
            if listener is not None:
                listener.stop()
        self.release()
        log_lines.info("serve.stopped", owner=self.owner, cycles=n)

    def _pause(self, seconds: float) -> None:
        """Wait the poll interval, or less: until stopped, or until the listener took a mail."""
        until = time.monotonic() + seconds
        while not self.stop.is_set() and not self.wake.is_set() and (left := until - time.monotonic()) > 0:
            self.wake.wait(min(left, 0.25))  # stop is checked at least this often
        self.wake.clear()

    def release(self) -> None:
        """Give up the inbox and the games at once (a clean stop), not after lease_seconds."""
        for name in ["inbox", *(f"game:{g}" for g in self.game_ids())]:
            self.tables.release(name, self.owner)
