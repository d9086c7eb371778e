"""Phase 2, Trade Resources (2.1, 2.2, 2.2.1): the exchange marker, offers and claims."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, overload

from mncore.core.dice import Rng
from mncore.core.errors import refuse, require
from mncore.core.protocol import Option, Pending
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires import tile_powers
from mncore.rulesets.empires.commands import (
    ClaimForeign,
    ClaimResource,
    DiscardOffered,
    GiveResource,
    OfferResources,
    PlayExchangeMarker,
    TradeCommand,
)
from mncore.rulesets.empires.display_names import title
from mncore.rulesets.empires.game_data import load_ruleset
from mncore.rulesets.empires.ids import EMPIRES, TOKENS, Empire, Token
from mncore.rulesets.empires.rules import punic
from mncore.rulesets.empires.rules.collect import share_order
from mncore.rulesets.empires.rules.fold import Fold
from mncore.rulesets.empires.state import (
    Bag,
    GameState,
    TradeStep,
    bag_contains,
    bag_of,
    bag_total,
    trade_step,
)


def canonical(d: dict[Any, Any]) -> dict[Any, Any]:
    """Keys sorted at every level, as the stored (deterministic) JSON gives them back on replay."""
    return {k: canonical(v) if isinstance(v, dict) else v for k, v in sorted(d.items())}


def trade_leader(state: GameState) -> Empire | None:
    return state.titles.get("trade")


def available_markers(state: GameState) -> list[tuple[int, tuple[int, int]]]:
    """The exchange markers the Trade Leader may play now (2.1), with their index."""
    markers = load_ruleset().components.exchange_markers
    played = state.exchange_played if state.exchange_holder == trade_leader(state) else ()
    return [(i, m) for i, m in enumerate(markers) if i not in played]


# --- queries on the trade in progress ----------------------------------------------------------------------

def may_alter_offer(state: GameState, empire: Empire) -> bool:
    return tile_powers.has_at(state, empire, "any_offer")


def offer_sizes(state: GameState, empire: Empire, value: int) -> range:
    """How many resources the empire may offer: the value, or 0 to 5 with Antigone (10.antigone, R24)."""
    if may_alter_offer(state, empire):
        most = max(t.max_offer for t in tile_powers.powers_of(state, empire, "any_offer"))
        return range(0, min(most, bag_total(state.empires[empire].resources)) + 1)
    return range(value, value + 1)


OFFER_SAMPLES = 60  # options() lists at most this many whole offers


def legal_offers(held: Bag, sizes: range) -> tuple[str, ...]:
    """Whole offers the empire could make, as the words after `offer` (sorted, at most OFFER_SAMPLES):
    each different set of tokens once, as the combinations of the sorted tokens first give them, made
    without the repeats (many tokens of one kind made most of the combinations alike)."""
    kinds = [(token, n) for token, n in sorted(held.items()) if n > 0]  # as bag_tokens lists them
    left = [0] * (len(kinds) + 1)  # the tokens held from each kind on: fewer than asked make no set
    for i in range(len(kinds) - 1, -1, -1):
        left[i] = left[i + 1] + kinds[i][1]
    out: list[str] = []
    for n in sizes:
        if n == 0:
            out.append("nothing")
            if len(out) >= OFFER_SAMPLES:
                break
        elif left[0] >= n and _token_sets(kinds, left, 0, n, "", out):
            break
    return tuple(out)


def _token_sets(kinds: list[tuple[Token, int]], left: list[int], i: int, n: int, taken: str,
                out: list[str]) -> bool:
    """Add to out the different sets of n tokens (n > 0, at least n held from kinds[i] on) from kinds[i:]
    (token, how many held) after those taken (each written after a space), sorted: as many of the first
    token as may be taken first (a set with more of it sorts before one with fewer), then the rest's;
    True once out holds OFFER_SAMPLES. A set is finished, or a rest found too short, before recursing:
    most calls would do only that."""
    token, held = kinds[i]
    word = " " + token
    after = left[i + 1]  # the tokens held from the next kind on
    for k in range(min(held, n), -1, -1):
        rest = n - k
        if not rest:
            out.append((taken + word * k)[1:])  # " ".join of the tokens: each after a space, less the first
            if len(out) >= OFFER_SAMPLES:
                return True
        elif after < rest:
            return False  # fewer taken here leaves more to find after: no set either
        elif _token_sets(kinds, left, i + 1, rest, taken + word * k, out):
            return True
    return False


class Offers(Sequence[str]):
    """legal_offers(held, sizes) read as asked: the offers counted per size, and one made only when read
    (a scripted player draws a few and tries the first): the same offers in the same order."""

    def __init__(self, held: Bag, sizes: range) -> None:
        self._kinds = [(token, n) for token, n in sorted(held.items()) if n > 0]  # as legal_offers lists them
        most = max((n for n in sizes if n > 0), default=0)
        # _ways[i][r]: the different sets of r tokens from kinds[i:], counted from the last kind back
        row = [1] + [0] * most
        self._ways = [row]
        for _, held_here in reversed(self._kinds):
            ways, row = row, []
            total = 0
            for r in range(most + 1):  # the sets taking 0 to held_here of this kind and r - k after it
                total += ways[r] - (ways[r - held_here - 1] if r > held_here else 0)
                row.append(total)
            self._ways.append(row)
        self._ways.reverse()
        self._sizes: list[tuple[int, int]] = []  # each size listed, with its number of offers
        total = 0
        for n in sizes:
            if total >= OFFER_SAMPLES:
                break
            found = 1 if n == 0 else row[n] if n > 0 else 0
            if found:
                self._sizes.append((n, found))
                total += found
        self._len = min(total, OFFER_SAMPLES)

    def __len__(self) -> int:
        return self._len

    @overload
    def __getitem__(self, j: int) -> str: ...
    @overload
    def __getitem__(self, j: slice) -> Sequence[str]: ...

    def __getitem__(self, j: int | slice) -> str | Sequence[str]:
        if isinstance(j, slice):
            return tuple(self[i] for i in range(*j.indices(self._len)))
        if j < 0:
            j += self._len
        if not 0 <= j < self._len:
            raise IndexError("offer index out of range")
        for n, found in self._sizes:
            if j < found:
                return self._nth(n, j) if n else "nothing"
            j -= found
        raise AssertionError("the sizes hold every offer counted")

    def _nth(self, n: int, j: int) -> str:
        """The j-th set of n tokens in _token_sets' order (as many of the first kind as may be, first), as
        its words."""
        words: list[str] = []
        i = 0
        while n:
            token, held = self._kinds[i]
            after = self._ways[i + 1]
            for k in range(min(held, n), -1, -1):
                found = after[n - k]
                if j < found:
                    words += [token] * k
                    break
                j -= found
            i, n = i + 1, n - k
        return " ".join(words)


def forbidden_source(step: TradeStep, claimant: Empire) -> Empire | None:
    """After A claimed from B and B from A, A may not claim from B at once (2.2); the Punic War has no
    such limit (atlas.punic-trade), which trade_limits passes as False."""
    if len(step.claims) < 2:
        return None
    last, before = step.claims[-1], step.claims[-2]
    if (last.source == claimant and before.claimant == claimant
            and before.source == last.claimant):
        return last.claimant
    return None


def legal_sources(state: GameState, claimant: Empire) -> list[Empire]:
    """The empires whose remaining offer the claimant may claim from now (2.2)."""
    step = trade_step(state)
    barred = None if punic.in_play(state) else forbidden_source(step, claimant)
    return [e for e in EMPIRES if e != claimant and e != barred and step.offers.get(e)]


def may_claim(state: GameState, claimant: Empire) -> bool:
    """Some claim is open to the claimant: from an offer, or in the Punic War a Foreign Trade commodity."""
    return bool(legal_sources(state, claimant)) or (punic.in_play(state) and bool(state.foreign_trade))


def balance(step: TradeStep, empire: Empire) -> int:
    """Resources received in the trade minus those offered: above 0 claimed extra, below 0 short (2.2.1)."""
    got = sum(1 for c in step.claims if c.claimant == empire)
    got += sum(1 for g in step.gifts if g.claimant == empire)
    got -= sum(1 for g in step.gifts if g.source == empire)
    return got - step.offered.get(empire, 0)


def short_empires(step: TradeStep) -> list[Empire]:
    return [e for e in step.participants if e != step.opener and balance(step, e) < 0]


def gift_due(state: GameState) -> bool:
    """The opener claimed more than it offered and someone claimed fewer (2.2.1, ruling R28)."""
    step = trade_step(state)
    # the Punic War's claims are uneven by design: claims as wanted, discards (ruling R62)
    return (step.over and step.opener is not None and balance(step, step.opener) > 0
            and bool(short_empires(step)) and not punic.in_play(state))


# --- the phase ----------------------------------------------------------------------------------------------

def begin(state: GameState, rng: Rng, fold: Fold) -> list[ev.AnyEvent]:
    return punic.replenish(state, rng)


def waiting(state: GameState) -> list[tuple[Empire, str]]:
    """pending() without its words, as (empire, kind): what settling asks after every order (2.0-2.2)."""
    if state.phase != "trade":
        return []
    step = trade_step(state)
    if step.value is None:
        leader = trade_leader(state)
        return [] if leader is None else [(leader, "exchange-marker")]
    if not step.revealed and not step.over:
        return [(e, "offer") for e in step.participants if e not in step.offers]
    if step.discarding is not None:
        return [(step.discarding, "discard")]  # punic.pending's one decision
    if not step.over and step.claimant is not None:
        return [(step.claimant, "claim")]
    if gift_due(state) and step.opener is not None:
        return [(step.opener, "give")]
    return []


def pending(state: GameState) -> list[Pending]:
    step = trade_step(state)
    leader = trade_leader(state)
    if state.phase != "trade":
        return []
    if step.value is None:
        if leader is None:
            return []
        values = ", ".join(str(v) for _, m in available_markers(state) for v in m)
        return [Pending(empire=leader, kind="exchange-marker",
                        text=f"play an exchange marker for one of its values ({values})")]
    if not step.revealed and not step.over:
        # every offer stays face down until the last is in (ruling R29)
        return [Pending(empire=e, kind="offer", text=_offer_text(state, e, step.value))
                for e in step.participants if e not in step.offers]
    if step.discarding is not None:
        return punic.pending(state)
    if not step.over and step.claimant is not None:
        if punic.in_play(state):
            return [Pending(empire=step.claimant, kind="claim",
                            text="claim one resource from your opponent's offer or a Foreign Trade commodity: "
                                 "claim TOKEN from EMPIRE, claim TOKEN from foreign")]
        return [Pending(empire=step.claimant, kind="claim",
                        text="claim one resource from another empire's offer: claim TOKEN from EMPIRE")]
    if gift_due(state) and step.opener is not None:
        return [Pending(empire=step.opener, kind="give", text=gift_text(step))]
    return []


def gift_text(step: TradeStep) -> str:
    """The opener's gift owed (2.2.1), in words: to the one empire left short, named; else to one of
    them, the giver's choice (ruling R28), with how many are owed in all."""
    shorts = short_empires(step)
    ahead = balance(step, step.opener) if step.opener is not None else 0
    owed = min(ahead, -sum(balance(step, e) for e in shorts))
    if len(shorts) == 1:
        return (f"give one resource to {title(shorts[0])}, left short"
                + (f" ({owed} owed, one at a time)" if owed > 1 else "") + f": give TOKEN to {shorts[0]}")
    names = ", ".join(title(e) for e in shorts[:-1]) + f" or {title(shorts[-1])}"
    return (f"give one resource to {names}, each left short, your choice "
            f"({owed} owed in all, ruling R28): give TOKEN to EMPIRE")


