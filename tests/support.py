"""Test helpers: build games from their history, give orders as lines, read what happened."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from mncore.core.dice import GENESIS_HASH, Rng, seeded_secret
from mncore.core.errors import RuleViolation
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.board import load_board
from mncore.rulesets.empires.commands import AnyOrder, CreateGame
from mncore.rulesets.empires.decide import create_game, decide
from mncore.rulesets.empires.evolve import replay
from mncore.rulesets.empires.ids import Empire
from mncore.rulesets.empires.state import GameState
from mncore.rulesets.empires.text import parse_order

THREE: dict[Empire, str] = {"rome": "Ann", "greece": "Ben", "carthage": "Cat"}
FOUR: dict[Empire, str] = {**THREE, "egypt": "Dee"}
FIVE: dict[Empire, str] = {**FOUR, "babylon": "Eve"}


@dataclass
class Play:
    """A game in memory: its events and state; orders are decided with a seeded Rng per order."""

    seed: str = "test"
    events: list[ev.AnyEvent] = field(default_factory=list)
    state: GameState = field(default_factory=GameState)

    def rng(self) -> Rng:
        # a fresh stream per order, keyed by how long the log is, as the store does with the head hash
        return Rng(seeded_secret(self.seed), f"{len(self.events):064d}")

    def given(self, *events: ev.AnyEvent) -> Play:
        """Add facts to the history without deciding them (arrange a situation)."""
        self.events += events
        self.state = replay(events, self.state)
        return self

    def order(self, empire: Empire, line: str | AnyOrder) -> list[ev.AnyEvent]:
        """Decide one order (a line or a command) and apply its events; returns them."""
        cmd = parse_order(line, self.state, empire) if isinstance(line, str) else line
        out = decide(self.state, cmd, self.rng())
        self.given(*out)
        return out

    def orders(self, empire: Empire, *lines: str) -> list[ev.AnyEvent]:
        out: list[ev.AnyEvent] = []
        for line in lines:
            out += self.order(empire, line)
        return out


def new_game(players: dict[Empire, str] = FIVE, seed: str = "test",
             display: str = "experienced") -> Play:
    """A new game on the shipped board, created as `mn new --seed` would."""
    cmd = CreateGame(board=load_board(), players=players, display=display,  # type: ignore[arg-type]
                     fair_play=False)
    secret = seeded_secret(seed)
    play = Play(seed=seed)
    return play.given(*create_game(cmd, Rng(secret, GENESIS_HASH), "0" * 64))


def assert_refused(play: Play, empire: str, line: str, section: str) -> None:
    """The order is refused under section, and neither the state nor the log changes."""
    before_state, before_log = play.state, list(play.events)
    with pytest.raises(RuleViolation) as err:
        play.order(empire, line)  # type: ignore[arg-type]
    assert err.value.section == section
    assert play.state == before_state and play.events == before_log


def of_type(events: list[ev.AnyEvent], kind: type) -> list:  # type: ignore[type-arg]
    return [e for e in events if isinstance(e, kind)]


def said_to(event: ev.AnyEvent, viewer: str | None) -> str:
    """The event's sentence as viewer reads it: through the redaction boundary, as every output makes it."""
    from mncore.rulesets.empires.seam import RULESET
    from mncore.secrecy import boundary
    return boundary.describe(RULESET, event, viewer, False)


def seen_by(event: ev.AnyEvent, viewer: str | None) -> ev.AnyEvent:
    """The event as viewer may see it (boundary.seen_event): each field hidden from it withheld."""
    from mncore.rulesets.empires.seam import RULESET
    from mncore.secrecy import boundary
    seen: ev.AnyEvent = boundary.seen_event(RULESET, event, viewer, False).value
    return seen
