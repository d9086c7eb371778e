"""Ruling R7: a sandbox may fix battle dice, legendary draws and tiles turned up; a fair-play game refuses."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from msgspec.structs import replace

from mncli.cli import main
from mncore.core.dice import GENESIS_HASH, Rng, seeded_secret
from mncore.core.errors import RuleViolation
from mncore.games import lifecycle, reading
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.board import load_board
from mncore.rulesets.empires.commands import CreateGame, encode_command
from mncore.rulesets.empires.decide import create_game
from mncore.rulesets.empires.rules import build
from mncore.rulesets.empires.state import FixedDice, FixedLegendary, FixedTile
from mncore.rulesets.empires.text import format_order, parse_order
from mncore.store import open_store
from support import FIVE, Play, new_game, of_type, said_to, seen_by
from test_rules_battle import example_1_in_cyrenaica
from test_rules_collect import rome_holds_ierusalem, start_collect
from test_rules_conquest import asia_with_troia

# docs/positions.md's example: Rome attacks Egypt in Cyrenaica (4.2, example 1)
POSITION = """
round = 2
phase = "move"
titles = { military = "rome" }

[step]
active = "rome"
stage = "land"

[empires.rome]
tiles = ["caesar"]
[empires.greece]
[empires.egypt]
[empires.carthage]
[empires.babylon]

[provinces.cyrenaica]
controller = "egypt"
buildings = ["caravan-papyrus", "market", "city"]
legions = { egypt = 1, rome = 3 }
fortress = "egypt"

[seas]
mare-africum = { rome = 1, egypt = 1 }
"""


def fair_play_game() -> Play:
    """A new five-player game created fair-play, as `mn new` without --seed does."""
    cmd = CreateGame(board=load_board(), players=FIVE, display="first-game", fair_play=True)
    return Play(seed="fair").given(*create_game(cmd, Rng(seeded_secret("fair"), GENESIS_HASH), "0" * 64))


def made_fair_play(play: Play) -> Play:
    """Arranged: the same situation in a fair-play game (its options changed in place)."""
    play.state = replace(play.state, options=replace(play.state.options, fair_play=True, sandbox=False))
    return play


def refused(play: Play, empire: str, line: str) -> RuleViolation:
    """The order is refused with a RuleViolation and nothing is written."""
    before, count = play.state, len(play.events)
    with pytest.raises(RuleViolation) as info:
        play.order(empire, line)  # type: ignore[arg-type]
    assert play.state == before and len(play.events) == count
    return info.value


def mn(db: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["--db", str(db), *args])


def position_game(tmp_path: Path) -> Path:
    """A stored sandbox game at the position of docs/positions.md's example, id `what-if`."""
    db, path = tmp_path / "mn.db", tmp_path / "p.toml"
    path.write_text(POSITION)
    created = mn(db, "new", "--position", str(path), "--seed", "s", "--id", "what-if")
    assert created.exit_code == 0, created.output
    return db


# --- fair-play games refuse ----------------------------------------------------------------------------

@pytest.mark.parametrize("line", ["fix dice rome 5 4 3", "fix legendary wine", "fix tile hercules",
                                  "fix clear"])
def test_R7_a_fair_play_game_refuses_every_fix_order(line: str) -> None:
    """No outcome of a fair-play game may be fixed: refused under R7, nothing written."""
    play = fair_play_game()

    err = refused(play, "rome", line)

    assert err.section == "R7"
    assert "fair-play" in err.message


def test_R7_a_fair_play_game_refuses_fixed_dice_on_an_attack() -> None:
    """`attack ... dice ...` in a fair-play game is refused under R7; the battle is not fought."""
    play = made_fair_play(example_1_in_cyrenaica())

    err = refused(play, "rome", "attack egypt in cyrenaica dice rome=5,4,3 egypt=3")

    assert err.section == "R7"
    assert play.state.fixed == ()


