"""What every ruleset's seam shares, written once: codecs from its unions, state blobs, initial state, meta, decide.

A ruleset's seam subclasses Kit with its own state, event and command types and gives only what is its
game's own: `play` (its rules, raising RuleViolation with a section of its rulebook), its reducer, its
texts and views. The kernel's events and commands ride beside its own (mncore/core/envelope.py).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from typing import Any, Generic, TypeVar

import msgspec
from msgspec.structs import replace

from mncore.core import envelope
from mncore.core.dice import Rng
from mncore.core.errors import InvalidCommand, RuleViolation
from mncore.core.protocol import Hidden, Meta
from mncore.core.rulebook import Rulebook
from mncore.secrecy.seen import Seen

S = TypeVar("S", bound=msgspec.Struct)
E = TypeVar("E")
C = TypeVar("C")


class Kit(ABC, Generic[S, E, C]):
    """The plumbing of a seam over the game's state S, events E and commands C (its unions, without
    the kernel's). A subclass sets the class attributes below and defines `play`."""

    id: str
    short: str
    version: int
    name: str
    rulebook: Rulebook
    sentence: Callable[[Any, frozenset[str]], str]  # an event's sentence (envelope.describing)

    def __init__(self, state: type[S], events: envelope.Codec[Any], commands: envelope.Codec[Any],
                 evolve: Callable[[S, E], S]) -> None:
        """`events`, `commands`: the codecs of the game's unions (envelope.events, envelope.commands);
        `evolve`: its reducer, which checks nothing and never sees a kernel event."""
        self.state_type = state
        self.events, self.commands = events, commands
        self.event_type: Any = self.events.type  # the whole unions a log holds (schemas/)
        self.command_type: Any = self.commands.type
        # the reducer with the kernel's fold beside it, nothing between: a replay calls it per event
        self.evolve: Callable[[S, Any], S] = envelope.evolving(evolve)
        self.own_evolve = evolve
        self._state_encoder = msgspec.msgpack.Encoder()
        self._state_decoder = msgspec.msgpack.Decoder(state)
        self.decode_event = self.events.decode  # type: ignore[method-assign,assignment]  # per row of a replay

    # --- codecs: the log's bytes, the snapshot cache's blobs ----------------------------------------

    def encode_event(self, event: Any) -> bytes:
        return self.events.encode(event)

    def decode_event(self, data: bytes | str) -> Any:
        return self.events.decode(data)

    def event_type_of(self, event: Any) -> str:
        return type(event).__name__

    def encode_command(self, command: Any) -> bytes:
        return self.commands.encode(command)

    def decode_command(self, data: bytes | str) -> Any:
        return self.commands.decode(data)

    def encode_state(self, state: S) -> bytes:
        return self._state_encoder.encode(state)

    def decode_state(self, data: bytes) -> S:
        return self._state_decoder.decode(data)

    # --- the fold and the decisions ------------------------------------------------------------------

    def initial(self, commitment: str) -> S:
        return self.state_type(commitment=commitment)

    def named(self, state: S, game_id: str) -> S:
        return replace(state, game_id=game_id)

    def folded(self, events: Iterable[E], state: S) -> tuple[list[E], S]:
        """The events and the state they fold into from `state` (the game's reducer: no kernel event)."""
        out = list(events)
        for e in out:
            state = self.own_evolve(state, e)
        return out, state

    @abstractmethod
    def play(self, state: S, command: C, rng: Rng) -> tuple[list[E], S]:
        """The game's own decision: its events and the state after; RuleViolation naming a section."""

    def decide(self, state: S, command: C, rng: Rng) -> tuple[list[E], S]:
        """`play`, its sections qualified with the ruleset's namespace (empires:4.2)."""
        try:
            return self.play(state, command, rng)
        except RuleViolation as err:
            raise self.rulebook.qualified(err) from None

    # --- what the kernel reads of a state ------------------------------------------------------------

    def game_meta(self, state: Any, *, sides: tuple[str, ...], result: str | None, **more: Any) -> Meta:
        """The Meta of a state whose `options` hold fair_play, sandbox and fork_of (the kernel's record
        of a fork; the secret is the kernel's, mncore/core/kernel_state.py); `result` None while the
        game runs. `more`: the game's round, players, phase."""
        o = state.options
        return Meta(ruleset_id=state.ruleset_id, ruleset_version=state.ruleset_version,
                    commitment=state.commitment, sides=sides, fair_play=o.fair_play,
                    sandbox=o.sandbox, forked_at=o.fork_of.at if o.fork_of else 0,
                    over=result is not None, result=result or "", **more)

    def forked(self, created: Any, commitment: str, fork_of: Any) -> Any:
        """A first event made a fork's: the new commitment, a sandbox that is not fair play (K7)."""
        return replace(created, commitment=commitment, options=replace(
            created.options, fair_play=False, sandbox=True, fork_of=fork_of))

    def describe(self, seen: Seen[Any]) -> str:
        """The event's sentence in the game's words (`sentence`: the kernel's events in the kernel's)."""
        return self.sentence(seen.value, seen.withheld)

    # --- a new game's players --------------------------------------------------------------------

    @abstractmethod
    def resolve_side(self, text: str) -> Any: ...

    @abstractmethod
    def side_name(self, side: str) -> str: ...

    def seated(self, players: Iterable[str], sides: Iterable[str], form: str) -> tuple[dict[Any, str], dict[Any, str]]:
        """Who plays which side (`mn new`): `players` as SIDE=NAME (`form` says how), `sides` as typed
        (--empire), each side once. The sides in play with their players (its own name where none is
        given), and the players left over, named for a side not in play."""
        named: dict[Any, str] = {}
        for item in players:
            typed, sep, who = item.partition("=")
            if not sep:
                raise InvalidCommand(f"--player {item}: write {form}")
            side = self.resolve_side(typed)
            if side in named:  # the later one would silently replace the first
                raise InvalidCommand(f"--player {item}: {self.side_name(side)} is already played by "
                                     f"{named[side]}; give each empire one --player")
            named[side] = who.strip()
        chosen: dict[Any, str] = {}
        for typed in sides:
            side = self.resolve_side(typed)
            if side in chosen:
                raise InvalidCommand(f"--empire {typed}: {self.side_name(side)} is named twice")
            chosen[side] = named.pop(side, self.side_name(side))
        return chosen, named

    def hidden_command(self, command: Any) -> list[Hidden]:
        return []  # a game whose commands hide nothing
