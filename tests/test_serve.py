"""mn serve (issue 25): the configuration, real SMTP with STARTTLS and AUTH, mail applied once, mail
sent at most once, retries with back-off, reminders, notices and export deltas."""

from __future__ import annotations

import email
import email.policy
import gzip
import mailbox
import os
from email.message import EmailMessage
from pathlib import Path
from typing import cast

import msgspec
import pytest
from click.testing import CliRunner

from mncli.cli import main
from mncore.core.errors import DataError
from mncore.games import by_mail, lifecycle, reading, transfer
from mncore.pbem.mail import limits, outbox
from mncore.service import config as configs
from mncore.service import policy
from mncore.service.loop import Cycle, Service, _later
from mncore.store import Store, open_store
from mncore.store.service_tables import ServiceTables
from servegame import SIDES, answer, new_game, reply, write_config
from servekit import PASSWORD, USER, Smtp, smtp_tls

T0 = "2030-01-01T00:00:00+00:00"


def _conf(tmp_path: Path, smtp: Smtp | None, policy_lines: str = "", **extra: str) -> Path:
    inbox = tmp_path / "inbox"
    mailbox.Maildir(str(inbox), create=True)
    text = f"""db = "{tmp_path / 'g.db'}"
sender = "{USER}"
poll_seconds = 0.2
[inbox]
kind = "maildir"
path = "{inbox}"
[policy]
reminders = [24, 2]
export = "delta"
{policy_lines}
[games.g1.addresses]
{chr(10).join(f'{s} = "{s}@example.org"' for s in SIDES)}
"""
    if smtp is not None:
        text += f"""[smtp]
host = "{smtp.host}"
port = {smtp.port}
security = "starttls"
user = "{USER}"
password_env = "MN_TEST_SMTP_PASSWORD"
ca_file = "{tmp_path / 'cert.pem'}"
timeout = 10
[retry]
attempts = 3
first_seconds = 60
"""
    top = "".join(f"{k} = {v}\n" for k, v in extra.items())
    return write_config(tmp_path / "host.toml", top + text)


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MN_TEST_SMTP_PASSWORD", PASSWORD)


def _service(path: Path) -> Service:
    conf = configs.load(str(path))
    return Service(conf, open_store(conf.db))


def _deliver(tmp_path: Path, msg: EmailMessage) -> None:
    mailbox.Maildir(str(tmp_path / "inbox"), create=False).add(bytes(msg))


def test_a_password_in_a_file_others_can_read_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "host.toml"
    path.write_text(f'db = "{tmp_path / "g.db"}"\n[smtp]\nhost = "mail.example.org"\nuser = "h"\npassword = "pw"\n')
    os.chmod(path, 0o644)
    result = CliRunner().invoke(main, ["serve", "--config", str(path), "--once"])
    assert result.exit_code == 2
    assert result.output == (f"Error: {path}: smtp.password is in a file that others can read (mode 644): "
                             f"chmod 600 {path}, or give password_env instead\n")


def test_a_password_variable_that_is_not_set_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MN_TEST_SMTP_PASSWORD", raising=False)
    path = _conf(tmp_path, Smtp("127.0.0.1", 1))
    result = CliRunner().invoke(main, ["serve", "--config", str(path), "--once"])
    assert result.exit_code == 2
    assert "smtp.password_env: the environment variable MN_TEST_SMTP_PASSWORD is not set" in result.output


def test_an_unknown_key_is_refused_naming_it(tmp_path: Path) -> None:
    path = write_config(tmp_path / "host.toml", f'db = "{tmp_path / "g.db"}"\n[policy]\ndigest = "weekly"\n')
    result = CliRunner().invoke(main, ["serve", "--config", str(path), "--once"])
    assert result.exit_code == 2
    assert "policy.digest = 'weekly': one of none, phase, round" in result.output


def test_a_configuration_too_large_to_be_one_is_refused_unread(tmp_path: Path) -> None:
    path = write_config(tmp_path / "host.toml", "# " + "x" * (configs.MAX_CONFIG + 1) + "\n")
    result = CliRunner().invoke(main, ["serve", "--config", str(path), "--once"])
    assert result.exit_code == 2
    assert result.stderr == f"Error: {path}: over {configs.MAX_CONFIG} bytes: not a configuration file\n"


