"""Set-up (steps 1–5 and the 3- and 4-player set-ups): the events that start a game."""

from __future__ import annotations

import mncore
from mncore.core.dice import Rng
from mncore.core.errors import InvalidCommand
from mncore.rulesets.empires import atlas
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.board import Board, board_digest
from mncore.rulesets.empires.commands import CreateGame
from mncore.rulesets.empires.game_data import RULESET_ID, RULESET_VERSION, load_ruleset
from mncore.rulesets.empires.ids import EMPIRES, Empire
from mncore.rulesets.empires.rules import collect, expansions, trade
from mncore.rulesets.empires.rules.fold import Fold
from mncore.rulesets.empires.state import DisplayTile, ForkInfo, GameState, Options


def playable_empires(board: Board, count: int) -> tuple[Empire, ...]:
    """The empires that can play with this many players: those whose region is not covered."""
    # the Punic War's Greece is in play, the Barbarians' land (ruling R60); its board is recognised only
    # for its player count (setup_of hashes each variant's board)
    if any(v.barbarians is not None and v.players == count for v in atlas.load_setups().variants):
        chosen = atlas.variant(atlas.setup_of(board) or atlas.STANDARD)
        if chosen is not None and chosen.barbarians is not None:
            return chosen.empires
    # a set-up variant's board names its own covered regions
    covered = set(board.covered.get(str(count), ()))
    with_setup = {s.empire for s in board.setups}
    return tuple(e for e in EMPIRES if e in with_setup and e not in covered)


def assign_players(cmd: CreateGame, rng: Rng) -> dict[Empire, str]:
    """Who plays which empire: as chosen, or drawn at random from the secret (Game set-up)."""
    if cmd.players and cmd.random_players:
        raise InvalidCommand("choose every empire, or draw every empire at random, not both")
    names = list(cmd.players.values()) or list(cmd.random_players)
    count = len(names)
    _require_player_count(cmd.setup, count, bool(cmd.random_players))
    allowed = playable_empires(cmd.board, count)
    if cmd.random_players:
        return dict(zip(allowed, rng.shuffled(list(cmd.random_players)), strict=True))
    chosen = set(cmd.players)
    if chosen != set(allowed):
        missing = ", ".join(e.title() for e in allowed if e not in chosen)
        extra = ", ".join(e.title() for e in chosen if e not in allowed)
        covered = ", ".join(e.title() for e in cmd.board.covered.get(str(count), ())) or "none"
        raise InvalidCommand(
            f"with {count} players the empires in play are {', '.join(e.title() for e in allowed)} "
            f"(covered regions: {covered})" + (f"; missing: {missing}" if missing else "")
            + (f"; not playable: {extra}" if extra else "") + f" [rule {_section(cmd.setup)}]")
    return {e: cmd.players[e] for e in EMPIRES if e in chosen}


def _section(setup: str) -> str:
    chosen = atlas.variant(setup)
    return chosen.section if chosen else "setup.players"


def _require_player_count(setup: str, count: int, drawn: bool) -> None:
    """The standard game is for 3 to 5 players; a set-up variant for its own number (Atlas expansion)."""
    chosen = atlas.variant(setup)
    if chosen is not None:
        if count != chosen.players:
            given = (f"--random needs {chosen.players} --player names, {count} given" if drawn
                     else f"{count} named")
            raise InvalidCommand(f"the set-up {setup} plays {chosen.players} empires "
                                 f"({', '.join(e.title() for e in chosen.empires)}): {given} "
                                 f"[rule {chosen.section}]")
        return
    least, most = load_ruleset().numbers.min_players, load_ruleset().numbers.max_players
    if not least <= count <= most:
        others = [f"--setup {v.id} ({v.players})" for v in atlas.load_setups().variants
                  if not least <= v.players <= most]
        raise InvalidCommand(f"Mare Nostrum: Empires is for {least} to {most} players; {count} given"
                             + (f"; other numbers: {', '.join(others)}" if others else "")
                             + " [rule setup.players]")


def display(cmd: CreateGame, rng: Rng, cities: ev.CitiesSetUp | None = None) -> tuple[DisplayTile, ...]:
    """Set-up step 5: five random tiles and the Pyramids face up, the rest face down, or all face up."""
    rs = load_ruleset()
    # the base tiles, with the Legendary City expansions' replacements (lc.2, lc.4), then a board
    # expansion's tiles with its board (ruling R53); the Atlantean heroes without a text are not in
    # the ruleset at all (ruling R54)
    boards = atlas.tiles_in_play(cmd.setup) - {""}
    chosen = atlas.variant(cmd.setup)
    set_aside = set(chosen.discarded) if chosen else set()  # the Punic War sets Antigone aside
    others = [t for t in expansions.display_pool(cities) if t not in set_aside] + [
        t.id for t in rs.tiles if not t.starting and t.kind != "pyramids" and t.expansion in boards
        and t.id not in set_aside]
    pyramids = next(DisplayTile(tile=t.id, face_up=True) for t in rs.tiles if t.kind == "pyramids")
    if cmd.display == "experienced":
        return (*(DisplayTile(tile=t, face_up=True) for t in others), pyramids)
    order = rng.shuffled(others)
    # the Atlantis board's extra tile spaces show more tiles (ruling R53)
    shown = atlas.face_up_first_game(cmd.setup)
    return (*(DisplayTile(tile=t, face_up=i < shown) for i, t in enumerate(order)),
            pyramids)


def create(cmd: CreateGame, rng: Rng, commitment: str, fold: Fold, fork_of: ForkInfo | None = None
           ) -> list[ev.AnyEvent]:
    """The first events of a game: creation, display, the first round's resources, the Trade phase."""
    players = assign_players(cmd, rng)
    created = ev.GameCreated(
        engine_version=mncore.__version__, ruleset_id=RULESET_ID, ruleset_version=RULESET_VERSION,
        board=cmd.board, board_digest=board_digest(cmd.board), players=players,
        options=Options(display=cmd.display, fair_play=cmd.fair_play, sandbox=not cmd.fair_play,
                        fork_of=fork_of, setup=cmd.setup, expansions=cmd.expansions),
        commitment=commitment)
    # the Legendary City expansions replace tiles before the display is drawn (lc.2)
    cities = expansions.set_up(cmd.expansions, rng) if cmd.expansions else None
    events: list[ev.AnyEvent] = [created, *([cities] if cities else []),
                                 ev.TilesDisplayed(display=display(cmd, rng, cities))]
    state = fold(events, GameState())
    # set-up step 3: the first round's resources are collected before play starts
    events += collect.collection(state, rng)
    began = ev.PhaseBegan(round=1, phase="trade")
    events.append(began)
    state = fold(events, GameState())
    events += trade.begin(state, rng, fold)
    return events
