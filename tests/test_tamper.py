"""Tampering: every edit of a row, a cut or a reordering is caught by mn verify, wherever the log is."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner, Result

from mncli.cli import main
from mncore.audits.dispute import Bundle, _digest, _encode
from mncore.core.dice import seeded_secret
from mncore.games import writing
from mncore.rulesets.empires.board import load_board
from mncore.rulesets.empires.commands import CreateGame
from mncore.rulesets.empires.players.autoplay import play_stored
from mncore.rulesets.empires.seam import RULESET
from mncore.store import open_store

# one edit per hashed field of a row: (column, SQL expression giving the new value)
FIELD_EDITS = {
    "actor": "case when actor = 'host' then 'rome' else 'host' end",
    "recorded_at": "'2020-01-01T00:00:00.000000+00:00'",
    "batch": "batch + 1",
    "command": "case when command is null then '{\"type\":\"RevealSecret\",\"secret\":\"00\"}' "
               "else replace(command, '\"type\"', '\"type\" ') end",
    "payload": "replace(payload, '\"type\"', '\"type\" ')",
    "hash": "(case when substr(hash, 1, 1) = '0' then '1' else '0' end) || substr(hash, 2)",
}


def mn(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, int]:
    """A three-empire game played by scripted players for a while: (database, game, events)."""
    db = tmp_path_factory.mktemp("tamper") / "t.db"
    cmd = CreateGame(board=load_board(), players={"rome": "A", "greece": "B", "carthage": "C"},
                     fair_play=False)
    store = open_store(str(db), create=True)
    loaded = writing.create(store, RULESET, cmd, seeded_secret("tamper"), "g")
    loaded = play_stored(store, loaded, seeded_secret("tamper"), random.Random("tamper"),
                         40)
    store.close()  # the last connection checkpoints the write-ahead log into the file copied below
    return db, "g", len(loaded.rows)


@pytest.fixture()
def db(played: tuple[Path, str, int], tmp_path: Path) -> Path:
    copy = tmp_path / "copy.db"
    copy.write_bytes(played[0].read_bytes())
    return copy


def _sql(db: Path, sql: str, *args: object) -> None:
    conn = sqlite3.connect(db)
    conn.execute(sql, args)
    conn.commit()
    conn.close()


def _failed_at(result: Result) -> int:
    assert result.exit_code == 4, result.output
    assert "Traceback" not in result.output
    return int(result.stderr.split("FAILED at event ")[1].split(":")[0])


def test_the_untouched_log_verifies(db: Path, played: tuple[Path, str, int]) -> None:
    """The game as played verifies, held to the head its database recorded."""
    result = mn("--db", str(db), "verify", "g")

    assert result.exit_code == 0, result.output
    assert "it holds the head hash given by the database's head record" in result.stdout


@pytest.mark.parametrize("field", sorted(FIELD_EDITS))
@pytest.mark.parametrize("seq", [2, 17])
def test_a_single_field_edit_in_the_database_is_caught_at_its_event(
        db: Path, field: str, seq: int) -> None:
    """Editing any hashed field of one row fails verify (exit 4), naming that event."""
    _sql(db, f"update events set {field} = {FIELD_EDITS[field]} where game_id = 'g' and seq = ?", seq)

    assert _failed_at(mn("--db", str(db), "verify", "g")) == seq


def test_a_number_beyond_bounds_in_a_stored_event_is_refused_by_every_reader(db: Path) -> None:
    """A stored event edited to hold a number beyond the ceiling (bounds.MAX_NUMBER) is an integrity
    failure at its event for the commands that fold the log, not a crash or a huge loop."""
    conn = sqlite3.connect(db)
    seq = conn.execute("select min(seq) from events where game_id = 'g' and type = 'PhaseBegan'"
                       ).fetchone()[0]
    conn.close()
    _sql(db, "update events set payload = replace(payload, '\"round\":', '\"round\":9999999') "
             "where game_id = 'g' and seq = ?", seq)

    for command in ("status", "show"):
        result = mn("--db", str(db), command, "g")
        assert result.exit_code == 4 and "Traceback" not in result.output, result.output
        assert f"event {seq}" in result.stderr and "out of bounds" in result.stderr, result.stderr


def test_editing_seq_is_caught(db: Path) -> None:
    """A row renumbered (a gap in the sequence) fails verify at the missing event."""
    _sql(db, "update events set seq = 1000 where game_id = 'g' and seq = 9")

    assert _failed_at(mn("--db", str(db), "verify", "g")) == 9


def test_a_deleted_row_is_caught(db: Path) -> None:
    """A row deleted from the middle of the log fails verify at its number."""
    _sql(db, "delete from events where game_id = 'g' and seq = 12")

    assert _failed_at(mn("--db", str(db), "verify", "g")) == 12


def test_two_rows_swapped_are_caught(db: Path) -> None:
    """Two rows exchanging their payloads fail verify at the first of them."""
    conn = sqlite3.connect(db)
    a, b = (conn.execute("select payload from events where game_id='g' and seq=?", [s]).fetchone()[0]
            for s in (5, 6))
    conn.execute("update events set payload=? where game_id='g' and seq=5", [b])
    conn.execute("update events set payload=? where game_id='g' and seq=6", [a])
    conn.commit()
    conn.close()

    assert _failed_at(mn("--db", str(db), "verify", "g")) == 5


def test_the_last_batch_deleted_is_caught_by_the_head_record(db: Path, played: tuple[Path, str, int]
                                                             ) -> None:
    """Cutting whole batches off the end keeps the chain intact, but not the recorded head."""
    n = played[2]
    conn = sqlite3.connect(db)
    last_batch = conn.execute("select batch from events where game_id='g' and seq=?", [n]).fetchone()[0]
    conn.execute("delete from events where game_id='g' and seq >= ?", [last_batch])
    conn.commit()
    conn.close()

    assert _failed_at(mn("--db", str(db), "verify", "g")) == last_batch


def test_a_cut_log_is_caught_by_a_head_the_player_kept(db: Path, played: tuple[Path, str, int]) -> None:
    """Without the head record too, a head hash a player kept is not in the cut log."""
    kept = open_store(str(db)).head("g")[1]
    _sql(db, "delete from events where game_id='g' and seq >= ?", played[2] - 3)
    _sql(db, "delete from heads where game_id='g'")

    result = mn("--db", str(db), "verify", "g", "--head", kept)

    assert result.exit_code == 4 and "the head you hold" in result.stderr
    assert "cut short or rewritten" in result.stderr


def _export(db: Path, tmp_path: Path) -> list[dict[str, object]]:
    out = tmp_path / "e.jsonl"
    assert mn("--db", str(db), "export", "g", "-o", str(out)).exit_code == 0
    return [json.loads(line) for line in out.read_text().splitlines()]


def _write(path: Path, lines: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(x, separators=(",", ":")) + "\n" for x in lines))
    return path


@pytest.mark.parametrize("field", ["actor", "recorded_at", "batch", "command", "payload", "hash"])
def test_a_single_field_edit_in_an_export_is_caught_at_its_event(db: Path, tmp_path: Path,
                                                                 field: str) -> None:
    """The same edits in an export file fail `mn verify FILE` at that event."""
    lines = _export(db, tmp_path)
    row = lines[7]
    row[field] = {"actor": "greece" if row["actor"] != "greece" else "rome",
                  "recorded_at": "2020-01-01T00:00:00.000000+00:00",
                  "batch": int(row["batch"]) + 1,  # type: ignore[call-overload]
                  "command": {"type": "RevealSecret", "secret": "00"},
                  "payload": {**row["payload"], "extra": 1},  # type: ignore[dict-item]
                  "hash": ("1" if str(row["hash"]).startswith("0") else "0") + str(row["hash"])[1:]}[field]

    result = mn("verify", str(_write(tmp_path / "x.jsonl", lines)))

    assert _failed_at(result) == 7


def test_an_export_cut_short_is_caught_by_its_header(db: Path, tmp_path: Path) -> None:
    """Dropping the last lines of an export leaves a chain that ends before its header's head."""
    lines = _export(db, tmp_path)

    result = mn("verify", str(_write(tmp_path / "x.jsonl", lines[:-4])))

    assert result.exit_code == 4 and "the export header" in result.stderr


