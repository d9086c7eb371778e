"""Emails per player per round when whole games are played by email: reports out, signed blocks in.

python bench/pbem.py [--quick] [--runs N]   (--runs: games per number of empires, default 2;
                                            PBEM_SERVED_ONLY=1: only the mn serve lines;
                                            PBEM_PICTURE_ONLY=1: only the picture line, of 3-empire games)

Scripted players play Empires games to a win for 3, 4 and 5 empires through the mail code: each
cycle the host mails a report to every empire the game waits for (mncore.pbem.report, as a mail with the
report's JSON attached); the player reads its options from that JSON, signs a block (mncore.pbem.signing)
and mails it; the host reads the mail (mncore.pbem.mail.inbox: the block found, applied whole or refused)
and answers it. In the third configuration each player first mails its standing orders (K6): claim
preferences, whom to name to build and to move, the legendary bonus to take, whom to give a tied
title. A player puts several orders in one block while, as far as it can foresee, the game keeps
waiting for it in the same phase; a block refused because the dice went otherwise costs another
mail. In the fourth each block also queues (K9) the player's orders for its coming decisions of the
round: the player plays the round ahead on its guess (its own dice guess, the other empires giving
their documented defaults, docs/defaults.md) and queues its own answers in that course of play; a
queued line the game refuses when its decision comes drops the queue and the player is asked.
The players know the rules: each candidate order of its options is tried on the host's state
before it is signed (a stand-in for a player who reads the rules, not a peek at hidden facts: only
orders from its own report's options, or from the options of its guess of the game ahead, are
signed). Pictures and exports are not attached (time); at each game's end each empire's report
mail is made with and without its picture, and the median and largest of each are printed (bytes on
the wire).

Prints, per number of empires: games, rounds, emails sent by each player per round (blocks), emails
each player received per round (reports and answers), and whether the issue's goal (sent <= 3 per
player per round on average) is met. Figures are counts, not timings.

The last configuration is `mn serve` (issue 25): the service's own cycle (mncore.service.loop) reads
the players' mails from a Maildir, applies them, and queues every mail its policy sends (answers,
reports to the sides waited on, notices to sides an event touches, a digest a round, the export as a
delta since the player's last acknowledged head, the report's JSON and the export gzipped); nothing
is sent (no SMTP server), every mail is counted and measured in the outbox (bytes as queued, before
SMTP's CRLF line ends). It runs the default notices ("batch": a blow the phase's end, a default or
undo at once; kernel ruling K13) and "each" (at every touching event). For it the bench also prints
mails received per player per round, the median and largest mail in bytes, and the host commands
typed per round, each figure beside its goal: 0 commands, as the service runs by itself (the by-hand loop of the other configurations is three commands a cycle,
mn mail outbox, mn mail send, mn mail ingest, plus mn tick where deadlines are set).
"""

from __future__ import annotations

import datetime as dt
import email
import email.policy
import hashlib
import itertools
import json
import mailbox
import os
import random
import sys
import tempfile
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import figures  # noqa: E402
import longgame  # noqa: E402,F401  (quiets the engine's log lines)

from mncore.core.dice import Rng, seeded_secret  # noqa: E402
from mncore.core.errors import CommandRejected  # noqa: E402
from mncore.core.kernel_acts import PublishKeys  # noqa: E402
from mncore.core.protocol import Option  # noqa: E402
from mncore.games import by_mail, reading, writing
from mncore.pbem import report as reports
from mncore.pbem import signing  # noqa: E402
from mncore.pbem import turns as pbem_rules
from mncore.pbem.mail import inbox, outbox  # noqa: E402
from mncore.pictures import changes
from mncore.rulesets.empires.board import load_board  # noqa: E402
from mncore.rulesets.empires.commands import CreateGame  # noqa: E402
from mncore.rulesets.empires.ids import TOKENS  # noqa: E402
from mncore.rulesets.empires.players.autoplay import STYLES, candidate_lines  # noqa: E402
from mncore.rulesets.empires.rules.setup import playable_empires  # noqa: E402
from mncore.rulesets.empires.seam import RULESET  # noqa: E402
from mncore.service.config import Config, GameConf, Inbox, Policy  # noqa: E402
from mncore.service.loop import Service  # noqa: E402
from mncore.store import Store, open_store  # noqa: E402

