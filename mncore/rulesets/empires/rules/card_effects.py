"""What each Bonus Card does when played (lc.6.3, lc.7.3), and the targets it may be played on now."""

from __future__ import annotations

from mncore.core.dice import Rng
from mncore.core.errors import InvalidCommand, require
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.board import geo
from mncore.rulesets.empires.cities import CardInfo
from mncore.rulesets.empires.commands import PlayBonusCard
from mncore.rulesets.empires.display_names import title
from mncore.rulesets.empires.game_data import load_ruleset
from mncore.rulesets.empires.ids import CITY_KINDS, COIN, TRACKS, Empire, legendary
from mncore.rulesets.empires.projections import held_buildings, holder_of
from mncore.rulesets.empires.random_draws import LegendaryDraws
from mncore.rulesets.empires.rules import guards, payment, troia_cards
from mncore.rulesets.empires.rules.battle import place_name
from mncore.rulesets.empires.rules.conquest import markers_left
from mncore.rulesets.empires.state import GameState, bag_add, move_step, trade_step


def effect(state: GameState, order: PlayBonusCard, used: CardInfo, section: str, rng: Rng
            ) -> list[ev.AnyEvent]:
    emp = order.empire
    match used.effect:
        case "destroy-trireme":
            return _sink(state, order, section)
        case "destroy-caravan" | "destroy-city":
            return _destroy(state, order, used, section)
        case "boost":
            require(order.track is not None, section, f"say which track {used.name} raises: "
                    f"'play {order.played} track trade|culture|military'")
            assert order.track is not None
            return [ev.LeaderBoosted(empire=emp, track=order.track, amount=used.amount, round=state.round)]
        case "protect":
            pid = _province(state, order)
            require(pid in great_city_provinces(state), section,
                    f"{place_name(state, pid)} is not a Capital or Legendary City province")
            return [ev.ProvinceShielded(empire=emp, province=pid, round=state.round)]
        case "legendary":
            return _legendary(state, emp, used, rng)
        case "neutral-control":
            return _neutral_control(state, order, section, free=False)
        case "free-control":
            return _neutral_control(state, order, section, free=True)
        case "boost-all":
            return [ev.LeaderBoosted(empire=emp, track=t, amount=used.amount, round=state.round) for t in TRACKS]
        case "extra-resources":
            return _extra_resources(state, order, used, section)
        case "port":
            return _port(state, order, section)
        case "convert":
            return _convert(state, order, section)
        case "change-offer":
            return _change_offer(state, order, section)
        case "force-claim":
            return _force_claim(state, order, section)
        case "destroy-fortress" | "chariots" | "destroy-unit" | "sure-fives" | "siege" | "phalanx" | "ram":
            return troia_cards.effect(state, order, used, section)  # Troia's War cards
        case "decoy":
            raise AssertionError("a decoy is never the card whose effect is used")


def _province(state: GameState, order: PlayBonusCard) -> str:
    if order.place not in state.provinces:
        raise InvalidCommand(f"name a province in play: 'in PROVINCE' ({order.place or 'none given'})")
    return order.place


def great_city_provinces(state: GameState) -> list[str]:
    """Provinces with a Capital or Legendary City space (Athena)."""
    return [p.id for p in state.geo_board.provinces if p.id in state.provinces
            and any(s.kind in ("capital", "legendary") for s in p.spaces)]


def _sink(state: GameState, order: PlayBonusCard, section: str) -> list[ev.AnyEvent]:
    if order.place not in state.seas:
        raise InvalidCommand(f"name a sea: 'in SEA' ({order.place or 'none given'})")
    target = order.target
    require(target is not None and target != order.empire and target in state.empires, section,
            "name the opponent whose trireme is destroyed: 'on EMPIRE'")
    assert target is not None
    require(state.seas[order.place].get(target, 0) > 0, section,
            f"{title(target)} has no trireme in {place_name(state, order.place)}")
    require(not any(x.place == order.place for x in move_step(state).losses), "4.2",
            f"the losses of the battle in {place_name(state, order.place)} are still to be chosen")
    return [ev.TriremeSunk(empire=order.empire, owner=target, sea=order.place)]


def _destroy(state: GameState, order: PlayBonusCard, used: CardInfo, section: str) -> list[ev.AnyEvent]:
    pid = _province(state, order)
    kinds = ("caravan",) if used.effect == "destroy-caravan" else CITY_KINDS
    ps = state.provinces[pid]
    spaces = [s for s, k in sorted(ps.buildings.items()) if k in kinds]
    what = "caravan" if used.effect == "destroy-caravan" else "city"
    require(bool(spaces), section, f"there is no {what} in {place_name(state, pid)}")
    space = order.space or (spaces[0] if len(spaces) == 1 else "")
    if not space:
        raise InvalidCommand(f"{place_name(state, pid)} has several: say which with 'at SPACE' ({', '.join(spaces)})")
    require(space in spaces, section, f"there is no {what} on {space} in {place_name(state, pid)}")
    require(not guards.sheltered_forever(state, pid), guards.SHELTER_SECTION,
            f"{used.name} cannot be played on {place_name(state, pid)}, where Halicarnassus stands")
    return [ev.BuildingDestroyed(empire=order.empire, owner=holder_of(ps, space), province=pid, space=space,
                                 kind=ps.buildings[space])]