@pytest.mark.parametrize("field,value", [("events", 3), ("head_hash", "f" * 64)])
def test_an_edited_export_header_is_caught(db: Path, tmp_path: Path, field: str, value: object) -> None:
    """A header whose count or head disagrees with the lines fails verify."""
    lines = _export(db, tmp_path)
    lines[0][field] = value

    result = mn("verify", str(_write(tmp_path / "x.jsonl", lines)))

    assert result.exit_code == 4 and "the export header" in result.stderr


def test_reordered_export_lines_are_caught(db: Path, tmp_path: Path) -> None:
    """Two lines exchanged fail verify at the first event out of place."""
    lines = _export(db, tmp_path)
    lines[4], lines[5] = lines[5], lines[4]

    assert _failed_at(mn("verify", str(_write(tmp_path / "x.jsonl", lines)))) == 4


def test_an_edited_log_in_a_dispute_bundle_is_caught_even_with_its_digest_recomputed(
        db: Path, tmp_path: Path) -> None:
    """A bundle whose log row is edited and whose digest is recomputed still fails."""
    path = tmp_path / "b.json"
    assert mn("--db", str(db), "dispute", "g", "--at", "10", "-o", str(path)).exit_code == 0
    bundle = msgspec.json.decode(path.read_bytes(), type=Bundle)
    line = bundle.log[3]
    forged_line = msgspec.structs.replace(line, actor="greece" if line.actor != "greece" else "rome")
    forged = msgspec.structs.replace(bundle, log=[*bundle.log[:3], forged_line, *bundle.log[4:]],
                                     digest="")
    path.write_bytes(_encode(msgspec.structs.replace(forged, digest=_digest(forged))))

    result = mn("verify", str(path))

    assert result.exit_code == 4 and "dispute bundle FAILED" in result.stderr
    assert "event 4" in result.stderr


