"""The recorded play-by-email game: four empires to a win only through mail, through a local SMTP server.

The host runs mn alone (mn mail outbox/send/ingest, mn deadline, mn tick, mn correct); each player has
its key file and mn sign, and reads nothing but the report mailed to it. Scripted, with fixed keys and
nonces, so that the same game is played again exactly: `python tests/pbem_golden.py` rewrites the
fixture (review the diff). Along the way: a block sent twice, an undo granted (with consent), a host
correction, an undo asked that waits for consent, a deadline missed and defaulted, and after the
reveal an undo refused; every refusal answered by mail, nothing written. Each block queues the
player's answers for the rest of the round as it guesses it (K9), and no order after a battle's dice
is given but as a queued one.
"""

from __future__ import annotations

import datetime as dt
import email
import email.policy
import email.utils
import hashlib
import itertools
import json
import mailbox
import random
import re
import smtplib
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from mncli.cli import main
from mncore.core.dice import Rng, SecretNeeded
from mncore.core.errors import CommandRejected
from mncore.core.protocol import HOST as HOST_SIDE
from mncore.core.protocol import Option
from mncore.games import reading, transfer
from mncore.pbem import signing, turns
from mncore.rulesets.empires.players.autoplay import STYLES, candidate_lines
from mncore.rulesets.empires.seam import RULESET
from mncore.store import open_store

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "pbem-4.jsonl"
GAME = "pbem-4"
SEED = "pbem-golden"
EMPIRES = ("rome", "greece", "carthage", "egypt")
PLAYERS = {"rome": "Ann", "greece": "Ben", "carthage": "Cat", "egypt": "Dee"}
HOST = "host@example.org"
T0 = "2030-01-01T00:00:00+00:00"
CORRECTION = "applied by mistake: the player's mail was meant for the next phase"
MAX_CYCLES = 3_000
_GUESS = Rng(b"a player's guess at the dice", "golden")


def address(side: str) -> str:
    return f"{side}@example.org"


class Script:
    """What the recording did, for the test to check: each scripted moment's mail answer."""

    def __init__(self) -> None:
        self.answers: dict[str, str] = {}  # moment -> the body of the host's answer
        self.cycles = 0


@contextmanager
def smtp_to_maildir(inbox: Path) -> Iterator[tuple[str, int, list[EmailMessage]]]:
    """A real SMTP server on loopback: mail to the host lands in its Maildir; every mail is also kept."""
    from aiosmtpd.controller import Controller

    from mailkit import free_port

    received: list[EmailMessage] = []
    box = mailbox.Maildir(str(inbox), create=True)

    class Handler:
        async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
            msg = email.message_from_bytes(envelope.content, policy=email.policy.default)
            assert isinstance(msg, EmailMessage)
            received.append(msg)
            if HOST in envelope.rcpt_tos:
                box.add(mailbox.MaildirMessage(msg))
            return "250 OK"

    controller = Controller(Handler(), hostname="127.0.0.1", port=free_port())
    controller.start()
    try:
        yield "127.0.0.1", controller.port, received
    finally:
        controller.stop()


