"""What the kernel may answer for an Empires player (play by email): the documented default of an
overdue decision (docs/defaults.md), the one legal answer of a forced decision, the events that reveal,
and the empires an event strikes (mn serve's notices)."""

from __future__ import annotations

from mncore.core.dice import Rng, SecretNeeded
from mncore.core.errors import CommandRejected
from mncore.core.protocol import Option
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.decide import decide
from mncore.rulesets.empires.flow import pending, rules_for
from mncore.rulesets.empires.ids import Empire
from mncore.rulesets.empires.rules import dido
from mncore.rulesets.empires.state import GameState
from mncore.rulesets.empires.text import parse_order

# The answers that do least, tried first (docs/defaults.md): end a turn, make no peace, keep nothing
# past the Build phase, offer nothing when the exchange value allows it, refuse a sea battle (Ptolemy).
PASSIVE = ("done", "no peace", "keep nothing", "offer nothing", "refuse battle")
# Decisions a side may take and need not: nobody answers them for it (10.perseus)
OPTIONAL = frozenset({"perseus"})


def _options(state: GameState, empire: Empire) -> list[Option]:
    """The empire's answers to its pending decision: the phase's options (never a sandbox's fixes)."""
    if state.winner is not None or state.board is None:
        return []
    kinds = {p.kind for p in pending(state) if p.empire == empire}
    if not kinds or kinds <= OPTIONAL:
        return []
    if "dido" in kinds:  # Dido's choice comes before the phase's own (10.dido, ruling R213)
        return dido.options(state, empire)
    return list(rules_for(state.phase).options(state, empire))


def _accepted(state: GameState, empire: Empire, line: str) -> bool:
    try:
        decide(state, parse_order(line, state, empire), Rng(None, ""))
    except SecretNeeded:
        return True  # legal as far as the rules go: it draws
    except CommandRejected:
        return False
    return True


def _first_filled(option: Option) -> str | None:
    """A template with the first listed value of each part."""
    if option.template is None or not all(option.parts.get(p) for p in option.parts):
        return None
    return option.template.format(**{p: v[0] for p, v in option.parts.items()})


def default_orders(state: GameState, empire: Empire) -> tuple[str, ...]:
    """The default (docs/defaults.md): the first accepted of the passive answers, else of the whole
    orders in the order options() lists them, else of the templates filled with their first values."""
    options = _options(state, empire)
    whole = [o.order for o in options if o.order]
    filled = [line for o in options if (line := _first_filled(o)) is not None]
    for line in [*PASSIVE, *whole, *filled]:
        if (line in PASSIVE and line not in whole and not line.startswith("offer")):
            continue  # a passive answer is given only when it is offered
        if _accepted(state, empire, line):
            return (line,)
    return ()


def forced_orders(state: GameState, empire: Empire) -> tuple[str, ...] | None:
    """The one legal answer, when the empire's options hold exactly one order line and it is accepted."""
    options = _options(state, empire)
    if len(options) != 1:
        return None
    only = options[0]
    line = only.order
    if line is None and not only.more and all(len(v) == 1 for v in only.parts.values()):
        line = _first_filled(only)
    return (line,) if line is not None and _accepted(state, empire, line) else None


def reveals(event: ev.AnyEvent) -> bool:
    """Whether the event records a random outcome or turns up something hidden until then."""
    match event:
        case (ev.TilesDisplayed() | ev.TilesTurnedUp() | ev.OffersRevealed() | ev.BattleFought()
              | ev.LegendaryPileReshuffled() | ev.ResourcesCollected() | ev.Pillaged()
              | ev.FixedOutcomeUsed() | ev.DiscardsOffered()):  # Dido's holder sees the opponents' discards
            return True
        case ev.LegendaryBonusTaken(take=take):
            return take == "legendary"
        case ev.TitleClaimed(drawn=drawn):
            return drawn
    return False


def struck(event: ev.AnyEvent) -> frozenset[str]:
    """The empires the event strikes: a battle's two sides, an empire losing units, a province's
    control, a building or a trireme to another, or made to lose or take something by another's card.
    A claim on an offer, being named to build or move, a collection or a discard are the course of
    play the empire takes part in: its next report or digest carries them (kernel ruling K13)."""
    match event:
        case ev.BattleFought():
            return frozenset({event.attacker.empire, event.defender.empire})
        case ev.BarbarianBattleFought():
            return frozenset({event.empire.empire})
        case ev.UnitsLost():
            return frozenset({event.empire})
        case ev.ControlConverted():
            return frozenset({event.previous})
        case ev.CentaursStruck():
            return frozenset({event.opponent})
        case ev.TriremeSunk() | ev.LossImposed():
            return frozenset({event.owner})
        case ev.BuildingDestroyed():
            return frozenset({event.owner} if event.owner else ())
        case ev.ResourceForced():
            return frozenset({event.to})
        case ev.BattleWon():
            return frozenset({event.over})
    return frozenset()
