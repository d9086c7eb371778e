"""mn report: a side's turn report since its last one, only what it may know, in text, Markdown,
JSON and as a ready mail that a player with mn alone can verify against the head it holds."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from mailkit import body, doc, head, mn, new_toy, read_eml
from mncore.pbem.mail import book as books
from mncore.pictures import raster

JSON_DOC = (Path(__file__).resolve().parent.parent / "docs" / "json.md").read_text()


@pytest.fixture()
def db(tmp_path: Path) -> Path:
    return tmp_path / "pbem.db"


@pytest.fixture()
def toy(db: Path, tmp_path: Path) -> str:
    return new_toy(db, tmp_path / "keys")


def test_a_report_tells_a_side_what_happened_its_board_its_decision_and_the_receipt(db: Path, toy: str) -> None:
    """The whole text report of Red at the start: events by phase, board, options, sign line, receipt."""
    seq, hash_ = head(db, toy)

    result = mn(db, "report", toy, "--as", "red")

    assert result.exit_code == 0, result.output
    assert result.stdout == f"""\
Game t1, set-up: report for Red
===============================

What happened since event 0
---------------------------
set-up:
      1  Toy game created: Red (Ann), Blue (Ben)
      2  Red drew a reserve of 3
      3  Blue drew a face-down reserve
      4  Round 1: the muster phase began
      5  Public keys published for Blue, Red

Your board
----------
Game t1: round 1, muster phase
  Hill   held by Red: Red 1
  Ford   held by nobody: no units
  Marsh  held by Blue: Blue 1
Reserves: Red 3, Blue hidden

You must decide
---------------
muster: muster a unit or pass

Your legal orders now (grammar: docs/orders.md):
  muster hill
  muster ford
  pass

Answer with a signed block:
  mn sign --key KEYFILE --game t1 --seq {seq} --head {hash_} 'ORDER' ...

The game also waits for
-----------------------
Nobody else.

Receipt
-------
game t1, event {seq}, head {hash_}
Keep it: mn verify EXPORT --head HASH shows the log was not cut or rewritten.
"""


def test_the_next_report_starts_where_the_last_one_ended(db: Path, toy: str) -> None:
    """Without --since a report tells what happened after the last event of the side's last report;
    --no-record previews without moving that mark; the mark is kept beside the database, not in the log."""
    assert mn(db, "report", toy, "--as", "red").exit_code == 0
    assert mn(db, "order", toy, "--as", "red", "muster hill").exit_code == 0

    preview = mn(db, "report", toy, "--as", "red", "--no-record", "--format", "json")
    again = mn(db, "report", toy, "--as", "red", "--format", "json")
    after = mn(db, "report", toy, "--as", "red", "--format", "json")

    events = [[e["seq"] for g in json.loads(r.stdout)["events"] for e in g["events"]]
              for r in (preview, again, after)]
    assert events == [[6], [6], []]
    assert books.load(books.path_for(str(db))).games[toy].reported == {"red": 6}
    assert doc(db, "status", toy)["head"]["seq"] == 6


def test_a_report_shows_only_what_its_side_may_know(db: Path, toy: str) -> None:
    """Blue's face-down reserve is hidden from Red and Red's from Blue, in every format."""
    for fmt in ("text", "markdown", "json"):
        red = mn(db, "report", toy, "--as", "red", "--format", fmt, "--no-record").stdout
        blue = mn(db, "report", toy, "--as", "blue", "--format", fmt, "--no-record").stdout

        assert "Blue drew a face-down reserve" in red and "Blue drew a reserve of" not in red
        assert "Red drew a face-down reserve" in blue and "Red drew a reserve of" not in blue


def test_the_json_report_has_the_documented_fields(db: Path, toy: str) -> None:
    """The JSON report: the fields docs/json.md lists under Turn report."""
    report = json.loads(mn(db, "report", toy, "--as", "blue", "--format", "json").stdout)

    section = JSON_DOC.split("\n## `mn report --format json`\n", 1)[1].split("\n## ", 1)[0]
    documented = set(re.findall(r"^\| `([^`]+)`", section, flags=re.M))

    assert set(report) == documented
    assert report["waiting_for"] == [{"side": "red", "name": "Red", "kind": "muster", "due": None,
                                      "text": "muster a unit or pass"}]
    assert report["decide"] == [] and report["receipt"]["seq"] == 5


def test_an_unknown_side_or_a_since_beyond_the_log_is_bad_input(db: Path, toy: str) -> None:
    """Exit 2 with the reason; nothing recorded."""
    side = mn(db, "report", toy, "--as", "green")
    since = mn(db, "report", toy, "--as", "red", "--since", "99")

    assert side.exit_code == 2 and since.exit_code == 2
    assert since.stderr == "Error: --since 99: game t1 has events 1 to 5\n"
    assert books.load(books.path_for(str(db))).games[toy].reported == {}


def test_an_eml_report_needs_the_sides_address(db: Path, tmp_path: Path) -> None:
    """A game with no address for Red: exit 2 naming mn mail address, nothing recorded."""
    assert mn(db, "new", "--ruleset", "toy", "--empire", "red", "--empire", "blue", "--seed", "x",
              "--id", "bare").exit_code == 0

    result = mn(db, "report", "bare", "--as", "red", "--format", "eml")

    assert result.exit_code == 2
    assert result.stderr == "Error: game bare has no address for Red: mn mail address bare red ADDRESS\n"


@pytest.fixture(scope="module")
def empires(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A three-empire game with keys and addresses, Carthage's trade marker played."""
    tmp = tmp_path_factory.mktemp("empires")
    db = tmp / "e.db"
    made = mn(db, "new", "--empire", "rome", "--empire", "greece", "--empire", "carthage", "--seed", "r",
              "--player", "rome=Ann", "--player", "greece=Ben", "--player", "carthage=Cat",
              "--keys-dir", str(tmp / "keys"), "--id", "e1")
    assert made.exit_code == 0, made.output
    for side in ("rome", "greece", "carthage", "host"):
        assert mn(db, "mail", "address", "e1", side, f"{side}@example.org").exit_code == 0
    assert mn(db, "order", "e1", "--as", "carthage", "trade 3").exit_code == 0
    return db, tmp


