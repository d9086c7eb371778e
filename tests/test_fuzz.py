"""Every reader of hostile input, fuzzed: a clean refusal (exit 1, 2 or 4, one Error line) or success,
never an internal error, a traceback or a partial write."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mncli.cli import main
from mncore.audits.dispute import make_bundle, verify_bundle
from mncore.core.dice import Rng
from mncore.core.errors import MareNostrumError
from mncore.games import reading, transfer
from mncore.rulesets.empires.board import decode_board, load_board
from mncore.rulesets.empires.position import decode_position, write_position
from mncore.rulesets.empires.text import parse_order
from mncore.secrecy.boundary import as_host
from mncore.store import open_store

THREE = ["--empire", "rome", "--empire", "greece", "--empire", "carthage"]
FUZZ = settings(max_examples=60, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
FEW = settings(max_examples=15, deadline=None,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

HUGE = ["0", "1", "9", "10", "44", "45", "999", "1000", "2147483648", "9" * 40, "1" * 5000, "²", "٣",
        "-1", "1.5", "1e400", "0x10"]
WORDS = ["offer", "trade", "claim", "give", "build", "recruit", "move", "lose", "attack", "fix", "dice",
         "legion", "legions", "trireme", "triremes", "coin", "wine", "legendary", "legendary-wine", "in",
         "pay", "to", "from", "with", "at", "copy", "done", "nothing", "rome", "greece", "latium",
         "mare-nostrum", "caesar", "rome=5,4", "fortress", "keep", "builder", "perseus", "\"", "'",
         "{", "\udcff", "\x00"]


def mn(db: Path, *args: str, input: str | bytes | None = None) -> Result:
    return CliRunner().invoke(main, ["--db", str(db), *args], input=input)


def snapshot(db: Path) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]], list[tuple[object, ...]]]:
    """Every stored row: games, events and heads."""
    conn = sqlite3.connect(db)
    try:
        return (conn.execute("select * from games order by id").fetchall(),
                conn.execute("select * from events order by game_id, seq").fetchall(),
                conn.execute("select * from heads order by game_id").fetchall())
    finally:
        conn.close()


def clean(result: Result, allowed: tuple[int, ...] = (0, 1, 2, 4)) -> None:
    """Success, or a refusal with its documented code and one Error line; never a crash."""
    assert result.exit_code in allowed, (result.exit_code, result.output, result.exception)
    assert "Traceback" not in result.output
    if result.exception is not None:
        assert isinstance(result.exception, SystemExit), repr(result.exception)
    if result.exit_code != 0:
        # one Error line (mn verify states a failed check as "FILE: FAILED at event N: ...")
        errors = [line for line in result.stderr.splitlines()
                  if line.startswith("Error: ") or ": FAILED" in line]
        assert len(errors) == 1, result.stderr


class Made(tuple[Path, bytes]):
    """The database and the export, shown short in Hypothesis' reports."""

    def __repr__(self) -> str:
        return f"Made({self[0]})"


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, bytes]]:
    """A game in a checkpointed database, and its export."""
    db = tmp_path_factory.mktemp("fuzz") / "mn.db"
    result = mn(db, "new", *THREE, "--seed", "fuzz", "--id", "g", "--display", "experienced")
    assert result.exit_code == 0, result.output
    mn(db, "order", "g", "--as", "carthage", "trade 3")
    exported = mn(db, "export", "g").stdout_bytes
    conn = sqlite3.connect(db)
    conn.execute("pragma wal_checkpoint(truncate)")
    conn.close()
    yield Made((db, exported))


def copy_of(made: tuple[Path, bytes], tmp_path: Path, name: str) -> Path:
    target = tmp_path / name
    shutil.copy(made[0], target)
    return target


# --- the order grammar ---------------------------------------------------------------------------------

order_lines = st.lists(st.sampled_from(WORDS + HUGE) | st.text(max_size=8), min_size=1, max_size=8).map(" ".join)


