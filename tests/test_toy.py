"""The toy ruleset (tests/toy) played through mn: the kernel and CLI carry a game that is not Empires."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from mncli.cli import main
from mncore.core.dice import GENESIS_HASH, Rng, seeded_secret
from mncore.core.errors import RuleViolation
from mncore.store import open_store
from toy import RULESET as TOY
from toy.model import AnyEvent, ClashFought, GameCreated, Options, PhaseBegan, ReserveDrawn, State, UnitMustered, evolve
from toy.rules import decide_order
from toy.text import parse_order


def mn(db: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["--db", str(db), *args])


def doc(db: Path, *args: str) -> Any:
    result = mn(db, *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture()
def db(tmp_path: Path) -> Path:
    return tmp_path / "toy.db"


@pytest.fixture()
def game(db: Path) -> str:
    result = mn(db, "new", "--ruleset", "toy", "--empire", "red", "--empire", "blue",
                "--player", "red=Ann", "--player", "blue=Ben", "--seed", "toy", "--id", "t1")
    assert result.exit_code == 0, result.output
    return result.stdout.strip()


def play_to_a_win(db: Path, game: str) -> list[str]:
    """Each awaited side musters towards the other's home while it can, and fights its clashes."""
    given: list[str] = []
    for _ in range(40):
        status = doc(db, "status", game)
        if status["winner"]:
            return given
        side = status["pending"][0]["side"]
        lines = [o["order"] for o in doc(db, "options", game, "--as", side)]
        musters = [ln for ln in lines if ln.startswith("muster")]
        line = (musters[-1] if side == "red" else musters[0]) if musters else lines[0]
        result = mn(db, "order", game, "--as", side, line)
        assert result.exit_code == 0, result.output
        given.append(f"{side}: {line}")
    raise AssertionError(f"no winner after {given}")


def test_new_creates_a_toy_game_and_status_says_who_acts(db: Path, game: str) -> None:
    """mn new --ruleset toy records the toy's id; mn status and mn options speak the toy's words."""
    status = mn(db, "status", game)
    options = mn(db, "options", game, "--as", "Red")

    assert game == "t1"
    assert status.stdout == ("Game t1: round 1, muster phase\n"
                             "NOT a fair-play game: its secret is known (seed) or it is a sandbox.\n"
                             "Waiting for:\n"
                             "  Red: muster — muster a unit or pass\n")
    assert options.stdout == "muster hill\nmuster ford\npass\n"
    assert json.loads(open_store(str(db)).rows(game)[0].payload)["ruleset_id"] == "toy-2026"


def test_a_toy_game_plays_to_a_win_reveals_verifies_exports_and_imports(db: Path, game: str,
                                                                        tmp_path: Path) -> None:
    """Orders to a win, then reveal, verify (every draw recomputed), export, import elsewhere, verify."""
    given = play_to_a_win(db, game)
    status = mn(db, "status", game)
    reveal = mn(db, "reveal", game)
    verify = mn(db, "verify", game)
    export = mn(db, "export", game, "-o", str(tmp_path / "t1.jsonl"))
    other = tmp_path / "other.db"
    imported = mn(other, "import", str(tmp_path / "t1.jsonl"))
    verify_file = mn(other, "verify", str(tmp_path / "t1.jsonl"))
    verify_imported = mn(other, "verify", "t1")

    assert any(": clash " in g for g in given)
    assert "Over: " in status.stdout and " won (rule toy:4." in status.stdout
    assert reveal.exit_code == 0 and "secret was revealed" in reveal.stdout
    assert verify.exit_code == 0, verify.output
    assert "every random outcome recomputes" in verify.stdout
    # the creation, every order and the reveal
    assert f"{len(given) + 2} commands decided again" in verify.stdout
    assert export.exit_code == 0 and imported.stdout == "t1\n"
    assert verify_file.exit_code == 0 and verify_imported.exit_code == 0
    assert mn(other, "export", "t1").stdout == (tmp_path / "t1.jsonl").read_text()


def test_another_sides_reserve_is_hidden_from_a_side(db: Path, game: str) -> None:
    """A reserve is face down: Blue's log, view and export withhold Red's count; the host sees both."""
    red_count = doc(db, "show", game)["reserves"]["red"]
    blue_sees = doc(db, "show", game, "--as", "blue")["reserves"]

    assert isinstance(red_count, int)
    assert blue_sees["red"] is None and isinstance(blue_sees["blue"], int)
    assert "Red drew a face-down reserve" in mn(db, "log", game, "--as", "blue").stdout
    assert f"Red drew a reserve of {red_count}" in mn(db, "log", game).stdout
    assert '"redacted":true' in mn(db, "export", game, "--as", "blue").stdout