def _offer_text(state: GameState, empire: Empire, value: int) -> str:
    sizes = offer_sizes(state, empire, value)
    if len(sizes) > 1:
        return (f"offer from 0 to {sizes[-1]} resources face down (Antigone; the exchange value is "
                f"{value}): offer TOKEN ...")
    return f"offer {value} resource{'' if value == 1 else 's'} face down: offer TOKEN ..."


def end(state: GameState, rng: Rng) -> list[ev.AnyEvent]:
    return []


def options(state: GameState, empire: Empire) -> list[Option]:
    mine = {kind for e, kind in waiting(state) if e == empire}  # pending()'s kinds, without their words
    step = trade_step(state)
    out: list[Option] = []
    if "exchange-marker" in mine:
        out += [Option(kind="exchange-marker", order=f"trade {v}")
                for _, m in available_markers(state) for v in m]
    if "offer" in mine and step.value is not None:
        sizes = offer_sizes(state, empire, step.value)
        how_many = (str(sizes[0]) if len(sizes) == 1 else f"0 to {sizes[-1]}")
        out.append(Option(kind="offer", template="offer {tokens}",
                          parts={"tokens": legal_offers(state.empires[empire].resources, sizes)},
                          note=f"offer {how_many} of your resources ('nothing' for none); "
                               f"up to {OFFER_SAMPLES} of the possible offers are listed"))
    if "claim" in mine:
        out += [Option(kind="claim", order=f"claim {t} from {src}")
                for src in legal_sources(state, empire) for t in sorted(step.offers[src])]
        out += punic.claim_options(state) if punic.in_play(state) else []
    if "discard" in mine:
        out += punic.discard_options(state, empire)
    if "give" in mine:
        out += [Option(kind="give", order=f"give {t} to {to}")
                for to in short_empires(step) for t in sorted(state.empires[empire].resources)]
    return out