def test_an_empires_report_names_the_phase_and_the_sides_own_resources(empires: tuple[Path, Path]) -> None:
    """Rome reads its own resources and the trade it must take part in; the others' stay counts."""
    db, _ = empires
    report = json.loads(mn(db, "report", "e1", "--as", "rome", "--format", "json", "--no-record").stdout)

    assert report["phase"] == "round 1, Trade Resources phase"
    assert report["resources"] == "1 Coin, 2 Grain, 2 Metal, 2 Oil, 2 Wine"
    assert report["view"]["empires"]["greece"]["resources"] is None
    assert "Greece      9: hidden" in report["board"]
    assert [g["phase"] for g in report["events"]] == ["round 1, Trade Resources phase"]


def test_the_mailed_report_carries_the_picture_the_json_and_the_sides_own_export(
        empires: tuple[Path, Path]) -> None:
    """--format eml: To the side's address, the subject with game, round and phase; attached the
    report as JSON and the side's own export (the board is inline, a PNG in the HTML part)."""
    db, tmp = empires
    out = tmp / "rome.eml"

    assert mn(db, "report", "e1", "--as", "rome", "--format", "eml", "-o", str(out), "--no-record").exit_code == 0

    msg = read_eml(out)
    assert (msg["To"], msg["From"]) == ("rome@example.org", "host@example.org")
    assert msg["Subject"] == "[mn e1] round 1, Trade Resources phase: report for Rome"
    names = [p.get_filename() for p in msg.iter_attachments()]
    seq = json.loads(mn(db, "status", "e1", "--json").stdout)["head"]["seq"]
    assert names == [f"e1-rome-{seq}.json", "e1-rome.jsonl"]
    export = next(p for p in msg.iter_attachments() if p.get_filename() == "e1-rome.jsonl")
    assert json.loads(export.get_content().splitlines()[0])["made_for"] == "rome"


def test_a_player_with_mn_alone_verifies_the_export_mailed_with_the_report(
        empires: tuple[Path, Path]) -> None:
    """No database: the export attached to the report verifies against the head in its receipt;
    a head from elsewhere fails it (exit 4)."""
    db, tmp = empires
    assert mn(db, "report", "e1", "--as", "greece", "--format", "eml", "-o", str(tmp / "g.eml"),
              "--no-record").exit_code == 0
    msg = read_eml(tmp / "g.eml")
    export = tmp / "player" / "greece.jsonl"
    export.parent.mkdir()
    part = next(p for p in msg.iter_attachments() if p.get_filename() == "e1-greece.jsonl")
    export.write_bytes(part.get_content() if isinstance(part.get_content(), bytes)
                       else part.get_content().encode())
    receipt = re.search(r"head ([0-9a-f]{64})", body(msg))
    assert receipt is not None
    nowhere = tmp / "player" / "no.db"

    held = mn(nowhere, "verify", str(export), "--head", receipt[1])
    other = mn(nowhere, "verify", str(export), "--head", "0" * 64)

    assert held.exit_code == 0, held.output
    assert other.exit_code == 4
    assert not nowhere.exists()