def _legendary(state: GameState, emp: Empire, used: CardInfo, rng: Rng) -> list[ev.AnyEvent]:
    draws = LegendaryDraws(state, rng)
    got, reshuffled = draws.draw(emp)
    out: list[ev.AnyEvent] = [*draws.used, *([ev.LegendaryPileReshuffled()] if reshuffled else [])]
    if got is None:
        return out + [ev.ResourcesCollected(empire=emp, gained={}, sources=(used.id,), missed={"legendary": 1})]
    return out + [ev.ResourcesCollected(empire=emp, gained={legendary(got): 1}, sources=(used.id,), drawn=1)]


def _neutral_control(state: GameState, order: PlayBonusCard, section: str, free: bool) -> list[ev.AnyEvent]:
    """Ishtar (the usual cost) or the Tower of Babel (free): control of a neutral province anywhere."""
    pid = _province(state, order)
    ps = state.provinces[pid]
    if not free and ps.controller == order.empire:  # Ishtar's other use (ruling R217)
        require(not order.pay, section, "opening your own province to your builds costs nothing here: "
                "build there with ordinary build orders, at the usual cost")
        return [ev.ProvinceOpened(empire=order.empire, province=pid, round=state.round)]
    require(ps.controller is None, section, f"{place_name(state, pid)} is not neutral")
    require(not any(n for e, n in ps.legions.items() if e != order.empire) and ps.fortress in (None, order.empire),
            "3.1.1", f"{place_name(state, pid)} holds opponent units")
    require(markers_left(state, order.empire) > 0, "3.1.1", f"{title(order.empire)} has no control marker left")
    if free:
        require(not order.pay, section, "this control marker is free: pay nothing")
    else:
        payment.require_set(state, order.empire, order.pay, load_ruleset().costs.control, "control")
    return [ev.ControlBuilt(empire=order.empire, province=pid, paid=order.pay)]


def produced(state: GameState, empire: Empire) -> set[str]:
    """The resources the empire's buildings produce (1.1): coins from cities, its caravans' commodities."""
    out: set[str] = set()
    for pid, sid, kind in held_buildings(state, empire):
        if kind in CITY_KINDS:
            out.add(COIN)
        elif kind == "caravan":
            space = next(s for s in geo(state.geo_board).province(pid).spaces if s.id == sid)
            if space.commodity:
                out.add(space.commodity)
    return out


def _extra_resources(state: GameState, order: PlayBonusCard, used: CardInfo, section: str) -> list[ev.AnyEvent]:
    """Trajan's Market: 2 more resources of the kinds the empire produces, from the reserves (R210)."""
    made = produced(state, order.empire)
    require(sum(order.take.values()) == used.amount, section,
            f"take {used.amount} resources: 'take coin wine' (of those you produce: {', '.join(sorted(made)) or 'none'})")
    require(set(order.take) <= made, section,
            f"{title(order.empire)} produces only {', '.join(sorted(made)) or 'nothing'}")
    require(all(state.supply.get(t, 0) >= n for t, n in order.take.items()), "9.0",
            "the reserves do not hold them (resources are limited)")
    return [ev.ResourcesCollected(empire=order.empire, gained=dict(order.take), sources=(used.id,))]


def _port(state: GameState, order: PlayBonusCard, section: str) -> list[ev.AnyEvent]:
    """The Port of Piraeus: 2 legions in a province and a trireme in a sea, for 6 different resources."""
    pid = _province(state, order)
    emp = order.empire
    require(state.provinces[pid].controller == emp, "3.1.2", f"legions are built in {title(emp)}'s own provinces")
    if order.sea not in state.seas:
        raise InvalidCommand(f"name the sea of the trireme: 'sea SEA' ({order.sea or 'none given'})")
    coasts = {s for p, ps in state.provinces.items() if ps.controller == emp
              for s in geo(state.geo_board).province(p).seas}
    require(order.sea in coasts, "3.1.2", f"a trireme is built in a sea next to one of {title(emp)}'s provinces")
    payment.require_set(state, emp, order.pay, 6, "the Port of Piraeus")
    return [ev.UnitBuilt(empire=emp, kind="legion", place=pid, paid=order.pay, count=2),
            ev.UnitBuilt(empire=emp, kind="trireme", place=order.sea, paid={})]


