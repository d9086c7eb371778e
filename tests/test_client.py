"""The player's side without a database: a player's own export opened as a game (issue 25)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from mncli.cli import main
from test_leaks import _offer_twins, mn


def _file_mn(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def _export(db: Path, side: str, to: Path) -> Path:
    to.write_text(mn(db, "export", "g", "--as", side))
    return to


def test_log_of_a_players_export_is_the_hosts_log_for_it_and_twins_read_alike(tmp_path: Path) -> None:
    """Of twin games that differ in one empire's face-down offer, another empire's own export reads,
    with no database, exactly as the host's mn log --as tells it, and the same byte for byte."""
    twins = _offer_twins(tmp_path, 3, 11)
    assert twins is not None
    a, b, offerer = twins
    reader = next(s for s in ("rome", "greece", "carthage") if s != offerer)

    out = [_file_mn("log", str(_export(db, reader, tmp_path / f"{db.stem}.jsonl"))) for db in (a, b)]

    assert out[0] == out[1]
    assert out[0] == (0, mn(a, "log", "g", "--as", reader), "")
    code, own_a, _ = _file_mn("log", str(_export(a, offerer, tmp_path / "own-a.jsonl")))
    assert code == 0 and own_a != _file_mn("log", str(_export(b, offerer, tmp_path / "own-b.jsonl")))[1]


def test_an_edited_export_is_refused_before_anything_is_shown(tmp_path: Path) -> None:
    """An export whose event was edited fails its chain: exit 4, nothing printed on stdout."""
    twins = _offer_twins(tmp_path, 3, 11)
    assert twins is not None
    path = _export(twins[0], "rome", tmp_path / "rome.jsonl")
    lines = path.read_text().splitlines()
    lines[3] = lines[3].replace('"actor":"', '"actor":"x', 1)
    path.write_text("\n".join(lines) + "\n")

    code, out, err = _file_mn("log", str(path))

    assert (code, out) == (4, "")
    assert err == (f"Error: event 3: {path} does not verify: its hash does not match its row (seq, type, "
                   "actor, batch, time, command, payload) and the chain before it (edited or corrupted)\n")


def test_the_report_mail_opens_as_its_export_and_as_is_held_to_its_empire(tmp_path: Path) -> None:
    """mn log reads the export a report mail carries; --as another empire is refused (exit 2)."""
    twins = _offer_twins(tmp_path, 3, 11)
    assert twins is not None
    db = twins[0]
    mn(db, "mail", "address", "g", "rome", "ann@example.org")
    mail = tmp_path / "rome.eml"
    mn(db, "report", "g", "--as", "rome", "--format", "eml", "-o", str(mail), "--no-record")

    assert _file_mn("log", str(mail)) == (0, mn(db, "log", "g", "--as", "rome"), "")
    assert _file_mn("log", str(mail), "--as", "greece") == (
        2, "", f"Error: {mail} was made for Rome: it can be read only as that empire\n")


# --- mn sign checks the lines against the latest report ---------------------------------------------

VERBS = ("attack, barbarians, bonus, build, builder, choose, claim, colossus, discard, done, draw, fight, fix, "
         "give, halicarnassus, hold, keep, launch, lose, move, mover, no, occupy, offer, peace, perseus, pillage, "
         "place, play, recruit, refuse, take, title, trade (see docs/orders.md)")
NONCE = "0" * 32


def _signed_game(tmp: Path) -> tuple[Path, Path, Path]:
    """A signed game g1 waiting for Carthage's exchange marker: its database, Carthage's key and report."""
    db = tmp / "g.db"
    mn(db, "new", "--id", "g1", "--empire", "rome", "--empire", "greece", "--empire", "carthage",
       "--keys-dir", str(tmp / "keys"), "--signed-only", "--seed", "orders")
    mn(db, "mail", "address", "g1", "carthage", "cat@example.org")
    mail = tmp / "cat.eml"
    mn(db, "report", "g1", "--as", "carthage", "--format", "eml", "-o", str(mail))
    return db, tmp / "keys" / "g1-carthage.key", mail