@FUZZ
@given(line=order_lines, empire=st.sampled_from(["rome", "greece", "carthage"]))
def test_order_lines_parse_or_refuse(made: tuple[Path, bytes], line: str, empire: str) -> None:
    """Any order line is parsed and decided, or refused with an engine error."""
    store = open_store(str(made[0]))
    loaded = reading.load(store, "g")
    secret = store.secret("g")
    store.close()

    try:
        cmd = parse_order(line, loaded.state, empire)  # type: ignore[arg-type]
        loaded.ruleset.decide(loaded.state, cmd, Rng(bytes.fromhex(secret or ""), loaded.draw_head))
    except MareNostrumError:
        pass


numbers = st.one_of(st.integers(), st.integers(min_value=-10**60, max_value=10**60),
                    st.floats(allow_nan=False), st.sampled_from([2**63, -2**63 - 1, 10**40]))
json_orders = st.fixed_dictionaries({
    "type": st.sampled_from(["OfferResources", "MoveLegions", "BuildUnit", "PlayExchangeMarker",
                             "ChooseLosses", "FixOutcome", "Attack", "Nope"]),
    "empire": st.sampled_from(["carthage", "rome", "x"]),
}, optional={
    "count": numbers, "value": numbers, "legions": numbers,
    "tokens": st.lists(st.sampled_from(["wine", "coin", "legendary-wine", "x"]), max_size=5),
    "pay": st.dictionaries(st.sampled_from(["coin", "wine", "x"]), numbers, max_size=3),
    "from_province": st.just("latium"), "to_province": st.just("etruria"),
    "kind": st.sampled_from(["legion", "trireme"]), "place": st.just("latium"),
    "dice": st.dictionaries(st.just("rome"), st.lists(numbers, max_size=4), max_size=1),
})


@FUZZ
@given(doc=json_orders)
def test_json_orders_parse_or_refuse(made: tuple[Path, bytes], doc: dict[str, object]) -> None:
    """The JSON order form, with any number in any field, is decided or refused by an engine error."""
    store = open_store(str(made[0]))
    loaded = reading.load(store, "g")
    secret = store.secret("g")
    store.close()

    try:
        cmd = parse_order(json.dumps(doc), loaded.state, "carthage")
        loaded.ruleset.decide(loaded.state, cmd, Rng(bytes.fromhex(secret or ""), loaded.draw_head))
    except MareNostrumError:
        pass


@FEW
@given(line=order_lines, verb=st.sampled_from(["order", "check"]))
def test_order_lines_through_the_cli(made: tuple[Path, bytes], tmp_path: Path, line: str, verb: str) -> None:
    """mn order and mn check: a clean outcome, and nothing written when refused."""
    db = copy_of(made, tmp_path, "o.db")
    before = snapshot(db)

    result = mn(db, verb, "g", "--as", "carthage", line.replace("\x00", ""))

    clean(result)
    if result.exit_code != 0 or verb == "check":
        assert snapshot(db) == before


@pytest.mark.parametrize("line", ["offer 20000000 wine", "offer 2147483648 wine", "offer " + "9" * 40 + " wine"])
def test_a_huge_count_is_refused_at_once_naming_field_value_and_limit(made: tuple[Path, bytes], line: str) -> None:
    """Issue 10: the count is bounded by the supply before any list is made (exit 2, not 5)."""
    result = mn(made[0], "check", "g", "--as", "rome", line)

    assert result.exit_code == 2
    assert result.stderr.startswith("Error: offer count: ")
    assert "is more than 9 (the game has 9 wine)" in result.stderr


@pytest.mark.parametrize(("line", "message"), [
    ("move 9 legions latium to etruria", "legion count: 9 is more than 8 (an empire has 8 legions)"),
    ("move 6 triremes mare-nostrum to x", "trireme count: 6 is more than 5 (an empire has 5 triremes)"),
    ("lose 99 legions in latium", "legion count: 99 is more than 8"),
    ("build legion in latium pay 45 coin", "pay count: 45 is more than 44 (the game has 44 coins)"),
    ("offer 2 legendary wine", "offer count: 2 is more than 1 (the game has 1 legendary-wine)"),
    ("trade 1000", "trade VALUE: 1000 is more than 999"),
    ("trade ²", "trade takes a number, not '²'"),
])
def test_each_count_of_the_grammar_is_bounded(made: tuple[Path, bytes], line: str, message: str) -> None:
    """Units by the units an empire has, tokens by the supply, other numbers by a ceiling."""
    result = mn(made[0], "check", "g", "--as", "carthage", line)

    assert result.exit_code == 2, result.output
    assert message in result.stderr


