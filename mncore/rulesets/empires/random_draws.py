"""The random draws of the rules, and the outcomes a sandbox fixed instead of drawing them (ruling R7).

Every draw site (battle dice, legendary commodities, tiles turned up) goes through here, so that a
fixed outcome is used in exactly one place and recorded by a `FixedOutcomeUsed` event; the draws
themselves take from the `Rng` in the same order as before, so an unfixed game draws the same.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from mncore.core.dice import Rng
from mncore.core.errors import require
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.display_names import title
from mncore.rulesets.empires.game_data import load_ruleset
from mncore.rulesets.empires.ids import Commodity, Empire, TileId
from mncore.rulesets.empires.state import FixedDice, FixedLegendary, FixedTile, GameState


def _place_name(state: GameState, place: str) -> str:
    board = state.geo_board
    names = {p.id: p.name for p in board.provinces} | {s.id: s.name for s in board.seas}
    return names.get(place, title(place))


def require_sandbox(state: GameState, what: str) -> None:
    """Refuse to fix an outcome outside a sandbox (ruling R7)."""
    why = ("a fair-play game draws every outcome from its committed secret" if state.options.fair_play
           else "this game is not a sandbox")
    require(state.options.sandbox and not state.options.fair_play, "R7",
            f"{what} cannot be fixed here: {why}; fix outcomes in a sandbox, a fork (mn fork) or a "
            "game from a position (mn new --position) (ruling R7)")


def all_faces() -> tuple[int, ...]:
    """Every face of the land and sea battle dice (ruling R1)."""
    dice = load_ruleset().components.dice
    return tuple(sorted({*dice.land_faces, *dice.sea_faces}))


def require_faces(dice: Sequence[int], faces: Sequence[int], kind: str) -> None:
    """Each fixed die must show a face of the dice rolled (ruling R1)."""
    bad = [d for d in dice if d not in faces]
    require(not bad, "R1", f"{', '.join(map(str, bad))} {'is' if len(bad) == 1 else 'are'} not a face "
                           f"of the {kind} dice, whose faces are {', '.join(map(str, faces))} (ruling R1)")


# --- battle dice (4.2) --------------------------------------------------------------------------------

def battle_dice(state: GameState, rng: Rng, empire: Empire, count: int, faces: Sequence[int],
                place: str, given: tuple[int, ...] | None = None
                ) -> tuple[tuple[int, ...], ev.FixedOutcomeUsed | None]:
    """An empire's dice in a battle: given by the order, fixed earlier, or rolled; and the record."""
    queued = next((f for f in state.fixed if isinstance(f, FixedDice) and f.empire == empire), None)
    if given is None and queued is None:
        return tuple(rng.roll(faces) for _ in range(count)), None
    outcome = FixedDice(empire=empire, dice=given) if given is not None else queued
    assert outcome is not None
    require_sandbox(state, "battle dice")
    name = _place_name(state, place)
    require_faces(outcome.dice, faces, "sea battle" if place in state.seas else "land battle")
    require(len(outcome.dice) == count, "R7",
            f"{title(empire)} rolls {count} {'die' if count == 1 else 'dice'} in {name}, but "
            f"{len(outcome.dice)} are fixed ({', '.join(map(str, outcome.dice))}): fix one per die; "
            "'fix clear' forgets the fixed outcomes (ruling R7)")
    return outcome.dice, ev.FixedOutcomeUsed(outcome=outcome, empire=empire, place=place,
                                             queued=given is None)


# --- legendary commodities (1.2) ----------------------------------------------------------------------

class LegendaryDraws:
    """Legendary commodities drawn face down (1.2): a sandbox's fixed ones first (R7), else at random.

    The discard is reshuffled into a new pile once the pile is empty; `used` records the fixed ones.
    """

    def __init__(self, state: GameState, rng: Rng) -> None:
        self.pile = list(state.legendary_pile)
        self.discard = list(state.legendary_discard)
        self.fixed = [f for f in state.fixed if isinstance(f, FixedLegendary)]
        self.rng = rng
        self.reshuffled = False
        self.used: list[ev.FixedOutcomeUsed] = []

    def draw(self, empire: Empire) -> tuple[Commodity | None, bool]:
        """One commodity for empire (None if pile and discard are empty); whether a reshuffle came first."""
        if not self.pile and self.discard:
            # the same order evolve gives the new pile (LegendaryPileReshuffled)
            self.pile, self.discard, self.reshuffled = sorted(self.discard), [], True
        if not self.pile:
            return None, self.reshuffled
        if self.fixed:
            outcome = self.fixed.pop(0)
            self.used.append(ev.FixedOutcomeUsed(outcome=outcome, empire=empire))
            if outcome.commodity in self.pile:
                assert outcome.commodity is not None
                self.pile.remove(outcome.commodity)
                return outcome.commodity, self.reshuffled
            # R7: the pile cannot honour the fix, which is spent on this draw, drawn at random
        return self.pile.pop(self.rng.below(len(self.pile))), self.reshuffled


def legendary_drawable(state: GameState) -> Counter[Commodity]:
    """What the next legendary commodity fixed may be: what the pile holds once the outcomes already
    fixed are drawn (the discard, when that empties the pile: it is reshuffled into a new one, 1.2)."""
    pile, discard = Counter(state.legendary_pile), Counter(state.legendary_discard)
    for f in state.fixed:
        if isinstance(f, FixedLegendary) and f.commodity is not None:
            if not +pile:
                pile, discard = discard, Counter()
            pile[f.commodity] -= 1
    return +pile if +pile else +discard


# --- tiles turned up (set-up step 5) ------------------------------------------------------------------

def turned_up(state: GameState, count: int) -> tuple[tuple[TileId, ...], list[ev.FixedOutcomeUsed]]:
    """The next `count` face-down tiles turned up: a sandbox's fixed ones first (R7), then in the
    display's face-down order, drawn at set-up."""
    down = [d.tile for d in state.display if not d.face_up]
    fixed = [f for f in state.fixed if isinstance(f, FixedTile)][:count]
    for f in fixed:
        require(f.tile in down, "R7", f"the tile fixed to be turned up next, {title(f.tile)}, is not "
                                      "face down on the display (ruling R7)")
    tiles = [f.tile for f in fixed]
    tiles += [t for t in down if t not in tiles][:count - len(tiles)]
    return tuple(tiles), [ev.FixedOutcomeUsed(outcome=f) for f in fixed]