GOAL = 3.0
GOAL_RECEIVED = 4.0
GOAL_MEDIAN = 50 * 1024
MAX_CYCLES = int(os.environ.get("PBEM_CYCLES", "4000"))
BATCH = 8  # at most this many orders given now in one block
AHEAD = 40  # at most this many decisions of the round ahead played on a player's guess (K9)
HOST = "host@example.org"
_GUESS = Rng(b"a player's guess at the dice", "bench")


def _mail(msg: EmailMessage) -> EmailMessage:
    """A message as it arrives: written out as bytes and read back."""
    out = email.message_from_bytes(bytes(msg), policy=email.policy.default)
    assert isinstance(out, EmailMessage)
    return out


def _report_json(msg: EmailMessage) -> Any:
    part = next(p for p in msg.iter_attachments() if p.get_content_type() == "application/json")
    data = part.get_content()
    return json.loads(data if isinstance(data, (bytes, str)) else bytes(data))


def _first_legal(state: Any, side: str, options: list[Option], rand: random.Random) -> tuple[str, Any] | None:
    weights = STYLES["builder"]
    lines = [ln for o in options for ln in candidate_lines(o, rand)]
    rand.shuffle(lines)
    lines.sort(key=lambda ln: -weights.get(ln.split()[0].lower(), 1.0) * rand.random())
    for line in lines:
        try:
            _, after = RULESET.decide(state, RULESET.parse_order(line, state, side), _GUESS)
        except CommandRejected:
            continue
        return line, after
    return None


def _now(state: Any, side: str, options: list[Option], rand: random.Random) -> tuple[list[str], Any]:
    """The orders given now and the state they lead to (as the player foresees it)."""
    phase = reports.phase_of(RULESET, state)
    out: list[str] = []
    while len(out) < BATCH:
        found = _first_legal(state, side, options, rand)
        if found is None:
            break
        line, state = found
        out.append(line)
        waiting = {p.empire for p in RULESET.pending(state)}
        if side not in waiting or reports.phase_of(RULESET, state) != phase or RULESET.meta(state).over:
            break
        options = RULESET.options(state, side)
    return out, state


def _queued(state: Any, side: str, rand: random.Random) -> list[str]:
    """The player's answers to its coming decisions of the round, in the course of play it guesses:
    its own dice guess, every other empire answering with its documented default (K9)."""
    round_ = RULESET.meta(state).round
    out: list[str] = []
    for _ in range(AHEAD):
        if RULESET.meta(state).over or RULESET.meta(state).round != round_ or len(out) >= BATCH:
            break
        waiting = [p.empire for p in RULESET.pending(state)]
        if not waiting:
            break
        if side in waiting:
            found = _first_legal(state, side, RULESET.options(state, side), rand)
            if found is None:
                break
            out.append(found[0])
            state = found[1]
            continue
        other = waiting[0]
        guess = RULESET.default_orders(state, other)
        try:
            _, state = RULESET.decide(state, RULESET.parse_order(guess[0], state, other), _GUESS)
        except (CommandRejected, IndexError):
            break
    return out


def standing_lines(side: str, empires: list[str], rand: random.Random) -> list[str]:
    """A player's standing orders (K6), sent once: whom it names to build and to move next, the
    legendary bonus it takes, whom it gives a tied title, then its claim preferences (every resource
    from every other empire, in an order of its own, as many as the limit leaves room for)."""
    names = list(empires)
    rand.shuffle(names)
    legendary = [p.id for p in load_board().provinces if any(sp.kind == "legendary" for sp in p.spaces)]
    fixed = [*(f"builder {e}" for e in names), *(f"mover {e}" for e in names),
             *(f"bonus {pid} {take}" for pid in legendary for take in ("legendary", "coin")),
             *(f"title {track} to {e}" for track in ("trade", "culture", "military") for e in names)]
    claims = [f"claim {t} from {e}" for t in TOKENS for e in empires if e != side]
    rand.shuffle(claims)
    room = pbem_rules.MAX_STANDING - len(fixed)  # a side may leave so many lines, no more
    return [f"standing {line}" for line in [*fixed, *claims[:max(room, 0)]]][:pbem_rules.MAX_STANDING]


