"""Seats (issue 28, ruling K14): the host hands a side's seat to a bot and back; the bot answers when the
side must decide (after any command, under mn tick and mn serve), recorded as its own and verified."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from click.testing import CliRunner

from mncli.cli import main
from mncore.core.errors import RuleViolation
from mncore.core.kernel_acts import BotOrders, StandingOrder
from mncore.games import by_mail, lifecycle, reading
from mncore.pbem import seats, turns
from mncore.rulesets import players_by_id
from mncore.store import open_store
from servegame import new_game, write_config

ROOT = Path(__file__).resolve().parent.parent
SIDES = ("rome", "greece", "carthage")
SEATED = ("The host handed Carthage's seat to a bot (heuristic, budget 1): it answers Carthage's decisions "
          "from what Carthage may see (ruling K14).")
BACK = "The host handed Carthage's seat to Cat, who decides for it (ruling K14)."


def run(db: Path, *args: str) -> Any:
    return CliRunner().invoke(main, ["--db", str(db), *args])


def mn(db: Path, *args: str) -> str:
    result = run(db, *args)
    assert result.exit_code == 0, (args, result.output)
    return str(result.stdout)


def _new(db: Path) -> Path:
    mn(db, "new", "--empire", "rome", "--empire", "greece", "--empire", "carthage", "--seed", "leak", "--id", "G")
    return db


@pytest.fixture
def no_chooser(monkeypatch: pytest.MonkeyPatch) -> None:
    """A chooser registry of the test's own: _no_bots() empties it, every mn command registers one."""
    monkeypatch.setattr(seats, "_chooser", [])


def _no_bots() -> None:
    """No program that plays bots is running: a bot's seat waits."""
    seats._chooser.clear()


# --- mn seat: exact output and exit codes -------------------------------------------------------------------

def test_a_seat_handed_to_a_bot_answers_at_once_and_is_handed_back(tmp_path: Path) -> None:
    """Carthage, the Trade Leader, must decide: its bot answers in the same command, and again as trading
    starts; handed back to Cat, the game waits for Carthage again. The game verifies."""
    db = _new(tmp_path / "g.db")

    out = mn(db, "seat", "G", "carthage", "--bot", "heuristic").splitlines()
    back = mn(db, "seat", "G", "carthage", "--player", "Cat").splitlines()

    assert out[:4] == [f"    7  {SEATED}",
                       "    8  [bot heuristic, budget 1] Carthage, the Trade Leader, plays the exchange marker for 4.",
                       "    9  Trading: Rome, Greece, Carthage take part; Carthage claims first.",
                       "   10  [bot heuristic, budget 1] Carthage offered 1 Coin, 1 Gold, 2 Oil face down."]
    assert out[4].startswith("Receipt: game G, event 10, head ") and len(out) == 5
    assert back[0] == f"   11  {BACK}" and back[1].startswith("Receipt: game G, event 11, head ")
    rows = open_store(str(db)).rows("G")
    assert [r.actor for r in rows[6:]] == ["host", "bot:heuristic:1", "bot:heuristic:1", "bot:heuristic:1", "host"]
    assert json.loads(rows[7].command or "")["orders"] == ["trade 4"]
    assert lifecycle.verify_game(open_store(str(db)), "G").ok


@pytest.mark.parametrize("args,code,message", [
    (("G", "egypt", "--bot", "heuristic"), 2,
     "Error: Egypt is not in this game; the empires in play: Rome, Greece, Carthage\n"),
    (("G", "carthage"), 2, "Error: give --bot LEVEL or --player NAME: who takes the seat?\n"),
    (("G", "carthage", "--bot", "search", "--player", "Cat"), 2,
     "Error: give --bot LEVEL or --player NAME: who takes the seat?\n"),
    (("G", "carthage", "--player", "Cat", "--budget", "3"), 2,
     "Error: --budget is a bot's: give it with --bot LEVEL\n"),
    (("G", "carthage", "--player", " Cat"), 2,
     "Error: a player's name is 1 to 100 printable characters, on one line, with no budget\n"),
    (("G", "carthage", "--player", "Carthage"), 1,
     "Error: Carthage's seat is already held by Carthage [rule kernel:K14]\n"),
    (("H", "carthage", "--bot", "heuristic"), 2, None),
])
def test_mn_seat_refuses_bad_input_with_a_sentence_and_writes_nothing(tmp_path: Path, args: tuple[str, ...],
                                                                      code: int, message: str | None) -> None:
    """A side not in the game, no holder or two, a budget without a bot, a blank name, a seat already so
    held, an unknown game: the exit code and one sentence; the log is left as it was."""
    db = _new(tmp_path / "g.db")
    before = len(open_store(str(db)).rows("G"))

    result = run(db, "seat", *args)

    assert result.exit_code == code, result.output
    if message is not None:
        assert result.stderr == message
    else:
        assert result.stderr.startswith("Error: ") and "H" in result.stderr
    assert len(open_store(str(db)).rows("G")) == before


