"""mn mail: signed blocks read from mail and applied whole, every message answered (refusals with their
rule or reason, nothing written), reports written into a Maildir and sent over a real local SMTP server."""

from __future__ import annotations

import mailbox
from email.message import EmailMessage
from pathlib import Path

import pytest

from mailkit import answers, block, body, free_port, head, letter, mn, new_toy, smtp_server
from mncore.pbem import signing


@pytest.fixture()
def db(tmp_path: Path) -> Path:
    return tmp_path / "pbem.db"


@pytest.fixture()
def keys(tmp_path: Path) -> Path:
    return tmp_path / "keys"


@pytest.fixture()
def toy(db: Path, keys: Path) -> str:
    return new_toy(db, keys)


def ingest(db: Path, tmp_path: Path, *msgs: EmailMessage, name: str = "in.eml") -> tuple[str, Path]:
    """The messages as one .eml (or an mbox for several) read by mn mail ingest; its output and outbox."""
    path, out = tmp_path / name, tmp_path / "outbox"
    if len(msgs) == 1:
        path.write_bytes(bytes(msgs[0]))
    else:
        box = mailbox.mbox(str(path))
        for m in msgs:
            box.add(m)
        box.close()
    result = mn(db, "mail", "ingest", str(path), "--outbox", str(out))
    assert result.exit_code == 0, result.output
    return result.stdout, out


def test_a_block_in_a_mail_is_applied_and_the_answer_carries_the_receipt(
        db: Path, keys: Path, toy: str, tmp_path: Path) -> None:
    """Red's signed block, quoted in a reply: applied as Red's one batch; the answer goes back to the
    sender, threaded under its message, with the events and the receipt (game, event, head)."""
    text = block(db, keys, toy, "red", "muster hill")
    msg = letter("My orders:\n\n" + "".join(f"> {ln}\n" for ln in text.splitlines()) + "\n-- \nAnn\n")

    out, outbox = ingest(db, tmp_path, msg)

    seq, hash_ = head(db, toy)
    assert seq == 6
    assert out == (f"{tmp_path / 'in.eml'}: red applied, receipt event 6 head {hash_}\n"
                   f"1 message(s) read, 1 answer(s) written to {outbox}/new\n")
    (answer,) = answers(outbox)
    assert (answer["To"], answer["From"], answer["Subject"]) == ("ann@example.org", "host@example.org",
                                                                 "Re: orders")
    assert answer["In-Reply-To"] == "<m1@example.org>"
    assert body(answer) == f"""\
Your message 'orders' was read: 1 block(s) applied, 0 refused.

Block 1 (red in game t1): APPLIED, all its orders as one batch.
    muster hill

What happened:
    6  Red mustered a unit in Hill

Receipt: game t1, event 6, head {hash_}

Your next orders, when the game waits for you (your next report says so):
  mn play --key KEYFILE REPORT.eml       (your latest report: board, legal orders, checks)
  mn sign --key KEYFILE --game t1 --seq 6 --head {hash_} 'ORDER' ...
"""


def _refused(db: Path, tmp_path: Path, msg: EmailMessage) -> str:
    """Ingest a message that must be refused: the answer's body; the log is unchanged."""
    before = head(db, "t1")
    _, outbox = ingest(db, tmp_path, msg, name=f"refused-{before[0]}.eml")
    assert head(db, "t1") == before
    *_, answer = answers(outbox)
    text = body(answer)
    assert "REFUSED" in text and "Nothing was written: none of its orders was applied." in text
    return text


def test_a_block_signed_with_another_sides_key_is_refused_by_mail(
        db: Path, keys: Path, toy: str, tmp_path: Path) -> None:
    """Wrong key: the answer says whose key signed it; nothing written."""
    text = _refused(db, tmp_path, letter(block(db, keys, toy, "red", "muster hill", signer="blue")))

    assert "REFUSED (exit 2): wrong key: the block is signed with blue's key, not with red's" in text