def _mail_block(store: Store, side: str, block: Any) -> None:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = f"{side}@example.org", HOST, "orders"
    msg.set_content(signing.armour(block))
    letter = inbox.read_letter(store, _mail(msg))
    _mail(outbox.answer_message(letter, HOST))


def play(players: int, seed: int, forced: bool, standing: bool = False,
         queue: bool = False) -> tuple[int, dict[str, int], dict[str, int], bool]:
    """One game by mail to its end, with or without forced answers taken at once (K5), standing
    orders (K6) and queued orders (K9): (rounds, mails sent per empire, mails received per empire, won)."""
    rand = random.Random(seed)
    board = load_board()
    empires = playable_empires(board, players)
    cmd = CreateGame(board=board, players={e: e.title() for e in empires}, display="first-game",
                     fair_play=True)
    # fixed keys, nonces and clock (main): a signed block's dice come from its signature over the
    # head, which hashes the time each row was recorded; so the same seed plays the same game
    secret_of = {e: hashlib.sha256(f"pbem-bench|{seed}|{e}".encode()).hexdigest() for e in empires}
    private = {e: (k, signing.public_of(k)) for e, k in secret_of.items()}
    nonces = (hashlib.sha256(f"pbem-bench|{seed}|{n}".encode()).hexdigest()[:32] for n in itertools.count())
    keys = PublishKeys(keys={e: pub for e, (_, pub) in private.items()})
    sent = dict.fromkeys(empires, 0)
    got = dict.fromkeys(empires, 0)
    since = dict.fromkeys(empires, 0)
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(str(Path(tmp) / "pbem.db"), create=True)
        gid = f"bench{players}x{seed}"
        writing.create(store, RULESET, cmd, seeded_secret(f"pbem-{seed}"), gid, keys)
        if forced:
            by_mail.set_pace(store, gid, 0, {}, forced=True)
        if standing:
            for side in empires:
                seq, head = reading.current(store, gid).head
                _mail_block(store, side, signing.sign(private[side][0], game=gid, side=side, seq=seq,
                                                      head=head, orders=standing_lines(side, empires, rand),
                                                      nonce=next(nonces)))
                sent[side] += 1
                got[side] += 1
        for _ in range(MAX_CYCLES):
            loaded = reading.load(store, gid)
            waiting = sorted({p.empire for p in RULESET.pending(loaded.state)})
            if loaded.meta.over or not waiting:
                break
            for side in waiting:
                report = reports.of_game(loaded, side, since[side])
                since[side] = report.receipt.seq
                mailed = _mail(outbox.report_message(report, f"{side}@example.org", HOST, None, None))
                got[side] += 1
                doc = _report_json(mailed)
                options = [Option(**o) for o in doc["options"]]
                lines, after = _now(loaded.state, side, options, rand)
                if not lines:
                    continue
                if queue:
                    lines += [f"queue {line}" for line in _queued(after, side, rand)]
                block = signing.sign(private[side][0], game=gid, side=side, seq=doc["receipt"]["seq"],
                                     head=doc["receipt"]["head"], orders=lines, nonce=next(nonces))
                _mail_block(store, side, block)
                sent[side] += 1
                got[side] += 1
        final = reading.load(store, gid)
        for side in empires:  # each empire's last report, without and with its picture
            report = reports.of_game(final, side, since[side])
            svg = changes.picture(final, side, since[side])
            MAIL_SIZES.append((len(bytes(outbox.report_message(report, f"{side}@example.org", HOST, None, None))),
                               len(bytes(outbox.report_message(report, f"{side}@example.org", HOST, svg, None)))))
    return final.meta.round, sent, got, final.meta.over


