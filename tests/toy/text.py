"""The toy in words: its order grammar, one sentence per event, what each side may see."""

from __future__ import annotations

from typing import Any, cast

from mncore.core import envelope
from mncore.core.errors import InvalidCommand
from mncore.core.name_matching import resolve
from mncore.core.protocol import NewGame
from mncore.secrecy.seen import Seen, Withheld
from toy.model import (
    PROVINCES,
    SIDES,
    AnyEvent,
    AnyOrder,
    Clash,
    ClashFought,
    CreateToy,
    GameCreated,
    GameWon,
    Muster,
    Pass,
    Passed,
    PhaseBegan,
    Province,
    ReserveDrawn,
    Side,
    State,
    UnitMustered,
    board,
)
from toy.rules import pending

USAGE = "muster PROVINCE | pass | clash PROVINCE"


def side_of(text: str) -> Side:
    return cast(Side, resolve("side", text, {s: [board().name(s)] for s in SIDES}))


def new_game(spec: NewGame) -> CreateToy:
    """The creation command `mn new` asks for: the sides named (all by default), SIDE=NAME players."""
    if spec.random_sides or spec.board_file or spec.options:
        raise InvalidCommand("the toy takes only sides and players: no --random, --board or other options")
    sides = tuple(side_of(s) for s in spec.sides) or SIDES
    players: dict[Side, str] = {s: board().name(s) for s in sides}
    for side, sep, who in (item.partition("=") for item in spec.players):
        if not sep:
            raise InvalidCommand(f"--player {side}: write SIDE=NAME")
        players[side_of(side)] = who.strip()
    return CreateToy(sides=sides, players=players, fair_play=spec.fair_play)


def province_of(text: str) -> Province:
    return cast(Province, resolve("province", text, {p: [board().name(p)] for p in PROVINCES}))


def parse_order(text: str, side: Side) -> AnyOrder:
    """One order line: `muster PROVINCE`, `pass` or `clash PROVINCE`; InvalidCommand otherwise."""
    words = text.split()
    match words:
        case ["muster", where]:
            return Muster(side=side, province=province_of(where))
        case ["pass"]:
            return Pass(side=side)
        case ["clash", where]:
            return Clash(side=side, province=province_of(where))
    raise InvalidCommand(f"cannot read '{text}' as a toy order; expected {USAGE}")


def format_order(cmd: Any) -> str:
    match cmd:
        case Muster(province=p):
            return f"muster {p}"
        case Pass():
            return "pass"
        case Clash(province=p):
            return f"clash {p}"
    return type(cmd).__name__


def _describe(event: AnyEvent, withheld: Withheld) -> str:
    """One sentence for an event as the boundary let its reader see it (the fields `withheld` gone)."""
    n = board().name
    match event:
        case GameCreated(sides=sides, players=players):
            return "Toy game created: " + ", ".join(f"{n(s)} ({players[s]})" for s in sides)
        case ReserveDrawn(side=s) if "payload/count" in withheld:
            return f"{n(s)} drew a face-down reserve"
        case ReserveDrawn(side=s, count=c):
            return f"{n(s)} drew a reserve of {c}"
        case PhaseBegan(round=r, phase=phase):
            return f"Round {r}: the {phase} phase began"
        case UnitMustered(side=s, province=p):
            return f"{n(s)} mustered a unit in {n(p)}"
        case Passed(side=s):
            return f"{n(s)} passed"
        case ClashFought(province=p, rolls=rolls, winner=w, ruling=ruling):
            dice = ", ".join(f"{n(s)} rolled {r}" for s, r in rolls.items())
            tie = f" (a tie: the holder keeps it, ruling {ruling})" if ruling else ""
            return f"Clash in {n(p)}: {dice}; {n(w)} holds it{tie}"
        case GameWon(sides=sides, condition=c):
            return f"{' and '.join(n(s) for s in sides)} won (rule toy:{c})"
    return type(event).__name__


describe = envelope.describing(_describe, board().name)  # the kernel's events in the kernel's words


def view(seen: Seen[State]) -> dict[str, Any]:
    """The game as the boundary lets its reader see it: a reserve withheld is left out, so reads None."""
    state = seen.value
    return {
        "game": state.game_id, "ruleset": state.ruleset_id, "round": state.round,
        "phase": state.phase, "fair_play": state.options.fair_play, "sandbox": state.options.sandbox,
        "winner": list(state.winner.sides) if state.winner else None,
        "pending": [{"side": p.empire, "kind": p.kind, "text": p.text} for p in pending(state)],
        "provinces": {p: {"holder": state.holders.get(p), "units": dict(state.units.get(p, {}))}
                      for p in PROVINCES},
        "reserves": {s: state.reserves.get(s) for s in state.sides},
    }


def show_text(doc: dict[str, Any]) -> str:
    n = board().name
    lines = [f"Game {doc['game']}: round {doc['round']}, {doc['phase']} phase"]
    for p, info in doc["provinces"].items():
        held = n(info["holder"]) if info["holder"] else "nobody"
        units = ", ".join(f"{n(s)} {k}" for s, k in info["units"].items()) or "no units"
        lines.append(f"  {n(p):<6} held by {held}: {units}")
    lines.append("Reserves: " + ", ".join(
        f"{n(s)} {'hidden' if k is None else k}" for s, k in doc["reserves"].items()))
    return "\n".join(lines)


def status_text(state: State) -> str:
    n = board().name
    lines = [f"Game {state.game_id}: round {state.round}, {state.phase} phase"]
    if not state.options.fair_play:
        lines.append("NOT a fair-play game: its secret is known (seed) or it is a sandbox.")
    if state.winner is not None:
        lines.append(f"Over: {' and '.join(n(s) for s in state.winner.sides)} won "
                     f"(rule toy:{state.winner.condition})")
    else:
        lines.append("Waiting for:")
        lines += [f"  {n(p.empire)}: {p.kind} — {p.text}" for p in pending(state)]
    return "\n".join(lines)