class Table:
    """The game's host and players around one database, a mail server and their folders."""

    def __init__(self, tmp: Path, smtp: tuple[str, int], received: list[EmailMessage]) -> None:
        self.tmp, self.db, self.smtp, self.received = tmp, tmp / "host.db", smtp, received
        self.inbox, self.outbox = tmp / "host-inbox", tmp / "host-outbox"
        self.read = 0  # how many received mails the players have looked at
        self.rand = random.Random(SEED)
        self.sent: dict[str, str] = {}  # side -> the text of the last mail it sent
        self.clock = Clock()

    def mn(self, *args: str) -> Result:
        result = CliRunner().invoke(main, ["--db", str(self.db), *args])
        assert result.exit_code == 0, (args, result.output)
        return result

    def key(self, side: str) -> Path:
        return self.tmp / "keys" / f"{GAME}-{side}.key"

    # --- the host ---------------------------------------------------------------------------------

    def start(self) -> None:
        (self.tmp / "keys").mkdir()
        public = []
        for side in EMPIRES:
            private = hashlib.sha256(f"{SEED}|{side}".encode()).hexdigest()
            key = signing.KeyFile(game=GAME, side=side, public=signing.public_of(private), private=private)
            signing.write_key_file(str(self.key(side)), key)
            public += ["--public-key", f"{side}={key.public}"]
        self.mn("new", *[a for e in EMPIRES for a in ("--empire", e)],
                *[a for e in EMPIRES for a in ("--player", f"{e}={PLAYERS[e]}")],
                "--seed", SEED, "--id", GAME, "--signed-only", *public,
                "--draw-scheme", "legacy")  # recorded before ruling K10: played again as it was
        for side in EMPIRES:
            self.mn("mail", "address", GAME, side, address(side))
        self.mn("mail", "address", GAME, "host", HOST)
        self.mn("deadline", GAME, "--hours", "24", "--forced")

    def post(self) -> None:
        """The host's round of mail: reports to those the game waits for, and every answer, sent."""
        self.mn("mail", "outbox", GAME, "--dir", str(self.outbox), "--waiting")
        self.mn("mail", "send", "--dir", str(self.outbox), "--smtp", f"{self.smtp[0]}:{self.smtp[1]}")

    def ingest(self) -> list[str]:
        """The host reads its inbox and answers; the bodies of the answers, once sent."""
        before = len(self.received)
        self.mn("mail", "ingest", str(self.inbox), "--outbox", str(self.outbox))
        self.mn("mail", "send", "--dir", str(self.outbox), "--smtp", f"{self.smtp[0]}:{self.smtp[1]}")
        return [_body(m) for m in self.received[before:] if m["Subject"].startswith("Re:")]

    # --- the players ------------------------------------------------------------------------------

    def reports(self) -> dict[str, Any]:
        """The newest report each player received since they last looked (its JSON attachment)."""
        out: dict[str, Any] = {}
        for msg in self.received[self.read:]:
            part = next((p for p in msg.iter_attachments()
                         if p.get_content_type() == "application/json"), None)
            if part is not None:
                data = part.get_content()
                out[str(msg["X-MN-Side"])] = json.loads(data if isinstance(data, (bytes, str)) else bytes(data))
        self.read = len(self.received)
        return out

    def mail(self, side: str, text: str, subject: str = "orders") -> None:
        """A player mails the host (through the SMTP server), quoting nothing, signing off."""
        msg = EmailMessage()
        msg["From"], msg["To"], msg["Subject"] = address(side), HOST, subject
        msg["Message-ID"] = email.utils.make_msgid(domain="players.example.org")
        msg.set_content(f"Dear host,\n\n{text}\n-- \n{PLAYERS[side]}\n")
        with smtplib.SMTP(*self.smtp) as smtp:
            smtp.send_message(msg)
        self.sent[side] = text

    def sign(self, side: str, report: Any, lines: list[str], n: int) -> str:
        """mn sign with the player's own key, against the head its report shows."""
        out = self.tmp / "block.txt"
        nonce = hashlib.sha256(f"{SEED}|{side}|{n}".encode()).hexdigest()[:32]
        self.mn("sign", "--key", str(self.key(side)), "--seq", str(report["receipt"]["seq"]),
                "--head", report["receipt"]["head"], "--nonce", nonce, "-o", str(out), *lines)
        return out.read_text()

    def choose(self, side: str, report: Any, queue: bool = False) -> list[str]:
        """Orders from the player's report's options, several while it alone decides in one phase;
        with `queue`, then its answers to its coming decisions of the round as `queue` lines (K9).

        The players know the rules: each candidate is tried on the host's state before it is signed
        (a stand-in for a player reading the rules; it signs only lines of its own options, or of
        the options of its guess of the game ahead: the others giving their documented defaults)."""
        state = reading.load(open_store(str(self.db)), GAME).state
        options = [Option(**o) for o in report["options"]]
        phase = RULESET.phase_of(state)
        out: list[str] = []
        while len(out) < 6:
            line = self._legal(state, side, options)
            if line is None:
                break
            drawn = queue and _draws(state, side, line)
            _, state = RULESET.decide(state, RULESET.parse_order(line, state, side), _GUESS)
            out.append(line)
            if ({p.empire for p in RULESET.pending(state)} != {side} or RULESET.phase_of(state) != phase
                    or RULESET.meta(state).over or drawn):
                break  # after dice, only queued lines: each applied if the dice allow it (K9)
            options = RULESET.options(state, side)
        return out + ([f"queue {line}" for line in self._ahead(state, side)] if queue and out else [])

    def _ahead(self, state: Any, side: str) -> list[str]:
        """The player's answers in the rest of the round as it guesses it (K9)."""
        round_, out = RULESET.meta(state).round, list[str]()
        for _ in range(30):
            waiting = [p.empire for p in RULESET.pending(state)]
            if not waiting or len(out) >= 6 or RULESET.meta(state).over or RULESET.meta(state).round != round_:
                break
            who = side if side in waiting else waiting[0]
            line = (self._legal(state, side, RULESET.options(state, side)) if who == side
                    else next(iter(RULESET.default_orders(state, who)), None))
            if line is None:
                break
            try:
                _, state = RULESET.decide(state, RULESET.parse_order(line, state, who), _GUESS)
            except CommandRejected:
                break
            if who == side:
                out.append(line)
        return out

    def _legal(self, state: Any, side: str, options: list[Option]) -> str | None:
        weights = STYLES["general"]
        lines = [ln for o in options for ln in candidate_lines(o, self.rand) if not ln.startswith("fix ")]
        self.rand.shuffle(lines)
        lines.sort(key=lambda ln: -weights.get(ln.split()[0].lower(), 1.0) * self.rand.random())
        for line in lines:
            try:
                RULESET.decide(state, RULESET.parse_order(line, state, side), _GUESS)
            except CommandRejected:
                continue
            return line
        return None


