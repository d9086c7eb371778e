"""The toy as the kernel sees it: the kit (mncore/core/kit.py) and what is the toy's own."""

from __future__ import annotations

from typing import Any, cast

from msgspec.structs import replace

from mncore.core.dice import Rng
from mncore.core.kit import Kit
from mncore.core.protocol import HOST, ForkRef, Hidden, Meta, Ruleset
from mncore.core.rulebook import Rulebook
from toy import model as m
from toy import rules, text


class Toy(Kit[m.State, m.AnyEvent, m.AnyCommand]):
    """Two sides, three provinces in a row: muster units, settle clashes with a die, hold them all."""

    id, short, version = m.RULESET_ID, "toy", m.RULESET_VERSION
    name = "Toy (two sides, three provinces)"
    rulebook = Rulebook("toy", "toy.data", source="tests/toy/RULES.md")
    pending, view, show_text, status_text = (staticmethod(rules.pending), staticmethod(text.view),
                                             staticmethod(text.show_text), staticmethod(text.status_text))
    format_order, resolve_side = staticmethod(text.format_order), staticmethod(text.side_of)
    new_game, sentence = staticmethod(text.new_game), staticmethod(text.describe)

    def play(self, state: m.State, command: m.AnyCommand, rng: Rng) -> tuple[list[m.AnyEvent], m.State]:
        made = (rules.create(command, rng, state.commitment) if isinstance(command, m.CreateToy)
                else rules.decide_order(state, command, rng))
        return self.folded(made, state)

    def meta(self, state: m.State) -> Meta:
        won = state.winner
        return self.game_meta(state, sides=state.sides, result=None if won is None else (
            f"{' and '.join(map(self.side_name, won.sides))} won by toy:{won.condition} in round {won.round}"))

    def with_players(self, state: m.State, players: dict[str, str]) -> m.State:
        return replace(state, players={**state.players, **cast(dict[m.Side, str], players)})

    def actor_of(self, command: Any) -> str:
        return str(command.side) if isinstance(command, m.AnyOrder) else HOST

    def fork_created(self, first: Any, commitment: str, fork: ForkRef) -> m.GameCreated:
        return self.forked(first, commitment, fork)  # type: ignore[no-any-return]

    def options(self, state: m.State, side: str) -> list[Any]:
        return rules.options(state, side)  # type: ignore[arg-type]

    def parse_order(self, line: str, state: m.State, side: str) -> m.AnyOrder:
        return text.parse_order(line, side)  # type: ignore[arg-type]

    def hidden(self, event: Any) -> list[Hidden]:  # a reserve is drawn face down: only its side sees how many (1.2)
        return [Hidden(field="payload/count", visible_to=(event.side,))] if (
            isinstance(event, m.ReserveDrawn) and event.count is not None) else []

    def hidden_state(self, state: m.State) -> list[Hidden]:  # each reserve is its side's (1.2): others read nothing
        return [Hidden(field=f"state/reserves/{s}", visible_to=(s,)) for s in state.reserves]

    def side_name(self, side: str) -> str:
        return m.board().name(side)


RULESET: Ruleset = Toy(m.State, m.EVENTS, m.COMMANDS, m.evolve)
