"""mn check, diff, dispute and verify of a bundle: exit codes, output, and tamper evidence."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from both import IDS, SPECS, Spec
from mncli.cli import main
from mncore.audits.dispute import verify_bundle
from mncore.games import transfer
from mncore.store import open_store

THREE = ["--empire", "rome", "--empire", "greece", "--empire", "carthage"]


def mn(db: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["--db", str(db), *args])


@pytest.fixture(scope="module", params=SPECS, ids=IDS)
def played(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A demonstration game of each ruleset, a few rounds or to its end, with its secret revealed."""
    spec: Spec = request.param
    db = tmp_path_factory.mktemp("audit") / "mn.db"
    assert mn(db, "demo", *spec.flag, "--players", "3", "--seed", "audit", "--max-orders", "150").exit_code == 0
    gid = open_store(str(db)).games()[0].id
    revealed = mn(db, "reveal", gid, "--force")  # a demo played to its win has revealed it already
    assert revealed.exit_code == 0 or "already revealed" in revealed.stderr
    return db, gid


def _spec(db: Path, gid: str) -> Spec:
    ruleset = open_store(str(db)).rows(gid)[0].payload
    return next(s for s in SPECS if f"-{s.ruleset}-" in str(ruleset))


def _seq_of(db: Path, gid: str, kind: str) -> int:
    return next(r.seq for r in open_store(str(db)).rows(gid) if r.type == kind)


# --- mn check (each ruleset) ---------------------------------------------------------------------

@pytest.fixture(params=SPECS, ids=IDS)
def checked(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, Spec]:
    """A new three-player game "g" of each ruleset."""
    db, spec = tmp_path / "mn.db", request.param
    assert mn(db, "new", *spec.new, "--seed", "orders", "--id", "g").exit_code == 0
    return db, spec


def test_check_shows_the_events_of_an_accepted_order_and_writes_nothing(checked: tuple[Path, Spec]) -> None:
    """The first order of the game would be accepted: the events are listed and the log is unchanged."""
    db, spec = checked
    head = open_store(str(db)).head("g")

    result = mn(db, "check", "g", "--as", spec.side, spec.legal)

    assert result.exit_code == 0
    assert result.stdout.splitlines()[0] == f"Accepted: '{spec.legal}' would cause {spec.legal_events} event(s):"
    assert open_store(str(db)).head("g") == head


def test_check_names_the_section_of_a_refusal_with_exit_1(checked: tuple[Path, Spec]) -> None:
    """The same order from another side is refused (Empires 2.1, classic 3.2.1): exit 1, nothing written."""
    db, spec = checked
    head = open_store(str(db)).head("g")

    result = mn(db, "check", "g", "--as", spec.refused_side, spec.legal)

    assert result.exit_code == 1
    assert result.stderr == f"Error: {spec.refusal} [rule {spec.section}]\n"
    assert open_store(str(db)).head("g") == head


def test_check_json_reports_a_refusal_with_its_section(checked: tuple[Path, Spec]) -> None:
    """--json gives accepted=false, the section and the reason."""
    db, spec = checked

    result = mn(db, "check", "g", "--as", spec.refused_side, spec.legal, "--json")

    doc = json.loads(result.stdout)
    assert result.exit_code == 1 and doc["accepted"] is False and doc["section"] == spec.section
    assert doc["reason"] == spec.refusal


def test_check_of_a_malformed_order_exits_2(checked: tuple[Path, Spec]) -> None:
    """An unknown verb is bad input."""
    db, spec = checked

    assert mn(db, "check", "g", "--as", spec.side, "fly to the moon").exit_code == 2


# --- mn diff --------------------------------------------------------------------------------------

def test_diff_between_two_points_lists_the_changes(played: tuple[Path, str]) -> None:
    """From the start to event 60: rounds, phases, what the sides hold, units have changed."""
    db, gid = played

    result = mn(db, "diff", gid, "--at", "1", "--to", "60")

    assert result.exit_code == 0
    assert "round: 1 → " in result.stdout or "phase: " in result.stdout
    assert _spec(db, gid).hidden_word in result.stdout


def test_diff_of_a_game_with_itself_is_empty(played: tuple[Path, str]) -> None:
    """Two identical points have no differences."""
    db, gid = played

    result = mn(db, "diff", gid, "--at", "40", "--to", "40")

    assert result.exit_code == 0 and result.stdout == "No differences.\n"


def test_diff_of_two_games_compares_them_now(played: tuple[Path, str], tmp_path: Path) -> None:
    """A fork at event 30 differs from its game now; --json gives paths of keys."""
    db, gid = played
    assert mn(db, "fork", gid, "--at", "30", "--as", "fk", "--seed", "f").exit_code == 0

    result = mn(db, "diff", "fk", gid, "--json")

    changes = json.loads(result.stdout)
    assert result.exit_code == 0 and changes
    assert all({"what", "before", "after", "text"} <= set(c) for c in changes)