def _convert(state: GameState, order: PlayBonusCard, section: str) -> list[ev.AnyEvent]:
    """The Library of Alexandria: convert at once a marker first occupied this round."""
    pid = _province(state, order)
    ps, emp = state.provinces[pid], order.empire
    require(ps.marker_occupier == emp and ps.marker_round == state.round and ps.controller not in (None, emp),
            section, f"{title(emp)} did not occupy the control marker of {place_name(state, pid)} this round")
    assert ps.controller is not None
    problem = guards.sanctuary(state, pid)
    require(problem is None, *(problem or ("", "")))
    require(markers_left(state, emp) > 0, "R41", f"{title(emp)} has no control marker left")
    return [ev.ControlConverted(empire=emp, province=pid, previous=ps.controller)]


def _change_offer(state: GameState, order: PlayBonusCard, section: str) -> list[ev.AnyEvent]:
    """The Oracle of Delphi: after the reveal and before the first claim, a new offer of the same size."""
    step, emp = trade_step(state), order.empire
    require(step.revealed and not step.claims and emp in step.offers, section,
            "the offers must be revealed, with no claim made yet, and yours among them (ruling R215)")
    old = step.offers[emp]
    require(sum(order.pay.values()) == sum(old.values()), section,
            f"offer {sum(old.values())} resources, as before: 'pay TOKENS'")
    held = bag_add(state.empires[emp].resources, old)
    require(all(held.get(t, 0) >= n for t, n in order.pay.items()), section,
            f"{title(emp)} does not hold {payment.show(order.pay)}")
    return [ev.OfferChanged(empire=emp, offer=dict(order.pay), returned=dict(old))]


def _force_claim(state: GameState, order: PlayBonusCard, section: str) -> list[ev.AnyEvent]:
    """Parthenon of Athens: an opponent takes one token of the empire's own revealed offer (R216)."""
    step, emp = trade_step(state), order.empire
    require(step.revealed and not step.over, section, "only once the offers are revealed, while claiming goes on")
    target = order.target
    require(target is not None and target != emp and target in step.participants, section,
            "name an opponent in the trade: 'on EMPIRE'")
    assert target is not None
    require(sum(order.take.values()) == 1, section, "name the one token of your offer: 'take TOKEN'")
    token = next(iter(order.take))
    require(step.offers.get(emp, {}).get(token, 0) > 0, section, f"your offer holds no {token}")
    return [ev.ResourceForced(empire=emp, to=target, token=token)]


def targets(state: GameState, empire: Empire, info: CardInfo) -> list[str]:
    """The order endings of a card playable now: ' in SEA on EMPIRE', ' track TRACK', ..."""
    if info.phase not in ("any", state.phase):
        return []
    if info.effect in troia_cards.EFFECTS:
        return troia_cards.targets(state, empire, info)
    match info.effect:
        case "destroy-trireme":
            return [f" in {s} on {e}" for s, here in sorted(state.seas.items()) for e in sorted(here)
                    if e != empire and here[e] > 0]
        case "destroy-caravan" | "destroy-city":
            kinds = ("caravan",) if info.effect == "destroy-caravan" else CITY_KINDS
            return [f" in {p} at {s}" for p, ps in sorted(state.provinces.items()) for s, k in sorted(ps.buildings.items())
                    if k in kinds and not guards.sheltered_forever(state, p)]
        case "boost":
            return [f" track {t}" for t in TRACKS]
        case "protect":
            return [f" in {p}" for p in great_city_provinces(state)]
        case "legendary":
            return [""]
        case "neutral-control":
            return [f" in {p} pay {{payment}}" for p, ps in sorted(state.provinces.items())
                    if ps.controller is None and not ps.legions] + [
                f" in {p}" for p, ps in sorted(state.provinces.items())
                if ps.controller == empire and any(e != empire for e in ps.legions)]
        case "free-control":
            return [f" in {p}" for p, ps in sorted(state.provinces.items())
                    if ps.controller is None and not ps.legions]
        case "boost-all":
            return [""]
        case "extra-resources":
            made = sorted(produced(state, empire))
            return [f" take {a} {b}" for i, a in enumerate(made) for b in made[i:]]
        case "convert":
            return [f" in {p}" for p, ps in sorted(state.provinces.items())
                    if ps.marker_occupier == empire and ps.marker_round == state.round
                    and ps.controller not in (None, empire)]
        case "force-claim":
            step = trade_step(state)
            if not step.revealed or step.over:
                return []
            return [f" on {e} take {t}" for e in step.participants if e != empire
                    for t in sorted(step.offers.get(empire, {}))]
        case "port":
            g = geo(state.geo_board)
            own = sorted(p for p, ps in state.provinces.items() if ps.controller == empire)
            return [f" in {p} sea {s} pay {{payment6}}" for p in own for s in g.province(p).seas]
        case "change-offer":
            step = trade_step(state)
            return [" pay {offer}"] if step.revealed and not step.claims and empire in step.offers else []
    return []
