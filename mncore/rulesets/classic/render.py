"""Views of the classic game: `mn show --json` (as a side may see it), `mn show`, `mn status`."""

from __future__ import annotations

from typing import Any

import msgspec

from mncore.rulesets.classic.card_powers import NO_POWERS, describe_effect
from mncore.rulesets.classic.flow import pending
from mncore.rulesets.classic.rules.common import name, role_count
from mncore.rulesets.classic.state import State
from mncore.secrecy.seen import Seen


def view(seen: Seen[State]) -> dict[str, Any]:
    """The game as the boundary lets its reader see it (redaction.seen_state): what it withholds (others'
    hands and unrevealed offers) shown by count only."""
    state, shut = seen.value, seen.withheld
    t = state.trade
    return {
        "game": state.game_id, "ruleset": state.ruleset_id, "round": state.round, "phase": state.phase,
        "fair_play": state.options.fair_play, "sandbox": state.options.sandbox,
        "variant": state.options.variant,
        "winner": None if state.winner is None else {
            "civ": state.winner.civ, "condition": state.winner.condition, "detail": state.winner.detail},
        "pending": [{"side": p.empire, "kind": p.kind, "text": p.text} for p in pending(state)],
        "roles": dict(state.roles),
        "order": list(state.turns.order),
        "civs": {c: _civ(state, c, f"state/hands/{c}" not in shut) for c in state.civs},
        "neutrals": list(state.neutrals),
        "provinces": {p: _land(state, p) for p in sorted(state.lands)},
        "seas": {s: dict(here) for s, here in sorted(state.seas.items()) if here},
        "set_aside": list(state.set_aside),
        "blockade": None if state.blockade is None else msgspec.to_builtins(state.blockade),
        "supply": dict(state.supply),
        "powers": None if state.powers is None else {
            "sha256": state.powers.sha256,
            "cards": {p.card: [describe_effect(e) for e in p.effects] for p in state.powers.power}},
        "trade": {
            "asked": t.asked, "traders": list(t.traders), "revealed": t.revealed,
            "offers": {c: (len(v) if f"state/trade/offers/{c}" in shut else list(v)) for c, v in t.offers.items()},
            "open": {c: list(v) for c, v in t.open.items()},
            "taken": {c: list(v) for c, v in t.taken.items()}, "taker": t.taker,
        },
    }


def _civ(state: State, civ: str, visible: bool) -> dict[str, Any]:
    hand = state.hand(civ)
    god = state.gods.get(civ)
    return {
        "player": state.players.get(civ, ""),
        "hand": dict(hand) if visible else None,
        "hand_size": sum(hand.values()),
        "cards": list(state.cards.get(civ, ())),
        "god": None if god is None else {"god": god.god, "face_up": god.face_up},
        "counts": {r: role_count(state, civ, r) for r in ("director", "priest", "politician", "general")},
    }


def _land(state: State, pid: str) -> dict[str, Any]:
    land = state.lands[pid]
    return {
        "influence": land.influence or None,
        "buildings": [b.kind + (f":{b.resource}" if b.resource else "") for b in land.buildings],
        "units": {c: {k: getattr(u, k) for k in ("legion", "creature", "fortress", "trireme") if getattr(u, k)}
                  for c, u in land.units.items()},
        "occupier": land.occupier or None, "converter": land.converter or None,
        "claims": [b.kind + (f":{b.resource}" if b.resource else "") for b in land.claims],  # ruling C7
    }


def show_text(doc: dict[str, Any]) -> str:
    lines = [f"Game {doc['game']}: round {doc['round']}, {doc['phase']} phase"]
    if doc["winner"]:
        w = doc["winner"]
        lines.append(f"Won by {_n(w['civ'])} (rule classic:{w['condition']}): {w['detail']}")
    lines.append("Roles: " + ", ".join(f"{_n(r)} {_n(c)}" for r, c in doc["roles"].items()))
    for civ, info in doc["civs"].items():
        hand = ("hidden" if info["hand"] is None
                else ", ".join(f"{k} {v}" for k, v in info["hand"].items()) or "empty")
        god = info["god"]
        god_text = f"; god {_n(god['god'])} ({'face up' if god['face_up'] else 'face down'})" if god else ""
        cards = ", ".join(_n(c) for c in info["cards"]) or "none"
        lines.append(f"  {_n(civ)} ({info['player']}): {info['hand_size']} card{'s' * (info['hand_size'] != 1)} ({hand}); heroes and "
                     f"wonders: {cards}{god_text}")
    lines.append("Provinces:")
    for pid, land in doc["provinces"].items():
        if not (land["influence"] or land["buildings"] or land["units"]):
            continue
        units = "; ".join(f"{_n(c)} " + ", ".join(f"{v} {k}" for k, v in u.items())
                          for c, u in land["units"].items())
        held = _n(land["influence"]) if land["influence"] else "nobody"
        extra = "".join(f", {k} {_n(land[k])}" for k in ("occupier", "converter") if land[k])
        extra += f" (on {', '.join(land['claims'])})" if land.get("claims") and land["occupier"] else ""
        lines.append(f"  {_n(pid)}: {held}; {', '.join(land['buildings']) or 'no buildings'}"
                     f"{'; ' + units if units else ''}{extra}")
    if doc["powers"]:
        lines.append("Owner's powers (C16): " + "; ".join(f"{_n(c)}: {', '.join(e)}"
                                                      for c, e in doc["powers"]["cards"].items()))
    else:
        lines.append(NO_POWERS)
    if doc["seas"]:
        lines.append("Seas: " + "; ".join(f"{_n(s)} " + ", ".join(f"{_n(c)} {k}" for c, k in here.items())
                                          for s, here in doc["seas"].items()))
    return "\n".join(lines)


def _n(thing: str) -> str:
    from mncore.rulesets.classic.text import n
    return n(thing)


def status_text(state: State) -> str:
    lines = [f"Game {state.game_id}: round {state.round}, {state.phase or 'set-up'} phase"]
    if not state.options.fair_play:
        lines.append("NOT a fair-play game: its secret is known (seed) or it is a sandbox.")
    if state.winner is not None:
        lines.append(f"Over: {name(state, state.winner.civ)} won (rule classic:{state.winner.condition}): "
                     f"{state.winner.detail}")
    else:
        lines.append("Waiting for:")
        lines += [f"  {name(state, p.empire)}: {p.kind} — {p.text}" for p in pending(state)]
    return "\n".join(lines)
