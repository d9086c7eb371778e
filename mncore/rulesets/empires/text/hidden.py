"""The fields of events and commands that only some empires may see (the log commits them)."""

from __future__ import annotations

from typing import get_args

from mncore.core.protocol import Hidden
from mncore.rulesets.empires import commands as cm
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.ids import FACE_DOWN, Empire, TileId, is_legendary
from mncore.rulesets.empires.state import Bag, FixedLegendary, FixedOutcome, GameState, TradeStep, bag_total

WITHHELD = "withheld"  # a token, card or commodity a reader may not see, standing in for it (counts stay)
# a face-down tile as every reader reads it: one fixed tile standing in for all, which says nothing of
# the real one (sentences count face-down tiles and never name them; views show them unnamed)
FACE_DOWN_TILE: TileId = get_args(TileId)[0]


# The event types hidden_event may hide a field of: every other one has none, found without trying each
# case of the match below (verify asks it of every event; tests/test_hidden_types.py reads the match
# and checks that it names these types and no others).
MAY_HIDE: frozenset[type] = frozenset({
    ev.TilesDisplayed, ev.ResourcesCollected, ev.Pillaged, ev.LegendaryBonusTaken, ev.ResourcesOffered,
    ev.OffersRevealed, ev.ResourcesDiscarded, ev.StorageChosen, ev.OutcomeFixed, ev.FixedOutcomeUsed,
    ev.FixedOutcomesCleared, ev.PositionLoaded, ev.BonusCardsDrawn, ev.BonusCardsDiscarded, ev.BonusCardsPassed,
    ev.BonusCardKept, ev.DiscardCardDrawn, ev.DiscardsTaken, ev.DiscardsOffered})


def hidden_event(event: ev.AnyEvent) -> list[Hidden]:
    """What of an event's payload is behind a screen or face down when it is recorded."""
    if type(event) not in MAY_HIDE:
        return []
    match event:
        case ev.TilesDisplayed(display=display):
            # the face-down order is the future draws: nobody may see it (set-up step 5)
            return [Hidden(field=f"payload/display/{i}/tile", public=FACE_DOWN_TILE)
                    for i, d in enumerate(display) if not d.face_up]
        case ev.ResourcesCollected(empire=emp, gained=gained):
            # others read the ordinary tokens; `drawn` says how many legendary ones were drawn (1.2)
            return _if_legendary(gained, emp, {t: n for t, n in gained.items() if not is_legendary(t)})
        case ev.Pillaged(empire=emp, gained=gained):
            return _if_legendary(gained, emp, _face_down(gained))
        case ev.LegendaryBonusTaken(empire=emp, take="legendary"):
            return [Hidden(field="payload/gained", visible_to=(emp,))]
        case ev.ResourcesOffered(empire=emp):
            return [Hidden(field="payload/offer", visible_to=(emp,))]  # face down until revealed (2.1)
        case ev.OffersRevealed(offers=offers):
            # flipped at once (2.1): in an order not given, nobody sees another's offer before it is
            return [Hidden(field=f"payload/offers/{e}", visible_to=(e,), revealed=True) for e in offers]
        case ev.ResourcesDiscarded(empire=emp):
            return [Hidden(field="payload/discarded", visible_to=(emp,))]
        case ev.StorageChosen(empire=emp):
            return [Hidden(field="payload/keep", visible_to=(emp,))]
        case ev.OutcomeFixed(empire=emp, outcome=outcome):
            return _fixed(outcome, "payload/outcome", (emp,))
        case ev.FixedOutcomeUsed(empire=emp, outcome=outcome):
            return _fixed(outcome, "payload/outcome", (emp,) if emp else ())
        case ev.FixedOutcomesCleared(empire=emp, cleared=cleared):
            return [h for i, o in enumerate(cleared) for h in _fixed(o, f"payload/cleared/{i}", (emp,))]
        case ev.PositionLoaded(state=state):
            return hidden_in_state(state, "payload/state", committed=True)
        # the Legendary City expansions: cards in hand are face down (lc.3.2)
        case ev.BonusCardsDrawn(empire=emp) | ev.BonusCardsDiscarded(empire=emp):
            return [Hidden(field="payload/cards", visible_to=(emp,))]
        case ev.BonusCardsPassed(empire=emp, to=to):
            return [Hidden(field="payload/cards", visible_to=(emp, to))]
        case ev.BonusCardKept(empire=emp) | ev.DiscardCardDrawn(empire=emp):
            return [Hidden(field="payload/card", visible_to=(emp,))]
        case ev.DiscardsTaken(empire=emp):
            return [Hidden(field="payload/taken", visible_to=(emp,))]
        case ev.DiscardsOffered(empire=emp):  # the opponents' discards, which only the holder looks at
            return [Hidden(field="payload/lost", visible_to=(emp,))]
    return []


# The same for hidden_command and the command types its match names.
MAY_HIDE_COMMAND: frozenset[type] = frozenset({
    cm.OfferResources, cm.EndBuildTurn, cm.KeepCommodities, cm.FixOutcome, cm.TakeDiscards, cm.CreateFromPosition,
    cm.ChooseBonusCard})


