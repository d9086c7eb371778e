"""The audit tools for the classic game: positions, explanations, differences, concealment."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import msgspec
from msgspec.structs import replace

from mncore.core import explaining
from mncore.core.dice import Rng
from mncore.core.errors import InvalidCommand
from mncore.core.explaining import Explanation
from mncore.core.protocol import Change
from mncore.core.rulebook import Cited
from mncore.core.toml_text import toml_text
from mncore.rulesets.classic import commands as cm
from mncore.rulesets.classic import events as ev
from mncore.rulesets.classic.ids import TAX
from mncore.rulesets.classic.state import State
from mncore.secrecy.seen import Seen
from mncore.store import Row

HEADER = ("A classic Mare Nostrum position (docs/classic.md): the whole state of a game; "
          "`mn new --ruleset classic --position FILE` starts a sandbox from it.")


# --- positions -----------------------------------------------------------------------------------

def read_position(path: str) -> State:
    """A position file as a state; InvalidCommand naming what is wrong."""
    try:
        state = msgspec.toml.decode(Path(path).read_bytes(), type=State)
    except OSError as err:
        raise InvalidCommand(f"cannot read position file {path}: {err.strerror}") from None
    except msgspec.DecodeError as err:
        raise InvalidCommand(f"position file {path}: {err}") from None
    if state.board is None or not state.civs:
        raise InvalidCommand(f"position file {path}: it names no board or no civilisations")
    from mncore.rulesets.classic.card_powers import TilesFile
    from mncore.rulesets.classic.card_powers import check as check_powers
    from mncore.rulesets.classic.components import check_board
    problems = check_board(state.board)
    if not problems and state.powers is not None:  # an owner's powers, checked as their file is (C16)
        problems = [f"powers.{p}" for p in check_powers(TilesFile(power=state.powers.power), state.board)]
    if problems:
        raise InvalidCommand(f"position file {path}: " + "; ".join(problems))
    return state


def position_command(state: State) -> cm.CreateFromPosition:
    return cm.CreateFromPosition(position=_portable(state))


def _portable(state: State) -> State:
    """What a position carries: no game id or commitment of the game it came from."""
    return replace(state, game_id="", commitment="")


def creation_events(cmd: cm.CreateFromPosition, commitment: str) -> list[ev.AnyEvent]:
    """The game created as the position says (its board, civilisations, options), then the position."""
    from mncore.rulesets.classic.ids import RULESET_ID, RULESET_VERSION
    pos = cmd.position
    options = replace(pos.options, fair_play=False, sandbox=True, fork_of=None)
    created = ev.GameCreated(ruleset_id=RULESET_ID, ruleset_version=RULESET_VERSION, commitment=commitment,
                             board=pos.the_board(), civs=pos.civs, players=dict(pos.players),
                             neutrals=pos.neutrals, options=options, supply=dict(pos.supply),
                             powers=pos.powers)
    return [created, ev.PositionLoaded(state=replace(pos, commitment=commitment, options=options))]


def position_doc(seen: Seen[State]) -> dict[str, Any]:
    """The position as a document; for a side (redaction.seen_state), others' hands and unrevealed
    offers empty, and every hand's size beside them."""
    state = seen.value
    # through JSON, so that the document is plain data (lists, not tuples) as a bundle reads it back
    doc: dict[str, Any] = msgspec.json.decode(msgspec.json.encode(_portable(state)))
    if seen.viewer is not None:
        if "hands" in doc:
            doc["hands"] = {c: ({} if f"state/hands/{c}" in seen.withheld else h) for c, h in doc["hands"].items()}
        trade = doc.get("trade", {})
        if "offers" in trade:
            trade["offers"] = {c: ([] if f"state/trade/offers/{c}" in seen.withheld else v)
                               for c, v in trade["offers"].items()}
        doc["hand_sizes"] = {c: sum(h.values()) for c, h in state.hands.items()}
    return doc


def write_position(seen: Seen[State]) -> str:
    return toml_text(position_doc(seen), HEADER)


def conceal(state: State, viewer: str, rng: Rng) -> State:
    """Others' hands and face-down offers as tax cards of the same number: `mn check` then says
    nothing of what they hold."""
    hands = {c: (h if c == viewer else ({TAX: sum(h.values())} if h else {}))
             for c, h in state.hands.items()}
    t = state.trade
    offers = t.offers if t.revealed else {c: (v if c == viewer else (TAX,) * len(v))
                                          for c, v in t.offers.items()}
    return replace(state, hands=hands, trade=replace(t, offers=offers))


# --- explanations --------------------------------------------------------------------------------

def explain(rows: Sequence[Row], seq: int, see: Callable[[ev.AnyEvent], Seen[ev.AnyEvent]]) -> Explanation:
    """Event seq explained, each event as `see` (the redaction boundary) lets its reader see it."""
    from mncore.rulesets.classic.rules_index import RULEBOOK
    from mncore.rulesets.classic.text import describe, format_order
    if not 1 <= seq <= len(rows):
        raise InvalidCommand(f"no event {seq}: the log has events 1 to {len(rows)}")
    row = rows[seq - 1]
    event: Any = ev.decode_event(row.payload)  # the kernel's events too: they cite no section
    first = rows[row.batch - 1]
    command = format_order(cm.decode_command(first.command)) if first.command else "(hidden)"
    refs = [r.removeprefix("classic:") for r in _rules(event)]
    seen = see(event)
    return Explanation(
        seq=seq, type=type(event).__name__, text=describe(seen.value, seen.withheld), actor=first.actor, batch=row.batch,
        command=command, direct=seq == row.batch,
        sections=[Cited(id=r, title=RULEBOOK.index[r]) for r in refs if r in RULEBOOK.index],
        rulings=[Cited(id=r, title=RULEBOOK.rulings[r].title, decision=RULEBOOK.rulings[r].decision)
                 for r in refs if r in RULEBOOK.rulings],
        details=_figures(event))