def test_a_block_is_answered_in_the_cycle_that_reads_it_and_applied_once(tmp_path: Path, env: None) -> None:
    """Reports go out over STARTTLS and AUTH; a player's block read in a cycle is applied, answered
    and the next reports sent in that same cycle; the same mail delivered twice is applied once;
    every mail reaches the server once; the password is nowhere in the database."""
    db = str(tmp_path / "g.db")
    new_game(db, tmp_path / "keys")
    with smtp_tls(tmp_path) as smtp:
        service = _service(_conf(tmp_path, smtp, 'answers = "at-once"'))
        first = service.cycle(T0)
        assert (first.queued, first.sent, first.errors) == (3, 3, [])
        waited = next(m for m in smtp.received if m["X-MN-Kind"] == "report")
        text = answer(db, tmp_path / "keys", waited, 1)
        assert text is not None
        mail = reply(USER, waited, text)
        _deliver(tmp_path, mail)
        _deliver(tmp_path, mail)  # the same mail twice (a resend, a second delivery)
        second = service.cycle(T0)
        assert (second.read, second.applied, second.errors) == (1, 1, [])
        answers = [m for m in smtp.received if m["In-Reply-To"] == mail["Message-ID"]]
        assert len(answers) == 1 and "APPLIED" in outbox_text(answers[0])
        # the answer goes before the report the player is sent in the same cycle (one mail, not two)
        assert second.sent == second.queued >= 1
        third = service.cycle(T0)
        assert (third.read, third.applied, third.queued, third.sent) == (0, 0, 0, 0)
        assert all(n == 1 for n in smtp.by_id().values())
        assert smtp.refused_logins == 0
    assert PASSWORD.encode() not in Path(db).read_bytes()
    assert lifecycle.verify_game(open_store(db), "g1").ok


def test_an_applied_answer_waits_for_the_sides_next_mail(tmp_path: Path, env: None) -> None:
    """By default (answers = "with-next") the answer to a block applied goes with the side's next
    mail, threaded under the player's mail, not alone."""
    db = str(tmp_path / "g.db")
    new_game(db, tmp_path / "keys")
    with smtp_tls(tmp_path) as smtp:
        service = _service(_conf(tmp_path, smtp))
        service.cycle(T0)
        waited = next(m for m in smtp.received if m["X-MN-Kind"] == "report")
        text = answer(db, tmp_path / "keys", waited, 1)
        assert text is not None
        mail = reply(USER, waited, text)
        _deliver(tmp_path, mail)
        side = str(waited["X-MN-Side"])
        at = T0
        for _ in range(30):  # bounded: the deadlines' defaults move the game on until the side hears
            service.cycle(at)
            if any(m["In-Reply-To"] == mail["Message-ID"] for m in smtp.received):
                break
            at = _later(at, 49 * 3600)
        threaded = [m for m in smtp.received if m["In-Reply-To"] == mail["Message-ID"]]
        assert len(threaded) == 1
        assert threaded[0]["X-MN-Kind"] in ("report", "notice", "digest", "final")
        assert str(threaded[0]["To"]) == f"{side}@example.org"
        assert "APPLIED" in outbox_text(threaded[0])
        assert all(n == 1 for n in smtp.by_id().values())


def outbox_text(msg: EmailMessage) -> str:
    part = msg.get_body(("plain",))
    assert part is not None
    return str(part.get_content())


def test_a_failing_server_is_retried_with_back_off_and_each_mail_goes_once(tmp_path: Path, env: None) -> None:
    db = str(tmp_path / "g.db")
    new_game(db, tmp_path / "keys")
    with smtp_tls(tmp_path) as smtp:
        smtp.failing = True
        service = _service(_conf(tmp_path, smtp))
        down = service.cycle(T0)
        assert (down.queued, down.sent, down.failed) == (3, 0, 1)
        assert service.tables.counts() == {"queued": 3, "sending": 0, "sent": 0, "failed": 0}
        smtp.failing = False
        early = service.cycle("2030-01-01T00:00:30+00:00")  # before the first back-off (60 s) is over
        assert (early.sent, early.failed) == (2, 0)  # the others go; the one that failed waits
        late = service.cycle("2030-01-01T00:01:01+00:00")
        assert late.sent == 1
        assert len(smtp.received) == 3 and all(n == 1 for n in smtp.by_id().values())