def test_sign_lists_every_typo_with_a_suggestion_and_signs_nothing(tmp_path: Path) -> None:
    """Three mistyped lines: each is listed with what was probably meant; exit 1, no block."""
    _, key, mail = _signed_game(tmp_path)

    code, out, err = _file_mn("sign", "--key", str(key), "--report", str(mail), "trde 3", "offre coin gold gold",
                              "claim wine from grece")

    assert (code, out) == (1, "")
    assert err == (
        f"line 1 ('trde 3'): unknown order 'trde'; did you mean trade? orders are: {VERBS}\n"
        f"line 2 ('offre coin gold gold'): unknown order 'offre'; did you mean offer? orders are: {VERBS}\n"
        "line 3 ('claim wine from grece'): unknown empire 'grece'; did you mean Greece? expected one of: "
        "Atlantis, Babylon, Carthage, Egypt, Greece, Rome\n"
        "3 problem(s): nothing was signed (--force signs anyway)\n")


def test_sign_refuses_an_order_the_report_shows_illegal_and_force_signs_it(tmp_path: Path) -> None:
    """`trade 9` is no marker's value: refused with the decision and the nearest legal order; --force
    signs it, saying so."""
    _, key, mail = _signed_game(tmp_path)
    args = ["sign", "--key", str(key), "--report", str(mail), "trade 9", "offer coin gold gold", "--nonce", NONCE]

    refused = _file_mn(*args)
    forced = _file_mn(*args, "--force")

    problem = ("line 1 ('trade 9'): not among your legal orders now (report event 7, exchange-marker: play an "
               "exchange marker for one of its values (5, 0, 2, 1, 4, 3)); did you mean 'trade 5'? (the legal "
               "orders: mn play, or the report's 'You must decide')\n")
    assert refused == (1, "", problem + "1 problem(s): nothing was signed (--force signs anyway)\n")
    assert forced[0] == 0 and forced[1].startswith("-----BEGIN MARE NOSTRUM ORDERS-----\nGame: g1\n")
    assert forced[2] == problem + ("--force: signed with 1 problem(s); the host will refuse the block if the "
                                   "game does\n")


def test_sign_with_the_report_takes_its_receipt_and_the_host_applies_the_block(tmp_path: Path) -> None:
    """Legal lines are signed against the report's receipt (no --seq, --head) and applied by the host."""
    db, key, mail = _signed_game(tmp_path)

    code, block, err = _file_mn("sign", "--key", str(key), "--report", str(mail), "trade 3",
                                "offer coin gold gold", "--nonce", NONCE)
    block_file = tmp_path / "block.txt"
    block_file.write_text(block)

    assert (code, err) == (0, "")
    assert "Seq: 7\n" in block
    assert "Carthage offered" in mn(db, "order", "g1", "--signed", str(block_file))


# --- mn play ----------------------------------------------------------------------------------------

def _toy_report(tmp: Path) -> tuple[Path, Path, Path]:
    """The toy game t1 (keys made by the host) and Red's first report mail."""
    from mailkit import mn as kit_mn
    from mailkit import new_toy

    db = tmp / "toy.db"
    new_toy(db, tmp / "keys")
    mail = tmp / "red.eml"
    assert kit_mn(db, "report", "t1", "--as", "red", "--format", "eml", "-o", str(mail)).exit_code == 0
    return db, tmp / "keys" / "t1-red.key", mail


def _play(*args: str, input: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["play", *args], input=input)
    return result.exit_code, result.stdout, result.stderr


def test_play_shows_the_decision_and_refuses_a_typo_and_an_illegal_order_before_signing(
        tmp_path: Path) -> None:
    """Red's report read by mn play: the board and numbered legal orders; a typo and an order of the
    wrong turn are both listed, with a suggestion or the rule, and nothing is signed (exit 1)."""
    _, key, mail = _toy_report(tmp_path)

    code, out, err = _play(str(mail), "--key", str(key), input="muster marsh\nmuster swmp\n")

    assert (code, out) == (1, f"""\
Game t1, set-up: report for Red
(from {mail}; its export verified against head {_receipt(mail)[1][:16]})

Game t1: round 1, muster phase
  Hill   held by Red: Red 1
  Ford   held by nobody: no units
  Marsh  held by Blue: Blue 1
Reserves: Red 3, Blue hidden
You must decide:
  muster: muster a unit or pass
Your legal orders now:
   1. muster hill
   2. muster ford
   3. pass
Orders, one a line (a number, or the order; blank line or end of input to finish):
""")
    assert err == (
        "line 1 ('muster marsh'): not among your legal orders now (report event 5, muster: muster a unit or "
        "pass); did you mean 'muster hill'? (the legal orders: mn play, or the report's 'You must decide')\n"
        "line 2 ('muster swmp'): unknown province 'swmp'; expected one of: Ford, Hill, Marsh\n"
        "2 problem(s): nothing was signed (--force signs anyway)\n")