def decide(state: GameState, order: TradeCommand, rng: Rng, fold: Fold) -> list[ev.AnyEvent]:
    match order:
        case PlayExchangeMarker():
            return play_marker(state, order)
        case OfferResources():
            return offer(state, order, fold)
        case ClaimResource():
            return claim(state, order, fold)
        case GiveResource():
            return give(state, order)
        case ClaimForeign():
            claimed = punic.claim_foreign(state, order, fold)
            after = fold(claimed, state)
            return [*claimed, *([] if trade_step(after).discarding else close_if_stuck(after))]
        case DiscardOffered():
            discarded = punic.discard(state, order, fold)
            return [*discarded, *close_if_stuck(fold(discarded, state))]


# --- 2.1: the exchange marker and the offers -------------------------------------------------------------------

def play_marker(state: GameState, order: PlayExchangeMarker) -> list[ev.AnyEvent]:
    require(state.phase == "trade", "2.1", "exchange markers are played in the Trade phase")
    if trade_leader(state) != order.empire:  # each refusal worded only when it refuses
        refuse("2.1", f"only the Trade Leader ({(trade_leader(state) or 'nobody').title()}) plays an exchange marker")
    require(trade_step(state).value is None, "2.1", "an exchange marker was already played this round")
    found = [(i, m) for i, m in available_markers(state) if order.value in m]
    all_values = [v for m in load_ruleset().components.exchange_markers for v in m]
    if order.value not in all_values:
        refuse("2.1", f"no exchange marker shows {order.value} (the markers are 5/0, 2/1 and 4/3)")
    if not found:
        refuse("2.1", f"the marker showing {order.value} was played already; it returns when all three have "
               "been played or a new Trade Leader takes the markers")
    index, _ = found[0]
    played = ev.ExchangeMarkerPlayed(empire=order.empire, marker=index, value=order.value)
    if order.value == 0:
        return [played, ev.TradingEnded(reason="the exchange value is 0: nobody offers anything",
                                        section="R23")]
    return [played, *open_trade(state, order.value)]