def test_mn_seat_refuses_an_unknown_level_and_a_budget_out_of_range(tmp_path: Path) -> None:
    """click's own usage errors: exit 2, naming the option."""
    db = _new(tmp_path / "g.db")

    level = run(db, "seat", "G", "carthage", "--bot", "genius")
    budget = run(db, "seat", "G", "carthage", "--bot", "search", "--budget", "10001")

    assert level.exit_code == 2 and "Invalid value for '--bot': 'genius' is not one of 'heuristic', 'search'." \
        in level.stderr
    assert budget.exit_code == 2 and "Invalid value for '--budget'" in budget.stderr
    assert len(open_store(str(db)).rows("G")) == 6


def test_no_seat_changes_hands_once_the_game_is_over(tmp_path: Path) -> None:
    db = tmp_path / "g.db"
    mn(db, "import", str(ROOT / "fixtures" / "game-6-1.jsonl"))

    result = run(db, "seat", "golden-6-1", "greece", "--bot", "heuristic")

    assert (result.exit_code, result.stderr) == (
        1, "Error: the game is over (Greece won by 6.1 in round 15): no seat changes hands [rule kernel:K14]\n")


def test_a_player_cannot_seat_a_bot_only_the_host_can(tmp_path: Path) -> None:
    """A signed block is a side's: a line 'seat ...' in it is no order of the game, and refused; the
    host's seat change in a game with keys is recorded as the host's."""
    db = tmp_path / "g.db"
    keys = tmp_path / "keys"
    mn(db, "new", "--empire", "rome", "--empire", "greece", "--empire", "carthage", "--seed", "leak", "--id", "G",
       "--keys-dir", str(keys))
    seq, head = reading.current(open_store(str(db)), "G").head
    block = tmp_path / "block.txt"
    block.write_text(mn(db, "sign", "--key", str(keys / "G-carthage.key"), "--game", "G", "--seq", str(seq),
                        "--head", head, "seat carthage --bot heuristic"))

    result = run(db, "order", "G", "--signed", str(block))
    mn(db, "seat", "G", "rome", "--bot", "heuristic")

    assert result.exit_code == 2 and result.stderr.startswith("Error: unknown order 'seat'; orders are: attack, ")
    assert not any(r.type == "SeatSet" and "carthage" in r.payload for r in open_store(str(db)).rows("G"))
    seat = next(r for r in open_store(str(db)).rows("G") if r.type == "SeatSet")
    assert seat.actor == "host"


# --- visible to every side ---------------------------------------------------------------------------------

def test_a_seat_handed_to_a_bot_and_back_is_in_every_sides_report_and_log(tmp_path: Path) -> None:
    """Each side reads both seat changes and the bot's acts, marked, in its report and in mn log; the bot's
    order lines are Carthage's own (withheld from the others' exports, like a default's)."""
    db = _new(tmp_path / "g.db")
    mn(db, "seat", "G", "carthage", "--bot", "heuristic")
    mn(db, "seat", "G", "carthage", "--player", "Cat")

    for side in SIDES:
        report = mn(db, "report", "G", "--as", side)
        log = mn(db, "log", "G", "--as", side)
        for text in (report, log):
            assert SEATED in text and BACK in text, side
            assert "[bot heuristic, budget 1] Carthage, the Trade Leader, plays the exchange marker for 4." in text
        exported = [json.loads(line) for line in mn(db, "export", "G", "--as", side).splitlines()[1:]]
        bot = next(e for e in exported if e["seq"] == 8)
        assert bot["actor"] == "bot:heuristic:1"
        assert (bot["command"]["orders"] == ["trade 4"]) == (side == "carthage")
    assert mn(db, "report", "G", "--as", "carthage", "--since", "0").splitlines()[0] == (
        "Game G, round 1, Trade Resources phase: report for Carthage (Cat)")
    host = mn(db, "log", "G")
    assert f"    7  {SEATED}" in host and f"   11  {BACK}" in host


