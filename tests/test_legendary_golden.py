"""A recorded game with a Legendary City expansion, scripted players to a win: it replays and verifies exactly."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from click.testing import CliRunner

from golden import FIXTURES, PLAYERS, without_clock
from mncli.cli import main
from mncore.core.dice import seeded_secret
from mncore.games import lifecycle, reading, transfer, writing
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.board import load_board
from mncore.rulesets.empires.commands import CreateGame
from mncore.rulesets.empires.ids import Expansion
from mncore.rulesets.empires.players.autoplay import play_stored
from mncore.rulesets.empires.rules.setup import playable_empires
from mncore.rulesets.empires.seam import RULESET
from mncore.store import open_store

# name -> (expansions, seed, players, style): a game that fulfils objectives, passes and plays cards
GAMES: dict[str, tuple[tuple[Expansion, ...], str, int, str]] = {
    "ierusalem": (("ierusalem",), "1", 4, "general"),
    "ierusalem-syracusae": (("ierusalem", "syracusae"), "1", 4, "general"),
    # all three: Achilles and his Myrmidons, Helen, Greek Phalanxes, Siege Vessels, Cretan Archers
    "troia-ierusalem-syracusae": (("troia", "ierusalem", "syracusae"), "20", 4, "general"),
}


def fixture(name: str) -> Path:
    return FIXTURES / f"game-{name}.jsonl"


def play(db: Path, name: str) -> reading.Loaded:
    """Create and play the scripted game to its end, then reveal its secret."""
    expansions, seed, players, style = GAMES[name]
    board = load_board()
    cmd = CreateGame(board=board, players=dict(zip(playable_empires(board, players), PLAYERS)),
                     fair_play=False, expansions=expansions)
    secret = seeded_secret(seed)
    store = open_store(str(db), create=True)
    loaded = writing.create(store, RULESET, cmd, secret, f"golden-{name}")
    play_stored(store, loaded, secret, random.Random(seed), 20000, style=style)
    lifecycle.reveal(store, f"golden-{name}")
    return reading.load(store, f"golden-{name}")


def record(name: str, db: Path) -> None:
    loaded = play(db, name)
    assert loaded.state.winner is not None
    data = b"".join(line + b"\n" for line in transfer.export_lines(loaded))
    path = fixture(name)
    if not path.exists() or without_clock(path.read_bytes()) != without_clock(data):
        path.write_bytes(data)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_lc_a_recorded_game_with_expansions_imports_verifies_and_was_won(name: str, tmp_path: Path) -> None:
    """The fixture imports and verifies (every draw, cards included, recomputed); objectives were
    fulfilled, cards drawn, passed and played on the way to the win."""
    db = tmp_path / "g.db"
    runner = CliRunner()

    imported = runner.invoke(main, ["--db", str(db), "import", str(fixture(name))])
    verified = runner.invoke(main, ["--db", str(db), "verify", imported.stdout.strip()])

    assert imported.exit_code == 0, imported.output
    assert verified.exit_code == 0 and "every random outcome recomputes" in verified.stdout
    loaded = reading.load(open_store(str(db)), imported.stdout.strip())
    kinds = {type(RULESET.decode_event(r.payload)) for r in loaded.rows}
    assert loaded.state.winner is not None
    assert {ev.ObjectiveFulfilled, ev.BonusCardsDrawn, ev.BonusCardsPassed, ev.BonusCardPlayed} <= kinds
    if "troia" in name:  # Troia's heroes, War cards and Battle Victory markers were in play
        assert {ev.MyrmidonsBuilt, ev.BattleWon, ev.BattleCardReady} <= kinds


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(GAMES))
def test_lc_the_scripted_game_with_expansions_still_plays_exactly_as_recorded(
        name: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """Playing the same scripted game again gives the same events, commands and content hashes."""
    if request.config.getoption("--update-golden"):
        record(name, tmp_path / "record.db")

    loaded = play(tmp_path / "again.db", name)

    data = b"".join(line + b"\n" for line in transfer.export_lines(loaded))
    assert without_clock(data) == without_clock(fixture(name).read_bytes())