def test_a_mail_interrupted_while_being_sent_is_never_sent_again(tmp_path: Path, env: None) -> None:
    """A process killed between claiming a mail and recording it sent: the mail may have gone, so it
    is marked failed after stale_seconds, never sent twice; the host may queue it again."""
    db = str(tmp_path / "g.db")
    new_game(db, tmp_path / "keys")
    with smtp_tls(tmp_path) as smtp:
        service = _service(_conf(tmp_path, smtp, stale_seconds="60"))
        service.games(T0, Cycle())
        claimed = service.tables.claim("a-process-that-died", T0)
        assert claimed is not None
        service.cycle("2030-01-01T00:02:00+00:00")
        assert service.tables.counts() == {"queued": 0, "sending": 0, "sent": 2, "failed": 1}
        assert len(smtp.received) == 2
        assert service.tables.requeue(claimed.id, "2030-01-01T00:02:00+00:00")
        service.cycle("2030-01-01T00:02:00+00:00")
        assert len(smtp.received) == 3


def test_a_reminder_before_the_deadline_once_and_the_default_at_it_with_a_notice(tmp_path: Path) -> None:
    """Reminders at 24 and 2 hours before the deadline, each once; at the deadline the default is
    taken and the side it was taken for is told (a notice), though the game no longer waits for it."""
    db = str(tmp_path / "g.db")
    new_game(db, tmp_path / "keys", hours=48)
    service = _service(_conf(tmp_path, None))
    service.cycle(T0)
    tables = ServiceTables(open_store(db))
    waits = {side: w.due for side, w in by_mail.waiting(open_store(db), "g1").items()}
    side = next(r[2] for r in tables.mails() if r[1] == "report").split("@")[0]
    due = waits[side]
    assert due is not None
    for at in (_later(due, -23 * 3600), _later(due, -22 * 3600), _later(due, -3600), _later(due, -1800)):
        service.cycle(at)
    kinds = [(r[1], r[2]) for r in reversed(tables.mails())]
    assert kinds.count(("reminder", f"{side}@example.org")) == 2
    service.cycle(_later(due, 60))
    after = [r for r in tables.mails() if r[2] == f"{side}@example.org"]
    assert after[0][1] in ("notice", "report")
    rows = reading.load(open_store(db), "g1").rows
    assert any(r.actor == "deadline" for r in rows)


