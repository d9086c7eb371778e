"""Sentences for the game's own events (creation, phases, victory)."""

from __future__ import annotations

from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.display_names import tile_name, title
from mncore.rulesets.empires.ids import PHASE_NAMES
from mncore.secrecy.seen import Withheld


def describe(event: ev.AnyEvent, withheld: Withheld) -> str | None:
    match event:
        case ev.GameCreated():
            who = ", ".join(f"{title(e)} ({p})" for e, p in event.players.items())
            fair = "" if event.options.fair_play else "; NOT a fair-play game (known seed or sandbox)"
            fork = (f"; forked from {event.options.fork_of.game} at event {event.options.fork_of.at}"
                    if event.options.fork_of else "")
            return (f"Game created on board '{event.board.id}' under {event.ruleset_id} "
                    f"v{event.ruleset_version}: {who}{fair}{fork}.")
        case ev.TilesDisplayed():
            up = [tile_name(d.tile) for d in event.display if d.face_up]
            down = sum(1 for d in event.display if not d.face_up)
            return f"Heroes and wonders displayed face up: {', '.join(up)}; {down} face down."
        case ev.PhaseBegan():
            return f"Round {event.round}: the {PHASE_NAMES[event.phase]} phase begins."
        case ev.PositionLoaded():
            return (f"The game starts from a position: round {event.state.round}, "
                    f"{PHASE_NAMES[event.state.phase]} phase (a sandbox).")
        case ev.GameWon():
            who = " and ".join(title(e) for e in event.empires)
            return f"{who} {'win' if len(event.empires) > 1 else 'wins'} the game ({event.condition}). {event.detail}".strip()
    return None
