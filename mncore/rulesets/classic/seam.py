"""Mare Nostrum (2003) with the Mythology expansion as the kernel sees it: one protocol object."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, cast

import msgspec
from msgspec.structs import replace

from mncore.seen import Seen
from mncore.dice import Rng
from mncore.errors import InvalidCommand, RuleViolation
from mncore.host import (PBEM_COMMANDS, PublishKeys, RevealSecret, SignedOrders, UpgradeLog, kernel_only, reveal_events,
                         upgrade_events)
from mncore.protocol import HOST, ForkRef, Hidden, Meta, NewGame, Option, Pending, Ruleset
from mncore.store import Row
from mncore.rulesets.classic import audits, commands as cm, events as ev, render, text
from mncore.rulesets.classic.book import RULEBOOK
from mncore.rulesets.classic.components import game_data, load_board
from mncore.rulesets.classic.evolve import evolve, replay
from mncore.rulesets.classic.hiding import hidden_in_state
from mncore.rulesets.classic.ids import RULESET_ID, RULESET_VERSION, Setup, Variant
from mncore.rulesets.classic.powers import NO_POWERS, read as read_powers
from mncore.rulesets.classic.state import State

_STATE_ENCODER = msgspec.msgpack.Encoder()
_STATE_DECODER = msgspec.msgpack.Decoder(State)
OPTIONS = {"variant": ("standard", "long"), "setup": ("basic", "advanced"), "tiles": ()}  # () any value


class Classic:
    """Mare Nostrum (2003) with the Mythology expansion: 3 to 6 civilisations, reconstructed board."""

    id = RULESET_ID
    short = "classic"
    version = RULESET_VERSION
    name = "Mare Nostrum (2003) with the Mythology expansion"
    rulebook = RULEBOOK
    event_type: Any = ev.AnyEvent
    command_type: Any = cm.AnyCommand

    def encode_event(self, event: Any) -> bytes:
        return ev.encode_event(event)

    def decode_event(self, data: bytes | str) -> Any:
        return ev.decode_event(data)

    def event_type_of(self, event: Any) -> str:
        return type(event).__name__

    def encode_command(self, command: Any) -> bytes:
        return cm.encode_command(command)

    def decode_command(self, data: bytes | str) -> Any:
        return cm.decode_command(data)

    def encode_state(self, state: Any) -> bytes:
        return _STATE_ENCODER.encode(state)

    def decode_state(self, data: bytes) -> State:
        return _STATE_DECODER.decode(data)

    def initial(self, commitment: str) -> State:
        return State(commitment=commitment)

    def evolve(self, state: Any, event: Any) -> State:
        return evolve(state, event)

    def decide(self, state: Any, command: Any, rng: Rng) -> tuple[list[Any], State]:
        try:
            events = self._decide(state, command, rng)
        except RuleViolation as err:
            raise RULEBOOK.qualified(err) from None
        return list(events), replay(events, state)

    def _decide(self, state: State, command: cm.AnyCommand, rng: Rng) -> list[ev.AnyEvent]:
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
                events = audits.creation_events(command, state.commitment)
                return events + settle(replay(events, state), rng)
            case RevealSecret():
                return list(reveal_events(self.meta(state), command))
            case UpgradeLog():
                return list(upgrade_events(command))
            case PublishKeys() | SignedOrders():
                kernel_only(command)
            case _ if isinstance(command, PBEM_COMMANDS):
                kernel_only(command)
            case _:
                return decide_order(state, command, rng)

    def meta(self, state: Any) -> Meta:
        s = cast(State, state)
        won = s.winner
        result = "" if won is None else (f"{self.side_name(won.civ)} won by classic:{won.condition} "
                                         f"in round {won.round}")
        return Meta(ruleset_id=s.ruleset_id, ruleset_version=s.ruleset_version, commitment=s.commitment,
                    secret=s.secret, sides=s.civs, fair_play=s.options.fair_play,
                    sandbox=s.options.sandbox, forked_at=s.options.fork_of.at if s.options.fork_of else 0,
                    over=won is not None, result=result, round=s.round, players=dict(s.players),
                    notices=(NO_POWERS,) if s.civs and s.powers is None else ())

    def named(self, state: Any, game_id: str) -> State:
        return replace(cast(State, state), game_id=game_id)

    def actor_of(self, command: Any) -> str:
        return str(command.civ) if isinstance(command, cm.Order) else HOST

    def fork_created(self, first: Any, commitment: str, fork: ForkRef) -> Any:
        created = cast(ev.GameCreated, first)
        return replace(created, commitment=commitment,
                       options=replace(created.options, fair_play=False, sandbox=True, fork_of=fork))

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
        named: dict[str, str] = {}
        for item in spec.players:
            side, sep, who = item.partition("=")
            if not sep:
                raise InvalidCommand(f"--player {item}: write CIVILISATION=NAME")
            civ = self.resolve_side(side)
            if civ in named:
                raise InvalidCommand(f"--player {item}: {self.side_name(civ)} is already played by "
                                     f"{named[civ]}; give each empire one --player")
            named[civ] = who.strip()
        chosen: dict[str, str] = {}
        for typed in spec.sides:
            civ = self.resolve_side(typed)
            if civ in chosen:
                raise InvalidCommand(f"--empire {typed}: {self.side_name(civ)} is named twice")
            chosen[civ] = named.pop(civ, self.side_name(civ))
        if named:
            raise InvalidCommand(f"--player names {', '.join(self.side_name(c) for c in named)}, "
                                 "which is not among the --empire options")
        if not chosen:
            chosen = {c: self.side_name(c) for c in ("greece", "carthage", "babylon")}
        return chosen

    def reveal(self, secret: str) -> RevealSecret:
        return RevealSecret(secret=secret)

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

    def describe(self, seen: Seen[Any]) -> str:
        return text.describe(seen.value, seen.withheld)

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

    def view(self, seen: Seen[Any]) -> dict[str, Any]:
        return render.view(seen)

    def show_text(self, view: dict[str, Any]) -> str:
        return render.show_text(view)

    def status_text(self, state: Any) -> str:
        return render.status_text(state)

    def resolve_side(self, line: str) -> str:
        return text.civ_of(line)

    def side_name(self, side: str) -> str:
        return next((c.name for c in game_data().civ if c.id == side), side)

    def conceal(self, state: Any, viewer: str, rng: Rng) -> State:
        return audits.conceal(state, viewer, rng)

    # --- audits ----------------------------------------------------------------------------------

    def explain(self, rows: Sequence[Row], seq: int, see: Callable[[Any], Seen[Any]]) -> Any:
        return audits.explain(rows, seq, see)

    def render_explanation(self, explanation: Any) -> str:
        return audits.render_explanation(explanation)

    def diff(self, a: Any, b: Any) -> list[Any]:
        return list(audits.diff_states(a, b))

    def read_position(self, path: str) -> State:
        return audits.read_position(path)

    def position_command(self, state: Any) -> cm.CreateFromPosition:
        return audits.position_command(state)

    def position_doc(self, seen: Seen[Any]) -> dict[str, Any]:
        return audits.position_doc(seen)

    def write_position(self, seen: Seen[Any]) -> str:
        return audits.write_position(seen)


    # --- the demonstration game and the board ------------------------------------------------------

    def map_text(self, place: str | None, board_file: str | None, setup: str | None = None) -> str:
        from mncore.rulesets.classic.maptext import map_text
        _board_setup(setup)
        return map_text(place, board_file)

    def map_json(self, place: str | None, board_file: str | None, setup: str | None = None) -> Any:
        from mncore.rulesets.classic.maptext import map_json
        _board_setup(setup)
        return map_json(place, board_file)

    def check_board(self, path: str) -> str:
        from mncore.rulesets.classic.maptext import check_board_file
        return check_board_file(path)


    # --- pictures: mn draw, mn html (a schematic of the board) -------------------------------------

    def draw_svg(self, seen: Seen[Any]) -> str:
        from mncore.rulesets.classic.draw import draw_svg
        return draw_svg(seen)

    def series(self, seen: Seen[Any]) -> dict[str, dict[str, float]]:
        from mncore.rulesets.classic.draw import series
        return series(seen)

    def side_colour(self, side: str) -> str:
        from mncore.rulesets.classic.draw import colour
        return colour(side)


RULESET: Ruleset = Classic()


def _board_setup(setup: str | None) -> None:
    """This game's set-ups (standard, advanced) change what is placed, never the board."""
    if setup not in (None, "standard", "advanced"):
        raise InvalidCommand(f"--setup {setup}: the classic game's set-ups are standard and advanced, "
                             "and neither changes the board")