# --- who holds a seat now: mn status, show, games, replay, reports and a side's export ------------------------

MARKER = "exchange-marker — play an exchange marker for one of its values (5, 0, 2, 1, 4, 3)"
TABLES = {  # mn show's empire table by Carthage's holder: the player column is as wide as its widest name
    "bot search, budget 8": [
        "Empire      Player                Trade Culture Military  Titles              Tiles",
        "Rome        Rome                      7       1        3  military            Caesar",
        "Greece      Greece                    4       4        3  culture             Pericles",
        "Carthage    bot search, budget 8      7       1        2  trade               Hannibal"],
    "Dora": [
        "Empire      Player      Trade Culture Military  Titles              Tiles",
        "Rome        Rome            7       1        3  military            Caesar",
        "Greece      Greece          4       4        3  culture             Pericles",
        "Carthage    Dora            7       1        2  trade               Hannibal"],
    "Carthage": [
        "Empire      Player      Trade Culture Military  Titles              Tiles",
        "Rome        Rome            7       1        3  military            Caesar",
        "Greece      Greece          4       4        3  culture             Pericles",
        "Carthage    Carthage        7       1        2  trade               Hannibal"],
}


def _shown(db: Path, *args: str) -> list[str]:
    """The empire table of `mn show` (or replay) with these arguments."""
    lines = mn(db, *args).splitlines()
    start = lines.index(next(ln for ln in lines if ln.startswith("Empire ")))
    return lines[start:start + 4]


def _status(holder: str) -> str:
    return ("Game G: round 1, Trade Resources phase\n"
            "NOT a fair-play game: its secret is known (seed) or it is a sandbox.\n"
            f"Waiting for:\n  Carthage ({holder}): {MARKER}\n")


def _games(db: Path, holder: str) -> str:
    game = open_store(str(db)).games()[0]
    return (f"G  {game.events:>6} events  created {game.created_at[:19]}Z  head {game.head_hash[:12]}  "
            f"round 1, waiting on carthage ({holder})\n")


def test_status_show_games_and_reports_name_who_holds_a_seat_now(tmp_path: Path, no_chooser: None) -> None:
    """Carthage's seat handed to a search bot (which waits: no program plays bots), then to Dora: mn status,
    mn show as the host and as every side, mn games and every side's report name its holder then, not
    the player it was created with; mn replay names who held it at that event."""
    db = _new(tmp_path / "g.db")
    _no_bots()
    by_mail.set_seat(open_store(str(db)), "G", "carthage", bot="search", budget=8)
    bot = "bot search, budget 8"

    status = run(db, "status", "G")
    assert (status.exit_code, status.stdout) == (0, _status(bot))
    for viewer in ((), *(("--as", s) for s in SIDES)):
        assert _shown(db, "show", "G", *viewer) == TABLES[bot], viewer
    games = run(db, "games")
    assert (games.exit_code, games.stdout) == (0, _games(db, bot))
    for side, name in (("rome", "Rome (Rome)"), ("greece", "Greece (Greece)"), ("carthage", f"Carthage ({bot})")):
        assert mn(db, "report", "G", "--as", side).splitlines()[0] == (
            f"Game G, round 1, Trade Resources phase: report for {name}")
    assert _shown(db, "replay", "G", "--to", "6") == TABLES["Carthage"]  # before the hand-over

    handed = run(db, "seat", "G", "carthage", "--player", "Dora")
    assert handed.exit_code == 0 and handed.stdout.startswith(
        "    8  The host handed Carthage's seat to Dora, who decides for it (ruling K14).\n")
    status = run(db, "status", "G")
    assert (status.exit_code, status.stdout) == (0, _status("Dora"))
    assert _shown(db, "show", "G", "--as", "rome") == TABLES["Dora"]
    assert _shown(db, "replay", "G", "--to", "7") == TABLES[bot]
    games = run(db, "games", "--player", "dora")
    assert (games.exit_code, games.stdout) == (0, _games(db, "Dora"))
    assert mn(db, "games", "--waiting-on", "Dora") == _games(db, "Dora")
    assert mn(db, "games", "--player", "Carthage") == "No games match.\n"
    assert mn(db, "report", "G", "--as", "carthage").splitlines()[0] == (
        "Game G, round 1, Trade Resources phase: report for Carthage (Dora)")