# --- positions and boards -------------------------------------------------------------------------------

def _mutations(text: str) -> st.SearchStrategy[str]:
    spots = [m.span() for m in re.finditer(r"-?\d+", text)]
    replace_number = st.tuples(st.sampled_from(spots), st.sampled_from(HUGE + ["inf", "nan", "-9" * 30])).map(
        lambda s: text[:s[0][0]] + s[1] + text[s[0][1]:])
    cut = st.integers(0, len(text)).map(lambda n: text[:n])
    insert = st.tuples(st.integers(0, len(text)), st.text(max_size=6) | st.sampled_from(["[[", "= [", "\"\\"])).map(
        lambda s: text[:s[0]] + s[1] + text[s[0]:])
    return replace_number | cut | insert


@pytest.fixture(scope="module")
def position_text(made: tuple[Path, bytes]) -> str:
    store = open_store(str(made[0]))
    text = write_position(as_host(reading.load(store, "g").state))
    store.close()
    return text


@FUZZ
@given(data=st.data())
def test_position_files_read_or_refuse(position_text: str, data: st.DataObject) -> None:
    """A position file, edited anywhere or replaced by noise, is read or refused with DataError."""
    raw = data.draw(_mutations(position_text).map(lambda t: t.encode("utf-8", "surrogatepass"))
                    | st.binary(max_size=200))

    try:
        decode_position(raw, "p.toml")
    except MareNostrumError as err:
        assert err.exit_code == 2


@FEW
@given(data=st.data())
def test_mn_new_from_a_hostile_position_writes_nothing(position_text: str, tmp_path: Path,
                                                        data: st.DataObject) -> None:
    """mn new --position with an edited file: a game, or a refusal that creates no database."""
    edited = data.draw(_mutations(position_text))
    path = tmp_path / "p.toml"
    path.write_bytes(edited.encode("utf-8", "surrogatepass"))
    db = tmp_path / "n.db"
    db.unlink(missing_ok=True)

    result = mn(db, "new", "--position", str(path), "--seed", "x")

    clean(result, (0, 2))
    if result.exit_code != 0:
        assert not db.exists()


@pytest.mark.slow
@FEW
@given(data=st.data())
def test_board_files_read_or_refuse(tmp_path: Path, data: st.DataObject) -> None:
    """A board file, edited anywhere or replaced by noise, is read or refused with DataError."""
    board = Path(load_board.__code__.co_filename).parent / "data" / "board.toml"
    raw = data.draw(_mutations(board.read_text()).map(lambda t: t.encode("utf-8", "surrogatepass"))
                    | st.binary(max_size=200))

    try:
        decode_board(raw, "b.toml")
        path = tmp_path / "b.toml"
        path.write_bytes(raw)
        load_board(str(path))
    except MareNostrumError as err:
        assert err.exit_code == 2


# --- exports and bundles --------------------------------------------------------------------------------

def _export_edits(data: bytes) -> st.SearchStrategy[bytes]:
    text = data.decode()
    lines = text.splitlines()
    numbers_edit = st.tuples(st.sampled_from([m.span() for m in re.finditer(r"\d+", text)]),
                             st.sampled_from(HUGE + ["-5", "1.0", "true", "null"])).map(
        lambda s: (text[:s[0][0]] + s[1] + text[s[0][1]:]).encode())
    swap = st.tuples(st.integers(0, len(lines) - 1), st.integers(0, len(lines) - 1)).map(
        lambda ij: "\n".join(_swapped(lines, *ij)).encode())
    flip = st.tuples(st.integers(0, len(data) - 1), st.integers(0, 255)).map(
        lambda s: data[:s[0]] + bytes([s[1]]) + data[s[0] + 1:])
    return numbers_edit | swap | flip | st.integers(0, len(data)).map(lambda n: data[:n])


def _swapped(lines: list[str], i: int, j: int) -> list[str]:
    out = list(lines)
    out[i], out[j] = out[j], out[i]
    return out


