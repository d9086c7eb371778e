"""Mare Nostrum: Empires as the kernel sees it: one object implementing the Ruleset protocol."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from types import ModuleType
from typing import Any, cast

from msgspec.structs import replace

from mncore.core.dice import Rng
from mncore.core.errors import InvalidCommand
from mncore.core.explaining import Explanation
from mncore.core.kit import Kit
from mncore.core.protocol import HOST, Change, ForkRef, Hidden, Meta, NewGame, Option, Pending
from mncore.rulesets.empires import atlas, render
from mncore.rulesets.empires import commands as cm
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.display_names import title
from mncore.rulesets.empires.evolve import evolve, evolve_all, replay
from mncore.rulesets.empires.game_data import RULESET_ID, RULESET_VERSION, load_ruleset
from mncore.rulesets.empires.ids import COIN, EXPANSIONS, TRACKS, Empire, Expansion
from mncore.rulesets.empires.rules_index import RULEBOOK
from mncore.rulesets.empires.state import CitiesState, ForkInfo, GameState, TradeStep, bag_total
from mncore.secrecy.seen import Seen
from mncore.store import Row


class Empires(Kit[GameState, ev.AnyEvent, cm.AnyCommand]):
    """Mare Nostrum: Empires (2016), rules v54: 3 to 5 empires on the reconstructed reference board."""

    id, short, version, rulebook = RULESET_ID, "empires", RULESET_VERSION, RULEBOOK
    name = "Mare Nostrum: Empires (2016)"

    def sentence(self, event: Any, withheld: frozenset[str]) -> str:
        from mncore.rulesets.empires.text import describe  # the texts load at the first sentence
        return describe(event, withheld)

    def play(self, state: GameState, command: cm.AnyCommand, rng: Rng
             ) -> tuple[list[Any], GameState]:
        events: list[ev.AnyEvent]
        match command:
            case cm.CreateGame():
                from mncore.rulesets.empires.decide import create_game
                events = create_game(command, rng, state.commitment)
            case cm.CreateFromPosition():
                from mncore.rulesets.empires.position import creation_events
                events = creation_events(command, rng, state.commitment)
            case _:
                return _decider()(state, command, rng)
        return events, replay(events, state)

    # revealing the secret while the game runs is refused unless forced: ruling R6, now the kernel's
    # K8 (mncore.games.lifecycle.reveal); Meta.secret is the kernel's own (mncore/core/kernel_state.py)
    def meta(self, state: GameState) -> Meta:
        won = state.winner
        result = None if won is None else (
            f"{' and '.join(self.side_name(e) for e in won.empires)} won by {won.condition} "
            f"in round {won.round}")
        return self.game_meta(state, sides=tuple(state.empires), result=result, round=state.round,
                              players={e: es.player for e, es in state.empires.items()}, phase=state.phase)

    def with_players(self, state: GameState, players: dict[str, str]) -> GameState:
        return replace(state, empires={e: replace(es, player=players[e]) if e in players else es
                                       for e, es in state.empires.items()})

    def actor_of(self, command: Any) -> str:
        return str(command.empire) if isinstance(command, cm.Order) else HOST

    def fork_created(self, first: Any, commitment: str, fork: ForkRef) -> ev.GameCreated:
        # a sandbox with its own secret: ruling R5, now the kernel's K7
        assert isinstance(first, ev.GameCreated)
        info = ForkInfo(game=fork.game, at=fork.at, head_hash=fork.head_hash, commitment=fork.commitment)
        return self.forked(first, commitment, info)  # type: ignore[no-any-return]

    def new_game(self, spec: NewGame) -> cm.CreateGame:
        from mncore.rulesets.empires.board import load_board
        display = spec.options.get("display", "first-game")
        if display not in ("first-game", "experienced"):
            raise InvalidCommand(f"--display {display}: expected first-game or experienced")
        unknown = sorted(set(spec.options) - {"display", "setup", "expansions"})
        if unknown:
            raise InvalidCommand(f"unknown option {', '.join(unknown)} for {self.name}")
        setup = spec.options.get("setup", atlas.STANDARD)
        atlas.variant(setup)  # an unknown set-up is refused before anything else
        expansions = self._expansions(spec.options.get("expansions", ""))
        chosen, names = self._players(spec, atlas.variant(setup))
        board = atlas.board_for(setup, load_board(spec.board_file))
        return cm.CreateGame(board=board, players=chosen, random_players=names,
                             display=display, fair_play=spec.fair_play,  # type: ignore[arg-type]
                             setup=setup, expansions=expansions)

    def _expansions(self, text: str) -> tuple[Expansion, ...]:
        """The Legendary City expansions named (--expansion troia ...), checked (lc.2, lc.4)."""
        from mncore.rulesets.empires.rules.expansions import check_expansions
        names = tuple(n.strip().lower() for n in text.split(",") if n.strip())
        bad = [n for n in names if n not in EXPANSIONS]
        if bad:
            raise InvalidCommand(f"--expansion {bad[0]}: not an expansion of {self.name} "
                                 f"(expansions: {', '.join(EXPANSIONS)})")
        chosen = cast(tuple[Expansion, ...], names)
        check_expansions(chosen)
        return chosen

    def _players(self, spec: NewGame, setup: atlas.Variant | None) -> tuple[dict[Empire, str], tuple[str, ...]]:
        """Who plays which empire: named, drawn at random, or those a set-up variant fixes (--setup
        punic-war alone plays Rome and Carthage)."""
        if spec.random_sides:
            if spec.sides:
                raise InvalidCommand("--random draws the empires: do not also name them with --empire")
            if any("=" in p for p in spec.players):
                raise InvalidCommand("with --random, give bare player names: --player Ann")
            return {}, spec.players
        sides = spec.sides or (setup.empires if setup is not None else ())
        chosen, named = self.seated(spec.players, sides, "EMPIRE=NAME (or use --random)")
        if named:
            raise InvalidCommand(f"--player names {', '.join(self.side_name(e) for e in named)}, "
                                 + ("which is not among the --empire options" if spec.sides else
                                    f"which the set-up {setup.id if setup else ''} does not play"))
        if not chosen:
            raise InvalidCommand("name the empires in play (--empire rome ...) or use --random")
        return chosen, ()

    # --- what is pending, what may be ordered, in words ----------------------------------------

    def pending(self, state: Any) -> list[Pending]:
        from mncore.rulesets.empires.flow import pending
        return pending(state)

    def options(self, state: Any, side: str) -> list[Option]:
        from mncore.rulesets.empires.flow import options
        return options(state, cast(Empire, side))

    def parse_order(self, text: str, state: Any, side: str) -> cm.AnyOrder:
        from mncore.rulesets.empires.text import parse_order
        return parse_order(text, state, cast(Empire, side))

    def format_order(self, command: Any) -> str:
        from mncore.rulesets.empires.text import format_order
        return format_order(command)

    def hidden(self, event: Any) -> list[Hidden]:
        # asked of every row that is written or verified: the module is found once, not imported per call
        found: list[Hidden] = _hidden().hidden_event(event)
        return found

    def hidden_command(self, command: Any) -> list[Hidden]:
        found: list[Hidden] = _hidden().hidden_command(command)
        return found

    def hidden_state(self, state: Any) -> list[Hidden]:
        from mncore.rulesets.empires.text.hidden import hidden_in_state
        return hidden_in_state(state)

    # the views of its state (render.py), as they are
    view, show_text, status_text = (staticmethod(render.view), staticmethod(render.show_text),
                                    staticmethod(render.status_text))

    def resolve_side(self, text: str) -> Empire:
        from mncore.rulesets.empires.typed_names import resolve_empire
        return resolve_empire(load_ruleset(), text)

    def side_name(self, side: str) -> str:
        return next((e.name for e in load_ruleset().empires if e.id == side), side)

    def evolve_all(self, state: GameState, events: Iterable[Any]) -> GameState:
        """A log's events folded in one loop (protocol.FoldsMany), the state evolve gives one by one."""
        return evolve_all(state, events)

    # --- play by email: defaults, forced answers, what reveals (docs/defaults.md) -----------------

    def default_orders(self, state: GameState, side: str) -> tuple[str, ...]:
        from mncore.rulesets.empires.defaults import default_orders
        return default_orders(state, cast(Empire, side))

    def forced_orders(self, state: GameState, side: str) -> tuple[str, ...] | None:
        from mncore.rulesets.empires.defaults import forced_orders
        return forced_orders(state, cast(Empire, side))

    def reveals(self, event: ev.AnyEvent) -> bool:
        from mncore.rulesets.empires.defaults import reveals
        return reveals(event)

    def struck(self, seen: Seen[Any]) -> frozenset[str]:
        from mncore.rulesets.empires.defaults import struck
        return struck(seen.value)

    def phases(self) -> tuple[str, ...]:
        from mncore.rulesets.empires.ids import PHASES
        return tuple(PHASES)

    def conceal(self, state: GameState, viewer: str, rng: Rng) -> GameState:
        """The face-down display tiles and the legendary pile in an order drawn from rng, and others'
        screens and face-down offers as coins of the same number: what `mn check` turns up, draws or flips then
        says nothing of the real order (the future draws) or of the real offers."""
        s = state
        down = [d.tile for d in s.display if not d.face_up]
        stand_in = iter(rng.shuffled(sorted(down)))
        display = tuple(d if d.face_up else replace(d, tile=next(stand_in)) for d in s.display)
        s = replace(s, display=display, legendary_pile=tuple(rng.shuffled(sorted(s.legendary_pile))))
        # others' screens as coins of the same number: a bot's playouts play their empires (issue 28)
        s = replace(s, empires={e: es if e == viewer or not es.resources
                                else replace(es, resources={COIN: bag_total(es.resources)})
                                for e, es in s.empires.items()})
        step = s.step
        if isinstance(step, TradeStep) and not step.revealed:
            offers = {e: (b if e == viewer else {COIN: bag_total(b)}) for e, b in step.offers.items()}
            s = replace(s, step=replace(step, offers=offers))
        return s if s.cities is None else replace(s, cities=self._conceal_cards(s.cities, viewer, rng))

    @staticmethod
    def _conceal_cards(cs: CitiesState, viewer: str, rng: Rng) -> CitiesState:
        """Decks, the discard pile and others' hands as stand-ins of the same sizes, drawn from the
        printed decks: a draw `mn check` shows says nothing of the real cards."""
        from mncore.rulesets.empires.cities import load_city
        printed = sorted(c for x in cs.expansions for c in load_city(x).deck_cards())

        def stand_in(n: int, pool: list[str] = printed) -> tuple[str, ...]:
            return tuple(sorted(rng.shuffled(pool)[:n]))
        decks = {x: stand_in(len(cards), sorted(load_city(x).deck_cards())) for x, cards in cs.decks.items()}
        hands = {e: h if e == viewer else stand_in(len(h)) for e, h in cs.hands.items()}
        draws = tuple(d if d.holder == viewer else replace(d, hand=stand_in(len(d.hand))) for d in cs.draws)
        return replace(cs, decks=decks, discard=stand_in(len(cs.discard)), hands=hands, draws=draws)

    # --- audits: explain, diff, positions ------------------------------------------------------

    def explain(self, rows: Sequence[Row], seq: int, see: Callable[[ev.AnyEvent], Seen[ev.AnyEvent]]) -> Explanation:
        from mncore.rulesets.empires.explain import explain
        return explain(rows, seq, see)

    def render_explanation(self, explanation: Explanation) -> str:
        from mncore.rulesets.empires.explain import render as render_explanation
        return render_explanation(explanation)

    def diff(self, a: GameState, b: GameState) -> list[Change]:
        from mncore.rulesets.empires.diff import diff_states
        return list(diff_states(a, b))

    def read_position(self, path: str) -> GameState:
        from mncore.rulesets.empires.position import read_position
        return read_position(path)

    def position_command(self, state: GameState) -> cm.CreateFromPosition:
        from mncore.rulesets.empires.position import creation_command
        return creation_command(state)

    def position_doc(self, seen: Seen[GameState]) -> dict[str, Any]:
        from mncore.rulesets.empires.position import position_doc
        return position_doc(seen)

    def write_position(self, seen: Seen[GameState]) -> str:
        from mncore.rulesets.empires.position import write_position
        return write_position(seen)

    # --- the board and the demonstration game --------------------------------------------------

    def map_text(self, place: str | None, board_file: str | None, setup: str | None = None) -> str:
        from mncore.rulesets.empires.maptext import map_text
        return map_text(place, board_file, setup)

    def map_json(self, place: str | None, board_file: str | None, setup: str | None = None) -> object:
        from mncore.rulesets.empires.maptext import map_json
        return map_json(place, board_file, setup)

    def check_board(self, path: str) -> str:
        from mncore.rulesets.empires.maptext import check_board
        return check_board(path)

    # --- pictures: mn draw, mn html ------------------------------------------------------------

    def draw_svg(self, seen: Seen[GameState]) -> str:
        from mncore.rulesets.empires.board_svg import draw_svg
        return draw_svg(seen)

    def draw_changes(self, seen: Seen[GameState], events: Sequence[Seen[ev.AnyEvent]]) -> str:
        from mncore.rulesets.empires.board_svg import draw_changes
        return draw_changes(seen, events)

    def series(self, seen: Seen[GameState]) -> dict[str, dict[str, float]]:
        doc = render.view(seen)
        return {title(t): {e: float(v["tracks"][t]) for e, v in doc["empires"].items()} for t in TRACKS}

    def side_colour(self, side: str) -> str:
        from mncore.rulesets.empires.board_svg import PALETTE
        return PALETTE[side][0]

    # --- turn reports: mn report, mn mail (play by email) ----------------------------------------

    def phase_of(self, state: GameState) -> str:
        from mncore.rulesets.empires.flow import describe_phase
        return f"round {state.round}, {describe_phase(state)} phase" if state.round else "set-up"

    def waiting(self, state: GameState, viewer: str) -> list[Pending]:
        from mncore.rulesets.empires.flow import pending, public_pending
        # its own decisions in full; the others' as every empire may read them (Perseus stays hidden)
        own = [p for p in pending(state) if p.empire == viewer]
        return own + [p for p in public_pending(state) if p.empire != viewer]

    def resources_text(self, view: dict[str, Any], side: str) -> str:
        held = view["empires"][side]["resources"] or {}
        return ", ".join(f"{n} {title(k)}" for k, n in held.items() if n) or "nothing"


@functools.cache
def _decider() -> Callable[[GameState, Any, Rng], tuple[list[Any], GameState]]:
    # found once: an import statement run at each decision costs a microsecond (verify makes thousands)
    from mncore.rulesets.empires.decide import decide_folded  # the rules load at the first decision
    return decide_folded


@functools.cache
def _hidden() -> ModuleType:
    from mncore.rulesets.empires.text import hidden  # the texts load at first use
    return hidden


RULESET = Empires(GameState, ev.CODEC, cm.CODEC, evolve)
