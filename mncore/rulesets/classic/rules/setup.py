"""Set-up (1): the board, the civilisations played and the neutral ones, tokens, cards set aside, and
the advanced set-up's placements (1.7)."""

from __future__ import annotations

from mncore.core.dice import Rng
from mncore.core.errors import InvalidCommand, require
from mncore.core.protocol import Option, Pending
from mncore.rulesets.classic import commands as cm
from mncore.rulesets.classic import events as ev
from mncore.rulesets.classic.components import Board, game_data
from mncore.rulesets.classic.ids import RULESET_ID, RULESET_VERSION
from mncore.rulesets.classic.rules.common import name, require_turn
from mncore.rulesets.classic.rules.construction import build_problem
from mncore.rulesets.classic.state import Options, State

MIN_PLAYERS, MAX_PLAYERS = 3, 6


def create(cmd: cm.CreateGame, rng: Rng, commitment: str) -> list[ev.AnyEvent]:
    """1.1-1.6: the civilisations in seat order, every other one neutral, the tokens for this many
    players, and 8 hero and wonder cards set aside unseen."""
    data = game_data()
    civs = cmd.civs
    known = [c.id for c in data.civ]
    require(MIN_PLAYERS <= len(civs) <= MAX_PLAYERS, "1.5",
            f"3 to 6 players play, not {len(civs)}")
    for c in civs:
        require(c in known, "1.4", f"'{c}' is not a civilisation: {', '.join(known)}")
    require(len(set(civs)) == len(civs), "1.4", "each civilisation is played once")
    require(set(cmd.players) == set(civs), "1.4", "every civilisation played has its player")
    neutrals = tuple(c for c in known if c not in civs)
    supply = {k: counts[len(civs) - MIN_PLAYERS] for k, counts in data.tokens.items()}
    created = ev.GameCreated(
        ruleset_id=RULESET_ID, ruleset_version=RULESET_VERSION, commitment=commitment,
        board=cmd.board, civs=civs, players=dict(cmd.players), neutrals=neutrals, supply=supply,
        neutral_lands=neutral_lands(cmd.board, civs, neutrals, cmd.setup), powers=cmd.powers,
        options=Options(fair_play=cmd.fair_play, sandbox=not cmd.fair_play, variant=cmd.variant,
                        setup=cmd.setup))
    deck = sorted(c.id for c in data.card if c.kind in ("hero", "wonder") and not c.civ)
    aside = tuple(sorted(rng.shuffled(deck)[:data.cards_set_aside]))
    events: list[ev.AnyEvent] = [created, ev.CardsSetAside(cards=aside)]
    if cmd.setup == "advanced":  # 1.7: a random build order, each building 5 times
        order = tuple(rng.shuffled(list(civs)))
        events += [ev.PhaseBegan(round=0, phase="setup"), ev.TurnOrder(order=order * data.advanced_turns)]
    return events


def neutral_lands(board: Board, civs: tuple[str, ...], neutrals: tuple[str, ...], setup: str
                  ) -> dict[str, tuple[str, ...]]:
    """1.6: "Then place 1 Influence marker, 1 Legion and 1 Fortress in each adjacent province": each neutral
    capital's land neighbours (ruling C2), but a province a played civilisation starts in, another
    neutral capital, or one an earlier neutral (in the fixed order) took; an island capital with no land
    neighbour, its home provinces."""
    data = game_data()
    taken = {p for c in civs for p in (data.civ_of(c).home[:1] if setup == "advanced" else data.civ_of(c).home)}
    taken |= {board.capital_of(c) for c in neutrals}
    out: dict[str, tuple[str, ...]] = {}
    for civ in neutrals:
        capital = board.capital_of(civ)
        near = sorted(board.land().of(capital)) if capital in board.land() else []
        about = near or [p for p in data.civ_of(civ).home if p != capital]
        out[civ] = tuple(p for p in about if p not in taken)
        taken |= set(out[civ])
    return out