@FUZZ
@given(data=st.data())
def test_exports_verify_or_refuse(made: tuple[Path, bytes], data: st.DataObject) -> None:
    """An export, edited or replaced by noise, verifies or is refused (DataError 2, Integrity 4)."""
    raw = data.draw(_export_edits(made[1]) | st.binary(max_size=300))

    for reader in (transfer.verify_export, transfer.check_import):
        try:
            reader(raw, "e.jsonl")
        except MareNostrumError as err:
            assert err.exit_code in (2, 4)


@FEW
@given(data=st.data())
def test_mn_import_and_verify_of_a_hostile_export(made: tuple[Path, bytes], tmp_path: Path,
                                                  data: st.DataObject) -> None:
    """mn verify FILE and mn import FILE: clean outcomes; a refused import writes nothing."""
    raw = data.draw(_export_edits(made[1]))
    path = tmp_path / "e.jsonl"
    path.write_bytes(raw)
    db = copy_of(made, tmp_path, "i.db")
    before = snapshot(db)

    clean(mn(db, "verify", str(path)))
    result = mn(db, "import", str(path), "--as", "copy")

    clean(result, (0, 2, 4))
    if result.exit_code != 0:
        assert snapshot(db) == before


def test_a_huge_integer_in_an_export_is_refused_naming_its_line(made: tuple[Path, bytes]) -> None:
    """A 40-digit batch is bad input (exit 2) before it reaches SQLite's 64-bit integers."""
    lines = made[1].decode().splitlines()
    lines[1] = re.sub(r'"batch":\d+', '"batch":' + "9" * 40, lines[1])

    with pytest.raises(MareNostrumError) as caught:
        transfer.check_import("\n".join(lines).encode(), "e.jsonl")

    assert caught.value.exit_code == 2
    assert "line 2: batch: 999999999999999999999999… is out of bounds" in caught.value.message


@pytest.mark.slow
@FEW
@given(data=st.data())
def test_dispute_bundles_verify_or_fail(made: tuple[Path, bytes], data: st.DataObject) -> None:
    """A dispute bundle, edited anywhere, is verified or fails its check; never a crash."""
    store = open_store(str(made[0]))
    bundle = make_bundle("g", store.rows("g"), 3, store.log_version("g"))
    store.close()
    raw = data.draw(_export_edits(bundle) | st.binary(max_size=200))

    verify_bundle(raw)


# --- names, databases and -o ----------------------------------------------------------------------------

names = st.text(max_size=12) | st.sampled_from(["", "-", "rome", "Rome", "r", "car", "x" * 300, "²", "g\x00"])


@FEW
@given(name=names, where=st.sampled_from(["status", "as", "ruleset", "rules", "type", "replay"]))
def test_name_arguments_are_found_or_refused(made: tuple[Path, bytes], name: str, where: str) -> None:
    """A game id, an empire, a ruleset, a rule section or an event type: found or refused (exit 2)."""
    name = name.replace("\x00", "")
    args = {"status": ["status", name], "as": ["show", "g", "--as", name],
            "ruleset": ["rules", "--ruleset", name], "rules": ["rules", name],
            "type": ["log", "g", "--type", name], "replay": ["replay", "g", "--to", name]}[where]

    clean(mn(made[0], *args))


@FEW
@given(cut=st.integers(0, 20000), noise=st.binary(max_size=64))
def test_a_damaged_database_is_refused(made: tuple[Path, bytes], tmp_path: Path, cut: int,
                                       noise: bytes) -> None:
    """A truncated or overwritten database file: exit 2 or 4, never a crash."""
    data = made[0].read_bytes()
    db = tmp_path / "bad.db"
    db.write_bytes(data[:cut] + noise + data[cut + len(noise):] if noise else data[:cut])

    for args in (["games"], ["status", "g"], ["verify", "g"], ["order", "g", "--as", "carthage", "offer wine"]):
        clean(mn(db, *args), (0, 1, 2, 4))


