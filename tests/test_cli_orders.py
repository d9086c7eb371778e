"""mn order, options, export --as and friends through the CLI: exact outputs and exit codes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from both import IDS, SPECS, Spec
from mncli.cli import main

THREE = ["--empire", "rome", "--empire", "greece", "--empire", "carthage"]


def mn(db: Path, *args: str, input: str | None = None, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(main, ["--db", str(db), *args] if db else list(args), input=input, env=env)


@pytest.fixture()
def db(tmp_path: Path) -> Path:
    return tmp_path / "mn.db"


@pytest.fixture()
def game(db: Path) -> str:
    return mn(db, "new", *THREE, "--seed", "orders", "--id", "g", "--display", "experienced").stdout.strip()


def _events(db: Path, game: str) -> int:
    return len(json.loads(mn(db, "log", game, "--json").stdout))


@pytest.fixture(params=SPECS, ids=IDS)
def table(request: pytest.FixtureRequest, db: Path) -> Spec:
    """A new three-player game "g" of each ruleset, seed "orders"."""
    spec: Spec = request.param
    assert mn(db, "new", *spec.new, "--seed", "orders", "--id", "g").exit_code == 0
    return spec


def test_order_prints_the_events_it_caused(db: Path, table: Spec) -> None:
    """An accepted order prints each event it appended, numbered."""
    result = mn(db, "order", "g", "--as", table.side, table.legal)

    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == table.legal_line


def test_a_refused_order_exits_1_names_its_rule_and_writes_nothing(db: Path, table: Spec) -> None:
    """The first order from another side: refused under its section, exit 1, log unchanged."""
    before = _events(db, "g")

    result = mn(db, "order", "g", "--as", table.refused_side, table.legal)

    assert result.exit_code == 1
    assert result.stderr == f"Error: '{table.legal}': {table.refusal} [rule {table.section}]\n"
    assert _events(db, "g") == before == table.last_made


def test_one_refused_order_refuses_the_whole_batch_naming_its_number_and_text(db: Path, table: Spec) -> None:
    """Orders are decided together: the legal first is not written when the second is refused."""
    before = _events(db, "g")

    result = mn(db, "order", "g", "--as", table.side, table.legal, table.again)

    assert result.exit_code == 1
    assert result.stderr == f"Error: order 2 ('{table.again}'): {table.again_refusal}\n"
    assert _events(db, "g") == before


def test_orders_from_stdin_skip_blank_and_comment_lines(db: Path, table: Spec) -> None:
    """'-' reads one order per line."""
    result = mn(db, "order", "g", "--as", table.side, "-", input=f"# my turn\n\n{table.legal}\n")

    assert result.exit_code == 0 and result.stdout.splitlines()[0] == table.legal_line


def test_an_order_in_its_json_form_is_accepted(db: Path, table: Spec) -> None:
    """The JSON form equals the command Struct."""
    result = mn(db, "order", "g", "--as", table.side, table.json_legal)

    assert result.exit_code == 0 and result.stdout.splitlines()[0] == table.legal_line


def test_a_json_order_for_another_empire_is_bad_input(db: Path, table: Spec) -> None:
    """The JSON order's side must be the --as side."""
    result = mn(db, "order", "g", "--as", table.refused_side, table.json_legal)

    assert result.exit_code == 2 and result.stderr == f"Error: '{table.json_legal}': {table.json_side}\n"


def test_an_unknown_verb_is_bad_input_listing_the_orders(db: Path, table: Spec) -> None:
    """A malformed order is exit 2 and names the known orders."""
    result = mn(db, "order", "g", "--as", table.side, "sail away")

    assert result.exit_code == 2 and table.unknown_verb in result.stderr and "build" in result.stderr


def test_options_lists_legal_orders_that_order_accepts(db: Path) -> None:
    """mn options lists the Trade Leader's markers in a fair-play game; each is accepted."""
    fair = mn(db, "new", *THREE).stdout.strip()

    listed = mn(db, "options", fair, "--as", "carthage").stdout.splitlines()

    assert listed == ["trade 5", "trade 0", "trade 2", "trade 1", "trade 4", "trade 3"]
    assert mn(db, "options", fair, "--as", "rome").stdout == "Rome has nothing to order now.\n"
    assert mn(db, "order", fair, "--as", "carthage", listed[-1]).exit_code == 0


def _filled(option: dict[str, Any]) -> list[str]:
    """An option's order, or its template filled with the first and with the last of its parts."""
    if option["order"]:
        return [option["order"]]
    parts = option["parts"]
    return [option["template"].format(**{k: v[i] for k, v in parts.items()}) for i in (0, -1)]


def test_every_option_listed_is_an_order_check_accepts(db: Path, table: Spec) -> None:
    """mn options lists what the side to play may order, in every ruleset; each, filled in, is accepted;
    the side not to play has nothing to order but a sandbox's fixes (R7)."""
    options = json.loads(mn(db, "options", "g", "--as", table.side, "--json").stdout)
    lines = [line for o in options for line in _filled(o)]
    others = json.loads(mn(db, "options", "g", "--as", table.refused_side, "--json").stdout)

    assert lines
    for line in lines:
        assert mn(db, "check", "g", "--as", table.side, line).exit_code == 0, line
    assert [o for o in others if o["kind"] != "fix"] == []