def test_R7_a_stored_fair_play_game_refuses_fix_and_writes_nothing(tmp_path: Path) -> None:
    """Through mn: exit 1 citing R7, and the log keeps its length."""
    db = tmp_path / "mn.db"
    gid = mn(db, "new", "--empire", "rome", "--empire", "greece", "--empire", "carthage",
             "--id", "fair").stdout.strip()
    count = len(open_store(str(db)).rows(gid))

    result = mn(db, "order", gid, "--as", "rome", "fix dice rome 5 4 3")

    assert result.exit_code == 1
    assert "R7" in result.output
    assert len(open_store(str(db)).rows(gid)) == count


# --- sandboxes accept, use and mark ----------------------------------------------------------------------

def test_R7_a_position_game_battles_with_the_fixed_dice_and_marks_them(tmp_path: Path) -> None:
    """Fixed first, each side's dice are used in its next battle, recorded (fixed), and verify passes."""
    db = position_game(tmp_path)

    given = mn(db, "order", "what-if", "--as", "rome", "fix dice rome 5 4 3", "fix dice egypt 3",
               "attack egypt in cyrenaica")

    assert given.exit_code == 0, given.output
    loaded = reading.load(open_store(str(db)), "what-if")
    fought = of_type(loaded.events, ev.BattleFought)[0]
    assert (fought.attacker.dice, fought.defender.dice) == ((5, 4, 3), (3,))
    assert fought.losses == {"rome": 1, "egypt": 2}
    used = of_type(loaded.events, ev.FixedOutcomeUsed)
    assert [u.outcome for u in used] == [FixedDice(empire="rome", dice=(5, 4, 3)),
                                         FixedDice(empire="egypt", dice=(3,))]
    assert loaded.events.index(used[-1]) + 1 == loaded.events.index(fought)
    assert loaded.state.fixed == ()
    verified = mn(db, "verify", "what-if")
    assert verified.exit_code == 0, verified.output
    log = mn(db, "log", "what-if").stdout
    assert "(fixed) Rome's dice in Cyrenaica are 5, 4, 3" in log
    seq = loaded.events.index(fought) + 1
    assert "(fixed)" in mn(db, "explain", "what-if", str(seq)).stdout


def test_R7_a_fork_of_a_fair_play_game_accepts_what_the_original_refuses(tmp_path: Path) -> None:
    """The original refuses `fix legendary`; its fork (mncore.games.lifecycle.fork) records it and verifies."""
    db = tmp_path / "mn.db"
    gid = mn(db, "new", "--empire", "rome", "--empire", "greece", "--empire", "carthage",
             "--id", "fair").stdout.strip()
    store = open_store(str(db))
    original = reading.load(store, gid)
    wine = original.state.legendary_pile[0]
    forked = lifecycle.fork(store, gid, len(original.rows), "fork", seeded_secret("f"))

    refused_there = mn(db, "order", gid, "--as", "rome", f"fix legendary {wine}")
    accepted = mn(db, "order", "fork", "--as", "rome", f"fix legendary {wine}")

    assert refused_there.exit_code == 1 and "R7" in refused_there.output
    assert accepted.exit_code == 0, accepted.output
    after = reading.load(store, "fork")
    assert after.events[len(forked.events):] == [
        ev.OutcomeFixed(empire="rome", outcome=FixedLegendary(commodity=wine))]
    assert after.state.fixed == (FixedLegendary(commodity=wine),)
    assert mn(db, "verify", "fork").exit_code == 0


def test_R7_attack_dice_fix_both_sides_for_that_battle_only() -> None:
    """`attack ... dice rome=5,4,3 egypt=3` fights with those dice, recorded as fixed by the order."""
    play = example_1_in_cyrenaica()

    out = play.order("rome", "attack egypt in cyrenaica dice rome=5,4,3 egypt=3")

    fought = of_type(out, ev.BattleFought)[0]
    assert (fought.attacker.dice, fought.defender.dice) == ((5, 4, 3), (3,))
    assert [(u.outcome, u.queued) for u in of_type(out, ev.FixedOutcomeUsed)] == [
        (FixedDice(empire="rome", dice=(5, 4, 3)), False), (FixedDice(empire="egypt", dice=(3,)), False)]
    assert play.state.provinces["cyrenaica"].legions == {"rome": 2}


