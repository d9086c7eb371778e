"""Set-up (1): the board, the civilisations played and the neutral ones, tokens, cards set aside."""

from __future__ import annotations

from mncore.dice import Rng
from mncore.errors import require
from mncore.rulesets.classic import commands as cm, events as ev
from mncore.rulesets.classic.components import game_data
from mncore.rulesets.classic.ids import RULESET_ID, RULESET_VERSION
from mncore.rulesets.classic.state import Options

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
        options=Options(fair_play=cmd.fair_play, sandbox=not cmd.fair_play, variant=cmd.variant,
                        setup=cmd.setup))
    deck = sorted(c.id for c in data.card if c.kind in ("hero", "wonder") and not c.civ)
    aside = tuple(sorted(rng.shuffled(deck)[:data.cards_set_aside]))
    return [created, ev.CardsSetAside(cards=aside)]


def leave_out(players: int) -> tuple[str, ...]:
    """The civilisations the summary leaves out for this many players (most balanced play)."""
    return game_data().leave_out.get(str(players), ())