def test_a_stale_block_is_refused_by_mail(db: Path, keys: Path, toy: str, tmp_path: Path) -> None:
    """Two blocks signed against the same head: the second is stale once the first is applied."""
    first = block(db, keys, toy, "red", "muster hill", n=1)
    second = block(db, keys, toy, "red", "muster ford", n=2)
    ingest(db, tmp_path, letter(first), name="first.eml")

    text = _refused(db, tmp_path, letter(second, msg_id="<m2@example.org>"))

    assert "REFUSED (exit 3): stale: the block answers event 5, but red has given orders since" in text


def test_a_malformed_block_is_refused_by_mail_naming_the_line(
        db: Path, keys: Path, toy: str, tmp_path: Path) -> None:
    """A block missing its Nonce line: the answer names the line."""
    text = "".join(ln for ln in block(db, keys, toy, "red", "pass").splitlines(keepends=True)
                   if not ln.startswith("Nonce:"))

    answer = _refused(db, tmp_path, letter(text))

    assert "REFUSED (exit 2): the block, line 9: expected the Nonce line, found 'Order'" in answer


def test_a_batch_with_one_illegal_order_is_refused_whole_by_mail_citing_the_rule(
        db: Path, keys: Path, toy: str, tmp_path: Path) -> None:
    """Red's block mustering twice: its second order breaks 2.1, so neither is applied."""
    text = _refused(db, tmp_path, letter(block(db, keys, toy, "red", "muster hill", "muster ford")))

    assert "REFUSED (exit 1): order 2 ('muster ford'): it is Blue's turn to muster" in text
    assert "[rule toy:2.1]" in text


def test_a_refused_batch_lists_every_line_the_rules_refuse_and_the_line_to_sign_again(
        db: Path, keys: Path, toy: str, tmp_path: Path) -> None:
    """Red's block with an unknown province, a legal muster and a second muster: the answer lists both
    bad lines (not the first only), each with its rule or reason, and the ready line to sign again."""
    text = _refused(db, tmp_path, letter(block(db, keys, toy, "red", "muster swamp", "muster hill",
                                               "muster ford")))

    seq, hash_ = head(db, toy)
    assert text.split("\n", 1)[1] == f"""
Block 1 (red in game t1): REFUSED (exit 2): order 1 ('muster swamp'): unknown province 'swamp'; expected one of: Ford, Hill, Marsh
    muster swamp
    muster hill
    muster ford
Every line the rules refuse:
    order 1 ('muster swamp'): unknown province 'swamp'; expected one of: Ford, Hill, Marsh
    order 3 ('muster ford'): it is Blue's turn to muster, not Red's [rule toy:2.1]
Nothing was written: none of its orders was applied.

Sign again against the game's head now:
  mn play --key KEYFILE REPORT.eml       (your latest report: board, legal orders, checks)
  mn sign --key KEYFILE --game t1 --seq {seq} --head {hash_} 'ORDER' ...
"""


def test_a_block_sent_twice_is_applied_once_and_the_second_answered_as_such(
        db: Path, keys: Path, toy: str, tmp_path: Path) -> None:
    """The same block in a second mail: refused as already applied, with the event it was applied at."""
    text = block(db, keys, toy, "red", "muster hill")
    ingest(db, tmp_path, letter(text), name="first.eml")

    answer = _refused(db, tmp_path, letter(text, msg_id="<again@example.org>"))

    assert "REFUSED (exit 3): this block (nonce" in answer and "was already applied at event 6" in answer


def test_a_mail_without_a_block_is_answered(db: Path, toy: str, tmp_path: Path) -> None:
    """A chatty mail with no block: the answer says so and how to make one."""
    answer = _refused(db, tmp_path, letter("Sorry, I will send my orders tomorrow."))

    assert "REFUSED (exit 2): no signed order block was found in this message" in answer


def test_an_mbox_of_several_mails_is_read_in_order_and_each_answered(
        db: Path, keys: Path, toy: str, tmp_path: Path) -> None:
    """Red's block, then Ben's mail without one: Red's applied, both answered, each to its sender."""
    red = letter(block(db, keys, toy, "red", "muster hill"))

    out, outbox = ingest(db, tmp_path, red, letter("nothing here", sender="ben@example.org",
                                                   msg_id="<b@example.org>"))

    assert "message 1: red applied" in out and "message 2: refused (exit 2): no signed order" in out
    assert "2 message(s) read, 2 answer(s)" in out
    assert [a["To"] for a in answers(outbox)] == ["ann@example.org", "ben@example.org"]


