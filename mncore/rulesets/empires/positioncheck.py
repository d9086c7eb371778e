"""Validation of a position: every problem named with its place (provinces.latium.buildings.market: ...)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Literal

import msgspec

from mncore.rulesets.empires import atlas
from mncore.rulesets.empires.board import Board
from mncore.rulesets.empires.game_data import RULESET_ID, RULESET_VERSION, load_ruleset, tile
from mncore.rulesets.empires.ids import EMPIRES, LEGENDARY_PREFIX, TOKENS, Empire, commodity_of, is_legendary
from mncore.rulesets.empires.projections import unit_count
from mncore.rulesets.empires.state import Bag, Barbarians, GameState, ProvinceState, TradeStep, bag_add
from mncore.rulesets.empires.text import title

# --- the checks ----------------------------------------------------------------------------------------

def validate_position(state: GameState, explicit_supply: bool = False) -> list[str]:
    """Every problem with a position, each named by its place in the file."""
    problems = _check_identity(state)
    if problems:
        return problems
    for check in (_check_empires, _check_provinces, _check_seas, _check_supply, _check_tiles,
                  _check_set_aside, _check_leadership, _check_step):
        problems += check(state)
    problems += _check_resources(state, explicit_supply)
    return problems + _check_cities(state) + _check_barbarians(state)


def _check_barbarians(state: GameState) -> list[str]:
    """The Punic War's Barbarians stand on provinces in play and seas, in counts of at least one (R63),
    never more than its set holds; a game without them has no Barbarians and no Foreign Trade."""
    setup = atlas.setup_of(state.board) if state.board is not None else None
    chosen = atlas.variant(setup) if setup else None
    problems = _check_foreign_trade(state, chosen is not None and chosen.foreign_trade)
    b = state.barbarians
    if b is None:
        return problems
    if chosen is None or chosen.barbarians is None:
        return [*problems, "barbarians: only the Punic War has Barbarians [rule atlas.barbarians]"]
    return problems + _barbarian_places(state, b) + _barbarian_set(b, chosen.barbarians)


def _check_foreign_trade(state: GameState, in_play: bool) -> list[str]:
    """The Foreign Trade commodities: the Punic War's only, 3 face up at most (atlas.punic-trade)."""
    from mncore.rulesets.empires.rules.punic import FOREIGN_FACE_UP
    if state.foreign_trade and not in_play:
        return ["foreign_trade: only the Punic War has Foreign Trade commodities [rule atlas.punic-trade]"]
    if len(state.foreign_trade) > FOREIGN_FACE_UP:
        return [f"foreign_trade: {len(state.foreign_trade)} face up; \"Draw 3 Legendary Commodities and place "
                f"them face up\", replenished to 3 [rule atlas.punic-trade]"]
    return []


def _barbarian_set(b: Barbarians, start: atlas.BarbarianSetup) -> list[str]:
    """Never more Barbarian units than the set's miniatures, all on the board at set-up and never built
    (ruling R63): "8 Barbarian, 3 Trireme, and 3 Fortress Miniatures"."""
    counts = (("legions", sum(b.legions.values()), sum(start.legions.values())),
              ("fortresses", len(b.fortresses), len(start.fortresses)),
              ("triremes", sum(b.triremes.values()), sum(start.triremes.values())))
    problems = [f"barbarians.{kind}: {n}; the Punic War's set has {most}, never built or rebuilt "
                "[rule atlas.barbarians] (ruling R63)" for kind, n, most in counts if n > most]
    return problems + [f"barbarians.fortresses: {p} is listed twice; one fortress a province"
                       for p in sorted(set(b.fortresses)) if b.fortresses.count(p) > 1]