def test_diff_needs_something_to_compare(played: tuple[Path, str]) -> None:
    """GAME alone is bad input."""
    db, gid = played

    assert mn(db, "diff", gid).exit_code == 2


# --- dispute bundles -------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def bundle(played: tuple[Path, str], tmp_path_factory: pytest.TempPathFactory) -> Path:
    db, gid = played
    out = tmp_path_factory.mktemp("bundle") / "b.json"
    at = _seq_of(db, gid, "BattleFought") if any(
        r.type == "BattleFought" for r in open_store(str(db)).rows(gid)) else 50
    result = mn(db, "dispute", gid, "--at", str(at), "-o", str(out))
    assert result.exit_code == 0, result.output
    return out


def test_a_bundle_holds_the_evidence_about_event_n(bundle: Path, played: tuple[Path, str]) -> None:
    """Log up to N with hashes and commands, versions, commitment and secret, rulings, positions, explanation."""
    db, gid = played

    doc = json.loads(bundle.read_bytes())

    assert doc["format"] == "mare-nostrum/dispute" and doc["game"] == gid
    assert doc["log"][doc["at"] - 1]["hash"] == open_store(str(db)).rows(gid)[doc["at"] - 1].hash
    assert doc["secret"] and doc["commitment"] and doc["rulings"] and doc["after"]
    assert doc["explanation"]["seq"] == doc["at"]


def test_verify_on_a_bundle_says_what_it_proves(bundle: Path, played: tuple[Path, str]) -> None:
    """mn verify FILE recognises a bundle and checks it whole: exit 0."""
    db, _ = played

    result = mn(db, "verify", str(bundle))

    assert result.exit_code == 0, result.output
    assert "dispute bundle verified" in result.stdout
    assert "every random outcome recomputes" in result.stdout


@pytest.mark.slow
def test_any_changed_byte_fails_verify(bundle: Path) -> None:
    """Flipping any of many bytes (every 97th, and a random sample) makes the bundle fail."""
    data = bundle.read_bytes()
    rand = random.Random(6)
    spots = sorted(set(range(0, len(data), 97)) | set(rand.sample(range(len(data)), 150)))

    survivors = []
    for i in spots:
        for mask in (0x01, 0x20):
            damaged = bytearray(data)
            damaged[i] ^= mask
            if verify_bundle(bytes(damaged)).ok:
                survivors.append((i, mask))

    assert survivors == []


def test_a_changed_byte_fails_mn_verify_with_exit_4(bundle: Path, tmp_path: Path) -> None:
    """Through the CLI: a damaged bundle exits 4 and says what fails."""
    data = bytearray(bundle.read_bytes())
    data[len(data) // 2] ^= 0x01
    bad = tmp_path / "bad.json"
    bad.write_bytes(bytes(data))

    result = mn(tmp_path / "none.db", "verify", str(bad))

    assert result.exit_code == 4 and "dispute bundle FAILED" in result.stderr


def test_a_forged_bundle_with_a_recomputed_digest_still_fails(bundle: Path) -> None:
    """Editing the explanation and recomputing the digest: the derived parts disagree with the log."""
    import msgspec
    from msgspec.structs import replace

    from mncore.audits.dispute import Bundle, _digest, _encode
    b = msgspec.json.decode(bundle.read_bytes(), type=Bundle)
    explained = msgspec.json.decode(b.explanation) | {"text": "Nothing happened."}
    forged = replace(b, explanation=msgspec.Raw(msgspec.json.encode(explained)), digest="")
    data = _encode(replace(forged, digest=_digest(forged)))

    result = verify_bundle(data)

    assert not result.ok and result.failed == "the explanation is not what the log gives"


def test_dispute_refuses_an_event_beyond_the_log(played: tuple[Path, str], tmp_path: Path) -> None:
    """--at past the last event is bad input."""
    db, gid = played

    result = mn(db, "dispute", gid, "--at", "99999", "-o", str(tmp_path / "x.json"))

    assert result.exit_code == 2 and not (tmp_path / "x.json").exists()


def test_an_export_is_still_verified_as_an_export(played: tuple[Path, str], tmp_path: Path) -> None:
    """mn verify FILE on an export is unchanged by bundles."""
    db, gid = played
    out = tmp_path / "e.jsonl"
    mn(db, "export", gid, "-o", str(out))

    result = mn(tmp_path / "none.db", "verify", str(out))

    assert result.exit_code == 0 and "verified" in result.stdout
    assert transfer.parse_export(out.read_bytes(), "e")