@pytest.mark.parametrize("edit", [
    "insert or replace into salts values ('g', 2, '{not json')",
    "update events set actor = cast(x'ff' as text) where seq = 2",
])
def test_a_damaged_cell_is_refused(made: tuple[Path, bytes], tmp_path: Path, edit: str) -> None:
    """A cell overwritten with what no engine wrote (malformed salts, bytes that are not UTF-8):
    exit 2 naming the database, never a crash."""
    db = copy_of(made, tmp_path, "cell.db")
    conn = sqlite3.connect(db)
    conn.execute("create table if not exists salts (game_id text, seq integer, salts text, "
                 "primary key (game_id, seq))")
    conn.execute(edit)
    conn.commit()
    conn.close()

    result = mn(db, "verify", "g")

    assert result.exit_code == 2, result.output
    assert "cell.db" in result.stderr or "damaged" in result.stderr


@pytest.mark.parametrize("edit", [
    "insert into games (id, created_at) values (NULL, NULL)",  # hypothesis: a page cut, a cell zeroed
    "update games set created_at = NULL",
])
def test_a_game_row_without_its_id_or_time_is_refused(made: tuple[Path, bytes], tmp_path: Path, edit: str) -> None:
    """A games row left without its id or creation time (a damaged page, a hand edit): every command
    that lists games exits 2 naming the database, never an internal error."""
    db = copy_of(made, tmp_path, "nullgame.db")
    conn = sqlite3.connect(db)
    conn.execute(edit)
    conn.commit()
    conn.close()

    for args in (["games"], ["status", "nope"]):
        result = mn(db, *args)
        clean(result, (2,))
        assert "nullgame.db" in result.stderr


def test_a_database_that_is_a_directory_is_refused(tmp_path: Path) -> None:
    """--db naming a directory: exit 2."""
    result = mn(tmp_path, "games")

    assert result.exit_code == 2


@pytest.mark.parametrize("command", [["export", "g"], ["position", "g"], ["dispute", "g", "--at", "3"]])
def test_o_onto_the_database_is_refused_before_anything_is_written(made: tuple[Path, bytes], tmp_path: Path,
                                                                   command: list[str]) -> None:
    """-o naming the database, by any path, is refused (exit 2) and the database is intact."""
    db = copy_of(made, tmp_path, "self.db")
    before = snapshot(db)

    result = mn(db, *command, "-o", str(tmp_path / "." / "self.db"))

    assert result.exit_code == 2
    assert "is the database file" in result.stderr
    assert snapshot(db) == before


def test_o_into_a_missing_directory_is_refused_and_leaves_nothing(made: tuple[Path, bytes], tmp_path: Path) -> None:
    """An unwritable -o path: exit 2 with its reason; no file and no temporary file left behind."""
    result = mn(made[0], "export", "g", "-o", str(tmp_path / "missing" / "e.jsonl"))

    assert result.exit_code == 2
    assert "No such file or directory" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_o_writes_whole_files_through_a_rename(made: tuple[Path, bytes], tmp_path: Path) -> None:
    """The export written by -o is the export on stdout, and no temporary file stays beside it."""
    result = mn(made[0], "export", "g", "-o", str(tmp_path / "e.jsonl"))

    assert result.exit_code == 0
    assert (tmp_path / "e.jsonl").read_bytes() == made[1]
    assert [p.name for p in tmp_path.iterdir()] == ["e.jsonl"]


# --- the schema, created once by whoever comes first ----------------------------------------------------

@pytest.mark.slow
def test_eight_mn_new_at_once_on_a_missing_file_all_succeed(tmp_path: Path) -> None:
    """Eight processes create the schema and a game each at the same moment: eight games, all verified."""
    db = tmp_path / "race.db"
    procs = [subprocess.Popen([sys.executable, "-m", "mncli", "--db", str(db), "new", *THREE,
                               "--seed", f"s{i}", "--id", f"g{i}"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE) for i in range(8)]
    outcomes = [(p.wait(timeout=120), p.stderr.read().decode() if p.stderr else "") for p in procs]

    assert [code for code, _ in outcomes] == [0] * 8, outcomes
    games = mn(db, "games", "--json")
    assert sorted(g["id"] for g in json.loads(games.stdout)) == [f"g{i}" for i in range(8)]
    for i in range(8):
        assert mn(db, "verify", f"g{i}").exit_code == 0