def _barbarian_places(state: GameState, b: Barbarians) -> list[str]:
    problems = [f"barbarians.legions.{p}: not a province in play" for p in b.legions if p not in state.provinces]
    problems += [f"barbarians.fortresses: {p} is not a province in play" for p in b.fortresses
                 if p not in state.provinces]
    problems += [f"barbarians.triremes.{s}: not a sea" for s in b.triremes if s not in state.seas]
    problems += [f"barbarians.{kind}.{place}: {n}; a count is at least 1" for kind, where in
                 (("legions", b.legions), ("triremes", b.triremes)) for place, n in where.items() if n < 1]
    return problems + [f"barbarians.{k}: {e} is not in this game" for k, who in
                       (("moves", tuple(b.moves)), ("peace", b.peace), ("last_peace", b.last_peace))
                       for e in who if e not in state.empires]


def _check_cities(state: GameState) -> list[str]:
    """The expansions in play are shipped; objectives and cards are theirs; draws name empires in play."""
    from mncore.rulesets.empires.cities import available, load_city
    cs = state.cities
    if cs is None:
        return []
    missing = [x for x in cs.expansions if x not in available()]
    if missing:
        return [f"cities.expansions: {', '.join(missing)} is not available (available: {', '.join(available())})"]
    cards = {c.id for x in cs.expansions for c in load_city(x).cards}
    objectives = {o.id for x in cs.expansions for o in load_city(x).objectives}
    problems = [f"cities.objectives: {o} is not an Objective of the expansions in play"
                for o in (*cs.objectives, *cs.fulfilled) if o not in objectives]
    held = [("hands", c) for h in cs.hands.values() for c in h] + [("discard", c) for c in cs.discard]
    held += [("decks", c) for d in cs.decks.values() for c in d] + [("draws", c) for d in cs.draws for c in d.hand]
    problems += [f"cities.{where}: {c} is not a Bonus Card of the expansions in play" for where, c in held
                 if c not in cards]
    problems += [f"cities.hands: {e} is not in this game" for e in cs.hands if e not in state.empires]
    problems += [f"cities.draws: {e} is not in this game" for d in cs.draws
                 for e in (d.drawer, d.holder, *d.received) if e is not None and e not in state.empires]
    return problems


def _check_identity(state: GameState) -> list[str]:
    problems = []
    if state.ruleset_id != RULESET_ID or state.ruleset_version != RULESET_VERSION:
        problems.append(f"ruleset_id: {state.ruleset_id} v{state.ruleset_version} is not this "
                        f"engine's {RULESET_ID} v{RULESET_VERSION}")
    n = len(state.empires)
    # a set-up variant's board (atlas.board_for) names its own player count among its covered keys
    if not (3 <= n <= 5 or (state.board is not None and str(n) in state.board.covered)):
        problems.append(f"empires: {n} empires; a game has 3 to 5 (a set-up variant's board: its own)")
        return problems
    from mncore.rulesets.empires.rules.setup import playable_empires

    playable = playable_empires(state.geo_board, n)
    if set(state.empires) != set(playable):
        problems.append(f"empires: with {n} players the empires in play are "
                        f"{', '.join(title(e) for e in playable)}, not "
                        f"{', '.join(title(e) for e in state.empires)}")
    if state.round < 1:
        problems.append(f"round: {state.round}; rounds count from 1")
    return problems


def _out_of_play(state: GameState, where: str, empires: Iterable[str | None]) -> list[str]:
    return [f"{where}: {title(e)} is not in play" for e in empires
            if e is not None and e not in state.empires]


def _check_empires(state: GameState) -> list[str]:
    problems = []
    for emp, es in state.empires.items():
        where = f"empires.{emp}"
        problems += _check_bag(f"{where}.resources", es.resources)
        problems += _out_of_play(state, f"{where}.peace_with", [es.peace_with, es.last_peace])
        if es.copied is not None:
            if "castor-pollux" not in es.tiles:
                problems.append(f"{where}.copied: only the holder of Castor & Pollux copies a hero")
            if tile(load_ruleset(), es.copied).kind != "hero":
                problems.append(f"{where}.copied: {title(es.copied)} is not a hero")
        problems += _check_special(state, emp, where, "centaurs", es.centaurs)
        problems += _check_special(state, emp, where, "myrmidons", es.myrmidons)  # 10.achilles
    return problems