def _draws(state: Any, side: str, line: str) -> bool:
    """Whether an order draws at random (a battle's dice): decided with no secret, it asks for one."""
    try:
        RULESET.decide(state, RULESET.parse_order(line, state, side), Rng(None, ""))
    except SecretNeeded:
        return True
    return False


def _body(msg: EmailMessage) -> str:
    part = msg.get_body(("plain",))
    return "" if part is None else str(part.get_content())


class Clock:
    """The time each row is recorded at, a minute per row from T0: the chain hashes the time, the
    players sign the head and a signed block's dice come from its signature, so a game played
    again gives the same dice only on the same clock."""

    def __init__(self) -> None:
        self.ticks = itertools.count()
        self.start = dt.datetime.fromisoformat(T0)

    def __call__(self) -> str:
        return (self.start + dt.timedelta(minutes=next(self.ticks))).isoformat(timespec="microseconds")

    def later(self, hours: int) -> str:
        """A time that many hours after now, from which the clock then goes on (mn tick --now)."""
        self.start += dt.timedelta(hours=hours)
        return self()


@contextmanager
def fixed_clock() -> Iterator[Clock]:
    real = reading.utc_now
    clock = Clock()
    reading.utc_now = clock
    try:
        yield clock
    finally:
        reading.utc_now = real


def play(tmp: Path) -> tuple[Path, Script]:
    """Play the game to a win through mail; the host's database and what the script saw."""
    script = Script()
    with fixed_clock() as clock, smtp_to_maildir(tmp / "host-inbox") as (host, port, received):
        table = Table(tmp, (host, port), received)
        table.clock = clock
        table.start()
        still, last = 0, -1  # cycles in a row in which the log did not grow; its last event
        for cycle in range(MAX_CYCLES):
            script.cycles = cycle
            status = json.loads(table.mn("status", GAME, "--json").stdout)
            if cycle % 25 == 0:
                print(f"cycle {cycle}: round {status['round']}, {status['phase']}", file=sys.stderr, flush=True)
            if status["winner"]:
                break
            still = still + 1 if status["head"]["seq"] == last else 0
            last = status["head"]["seq"]
            # a game nobody answers any more fails at once, saying whom it waits for, not after every cycle
            assert still < 3, f"stalled at event {last}: {status['pending']}, no report and no answer"
            table.post()
            reports = table.reports()
            waiting = sorted({p["empire"] for p in status["pending"]} & set(reports))
            done = _moments(table, script, cycle, waiting)
            for side in waiting:
                if side not in done:
                    lines = table.choose(side, reports[side], queue=True)
                    table.mail(side, table.sign(side, reports[side], lines, cycle))
                    table.ingest()
        table.mn("reveal", GAME)
        # an undo refused (K1): nothing can be taken back across the reveal; nothing is written
        side = sorted(EMPIRES)[-1]
        table.mail(side, table.sign(side, _fresh_report(table, side), ["undo"], 50_000), subject="undo")
        script.answers["undo refused"] = table.ingest()[-1]
    return table.db, script


