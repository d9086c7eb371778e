"""Phase 2, Trade Resources (2.1, 2.2, 2.2.1): the exchange marker, offers and claims."""

from __future__ import annotations

from mncore import events as ev
from mncore.commands import PlayExchangeMarker, TradeCommand
from mncore.dice import Rng
from mncore.errors import require
from mncore.evolve import trade_step
from mncore.flow import Option, Pending
from mncore.ids import Empire
from mncore.ruleset import load_ruleset
from mncore.state import GameState


def trade_leader(state: GameState) -> Empire | None:
    return state.titles.get("trade")


def available_markers(state: GameState) -> list[tuple[int, tuple[int, int]]]:
    """The exchange markers the Trade Leader may play now (2.1), with their index."""
    markers = load_ruleset().components.exchange_markers
    played = state.exchange_played if state.exchange_holder == trade_leader(state) else ()
    return [(i, m) for i, m in enumerate(markers) if i not in played]


def begin(state: GameState, rng: Rng) -> list[ev.AnyEvent]:
    return []


def pending(state: GameState) -> list[Pending]:
    step = trade_step(state)
    leader = trade_leader(state)
    if step.value is None and leader is not None:
        values = ", ".join(str(v) for _, m in available_markers(state) for v in m)
        return [Pending(empire=leader, kind="exchange-marker",
                        text=f"play an exchange marker for one of its values ({values})")]
    return []


def end(state: GameState, rng: Rng) -> list[ev.AnyEvent]:
    return []


def options(state: GameState, empire: Empire) -> list[Option]:
    if not any(p.empire == empire and p.kind == "exchange-marker" for p in pending(state)):
        return []
    return [Option(kind="exchange-marker", order=f"trade {v}")
            for _, m in available_markers(state) for v in m]


def decide(state: GameState, order: TradeCommand, rng: Rng) -> list[ev.AnyEvent]:
    match order:
        case PlayExchangeMarker():
            return play_marker(state, order)


def play_marker(state: GameState, order: PlayExchangeMarker) -> list[ev.AnyEvent]:
    require(state.phase == "trade", "2.1", "exchange markers are played in the Trade phase")
    require(trade_leader(state) == order.empire, "2.1",
            f"only the Trade Leader ({(trade_leader(state) or 'nobody').title()}) plays an exchange marker")
    require(trade_step(state).value is None, "2.1", "an exchange marker was already played this round")
    found = [(i, m) for i, m in available_markers(state) if order.value in m]
    all_values = [v for m in load_ruleset().components.exchange_markers for v in m]
    require(order.value in all_values, "2.1",
            f"no exchange marker shows {order.value} (the markers are 5/0, 2/1 and 4/3)")
    require(bool(found), "2.1",
            f"the marker showing {order.value} was played already; it returns when all three have "
            "been played or a new Trade Leader takes the markers")
    index, _ = found[0]
    return [ev.ExchangeMarkerPlayed(empire=order.empire, marker=index, value=order.value)]
