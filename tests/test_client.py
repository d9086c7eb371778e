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
