"""The Punic War's Barbarians in Move and Battle: paid moves, their battles, peace (rulings R64-R67)."""

from __future__ import annotations

from mncore.core.dice import Rng
from mncore.core.errors import InvalidCommand, require
from mncore.core.protocol import Option
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires import random_draws
from mncore.rulesets.empires.board import geo
from mncore.rulesets.empires.commands import AttackBarbarians, MoveBarbarians, PeaceWithBarbarians
from mncore.rulesets.empires.display_names import title
from mncore.rulesets.empires.game_data import load_ruleset
from mncore.rulesets.empires.ids import COIN, EMPIRES, Empire, ProvinceId, Token, commodity_of
from mncore.rulesets.empires.rules import battle
from mncore.rulesets.empires.rules.barbarians import SECTION, at_peace, horde, in_play, units
from mncore.rulesets.empires.rules.fold import Fold
from mncore.rulesets.empires.state import FixedBarbarianDice, GameState, move_step

MOST_MOVES = 5  # "up to a maximum of 5 moves" (HANGING GARDENS; ruling R64)
BARBARIANS = "barbarians"  # the word orders and dice use for them


def required(state: GameState, empire: Empire) -> list[ProvinceId]:
    """Provinces where the active empire's units meet Barbarian units and no battle was fought yet this
    turn: a land battle is due, as with an opponent (4.1.2, ruling R66)."""
    step = move_step(state)
    if state.barbarians is None or at_peace(state, empire):
        return []
    return [pid for pid in sorted(state.provinces)
            if pid not in step.battles and units(state, pid) and battle.units_at(state, pid, empire)]


# --- orders -------------------------------------------------------------------------------------------

def move(state: GameState, order: MoveBarbarians, rng: Rng, fold: Fold) -> list[ev.AnyEvent]:
    """One paid move of one Barbarian unit one step; a battle at once if it meets an empire (R64, R65)."""
    require(in_play(state), SECTION, "there are no Barbarians in this game (the Punic War only)")
    b, g = horde(state), geo(state.geo_board)
    used = b.moves.get(order.empire, 0)
    require(used < MOST_MOVES, "R64", f"{title(order.empire)} has paid for {used} Barbarian moves this "
                                      f"round; at most {MOST_MOVES} (ruling R64)")
    _require_payment(state, order.empire, order.pay)
    sea = order.unit == "trireme"
    src = (g.sea(order.from_place) if sea else g.province(order.from_place))
    dst = (g.sea(order.to_place) if sea else g.province(order.to_place))
    here = b.triremes.get(src.id, 0) if sea else b.legions.get(src.id, 0)
    require(here > 0, "R64", f"no Barbarian {order.unit} stands in {src.name}")
    near = g.sea_neighbours(src.id) if sea else frozenset(p for p in state.provinces if g.is_adjacent(src.id, p))
    require(dst.id in near and (sea or dst.id in state.provinces), "R64",
            f"{dst.name} is not {'a sea adjacent to' if sea else 'a province in play adjacent to'} {src.name}; "
            "a Barbarian unit moves one step (ruling R64)")
    foes = [e for e in EMPIRES if e in state.empires and battle.units_at(state, dst.id, e)]
    require(order.empire not in foes, "R65",
            f"{title(order.empire)} has units in {dst.name}; the Barbarians are moved against an opponent "
            "(ruling R65)")
    for foe in foes:
        require(not at_peace(state, foe), "R67",
                f"{title(foe)} is at peace with the Barbarians this round (Statue of Zeus, ruling R67)")
        require(dst.id not in move_step(state).battles, "9.0",
                f"a battle was already fought in {dst.name} this turn; only one battle per place per turn")
    holder = peace_holder(state, dst.id)
    require(holder is None, "R67",
            f"{title(holder or '')} is at peace with the Barbarians this round and controls {dst.name}: neither "
            "may enter the other's controlled provinces (Statue of Zeus, 11.statue-of-zeus; ruling R67)")
    require(not order.dice or bool(foes), "R7", f"no battle follows a move into {dst.name}: no dice to fix")
    events: list[ev.AnyEvent] = [ev.BarbariansMoved(empire=order.empire, unit=order.unit, from_place=src.id,
                                                    to_place=dst.id, paid=order.pay)]
    if foes:
        events += _fight(fold(events, state), dst.id, foes[0], "barbarians", order.empire, rng, order.dice)
    return events


