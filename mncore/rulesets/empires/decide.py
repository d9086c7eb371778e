"""decide(state, command, rng): check a command against the rules and return the events it causes."""

from __future__ import annotations

from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.commands import AnyOrder, CreateGame, RevealSecret
from mncore.dice import Rng, commitment
from mncore.errors import InvalidCommand, refuse, require
from mncore.rulesets.empires.evolve import replay
from mncore.rulesets.empires.flow import decide_order, settle
from mncore.rulesets.empires.commands import ClearFixedOutcomes, FixOutcome  # sandboxes
from mncore.rulesets.empires.rules import sandbox, setup
from mncore.rulesets.empires.state import ForkInfo, GameState


def decide(state: GameState, order: AnyOrder, rng: Rng) -> list[ev.AnyEvent]:
    """The events an order causes, then those that follow by themselves; raises if refused."""
    if state.board is None:
        raise InvalidCommand("there is no game to give orders in")
    if state.winner is not None:
        won = ", ".join(e.title() for e in state.winner.empires)
        refuse("game", f"the game is over: {won} won by {state.winner.condition} "
                       f"in round {state.winner.round}; no more orders are taken")
    if order.empire not in state.empires:
        raise InvalidCommand(f"{order.empire.title()} is not in this game "
                             f"(empires: {', '.join(e.title() for e in state.empires)})")
    if isinstance(order, FixOutcome | ClearFixedOutcomes):
        events = sandbox.decide(state, order)  # in any phase: it only prepares coming draws (R7)
    else:
        events = decide_order(state, order, rng)
    after = replay(events, state)
    return events + settle(after, rng)


def decide_host(state: GameState, command: RevealSecret) -> list[ev.AnyEvent]:
    """The host's acts: revealing the secret, checked against the commitment of the first event."""
    match command:
        case RevealSecret(secret=secret):
            require(state.secret is None, "game", "the secret was already revealed")
            try:
                raw = bytes.fromhex(secret)
            except ValueError:
                raise InvalidCommand("the secret must be hexadecimal") from None
            require(commitment(raw) == state.commitment, "game",
                    "this secret does not match the commitment in the game's first event")
            return [ev.SecretRevealed(secret=secret)]


def create_game(cmd: CreateGame, rng: Rng, commitment: str, fork_of: ForkInfo | None = None
                ) -> list[ev.AnyEvent]:
    """The first events of a game (rules.setup.create), folded with the reducer the rules may not import."""
    return setup.create(cmd, rng, commitment, replay, fork_of)