def test_a_sides_export_shows_who_holds_each_seat(tmp_path: Path, no_chooser: None) -> None:
    """Who holds a seat is public (K14): Greece's export, read with no database, names Carthage's bot."""
    db = _new(tmp_path / "g.db")
    _no_bots()
    by_mail.set_seat(open_store(str(db)), "G", "carthage", bot="search", budget=8)
    export = tmp_path / "greece.jsonl"
    export.write_text(mn(db, "export", "G", "--as", "greece"))

    assert _shown(db, "show", str(export)) == TABLES["bot search, budget 8"]


def test_mn_show_of_the_2003_game_names_a_seated_bot(tmp_path: Path, no_chooser: None) -> None:
    db = tmp_path / "c.db"
    mn(db, "new", "--ruleset", "classic", "--empire", "rome", "--empire", "greece", "--empire", "carthage",
       "--seed", "b", "--id", "C")
    _no_bots()
    by_mail.set_seat(open_store(str(db)), "C", "greece", bot="heuristic", budget=1)

    shown = mn(db, "show", "C", "--as", "rome").splitlines()

    assert shown[2:5] == ["  Rome (Rome): 4 cards (oil 1, tax 2, wine 1); heroes and wonders: none",
                          "  Greece (bot heuristic, budget 1): 4 cards (hidden); heroes and wonders: none",
                          "  Carthage (Carthage): 4 cards (hidden); heroes and wonders: none"]


def test_each_bot_act_is_recorded_under_its_own_level_and_budget() -> None:
    """The service actor of a bot's act is read from the act, not remembered per command type: a search
    bot after a heuristic one is recorded as the search bot."""
    first = BotOrders(side="greece", level="heuristic", budget=1, orders=("trade 3",))
    second = BotOrders(side="greece", level="search", budget=8, orders=("trade 3",))
    assert (turns.service_actor(first), turns.service_actor(second)) == ("bot:heuristic:1", "bot:search:8")


def test_twins_differing_in_others_offers_give_greeces_seated_bot_the_same_order(tmp_path: Path) -> None:
    """Greece's bot, seated once Rome and Carthage offered face down, gives the same order in twin games
    that differ only in those offers: it reads what Greece may see, seeded by public facts."""
    orders = []
    for name, rome, carthage in (("a", "grain grain wine", "gold sheep spices"), ("b", "metal oil wine", "oil oil sheep")):
        db = _new(tmp_path / f"{name}.db")
        mn(db, "order", "G", "--as", "carthage", "trade 3")
        mn(db, "order", "G", "--as", "rome", f"offer {rome}")
        mn(db, "order", "G", "--as", "carthage", f"offer {carthage}")
        mn(db, "seat", "G", "greece", "--bot", "search", "--budget", "8")
        rows = open_store(str(db)).rows("G")
        orders.append([r.command for r in rows if r.actor == "bot:search:8" and r.command])

    assert orders[0] and orders[0] == orders[1]


# --- the bot answers under mn tick and mn serve; verify decides its acts again ------------------------------

def test_mn_tick_lets_a_seated_bot_answer_and_the_game_verifies(tmp_path: Path, no_chooser: None) -> None:
    """Seated while no program played bots, Carthage's bot has not answered; mn tick (which registers
    one) answers for it, saying so, and the game verifies."""
    db = _new(tmp_path / "g.db")
    _no_bots()
    store = open_store(str(db))
    written = by_mail.set_seat(store, "G", "carthage", bot="heuristic", budget=1)
    assert [r.type for r in written] == ["SeatSet"]

    out = mn(db, "tick", "G", "--now", "2030-01-01T00:00:00+00:00").splitlines()

    assert out[0] == "Game G, the service answered at 2030-01-01T00:00:00Z:"
    assert out[1] == "    8  [bot heuristic, budget 1] Carthage, the Trade Leader, plays the exchange marker for 4."
    assert mn(db, "tick", "G", "--now", "2030-01-01T00:00:00+00:00") == ""
    report = lifecycle.verify_game(open_store(str(db)), "G")
    assert report.ok, report.reason