def test_a_bundle_rewritten_whole_is_caught_by_a_head_the_player_kept(db: Path, tmp_path: Path) -> None:
    """A bundle whose log is re-chained after an edit (digest recomputed) no longer holds the head
    hash the host published when the bundle was made: mn verify FILE --head says so, exit 4."""
    from mncore.games.lifecycle import rechain
    from mncore.store import Row

    path = tmp_path / "b.json"
    assert mn("--db", str(db), "dispute", "g", "--at", "10", "-o", str(path)).exit_code == 0
    bundle = msgspec.json.decode(path.read_bytes(), type=Bundle)
    published = bundle.head_hash
    rows = [Row(seq=x.seq, type=x.type, payload=bytes(x.payload).decode(), recorded_at=x.recorded_at,
                actor=x.actor, batch=x.batch, hash=x.hash,
                command=None if bytes(x.command) == b"null" else bytes(x.command).decode(), salts=x.salts)
            for x in bundle.log]
    rows[2] = msgspec.structs.replace(rows[2], recorded_at="2020-01-01T00:00:00.000000+00:00")
    again = rechain(rows, bundle.version)
    lines = [msgspec.structs.replace(x, recorded_at=r.recorded_at, hash=r.hash)
             for x, r in zip(bundle.log, again, strict=True)]
    forged = msgspec.structs.replace(bundle, log=lines, head_hash=again[-1].hash, digest="")
    path.write_bytes(_encode(msgspec.structs.replace(forged, digest=_digest(forged))))

    kept = mn("verify", str(path), "--head", published)

    assert kept.exit_code == 4 and "the head you hold" in kept.stderr
