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

VERBS = ("attack, barbarians, bonus, build, builder, choose, claim, colossus, discard, done, draw, fix, give, "
         "halicarnassus, hold, keep, launch, lose, move, mover, no, occupy, offer, peace, perseus, pillage, "
         "place, play, recruit, title, trade (see docs/orders.md)")
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
