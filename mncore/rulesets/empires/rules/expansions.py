"""Set-up with Legendary City expansions (lc.2, lc.4): the tiles replaced, the objectives, the decks."""

from __future__ import annotations

from collections.abc import Iterable

from mncore.core.dice import Rng
from mncore.core.errors import InvalidCommand
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.cities import available, load_city
from mncore.rulesets.empires.game_data import load_ruleset
from mncore.rulesets.empires.ids import Expansion, TileId, Token

# lc.4: with 2 expansions 8 base tiles give way to 4 of each; with 3, 9 to 3 of each.
_REPLACED = {2: 8, 3: 9}
# 10.midas: "If Midas is in play, add 2 Gold commodity tokens, from the Atlas expansion, to the commodity
# reserve pile" (ruling R211)
_RESERVE_ADDED: dict[TileId, dict[Token, int]] = {"midas": {"gold": 2}}


def reserve_added(tiles: Iterable[TileId]) -> dict[Token, int]:
    """What the reserves gain because these tiles are in play (10.midas; ruling R211)."""
    out: dict[Token, int] = {}
    for t in tiles:
        for token, n in _RESERVE_ADDED.get(t, {}).items():
            out[token] = out.get(token, 0) + n
    return out


def check_expansions(chosen: tuple[Expansion, ...]) -> None:
    """Refuse an expansion named twice or one whose data this engine does not ship."""
    if len(set(chosen)) != len(chosen):
        raise InvalidCommand("--expansion: an expansion is named twice [rule lc.4]")
    missing = [x for x in chosen if x not in available()]
    if missing:
        raise InvalidCommand(f"--expansion {missing[0]}: not available in this engine (available: "
                             f"{', '.join(available())}) [rule lc.2]")


def base_tiles() -> list[TileId]:
    """The base game's heroes and wonders that go on the display (not starting, not the Pyramids)."""
    return [t.id for t in load_ruleset().tiles if not t.expansion and not t.starting and t.kind != "pyramids"]


def set_up(chosen: tuple[Expansion, ...], rng: Rng) -> ev.CitiesSetUp:
    """The tiles swapped, the Objective tiles placed face up and the decks, as lc.4 says for 1, 2 or 3."""
    check_expansions(chosen)
    cities = [load_city(x) for x in chosen]
    if len(cities) == 1:
        removed, added = list(cities[0].replaces), [t.id for t in cities[0].tiles]
        objectives = [o.id for o in cities[0].objectives]
    else:
        removed = sorted(rng.shuffled(base_tiles())[:_REPLACED[len(cities)]])
        each = _REPLACED[len(cities)] // len(cities)
        added = [t for c in cities for t in rng.shuffled([t.id for t in c.tiles])[:each]]
        firsts = [rng.choice([o.id for o in c.objectives]) for c in cities]
        rest = sorted(o.id for c in cities for o in c.objectives if o.id not in firsts)
        # two expansions: a third objective drawn from the other four (lc.4)
        objectives = firsts + ([rng.choice(rest)] if len(cities) == 2 else [])
    return ev.CitiesSetUp(expansions=chosen, removed=tuple(removed), added=tuple(added),
                          objectives=tuple(objectives), decks={c.id: c.deck_cards() for c in cities},
                          supply=reserve_added(added))


def display_pool(setup: ev.CitiesSetUp | None) -> list[TileId]:
    """The tiles the display is made of: the base ones, with the expansions' replacements."""
    pool = base_tiles()
    if setup is None:
        return pool
    return [t for t in pool if t not in setup.removed] + list(setup.added)
