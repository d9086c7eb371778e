"""The Ruleset protocol: what the kernel asks of every game it hosts, and the values it passes."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, TypeAlias, TypeVar, runtime_checkable

import msgspec

from mncore.core.dice import Rng

if TYPE_CHECKING:
    from mncore.core.explaining import Explanation
    from mncore.core.rulebook import Rulebook
    from mncore.secrecy.seen import Seen
    from mncore.store import Row, Store

HOST = "host"  # the actor of commands no side gives: creation, revealing the secret


class Pending(msgspec.Struct, frozen=True, kw_only=True):
    """A decision the game waits for: whose, of what kind, in words."""

    empire: str  # the side that decides
    kind: str
    text: str


class Hidden(msgspec.Struct, frozen=True, kw_only=True):
    """A field of an event or command that only some sides may see when it is recorded.

    `field` is its root and JSON path: "payload/offer", "payload/display/3/tile", "command/tokens".
    The log's hash covers its salted commitment (chain.py); outputs made for a side not in
    `visible_to` carry the commitment only. An empty `visible_to`: nobody yet (the host only).

    `revealed`: the field turns face up a fact hidden until this event (the offers flipped at
    once). Once recorded it is public and nothing commits it; in the events an order not given
    would cause (`mn check`) it is withheld from the sides not in `visible_to`, who may not know
    yet what it would show.
    """

    field: str
    visible_to: tuple[str, ...] = ()
    revealed: bool = False
    # what the others read in its place (of the field's type: the public part of a bag); None: the
    # field's empty value, or for an entry of a map, no entry
    public: Any = None


class Option(msgspec.Struct, frozen=True, kw_only=True):
    """Something an empire may do now: a whole order line, or a template and the legal parts."""

    kind: str
    order: str | None = None  # an order line accepted as it is
    template: str | None = None  # e.g. "build legion in {province} pay {payment}"
    parts: dict[str, tuple[str, ...]] = {}  # legal values of each {part}
    note: str = ""
    more: dict[str, tuple[str, ...]] = {}  # further legal values of a part, cut from `parts`


class Meta(msgspec.Struct, frozen=True, kw_only=True):
    """What the kernel reads of any game's state, whatever the game."""

    ruleset_id: str
    ruleset_version: int
    commitment: str  # SHA-256 of the game's secret, from its first event
    sides: tuple[str, ...]  # the sides in play (empires), in the game's order
    fair_play: bool
    sandbox: bool  # outcomes may be fixed (forks, positions, known seeds)
    # hex, once revealed: the kernel's (KernelState.secret), filled in by the game as loaded (mncore/games/);
    # a ruleset's `meta` leaves it None
    secret: str | None = None
    forked_at: int = 0  # events copied from the game this one forks (0: not a fork)
    over: bool = False
    result: str = ""  # who won and how, in words, once over
    round: int = 0  # the round the game is in (0: before the first, or a game without rounds)
    players: dict[str, str] = {}  # side -> the name of who plays it (mn --as accepts it)
    phase: str = ""  # the phase the game is in, for per-phase deadlines ("" for a game without)
    # what every player should know of how this game was set up, in words (mn new and mn show say it)
    notices: tuple[str, ...] = ()


class ForkRef(msgspec.Struct, frozen=True, kw_only=True):
    """Where a fork branches off: the parent game, the event, its chain hash and commitment."""

    game: str
    at: int
    head_hash: str
    commitment: str


class NewGame(msgspec.Struct, frozen=True, kw_only=True):
    """What `mn new` asks for, in words that belong to no game; the ruleset makes its command."""

    sides: tuple[str, ...] = ()  # the sides named, as typed (--empire)
    players: tuple[str, ...] = ()  # SIDE=NAME, or bare names with random_sides (--player)
    random_sides: bool = False
    board_file: str | None = None
    fair_play: bool = True
    options: dict[str, str] = {}  # the ruleset's own options (display=experienced)


S = TypeVar("S")  # a ruleset's state
E = TypeVar("E")  # its events (a log's: the kernel's beside them, mncore/core/envelope.py)
C = TypeVar("C")  # its commands (likewise)