def test_an_illegal_order_is_refused_citing_the_toys_rules_and_nothing_is_written(
        db: Path, game: str) -> None:
    """Blue out of turn: exit 1, [rule toy:2.1], the log unchanged."""
    before = open_store(str(db)).head(game)

    result = mn(db, "order", game, "--as", "blue", "muster ford")

    assert result.exit_code == 1
    assert result.stderr == ("Error: 'muster ford': it is Red's turn to muster, not Blue's "
                             "[rule toy:2.1]\n")
    assert open_store(str(db)).head(game) == before


def test_a_malformed_order_is_refused_with_the_toys_grammar(db: Path, game: str) -> None:
    """An order the toy cannot read exits 2 and shows its grammar."""
    result = mn(db, "order", game, "--as", "red", "march hill")

    assert result.exit_code == 2
    assert "expected muster PROVINCE | pass | clash PROVINCE" in result.stderr


def test_a_tampered_export_is_refused(db: Path, game: str, tmp_path: Path) -> None:
    """An export whose event was edited fails verification and import, naming the line."""
    mn(db, "order", game, "--as", "red", "muster ford")
    path = tmp_path / "t1.jsonl"
    mn(db, "export", game, "-o", str(path))
    path.write_text(path.read_text().replace('"province":"ford"', '"province":"hill"'))

    verify = mn(db, "verify", str(path))
    imported = mn(tmp_path / "other.db", "import", str(path))

    assert verify.exit_code == 4 and "FAILED at event 5" in verify.stderr
    assert imported.exit_code == 2 and "line 6: event 5 hash does not match" in imported.stderr


def test_new_with_an_unknown_ruleset_lists_the_known_ones(db: Path) -> None:
    """mn new --ruleset nosuch exits 2 naming every ruleset this engine knows."""
    result = mn(db, "new", "--ruleset", "nosuch")

    assert result.exit_code == 2
    assert result.stderr == ("Error: unknown ruleset 'nosuch'; this engine knows: "
                             "classic (mare-nostrum-classic-2003), empires (mare-nostrum-empires-2016), "
                             "toy (toy-2026)\n")
    assert not db.exists()


def test_a_log_created_under_an_unknown_ruleset_is_refused(db: Path, game: str,
                                                          tmp_path: Path) -> None:
    """An export whose GameCreated names a ruleset this engine lacks is refused with the known ones."""
    from mncore.games import lifecycle, reading, transfer
    from mncore.store import Row, open_store
    loaded = reading.load(open_store(str(db)), game)
    first = TOY.encode_event(loaded.events[0]).decode().replace("toy-2026", "chess-1475")
    rows = lifecycle.rechain([Row(seq=1, type="GameCreated", payload=first, recorded_at="x", actor="host",
                                batch=1, hash="", command=None)], 2)
    path = tmp_path / "chess.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in transfer.export_lines(reading.Loaded(
        game_id="c1", ruleset=TOY, version=2, rows=rows, events=loaded.events[:1], state=loaded.state,
        draw_head="", kernel=loaded.kernel))))

    imported = mn(tmp_path / "other.db", "import", str(path))
    verify = mn(db, "verify", str(path))

    assert imported.exit_code == 2
    assert ("created under ruleset 'chess-1475', which this engine does not know (this engine "
            "knows: classic (mare-nostrum-classic-2003), empires (mare-nostrum-empires-2016), "
            "toy (toy-2026)); refusing to read it"
            in imported.stderr)
    assert verify.exit_code == 4 and "chess-1475" in verify.stderr


def test_the_toys_audit_tools_are_refused_plainly(db: Path, game: str) -> None:
    """A ruleset without positions, maps or a demo gets a sentence, not a crash."""
    assert mn(db, "position", game).stderr.startswith("Error: Toy (two sides, three provinces) "
                                                       "offers no positions")
    assert mn(db, "map", "show", "--ruleset", "toy").exit_code == 2
    assert mn(db, "demo", "--ruleset", "toy").exit_code == 2


def test_rules_prints_the_toys_index_and_rulings(db: Path) -> None:
    """mn rules --ruleset toy lists its sections; a citation toy:R1 prints the ruling."""
    index = mn(db, "rules", "--ruleset", "toy")
    ruling = mn(db, "rules", "toy:R1")

    assert "  2.1                  Muster: each side in turn" in index.stdout
    assert ruling.stdout.startswith("## R1 — Several clashes in one round")


