"""The Punic War's Trade phase (atlas.punic-trade): the Foreign Trade commodities, claimed face up."""

from __future__ import annotations

from mncore.core.dice import Rng
from mncore.core.errors import require
from mncore.core.protocol import Option, Pending
from mncore.rulesets.empires import atlas
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.commands import ClaimForeign, DiscardOffered
from mncore.rulesets.empires.display_names import title
from mncore.rulesets.empires.ids import Empire, legendary
from mncore.rulesets.empires.random_draws import LegendaryDraws
from mncore.rulesets.empires.rules.fold import Fold
from mncore.rulesets.empires.state import GameState, trade_step

SECTION = "atlas.punic-trade"
FOREIGN_FACE_UP = 3  # "Draw 3 Legendary Commodities and place them face up"


def in_play(state: GameState) -> bool:
    """Whether this game trades with the Foreign Trade markets (the Punic War set-up)."""
    chosen = atlas.variant(state.options.setup)
    return chosen is not None and chosen.foreign_trade


def replenish(state: GameState, rng: Rng) -> list[ev.AnyEvent]:
    """Each Trade phase the face-up Foreign Trade commodities are replenished to three, drawn from the
    legendary pile as collection draws them (1.2; ruling R62: the Trade Leader's draw in a sandbox)."""
    if not in_play(state):
        return []
    leader: Empire = next((e for e in state.empires if e == state.titles.get("trade")), next(iter(state.empires)))
    draws = LegendaryDraws(state, rng)
    out: list[ev.AnyEvent] = []
    reshuffled = False
    for _ in range(FOREIGN_FACE_UP - len(state.foreign_trade)):
        drawn, now = draws.draw(leader)
        if now and not reshuffled:
            out.append(ev.LegendaryPileReshuffled())
            reshuffled = True
        if drawn is None:
            break
        out.append(ev.ForeignCommodityDrawn(commodity=drawn))
    return [*draws.used, *out]


def opponent(state: GameState, empire: Empire) -> Empire:
    return next(e for e in state.empires if e != empire)


def claim_foreign(state: GameState, order: ClaimForeign, fold: Fold) -> list[ev.AnyEvent]:
    """A claim of a face-up Foreign Trade commodity; the opponent then discards one of its own face-up
    resources, if it has one left (ruling R62)."""
    step = trade_step(state)
    emp = order.empire
    require(in_play(state), SECTION, "only the Punic War has Foreign Trade resources to claim")
    require(state.phase == "trade" and step.revealed and not step.over and step.discarding is None,
            "2.2", "resources are claimed in the Trade phase, once every offer is revealed and until "
                   "trading ends")
    require(step.claimant == emp, "2.2",
            f"it is {title(step.claimant or 'nobody')}'s turn to claim, not {title(emp)}'s")
    require(order.commodity in state.foreign_trade, SECTION,
            f"no Foreign Trade {title(order.commodity)} is face up; face up: "
            f"{', '.join(title(c) for c in state.foreign_trade) or 'nothing'}")
    return [ev.ForeignCommodityClaimed(empire=emp, commodity=order.commodity)]


def discard(state: GameState, order: DiscardOffered, fold: Fold) -> list[ev.AnyEvent]:
    """The opponent's discard after a Foreign Trade claim: one of its own face-up offered resources."""
    step = trade_step(state)
    emp = order.empire
    require(state.phase == "trade" and step.discarding is not None, SECTION,
            "a resource is discarded only after the opponent claimed a Foreign Trade commodity")
    require(step.discarding == emp, SECTION, f"{title(step.discarding or 'nobody')} discards now, "
                                             f"not {title(emp)}")
    left = step.offers.get(emp, {})
    require(left.get(order.token, 0) > 0, SECTION,
            f"{title(emp)}'s face-up offer holds no {title(order.token)}; it holds "
            f"{', '.join(f'{n} {title(t)}' for t, n in sorted(left.items())) or 'nothing'}")
    return [ev.OfferDiscarded(empire=emp, token=order.token)]


def pending(state: GameState) -> list[Pending]:
    step = trade_step(state)
    if step.discarding is None:
        return []
    return [Pending(empire=step.discarding, kind="discard",
                    text="discard one of your face-up offered resources (the Barbarians' claim): discard TOKEN")]


def claim_options(state: GameState) -> list[Option]:
    return [Option(kind="claim", order=f"claim {legendary(c)} from foreign")
            for c in sorted(set(state.foreign_trade))]


def discard_options(state: GameState, empire: Empire) -> list[Option]:
    return [Option(kind="discard", order=f"discard {t}")
            for t in sorted(trade_step(state).offers.get(empire, {}))]