def test_R7_fixed_dice_wait_for_that_empires_next_battle() -> None:
    """Dice fixed for an empire not in this battle stay fixed; the other side rolls from the rng."""
    play = example_1_in_cyrenaica()
    play.order("greece", "fix dice babylon 6 6")
    play.order("greece", "fix dice rome 1 1 1")

    out = play.order("rome", "attack egypt in cyrenaica")

    fought = of_type(out, ev.BattleFought)[0]
    assert fought.attacker.dice == (1, 1, 1)
    assert len(fought.defender.dice) == 1
    assert play.state.fixed == (FixedDice(empire="babylon", dice=(6, 6)),)


def test_R7_fixed_dice_must_be_one_per_die_rolled() -> None:
    """Two dice fixed for Rome's three legions: the attack is refused until cleared (`fix clear`)."""
    play = example_1_in_cyrenaica()
    play.order("rome", "fix dice rome 5 4")

    err = refused(play, "rome", "attack egypt in cyrenaica")
    cleared = play.order("rome", "fix clear")
    out = play.order("rome", "attack egypt in cyrenaica")

    assert err.section == "R7" and "rolls 3 dice" in err.message
    assert cleared == [ev.FixedOutcomesCleared(empire="rome",
                                               cleared=(FixedDice(empire="rome", dice=(5, 4)),))]
    assert len(of_type(out, ev.BattleFought)[0].attacker.dice) == 3
    assert of_type(out, ev.FixedOutcomeUsed) == []


def test_R1_a_seven_is_not_a_face_of_the_battle_dice() -> None:
    """A die fixed at 7 is refused: the battle dice show 1 to 6 (ruling R1)."""
    play = example_1_in_cyrenaica()

    fixed_first = refused(play, "rome", "fix dice rome 5 4 7")
    on_attack = refused(play, "rome", "attack egypt in cyrenaica dice rome=5,4,7")

    assert fixed_first.section == on_attack.section == "R1"
    assert "7 is not a face" in fixed_first.message


def test_R7_the_next_legendary_draws_are_the_fixed_ones() -> None:
    """Collect draws the first fixed commodity for Ierusalem, the temple bonus the second."""
    play = new_game(FIVE)
    rome_holds_ierusalem(play, temple=True)
    first, second = play.state.legendary_pile[:2]
    play.orders("greece", f"fix legendary {first}", f"fix legendary {second}")

    collected = start_collect(play)
    bonus = play.order("rome", "bonus judea legendary")

    rome = [e for e in of_type(collected, ev.ResourcesCollected) if e.empire == "rome"][0]
    assert rome.gained.get(f"legendary-{first}") == 1
    assert of_type(collected, ev.FixedOutcomeUsed) == [
        ev.FixedOutcomeUsed(outcome=FixedLegendary(commodity=first), empire="rome")]
    assert of_type(bonus, ev.LegendaryBonusTaken)[0].gained == {f"legendary-{second}": 1}
    assert first not in play.state.legendary_pile and second not in play.state.legendary_pile
    assert play.state.fixed == ()


def test_R7_a_pillaged_legendary_city_gives_the_fixed_commodity() -> None:
    """Pillaging Troia for a legendary commodity draws the one fixed."""
    play = asia_with_troia()
    wine = play.state.legendary_pile[-1]
    play.order("rome", f"fix legendary {wine}")

    out = play.order("rome", "pillage troia in asia take legendary")

    assert of_type(out, ev.Pillaged)[0].gained == {f"legendary-{wine}": 1}
    assert of_type(out, ev.FixedOutcomeUsed)[0].empire == "rome"


def test_R7_a_legendary_fix_is_accepted_whatever_the_pile_holds() -> None:
    """Fixing a commodity twice is accepted: refusing the second would say the face-down pile holds
    no more of it. The drawing rule (draws.LegendaryDraws) spends a fix the pile cannot honour on a
    random draw, as the test below shows."""
    play = new_game(FIVE)
    wine = play.state.legendary_pile[0]
    play.order("rome", f"fix legendary {wine}")

    out = play.order("rome", f"fix legendary {wine}")

    assert len(of_type(out, ev.OutcomeFixed)) == 1 and len(play.state.fixed) == 2