def _check_special(state: GameState, emp: Empire, where: str, unit: Literal["centaurs", "myrmidons"],
                   at: str | None) -> list[str]:
    """The Centaurs (Myrmidons) stand only as one of their holder's legions, only for Chiron's (Achilles')
    holder."""
    if at is None:
        return []
    named = title(unit)
    holders = [t.id for t in load_ruleset().tiles if unit in t.hooks]
    if not set(holders) & set(state.empires[emp].tiles):
        return [f"{where}.{unit}: only the holder of {', '.join(map(title, holders))} has the {named}"]
    ps = state.provinces.get(at)
    if ps is None or not ps.legions.get(emp):
        return [f"{where}.{unit}: the {named} are one of {title(emp)}'s legions, and it has none in {at}"]
    return []


def _check_bag(where: str, bag: Bag) -> list[str]:
    problems = [f"{where}.{t}: unknown resource token (coin, a commodity or legendary-<commodity>)"
                for t in bag if t not in TOKENS]
    problems += [f"{where}.{t}: {n}; counts must be positive" for t, n in bag.items() if n < 1]
    return problems


def _check_provinces(state: GameState) -> list[str]:
    board = state.geo_board
    known = {p.id: p for p in board.provinces}
    covered = set(board.covered.get(str(len(state.empires)), ()))
    problems: list[str] = []
    for pid, ps in state.provinces.items():
        where = f"provinces.{pid}"
        if pid not in known:
            problems.append(f"{where}: no province '{pid}' on board '{board.id}'")
            continue
        if known[pid].region in covered:
            problems.append(f"{where}: {known[pid].name} is covered with {len(state.empires)} players")
            continue
        problems += _check_province(state, pid, ps)
    return problems


def _check_province(state: GameState, pid: str, ps: ProvinceState) -> list[str]:
    where = f"provinces.{pid}"
    name = place_name(state.geo_board, pid)
    spaces = {s.id: s for p in state.geo_board.provinces if p.id == pid for s in p.spaces}
    problems = _out_of_play(state, f"{where}.controller", [ps.controller])
    problems += _out_of_play(state, f"{where}.fortress", [ps.fortress])
    for sid, kind in ps.buildings.items():
        if sid not in spaces:
            problems.append(f"{where}.buildings.{sid}: no {sid} space in {name}")
        elif spaces[sid].kind != kind:
            problems.append(f"{where}.buildings.{sid}: a {spaces[sid].kind} space, not a {kind} one")
    for emp, n in ps.legions.items():
        problems += _out_of_play(state, f"{where}.legions", [emp])
        if n < 1:
            problems.append(f"{where}.legions.{emp}: {n}; counts must be positive")
    for sid, emp in ps.occupied.items():
        problems += _occupier(state, f"{where}.occupied.{sid}", ps, emp)
        if sid not in ps.buildings:
            problems.append(f"{where}.occupied.{sid}: no building on that space to occupy")
    if ps.marker_occupier is not None:
        problems += _occupier(state, f"{where}.marker_occupier", ps, ps.marker_occupier)
        if ps.controller is None:
            problems.append(f"{where}.marker_occupier: {name} has no control marker to occupy")
        elif any(s.kind == "capital" for s in spaces.values()):
            problems.append(f"{where}.marker_occupier: {name} is a capital city province: its control "
                            "marker is printed on the map and never occupied or converted (4.3.5)")
    for sid, emp in ps.circe.items():
        problems += _occupier(state, f"{where}.circe.{sid}", ps, emp, circe=True)
        if sid not in spaces or spaces[sid].kind != "caravan":
            problems.append(f"{where}.circe.{sid}: not a caravan space of {name}")
        elif sid in ps.buildings:
            problems.append(f"{where}.circe.{sid}: the caravan space is not empty")
    return problems


def _occupier(state: GameState, where: str, ps: ProvinceState, emp: Empire,
              circe: bool = False) -> list[str]:
    if emp not in state.empires:
        return [f"{where}: {title(emp)} is not in play"]
    # no check that a legion is there: within a batch a battle's losses come before the occupation ends
    problems = []
    if emp == ps.controller and not circe:
        problems.append(f"{where}: {title(emp)} controls the province; it cannot occupy its own")
    return problems