def open_trade(state: GameState, value: int) -> list[ev.AnyEvent]:
    """Who offers (ruling R23), who claims first (2.2, ruling R25); too few takers: no trade (R23)."""
    held = {e: bag_total(es.resources) for e, es in state.empires.items()}
    takers = tuple(e for e in state.empires if held[e] >= value or may_alter_offer(state, e))
    out = tuple(e for e in state.empires if e not in takers)
    opener = next((e for e in share_order(state) if e in takers), None)
    opened = ev.TradeOpened(participants=takers, sitting_out=out, held=canonical(held), opener=opener)
    if len(takers) < 2:
        return [opened, ev.TradingEnded(reason="fewer than two empires hold enough resources to trade",
                                        section="R23")]
    return [opened]


def offer(state: GameState, order: OfferResources, fold: Fold) -> list[ev.AnyEvent]:
    step = trade_step(state)
    value = step.value
    require(state.phase == "trade" and value is not None, "2.1",
            "resources are offered in the Trade phase, after the Trade Leader plays an exchange marker")
    assert value is not None, "checked just above"
    require(not step.over and not step.revealed, "2.1", "the offers are already revealed: it is too late "
                                                       "to offer")
    emp = order.empire
    # each refusal worded only when it refuses: every offer of a trade passes here
    if emp not in step.participants:
        refuse("R23", f"{title(emp)} holds {bag_total(state.empires[emp].resources)} resources, fewer than the "
                      f"{step.value} to offer: it sits this trade out (ruling R23)")
    if emp in step.offers:
        refuse("2.1", f"{title(emp)} has already placed its offer face down")
    sizes = offer_sizes(state, emp, value)
    if len(sizes) > 1:
        if len(order.tokens) not in sizes:
            refuse("10.antigone",
                   f"with Antigone {title(emp)} offers from 0 to {sizes[-1]} resources, not {len(order.tokens)}")
    elif len(order.tokens) != step.value:
        refuse("2.1", f"the exchange value is {step.value}: offer exactly {step.value} resources, "
                      f"not {len(order.tokens)}")
    bag = bag_of(order.tokens)
    if not (all(t in TOKENS for t in bag) and bag_contains(state.empires[emp].resources, bag)):
        refuse("2.1", f"{title(emp)} does not hold {_words(bag)} behind its screen")
    offered = ev.ResourcesOffered(empire=emp, offer=canonical(bag), count=len(order.tokens))
    after = fold([offered], state)
    if any(e not in trade_step(after).offers for e in trade_step(after).participants):
        return [offered]
    revealed = ev.OffersRevealed(offers=canonical(trade_step(after).offers))
    return [offered, revealed, *close_if_stuck(fold([revealed], after))]