def test_a_maildir_is_read_once_each_message_then_marked_seen(
        db: Path, keys: Path, toy: str, tmp_path: Path) -> None:
    """Ingesting a Maildir twice: the second run finds nothing unseen, answers nothing, writes nothing."""
    inbox = mailbox.Maildir(str(tmp_path / "inbox"), create=True)
    inbox.add(letter(block(db, keys, toy, "red", "muster hill")))
    outbox = tmp_path / "outbox"

    first = mn(db, "mail", "ingest", str(tmp_path / "inbox"), "--outbox", str(outbox))
    second = mn(db, "mail", "ingest", str(tmp_path / "inbox"), "--outbox", str(outbox))

    assert first.exit_code == 0 and "red applied" in first.stdout
    assert second.stdout == f"0 message(s) read, 0 answer(s) written to {outbox}/new\n"
    assert len(answers(outbox)) == 1 and head(db, toy)[0] == 6


def test_a_mail_on_stdin_is_read(db: Path, keys: Path, toy: str, tmp_path: Path) -> None:
    """mn mail ingest - (a mail piped from a mail filter)."""
    msg = letter(block(db, keys, toy, "red", "pass"))

    result = mn(db, "mail", "ingest", "-", "--outbox", str(tmp_path / "o"), input=bytes(msg))

    assert result.exit_code == 0 and result.stdout.startswith("stdin: red applied")


def test_ingest_refuses_a_folder_that_is_not_a_maildir(db: Path, toy: str, tmp_path: Path) -> None:
    """Exit 2, nothing read."""
    (tmp_path / "plain").mkdir()

    result = mn(db, "mail", "ingest", str(tmp_path / "plain"), "--outbox", str(tmp_path / "o"))

    assert result.exit_code == 2
    assert "a folder that is not a Maildir (cur/, new/ and tmp/ expected)" in result.stderr


def test_the_outbox_holds_a_report_per_side_with_news_addressed_and_subjected(
        db: Path, toy: str, tmp_path: Path) -> None:
    """mn mail outbox: one report per side, To its address, the subject naming game and phase; run
    again with nothing new, it writes none."""
    outbox = tmp_path / "outbox"

    first = mn(db, "mail", "outbox", toy, "--dir", str(outbox))
    again = mn(db, "mail", "outbox", toy, "--dir", str(outbox))

    assert first.stdout == ("ann@example.org: [mn t1] set-up: report for Red\n"
                            "ben@example.org: [mn t1] set-up: report for Blue\n")
    assert again.stdout == "Nothing new for any empire of game t1 since its last report.\n"
    assert [m["To"] for m in answers(outbox)] == ["ann@example.org", "ben@example.org"]
    assert "You must decide\n---------------\nmuster: muster a unit or pass" in body(answers(outbox)[0])


def test_the_outbox_writes_nothing_while_an_address_is_missing(db: Path, tmp_path: Path) -> None:
    """A game with no address for Red: exit 2, no report written, none recorded."""
    assert mn(db, "new", "--ruleset", "toy", "--seed", "x", "--id", "bare").exit_code == 0

    result = mn(db, "mail", "outbox", "bare", "--dir", str(tmp_path / "o"))

    assert result.exit_code == 2 and "no address for Red" in result.stderr
    assert not (tmp_path / "o").exists()


def test_reports_and_answers_are_sent_over_smtp_and_moved_to_cur(
        db: Path, keys: Path, toy: str, tmp_path: Path) -> None:
    """A real SMTP server on loopback receives every mail waiting in new/, which then move to cur/;
    a second send has nothing left to send."""
    outbox = tmp_path / "outbox"
    ingest(db, tmp_path, letter(block(db, keys, toy, "red", "muster hill")))
    assert mn(db, "mail", "outbox", toy, "--dir", str(outbox)).exit_code == 0

    with smtp_server() as (host, port, received):
        sent = mn(db, "mail", "send", "--dir", str(outbox), "--smtp", f"{host}:{port}")
        again = mn(db, "mail", "send", "--dir", str(outbox), "--smtp", f"{host}:{port}")

    assert sent.exit_code == 0, sent.output
    assert sent.stdout.splitlines()[-1] == "3 mail(s) sent" and again.stdout == "0 mail(s) sent\n"
    assert sorted((m["To"], m["Subject"]) for m in received) == [
        ("ann@example.org", "Re: orders"),
        ("ann@example.org", "[mn t1] set-up: report for Red"),
        ("ben@example.org", "[mn t1] set-up: report for Blue")]
    assert not list((outbox / "new").iterdir()) and len(list((outbox / "cur").iterdir())) == 3
    red = next(m for m in received if m["Subject"].endswith("Red"))
    assert "6  Red mustered a unit in Hill" in body(red)