def _check_seas(state: GameState) -> list[str]:
    known = {s.id for s in state.geo_board.seas}
    problems: list[str] = []
    for sid, fleets in state.seas.items():
        if sid not in known:
            problems.append(f"seas.{sid}: no sea '{sid}' on board '{state.geo_board.id}'")
        for emp, n in fleets.items():
            problems += _out_of_play(state, f"seas.{sid}", [emp])
            if n < 0:
                problems.append(f"seas.{sid}.{emp}: {n}; counts may not be negative")
    return problems


def _check_supply(state: GameState) -> list[str]:
    """Units, control markers and buildings: never more than the game supplies (9.0 Q&A)."""
    # a set-up's board brings its extension sets' buildings (ruling R52)
    comp = atlas.with_extensions(atlas.setup_of(state.geo_board) or atlas.STANDARD).components
    capitals = {s.capital for s in state.geo_board.setups}
    problems: list[str] = []
    for emp in state.empires:
        units = unit_count(state, emp)  # the Centaurs are no legion of the supply (atlas.chiron)
        for kind, n in units.items():
            if n > comp.units.get(kind, 0):  # type: ignore[call-overload]
                problems.append(f"{_plural(kind)}: {title(emp)} has {n} on the board; the game "
                                f"supplies {comp.units.get(kind, 0)}")  # type: ignore[call-overload]
        markers = sum(1 for pid, ps in state.provinces.items()
                      if ps.controller == emp and pid not in capitals)
        if markers > comp.control_markers:
            problems.append(f"provinces: {title(emp)} controls {markers} provinces besides its "
                            f"capital's; it has {comp.control_markers} control markers")
    built = Counter(k for ps in state.provinces.values() for k in ps.buildings.values())
    for kind, n in sorted(built.items()):
        if n > comp.buildings.get(kind, 0):
            problems.append(f"buildings: {n} {kind} buildings on the board; the game supplies "
                            f"{comp.buildings.get(kind, 0)}")
    return problems


def supply_limit(state: GameState) -> Bag:
    """The coins and ordinary commodities the position's game supplies: its set-up's (an extension set's,
    ruling R52) and what a tile in play adds (Midas's 2 gold, 10.midas)."""
    from mncore.rulesets.empires.rules.expansions import reserve_added
    setup = atlas.setup_of(state.board) if state.board is not None else None
    in_play = [t for es in state.empires.values() for t in es.tiles] + [d.tile for d in state.display]
    return bag_add(atlas.reserve_totals(setup or atlas.STANDARD),
                   reserve_added(in_play) if state.cities is not None else {})


def _check_resources(state: GameState, explicit_supply: bool) -> list[str]:
    """Coins and commodities (9.0 Q&A: only those supplied), legendary ones one of each."""
    comp = load_ruleset().components
    held = holdings(state)
    problems: list[str] = []
    if explicit_supply:
        problems += _check_bag("supply", state.supply)
        problems += [f"supply.{t}: a legendary commodity is never in the reserve" for t in state.supply
                     if t.startswith(LEGENDARY_PREFIX)]
    limit = supply_limit(state)
    for token in sorted(limit):
        total = held.get(token, 0) + (state.supply.get(token, 0) if explicit_supply else 0)
        if total > limit[token]:
            problems.append(f"resources.{token}: {total} held{' and in the reserve' * explicit_supply}"
                            f"; the game supplies {limit[token]}")
    legendary: Counter[str | None] = Counter()
    for t, n in held.items():
        if is_legendary(t):
            legendary[commodity_of(t)] += n  # added, not counted one by one: n comes from the file
    legendary.update(state.legendary_pile)
    legendary.update(state.legendary_discard)
    legendary.update(state.foreign_trade)
    for commodity, n in sorted(legendary.items()):
        if n > comp.legendary_per_commodity:
            problems.append(f"legendary_pile: {n} legendary {commodity} held, in the pile or "
                            f"discarded; the game has {comp.legendary_per_commodity}")
    return problems