class RulesetOf(Protocol[S, E, C]):
    """One game on the kernel: its codecs, its pure decide/evolve, its texts, views and rulebook.

    `decide` is the one entry point for every command of the game, creation included; the kernel's
    own commands never reach it (mncore/pbem/trust.py decides them). It returns the events and the state
    they fold into, so nothing is folded twice. S, E, C are the ruleset's own types: the kernel only
    stores, chains and passes them. A seam built on mncore/core/kit.py has all but its game's own.
    """

    id: str  # recorded in the first event: "mare-nostrum-empires-2016"
    short: str  # the section namespace and `--ruleset` name: "empires"
    version: int
    name: str
    rulebook: Rulebook
    event_type: object  # the tagged union of a log's events (schemas): a type, not a value of E
    command_type: object  # the tagged union of a log's commands (schemas)

    def encode_event(self, event: E) -> bytes: ...
    def decode_event(self, data: bytes | str) -> E: ...
    def event_type_of(self, event: E) -> str: ...
    def encode_command(self, command: C) -> bytes: ...
    def decode_command(self, data: bytes | str) -> C: ...

    def encode_state(self, state: S) -> bytes:
        """A folded state as bytes, for the snapshot cache (never hashed, never exported)."""
    def decode_state(self, data: bytes) -> S:
        """A state encode_state wrote; msgspec.DecodeError or ValidationError if it is not one."""

    def initial(self, commitment: str) -> S:
        """The state before the first event, for a game whose secret has this commitment."""
    def evolve(self, state: S, event: E) -> S:
        """The state after one event (the kernel's folded by the kernel: mncore/core/envelope.py)."""
    def decide(self, state: S, command: C, rng: Rng) -> tuple[list[E], S]: ...
    def meta(self, state: S) -> Meta:
        """What the kernel reads of a state; its `secret` None (the kernel's own: mncore/core/kernel_state.py)."""
    def named(self, state: S, game_id: str) -> S:
        """The state as loaded under that game id (views show it)."""
    def with_players(self, state: S, players: dict[str, str]) -> S:
        """The state with these sides named as played by these names: who holds each seat now (K14),
        as status, views and reports show it (`kernel_state.seated`)."""
    def actor_of(self, command: C) -> str:
        """The side that gives the command, or HOST."""
    def fork_created(self, first: E, commitment: str, fork: ForkRef) -> E:
        """The first event of a fork: the parent's, with the new commitment, marked as a sandbox."""
    def new_game(self, spec: NewGame) -> C:
        """The creation command for `mn new`; InvalidCommand naming the option at fault."""

    def pending(self, state: S) -> list[Pending]: ...
    def options(self, state: S, side: str) -> list[Option]: ...
    def parse_order(self, text: str, state: S, side: str) -> C: ...
    def format_order(self, command: C) -> str: ...
    def describe(self, seen: Seen[E]) -> str:
        """The event's sentence, made of the event as the boundary lets its reader see it
        (redaction.seen_event): what is withheld is already gone, `seen.withheld` names it."""
    def hidden(self, event: E) -> list[Hidden]:
        """The fields of an event's payload hidden from some sides (payload/...): when it is recorded,
        and, marked `revealed`, in a hypothetical order's events only."""
    def hidden_command(self, command: C) -> list[Hidden]:
        """The fields of a command hidden from some sides (command/...): an offer's tokens."""
    def hidden_state(self, state: S) -> list[Hidden]:
        """The fields of a state hidden from some sides (state/...): what every view, picture and
        position made for a side withholds (redaction.seen_state), each with the stand-in others read."""
    def view(self, seen: Seen[S]) -> dict[str, Any]:
        """The state as the boundary lets its reader see it (redaction.seen_state): the document of
        docs/json.md; what `seen.withheld` names is shown as withheld (None, or a count)."""
    def show_text(self, view: dict[str, Any]) -> str: ...
    def status_text(self, state: S) -> str: ...
    def resolve_side(self, text: str) -> str:
        """The side a user's text names (any case, aliases); InvalidCommand listing the sides."""
    def side_name(self, side: str) -> str: ...


# a ruleset whatever its types: what the kernel, which knows no game, holds
Ruleset: TypeAlias = RulesetOf[Any, Any, Any]


S_contra = TypeVar("S_contra", contravariant=True)  # a state an optional capability only reads
E_contra = TypeVar("E_contra", contravariant=True)  # an event it only reads
C_co = TypeVar("C_co", covariant=True)  # a command it only makes


class Change(msgspec.Struct, frozen=True, kw_only=True):
    """One difference between two states (`mn diff`), as every ruleset gives it: what changed (a path
    of keys), its value before and after, in words."""

    what: tuple[str, ...]
    before: object
    after: object
    text: str


# The optional capabilities below take the ruleset's own types, as RulesetOf does: a seam declares what it
# offers with its state, events and commands (tests/test_protocols.py), and the kernel, which knows no
# game, finds them by isinstance on the ruleset it holds.

@runtime_checkable
class Audits(Protocol[S, E, C_co]):
    """The audit tools a ruleset may offer beyond the protocol: explain, diff, positions."""

    def explain(self, rows: Sequence[Row], seq: int, see: Callable[[E], Seen[E]]) -> Explanation:
        """Event seq explained from the rows its reader may read, each event as `see` (the boundary:
        redaction.explain) lets it see it."""
    def render_explanation(self, explanation: Explanation) -> str: ...
    def diff(self, a: S, b: S) -> Sequence[Change]: ...
    def read_position(self, path: str) -> S: ...
    def position_command(self, state: S) -> C_co: ...
    def position_doc(self, seen: Seen[S]) -> dict[str, Any]:
        """The position as a document; for a side, what it may see only (not loadable)."""
    def write_position(self, seen: Seen[S]) -> str: ...


