"""The toy as the kernel sees it: one object implementing mncore.protocol.Ruleset."""

from __future__ import annotations

from typing import Any, cast

import msgspec
from msgspec.structs import replace

from mncore.seen import Seen
from mncore.dice import Rng
from mncore.errors import InvalidCommand, RuleViolation
from mncore.host import (PBEM_COMMANDS, PublishKeys, RevealSecret, SignedOrders, UpgradeLog, kernel_only, reveal_events,
                         upgrade_events)
from mncore.protocol import HOST, ForkRef, Hidden, Meta, NewGame, Option, Pending, Ruleset
from mncore.rulebook import Rulebook

from toy import model as m, rules, text

RULEBOOK = Rulebook("toy", "toy.data", source="tests/toy/RULES.md")


class Toy:
    """Two sides, three provinces in a row: muster units, settle clashes with a die, hold them all."""

    id = m.RULESET_ID
    short = "toy"
    version = m.RULESET_VERSION
    name = "Toy (two sides, three provinces)"
    rulebook = RULEBOOK
    event_type: Any = m.AnyEvent
    command_type: Any = m.AnyCommand

    def encode_event(self, event: Any) -> bytes:
        return m.encode(event)

    def decode_event(self, data: bytes | str) -> Any:
        return m.decode_event(data)

    def event_type_of(self, event: Any) -> str:
        return type(event).__name__

    def encode_command(self, command: Any) -> bytes:
        return m.encode(command)

    def decode_command(self, data: bytes | str) -> Any:
        return m.decode_command(data)

    def encode_state(self, state: Any) -> bytes:
        return msgspec.msgpack.encode(state)

    def decode_state(self, data: bytes) -> m.State:
        return msgspec.msgpack.decode(data, type=m.State)

    def initial(self, commitment: str) -> m.State:
        return m.State(commitment=commitment)

    def evolve(self, state: Any, event: Any) -> m.State:
        return m.evolve(state, event)

    def decide(self, state: Any, command: Any, rng: Rng) -> tuple[list[Any], m.State]:
        try:
            events = self._decide(state, command, rng)
        except RuleViolation as err:
            raise RULEBOOK.qualified(err) from None
        for e in events:
            state = m.evolve(state, e)
        return list(events), state

    def _decide(self, state: m.State, command: m.AnyCommand, rng: Rng) -> list[Any]:
        match command:
            case m.CreateToy():
                return rules.create(command, rng, state.commitment)
            case RevealSecret():
                return list(reveal_events(self.meta(state), command))
            case UpgradeLog():
                return list(upgrade_events(command))
            case PublishKeys() | SignedOrders():
                kernel_only(command)
            case _ if isinstance(command, PBEM_COMMANDS):
                kernel_only(command)
            case m.Muster() | m.Pass() | m.Clash():
                return rules.decide_order(state, command, rng)

    def meta(self, state: Any) -> Meta:
        s = cast(m.State, state)
        won = s.winner
        result = "" if won is None else (
            f"{' and '.join(self.side_name(x) for x in won.sides)} won by toy:{won.condition} "
            f"in round {won.round}")
        return Meta(ruleset_id=s.ruleset_id, ruleset_version=s.ruleset_version,
                    commitment=s.commitment, secret=s.secret, sides=s.sides,
                    fair_play=s.options.fair_play, sandbox=s.options.sandbox,
                    forked_at=s.options.fork_of.at if s.options.fork_of else 0,
                    over=won is not None, result=result)

    def named(self, state: Any, game_id: str) -> m.State:
        return replace(cast(m.State, state), game_id=game_id)

    def actor_of(self, command: Any) -> str:
        return str(command.side) if isinstance(command, m.Muster | m.Pass | m.Clash) else HOST

    def fork_created(self, first: Any, commitment: str, fork: ForkRef) -> m.GameCreated:
        created = cast(m.GameCreated, first)
        return replace(created, commitment=commitment, options=m.Options(
            fair_play=False, sandbox=True, fork_of=fork))

    def new_game(self, spec: NewGame) -> m.CreateToy:
        if spec.random_sides or spec.board_file or spec.options:
            raise InvalidCommand("the toy takes only sides and players: no --random, --board "
                                 "or other options")
        sides = tuple(self.resolve_side(s) for s in spec.sides) or m.SIDES
        players: dict[m.Side, str] = {s: self.side_name(s) for s in sides}
        for item in spec.players:
            side, sep, who = item.partition("=")
            if not sep:
                raise InvalidCommand(f"--player {item}: write SIDE=NAME")
            players[self.resolve_side(side)] = who.strip()
        return m.CreateToy(sides=sides, players=players, fair_play=spec.fair_play)

    def reveal(self, secret: str) -> RevealSecret:
        return RevealSecret(secret=secret)

    def pending(self, state: Any) -> list[Pending]:
        return rules.pending(state)

    def options(self, state: Any, side: str) -> list[Option]:
        return rules.options(state, cast(m.Side, side))

    def parse_order(self, line: str, state: Any, side: str) -> m.AnyOrder:
        return text.parse_order(line, cast(m.Side, side))

    def format_order(self, command: Any) -> str:
        return text.format_order(command)

    def describe(self, seen: Seen[Any]) -> str:
        return text.describe(seen.value, seen.withheld)

    def hidden(self, event: Any) -> list[Hidden]:
        # a reserve is drawn face down: only its side sees how many (1.2)
        if isinstance(event, m.ReserveDrawn) and event.count is not None:
            return [Hidden(field="payload/count", visible_to=(event.side,))]
        return []

    def hidden_command(self, command: Any) -> list[Hidden]:
        return []

    def hidden_state(self, state: Any) -> list[Hidden]:
        # each reserve is its side's (1.2): what others read of it is nothing
        return [Hidden(field=f"state/reserves/{s}", visible_to=(s,)) for s in state.reserves]

    def view(self, seen: Seen[Any]) -> dict[str, Any]:
        return text.view(seen)

    def show_text(self, view: dict[str, Any]) -> str:
        return text.show_text(view)

    def status_text(self, state: Any) -> str:
        return text.status_text(state)

    def resolve_side(self, line: str) -> m.Side:
        return text.side_of(line)

    def side_name(self, side: str) -> str:
        return m.board().name(side)


RULESET: Ruleset = Toy()