def _check_tiles(state: GameState) -> list[str]:
    seen = Counter(t for es in state.empires.values() for t in es.tiles)
    seen.update(d.tile for d in state.display)
    return [f"tiles: {title(t)} appears {n} times among the empires' tiles and the display"
            for t, n in sorted(seen.items()) if n > 1]


def _check_set_aside(state: GameState) -> list[str]:
    """A set-up's tiles out of the game stay out: those it sets aside (the Punic War's Antigone, the
    alternative set-ups' discarded starting heroes) and a board's heroes without their board (R53)."""
    setup = atlas.setup_of(state.board) if state.board is not None else None
    chosen = atlas.variant(setup) if setup else None
    boards = atlas.tiles_in_play(setup or atlas.STANDARD)
    out: dict[str, str] = {}
    for t in load_ruleset().tiles:
        if chosen is not None and t.id in chosen.discarded:
            # e.g. WONDER TILES ABILITY CHANGES: "ANTIGONE is set aside and is not used in the game"
            out[t.id] = f"is set aside by the set-up {chosen.id} and not used in the game [rule {chosen.section}]"
        elif t.expansion in atlas.load_setups().extensions and t.expansion not in boards:
            out[t.id] = (f"comes with the {t.expansion.title()} board, which this game does not lay out "
                         "[rule atlas.atlantis] (ruling R53)")
    held = [(f"empires.{e}.tiles", t) for e, es in state.empires.items() for t in es.tiles]
    held += [(f"empires.{e}.copied", es.copied) for e, es in state.empires.items() if es.copied is not None]
    held += [(f"display[{i}]", d.tile) for i, d in enumerate(state.display)]
    return [f"{where}: {title(t)} {out[t]}" for where, t in held if t in out]


def _check_leadership(state: GameState) -> list[str]:
    problems = []
    for track, emp in sorted(state.titles.items()):
        problems += _out_of_play(state, f"titles.{track}", [emp])
    problems += _out_of_play(state, "exchange_holder", [state.exchange_holder])
    count = len(load_ruleset().components.exchange_markers)
    bad = [i for i in state.exchange_played if not 0 <= i < count]
    if bad or len(set(state.exchange_played)) != len(state.exchange_played):
        problems.append(f"exchange_played: marker indexes 0 to {count - 1}, each once "
                        f"(got {list(state.exchange_played)})")
    if len(state.exchange_played) >= count:
        problems.append("exchange_played: once all are played all are available again; list fewer")
    for emp, pids in state.round_start_control.items():
        problems += _out_of_play(state, "round_start_control", [emp])
        problems += [f"round_start_control.{emp}: no province '{p}' in play" for p in pids
                     if p not in state.provinces]
    return problems


def _check_step(state: GameState) -> list[str]:
    """The step belongs to the phase, and every empire it names is in play."""
    tag = type(state.step).__struct_config__.tag
    problems = [] if tag == state.phase else [f"step: a {tag} step in the {state.phase} phase"]
    named = {x for x in _strings(msgspec.to_builtins(state.step)) if x in EMPIRES}
    problems += _out_of_play(state, "step", sorted(named))
    return problems


def _strings(value: object) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(k)
            yield from _strings(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _strings(v)


# --- helpers ---------------------------------------------------------------------------------------------

def holdings(state: GameState) -> Bag:
    """Every resource token off the reserve: behind the screens and in this round's offers and claims."""
    held: Bag = {}
    for es in state.empires.values():
        held = bag_add(held, es.resources)
    if isinstance(state.step, TradeStep):
        for bag in (*state.step.offers.values(), *state.step.claimed.values()):
            held = bag_add(held, bag)
    return held


def place_name(board: Board, pid: str) -> str:
    return next((p.name for p in board.provinces if p.id == pid), pid)


def _plural(kind: str) -> str:
    return {"legion": "legions", "trireme": "triremes", "fortress": "fortresses"}[kind]