def test_send_to_a_server_that_is_not_there_keeps_every_mail(db: Path, toy: str, tmp_path: Path) -> None:
    """Nothing listens: exit 2 naming the server; the mails stay in new/ for the next try."""
    outbox = tmp_path / "outbox"
    assert mn(db, "mail", "outbox", toy, "--dir", str(outbox)).exit_code == 0

    result = mn(db, "mail", "send", "--dir", str(outbox), "--smtp", f"127.0.0.1:{free_port()}")

    assert result.exit_code == 2 and "0 sent and moved to cur/, 2 still waiting in new/" in result.stderr
    assert len(list((outbox / "new").iterdir())) == 2


def test_an_address_must_look_like_one(db: Path, toy: str) -> None:
    """mn mail address with no '@': exit 2, the book unchanged."""
    result = mn(db, "mail", "address", toy, "red", "ann")

    assert result.exit_code == 2 and result.stderr == (
        "Error: 'ann' is not an email address (user@example.org)\n")


def test_the_wrap_proof_block_survives_a_quoted_printable_reply(
        db: Path, keys: Path, toy: str, tmp_path: Path) -> None:
    """The block as mn sign writes it, quoted twice in a quoted-printable reply: still applied."""
    text = block(db, keys, toy, "red", "pass")
    assert max(len(ln) for ln in text.splitlines()) <= signing.WIDTH

    out, _ = ingest(db, tmp_path, letter("".join(f"> > {ln}\n" for ln in text.splitlines()),
                                         cte="quoted-printable"))

    assert "red applied" in out


# --- undo and consent by mail (K1, K2) -----------------------------------------------------------

def _send(db: Path, tmp_path: Path, text: str, name: str, sender: str = "ann@example.org") -> str:
    """One block mailed and ingested: the body of its answer."""
    _, outbox = ingest(db, tmp_path, letter(text, sender=sender, msg_id=f"<{name}@example.org>"),
                       name=f"{name}.eml")
    return body(answers(outbox)[-1])


def test_an_undo_by_mail_takes_back_the_senders_last_batch(
        db: Path, keys: Path, toy: str, tmp_path: Path) -> None:
    """Red's block, then Red's signed 'undo': taken back at once (nobody acted since, nothing drawn);
    the same undo block mailed again is refused as already applied."""
    _send(db, tmp_path, block(db, keys, toy, "red", "muster hill"), "order")
    undo = block(db, keys, toy, "red", "undo")

    answer = _send(db, tmp_path, undo, "undo")
    again = _refused(db, tmp_path, letter(undo, msg_id="<undo-again@example.org>"))

    assert "APPLIED" in answer and "7  Red took back event 6; replay skips it (ruling K1)." in answer
    assert "was already applied at event 7" in again


def test_an_undo_by_mail_with_nothing_to_take_back_is_refused_citing_k1(
        db: Path, keys: Path, toy: str, tmp_path: Path) -> None:
    """Red has given no orders: its undo is refused with the ruling, nothing written."""
    answer = _refused(db, tmp_path, letter(block(db, keys, toy, "red", "undo")))

    assert "REFUSED (exit 1): Red has no batch of orders to take back [rule kernel:K1]" in answer


