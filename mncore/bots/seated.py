"""A game played by bots in every seat (`mn demo --bot`): each seat handed over by the host's act,
each decision the service's answer for the bot that holds it, then the secret revealed and verified."""

from __future__ import annotations

from collections.abc import Callable

from mncore.core.errors import InvalidCommand
from mncore.core.kernel_acts import SetSeat
from mncore.games import lifecycle, reading, writing
from mncore.pbem import seats
from mncore.store import Store

STEP = 5  # the service's answers between two looks at the round (a round takes dozens)


def play_seated(store: Store, game_id: str, level: str, budget: int, max_orders: int,
                echo: Callable[[str], None]) -> bool:
    """Hand every side's seat of a new game to a bot (K14) and let the service answer until the game
    is over or max_orders answers were given; reveal the secret of a finished game and verify it.
    Whether the log verified. InvalidCommand if no chooser of bots is registered (mncore.pbem.seats)."""
    if not seats.registered():
        raise InvalidCommand("no bot can take a seat: no chooser is registered (mncore.rulesets.players_by_id.seat_bots)")
    cur = reading.current(store, game_id)
    meta = cur.meta
    names = ", ".join(cur.ruleset.side_name(s) + (f" ({meta.players[s]})" if meta.players.get(s) else "")
                      for s in meta.sides)
    echo(f"Demo game {game_id} in {store.path}: every seat handed to a bot ({level}, budget {budget}): {names}")
    for side in meta.sides:  # every seat first: the bots answer once they all sit
        writing.give(store, game_id, SetSeat(side=side, bot=level, budget=budget), answer=False)
    given = 0
    cur = reading.current(store, game_id)
    seen = cur.meta.round
    echo(f"Round {seen} begins by event {cur.head[0]}")
    while not cur.meta.over and given < max_orders:
        rows = writing.advance(store, game_id, min(STEP, max_orders - given), cur)
        if not rows:
            break
        given += sum(1 for r in rows if r.seq == r.batch)
        cur = reading.current(store, game_id)
        if cur.meta.round != seen:
            seen = cur.meta.round
            echo(f"Round {seen} begins by event {cur.head[0]}")
    meta = cur.meta
    if meta.over:
        echo(f"Result: {meta.result}")
        lifecycle.reveal(store, game_id)
    else:
        echo(f"No result after {cur.head[0]} events ({given} answers; stopped at --max-orders {max_orders}, "
             "or no bot could answer).")
    report = lifecycle.verify_game(store, game_id)
    echo(f"Verify: {'ok' if report.ok else 'FAILED'} — " + "; ".join(report.proven or [report.reason or ""]))
    echo(f"Read it with: mn log {game_id} | mn show {game_id} | mn verify {game_id}")
    return report.ok