def test_mn_serve_lets_seated_bots_answer_in_a_signed_game_which_verifies(tmp_path: Path, no_chooser: None) -> None:
    """A game of signed orders only, with deadlines and forced answers: every seat handed to a bot while
    none could answer; one cycle of mn serve plays on, each act recorded as the bot's, drawn under K11, and
    the game verifies (the bots' acts decided again on the log before them)."""
    db = str(tmp_path / "g.db")
    new_game(db, tmp_path / "keys")
    _no_bots()
    store = open_store(db)
    for side in SIDES:
        by_mail.set_seat(store, "g1", side, bot="heuristic", budget=1)
    before = len(store.rows("g1"))
    config = write_config(tmp_path / "host.toml", f'''db = "{db}"
sender = "host@example.org"
[inbox]
kind = "maildir"
path = "{tmp_path / 'inbox'}"
[games.g1.addresses]
{chr(10).join(f'{s} = "{s}@example.org"' for s in SIDES)}
''')
    (tmp_path / "inbox").mkdir()
    for sub in ("new", "cur", "tmp"):
        (tmp_path / "inbox" / sub).mkdir()

    served = CliRunner().invoke(main, ["serve", "--config", str(config), "--once", "--now", "2030-01-01T00:00:00+00:00"])

    assert served.exit_code == 0, served.output
    rows = open_store(db).rows("g1")
    assert served.stdout.startswith(f"read 0 mail(s): 0 block(s) applied, 0 refused; {len(rows) - before} "
                                    "event(s) by deadlines and bots; ")
    acts = [r for r in rows[before:] if r.seq == r.batch]
    assert len(acts) > 20 and {r.actor for r in acts} <= {"bot:heuristic:1", "forced"}
    assert all(json.loads(r.command or "")["type"] in ("BotOrders", "ForcedOrders") for r in acts)
    report = lifecycle.verify_game(open_store(db), "g1")
    assert report.ok, report.reason


def test_verify_refuses_a_bot_act_for_a_seat_no_bot_holds(tmp_path: Path) -> None:
    """The kernel decides a bot's act again: the bot named must hold the seat then (K14)."""
    db = _new(tmp_path / "g.db")
    loaded = reading.load(open_store(str(db)), "G")
    log = turns.Log(rows=loaded.rows, events=loaded.events, game_id="G")
    act = BotOrders(side="carthage", level="heuristic", budget=1, orders=("trade 4",))

    with pytest.raises(RuleViolation) as err:
        turns.decide(loaded.ruleset, loaded.state, act, secret=None, draw_head="", log=log)

    assert err.value.section == "kernel:K14"
    assert "Carthage's seat is held by a person, not by a bot (heuristic, budget 1)" in err.value.message


def test_standing_orders_wait_while_a_bot_holds_the_seat(tmp_path: Path, no_chooser: None) -> None:
    """A side's standing orders are neither applied nor dropped while its bot holds the seat (K14)."""
    db = _new(tmp_path / "g.db")
    _no_bots()
    store = open_store(str(db))
    by_mail.set_seat(store, "G", "carthage", bot="heuristic", budget=1)
    by_mail.set_standing(store, "G", "carthage", ["trade 3"])
    loaded = reading.load(store, "G")
    assert not any(r.actor == "standing" for r in loaded.rows)
    log = turns.Log(rows=loaded.rows, events=loaded.events, game_id="G")

    with pytest.raises(RuleViolation) as err:
        turns.decide(loaded.ruleset, loaded.state, StandingOrder(side="carthage", order="trade 3"), secret=None,
                    draw_head="", log=log)

    assert err.value.section == "kernel:K14"
    back = by_mail.set_seat(store, "G", "carthage", player="Cat")
    assert [r.actor for r in back][:2] == ["host", "standing"]
    assert msgspec.json.decode(back[1].command or "")["order"] == "trade 3"


def test_a_seated_bot_orders_what_mn_bot_advises_then(tmp_path: Path) -> None:
    """The chooser mn registers decides as `mn bot GAME --as SIDE --level L --budget N` (seed 0) advises
    at that event: anyone may ask what a seated bot will do, from what the side may see."""
    db = _new(tmp_path / "g.db")
    advice = json.loads(mn(db, "bot", "G", "--as", "carthage", "--level", "search", "--budget", "8", "--json"))
    cur = reading.current(open_store(str(db)), "G")

    players_by_id.seat_bots()
    chosen = players_by_id.choose(cur.ruleset, cur.state, "carthage", "search", 8, cur.head[0])

    assert seats.registered()
    assert list(chosen or ()) == advice["lines"]


# --- mn demo --bot: a game played by bots in every seat -----------------------------------------------------

def _demo_lines(db: Path, *args: str) -> tuple[str, list[str]]:
    out = mn(db, "demo", "--bot", "heuristic", *args).splitlines()
    game_id = out[0].split()[2]
    return game_id, [line.replace(game_id, "GID").replace(str(db), "DB") for line in out]


