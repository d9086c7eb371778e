"""mn show, draw, html and options of a player's own export, with no database (issues 25, 26)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import msgspec
import pytest
from click.testing import CliRunner

from mncli.cli import main
from mncore.client import exported
from mncore.games import by_mail, lifecycle, reading, transfer
from mncore.pbem import turns
from mncore.pictures import changes, pages
from mncore.secrecy import boundary
from mncore.store import open_store
from test_leaks import _normal, _offer_twins, mn

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
HASH = re.compile(r"\b[0-9a-f]{16,64}\b")  # a head hash, whole or cut to 16 (a commitment: random-looking)


def _hashless(text: str) -> str:
    return HASH.sub("H", _normal(text))


def _file_mn(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def _db_mn(db: Path, *args: str) -> tuple[int, str, str]:
    return _file_mn("--db", str(db), *args)


def _golden(tmp: Path, path: Path) -> Path:
    """A golden game in a database, in log format 2 (an output made for one side needs its salts)."""
    db = tmp / f"{path.stem}.db"
    store = open_store(str(db), create=True)
    header, rows = transfer.read_export(path.read_bytes(), str(path))
    transfer.import_game(store, header, rows, "g")
    if store.log_version("g") == 1:
        lifecycle.upgrade(store, "g")
    return db


def _export_at(db: Path, n: int, side: str, to: Path) -> tuple[reading.Loaded, Path]:
    """Side's own export of the game as it stood after event n, as the host would have mailed it then."""
    loaded = reading.load(open_store(str(db)), "g", n)
    to.write_bytes(b"".join(line + b"\n" for line in transfer.export_lines(loaded, viewer=side)))
    return loaded, to


GOLDEN = {"empires": FIXTURES / "game-6-2.jsonl", "classic": FIXTURES / "classic-7-1.jsonl"}