def peace_holder(state: GameState, place: str) -> Empire | None:
    """The empire at peace with the Barbarians this round whose controlled province place is: at peace
    "neither of you may ... enter the other's controlled Provinces" (11.statue-of-zeus; ruling R67)."""
    owner = state.provinces[place].controller if place in state.provinces else None
    return owner if owner is not None and at_peace(state, owner) else None


def _require_payment(state: GameState, empire: Empire, token: Token) -> None:
    require(token == COIN or commodity_of(token) == "gold", "R64",
            f"a Barbarian move is paid with a coin or a gold, not {title(token)} (ruling R64)")
    require(state.empires[empire].resources.get(token, 0) > 0, "R64",
            f"{title(empire)} holds no {title(token)} to pay a Barbarian move with")


def attack(state: GameState, order: AttackBarbarians, rng: Rng) -> list[ev.AnyEvent]:
    """The active empire attacks the Barbarians where both stand (ruling R66)."""
    require(in_play(state), SECTION, "there are no Barbarians in this game (the Punic War only)")
    place = order.place
    if place not in state.seas and place not in state.provinces:
        raise InvalidCommand(f"unknown province or sea '{place}'")
    step, name, sea = move_step(state), battle.place_name(state, place), place in state.seas
    if sea:
        require(step.stage in ("naval", "sea"), "4.1.1", "sea battles are fought before any legion moves")
    require(place not in step.battles, "9.0",
            f"a battle was already fought in {name} this turn; only one battle per place per turn")
    require(battle.units_at(state, place, order.empire) > 0, "4.2",
            f"{title(order.empire)} has no {'triremes' if sea else 'units'} in {name}")
    require(units(state, place) > 0, "R66", f"no Barbarian units stand in {name}")
    require(not at_peace(state, order.empire), "R67",
            f"{title(order.empire)} is at peace with the Barbarians this round (Statue of Zeus, ruling R67)")
    return _fight(state, place, order.empire, "empire", order.empire, rng, order.dice)


def declare_peace(state: GameState, order: PeaceWithBarbarians) -> list[ev.AnyEvent]:
    """The Statue of Zeus's peace with the Barbarians, never two rounds in a row (ruling R67)."""
    require(in_play(state), SECTION, "there are no Barbarians in this game (the Punic War only)")
    require(order.empire not in horde(state).last_peace, "R67",
            f"{title(order.empire)} made peace with the Barbarians last round; never the same opponent two "
            "rounds in a row (ruling R67)")
    return [ev.BarbarianPeaceDeclared(empire=order.empire)]


# --- the battle (4.2 with the Barbarians as one side, ruling R65) -------------------------------------

def _fight(state: GameState, place: str, empire: Empire, attacker: str, by: Empire, rng: Rng,
           fixed: dict[str, tuple[int, ...]]) -> list[ev.AnyEvent]:
    if fixed:
        random_draws.require_sandbox(state, "battle dice")
        require(set(fixed) <= {BARBARIANS, empire}, "R7",
                f"dice can be fixed only for the two sides, the Barbarians and {title(empire)} (ruling R7)")
    dice_set = load_ruleset().components.dice
    sea = place in state.seas
    faces = dice_set.sea_faces if sea else dice_set.land_faces
    b = horde(state)
    rolling = b.triremes.get(place, 0) if sea else b.legions.get(place, 0)
    queued = next((f for f in state.fixed if isinstance(f, FixedBarbarianDice)), None)
    theirs = fixed.get(BARBARIANS, queued.dice if queued is not None else None)
    if theirs is not None:
        random_draws.require_faces(theirs, faces, "sea battle" if sea else "land battle")
        require(len(theirs) == rolling, "R7", f"the Barbarians roll {rolling} dice in "
                                              f"{battle.place_name(state, place)}, not {len(theirs)}"
                                              + ("" if BARBARIANS in fixed else " fixed ('fix clear' forgets them)"))
    barbarian_dice = theirs if theirs is not None else tuple(rng.roll(faces) for _ in range(rolling))
    used = [ev.FixedOutcomeUsed(outcome=queued, place=place)] if queued and BARBARIANS not in fixed else []
    units_, extra = battle.dice_count(state, place, empire)
    mine, record = random_draws.battle_dice(state, rng, empire, units_ + sum(extra.values()), faces, place,
                                     fixed.get(empire))
    return [*used, *([record] if record else []),
            resolve(state, place, empire, attacker == "empire", by, barbarian_dice, mine)]