def _receipt(mail: Path) -> tuple[int, str]:
    from mailkit import read_eml

    seq, head = str(read_eml(mail)["X-MN-Receipt"]).split()
    return int(seq), head


def test_play_signs_a_picked_order_against_the_receipt_and_the_host_applies_it(tmp_path: Path) -> None:
    """Picking option 2 signs `muster ford` against the report's receipt; the block is applied."""
    from mailkit import mn as kit_mn

    db, key, mail = _toy_report(tmp_path)

    code, out, err = _play(str(mail), "--key", str(key), "-o", str(tmp_path / "b.txt"), input="2\n")

    assert (code, err) == (0, "")
    assert out.endswith(f"Signed block written to {tmp_path / 'b.txt'}: paste it into your reply to the host.\n")
    assert "Order: muster ford\n" in (tmp_path / "b.txt").read_text()
    applied = kit_mn(db, "order", "t1", "--signed", str(tmp_path / "b.txt"))
    assert applied.exit_code == 0 and "Red mustered a unit in Ford" in applied.stdout


def test_play_sends_the_block_as_a_reply_over_smtp_and_reads_the_latest_report_of_a_maildir(
        tmp_path: Path) -> None:
    """From a Maildir holding two of Red's reports, the later one is read; the signed block goes to the
    host as a reply threaded under it (a real SMTP server on loopback)."""
    import mailbox

    from mailkit import mn as kit_mn
    from mailkit import read_eml, smtp_server

    db, key, first = _toy_report(tmp_path)
    kit_mn(db, "order", "t1", "--as", "red", "pass")
    kit_mn(db, "order", "t1", "--as", "blue", "pass")
    later = tmp_path / "red2.eml"
    kit_mn(db, "report", "t1", "--as", "red", "--format", "eml", "-o", str(later))
    box = mailbox.Maildir(str(tmp_path / "inbox"), create=True)
    for path in (later, first):
        box.add(path.read_bytes())

    with smtp_server() as (host, port, received):
        code, out, err = _play(str(tmp_path / "inbox"), "--key", str(key), "--smtp", f"{host}:{port}",
                               "--smtp-security", "none", input="pass\n")

    assert (code, err) == (0, ""), err
    report = read_eml(later)
    assert out.endswith(f"Sent to host@example.org: Re: {report['Subject']}\n")
    (sent,) = received
    assert sent["In-Reply-To"] == report["Message-ID"] and sent["From"] == "ann@example.org"
    assert f"Seq: {_receipt(later)[0]}" in sent.get_content().splitlines()
    (tmp_path / "sent.eml").write_bytes(bytes(sent))
    ingested = kit_mn(db, "mail", "ingest", str(tmp_path / "sent.eml"), "--outbox", str(tmp_path / "out"))
    assert ingested.exit_code == 0 and ": red applied, receipt event" in ingested.stdout


def test_a_players_export_holding_another_sides_sandbox_fix_opens(tmp_path: Path) -> None:
    """In a sandbox, Carthage fixes the next legendary commodity (its value withheld from the others): the
    field sits in one struct of a tagged union (the fix's outcome); Rome's export still opens, the value
    read as withheld, not an internal error."""
    db = tmp_path / "fx.db"
    for args in (["new", "--id", "g", "--seed", "s", "--empire", "rome", "--empire", "greece", "--empire",
                  "carthage"], ["order", "g", "--as", "carthage", "fix legendary wine"]):
        assert CliRunner().invoke(main, ["--db", str(db), *args]).exit_code == 0
    export = _export(db, "rome", tmp_path / "rome.jsonl")

    code, out, err = _file_mn("log", str(export))

    assert (code, err) == (0, "")
    assert out.splitlines()[-1] == ("    7  Carthage fixes the next legendary commodity drawn, face down "
                                    "(sandbox, ruling R7).")