@pytest.fixture(scope="module", params=sorted(GOLDEN))
def golden_db(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _golden(tmp_path_factory.mktemp(request.param), GOLDEN[request.param])


def test_every_sides_board_from_its_export_is_the_hosts_at_every_event(golden_db: Path) -> None:
    """Of a whole golden game, each side's board folded from its own export (its public facts put in)
    is, at every event, the board the boundary shows it of the host's game, and no fold made of the
    events it sees alone would be: the public facts are needed and enough."""
    store = open_store(str(golden_db))
    revealed = next(r.seq for r in store.rows("g") if r.type == "SecretRevealed")
    loaded = reading.load(store, "g", revealed - 1)  # a game still running: its secret not out
    ruleset = loaded.ruleset
    real = [ruleset.named(s, "g") for s in turns.states(ruleset, loaded.rows, loaded.events)]
    for side in loaded.meta.sides:
        data = b"".join(line + b"\n" for line in transfer.export_lines(loaded, viewer=side))
        sg = exported.side_loaded(data, "x", transfer.verify_export(data, "x"))
        assert sg.facts, side
        enc = msgspec.json.encode
        for n, (have, want) in enumerate(zip(exported.states(sg), real, strict=True), start=1):
            assert (enc(boundary.seen_state(ruleset, have, side).value)
                    == enc(boundary.seen_state(ruleset, want, side).value)), (side, n)
        unset = msgspec.structs.replace(sg, facts={})
        assert any(enc(boundary.seen_state(ruleset, have, side).value)
                   != enc(boundary.seen_state(ruleset, want, side).value)
                   for have, want in zip(exported.states(unset), real, strict=True)), side


@pytest.mark.parametrize("part", [3, 2])
def test_show_draw_and_options_of_an_export_are_the_hosts_byte_for_byte(golden_db: Path, tmp_path: Path,
                                                                       part: int) -> None:
    """At a point of a golden game, mn show, mn show --json, mn draw (with --at and --since) and the
    options of a side's own export print what the host prints for that side from its database."""
    store = open_store(str(golden_db))
    n = store.head("g")[0] // part
    sides = reading.load(store, "g", n).meta.sides
    side = sides[part % len(sides)]
    loaded, path = _export_at(golden_db, n, side, tmp_path / "own.jsonl")
    file = str(path)

    assert _file_mn("show", file) == _db_mn(golden_db, "replay", "g", "--to", str(n), "--as", side)
    assert _file_mn("show", file, "--json") == _db_mn(golden_db, "replay", "g", "--to", str(n), "--as", side,
                                                      "--json")
    for extra in ([], ["--since", str(n - 9)]):
        host = _db_mn(golden_db, "draw", "g", "--at", str(n), "--as", side, *extra, "-o", "-")
        assert host[0] == 0 and _file_mn("draw", file, "--as", side, *extra, "-o", "-") == host
    earlier = _db_mn(golden_db, "draw", "g", "--at", str(n - 20), "--as", side, "-o", "-")
    assert _file_mn("draw", file, "--at", str(n - 20), "-o", "-") == earlier
    sg = exported.open_side(file)
    mine = exported.options(sg, exported.state_at(sg))
    hosts = boundary.options(loaded.ruleset, loaded.state, side)
    # a sandbox's `fix` orders name facts hidden from every side (the face-down tiles): an export,
    # which holds none of them, lists them as their stand-ins
    assert [o for o in mine if o.kind != "fix"] == [o for o in hosts if o.kind != "fix"]


def test_the_page_of_an_export_is_the_hosts_page_for_its_side(golden_db: Path, tmp_path: Path) -> None:
    """mn html of a side's own export is the host's page for that side (mn html --as), frames,
    sentences, explanations and verification alike."""
    store = open_store(str(golden_db))
    n = 60
    side = reading.load(store, "g", n).meta.sides[1]
    loaded, path = _export_at(golden_db, n, side, tmp_path / "own.jsonl")
    code, page, err = _file_mn("html", str(path), "-o", "-")

    assert (code, err) == (0, "")
    assert page == pages.game_page(loaded, side, transfer.verify_export(path.read_bytes(), str(path)))
    assert page.count("Verified: 60 events") == 1


def _empires_twins(tmp: Path) -> tuple[Path, Path, str, tuple[str, ...]]:
    twins = _offer_twins(tmp, 3, 11)
    assert twins is not None
    return twins[0], twins[1], twins[2], ("rome", "greece", "carthage")


def _classic_twins(tmp: Path) -> tuple[Path, Path, str, tuple[str, ...]]:
    from test_classic_leaks import _twin
    return _twin(tmp, "a", "offer tax wine"), _twin(tmp, "b", "offer oil wine"), "rome", ("rome", "greece", "carthage")


@pytest.mark.parametrize("make", [_empires_twins, _classic_twins], ids=["empires", "classic"])
def test_an_exports_pictures_are_the_same_for_twins_differing_in_a_hidden_offer(tmp_path: Path, make: Any) -> None:
    """Twin games differing only in one side's face-down offer: every other side's own export
    differs (the offer is committed in it), yet what mn show, draw, html and options make of it is
    the same byte for byte, but for hashes; the offerer's own differ."""
    a, b, offerer, sides = make(tmp_path)
    gid = "g" if make is _empires_twins else "t"
    for side in sides:
        files = []
        for db in (a, b):
            path = tmp_path / f"{db.stem}-{side}.jsonl"
            path.write_text(mn(db, "export", gid, "--as", side))
            files.append(str(path))
        made = [{"show": _file_mn("show", f), "show --json": _file_mn("show", f, "--json"),
                 "draw": _file_mn("draw", f, "-o", "-"), "draw --since": _file_mn("draw", f, "--since", "1", "-o", "-"),
                 "html": _file_mn("html", f, "-o", "-"), "options": _file_mn("options", f, "--json")}
                for f in files]
        assert Path(files[0]).read_text() != Path(files[1]).read_text()
        for name in made[0]:
            assert made[0][name][0] == 0, (side, name, made[0][name][2])
            if side != offerer:
                assert _hashless(made[0][name][1]) == _hashless(made[1][name][1]), (side, name)
        if side == offerer:  # its own offer, which it sees
            assert made[0]["show --json"] != made[1]["show --json"]


def test_after_an_undo_and_a_reveal_each_sides_export_board_is_the_hosts(tmp_path: Path) -> None:
    """Face-down offers, one taken back (K1) and made again, all revealed, then the last taken back with
    every side's consent (K2): at every event each side's board from its export is the host's for it."""
    db = tmp_path / "u.db"
    for args in (("new", "--empire", "rome", "--empire", "greece", "--empire", "carthage", "--seed", "orders",
                  "--id", "g", "--display", "experienced"),
                 ("order", "g", "--as", "carthage", "trade 3"), ("order", "g", "--as", "rome", "offer coin grain grain"),
                 ("undo", "g", "--as", "rome"), ("order", "g", "--as", "rome", "offer coin grain metal"),
                 ("order", "g", "--as", "greece", "offer coin coin coin"),
                 ("order", "g", "--as", "carthage", "offer coin gold gold"), ("undo", "g", "--as", "carthage"),
                 ("consent", "g", "--as", "rome", "--batch", "13"), ("consent", "g", "--as", "greece", "--batch", "13")):
        assert _db_mn(db, *args)[0] == 0, args
    loaded = reading.load(open_store(str(db)), "g")
    assert {"BatchUndone", "OffersRevealed"} <= {r.type for r in loaded.rows}
    ruleset = loaded.ruleset
    real = [ruleset.named(s, "g") for s in turns.states(ruleset, loaded.rows, loaded.events)]
    enc = msgspec.json.encode
    for side in ("rome", "greece", "carthage"):
        data = b"".join(line + b"\n" for line in transfer.export_lines(loaded, viewer=side))
        sg = exported.side_loaded(data, "x", transfer.verify_export(data, "x"))
        for n, (have, want) in enumerate(zip(exported.states(sg), real, strict=True), start=1):
            assert (enc(boundary.seen_state(ruleset, have, side).value)
                    == enc(boundary.seen_state(ruleset, want, side).value)), (side, n)


# --- refusals: each clear, non-zero, nothing on stdout -----------------------------------------------

@pytest.fixture(scope="module")
def own(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A golden Empires game and Greece's own export of its first 40 events."""
    tmp = tmp_path_factory.mktemp("own")
    db = _golden(tmp, GOLDEN["empires"])
    return db, _export_at(db, 40, "greece", tmp / "greece.jsonl")[1]


@pytest.mark.parametrize("cmd", [["show"], ["draw", "-o", "-"], ["html", "-o", "-"], ["options"]])
def test_an_edited_export_is_refused_by_each_command(own: tuple[Path, Path], tmp_path: Path,
                                                     cmd: list[str]) -> None:
    path = tmp_path / "edited.jsonl"
    lines = own[1].read_text().splitlines()
    lines[5] = lines[5].replace('"actor":"', '"actor":"x', 1)
    path.write_text("\n".join(lines) + "\n")

    assert _file_mn(cmd[0], str(path), *cmd[1:]) == (
        4, "", f"Error: event 5: {path} does not verify: its hash does not match its row (seq, type, actor, "
               "batch, time, command, payload) and the chain before it (edited or corrupted)\n")


def test_public_facts_that_name_no_part_of_the_state_are_refused(own: tuple[Path, Path], tmp_path: Path) -> None:
    """The public facts are outside the chain: edited to name no part of the state, they are refused."""
    path = tmp_path / "facts.jsonl"
    lines = own[1].read_text().splitlines()
    i = next(i for i, line in enumerate(lines) if '"public":' in line)
    doc = json.loads(lines[i])
    doc["public"] = [[["no_such_field"], 1]]
    lines[i] = json.dumps(doc, separators=(",", ":"))
    path.write_text("\n".join(lines) + "\n")

    assert _file_mn("show", str(path)) == (
        2, "", f"Error: {path}: event {doc['seq']}: its public facts are no part of the game's state (edited)\n")


@pytest.mark.parametrize("cmd", [["show"], ["draw", "-o", "-"], ["html", "-o", "-"], ["options"]])
def test_public_facts_that_break_the_board_are_refused(own: tuple[Path, Path], tmp_path: Path,
                                                      cmd: list[str]) -> None:
    """A fact edited into a board that no view reads (the empires a number) is told, not a traceback."""
    path = tmp_path / "broken.jsonl"
    lines = own[1].read_text().splitlines()
    i = max(i for i, line in enumerate(lines) if '"public":' in line)
    doc = json.loads(lines[i])
    doc["public"] = [[["empires"], 5]]
    lines[i] = json.dumps(doc, separators=(",", ":"))
    path.write_text("\n".join(lines) + "\n")

    assert _file_mn(cmd[0], str(path), *cmd[1:]) == (
        2, "", f"Error: {path}: its public facts make a board that cannot be read (edited)\n")


def test_a_huge_a_full_and_a_wrong_export_and_another_empire_are_refused(own: tuple[Path, Path],
                                                                       tmp_path: Path) -> None:
    db, path = own
    huge = tmp_path / "huge.jsonl"
    with huge.open("wb") as f:
        f.write(b"{")
        f.seek(exported.MAX_EXPORT + 1)
        f.write(b"\n")
    full = tmp_path / "full.jsonl"
    full.write_text(mn(db, "export", "g"))
    wrong = tmp_path / "wrong.jsonl"
    wrong.write_text('{"not": "an export"}\n')

    assert _file_mn("draw", str(huge), "-o", "-") == (
        2, "", f"Error: {huge}: over the 64 MiB limit on an export; not read\n")
    assert _file_mn("show", str(full)) == (
        2, "", f"Error: {full} is a full export (the host's, not made for one side): mn import it into a database\n")
    code, out, err = _file_mn("options", str(wrong))
    assert (code, out) == (2, "") and err.startswith(f"Error: {wrong}: line 1: not a mare-nostrum export header")
    assert _file_mn("html", str(path), "--as", "rome", "-o", "-") == (
        2, "", f"Error: {path} was made for Greece: it can be read only as that empire\n")
    assert _file_mn("draw", str(path), "--at", "41", "-o", "-") == (
        2, "", f"Error: --at 41: {path} holds events 1 to 40\n")
    assert _file_mn("draw", str(path), "--since", "40", "-o", "-") == (
        2, "", "Error: --since 40: must be an event before 40 (0 for the start)\n")


def test_the_export_in_a_report_mail_is_drawn_as_the_host_draws_it(tmp_path: Path) -> None:
    """mn draw of the report mail a player got: the picture of the export it carries."""
    twins = _offer_twins(tmp_path, 3, 11)
    assert twins is not None
    db = twins[0]
    mn(db, "mail", "address", "g", "rome", "ann@example.org")
    mail = tmp_path / "rome.eml"
    mn(db, "report", "g", "--as", "rome", "--format", "eml", "-o", str(mail), "--no-record")

    host = _db_mn(db, "draw", "g", "--as", "rome", "-o", "-")
    assert host[0] == 0 and _file_mn("draw", str(mail), "-o", "-") == host
    loaded = reading.load(open_store(str(db)), "g")
    assert re.sub(r"\s+", "", host[1]) == re.sub(r"\s+", "", changes.picture(loaded, "rome") or "")


def test_a_delta_report_is_drawn_and_shown_joined_to_the_export_kept(tmp_path: Path) -> None:
    """A served report carrying only the events since the player's last (a delta): refused alone,
    saying what to give; with --kept, shown and drawn as the host shows and draws them for that side."""
    from mncore.service import config as configs
    from mncore.service import policy
    from servegame import SIDES, new_game
    from servekit import USER
    db = tmp_path / "g.db"
    new_game(str(db), tmp_path / "keys")
    store = open_store(str(db))
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
    last = str(later.head[0])

    assert _file_mn("show", str(eml)) == (2, "", (
        f"Error: {eml}: this report carries your export's delta after event {before.head[0]} only: give --kept "
        "YOUR-EXPORT.jsonl (your export from before), or the Maildir holding your earlier reports\n"))
    assert _file_mn("show", str(eml), "--kept", str(kept)) == _db_mn(db, "replay", "g1", "--to", last, "--as", side)
    host = _db_mn(db, "draw", "g1", "--as", side, "-o", "-")
    assert host[0] == 0 and _file_mn("draw", str(eml), "--kept", str(kept), "-o", "-") == host
    assert _db_mn(db, "show", "g1", "--kept", str(kept)) == (
        2, "", "Error: --kept joins a report mail's delta to your export: give the mail as GAME\n")
