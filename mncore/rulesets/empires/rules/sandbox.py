"""Sandbox orders (ruling R7): fix the coming battle dice, legendary draws and tiles turned up."""

from __future__ import annotations

from mncore.core.errors import InvalidCommand, require
from mncore.core.protocol import Option
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.commands import ClearFixedOutcomes, FixOutcome, SandboxCommand
from mncore.rulesets.empires.display_names import title
from mncore.rulesets.empires.game_data import load_ruleset
from mncore.rulesets.empires.game_data import tile as tile_info
from mncore.rulesets.empires.ids import COMMODITIES, Empire
from mncore.rulesets.empires.random_draws import all_faces, require_faces, require_sandbox
from mncore.rulesets.empires.state import FixedBarbarianDice, FixedDice, FixedLegendary, FixedTile, GameState


def decide(state: GameState, order: SandboxCommand) -> list[ev.AnyEvent]:
    match order:
        case FixOutcome():
            return fix(state, order)
        case ClearFixedOutcomes():
            require_sandbox(state, "random outcomes")
            return [ev.FixedOutcomesCleared(empire=order.empire, cleared=state.fixed)]


def fix(state: GameState, order: FixOutcome) -> list[ev.AnyEvent]:
    """Queue a fixed outcome, checked against what the draw it replaces could give."""
    outcome = order.outcome
    match outcome:
        case FixedDice(empire=empire, dice=dice):
            require_sandbox(state, "battle dice")
            if empire not in state.empires:
                raise InvalidCommand(f"{title(empire)} is not in this game")
            require(bool(dice), "R7", "fix at least one die: one per die the empire rolls (ruling R7)")
            require_faces(dice, all_faces(), "battle")
        case FixedBarbarianDice(dice=dice):
            require_sandbox(state, "battle dice")
            if state.barbarians is None:
                raise InvalidCommand("there are no Barbarians in this game (the Punic War only)")
            require(bool(dice), "R7", "fix at least one die: one per unit the Barbarians roll with (ruling R7)")
            require_faces(dice, all_faces(), "battle")
        case FixedLegendary(commodity=commodity):
            require_sandbox(state, "the legendary commodity drawn")
            # any commodity may be fixed: refusing one the face-down pile lacks would tell whether it
            # holds it (1.2); a fix the pile cannot honour is spent on a random draw (ruling R7)
            if commodity is None:
                raise InvalidCommand("fix legendary needs a commodity")
        case FixedTile(tile=tile):
            require_sandbox(state, "the tile turned up")
            where = {d.tile: d.face_up for d in state.display}
            name = tile_info(load_ruleset(), tile).name
            require(tile in where, "R7", f"{name} is not on the Heroes & Wonders display")
            require(not where[tile], "R7", f"{name} is already face up: only a face-down tile of the "
                                           "display can be fixed to be turned up next (ruling R7)")
            require(outcome not in state.fixed, "R7", f"{name} is already fixed to be turned up")
    return [ev.OutcomeFixed(empire=order.empire, outcome=outcome)]


def options(state: GameState, empire: Empire) -> list[Option]:
    """In a sandbox, the outcomes that may be fixed now (ruling R7); nothing in other games."""
    if not state.options.sandbox or state.winner is not None:
        return []
    faces = tuple(str(f) for f in sorted(set(all_faces())))
    sides = (*state.empires, *(("barbarians",) if state.barbarians is not None else ()))
    out = [Option(kind="fix", template="fix dice {empire} {die}",
                  parts={"empire": sides, "die": faces},
                  note="one die per unit that empire rolls in its next battle: fix dice rome 5 4 3")]
    # every kind, not what the pile holds, and the face-down tiles sorted, not in their order: the
    # pile and the order are face down (1.2, set-up step 5)
    if state.legendary_pile or state.legendary_discard:
        out.append(Option(kind="fix", template="fix legendary {commodity}", parts={"commodity": COMMODITIES},
                          note="the next legendary commodity drawn, if the pile holds one"))
    face_down = tuple(sorted(d.tile for d in state.display if not d.face_up and FixedTile(tile=d.tile)
                             not in state.fixed))
    if face_down:
        out.append(Option(kind="fix", template="fix tile {tile}", parts={"tile": face_down},
                          note="the next tile turned up at the end of the Build phase"))
    if state.fixed:
        out.append(Option(kind="fix", order="fix clear", note="forget the outcomes fixed and not yet used"))
    return out