def test_options_in_a_sandbox_list_the_outcomes_that_may_be_fixed(db: Path, game: str) -> None:
    """A seeded game is a sandbox (R7): every fix option listed, filled with its parts, is accepted."""
    options = json.loads(mn(db, "options", game, "--as", "rome", "--json").stdout)
    fixes = [o for o in options if o["kind"] == "fix"]

    assert {o["template"] for o in fixes} == {"fix dice {empire} {die}", "fix legendary {commodity}"}
    for o in fixes:
        line = o["template"].format(**{k: v[-1] for k, v in o["parts"].items()})
        assert mn(db, "order", game, "--as", "rome", line).exit_code == 0, line
    after = json.loads(mn(db, "options", game, "--as", "rome", "--json").stdout)
    assert any(o["order"] == "fix clear" for o in after)


def test_offers_are_hidden_from_others_in_views_logs_and_exports(db: Path, game: str) -> None:
    """Until revealed, Rome's offer shows in Rome's own view, log and export, not in Greece's (R4)."""
    mn(db, "order", game, "--as", "carthage", "trade 1")

    mn(db, "order", game, "--as", "rome", "offer wine")

    assert "Wine" in mn(db, "log", game, "--as", "rome", "--from", "9").stdout
    greek_log = mn(db, "log", game, "--as", "greece", "--from", "9").stdout
    assert "Rome placed 1 resource face down" in greek_log and "Wine" not in greek_log
    greek_view = json.loads(mn(db, "show", game, "--as", "greece", "--json").stdout)
    assert greek_view["trade"]["offers"]["rome"] == {"hidden": 1}
    export = mn(db, "export", game, "--as", "greece").stdout
    assert '"wine"' not in export.split("\n", 9)[-1] and '"redacted":true' in export
    assert '"wine"' in mn(db, "export", game).stdout.split("\n", 9)[-1]


def test_a_redacted_export_cannot_be_imported(db: Path, game: str, tmp_path: Path) -> None:
    """An export made for one empire withholds payloads, so it is not a log to import."""
    mn(db, "order", game, "--as", "carthage", "trade 1")
    mn(db, "order", game, "--as", "rome", "offer wine")
    path = tmp_path / "for-greece.jsonl"
    mn(db, "export", game, "--as", "greece", "-o", str(path))

    result = mn(tmp_path / "other.db", "import", str(path))

    assert result.exit_code == 2 and "made for greece" in result.stderr
    assert not (tmp_path / "other.db").exists()


def test_mn_db_environment_variable_names_the_database(tmp_path: Path) -> None:
    """MN_DB is used when --db is not given."""
    path = tmp_path / "env.db"

    made = CliRunner().invoke(main, ["new", *THREE], env={"MN_DB": str(path)})

    assert made.exit_code == 0 and path.exists()


def test_new_with_an_invalid_board_file_writes_nothing(tmp_path: Path) -> None:
    """mn new --board refuses a one-sided border with the place named, and creates no database."""
    from importlib import resources
    text = resources.files("mncore.rulesets.empires.data").joinpath("board.toml").read_text()
    first = text.index("\nborders = [", text.index("[[provinces]]"))
    board = tmp_path / "board.toml"
    board.write_text(text[:first] + '\nborders = ["sicilia", ' + text[first + len("\nborders = ["):])
    path = tmp_path / "none.db"

    result = mn(path, "new", *THREE, "--board", str(board))

    assert result.exit_code == 2 and "sicilia" in result.stderr and "borders" in result.stderr
    assert not path.exists()


def test_a_log_from_a_newer_ruleset_is_refused(db: Path, game: str, tmp_path: Path) -> None:
    """A log created under a newer ruleset version is not silently misread, even re-chained."""
    import msgspec
    from msgspec.structs import replace

    from mncore.games import lifecycle, transfer
    data = mn(db, "export", game).stdout_bytes
    header = msgspec.json.decode(data.split(b"\n")[0], type=transfer.ExportHeader)
    rows = transfer.parse_export(data, "x")[1]
    rows[0] = replace(rows[0], payload=rows[0].payload.replace('"ruleset_version":1,',
                                                               '"ruleset_version":99,'))
    out = []
    for r in lifecycle.rechain(rows, header.version):
        head = r.hash
        out.append(transfer.ExportLine(seq=r.seq, type=r.type, recorded_at=r.recorded_at, actor=r.actor,
                                      batch=r.batch, hash=head, payload=msgspec.Raw(r.payload.encode()),
                                      command=msgspec.Raw((r.command or "null").encode())))
    path = tmp_path / "newer.jsonl"
    path.write_bytes(b"\n".join([msgspec.json.encode(replace(header, head_hash=head)),
                                 *(msgspec.json.encode(x) for x in out)]) + b"\n")

    result = mn(tmp_path / "x.db", "import", str(path))

    assert result.exit_code == 2
    assert "newer than this engine's version 1; upgrade mn" in result.stderr
    assert not (tmp_path / "x.db").exists()
