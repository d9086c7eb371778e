"""Why an event happened: the order behind it, the rules and rulings applied, and its figures."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from mncore.core import envelope, explaining
from mncore.core.errors import InvalidCommand
from mncore.core.explaining import Explanation
from mncore.core.rulebook import Cited
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.commands import Order, decode_command
from mncore.rulesets.empires.evolve import evolve, replay
from mncore.rulesets.empires.ids import Track
from mncore.rulesets.empires.projections import track_composition
from mncore.rulesets.empires.rules import lasting_cards, trade
from mncore.rulesets.empires.rules.battle import forced_losses
from mncore.rulesets.empires.rules_index import RULEBOOK
from mncore.rulesets.empires.state import (
    FixedBarbarianDice,
    FixedDice,
    FixedLegendary,
    FixedTile,
    GameState,
    Loss,
    trade_step,
)
from mncore.rulesets.empires.text import describe, format_order, tile_name, title
from mncore.secrecy.seen import Seen
from mncore.store import Row

_REF = re.compile(r"\b(R\d+|(?:10|11)\.[a-z][a-z-]*|(?:setup|atlas)\.[a-z0-9][a-z0-9-]*|\d+\.\d+(?:\.\d+)?)\b")
# where a battle modifier or extra die comes from, when its source is not a tile of 10 or 11
_SOURCE_SECTIONS = {"fortress": "4.2", "myrmidons": "10.achilles", "siege-vessels": "lc.5.3.siege-vessels"}


def explain(rows: Sequence[Row], seq: int, see: Callable[[ev.AnyEvent], Seen[ev.AnyEvent]]) -> Explanation:
    """Explain event seq of a log (rows from 1 to at least seq), each event as `see` (the redaction
    boundary) lets its reader see it."""
    if not 1 <= seq <= len(rows):
        raise InvalidCommand(f"no event {seq}: the log has events 1 to {len(rows)}")
    events, before = _folded(rows, seq)
    event, row = events[-1], rows[seq - 1]
    first = rows[row.batch - 1]
    fixed = _fixed_before(events, seq - row.batch)
    refs = _references(event) + _readings(event, before) + (["R7"] if fixed else [])
    seen, shown = see(event), [see(f) for f in fixed]
    return Explanation(
        seq=seq, type=ev.event_type(event),
        text=describe(seen.value, seen.withheld) + (" (fixed)" if fixed else ""), actor=first.actor,
        batch=row.batch, command=_command_text(first.command, seen.viewer),
        direct=all(isinstance(e, ev.FixedOutcomeUsed) for e in events[row.batch - 1:-1]),
        sections=[Cited(id=r, title=RULEBOOK.index[r]) for r in refs if r in RULEBOOK.index],
        rulings=[Cited(id=r, title=RULEBOOK.rulings[r].title, decision=RULEBOOK.rulings[r].decision)
                 for r in refs if r in RULEBOOK.rulings],
        details=details(seen.value, before) + [describe(f.value, f.withheld) for f in shown])


_fold = envelope.evolving(evolve)

# the last log explained, how far, its events decoded and the state folded so far: explaining each
# event in turn (mn html) then folds the log once instead of once per event
_last: list[tuple[Sequence[Row], int, list[Any], GameState]] = []


def _folded(rows: Sequence[Row], seq: int) -> tuple[list[Any], GameState]:
    """Events 1..seq of rows decoded, and the state before event seq."""
    if _last and _last[0][0] is rows and _last[0][1] < seq:
        _, done, decoded, before = _last[0]
    else:
        done, decoded, before = 0, [], replay([])
    events = decoded + [ev.decode_event(r.payload) for r in rows[done:seq]]
    for e in events[done:seq - 1]:  # a stored log: the kernel's events among them
        before = _fold(before, e)
    _last[:] = [(rows, seq - 1, events[:seq - 1], before)]
    return events, before


def _fixed_before(events: Sequence[ev.AnyEvent], in_batch: int) -> list[ev.FixedOutcomeUsed]:
    """The records, earlier in its batch, of the outcomes fixed in a sandbox that the last event used
    (ruling R7): the dice of its battle, the legendary commodities its empire drew, its tiles."""
    event = events[-1]
    used = [e for e in events[len(events) - 1 - in_batch:-1] if isinstance(e, ev.FixedOutcomeUsed)]
    match event:
        case ev.BattleFought(place=place) | ev.BarbarianBattleFought(place=place):
            return [u for u in used if isinstance(u.outcome, FixedDice | FixedBarbarianDice) and u.place == place]
        case (ev.ResourcesCollected(empire=emp) | ev.LegendaryBonusTaken(empire=emp)
              | ev.Pillaged(empire=emp)):
            return [u for u in used if isinstance(u.outcome, FixedLegendary) and u.empire == emp]
        case ev.TilesTurnedUp(tiles=tiles):
            return [u for u in used if isinstance(u.outcome, FixedTile) and u.outcome.tile in tiles]
    return []


def _command_text(command: str | None, viewer: str | None = None) -> str:
    if command is None:
        # the redaction boundary leaves out a command whose hidden parts viewer may not read
        return "(not shown: it holds choices hidden from you)" if viewer else "(no command recorded)"
    cmd = decode_command(command)
    lines = envelope.order_lines(cmd)
    if lines is not None:
        return "; ".join(lines)  # a block or batch of lines (signed: recorded as the signer's)
    if isinstance(cmd, Order):
        return format_order(cmd)
    return f"{type(cmd).__name__} (the host)"


def _references(event: ev.AnyEvent) -> list[str]:
    """The sections and rulings an event applies: those its class cites, and those it records."""
    found = _REF.findall(type(event).__doc__ or "")
    for name in ("section", "condition"):
        value = getattr(event, name, None)
        if isinstance(value, str):
            found.append(value)
    if isinstance(event, ev.BattleFought):
        for side in (event.attacker, event.defender):
            found += [_source_section(s) for s in (*side.modifiers, *side.extra_dice,
                                                   *event.negated_by.get(side.empire, {}))]
    for tile_field in ("power", "tile"):
        value = getattr(event, tile_field, None)
        if isinstance(value, str):
            found.append(_source_section(value))
    out: list[str] = []
    for ref in found:
        if RULEBOOK.citable(ref) and ref not in out:
            out.append(ref)
    return out


def _readings(event: ev.AnyEvent, before: GameState) -> list[str]:
    """The rulings an event applies that it does not record, found from the state it followed."""
    if (isinstance(event, ev.TradingEnded) and event.section == "2.2"
            and trade.two_empire_stop(trade_step(before)) is not None):
        return ["R27"]  # the two-empire stop, as ruling R27 reads 2.2
    return []


def _source_section(source: str) -> str:
    if source in _SOURCE_SECTIONS:
        return _SOURCE_SECTIONS[source]
    return next((s for s in (f"10.{source}", f"11.{source}") if RULEBOOK.citable(s)), source)


# --- the figures behind an event ---------------------------------------------------------------------

def details(event: ev.AnyEvent, before: GameState) -> list[str]:
    """Readable lines with every figure behind the event (some computed from the state before it)."""
    match event:
        case ev.BattleFought():
            return _battle(event, before)
        case ev.BarbarianBattleFought():
            return _barbarian_battle(event, before)
        case ev.ResourcesCollected():
            return _collection(event)
        case ev.TitleClaimed() | ev.TitleTied():
            return _title(event, before)
        case _:
            return _fields(event)


def _battle(e: ev.BattleFought, before: GameState) -> list[str]:
    board = before.geo_board
    names = {p.id: p.name for p in board.provinces} | {s.id: s.name for s in board.seas}
    where = names.get(e.place, e.place)
    out = [f"A {e.kind} battle in {where}: one roll for each side, total divided by 5 rounded down "
           "is the hits scored (4.2)."]
    for role, side, other in (("attacker", e.attacker, e.defender), ("defender", e.defender, e.attacker)):
        unit = "trireme" if e.kind == "sea" else "legion"
        dice = ", ".join(str(d) for d in side.dice) or "no dice"
        extra = "".join(f" (+{n} die from {_source(s)})" for s, n in side.extra_dice.items())
        mods = "".join(f" {n:+d} {_source(s)} ({_source_section(s)})" for s, n in side.modifiers.items())
        per_hit = lasting_cards.divisor(before, e.place, other.empire, 5)  # 7 against Greek Phalanxes (R235)
        out.append(f"{title(side.empire)} ({role}): {side.units} {unit}(s){extra}; dice {dice} = "
                   f"{sum(side.dice)}{mods} → total {side.total}; {side.total} / {per_hit} = {side.scored} "
                   f"hit(s) scored")
        powers = e.negated_by.get(side.empire, {})
        fortress = side.negated - sum(powers.values())
        by = "".join(f"; {_source(s)} negates {n} ({_source_section(s)})" for s, n in powers.items())
        if fortress:
            out.append(f"  {title(other.empire)}'s fortress negates {fortress} of them (4.2){by}: "
                       f"{side.hits} hit(s) against {title(other.empire)}")
        elif by:
            out.append(f"  {by[2:]}: {side.hits} hit(s) against {title(other.empire)}")
        else:
            out.append(f"  {side.hits} hit(s) against {title(other.empire)}")
    after = replay([e], before)
    for emp, n in e.losses.items():
        if not n:
            continue
        forced = forced_losses(after, Loss(empire=emp, place=e.place, hits=n))
        if forced is None:
            out.append(f"{title(emp)} must lose {n} unit(s), chosen by {title(emp)} (4.2)")
        else:
            out.append(f"{title(emp)} must lose {n} unit(s): {_units(forced)}, forced, {title(emp)} "
                       "having no other choice (4.2)")
    return out


def _barbarian_battle(e: ev.BarbarianBattleFought, before: GameState) -> list[str]:
    """A battle of the Punic War's Barbarians: 4.2's arithmetic with them as one side (ruling R65)."""
    board = before.geo_board
    names = {p.id: p.name for p in board.provinces} | {s.id: s.name for s in board.seas}
    unit = "trireme" if e.kind == "sea" else "legion"
    b, side = e.barbarians, e.empire
    who = "attacker" if e.attacker == "barbarians" else "defender"
    mods = "".join(f" {n:+d} {_source(s)} ({_source_section(s)})" for s, n in side.modifiers.items())
    fort = f" +{b.fortress} fortress (4.2)" if b.fortress else ""
    return [
        f"A {e.kind} battle in {names.get(e.place, e.place)} between the Barbarians and {title(side.empire)} "
        f"(ruling R65{', R66' if e.attacker == 'empire' else ', moved in by ' + title(e.by) + ' (R64)'}): "
        "one roll for each side, total divided by 5 rounded down is the hits scored (4.2).",
        f"The Barbarians ({who}): {b.units} {unit}(s); dice {', '.join(map(str, b.dice)) or 'no dice'} = "
        f"{sum(b.dice)}{fort} → total {b.total}; {b.scored} hit(s) scored"
        + (f", {b.negated} negated by {title(side.empire)}'s fortress (4.2)" if b.negated else "")
        + f": {b.hits} hit(s) against {title(side.empire)}",
        f"{title(side.empire)}: {side.units} {unit}(s); dice {', '.join(map(str, side.dice)) or 'no dice'} = "
        f"{sum(side.dice)}{mods} → total {side.total}; {side.scored} hit(s) scored"
        + (f", {side.negated} negated by the Barbarians' fortress (4.2)" if side.negated else "")
        + f": {side.hits} hit(s) against the Barbarians",
        f"The Barbarians lose {e.barbarians_lost} unit(s), legions first, their fortress last (R65); "
        f"{title(side.empire)} must lose {e.losses} unit(s), chosen by {title(side.empire)} (4.2)"]


def _units(lost: ev.UnitsLost) -> str:
    parts = [f"{n} {kind}(s)" for kind, n in (("legion", lost.legions), ("trireme", lost.triremes)) if n]
    return " and ".join(parts + (["its fortress"] if lost.fortress else []))


def _source(source: str) -> str:
    return {"fortress": "fortress"}.get(source, title(source))


def _collection(e: ev.ResourcesCollected) -> list[str]:
    out = [f"{title(e.empire)} collected from each building it holds (1.1):"]
    out += [f"  {s}" for s in e.sources] or ["  nothing"]
    if e.drawn:
        out.append(f"  {e.drawn} legendary commodit{'y' if e.drawn == 1 else 'ies'} drawn face down (1.2)")
    if e.missed:
        out.append("  owed but not in the reserve: " + ", ".join(f"{n} {t}" for t, n in e.missed.items()))
    return out


def _title(e: ev.TitleClaimed | ev.TitleTied, before: GameState) -> list[str]:
    track: Track = e.track
    out = [f"{title(track)} levels (5.0), recounted from the board and the tiles' bonuses:"]
    for emp in sorted(e.levels, key=lambda x: (-e.levels[x], x)):
        parts = track_composition(before, emp, track) if emp in before.empires else {}
        shown = ", ".join(f"{n} {title(k)}" for k, n in parts.items()) or "nothing"
        out.append(f"  {title(emp)}: {e.levels[emp]} ({shown})")
    if isinstance(e, ev.TitleClaimed):
        if e.decided_by is not None:
            out.append(f"The tie was decided by {title(e.decided_by)}, the previous holder (5.0).")
        if e.drawn:
            out.append("The tie had no previous holder in the game: drawn at random.")
    else:
        out.append(f"{title(e.holder)}, the previous holder, decides between "
                   f"{', '.join(title(x) for x in e.tied)} (5.0).")
    return out


# the words for an event's fields where the field's own name, spaced out, says it less well
_FIELD_WORDS = {"from_province": "from", "to_province": "to", "from_sea": "from", "to_sea": "to",
                "count": "how many", "paid": "paid", "power": "by the power of", "previous": "taken from",
                "replaced": "its control marker replaced", "place": "where", "by_sea": "by sea",
                "again": "of them, a second step (Chariots)", "across": "crossing without a trireme"}


def _fields(event: ev.AnyEvent) -> list[str]:
    """Every recorded figure of an event in words, one per line, for events without their own explanation."""
    out = []
    for name, value in msgspec.structs.asdict(event).items():
        if name in ("board", "state") or value in ({}, (), None, "", False):
            continue
        label = _FIELD_WORDS.get(name, name.replace("_", " "))
        words = "yes" if value is True else _words(name, value)
        out.append(f"{label[:1].upper()}{label[1:]}: {words}")
    return out


def _words(name: str, value: Any) -> str:
    """A field's value as a reader says it: places and empires by name, bags as '2 Wine, 1 Coin'."""
    if name == "power" and isinstance(value, str):
        return _tile_name(value)
    if isinstance(value, dict):
        if all(isinstance(v, int) for v in value.values()):
            return ", ".join(f"{v} {title(str(k))}" for k, v in value.items())
        return "; ".join(f"{title(str(k))}: {_words(name, v)}" for k, v in value.items())
    if isinstance(value, tuple | list):
        return ", ".join(_words(name, v) for v in value)
    if isinstance(value, msgspec.Struct):
        return _words(name, msgspec.structs.asdict(value))
    if isinstance(value, str) and re.fullmatch(r"[a-z]+(-[a-z]+)*", value):
        return title(value)  # an id (greece, mare-aegaeum), never a digest
    return str(value)


def _tile_name(tile_id: str) -> str:
    try:
        return tile_name(tile_id)
    except (KeyError, StopIteration, ValueError, InvalidCommand):
        return title(tile_id)


# a ruling's decision longer than this is named by its title, not pasted into the explanation
_DECISION_SHOWN = 240


def _ruling_line(c: Cited) -> str:
    if c.decision and len(c.decision) <= _DECISION_SHOWN:
        return f"{c.title}: {c.decision}"
    return f"{c.title} (the whole ruling: mn rules {c.id})"


def render(x: Explanation) -> str:
    """The explanation as text for mn explain."""
    return explaining.render(x, title(x.actor) if x.actor != "host" else "the host", _ruling_line)