class Served(msgspec.Struct, kw_only=True):
    """One game run by mn serve's cycle: rounds, mails each way per empire, the size of every mail."""

    rounds: int
    sent: dict[str, int]
    got: dict[str, int]
    sizes: list[int]
    kinds: dict[str, int]  # mails received by kind (report, notice, digest, answer, reminder, final)
    over: bool
    host_commands: int  # typed by the host after the service started


def served(players: int, seed: int, notices: str = "batch") -> Served:
    """A game run by mn serve's own cycle (forced answers, standing and queued orders): the players
    read what the service's policy mails them and answer the reports that ask them something."""
    rand = random.Random(seed)
    board = load_board()
    empires = playable_empires(board, players)
    cmd = CreateGame(board=board, players={e: e.title() for e in empires}, display="first-game",
                     fair_play=True)
    private = {e: hashlib.sha256(f"pbem-bench|{seed}|{e}".encode()).hexdigest() for e in empires}
    nonces = (hashlib.sha256(f"pbem-serve|{seed}|{n}".encode()).hexdigest()[:32] for n in itertools.count())
    keys = PublishKeys(keys={e: signing.public_of(k) for e, k in private.items()})
    sent = dict.fromkeys(empires, 0)
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "serve.db")
        store = open_store(db, create=True)
        gid = f"serve{players}x{seed}"
        writing.create(store, RULESET, cmd, seeded_secret(f"pbem-{seed}"), gid, keys)
        by_mail.set_pace(store, gid, 0, {}, forced=True)
        box = mailbox.Maildir(str(Path(tmp) / "inbox"), create=True)
        conf = Config(db=db, sender=HOST, inbox=Inbox(kind="maildir", path=str(Path(tmp) / "inbox")),
                      games={gid: GameConf(addresses={e: f"{e}@example.org" for e in empires})},
                      policy=Policy(notices=notices))
        service = Service(conf, store)

        def mail(side: str, lines: list[str], seq: int, head: str) -> None:
            block = signing.sign(private[side], game=gid, side=side, seq=seq, head=head, orders=lines,
                                 nonce=next(nonces))
            msg = EmailMessage()
            msg["From"], msg["To"], msg["Subject"] = f"{side}@example.org", HOST, "orders"
            msg["Message-ID"] = f"<{next(nonces)}@players.example.org>"
            msg.set_content(signing.armour(block))
            box.add(bytes(msg))
            sent[side] += 1

        for side in empires:
            seq, head = reading.current(store, gid).head
            mail(side, standing_lines(side, empires, rand), seq, head)
        read = 0
        for _ in range(MAX_CYCLES):
            service.cycle(next(_TICKS))
            loaded = reading.load(store, gid)
            if loaded.meta.over:
                break
            waiting = sorted({p.empire for p in RULESET.pending(loaded.state)})
            news = service.tables._read("select id, side, message from mail_out where id > ? order by id", [read])
            read = max([read, *(r[0] for r in news)])
            if not waiting:
                break
            for side in waiting:  # each answers its newest report; a refused block: it tries again
                options = RULESET.options(loaded.state, side)
                lines, after = _now(loaded.state, side, options, rand)
                if not lines:
                    continue
                lines += [f"queue {line}" for line in _queued(after, side, rand)]
                mail(side, lines, *loaded.head)
        rows = service.tables._read("select side, length(message), kind from mail_out")
        got = dict.fromkeys(empires, 0)
        kinds: dict[str, int] = {}
        for side, _, kind in rows:
            if side in got:
                got[side] += 1
                kinds[kind] = kinds.get(kind, 0) + 1
        final = reading.load(store, gid)
        store.close()
    return Served(rounds=final.meta.round, sent=sent, got=got, sizes=[int(r[1]) for r in rows], kinds=kinds,
                  over=final.meta.over, host_commands=0)


MAIL_SIZES: list[tuple[int, int]] = []  # a last report's mail in bytes: text and JSON only; with its picture


def _clock() -> Iterator[str]:
    start = dt.datetime(2030, 1, 1, tzinfo=dt.UTC)
    for n in itertools.count():
        yield (start + dt.timedelta(minutes=n)).isoformat(timespec="microseconds")