def _moments(table: Table, script: Script, cycle: int, waiting: list[str]) -> set[str]:
    """The scripted moments, each answered by mail and checked by the test; the sides that have
    answered (or lost their decision) by them this cycle."""
    seen = script.answers
    if cycle >= 4 and "twice" not in seen and table.sent:  # a block sent twice: the same mail again
        side = sorted(table.sent)[0]
        table.mail(side, table.sent[side], subject="orders (again)")
        seen["twice"] = table.ingest()[-1]
        return set()
    if cycle >= 6 and "undo granted" not in seen and len(waiting) == 1:
        return _undo_granted(table, script, cycle, waiting[0])
    if "undo granted" in seen and "undo asked" not in seen:
        # a host correction of the last batch (its reason every player reads), then an undo that
        # others must consent to (K2): a correction is no side's move, so it does not block it
        rows = open_store(str(table.db)).rows(GAME)
        gone = turns.undone_seqs(rows)
        last = [s.first for s in turns.spans(RULESET, rows)
                if s.first not in gone and s.giver != HOST_SIDE and s.kind not in turns.BESIDE_PLAY][-1]
        table.mn("correct", GAME, "--batch", str(last), "--reason", CORRECTION)
        seen["corrected batch"] = str(last)
        side = sorted(EMPIRES)[0]
        table.mail(side, table.sign(side, _fresh_report(table, side), ["undo"], 30_000 + cycle),
                   subject="undo")
        seen["undo asked"] = table.ingest()[-1]
        return set(EMPIRES)  # every report of this cycle is stale now
    if cycle >= 12 and "ticked" not in seen and waiting:  # deadlines missed: the host's cron, late
        table.mn("tick", GAME, "--now", table.clock.later(48))
        seen["ticked"] = ",".join(waiting)
        return set(EMPIRES)
    return set()


def _undo_granted(table: Table, script: Script, cycle: int, side: str) -> set[str]:
    """The one player the game waits for sends its orders, reads the new report, then takes them
    back by mail; if that needs the others' consent (K2), each gives it by mail."""
    report = _fresh_report(table, side)
    table.mail(side, table.sign(side, report, table.choose(side, report), 10_000 + cycle))
    table.ingest()
    after = _fresh_report(table, side)
    table.mail(side, table.sign(side, after, ["undo"], 20_000 + cycle), subject="undo")
    answer = table.ingest()[-1]
    note = re.search(r"consent of (.*) \(ruling K2\): each sends a signed block '(consent \d+)'", answer)
    answers = [answer]
    if note is not None:
        for other in [s for s in EMPIRES if RULESET.side_name(s) in note[1].split(", ")]:
            table.mail(other, table.sign(other, _fresh_report(table, other), [note[2]], 40_000 + cycle),
                       subject="consent")
            answers.append(table.ingest()[-1])
    script.answers["undo granted"] = "\n".join(answers)
    return set(EMPIRES)


def _fresh_report(table: Table, side: str) -> Any:
    table.mn("mail", "outbox", GAME, "--dir", str(table.outbox), "--as", side)
    table.mn("mail", "send", "--dir", str(table.outbox), "--smtp", f"{table.smtp[0]}:{table.smtp[1]}")
    return table.reports()[side]


def export(db: Path) -> bytes:
    loaded = reading.load(open_store(str(db)), GAME)
    return b"".join(line + b"\n" for line in transfer.export_lines(loaded))


if __name__ == "__main__":
    import logging
    import tempfile

    logging.disable(logging.CRITICAL)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    with tempfile.TemporaryDirectory() as tmp:
        db, script = play(Path(tmp))
        FIXTURE.write_bytes(export(db))
        print(f"wrote {FIXTURE} after {script.cycles} cycles: {sorted(script.answers)}")