def test_a_cycle_with_nothing_owed_reads_no_whole_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A game planned again with nothing new since its mails (no event, no answer, no reminder due) is
    planned from its head, its whole log unread; it is read, up to that head, once a mail is owed."""
    db = str(tmp_path / "g.db")
    new_game(db, tmp_path / "keys", hours=48)
    service = _service(_conf(tmp_path, None))
    loads: list[tuple[str, int | None]] = []
    real = reading.load

    def counted(store: Store, game_id: str, upto: int | None = None) -> reading.Loaded:
        loads.append((game_id, upto))
        return real(store, game_id, upto)

    monkeypatch.setattr(reading, "load", counted)
    assert service.cycle(T0).queued and loads == [("g1", reading.current(open_store(db), "g1").head[0])]
    assert not service.cycle(T0).queued and not service.cycle(_later(T0, 3600)).queued
    assert len(loads) == 1
    due = min(w.due for w in by_mail.waiting(open_store(db), "g1").values() if w.due)
    assert service.cycle(_later(due, -23 * 3600)).queued  # a reminder is owed: the log is read for it
    assert len(loads) == 2


def test_a_delta_export_verifies_against_the_new_head_and_the_kept_one(tmp_path: Path) -> None:
    db = str(tmp_path / "g.db")
    new_game(db, tmp_path / "keys")
    store = open_store(db)
    loaded = reading.load(store, "g1")
    side = SIDES[2]
    kept = policy.export_for(loaded, side, "full", 0)
    assert kept is not None
    kept_head = loaded.head[1]
    by_mail.tick(store, "g1", "2030-06-01T00:00:00+00:00")  # the default at the deadline: events after
    later = reading.load(store, "g1")
    assert later.head[0] > loaded.head[0]
    delta = policy.export_for(later, side, "delta", loaded.head[0])
    assert delta is not None and len(delta) < len(kept)
    merged = policy.merge_delta(kept, delta)
    assert merged == policy.export_for(later, side, "full", 0)
    assert transfer.verify_export(merged, "merged", later.head[1]).ok
    assert transfer.verify_export(merged, "merged", kept_head).ok


def test_status_says_what_the_service_did(tmp_path: Path) -> None:
    db = str(tmp_path / "g.db")
    new_game(db, tmp_path / "keys")
    path = _conf(tmp_path, None)
    once = CliRunner().invoke(main, ["serve", "--config", str(path), "--once"])
    assert once.exit_code == 0, once.output
    assert once.stdout.splitlines()[0] == ("read 0 mail(s): 0 block(s) applied, 0 refused; 0 event(s) by "
                                           "deadlines and bots; 3 mail(s) queued, 0 sent, 0 failed")
    status = CliRunner().invoke(main, ["serve", "--config", str(path), "--status"])
    assert status.exit_code == 0
    lines = status.stdout.splitlines()
    assert lines[:2] == ["games: g1", "outbox: 3 queued, 0 sending, 0 sent, 0 failed"]
    assert lines[2].startswith("last cycle: 20") and " by " in lines[2]
    assert lines[4] == "errors: none"


def test_an_autoresponders_mail_is_read_but_not_answered(tmp_path: Path) -> None:
    """A vacation reply to a report (Auto-Submitted) is recorded as read, and not answered: no loop
    of mails between two machines; the service's own mails say Auto-Submitted too."""
    db = str(tmp_path / "g.db")
    new_game(db, tmp_path / "keys")
    service = _service(_conf(tmp_path, None))
    service.cycle(T0)
    away = EmailMessage()
    away["From"], away["To"], away["Subject"] = "rome@example.org", USER, "Out of office"
    away["Auto-Submitted"] = "auto-replied"
    away.set_content("I am away until Monday.")
    _deliver(tmp_path, away)
    done = service.cycle(T0)
    assert (done.read, done.refused) == (1, 1)
    assert [r for r in service.tables.mails() if r[1] == "answer"] == []
    assert all(b"Auto-Submitted: auto-generated" in m for (m,) in service.tables._read("select message from mail_out"))


TRADE, BUILD = "round 1, Trade Resources phase", "round 1, Build phase"


def _due(notices: str, found: list[tuple[int, bool]], phase: str, noticed: str = "") -> bool:
    """Whether a notice goes, given the touching events found (seq, answerable at once) of a game
    whose events 1-2 happened in the Trade phase and 3 in the Build phase (kernel ruling K13)."""
    loaded = cast(reading.Loaded, None)  # touches, patched, reads no game
    marks = {("rome", "noticed"): noticed} if noticed else {}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(policy, "touches", lambda *_: iter(found))
        return policy._notice_due(loaded, configs.Policy(notices=notices), marks, "rome", phase, 0,
                                  lambda: [TRADE, TRADE, BUILD])


def test_batched_notices_wait_for_the_phases_end_unless_the_side_may_answer_at_once() -> None:
    """The default (batch): a blow in the Trade phase (attacked, a loss) is noticed once the Trade phase
    is over, not while it lasts (a report or digest before then carries it); a default taken for the
    side, an undo or a correction at once; nothing touching, nothing."""
    assert configs.Policy().notices == "batch"
    assert not _due("batch", [(1, False)], TRADE)
    assert _due("batch", [(1, False)], BUILD)
    assert not _due("batch", [(3, False)], BUILD)
    assert _due("batch", [(3, False), (2, True)], BUILD)
    assert not _due("batch", [], BUILD)


def test_notices_at_each_event_once_a_phase_or_never() -> None:
    assert _due("each", [(1, False)], TRADE)
    assert not _due("phase", [(1, False)], TRADE, noticed=TRADE)
    assert _due("phase", [(1, False)], BUILD, noticed=TRADE)
    assert not _due("none", [(1, True)], BUILD)
    assert not _due("each", [], BUILD)