def test_mn_demo_with_bots_stops_at_max_orders_and_verifies(tmp_path: Path) -> None:
    """Every seat handed to a bot; 40 of their answers, then the log verifies (the secret kept)."""
    db = tmp_path / "d.db"
    game_id, out = _demo_lines(db, "--max-orders", "40")

    assert out[:4] == [
        "Demo game GID in DB: every seat handed to a bot (heuristic, budget 1): Rome (Ann), Greece (Ben), Carthage (Cat)",
        "Round 1 begins by event 9",
        "Round 2 begins by event 67",
        "No result after 67 events (40 answers; stopped at --max-orders 40, or no bot could answer)."]
    assert out[4].startswith("Verify: ok — ") and out[5] == "Read it with: mn log GID | mn show GID | mn verify GID"
    rows = open_store(str(db)).rows(game_id)
    assert sum(1 for r in rows if r.seq == r.batch and r.actor == "bot:heuristic:1") == 40


def test_mn_demo_budget_needs_bots(tmp_path: Path) -> None:
    result = run(tmp_path / "d.db", "demo", "--budget", "3")

    assert (result.exit_code, result.stderr) == (2, "Error: --budget is the bots': give it with --bot LEVEL\n")


@pytest.mark.slow
@pytest.mark.parametrize("ruleset,result", [("empires", "Result: Carthage won by 6.2 in round 9"),
                                            ("classic", "Result: Greece won by classic:7.1 in round 4")])
def test_mn_demo_with_bots_plays_to_a_result_that_verifies(tmp_path: Path, ruleset: str, result: str) -> None:
    """Bots in every seat play the demonstration game to a win; its secret revealed, every draw verifies."""
    db = tmp_path / "d.db"
    game_id, out = _demo_lines(db, "--ruleset", ruleset)

    assert out[-3] == result
    assert out[-2].startswith("Verify: ok — ") and "every random outcome recomputes" in out[-2]
    assert lifecycle.verify_game(open_store(str(db)), game_id).ok


def test_tab_completes_the_side_of_mn_seat(tmp_path: Path) -> None:
    """mn seat GAME <tab> offers the game's sides, as --as does elsewhere."""
    from click.shell_completion import BashComplete

    db = _new(tmp_path / "g.db")

    found = [c.value for c in BashComplete(main, {}, "mn", "_MN_COMPLETE").get_completions(
        ["--db", str(db), "seat", "G"], "")]

    assert found == ["rome", "greece", "carthage"]


def test_mn_explain_names_the_bot_behind_an_event_and_hides_its_line_from_others(tmp_path: Path) -> None:
    db = _new(tmp_path / "g.db")
    mn(db, "seat", "G", "carthage", "--bot", "heuristic")

    own = mn(db, "explain", "G", "8", "--as", "carthage").splitlines()[1]
    other = mn(db, "explain", "G", "8", "--as", "rome").splitlines()[1]

    assert own == ("Caused by: the bot holding the seat (heuristic, budget 1): 'trade 4' (batch starting at "
                   "event 8); the order's own event.")
    assert other == ("Caused by: the bot holding the seat (heuristic, budget 1): '(not shown: it holds choices "
                     "hidden from you)' (batch starting at event 8); the order's own event.")


def test_a_bot_that_fails_leaves_the_side_waiting_and_the_command_written(tmp_path: Path, no_chooser: None) -> None:
    """A chooser that raises gives no answer: the host's seat change is written, the side waits, and
    its deadline's default is taken when it passes, as a person's; the game verifies."""
    db = _new(tmp_path / "g.db")

    def broken(*_: Any) -> tuple[str, ...]:
        raise ZeroDivisionError("a bug in a bot")

    seats.register(broken)
    written = by_mail.set_seat(open_store(str(db)), "G", "carthage", bot="heuristic", budget=1)

    assert [r.type for r in written] == ["SeatSet"]
    cur = reading.current(open_store(str(db)), "G")
    assert "carthage" in {p.empire for p in cur.ruleset.pending(cur.state)}
    by_mail.set_pace(open_store(str(db)), "G", 24, {}, False)
    ticked = by_mail.tick(open_store(str(db)), "G", "2040-01-01T00:00:00+00:00")
    assert ticked[0].actor == "deadline"
    assert json.loads(ticked[0].command or "")["side"] == "carthage"
    assert lifecycle.verify_game(open_store(str(db)), "G").ok