def test_a_fork_of_a_toy_game_is_a_sandbox(db: Path, game: str) -> None:
    """mn fork copies the toy's first events under a new secret and marks it as a sandbox."""
    mn(db, "order", game, "--as", "red", "muster ford")

    fork = mn(db, "fork", game, "--at", "5", "--as", "t2", "--seed", "other")
    order = mn(db, "order", "t2", "--as", "blue", "muster ford")
    verify = mn(db, "verify", "t2")

    assert fork.stdout == "t2\n" and order.exit_code == 0
    assert verify.exit_code == 0 and "events 1 to 5 were copied" in verify.stdout


def test_every_section_the_toy_cites_is_in_its_rulebook() -> None:
    """Each require(..., section, ...) of the toy names a section or ruling of its own index."""
    source = (Path(__file__).parent / "toy" / "rules.py").read_text()
    cited = re.findall(r'require\([^;]*?, "([^"]+)",', source, re.DOTALL)

    assert {"1.1", "2.1", "2.2", "2.3", "3.1", "3.2", "R1", "game"} <= set(cited)
    assert [c for c in cited if not TOY.rulebook.citable(c)] == []


# --- the toy's rules, in memory --------------------------------------------------------------------

class Dice(Rng):
    """Dice that show the faces given, in order."""

    def __init__(self, *faces: int) -> None:
        super().__init__(seeded_secret("dice"), GENESIS_HASH)
        self.faces = list(faces)

    def roll(self, faces: Any) -> Any:
        return self.faces.pop(0)


def given(*events: AnyEvent) -> State:
    state: State = TOY.initial("")
    for e in events:
        state = evolve(state, e)
    return state


START: tuple[AnyEvent, ...] = (
    GameCreated(ruleset_id="toy-2026", ruleset_version=1, sides=("red", "blue"),
                players={"red": "Ann", "blue": "Ben"}, options=Options(), commitment=""),
    ReserveDrawn(side="red", count=3), ReserveDrawn(side="blue", count=3),
    PhaseBegan(round=1, phase="muster"))


def test_R1_clashes_are_fought_in_board_order() -> None:
    """With Ford and Marsh both contested, a clash in Marsh waits for the one in Ford."""
    state = given(*START, UnitMustered(side="red", province="ford"),
                  UnitMustered(side="blue", province="ford"),
                  PhaseBegan(round=1, phase="clash"),
                  ClashFought(province="ford", rolls={"red": 6, "blue": 1}, winner="red"),
                  PhaseBegan(round=2, phase="muster"), UnitMustered(side="red", province="marsh"),
                  UnitMustered(side="blue", province="ford"), PhaseBegan(round=2, phase="clash"))

    with pytest.raises(RuleViolation) as refused:
        decide_order(state, parse_order("clash marsh", "red"), Dice(1, 1))

    assert state.contested() == ["ford", "marsh"]
    assert refused.value.section == "R1"
    assert str(refused.value) == "the clash in Ford is fought first [rule R1]"


def test_R2_a_tied_clash_leaves_the_province_to_its_holder() -> None:
    """Equal totals: the holder keeps the province, and the event cites the ruling."""
    state = given(*START, UnitMustered(side="red", province="ford"),
                  UnitMustered(side="blue", province="ford"),
                  PhaseBegan(round=1, phase="clash"))

    events = decide_order(state, parse_order("clash ford", "red"), Dice(3, 3))

    assert events[0] == ClashFought(province="ford", rolls={"red": 3, "blue": 3}, winner="red",
                                    ruling="R2")


def test_4_1_holding_all_three_provinces_wins_at_the_round_end() -> None:
    """Red, holding Hill and Ford, wins Marsh's clash and with it the game."""
    state = given(*START, UnitMustered(side="red", province="ford"),
                  UnitMustered(side="blue", province="hill"),
                  PhaseBegan(round=1, phase="clash"),
                  ClashFought(province="hill", rolls={"red": 6, "blue": 1}, winner="red"),
                  PhaseBegan(round=2, phase="muster"), UnitMustered(side="red", province="marsh"),
                  UnitMustered(side="blue", province="marsh"), PhaseBegan(round=2, phase="clash"))

    events = decide_order(state, parse_order("clash marsh", "red"), Dice(6, 1))
    after = state
    for e in events:
        after = evolve(after, e)

    assert after.winner is not None and after.winner.sides == ("red",)
    assert after.winner.condition == "4.1"