def test_a_default_taken_for_a_side_touches_it_at_once_and_a_claim_or_a_collection_does_not(
        tmp_path: Path) -> None:
    """Every side's default taken at the deadline: each side is touched by its own default (answerable at
    once), not by the others' acts of the course of play (claims, collections: K13)."""
    db = str(tmp_path / "g.db")
    new_game(db, tmp_path / "keys")
    store = open_store(db)
    since = reading.load(store, "g1").head[0]
    for hours in range(1, 200, 49):
        by_mail.tick(store, "g1", _later("2030-06-01T00:00:00+00:00", hours * 3600))
    later = reading.load(store, "g1")
    named = {side: [row.seq for row in later.rows[since:] if row.actor == "deadline"
                    and row.seq == row.batch and msgspec.json.decode(row.command or "{}").get("side") == side] for side in SIDES}
    assert sum(map(len, named.values())) > len(SIDES)  # several defaults, every side's
    for side in SIDES:
        assert list(policy.touches(later, side, since)) == [(seq, True) for seq in named[side]]


def test_the_empires_an_event_strikes() -> None:
    """A battle strikes both its sides, a loss its loser, a province taken its former holder; a claim
    on an offer strikes no one (K13)."""
    from mncore.rulesets.empires import events as ev
    from mncore.rulesets.empires.defaults import struck

    def fighter(empire: str) -> ev.BattleSide:
        return ev.BattleSide(empire=empire, units=1, dice=(3,), total=3, scored=0, hits=0)  # type: ignore[arg-type]

    battle = ev.BattleFought(place="latium", kind="land", attacker=fighter("greece"), defender=fighter("rome"))
    assert struck(battle) == {"greece", "rome"}
    assert struck(ev.UnitsLost(empire="rome", place="latium", legions=1)) == {"rome"}
    assert struck(ev.ControlConverted(empire="greece", province="latium", previous="rome")) == {"rome"}
    assert struck(ev.ResourceClaimed(empire="greece", source="rome", token="wine")) == frozenset()


def test_served_attachments_are_gzipped_and_read_back_whole(tmp_path: Path) -> None:
    """The report's JSON and the export go gzipped (NAME.gz, base64); a reader unpacks them to the same
    bytes; with gzip = false they go as quoted-printable, unpacked already."""
    db = str(tmp_path / "g.db")
    new_game(db, tmp_path / "keys")
    loaded = reading.load(open_store(db), "g1")
    side = SIDES[1]
    sizes = []
    for packed in (True, False):
        _, data = policy._message(loaded, side, 0, "report", f"{side}@example.org", USER,
                                  configs.Policy(export="full", gzip=packed), 0)
        msg = email.message_from_bytes(data, policy=email.policy.default)
        assert isinstance(msg, EmailMessage)
        names = sorted(p.get_filename() or "" for p in msg.iter_attachments())
        suffix = ".gz" if packed else ""
        assert names == [f"g1-{side}-{loaded.head[0]}.json{suffix}", f"g1-{side}.jsonl{suffix}"]
        files = outbox.attachments(msg)
        assert files[f"g1-{side}.jsonl"] == policy.export_for(loaded, side, "full", 0)
        assert msgspec.json.decode(files[f"g1-{side}-{loaded.head[0]}.json"])["side"] == side
        sizes.append(len(data))
    assert sizes[0] < sizes[1] / 2


def test_a_player_joins_a_delta_to_the_export_they_keep_and_verifies_it(tmp_path: Path) -> None:
    """mn mail open --kept: the delta a served report carries, joined to the export the player kept
    from an earlier report, verified whole against the new head and the head kept, and saved."""
    db = str(tmp_path / "g.db")
    new_game(db, tmp_path / "keys")
    store = open_store(db)
    before = reading.load(store, "g1")
    side = SIDES[0]
    kept = tmp_path / "kept.jsonl"
    kept.write_bytes(policy.export_for(before, side, "full", 0) or b"")
    by_mail.tick(store, "g1", "2030-06-01T00:00:00+00:00")
    later = reading.load(store, "g1")
    _, data = policy._message(later, side, before.head[0], "notice", f"{side}@example.org", USER,
                              configs.Policy(export="delta"), before.head[0])
    eml = tmp_path / "notice.eml"
    eml.write_bytes(data)
    alone = CliRunner().invoke(main, ["mail", "open", str(eml)])
    assert alone.exit_code == 0
    assert alone.stdout.splitlines()[-1] == (f"g1-{side}.jsonl: your export's delta after event {before.head[0]} "
                                             "only: give --kept YOUR-EXPORT.jsonl to join it and verify it whole")
    joined = CliRunner().invoke(main, ["mail", "open", str(eml), "--kept", str(kept), "--head", before.head[1],
                                       "--save", str(tmp_path / "files")])
    assert joined.exit_code == 0, joined.output
    assert joined.stdout.splitlines()[-2:] == [
        f"g1-{side}.jsonl: verified against head {later.head[1]}, {later.head[0]} events",
        f"g1-{side}.jsonl: verified against head {before.head[1]}, {later.head[0]} events"]
    assert (tmp_path / "files" / f"g1-{side}.jsonl").read_bytes() == policy.export_for(later, side, "full", 0)