# --- the advanced set-up (1.7) -----------------------------------------------------------------------

def open_to(state: State, civ: str) -> list[str]:
    """1.7: the capital, the provinces bordering it, and any its civilisation may also settle (C15)."""
    board = state.the_board()
    capital = board.capital_of(civ)
    near = sorted(board.land().of(capital)) if capital in board.land() else []
    return [capital, *near, *(p for p in game_data().civ_of(civ).settle if p not in near)]


def place(state: State, cmd: cm.Place) -> list[ev.AnyEvent]:
    require_turn(state, cmd.civ, "setup", "1.7")
    data, board = game_data(), state.the_board()
    if cmd.item == "hero":
        hero = data.civ_of(cmd.civ).hero
        require(hero not in state.cards.get(cmd.civ, ()), "1.7", f"{name(state, hero)} is already placed")
        points = data.cost["hero"]
        item, where = hero, ""
    else:
        if not board.is_province(cmd.province):
            raise InvalidCommand(f"'{cmd.province}' is not a province")
        require(cmd.province in open_to(state, cmd.civ), "1.7",
                f"{name(state, cmd.province)} is neither {name(state, cmd.civ)}'s capital nor beside it")
        if cmd.item == "influence":
            require(not state.land(cmd.province).influence, "1.7",
                    f"{name(state, cmd.province)} is already under influence")
        else:
            problem = build_problem(state, cmd.civ, cmd.item, cmd.province, cmd.resource)
            if problem:
                require(False, *problem)
            require(cmd.item not in ("legion", "trireme") or cmd.province == board.capital_of(cmd.civ),
                    "1.7", "legions and triremes begin in the capital")
        points = data.cost[cmd.item]
        item, where = cmd.item, cmd.province
    require(points <= state.turns.points, "1.7", f"{item} costs {points} points; "
                                                 f"{state.turns.points} are left this turn")
    return [ev.Placed(civ=cmd.civ, item=item, province=where, resource=cmd.resource, points=points)]


def end_turn(state: State, cmd: cm.EndTurn) -> list[ev.AnyEvent]:
    require_turn(state, cmd.civ, "setup", "1.7")
    return [ev.TurnEnded(civ=cmd.civ)]


def done(state: State) -> bool:
    return state.turns.index >= len(state.turns.order)


def pending(state: State) -> list[Pending]:
    due = state.turns.current()
    return [Pending(empire=due, kind="setup", text=f"place up to {state.turns.points} points, then done")] \
        if due else []


def options(state: State, civ: str) -> list[Option]:
    if state.turns.current() != civ:
        return []
    out = [Option(kind="done", order="done")]
    data, left = game_data(), state.turns.points
    for pid in open_to(state, civ):
        if not state.land(pid).influence and data.cost["influence"] <= left:
            out.append(Option(kind="place", order=f"place influence in {pid}"))
        for item in ("city", "temple", "market", "legion", "trireme", "fortress", "creature"):
            if data.cost[item] <= left and _may(state, civ, item, pid):
                out.append(Option(kind="place", order=f"place {item} in {pid}"))
        for res in state.the_board().prov(pid).resources:
            if data.cost["caravan"] <= left and _may(state, civ, "caravan", pid, res):
                out.append(Option(kind="place", order=f"place caravan {res} in {pid}"))
    hero = data.civ_of(civ).hero
    if data.cost["hero"] <= left and hero not in state.cards.get(civ, ()):
        out.append(Option(kind="place", order="place hero"))
    return out


def _may(state: State, civ: str, item: str, pid: str, resource: str = "") -> bool:
    capital = state.the_board().capital_of(civ)
    if item in ("legion", "trireme") and pid != capital:
        return False
    return build_problem(state, civ, item, pid, resource) is None


def leave_out(players: int) -> tuple[str, ...]:
    """The civilisations the summary leaves out for this many players (most balanced play)."""
    return game_data().leave_out.get(str(players), ())
