"""Projections of the state: who holds which building, leader track levels (5.0), city counts (6.3)."""

from __future__ import annotations

from mncore.rulesets.empires.game_data import load_ruleset, tile, tiles_at
from mncore.rulesets.empires.ids import TRACKS, BuildingKind, Empire, ProvinceId, Track
from mncore.rulesets.empires.kept import LEVELS, kept
from mncore.rulesets.empires.state import GameState, ProvinceState


def track_buildings(track: Track) -> tuple[BuildingKind, ...]:
    """The buildings counted on the track (5.0); none on Military, which counts units."""
    return load_ruleset().numbers.track_buildings.get(track, ())


def holder_of(ps: ProvinceState, space: str) -> Empire | None:
    """Who holds the building on a space: its occupier (4.3.2), else the province's controller."""
    return ps.occupied.get(space, ps.controller)


def held_buildings(state: GameState, empire: Empire) -> list[tuple[ProvinceId, str, BuildingKind]]:
    """Every building the empire controls or occupies, as (province, space, kind)."""
    return [(pid, sid, kind) for pid, ps in state.provinces.items()
            for sid, kind in ps.buildings.items() if holder_of(ps, sid) == empire]


def unit_count(state: GameState, empire: Empire) -> dict[str, int]:
    """The empire's units on the board, by kind; the Centaurs are not a legion of its supply and do not
    count for Military Leadership (atlas.chiron)."""
    facts = kept(state)  # counted over the board once, then carried by evolve
    legions = facts.legions.get(empire, 0)
    legions -= state.empires[empire].centaurs is not None if empire in state.empires else 0
    legions -= state.empires[empire].myrmidons is not None if empire in state.empires else 0  # 10.achilles
    return {"legion": legions, "trireme": facts.triremes.get(empire, 0),
            "fortress": facts.fortresses.get(empire, 0)}


def bonus(state: GameState, empire: Empire, track: Track) -> int:
    """Leader bonuses of the empire's tiles (a copied hero's bonus does not count, 10.castor-pollux)."""
    rs = load_ruleset()
    return sum(tile(rs, t).bonus.on(track) for t in state.empires[empire].tiles)


def level(state: GameState, empire: Empire, track: Track) -> int:
    """The empire's level on a track, recounted from the board (5.0): never a stored counter.

    The count wins over a printed figure that disagrees with it (ruling R37).
    """
    return levels_of(state)[empire][track]


def levels_of(state: GameState) -> dict[Empire, dict[Track, int]]:
    """Every empire's three levels, counted once per state object and kept in its instance dict beside
    the kept facts (kept.py), which carries them to a state folded from it that changed nothing they
    read: the three titles' claims and a tie's award ask them of one board. Never changed by its readers."""
    found: dict[Empire, dict[Track, int]] | None = state.__dict__.get(LEVELS)
    if found is None:
        found = state.__dict__[LEVELS] = {e: count_levels(state, e) for e in state.empires}
    return found


def count_levels(state: GameState, empire: Empire) -> dict[Track, int]:
    """The empire's three levels counted now, its tiles' bonuses read once for the three."""
    rs = load_ruleset()
    held = kept(state).held.get(empire, {})  # buildings held by kind, carried by evolve
    out: dict[Track, int] = {}
    for track in TRACKS:
        if track == "military":
            base = sum(unit_count(state, empire).values()) - greek_fire(state, empire)
        else:
            base = sum(held.get(k, 0) for k in track_buildings(track))
        out[track] = base + boost(state, empire, track)
    for t in state.empires[empire].tiles:  # bonus(): a copied hero's bonus does not count
        b = tile(rs, t).bonus
        out["trade"] += b.trade
        out["culture"] += b.culture
        out["military"] += b.military
    return out


def greek_fire(state: GameState, empire: Empire) -> int:
    """1 while the empire's Greek Fire trireme is on the board: it does not count on Military (R214)."""
    if state.cities is None:
        return 0
    tiles = {t.id for t in tiles_at(load_ruleset(), "greek_fire")}
    built = tiles & set(state.cities.launched) & set(state.empires[empire].tiles)
    return 1 if built and unit_count(state, empire)["trireme"] > 0 else 0


def boost(state: GameState, empire: Empire, track: Track) -> int:
    """Bonus Cards' leader bonuses that last until the end of the round (Horus)."""
    if state.cities is None:
        return 0
    return sum(b.amount for b in state.cities.boosts
               if b.empire == empire and b.track == track and b.round == state.round)


def tracks(state: GameState) -> dict[Empire, dict[Track, int]]:
    """Every empire's three levels (a copy: its readers may change it)."""
    return {emp: dict(levels) for emp, levels in levels_of(state).items()}


def track_composition(state: GameState, empire: Empire, track: Track) -> dict[str, int]:
    """What makes up a level, by source, for explanations."""
    out: dict[str, int] = {}
    if track == "military":
        out.update({k: v for k, v in unit_count(state, empire).items() if v})
        if greek_fire(state, empire):
            out["greek fire trireme"] = -1
    else:
        for _, _, k in held_buildings(state, empire):
            if k in track_buildings(track):
                out[k] = out.get(k, 0) + 1
    rs = load_ruleset()
    for t in state.empires[empire].tiles:
        b = tile(rs, t).bonus.on(track)
        if b:
            out[t] = b
    if boost(state, empire, track):
        out["bonus cards"] = boost(state, empire, track)
    return out


def great_cities(state: GameState, empire: Empire) -> list[tuple[ProvinceId, str]]:
    """Capital and legendary cities the empire controls or occupies (6.3)."""
    return [(pid, sid) for pid, sid, k in held_buildings(state, empire)
            if k in load_ruleset().numbers.great_city_kinds]


def great_city_count(state: GameState, empire: Empire) -> int:
    """len(great_cities(...)), read off the buildings held by kind (kept.py) instead of the board."""
    held = kept(state).held.get(empire, {})
    return sum(held.get(k, 0) for k in load_ruleset().numbers.great_city_kinds)