def test_mn_play_joins_the_deltas_of_a_maildir_and_asks_for_kept_with_a_lone_one(tmp_path: Path) -> None:
    """A served report may carry the export since the last acknowledged head only: mn play of the Maildir
    joins the reports' exports in order; one delta mail alone is refused saying what to give, and taken
    with --kept (issue 25)."""
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
    box = tmp_path / "Maildir"
    for sub in ("new", "cur", "tmp"):
        (box / sub).mkdir(parents=True)
    (box / "new" / "1.eml").write_bytes(full)
    (box / "new" / "2.eml").write_bytes(delta)
    (tmp_path / "kept.jsonl").write_bytes(policy.export_for(before, side, "full", 0) or b"")
    key = str(tmp_path / "keys" / f"g1-{side}.key")
    verified = f"its export verified against head {later.head[1][:16]})"

    joined = CliRunner().invoke(main, ["play", str(box), "--key", key], input="")
    alone = CliRunner().invoke(main, ["play", str(box / "new" / "2.eml"), "--key", key], input="")
    kept = CliRunner().invoke(main, ["play", str(box / "new" / "2.eml"), "--key", key, "--kept",
                                     str(tmp_path / "kept.jsonl")], input="")

    assert verified in joined.stdout, joined.output
    assert alone.exit_code == 2
    assert alone.stderr == (
        f"Error: {box / 'new' / '2.eml'}: this report carries your export's delta after event "
        f"{before.head[0]} only: give --kept YOUR-EXPORT.jsonl (your export from before), or the Maildir "
        "holding your earlier reports\n")
    assert verified in kept.stdout, kept.output


def test_a_gzipped_attachment_that_unpacks_past_the_limit_is_refused_and_nothing_saved(tmp_path: Path) -> None:
    """A decompression bomb (64 KiB of gzip unpacking past 64 MiB) sent as a report's export: mn mail
    open refuses it, saying why, exit 2, nothing saved; a gzip cut short or with bytes after it, too."""
    bomb = EmailMessage()
    bomb["From"], bomb["To"], bomb["Subject"] = USER, "rome@example.org", "[mn g1] report"
    bomb["X-MN-Receipt"] = "5 " + "0" * 64
    bomb.set_content("A report.")
    bomb.add_attachment(gzip.compress(bytes(65 * 1024 * 1024)), maintype="application", subtype="gzip",
                        filename="g1-rome.jsonl.gz")
    eml = tmp_path / "bomb.eml"
    eml.write_bytes(bytes(bomb))
    assert eml.stat().st_size < 200_000

    opened = CliRunner().invoke(main, ["mail", "open", str(eml), "--save", str(tmp_path / "files")])

    assert opened.exit_code == 2
    assert opened.stderr.splitlines()[-1] == (
        "Error: the attachment g1-rome.jsonl.gz: unpacks past the 64 MiB limit (max_unpacked): refused unread, "
        "a decompression bomb or no attachment of mn's")
    assert not (tmp_path / "files").exists()
    packed = gzip.compress(b'{"a": 1}\n')
    assert limits.gunzip(packed, 9, "x") == b'{"a": 1}\n'
    for bad, why in ((packed[:-3], "cut short"), (packed + b"more", "cut short"), (b"plain text", "not gzip")):
        with pytest.raises(DataError) as err:
            limits.gunzip(bad, 1000, "x")
        assert why in str(err.value.problems)
    with pytest.raises(DataError):
        limits.gunzip(packed, 8, "x")