def test_R7_a_fix_the_pile_cannot_honour_is_spent_on_a_random_draw() -> None:
    """The pile lacks the commodity fixed: that draw is random, and the fix is used up."""
    from mncore.core.dice import Rng
    from mncore.rulesets.empires.random_draws import LegendaryDraws
    from mncore.rulesets.empires.state import FixedLegendary

    play = new_game(FIVE)
    pile = play.state.legendary_pile
    missing = next(c for c in ("wine", "oil", "gems", "metal") if c not in pile[:1])
    state = replace(play.state, legendary_pile=pile[:1] if pile[0] != missing else pile[1:2],
                    fixed=(FixedLegendary(commodity=missing),))

    draws = LegendaryDraws(state, Rng(b"s" * 32, "h"))
    drawn, _ = draws.draw("rome")

    assert drawn == state.legendary_pile[0] and drawn != missing
    assert [u.outcome for u in draws.used] == [FixedLegendary(commodity=missing)]


def test_R4_a_fixed_legendary_commodity_is_hidden_from_the_other_empires() -> None:
    """Others read that a legendary commodity was fixed, not which; its fixer and the host see it."""
    play = new_game(FIVE)
    wine = play.state.legendary_pile[0]
    fixed = play.order("rome", f"fix legendary {wine}")[0]

    seen_by_greece = said_to(fixed, "greece")

    assert wine.title() not in seen_by_greece and "face down" in seen_by_greece
    assert wine.title() in said_to(fixed, "rome") and wine.title() in said_to(fixed, None)
    assert seen_by(fixed, "greece") == ev.OutcomeFixed(empire="rome",
                                                           outcome=FixedLegendary(commodity=None))


def test_R7_the_fixed_tile_is_turned_up_before_the_face_down_order() -> None:
    """After a face-up tile is taken, the tile fixed is turned up, not the next face-down one."""
    play = new_game(FIVE, display="first-game")
    down = [d.tile for d in play.state.display if not d.face_up]
    taken = next(d.tile for d in play.state.display if d.face_up and d.tile != "pyramids")
    play.order("rome", f"fix tile {down[-1]}")
    play.given(ev.PhaseBegan(round=1, phase="build"),
               ev.TileGained(empire="rome", tile=taken, paid={}, rank=2))

    out = build.turn_up(play.state)
    play.given(*out)

    assert out == [ev.FixedOutcomeUsed(outcome=FixedTile(tile=down[-1])),
                   ev.TilesTurnedUp(tiles=(down[-1],))]
    assert [d.tile for d in play.state.display if not d.face_up] == down[:-1]
    assert play.state.fixed == ()


def test_R7_a_face_up_tile_cannot_be_fixed() -> None:
    """Only a face-down tile of the display can be fixed to be turned up."""
    play = new_game(FIVE, display="first-game")
    up = next(d.tile for d in play.state.display if d.face_up)

    err = refused(play, "rome", f"fix tile {up}")

    assert err.section == "R7" and "already face up" in err.message


# --- order lines ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("line", ["fix dice egypt 3 2", "fix legendary wine", "fix tile hercules",
                                  "fix clear", "attack egypt in cyrenaica dice rome=5,4,3 egypt=3"])
def test_R7_fix_orders_print_back_as_their_canonical_line(line: str) -> None:
    """Each sandbox order line parses, and its canonical form is the same line."""
    state = new_game(FIVE).state

    order = parse_order(line, state, "rome")

    assert format_order(order) == line


def test_R7_an_attack_without_dice_encodes_as_before() -> None:
    """The dice of an attack are left out of its JSON when none are fixed (stored logs re-decide)."""
    order = parse_order("attack egypt in cyrenaica", new_game(FIVE).state, "rome")

    assert "dice" not in encode_command(order).decode()