def test_a_report_marks_what_was_taken_back_and_names_corrections_and_deadlines(
        db: Path, toy: str) -> None:
    """Red's order taken back (K1) reads [undone]; the host's correction (K3) is listed with its
    reason; with deadlines set (K4) the side's decision carries its deadline."""
    assert mn(db, "report", toy, "--as", "blue").exit_code == 0
    for args in (["order", toy, "--as", "red", "muster hill"], ["undo", toy, "--as", "red"],
                 ["order", toy, "--as", "red", "muster ford"], ["order", toy, "--as", "blue", "pass"],
                 ["correct", toy, "--batch", "9", "--reason", "Blue meant to muster in Marsh"],
                 ["deadline", toy, "--hours", "24", "--now", "2030-01-01T00:00:00+00:00"]):
        assert mn(db, *args).exit_code == 0

    text = mn(db, "report", toy, "--as", "blue").stdout

    happened = text.split("What happened since event 5\n", 1)[1].split("\n\n", 1)[0]
    assert happened.splitlines()[2:] == [
        "      6  [undone] Red mustered a unit in Hill",
        "      7  Red took back event 6; replay skips it (ruling K1).",
        "      8  Red mustered a unit in Ford",
        "      9  [undone] Blue passed",
        "     10  [undone] Round 2: the muster phase began",
        "     11  Host correction: events 9 to 10 are undone. Reason: Blue meant to muster in Marsh "
        "(ruling K3).",
        "     12  Pace set: 24 hours for each decision (rulings K4, K5)."]
    assert ("Host corrections\n----------------\n   11  Host correction: events 9 to 10 are undone. "
            "Reason: Blue meant to muster in Marsh (ruling K3).\n") in text
    assert ("muster: muster a unit or pass\n"
            "Deadline: 2030-01-02T00:00:00+00:00 (then the default of docs/defaults.md is taken)\n") in text
    markdown = mn(db, "report", toy, "--as", "red", "--format", "markdown", "--since", "5").stdout
    assert "- ~~6  Red mustered a unit in Hill~~ (undone)" in markdown


def test_mn_mail_open_prints_the_report_and_verifies_its_export_without_a_database(
        empires: tuple[Path, Path]) -> None:
    """A player runs mn mail open on the mailed report: the text, then its export verified against
    the receipt's head; a head the player kept that this log does not hold fails it (exit 4)."""
    db, tmp = empires
    mailed = tmp / "c.eml"
    assert mn(db, "report", "e1", "--as", "carthage", "--format", "eml", "-o", str(mailed),
              "--no-record").exit_code == 0
    nowhere = tmp / "cat" / "none.db"
    seq, hash_ = head(db, "e1")

    opened = mn(nowhere, "mail", "open", str(mailed), "--save", str(tmp / "cat"))
    other = mn(nowhere, "mail", "open", str(mailed), "--head", "1" * 64)

    assert opened.exit_code == 0, opened.output
    assert opened.stdout.startswith("Game e1, round 1, Trade Resources phase: report for Carthage (Cat)\n")
    assert opened.stdout.endswith(f"e1-carthage.jsonl: verified against head {hash_}, {seq} events\n")
    assert sorted(p.name for p in (tmp / "cat").iterdir()) == [f"e1-carthage-{seq}.json", "e1-carthage.jsonl"]
    assert other.exit_code == 4 and "FAILED against head 1111111111111111" in other.stderr
    assert not nowhere.exists()


def test_a_mailed_report_shows_the_board_inline_as_a_png_its_html_names(
        empires: tuple[Path, Path]) -> None:
    """Through a real SMTP server: the text part as ever, and an HTML part whose <img> names by
    Content-ID the PNG of the board (drawn without a browser) that travels beside it, marked with
    what changed since the side's last report; no SVG travels (the player draws it from the mail's
    export, with no database)."""
    from mailkit import smtp_server
    db, tmp = empires
    outbox = tmp / "png-outbox"
    assert mn(db, "mail", "outbox", "e1", "--dir", str(outbox)).exit_code == 0

    with smtp_server() as (host, port, received):
        sent = mn(db, "mail", "send", "--dir", str(outbox), "--smtp", f"{host}:{port}")

    assert sent.exit_code == 0, sent.output
    rome = next(m for m in received if m["To"] == "rome@example.org")
    text = rome.get_body(("plain",))
    html = rome.get_body(("html",))
    assert text is not None and html is not None
    assert "You must decide" in text.get_content()
    cid = re.search(r'<img src="cid:([^"]+)"', html.get_content())
    assert cid is not None
    pictures = [p for p in rome.walk() if p.get_content_type() == "image/png"]
    assert [p["Content-ID"] for p in pictures] == [f"<{cid[1]}>"]
    png = pictures[0].get_content()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    assert not [p for p in rome.walk() if p.get_content_type() == "image/svg+xml"]
    (tmp / "rome.eml").write_bytes(bytes(rome))
    drawn = mn(tmp / "nowhere.db", "draw", str(tmp / "rome.eml"), "-o", "-")
    assert drawn.exit_code == 0, drawn.output
    found = re.search(r'width="([\d.]+)" height="([\d.]+)"', drawn.stdout)
    # scaled to the mail's width, the board's proportions kept; indexed colour (type 3), small
    assert found is not None and width == raster.WIDTH
    assert abs(height - raster.WIDTH * float(found[2]) / float(found[1])) <= 1
    assert png[25] == 3 and len(png) < 120_000
    assert png != raster.png(drawn.stdout)  # the mail's board is marked with what changed
    assert not (tmp / "nowhere.db").exists()
