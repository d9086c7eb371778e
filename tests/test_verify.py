"""mn verify: a tampered, truncated or reordered log is caught and its first bad event named."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from mncli.cli import main
from mncore.audits.verify import verify_rows
from mncore.store import open_store


@pytest.fixture()
def revealed(tmp_path: Path) -> tuple[str, str]:
    """A seeded game whose secret has been revealed."""
    db = str(tmp_path / "v.db")
    run = CliRunner()
    gid = run.invoke(main, ["--db", db, "new", "--empire", "rome", "--empire", "greece",
                            "--empire", "carthage", "--seed", "v"]).stdout.strip()
    assert run.invoke(main, ["--db", db, "reveal", gid, "--force"]).exit_code == 0
    return db, gid


def _sql(db: str, sql: str, *args: object) -> None:
    conn = sqlite3.connect(db)
    conn.execute(sql, args)
    conn.commit()
    conn.close()


def test_an_intact_revealed_log_verifies_with_exit_0(revealed: tuple[str, str]) -> None:
    """The chain holds, the log replays, and every command and draw recomputes."""
    db, gid = revealed

    result = CliRunner().invoke(main, ["--db", db, "verify", gid])

    assert result.exit_code == 0
    assert result.stdout.splitlines()[0] == f"game {gid}: verified, 7 events"
    assert "every random outcome recomputes" in result.stdout


@pytest.mark.parametrize("seq", [2, 4])
def test_editing_a_payload_fails_verify_naming_its_sequence(revealed: tuple[str, str], seq: int) -> None:
    """A changed payload breaks the chain at that event; verify exits 4 and names it."""
    db, gid = revealed
    _sql(db, "update events set payload = replace(payload, '\"', '\"') || ' ' where game_id=? and seq=?",
         gid, seq)

    result = CliRunner().invoke(main, ["--db", db, "verify", gid])

    assert result.exit_code == 4
    assert f"FAILED at event {seq}:" in result.stderr


def test_editing_a_hash_fails_verify_naming_its_sequence(revealed: tuple[str, str]) -> None:
    """A changed hash no longer follows from its payload."""
    db, gid = revealed
    _sql(db, "update events set hash = ? where game_id=? and seq=3", "f" * 64, gid)

    result = CliRunner().invoke(main, ["--db", db, "verify", gid])

    assert result.exit_code == 4 and "FAILED at event 3:" in result.stderr


def test_deleting_a_row_fails_verify_naming_the_missing_sequence(revealed: tuple[str, str]) -> None:
    """A deleted event leaves a gap that verify names."""
    db, gid = revealed
    _sql(db, "delete from events where game_id=? and seq=5", gid)

    result = CliRunner().invoke(main, ["--db", db, "verify", gid])

    assert result.exit_code == 4 and "FAILED at event 5: event 5 is missing" in result.stderr


def test_a_rehashed_forgery_is_caught_by_deciding_the_commands_again(revealed: tuple[str, str]) -> None:
    """Editing a collected resource and recomputing every hash still fails: the rules disagree."""
    db, gid = revealed
    store = open_store(db)
    rows = store.rows(gid)
    target = next(r for r in rows if r.type == "ResourcesCollected")
    forged_payload = target.payload.replace('"coin":1', '"coin":9')
    assert forged_payload != target.payload
    from msgspec.structs import replace

    from mncore.games.lifecycle import rechain
    forged = rechain([replace(r, payload=forged_payload) if r.seq == target.seq else r for r in rows], 2)

    report = verify_rows(forged, 2)

    assert not report.ok and report.first_bad == target.seq
    assert "decided again" in (report.reason or "")


def test_a_wrong_secret_fails_against_the_commitment(revealed: tuple[str, str]) -> None:
    """A revealed secret must hash to the commitment of the first event."""
    db, gid = revealed
    rows = open_store(db).rows(gid)
    payload = '{"type":"SecretRevealed","secret":"' + "00" * 32 + '"}'
    from msgspec.structs import replace

    from mncore.games.lifecycle import rechain
    forged = rechain([*rows[:-1], replace(rows[-1], payload=payload)], 2)

    report = verify_rows(forged, 2)

    assert not report.ok and report.first_bad == 7 and "commitment" in (report.reason or "")