class Demo(NamedTuple):
    """A ruleset's demonstration game between scripted players (`mn demo`).

    Not a capability of the seam: the scripted players play through the service (mncore.games), which
    finds rulesets through the registry, so a seam that named them would close a circle. Each ruleset's
    demo module builds one; mncore.rulesets.players_by_id finds it by the ruleset's id, above the service.
    """

    ruleset_id: str
    players: tuple[int, int]  # the fewest and the most scripted players it seats
    # play(ruleset, store, players, seed, max_orders, echo) -> the game's id
    play: Callable[[Ruleset, Store, int, str, int, Callable[[str], None]], str]
    # create(ruleset, store, players, seed) -> the id of the same game, created and not played (for
    # `mn demo --bot`, whose seats are handed to bots); None: the demo cannot be played by bots
    create: Callable[[Ruleset, Store, int, str], str] | None = None


@runtime_checkable
class Maps(Protocol):
    """A ruleset whose board can be shown and checked (`mn map`)."""

    def map_text(self, place: str | None, board_file: str | None, setup: str | None = None) -> str: ...
    def map_json(self, place: str | None, board_file: str | None, setup: str | None = None) -> object:
        """The board (or one place and its neighbours) as a value msgspec encodes as JSON."""
    def check_board(self, path: str) -> str: ...


@runtime_checkable
class Pictures(Protocol[S]):
    """A ruleset that can draw its board (`mn draw`, `mn html`), each picture from a viewer's view only."""

    def draw_svg(self, seen: Seen[S]) -> str:
        """The board at this state as the boundary lets its reader see it, one SVG document."""
    def series(self, seen: Seen[S]) -> dict[str, dict[str, float]]:
        """What to chart over the rounds, as its reader may see it: series name -> side -> value."""
    def side_colour(self, side: str) -> str:
        """The side's colour in pictures and charts (#rrggbb)."""


@runtime_checkable
class Changes(Protocol[S, E]):
    """A ruleset whose pictures mark what changed: moves as arrows, battles, builds, conquests, losses."""

    def draw_changes(self, seen: Seen[S], events: Sequence[Seen[E]]) -> str:
        """The board as seen, marked with what these events did (each as the same reader may see it)."""


@runtime_checkable
class Conceals(Protocol[S]):
    """A ruleset whose hidden facts could shape what a hypothetical order causes (`mn check`)."""

    def conceal(self, state: S, viewer: str, rng: Rng) -> S:
        """The state with every fact viewer may not know replaced by a stand-in drawn from rng
        (face-down orders shuffled), so that deciding on it reveals nothing of the real ones."""


@runtime_checkable
class Defaults(Protocol[S_contra, E_contra]):
    """A ruleset that lets the kernel answer for a side (play by email): the documented default of
    an overdue decision, the one legal answer of a forced one, and which events show something a
    side could not know before (a draw's outcome, a hidden choice turned face up)."""

    def default_orders(self, state: S_contra, side: str) -> tuple[str, ...]:
        """The order lines of the side's default for what it must decide now; () if none is pending."""
    def forced_orders(self, state: S_contra, side: str) -> tuple[str, ...] | None:
        """The order lines of the one legal answer to the side's pending decision; None if it has a choice."""
    def reveals(self, event: E_contra) -> bool:
        """True when the event records a random outcome or shows a fact hidden until then."""
    def phases(self) -> tuple[str, ...]:
        """The game's phases, as Meta.phase names them (per-phase deadlines)."""


@runtime_checkable
class FoldsMany(Protocol[S]):
    """A ruleset that folds a whole list of events in one call (a log's replay): one call an event less
    than evolve's loop, the same state."""

    def evolve_all(self, state: S, events: Iterable[Any]) -> S:
        """The state evolve gives folding events one by one from state."""


@runtime_checkable
class Notices(Protocol):
    """A ruleset that names the sides an event strikes, for mn serve's notices (kernel ruling K13)."""

    def struck(self, seen: Seen[Any]) -> frozenset[str]:
        """The sides the event, as seen.viewer may see it, strikes: attacked, a unit, building or
        province lost; not the course of play a side takes part in (a claim, a collection)."""


# --- play by email: turn reports (mn report, mn mail) ------------------------------------------------

@runtime_checkable
class Reports(Protocol[S_contra]):
    """A ruleset's words for a side's turn report: the phase, what it may know is pending, its resources."""

    def phase_of(self, state: S_contra) -> str:
        """The round and phase of a state in words ("round 2, Build phase"): a report's headings."""
    def waiting(self, state: S_contra, viewer: str) -> list[Pending]:
        """The decisions pending as viewer may know them: its own in full, the others' as public."""
    def resources_text(self, view: dict[str, Any], side: str) -> str:
        """What side holds, in words, from its own view."""