def _figures(event: ev.AnyEvent) -> list[str]:
    from mncore.rulesets.classic.components import game_data
    data = game_data()
    match event:
        case ev.GroundBattle(rolls=rolls, sixes=sixes, losses=losses, attacker=a, defender=d, by_power=extra,
                             owed=owed):
            totals = {c: sum(r) + data.auto_six * sixes.get(c, 0) for c, r in rolls.items()}
            out = [f"{c}: dice {list(r)} = {sum(r)}, {sixes.get(c, 0)} automatic 6 (fortress, creature"
                   + (f"; {extra[c]} by powers, C16" if c in extra else "")
                   + f"), total {totals[c]}, {totals[c] // data.hit_every} hit(s)" for c, r in rolls.items()]
            return out + [f"{c} chooses {owed[c]} unit(s) to lose (C9)" if c in owed
                          else f"{c} lost {msgspec.to_builtins(losses.get(c))}" for c in (a, d)]
        case ev.NavalBattle(rolls=rolls, losses=losses):
            return [f"{c}: dice {list(r)} = {sum(r)}, {sum(r) // data.hit_every} hit(s); lost "
                    f"{losses.get(c, 0)}" for c, r in rolls.items()]
        case ev.IncomeCollected(cards=cards):
            return [f"{k}: {v}" for k, v in cards.items()]
    return []


_RULES: dict[str, list[str]] = {
    "GroundBattle": ["classic:6.6", "classic:6.7", "classic:6.8", "classic:6.9", "classic:C9"],
    "NavalBattle": ["classic:6.3", "classic:6.9"], "IncomeCollected": ["classic:3.1", "classic:3.1.1"],
    "CardsGained": ["classic:3.1", "classic:C16"],
    "TradeAsked": ["classic:3.2.1"], "CardsOffered": ["classic:3.2.2"], "OffersRevealed": ["classic:3.2.3"], "CardTaken": ["classic:3.2.4"],
    "CardGiven": ["classic:3.2.6"], "TradeEnded": ["classic:3.2.6", "classic:C6"],
    "GodTaken": ["classic:4.1", "classic:C4"], "GodInvoked": ["classic:4.3", "classic:C3"],
    "ItemBuilt": ["classic:5.4", "classic:5.7"], "InfluencePlaced": ["classic:5.5"],
    "CardBought": ["classic:5.10"], "HandsDiscarded": ["classic:5.2"], "Marched": ["classic:6.4"],
    "InvasionHeld": ["classic:6.5", "classic:6.9", "classic:C9"],
    "LossesChosen": ["classic:6.9", "classic:C9"], "Sacked": ["classic:6.11"],
    "BuildingsClaimed": ["classic:6.11", "classic:3.1.1", "classic:C7"], "Settled": ["classic:6.11", "classic:C7"],
    "RoleAssigned": ["classic:2.1", "classic:2.2"],
    "RoleTied": ["classic:2.2"], "TurnOrder": ["classic:2.3", "classic:C5"],
    "CardsSetAside": ["classic:1.2"], "Placed": ["classic:1.7", "classic:C15"],
    "BlockadeDeclared": ["classic:6.13", "classic:C14"], "BlockadeEnded": ["classic:6.13", "classic:C14"],
    "GameCreated": ["classic:1.4", "classic:1.5", "classic:1.6"],
}


def _rules(event: ev.AnyEvent) -> list[str]:
    if isinstance(event, ev.GameWon):
        return [f"classic:{event.condition}"]
    return _RULES.get(type(event).__name__, [])


def render_explanation(x: Explanation) -> str:
    """The explanation as text for mn explain, laid out as every ruleset's."""
    from mncore.rulesets.classic.text import n
    return explaining.render(x, n(x.actor) if x.actor != "host" else "the host",
                             lambda c: f"{c.title} (the whole ruling: mn rules --ruleset classic {c.id})")


# --- differences ---------------------------------------------------------------------------------

def diff_states(a: State, b: State) -> list[Change]:
    """Every difference of two states, field by field (host view)."""
    left = _flat(msgspec.to_builtins(replace(a, game_id="", board=None, commitment="")))
    right = _flat(msgspec.to_builtins(replace(b, game_id="", board=None, commitment="")))
    return [Change(what=tuple(k.split(".")), before=left.get(k), after=right.get(k),
                   text=f"{k}: {left.get(k)!r} → {right.get(k)!r}")
            for k in sorted(set(left) | set(right)) if left.get(k) != right.get(k)]


def _flat(doc: Any, at: str = "") -> dict[str, Any]:
    if isinstance(doc, dict) and doc:
        out: dict[str, Any] = {}
        for k, v in doc.items():
            out |= _flat(v, f"{at}.{k}" if at else str(k))
        return out
    return {at: doc}