def resolve(state: GameState, place: str, empire: Empire, empire_attacks: bool, by: Empire,
            barbarian_dice: tuple[int, ...], dice: tuple[int, ...]) -> ev.BarbarianBattleFought:
    """The battle's arithmetic on given dice: totals, total // 5 hits, each fortress's bonus and negation."""
    numbers = load_ruleset().numbers
    land = place not in state.seas
    their_fort = land and place in horde(state).fortresses
    our_fort = land and state.provinces[place].fortress == empire
    # the empire's side is an ordinary side of 4.2: its powers' bonuses and its fortress
    # the battle module's own side arithmetic (its one private helper used here), not a copy of it
    units_, extra, modifiers, total = battle._side_total(state, place, empire, empire_attacks, dice)
    scored = total // numbers.total_per_hit
    negated = min(numbers.fortress_negates, scored) if their_fort else 0
    side = ev.BattleSide(empire=empire, units=units_, dice=dice, extra_dice=extra, modifiers=modifiers,
                         total=total, scored=scored, negated=negated, hits=scored - negated)
    bonus = numbers.fortress_bonus if their_fort else 0
    b_total = sum(barbarian_dice) + bonus
    b_scored = b_total // numbers.total_per_hit
    b_negated = min(numbers.fortress_negates, b_scored) if our_fort else 0
    barb = ev.BarbarianSide(units=len(barbarian_dice), dice=barbarian_dice, fortress=bonus, total=b_total,
                            scored=b_scored, negated=b_negated, hits=b_scored - b_negated)
    return ev.BarbarianBattleFought(
        place=place, kind="land" if land else "sea", attacker="empire" if empire_attacks else "barbarians",
        by=by, empire=side, barbarians=barb, barbarians_lost=min(side.hits, units(state, place)),
        losses=min(barb.hits, battle.units_at(state, place, empire)))


# --- options ------------------------------------------------------------------------------------------

def move_options(state: GameState, empire: Empire) -> list[Option]:
    """The Barbarian moves the active empire may pay for now (ruling R64)."""
    if state.barbarians is None or state.barbarians.moves.get(empire, 0) >= MOST_MOVES:
        return []
    held = state.empires[empire].resources
    pay = [t for t in sorted(held) if held[t] and (t == COIN or commodity_of(t) == "gold")]
    if not pay:
        return []
    g, b, step = geo(state.geo_board), state.barbarians, move_step(state)
    out: list[Option] = []

    def open_to(dst: str) -> bool:
        foes = [e for e in state.empires if battle.units_at(state, dst, e)]
        return (empire not in foes and peace_holder(state, dst) is None
                and not (foes and (dst in step.battles or any(at_peace(state, f) for f in foes))))

    moves = [("legion", src, dst) for src in sorted(p for p, n in b.legions.items() if n)
             for dst in sorted(p for p in state.provinces if g.is_adjacent(src, p)) if open_to(dst)]
    moves += [("trireme", src, dst) for src in sorted(s for s, n in b.triremes.items() if n)
              for dst in sorted(g.sea_neighbours(src)) if open_to(dst)]
    for unit, src, dst in moves:
        line = f"barbarians move {unit} {src} to {dst} pay "
        out.append(Option(kind="barbarians", order=line + pay[0]) if len(pay) == 1 else
                   Option(kind="barbarians", template=line + "{token}", parts={"token": tuple(pay)}))
    return out


def attack_options(state: GameState, empire: Empire) -> list[Option]:
    """Battles the active empire may (at sea) or must (on land) fight against the Barbarians (R66)."""
    if state.barbarians is None or at_peace(state, empire):
        return []
    step = move_step(state)
    seas = [s for s in sorted(state.seas) if step.stage in ("naval", "sea") and s not in step.battles
            and units(state, s) and state.seas[s].get(empire, 0)]
    return [Option(kind="attack", order=f"attack barbarians in {p}") for p in seas + required(state, empire)]


def peace_option(state: GameState, empire: Empire) -> list[Option]:
    if state.barbarians is None or empire in state.barbarians.last_peace:
        return []
    return [Option(kind="peace", order="peace with barbarians")]