def hidden_command(command: cm.AnyCommand) -> list[Hidden]:
    """What of a command only its giver may see: an offer's tokens, the commodities kept."""
    if type(command) not in MAY_HIDE_COMMAND:
        return []
    match command:
        case cm.OfferResources(empire=emp):
            return [Hidden(field="command/tokens", visible_to=(emp,))]
        case cm.EndBuildTurn(empire=emp, keep=keep) if keep is not None:
            return [Hidden(field="command/keep", visible_to=(emp,))]
        case cm.KeepCommodities(empire=emp, keep=keep) if keep:
            # an empty keep is left out of the command's JSON; the public counts show it anyway
            return [Hidden(field="command/keep", visible_to=(emp,))]
        case cm.FixOutcome(empire=emp, outcome=outcome):
            return _fixed(outcome, "command/outcome", (emp,))
        case cm.TakeDiscards(empire=emp, take=take) if take:  # what Dido took (10.dido)
            return [Hidden(field="command/take", visible_to=(emp,))]
        case cm.CreateFromPosition(position=state):
            return hidden_in_state(state, "command/position", committed=True)
        case cm.ChooseBonusCard(empire=emp):
            return [Hidden(field="command/card", visible_to=(emp,))]  # kept face down (lc.3.2)
    return []


def hidden_in_state(state: GameState, at: str = "state", committed: bool = False) -> list[Hidden]:
    """The screens, piles and face-down tiles of a whole state (a view, a position) as hidden fields;
    what others read keeps how many there are, which is public (a screen's count, a pile's size).
    `committed`: for a position in the log, whose JSON leaves an empty screen out, so that there is
    nothing there to commit; a view withholds every other screen, empty or not."""
    out = [Hidden(field=f"{at}/empires/{e}/resources", visible_to=(e,), public=_counted(es.resources))
           for e, es in state.empires.items() if es.resources or not committed]
    if state.legendary_pile:
        out.append(Hidden(field=f"{at}/legendary_pile", public=_cards(state.legendary_pile)))
    out += [Hidden(field=f"{at}/display/{i}/tile", public=FACE_DOWN_TILE)
            for i, d in enumerate(state.display) if not d.face_up]
    step = state.step
    if isinstance(step, TradeStep) and not step.revealed:
        out += [Hidden(field=f"{at}/step/offers/{e}", visible_to=(e,), public=_counted(b))
                for e, b in step.offers.items()]
    out += [h for i, o in enumerate(state.fixed) for h in _fixed(o, f"{at}/fixed/{i}", ())]
    return out + _hidden_cities(state, f"{at}/cities")


def _hidden_cities(state: GameState, at: str) -> list[Hidden]:
    """The decks, the face-down discard pile, each hand and the cards of a draw-and-pass (lc.3.2)."""
    cs = state.cities
    if cs is None:
        return []
    out = [Hidden(field=f"{at}/decks/{x}", public=_cards(cards)) for x, cards in cs.decks.items() if cards]
    out += [Hidden(field=f"{at}/discard", public=_cards(cs.discard))] if cs.discard else []
    out += [Hidden(field=f"{at}/hands/{e}", visible_to=(e,), public=_cards(h)) for e, h in cs.hands.items()]
    out += [Hidden(field=f"{at}/draws/{i}/hand", visible_to=(d.holder,) if d.holder else (), public=_cards(d.hand))
            for i, d in enumerate(cs.draws) if d.hand]
    out += [Hidden(field=f"{at}/discards/{i}/lost", visible_to=(p.empire,), public=_counted(p.lost))
            for i, p in enumerate(cs.discards)]  # what Dido's holder may take (R213)
    return out


def _counted(bag: Bag) -> Bag:
    """A bag as the others read it: how many tokens, not which."""
    return {WITHHELD: bag_total(bag)}


def _cards(cards: tuple[str, ...]) -> tuple[str, ...]:
    """Face-down cards or commodities as the others read them: how many, not which."""
    return (WITHHELD,) * len(cards)


def _if_legendary(gained: Bag, emp: Empire, public: Bag) -> list[Hidden]:
    return [Hidden(field="payload/gained", visible_to=(emp,), public=public)] if any(map(is_legendary, gained)) else []


def _face_down(gained: Bag) -> Bag:
    """The bag as the others read it: each legendary token a face-down one, the rest as they are."""
    out = {t: n for t, n in gained.items() if not is_legendary(t)}
    down = sum(n for t, n in gained.items() if is_legendary(t))
    return {**out, FACE_DOWN: down} if down else out


def _fixed(outcome: FixedOutcome, at: str, who: tuple[Empire, ...]) -> list[Hidden]:
    # a fixed legendary commodity is drawn face down: its fixer and drawer see it (ruling R4)
    if isinstance(outcome, FixedLegendary) and outcome.commodity is not None:
        return [Hidden(field=f"{at}/commodity", visible_to=who)]
    return []
