"""mn mail ingest within limits: a mail past its size, line, part or nesting limit is refused unparsed,
answered with the limit it passed (its body not quoted back), and nothing is written to the game."""

from __future__ import annotations

import mailbox
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

import pytest

from mailkit import answers, block, body, head, letter, mn, new_toy
from mncore.pbem.mail import inbox, limits

HEADERS = (b"From: ann@example.org\nTo: host@example.org\nSubject: orders\n"
           b"Message-ID: <hostile@example.org>\n")


@pytest.fixture()
def db(tmp_path: Path) -> Path:
    return tmp_path / "pbem.db"


@pytest.fixture()
def keys(tmp_path: Path) -> Path:
    return tmp_path / "keys"


@pytest.fixture()
def toy(db: Path, keys: Path) -> str:
    return new_toy(db, keys)


@pytest.fixture()
def parsed(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The size of each mail handed to the email parser, in order."""
    calls: list[int] = []
    real = inbox._parse

    def counting(data: bytes) -> EmailMessage:
        calls.append(len(data))
        return real(data)

    monkeypatch.setattr(inbox, "_parse", counting)
    return calls


def ingest(db: Path, tmp_path: Path, raw: bytes, *options: str, name: str = "in.eml") -> tuple[str, Path]:
    """One mail's bytes as a .eml read by mn mail ingest (exit 0); its output and the outbox."""
    path, out = tmp_path / name, tmp_path / f"{name}.outbox"
    path.write_bytes(raw)
    result = mn(db, "mail", "ingest", str(path), "--outbox", str(out), *options)
    assert result.exit_code == 0, result.output
    return result.stdout, out


def refused(db: Path, tmp_path: Path, raw: bytes, *options: str, name: str = "in.eml") -> str:
    """A mail that must be refused unread: its one answer's body, to Ann under her message; the log
    unchanged."""
    before = head(db, "t1")

    out, outbox = ingest(db, tmp_path, raw, *options, name=name)

    assert head(db, "t1") == before
    assert "refused (exit 2): " in out and "1 message(s) read, 1 answer(s)" in out
    (answer,) = answers(outbox)
    assert (answer["To"], answer["Subject"], answer["In-Reply-To"]) == (
        "ann@example.org", "Re: orders", "<hostile@example.org>")
    text = body(answer)
    assert "REFUSED (exit 2): " in text and "it was not read, so no block in it was" in text
    assert len(text) < 1_000  # the answer names the limit; it does not quote the mail back
    return text


def signed(db: Path, keys: Path, game: str) -> bytes:
    return block(db, keys, game, "red", "muster hill").encode()


def multipart(parts: list[bytes]) -> bytes:
    """A multipart/mixed mail of text parts."""
    out = [HEADERS, b"MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"sep\"\n\n"]
    for part in parts:
        out += [b"--sep\nContent-Type: text/plain\n\n", part, b"\n"]
    return b"".join([*out, b"--sep--\n"])


def nested(depth: int, inner: bytes) -> bytes:
    """A mail of multiparts nested `depth` deep around one text part."""
    opening = b"".join(b"Content-Type: multipart/mixed; boundary=b%d\n\n--b%d\n" % (n, n) for n in range(depth))
    closing = b"".join(b"\n--b%d--\n" % n for n in reversed(range(depth)))
    return HEADERS + opening + b"Content-Type: text/plain\n\n" + inner + closing


def test_a_mail_over_the_size_limit_is_refused_unparsed_naming_the_limit(
        db: Path, keys: Path, toy: str, tmp_path: Path, parsed: list[int]) -> None:
    """A 2 MB mail (a valid block, then padding) against a 1 MiB limit: refused, nothing written."""
    raw = HEADERS + b"\n" + signed(db, keys, toy) + b"padding line\n" * 160_000

    text = refused(db, tmp_path, raw, "--max-bytes", str(1024 * 1024))

    assert "the mail is over the 1 MiB limit on its size (--max-bytes)" in text
    assert parsed == [] and "padding" not in text


def test_a_line_over_the_limit_inside_a_block_is_refused_naming_the_limit(
        db: Path, keys: Path, toy: str, tmp_path: Path, parsed: list[int]) -> None:
    """A 20,000-byte line inside a signed block, against the default 4,000: refused, nothing written."""
    lines = signed(db, keys, toy).split(b"\n")
    lines.insert(5, b"More: " + b"a" * 20_000)

    text = refused(db, tmp_path, HEADERS + b"\n" + b"\n".join(lines))

    assert "a line of the mail is over the 4,000-byte limit on a line (--max-line)" in text
    assert parsed == []


def test_a_mail_of_too_many_lines_is_refused_naming_the_limit(
        db: Path, keys: Path, toy: str, tmp_path: Path, parsed: list[int]) -> None:
    """A valid block after 3,000 empty lines, against a limit of 2,000 lines: refused, nothing written."""
    raw = HEADERS + b"\n" * 3_000 + signed(db, keys, toy)

    text = refused(db, tmp_path, raw, "--max-lines", "2000")

    assert "the mail has more than 2,000 lines, the limit (--max-lines)" in text
    assert parsed == []


def test_a_mail_of_too_many_parts_is_refused_naming_the_limit(
        db: Path, keys: Path, toy: str, tmp_path: Path, parsed: list[int]) -> None:
    """150 text parts, one of them a valid block, against the default 100: refused, nothing written."""
    raw = multipart([signed(db, keys, toy), *(b"part %d" % n for n in range(149))])

    text = refused(db, tmp_path, raw)

    assert "the mail has more than 100 MIME parts, the limit (--max-parts)" in text
    assert parsed == []


def test_a_3000_deep_multipart_is_refused_without_being_parsed(
        db: Path, keys: Path, toy: str, tmp_path: Path, parsed: list[int]) -> None:
    """3,000 nested multiparts around a valid block: refused at the default depth of 10, the email
    parser never called, nothing written."""
    text = refused(db, tmp_path, nested(3_000, signed(db, keys, toy)))

    assert "the mail's MIME parts are nested more than 10 deep, the limit (--max-depth)" in text
    assert parsed == []


def test_reading_stops_at_the_level_past_the_depth_limit() -> None:
    """Fed one line at a time, the gate takes no line after the eleventh level's opening: the rest
    of the 3,000 levels is never read."""
    lines = nested(3_000, b"hello").splitlines(keepends=True)
    taken: list[bytes] = []

    def fed() -> Iterator[bytes]:
        for line in lines:
            taken.append(line)
            yield line

    result = limits.gated(fed(), limits.Limits())

    assert isinstance(result, limits.Refusal) and "nested more than 10 deep" in result.reason
    # the four header lines, ten levels of three lines, the eleventh level's Content-Type and blank line
    assert len(taken) == 4 + 3 * 10 + 2


def test_an_endless_mail_is_read_no_further_than_its_size_limit() -> None:
    """A body that never ends: the gate stops at the first chunk past the limit, holding nothing."""
    read = 0

    def endless() -> Iterator[bytes]:
        nonlocal read
        yield HEADERS + b"\n"
        while True:
            read += 1000
            yield b"x" * 99 + b"\n" + b"y" * 899 + b"\n"

    result = limits.gated(endless(), limits.Limits(max_bytes=100_000))

    assert isinstance(result, limits.Refusal) and "over the 100,000 bytes limit" in result.reason
    assert read <= 100_000


def test_an_endless_line_is_read_no_further_than_the_line_limit() -> None:
    """A line that never ends: refused once the line passes the limit, long before the size limit."""
    read = 0

    def endless() -> Iterator[bytes]:
        nonlocal read
        yield HEADERS + b"\n"
        while True:
            read += 512
            yield b"z" * 512

    result = limits.gated(endless(), limits.Limits(max_line=4_000))

    assert isinstance(result, limits.Refusal) and "over the 4,000-byte limit on a line" in result.reason
    assert read <= 4_000 + 512


def test_a_normal_signed_mail_is_still_applied(db: Path, keys: Path, toy: str, tmp_path: Path,
                                              parsed: list[int]) -> None:
    """A quoted block in an ordinary reply passes every default limit, is parsed once and applied."""
    text = block(db, keys, toy, "red", "muster hill")
    raw = bytes(letter("My orders:\n\n" + "".join(f"> {ln}\n" for ln in text.splitlines())))

    out, _ = ingest(db, tmp_path, raw)

    assert "red applied, receipt event 6" in out and head(db, toy)[0] == 6
    assert parsed == [len(raw)]


def test_a_reply_carrying_the_whole_report_back_is_applied(db: Path, keys: Path, toy: str,
                                                          tmp_path: Path) -> None:
    """The report mail the outbox wrote, attached whole to the reply with its attachments, beside the
    block: within the default limits, and applied."""
    assert mn(db, "mail", "outbox", toy, "--dir", str(tmp_path / "reports")).exit_code == 0
    report = answers(tmp_path / "reports")[0]
    reply = letter(block(db, keys, toy, "red", "muster hill"), subject="Re: " + str(report["Subject"]))
    reply.add_attachment(report)
    for part in report.iter_attachments():
        data = part.get_payload(decode=True)
        assert isinstance(data, bytes)
        reply.add_attachment(data, maintype=part.get_content_maintype(),
                             subtype=part.get_content_subtype(), filename=part.get_filename())

    out, _ = ingest(db, tmp_path, bytes(reply))

    assert "red applied" in out and head(db, toy)[0] == 6


def test_the_host_sets_each_limit(db: Path, keys: Path, toy: str, tmp_path: Path) -> None:
    """Each limit raised past a hostile mail lets it through (its block applied); each lowered below
    an ordinary one refuses it."""
    many = multipart([signed(db, keys, toy), *(b"part %d" % n for n in range(149))])
    ordinary = HEADERS + b"\n" + signed(db, keys, toy)

    small = [refused(db, tmp_path, mail, option, value, name=option)
             for mail, option, value in ((ordinary, "--max-bytes", "500"), (ordinary, "--max-line", "40"),
                                         (nested(2, signed(db, keys, toy)), "--max-depth", "1"))]
    out, _ = ingest(db, tmp_path, many, "--max-parts", "150")

    assert "over the 500 bytes limit on its size (--max-bytes)" in small[0]
    assert "over the 40-byte limit on a line (--max-line)" in small[1]
    assert "nested more than 1 deep, the limit (--max-depth)" in small[2]
    assert "red applied" in out and head(db, toy)[0] == 6


def test_limits_below_one_are_refused_by_the_command(db: Path, toy: str, tmp_path: Path) -> None:
    """--max-parts 0: a usage error (exit 2), nothing read."""
    (tmp_path / "in.eml").write_bytes(HEADERS + b"\nhello\n")

    result = mn(db, "mail", "ingest", str(tmp_path / "in.eml"), "--outbox", str(tmp_path / "o"),
                "--max-parts", "0")

    assert result.exit_code == 2 and "--max-parts" in result.output
    assert not (tmp_path / "o").exists()


def test_ingest_help_names_every_limit(db: Path) -> None:
    """mn mail ingest --help lists the five limits with their defaults."""
    text = " ".join(mn(db, "mail", "ingest", "--help").output.split())

    for option, default in (("--max-bytes", "8388608"), ("--max-line", "4000"), ("--max-lines", "200000"),
                            ("--max-parts", "100"), ("--max-depth", "10")):
        assert option in text and f"default: {default};" in text


def test_in_an_mbox_a_refused_mail_is_skipped_and_the_next_applied(
        db: Path, keys: Path, toy: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An mbox of a mail with an over-long line, then Red's block: the first refused, the second
    applied; read in 7-byte chunks, so 'From ' lines fall across chunks."""
    monkeypatch.setattr(limits, "CHUNK", 7)
    path = tmp_path / "box.mbox"
    box = mailbox.mbox(str(path))
    box.add(HEADERS + b"\n" + b"x" * 5_000 + b"\n")
    box.add(letter(block(db, keys, toy, "red", "muster hill") + "\nFrom the front,\nAnn\n"))
    box.close()

    result = mn(db, "mail", "ingest", str(path), "--outbox", str(tmp_path / "o"))

    assert "message 1: refused (exit 2): a line of the mail is over the 4,000-byte limit" in result.stdout
    assert "message 2: red applied" in result.stdout and head(db, toy)[0] == 6


def test_a_refused_maildir_entry_is_answered_and_marked_seen(db: Path, toy: str, tmp_path: Path) -> None:
    """A Maildir message past a limit: answered once, moved to cur/ as seen, not read again."""
    inbox_dir = tmp_path / "inbox"
    mailbox.Maildir(str(inbox_dir), create=True).add(nested(20, b"hello"))
    outbox = tmp_path / "outbox"

    first = mn(db, "mail", "ingest", str(inbox_dir), "--outbox", str(outbox))
    second = mn(db, "mail", "ingest", str(inbox_dir), "--outbox", str(outbox))

    assert "refused (exit 2): the mail's MIME parts are nested more than 10 deep" in first.stdout
    assert second.stdout.startswith("0 message(s) read")
    assert len(answers(outbox)) == 1 and [p.name.endswith(":2,S") for p in (inbox_dir / "cur").iterdir()] == [True]


def test_a_mail_on_stdin_past_a_limit_is_refused(db: Path, toy: str, tmp_path: Path) -> None:
    """mn mail ingest - with a mail over --max-bytes: answered with the limit, exit 0."""
    result = mn(db, "mail", "ingest", "-", "--outbox", str(tmp_path / "o"), "--max-bytes", "1000",
                input=HEADERS + b"\n" + b"y\n" * 1_000)

    assert result.exit_code == 0
    assert result.stdout.startswith("stdin: refused (exit 2): the mail is over the 1,000 bytes limit")


def test_the_gate_counts_the_parts_the_parser_builds_and_keeps_every_byte(
        db: Path, keys: Path, toy: str, tmp_path: Path) -> None:
    """A report mail, its lines ending in CRLF and fed a byte at a time: the gate hands on exactly the
    bytes it was given, and counts one part for each part below the top the parser finds."""
    assert mn(db, "mail", "outbox", toy, "--dir", str(tmp_path / "reports")).exit_code == 0
    report = answers(tmp_path / "reports")[0]
    raw = bytes(report).replace(b"\n", b"\r\n")
    gate = limits.Gate(limits.Limits())

    for i in range(len(raw)):
        gate.feed(raw[i:i + 1])

    assert gate.close() == raw
    assert gate.parts == len(list(report.walk())) - 1


def test_a_content_type_the_header_parser_cannot_read_is_refused_not_a_traceback(
        db: Path, toy: str, tmp_path: Path, parsed: list[int]) -> None:
    """A Content-Type on which Python's header parser raises IndexError: answered, never parsed."""
    raw = HEADERS + b"Content-Type: a2idu0/a(>op)ue0'uo\x80;a\x80r3*\n\nhello\n"

    text = refused(db, tmp_path, raw)

    assert "a Content-Type header of the mail cannot be read" in text and parsed == []


def test_mn_mail_open_reads_a_mailed_report_within_the_limits(tmp_path: Path) -> None:
    """A player's `mn mail open` is a reader too: a mail over the size limit is refused (exit 2, the
    limit named) before it is parsed."""
    huge = tmp_path / "huge.eml"
    huge.write_bytes(b"From: host@example.org\r\nSubject: report\r\n\r\n"
                     + (b"y" * 76 + b"\r\n") * (9 * 1024 * 1024 // 78))
    result = mn(tmp_path / "none.db", "mail", "open", str(huge))
    assert result.exit_code == 2
    assert "8 MiB" in result.output and "huge.eml" in result.output