def _words(bag: Bag) -> str:
    return ", ".join(f"{n} {title(t)}" for t, n in sorted(bag.items())) or "nothing"


# --- 2.2: claims ---------------------------------------------------------------------------------------------

def claim(state: GameState, order: ClaimResource, fold: Fold) -> list[ev.AnyEvent]:
    step = trade_step(state)
    emp, src = order.empire, order.source
    # each refusal worded only when it refuses: every claim of a trade passes here
    require(state.phase == "trade" and step.revealed and not step.over, "2.2",
            "resources are claimed in the Trade phase, once every offer is revealed and until trading ends")
    if step.claimant != emp:
        refuse("2.2", f"it is {title(step.claimant or 'nobody')}'s turn to claim, not {title(emp)}'s")
    require(src != emp, "2.2", "claim a resource offered by another empire, not your own")
    remaining = step.offers.get(src, {})
    if remaining.get(order.token, 0) <= 0:
        refuse("2.2", f"{title(src)}'s offer holds no {title(order.token)} now; it holds {_words(remaining)}")
    if step.discarding is not None:
        refuse(punic.SECTION, f"{title(step.discarding)} first discards a face-up resource (the Barbarians' claim)")
    if not punic.in_play(state) and forbidden_source(step, emp) == src:
        refuse("2.2", f"two empires may not claim each other's resources twice in a row (ruling R27): {title(emp)} "
                      f"claimed from {title(src)} and {title(src)} just claimed from {title(emp)}; claim from "
                      "another empire")
    claimed = ev.ResourceClaimed(empire=emp, source=src, token=order.token)
    return [claimed, *close_if_stuck(fold([claimed], state))]


def close_if_stuck(state: GameState) -> list[ev.AnyEvent]:
    """End the claims when nothing is left, at the two-empire stop (2.2 as ruling R27 reads it), or with
    no legal claim (R26)."""
    step = trade_step(state)
    claimant = step.claimant
    if claimant is None or not any(step.offers.values()):
        return [_ended(state, "every offered resource was claimed", "2.2")]
    pair = None if punic.in_play(state) else two_empire_stop(step)
    if pair is not None:
        # recorded as 2.2, the section it ends, as logs always have (explain adds ruling R27)
        return [_ended(state, f"only {title(pair[0])} and {title(pair[1])} remain, and each has claimed "
                              "from the other", "2.2")]
    if not may_claim(state, claimant):
        return [_ended(state, f"{title(claimant)} has no resource it may claim (ruling R26)", "R26")]
    return []


def two_empire_stop(step: TradeStep) -> tuple[Empire, Empire] | None:
    """The two empires left that have claimed from each other, which ends the claims (2.2, ruling R27:
    those with an offer left, and the claimant); None if that is not the case."""
    remaining = {e for e, bag in step.offers.items() if bag}
    if step.claimant is None or not remaining:
        return None
    live = sorted(remaining | {step.claimant})
    if len(live) == 2 and _claimed_each_other(step, live[0], live[1]):
        return live[0], live[1]
    return None


def _claimed_each_other(step: TradeStep, a: Empire, b: Empire) -> bool:
    pairs = {(c.claimant, c.source) for c in step.claims}
    return (a, b) in pairs and (b, a) in pairs


def _ended(state: GameState, reason: str, section: str) -> ev.TradingEnded:
    step = trade_step(state)
    return ev.TradingEnded(reason=reason, section=section,
                           returned=canonical({e: b for e, b in step.offers.items() if b}),
                           stored=canonical({e: b for e, b in step.claimed.items() if b}))


# --- 2.2.1: uneven claims ---------------------------------------------------------------------------------------

def give(state: GameState, order: GiveResource) -> list[ev.AnyEvent]:
    step = trade_step(state)
    emp = order.empire
    require(state.phase == "trade" and gift_due(state), "2.2.1",
            "no resource is owed: a gift is due only after trading, when the empire that claimed first "
            "took more than it offered and another took fewer")
    require(step.opener == emp, "2.2.1",
            f"only {title(step.opener or 'nobody')}, who claimed an extra resource, gives one")
    shorts = short_empires(step)
    require(order.to in shorts, "2.2.1",
            f"{title(order.to)} is not short: give to one of {', '.join(title(e) for e in shorts)}")
    held = state.empires[emp].resources
    require(held.get(order.token, 0) > 0, "2.2.1",
            f"{title(emp)} holds no {title(order.token)}; it holds {_words(held)}")
    return [ev.ResourceGiven(empire=emp, to=order.to, token=order.token)]
