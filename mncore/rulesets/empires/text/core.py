"""Sentences for the game's own events (creation, phases, reveal, victory)."""

from __future__ import annotations

from msgspec.structs import replace

from mncore.host import sentence
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.state import FixedLegendary, GameState, TradeStep
from mncore.rulesets.empires.ids import Empire
from mncore.rulesets.empires.naming import tile_name, title


def describe(event: ev.AnyEvent, viewer: Empire | None) -> str | None:
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
            return f"Round {event.round}: the {title(event.phase)} phase begins."
        case ev.PositionLoaded():
            return (f"The game starts from a position: round {event.state.round}, "
                    f"{title(event.state.phase)} phase (a sandbox).")
        case ev.KeysPublished():
            only = "; only signed orders are taken" if event.signed_only else ""
            return f"Public keys published for {', '.join(title(e) for e in event.keys)}{only}."
        case ev.SecretRevealed():
            return f"The game's secret is revealed: {event.secret}."
        case (ev.BatchUndone() | ev.UndoConsented() | ev.Corrected() | ev.PaceSet()
              | ev.StandingOrdersSet() | ev.OrdersQueued()):
            return sentence(event, title, viewer)
        case ev.LogUpgraded():
            return (f"The log is rewritten from format {event.from_version} into the current one; "
                    f"its old head was {event.previous_head}.")
        case ev.GameWon():
            who = " and ".join(title(e) for e in event.empires)
            return f"{who} {'win' if len(event.empires) > 1 else 'wins'} the game ({event.condition}). {event.detail}".strip()
    return None


def redact(event: ev.AnyEvent, viewer: Empire | None) -> ev.AnyEvent | None:
    """Face-down tiles are the future draws: nobody sees their order; a loaded position shows a
    viewer only what it may see (text/hidden.py names the same fields)."""
    if viewer is None:
        return None
    match event:
        case ev.TilesDisplayed(display=display):
            return replace(event, display=tuple(d for d in display if d.face_up))
        case ev.PositionLoaded(state=state):
            return replace(event, state=masked(state, viewer))
        case ev.StandingOrdersSet(side=side) if side != viewer:
            return replace(event, orders=())  # a side's plans are its own (redaction.declared)
        case ev.OrdersQueued(side=side) if side != viewer:
            return replace(event, orders=(), dropped=(), reason="")
    return None


def masked(state: GameState, viewer: Empire) -> GameState:
    """The state without what viewer may not see: others' screens and offers, piles, face-down tiles."""
    step = state.step
    if isinstance(step, TradeStep) and not step.revealed:
        step = replace(step, offers={e: (b if e == viewer else {}) for e, b in step.offers.items()})
    return replace(
        state, empires={e: (es if e == viewer else replace(es, resources={}))
                        for e, es in state.empires.items()},
        legendary_pile=(), display=tuple(d for d in state.display if d.face_up), step=step,
        fixed=tuple(replace(f, commodity=None) if isinstance(f, FixedLegendary) else f
                    for f in state.fixed))