def test_an_undo_after_another_side_acted_waits_for_its_consent_by_mail(
        db: Path, keys: Path, toy: str, tmp_path: Path) -> None:
    """Red mustered, Blue passed: Red's undo asks Blue's consent (K2); Blue's signed 'consent 6'
    completes it, and both of their batches are taken back."""
    _send(db, tmp_path, block(db, keys, toy, "red", "muster hill"), "red")
    _send(db, tmp_path, block(db, keys, toy, "blue", "pass"), "blue", sender="ben@example.org")

    asked = _send(db, tmp_path, block(db, keys, toy, "red", "undo"), "undo")
    given = _send(db, tmp_path, block(db, keys, toy, "blue", "consent 6"), "consent",
                  sender="ben@example.org")

    assert ("Note: the undo of the batch of event 6 waits for the consent of Blue (ruling K2): each "
            "sends a signed block 'consent 6'") in asked
    assert "Red took back events 6 to" in given
    assert mn(db, "verify", toy).exit_code == 0


def test_the_outbox_can_write_only_the_reports_of_those_the_game_waits_for(
        db: Path, toy: str, tmp_path: Path) -> None:
    """--waiting: Red must muster, so only Red's report is written; Blue's news waits for its next."""
    result = mn(db, "mail", "outbox", toy, "--dir", str(tmp_path / "o"), "--waiting")

    assert result.stdout == "ann@example.org: [mn t1] set-up: report for Red\n"


def test_a_block_may_queue_orders_for_the_senders_coming_decisions(
        db: Path, keys: Path, toy: str, tmp_path: Path) -> None:
    """Red musters and queues its next muster (K9): Red's report shows the queue; Blue's mailed pass
    brings Red's decision, and the queued line is applied at once, marked [queued] in Blue's answer;
    Blue's report never shows Red's line."""
    red = _send(db, tmp_path, block(db, keys, toy, "red", "muster hill", "queue muster ford"), "red")
    red_report = mn(db, "report", toy, "--as", "red", "--no-record")
    blue_before = mn(db, "report", toy, "--as", "blue", "--no-record")

    blue = _send(db, tmp_path, block(db, keys, toy, "blue", "pass"), "blue", sender="ben@example.org")

    assert "    7  Red queued for its coming decisions of round 0: muster ford.\n" in red
    assert "Your queued orders\n------------------\n  muster ford\n" in red_report.stdout
    assert "   10  [queued] Red mustered a unit in Ford\n" in blue
    assert "Red queued orders for its coming decisions of round 0.\n" in blue_before.stdout
    assert "round 0: muster ford" not in blue_before.stdout and "Your queued orders" not in blue_before.stdout
    assert mn(db, "verify", toy).exit_code == 0


def test_a_dropped_queue_is_mailed_to_its_player_with_the_reason(
        db: Path, keys: Path, toy: str, tmp_path: Path) -> None:
    """Red queues a muster in a place the map does not have; when Red must decide, the queue is
    dropped (K9) and mn mail outbox --waiting writes Red's report, which says why and asks Red."""
    _send(db, tmp_path, block(db, keys, toy, "red", "muster hill", "queue muster swamp"), "red")
    _send(db, tmp_path, block(db, keys, toy, "blue", "pass"), "blue", sender="ben@example.org")

    result = mn(db, "mail", "outbox", toy, "--dir", str(tmp_path / "o"), "--waiting")
    (report,) = answers(tmp_path / "o")

    assert result.stdout.startswith("ann@example.org: [mn t1]")
    assert ("   10  [queued] Red's queued order 'muster swamp' is not legal now: unknown province "
            "'swamp'; expected one of: Ford, Hill, Marsh; it is dropped, and Red decides itself (ruling "
            "K9).\n") in body(report)
    assert "You must decide\n---------------\nmuster: muster a unit or pass\n" in body(report)


def test_standing_orders_still_answer_after_a_mailed_block_once_snapshots_are_read(
        db: Path, keys: Path, toy: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The mailed golden game's stall, small: with a snapshot after every batch, Blue's standing
    'pass' still answers Blue's decision after Red's mailed block (the service once lost the game's
    pace and standing orders in the ledger a signed block left, and nobody was asked)."""
    monkeypatch.setenv("MN_SNAPSHOT_EVERY", "1")
    _send(db, tmp_path, block(db, keys, toy, "blue", "standing pass"), "blue", sender="ben@example.org")

    red = _send(db, tmp_path, block(db, keys, toy, "red", "muster hill"), "red")

    assert "    7  Red mustered a unit in Hill\n    8  [standing] Blue passed\n" in red