def test_mn_play_reads_a_sides_first_served_report_and_not_its_reminder(tmp_path: Path) -> None:
    """mn serve's first report to a side carries its export as a delta after event 0, the whole export:
    mn play opens it alone with no --kept; in a Maildir, the reminder of that event (no export) does not
    hide the report it reminds of."""
    db = str(tmp_path / "g.db")
    new_game(db, tmp_path / "keys")
    loaded = reading.load(open_store(db), "g1")
    side = SIDES[0]
    served = configs.Policy(export="delta")
    _, first = policy._message(loaded, side, 0, "report", f"{side}@example.org", USER, served, 0)
    _, reminder = policy._message(loaded, side, loaded.head[0], "reminder", f"{side}@example.org", USER,
                                  configs.Policy(export="none"), 0)
    box = tmp_path / "Maildir"
    for sub in ("new", "cur", "tmp"):
        (box / sub).mkdir(parents=True)
    (box / "new" / "1.eml").write_bytes(first)
    (box / "new" / "2.eml").write_bytes(reminder)
    key = str(tmp_path / "keys" / f"g1-{side}.key")
    verified = f"its export verified against head {loaded.head[1][:16]})"

    alone = CliRunner().invoke(main, ["play", str(box / "new" / "1.eml"), "--key", key], input="")
    maildir = CliRunner().invoke(main, ["play", str(box), "--key", key], input="")

    assert b"X-MN-Export: delta after event 0" in first
    assert verified in alone.stdout, alone.output
    assert f"(from {box / 'new' / '1.eml'}; {verified}" in maildir.stdout, maildir.output


def test_mn_play_sends_over_starttls_to_a_server_with_its_own_certificate(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """--smtp-ca trusts the server's own certificate (as --imap-ca does); without it the certificate is
    refused and nothing is sent (exit 2, no traceback)."""
    db = str(tmp_path / "g.db")
    new_game(db, tmp_path / "keys")
    loaded = reading.load(open_store(db), "g1")
    side = next(p.empire for p in loaded.ruleset.pending(loaded.state))
    _, data = policy._message(loaded, side, 0, "report", f"{side}@example.org", USER, configs.Policy(export="full"), 0)
    report = tmp_path / "report.eml"
    report.write_bytes(data)
    key = str(tmp_path / "keys" / f"g1-{side}.key")
    monkeypatch.setenv("MN_SMTP_USER", USER)
    monkeypatch.setenv("MN_SMTP_PASSWORD", PASSWORD)
    with smtp_tls(tmp_path) as smtp:
        args = ["play", str(report), "--key", key, "--smtp", f"{smtp.host}:{smtp.port}"]
        refused = CliRunner().invoke(main, args, input="1\n")
        sent = CliRunner().invoke(main, [*args, "--smtp-ca", str(tmp_path / "cert.pem")], input="1\n")

    assert refused.exit_code == 2 and "CERTIFICATE_VERIFY_FAILED" in refused.stderr, refused.output
    assert sent.exit_code == 0, sent.output
    (mail,) = smtp.received
    assert mail["To"] == USER and mail["In-Reply-To"] == report_message_id(data)
    assert smtp.refused_logins == 0


def report_message_id(data: bytes) -> str:
    import email
    import email.policy
    return str(email.message_from_bytes(data, policy=email.policy.default)["Message-ID"])


def test_mn_play_joins_only_the_reports_a_maildirs_latest_delta_needs() -> None:
    """Of a Maildir's reports (a whole export to event 8, deltas after 8 to events 10 and 12, a delta
    after 12 to event 14, and a reminder of event 14), the latest report's delta is completed by the
    report reaching furthest back at each step: the whole export, then the delta to 12; the delta to 10
    is superseded and not read."""
    from mncore.client.play import _Found, _needed

    whole, d10, d12 = _Found("a", 8, 0, True), _Found("b", 10, 8, True), _Found("c", 12, 8, True)
    latest = _Found("d", 14, 12, True)

    assert _needed(latest, [whole, d10, d12]) == [whole, d12]
    assert _needed(_Found("e", 9, 0, True), [whole, d10]) == []  # a whole export needs nothing before it
    # a chain with a gap (the whole export deleted): every earlier report, in order, and export_of says
    assert _needed(latest, [d12, d10]) == [d10, d12]