_TICKS = _clock()


def _met(ok: bool) -> str:
    return "met" if ok else "NOT met"


def main() -> None:
    opts = figures.args(__doc__, runs=2)
    reading.utc_now = lambda: next(_TICKS)  # the rows' times: see play()
    games = 1 if opts.quick else opts.runs
    served_only = os.environ.get("PBEM_SERVED_ONLY") == "1"
    if os.environ.get("PBEM_PICTURE_ONLY") == "1":  # the picture line alone, from 3-empire games
        for seed in range(games):
            play(3, seed, True, True, True)
        _picture_line()
        return
    for players, notices in itertools.product((3, 4, 5), ("each", "phase")):
        runs = [served(players, seed, notices) for seed in range(games)]
        rounds = sum(r.rounds for r in runs)
        per_sent = sum(sum(r.sent.values()) for r in runs) / (players * rounds)
        per_got = sum(sum(r.got.values()) for r in runs) / (players * rounds)
        sizes = sorted(n for r in runs for n in r.sizes)
        mid = figures.median(sizes)
        commands = sum(r.host_commands for r in runs) / rounds
        kinds = {k: sum(r.kinds.get(k, 0) for r in runs) / (players * rounds) for k in sorted({
            k for r in runs for k in r.kinds})}
        how = "the default" if notices == Policy().notices else "the host's choice"
        print(f"{players} empires, mn serve (notices = {notices}, {how}; forced, standing and queued orders): "
              f"{games} game(s), {sum(r.over for r in runs)} won, {rounds} rounds; per player per round: "
              f"{per_sent:.2f} mails sent (goal <= {GOAL:.0f}: {_met(per_sent <= GOAL)}), "
              f"{per_got:.2f} received (goal <= {GOAL_RECEIVED:.0f}: {_met(per_got <= GOAL_RECEIVED)}; "
              f"{', '.join(f'{k} {v:.2f}' for k, v in kinds.items())}); mail size median {mid:,.0f} bytes "
              f"(goal <= {GOAL_MEDIAN:,}: {_met(mid <= GOAL_MEDIAN)}), largest {sizes[-1]:,} bytes; host "
              f"commands typed per round {commands:.0f} (goal 0: {_met(commands == 0)})", flush=True)
    if served_only:
        return
    for forced, standing, queue in ((False, False, False), (True, False, False), (True, True, False),
                                    (True, True, True)):
        for players in (3, 4, 5):
            rounds = sent = got = won = 0
            for seed in range(games):
                r, s, g, w = play(players, seed, forced, standing, queue)
                rounds, sent, got, won = rounds + r, sent + sum(s.values()), got + sum(g.values()), won + w
            per_sent = sent / (players * rounds)
            per_got = got / (players * rounds)
            verdict = "met" if per_sent <= GOAL else "not met"
            how = ("forced answers, standing and queued orders (K5, K6, K9)" if queue
                   else "forced answers (K5) and standing orders (K6)" if standing
                   else "forced answers taken at once (K5)" if forced else "every decision mailed")
            print(f"{players} empires, {how}: {games} game(s), {won} won, {rounds} rounds; emails per "
                  f"player per round: {per_sent:.2f} sent (blocks), {per_got:.2f} received (reports "
                  f"and answers); goal <= {GOAL:.0f} sent: {verdict}", flush=True)
    _picture_line()


def _picture_line() -> None:
    """The last report mail of each empire of each game: median and largest, without and with its board."""
    plain = sorted(a for a, _ in MAIL_SIZES)
    pictured = sorted(b for _, b in MAIL_SIZES)
    print(f"A report mail ({len(MAIL_SIZES)} measured): with its text and JSON, median "
          f"{figures.median(plain) / 1024:.0f} KiB, largest {plain[-1] / 1024:.0f} KiB; with the board (a PNG "
          f"inline in the HTML part, no SVG), median {figures.median(pictured) / 1024:.0f} KiB, largest "
          f"{pictured[-1] / 1024:.0f} KiB", flush=True)


if __name__ == "__main__":
    main()
