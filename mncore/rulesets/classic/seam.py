"""Mare Nostrum (2003) with the Mythology expansion as the kernel sees it: one protocol object."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, cast

from msgspec.structs import replace

from mncore.core.dice import Rng
from mncore.core.errors import InvalidCommand
from mncore.core.explaining import Explanation
from mncore.core.kit import Kit
from mncore.core.protocol import HOST, Change, ForkRef, Hidden, Meta, NewGame, Option, Pending, Ruleset
from mncore.rulesets.classic import audit_tools, render, text
from mncore.rulesets.classic import commands as cm
from mncore.rulesets.classic import events as ev
from mncore.rulesets.classic.card_powers import NO_POWERS
from mncore.rulesets.classic.card_powers import read as read_powers
from mncore.rulesets.classic.components import game_data, load_board
from mncore.rulesets.classic.evolve import evolve, replay
from mncore.rulesets.classic.hiding import hidden_in_state
from mncore.rulesets.classic.ids import RULESET_ID, RULESET_VERSION, Setup, Variant
from mncore.rulesets.classic.rules_index import RULEBOOK
from mncore.rulesets.classic.state import State
from mncore.secrecy.seen import Seen
from mncore.store import Row

OPTIONS = {"variant": ("standard", "long"), "setup": ("basic", "advanced"), "tiles": ()}  # () any value


class Classic(Kit[State, ev.AnyEvent, cm.AnyCommand]):
    """Mare Nostrum (2003) with the Mythology expansion: 3 to 6 civilisations, reconstructed board."""

    id, short, version, rulebook = RULESET_ID, "classic", RULESET_VERSION, RULEBOOK
    name = "Mare Nostrum (2003) with the Mythology expansion"
    sentence = staticmethod(text.describe)

    def play(self, state: State, command: cm.AnyCommand, rng: Rng) -> tuple[list[ev.AnyEvent], State]:
        return self.folded(self._events(state, command, rng), state)

    def _events(self, state: State, command: cm.AnyCommand, rng: Rng) -> list[ev.AnyEvent]:
        from mncore.rulesets.classic.flow import decide_order, settle
        from mncore.rulesets.classic.rules.roles import first_holders
        from mncore.rulesets.classic.rules.setup import create
        match command:
            case cm.CreateGame():
                events = create(command, rng, state.commitment)
                created = replay(events, state)
                roles = first_holders(created)
                return events + roles + settle(replay(roles, created), rng)
            case cm.CreateFromPosition():
                events = audit_tools.creation_events(command, state.commitment)
                return events + settle(replay(events, state), rng)
            case _:
                return decide_order(state, command, rng)

    def meta(self, state: State) -> Meta:
        won = state.winner
        result = None if won is None else (f"{self.side_name(won.civ)} won by classic:{won.condition} "
                                           f"in round {won.round}")
        return self.game_meta(state, sides=state.civs, result=result, round=state.round,
                              players=dict(state.players),
                              notices=(NO_POWERS,) if state.civs and state.powers is None else ())

    def with_players(self, state: State, players: dict[str, str]) -> State:
        return replace(state, players={**state.players, **players})

    def actor_of(self, command: Any) -> str:
        return str(command.civ) if isinstance(command, cm.Order) else HOST

    def fork_created(self, first: Any, commitment: str, fork: ForkRef) -> Any:
        return self.forked(first, commitment, fork)

    def new_game(self, spec: NewGame) -> cm.CreateGame:
        for key, value in spec.options.items():
            if key not in OPTIONS:
                raise InvalidCommand(f"unknown option {key} for {self.name}: {', '.join(OPTIONS)}")
            if OPTIONS[key] and value not in OPTIONS[key]:
                raise InvalidCommand(f"option {key}={value}: expected {' or '.join(OPTIONS[key])}")
        players = self._players(spec)
        board = load_board(spec.board_file)
        tiles = spec.options.get("tiles")
        return cm.CreateGame(board=board, civs=tuple(players), players=players,
                             variant=cast(Variant, spec.options.get("variant", "standard")),
                             setup=cast(Setup, spec.options.get("setup", "basic")), fair_play=spec.fair_play,
                             powers=read_powers(tiles, board) if tiles else None)

    def _players(self, spec: NewGame) -> dict[str, str]:
        if spec.random_sides:
            raise InvalidCommand("name the civilisations in play (--empire rome ...); --random is not "
                                 "offered for this game")
        chosen, named = self.seated(spec.players, spec.sides, "CIVILISATION=NAME")
        if named:
            raise InvalidCommand(f"--player names {', '.join(self.side_name(c) for c in named)}, "
                                 "which is not among the --empire options")
        if not chosen:
            chosen = {c: self.side_name(c) for c in ("greece", "carthage", "babylon")}
        return chosen

    def pending(self, state: Any) -> list[Pending]:
        from mncore.rulesets.classic.flow import pending
        return pending(state)

    def options(self, state: Any, side: str) -> list[Option]:
        from mncore.rulesets.classic.flow import options
        return options(state, side)

    def parse_order(self, line: str, state: Any, side: str) -> cm.AnyOrder:
        return text.parse_order(line, state, side)

    def format_order(self, command: Any) -> str:
        return text.format_order(command)

    def hidden(self, event: Any) -> list[Hidden]:
        match event:
            case ev.CardsOffered(civ=civ, cards=cards) if cards:
                return [Hidden(field="payload/cards", visible_to=(civ,))]  # face down (3.2.2)
            case ev.CardGiven(civ=civ, to=to, card=card) if card:
                return [Hidden(field="payload/card", visible_to=(civ, to))]  # 3.2.6
            case ev.OffersRevealed(offers=offers):
                # turned face up together (3.2.2): before, in an order not given, each is its civ's
                return [Hidden(field=f"payload/offers/{c}", visible_to=(c,), revealed=True) for c in offers]
            case ev.PositionLoaded(state=state):
                return hidden_in_state(state, "payload/state")
        return []

    def hidden_command(self, command: Any) -> list[Hidden]:
        match command:
            case cm.Offer(civ=civ, cards=cards) if cards:
                return [Hidden(field="command/cards", visible_to=(civ,))]
            case cm.Give(civ=civ):
                return [Hidden(field="command/card", visible_to=(civ,))]
            case cm.CreateFromPosition(position=state):
                return hidden_in_state(state, "command/position")
        return []

    def hidden_state(self, state: Any) -> list[Hidden]:
        return hidden_in_state(state, "state")

    # the views of its state (render.py), as they are
    view, show_text, status_text = (staticmethod(render.view), staticmethod(render.show_text),
                                    staticmethod(render.status_text))

    def resolve_side(self, line: str) -> str:
        return text.civ_of(line)

    def side_name(self, side: str) -> str:
        return next((c.name for c in game_data().civ if c.id == side), side)

    def conceal(self, state: State, viewer: str, rng: Rng) -> State:
        return audit_tools.conceal(state, viewer, rng)

    # --- audits ----------------------------------------------------------------------------------

    def explain(self, rows: Sequence[Row], seq: int, see: Callable[[ev.AnyEvent], Seen[ev.AnyEvent]]) -> Explanation:
        return audit_tools.explain(rows, seq, see)

    def render_explanation(self, explanation: Explanation) -> str:
        return audit_tools.render_explanation(explanation)

    def diff(self, a: State, b: State) -> list[Change]:
        return list(audit_tools.diff_states(a, b))

    def read_position(self, path: str) -> State:
        return audit_tools.read_position(path)

    def position_command(self, state: State) -> cm.CreateFromPosition:
        return audit_tools.position_command(state)

    def position_doc(self, seen: Seen[State]) -> dict[str, Any]:
        return audit_tools.position_doc(seen)

    def write_position(self, seen: Seen[State]) -> str:
        return audit_tools.write_position(seen)


    # --- the demonstration game and the board ------------------------------------------------------

    def map_text(self, place: str | None, board_file: str | None, setup: str | None = None) -> str:
        from mncore.rulesets.classic.maptext import map_text
        _board_setup(setup)
        return map_text(place, board_file)

    def map_json(self, place: str | None, board_file: str | None, setup: str | None = None) -> object:
        from mncore.rulesets.classic.maptext import map_json
        _board_setup(setup)
        return map_json(place, board_file)

    def check_board(self, path: str) -> str:
        from mncore.rulesets.classic.maptext import check_board_file
        return check_board_file(path)


    # --- pictures: mn draw, mn html (a schematic of the board) -------------------------------------

    def draw_svg(self, seen: Seen[State]) -> str:
        from mncore.rulesets.classic.board_svg import draw_svg
        return draw_svg(seen)

    def series(self, seen: Seen[State]) -> dict[str, dict[str, float]]:
        from mncore.rulesets.classic.board_svg import series
        return series(seen)

    def side_colour(self, side: str) -> str:
        from mncore.rulesets.classic.board_svg import colour
        return colour(side)


RULESET: Ruleset = Classic(State, ev.CODEC, cm.CODEC, evolve)


def _board_setup(setup: str | None) -> None:
    """This game's set-ups (standard, advanced) change what is placed, never the board."""
    if setup not in (None, "standard", "advanced"):
        raise InvalidCommand(f"--setup {setup}: the classic game's set-ups are standard and advanced, "
                             "and neither changes the board")
