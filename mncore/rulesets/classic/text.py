"""The classic game in words: the order grammar, one sentence per event, what each side may see."""

from __future__ import annotations

from typing import Any, cast

import msgspec
from msgspec.structs import replace

from mncore.core import envelope
from mncore.core.errors import InvalidCommand
from mncore.core.name_matching import resolve
from mncore.rulesets.classic import commands as cm
from mncore.rulesets.classic import events as ev
from mncore.rulesets.classic.components import game_data
from mncore.rulesets.classic.ids import BUILDINGS, ITEMS, ROLES, Aftermath, Building, Item, Mover, Role
from mncore.rulesets.classic.rules.common import card_of
from mncore.rulesets.classic.state import Built, State
from mncore.secrecy.seen import Withheld

USAGE = ("award ROLE to CIV | ask N | offer CARD... | offer nothing | take CARD from CIV | give CARD | "
         "pray GOD pay C,C,C | pass | invoke GOD | build ITEM [RESOURCE] in PROVINCE pay SETS | "
         "influence PROVINCE pay SETS | buy CARD pay SETS | sail N from PLACE to SEA | "
         "attack CIV in SEA | march N legion|creature from PROVINCE to PROVINCE "
         "[then sack BUILDING|occupy|convert] | lose N legion|fortress|creature... in PROVINCE | claim BUILDING... in PROVINCE | blockade SEA | let pass | place ITEM [RESOURCE] in PROVINCE "
         "| place hero | done"
         "   (SETS: cards joined by commas, sets by +)")


def n(thing: str) -> str:
    """A display name of anything the game data or the shipped board names."""
    from mncore.rulesets.classic.components import load_board
    names = game_data().names()
    return names.get(thing) or load_board().name_of(thing)


def civ_of(text: str) -> str:
    return resolve("civilisation", text, {c.id: [c.name, *c.aliases] for c in game_data().civ})


def _place(state: State, text: str, kind: str) -> str:
    board = state.the_board()
    entries = {p.id: [p.name] for p in board.province} if kind != "sea" else {}
    if kind in ("sea", "place"):
        entries |= {s.id: [s.name] for s in board.sea}
    return resolve(kind if kind != "place" else "province or sea", text, entries)


def _named(kind: str, text: str, items: dict[str, list[str]]) -> str:
    return resolve(kind, text, items)


def _pay(state: State, text: str) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(card_of(state, c) for c in group.split(",") if c.strip())
                 for group in text.split("+") if group.strip())


def _int(text: str) -> int:
    if not text.isdigit():
        raise InvalidCommand(f"'{text}' is not a number")
    return int(text)


def parse_order(text: str, state: State, civ: str) -> cm.AnyOrder:
    """One order line of the grammar in USAGE, or its JSON form; InvalidCommand otherwise."""
    if text.lstrip().startswith("{"):
        return _parse_json(text, civ)
    words = text.lower().split()
    cards = {c.id: [c.name] for c in game_data().card}
    gods = {g.id: [g.name] for g in game_data().god}
    match words:
        case ["award", role, "to", who]:
            return cm.AwardRole(civ=civ, role=cast(Role, _named("role", role, {r: [n(r)] for r in ROLES})),
                                to=civ_of(who))
        case ["ask", count]:
            return cm.Ask(civ=civ, count=_int(count))
        case ["offer", "nothing"]:
            return cm.Offer(civ=civ, cards=())
        case ["offer", *offered]:
            return cm.Offer(civ=civ, cards=tuple(card_of(state, c) for c in offered))
        case ["take", card, "from", who]:
            return cm.Take(civ=civ, source=civ_of(who), card=card_of(state, card))
        case ["give", card]:
            return cm.Give(civ=civ, card=card_of(state, card))
        case ["pray", god, "pay", paid]:
            return cm.Pray(civ=civ, god=_named("god", god, gods),
                           pay=tuple(card_of(state, c) for c in paid.split(",")))
        case ["pass"] | ["done"]:
            return cm.EndTurn(civ=civ)
        case ["invoke", god]:
            return cm.Invoke(civ=civ, god=_named("god", god, gods))
        case ["build", "caravan", resource, "in", where, "pay", paid]:
            return cm.Build(civ=civ, item="caravan", resource=resource, province=_place(state, where, "province"),
                            pay=_pay(state, paid))
        case ["build", item, "in", where, "pay", paid]:
            return cm.Build(civ=civ, item=cast(Item, _named("item", item, {i: [] for i in ITEMS})),
                            province=_place(state, where, "province"), pay=_pay(state, paid))
        case ["influence", where, "pay", paid]:
            return cm.PlaceInfluence(civ=civ, province=_place(state, where, "province"), pay=_pay(state, paid))
        case ["buy", card, "pay", paid]:
            return cm.Buy(civ=civ, card=_named("card", card, cards), pay=_pay(state, paid))
        case ["sail", count, "from", src, "to", sea]:
            return cm.Sail(civ=civ, count=_int(count), source=_place(state, src, "place"),
                           sea=_place(state, sea, "sea"))
        case ["attack", who, "in", sea]:
            return cm.Attack(civ=civ, sea=_place(state, sea, "sea"), target=civ_of(who))
        case ["place", "hero"]:
            return cm.Place(civ=civ, item="hero")
        case ["place", "caravan", resource, "in", where]:
            return cm.Place(civ=civ, item="caravan", resource=resource, province=_place(state, where, "province"))
        case ["place", item, "in", where]:
            return cm.Place(civ=civ, item=_named("item", item, {i: [] for i in (*ITEMS, "influence")}),
                            province=_place(state, where, "province"))
        case ["blockade", sea]:
            return cm.Blockade(civ=civ, sea=_place(state, sea, "sea"))
        case ["let", "pass"]:
            return cm.LetPass(civ=civ)
        case ["march", count, unit, "from", src, "to", dest, *then]:
            return _march(state, civ, count, unit, src, dest, then)
        case ["lose", *lost, "in", where]:
            return _lose(state, civ, lost, where)
        case ["claim", *claimed, "in", where]:
            return _claim(state, civ, claimed, where)
    raise InvalidCommand(f"cannot read '{text}' as an order; expected {USAGE}")


def _parse_json(text: str, civ: str) -> cm.AnyOrder:
    """An order as its command's JSON ({"type": "Ask", "civ": "carthage", "count": 1}), for civ only."""
    try:
        cmd = cm.decode_command(text)
    except msgspec.ValidationError as err:
        raise InvalidCommand(f"invalid order JSON: {err}") from None
    except msgspec.DecodeError as err:
        raise InvalidCommand(f"malformed order JSON: {err}") from None
    except UnicodeEncodeError:
        raise InvalidCommand("the order is not valid UTF-8 text") from None
    if not isinstance(cmd, cm.Order):
        raise InvalidCommand(f"{type(cmd).__name__} is not an order a civilisation can give")
    if cmd.civ != civ:
        raise InvalidCommand(f"the order is for {n(cmd.civ)}, but given --as {n(civ)}")
    return cmd


def _march(state: State, civ: str, count: str, unit: str, src: str, dest: str,
           then: list[str]) -> cm.March:
    mover = cast(Mover, _named("unit", unit.rstrip("s"), {"legion": [], "creature": []}))
    base = cm.March(civ=civ, unit=mover, count=_int(count), source=_place(state, src, "province"),
                    dest=_place(state, dest, "province"))
    match then:
        case []:
            return base
        case ["then", "sack", building]:
            what = _named("building", building, {b: [] for b in BUILDINGS})
            return replace(base, then="sack", sack=what)
        case ["then", ("occupy" | "convert") as how]:
            return replace(base, then=cast(Aftermath, how))
    raise InvalidCommand(f"after a march write 'then sack BUILDING', 'then occupy' or 'then convert', "
                         f"not '{' '.join(then)}'")


def _lose(state: State, civ: str, words: list[str], where: str) -> cm.ChooseLosses:
    """`lose 1 legion 1 fortress in PROVINCE`: a number before each kind of unit lost (6.9)."""
    if not words or len(words) % 2:
        raise InvalidCommand(f"write 'lose N legion|fortress|creature ... in PROVINCE', a number before "
                             f"each kind, not 'lose {' '.join(words)}'")
    lost = {"legion": 0, "fortress": 0, "creature": 0}
    for count, kind in zip(words[::2], words[1::2]):
        unit = _named("unit", kind, {"legion": ["legions"], "fortress": ["fortresses"], "creature": ["creatures"]})
        if lost[unit]:
            raise InvalidCommand(f"'lose': {unit} is named twice")
        lost[unit] = _int(count)
    return cm.ChooseLosses(civ=civ, province=_place(state, where, "province"), **lost)


def _claim(state: State, civ: str, words: list[str], where: str) -> cm.Claim:
    """`claim caravan wine market in PROVINCE`, `claim nothing in PROVINCE`: the buildings the occupier's
    units are placed on (6.11 b)."""
    claims: list[Built] = []
    rest = [] if words == ["nothing"] else list(words)
    if not rest and words != ["nothing"]:
        raise InvalidCommand("write 'claim BUILDING ... in PROVINCE' (city, temple, market, caravan RESOURCE) "
                             "or 'claim nothing in PROVINCE'")
    while rest:
        kind = _named("building", rest.pop(0), {b: [] for b in BUILDINGS})
        if kind != "caravan":
            claims.append(Built(kind=cast(Building, kind)))
        elif not rest:
            raise InvalidCommand("'claim ... caravan' needs the caravan's resource: caravan wine")
        else:
            claims.append(Built(kind="caravan", resource=rest.pop(0)))
    return cm.Claim(civ=civ, province=_place(state, where, "province"), claims=tuple(claims))


def _claimed(claims: tuple[Any, ...]) -> str:
    return " ".join(f"caravan {b.resource}" if b.kind == "caravan" else b.kind for b in claims) or "nothing"


def _sets(pay: tuple[tuple[str, ...], ...]) -> str:
    return "+".join(",".join(g) for g in pay)


def format_order(cmd: Any) -> str:
    match cmd:
        case cm.AwardRole(role=role, to=to):
            return f"award {role} to {to}"
        case cm.Ask(count=count):
            return f"ask {count}"
        case cm.Offer(cards=cards):
            return f"offer {' '.join(cards)}" if cards else "offer nothing"
        case cm.Take(source=src, card=card):
            return f"take {card} from {src}"
        case cm.Give(card=card):
            return f"give {card}"
        case cm.Pray(god=god, pay=pay):
            return f"pray {god} pay {','.join(pay)}"
        case cm.Invoke(god=god):
            return f"invoke {god}"
        case cm.Build(item="caravan", resource=res, province=p, pay=pay):
            return f"build caravan {res} in {p} pay {_sets(pay)}"
        case cm.Build(item=item, province=p, pay=pay):
            return f"build {item} in {p} pay {_sets(pay)}"
        case cm.PlaceInfluence(province=p, pay=pay):
            return f"influence {p} pay {_sets(pay)}"
        case cm.Buy(card=card, pay=pay):
            return f"buy {card} pay {_sets(pay)}"
        case cm.Sail(count=count, source=src, sea=sea):
            return f"sail {count} from {src} to {sea}"
        case cm.Attack(target=t, sea=sea):
            return f"attack {t} in {sea}"
        case cm.March(count=c, unit=u, source=s, dest=d, then=then, sack=sack):
            tail = "" if not then else f" then sack {sack}" if then == "sack" else f" then {then}"
            return f"march {c} {u} from {s} to {d}{tail}"
        case cm.Place(item="hero"):
            return "place hero"
        case cm.Place(item="caravan", resource=res, province=p):
            return f"place caravan {res} in {p}"
        case cm.Place(item=item, province=p):
            return f"place {item} in {p}"
        case cm.Blockade(sea=sea):
            return f"blockade {sea}"
        case cm.LetPass():
            return "let pass"
        case cm.Claim(province=p, claims=claims):
            return f"claim {_claimed(claims)} in {p}"
        case cm.ChooseLosses(province=p) as lost:
            return f"lose {_loss_words(lost)} in {p}"
        case cm.EndTurn():
            return "done"
    return type(cmd).__name__


def _cards(cards: dict[str, int] | tuple[str, ...] | tuple[tuple[str, ...], ...]) -> str:
    if isinstance(cards, dict):
        return ", ".join(f"{k} {v}" for k, v in cards.items()) or "nothing"
    flat = [c for x in cards for c in (x if isinstance(x, tuple) else (x,))]
    return ", ".join(flat) or "nothing"


def _describe(event: ev.AnyEvent, withheld: Withheld = frozenset()) -> str:
    """One sentence for an event as the boundary let its reader see it (the fields `withheld` gone)."""
    match event:
        case ev.GameCreated(civs=civs, players=players, neutrals=neutrals, options=o, powers=pw):
            return ("Classic game created: " + ", ".join(f"{n(c)} ({players[c]})" for c in civs)
                    + (f"; neutral: {', '.join(n(c) for c in neutrals)}" if neutrals else "")
                    + (f"; the {o.variant} game" if o.variant != "standard" else "")
                    + (f"; owner's powers for {', '.join(n(p.card) for p in pw.power) or 'no card'} "
                       f"(tiles file sha256 {pw.sha256[:12]}, rule classic:C16)" if pw is not None else "")
                    + (f"; forked from {o.fork_of.game} at event {o.fork_of.at}" if o.fork_of else ""))
        case ev.PositionLoaded():
            return "A position was loaded (a sandbox)"
        case ev.CardsSetAside(cards=cards):
            return f"{len(cards)} hero and wonder cards were set aside: {', '.join(n(c) for c in cards)}"
        case ev.RoleAssigned(role=role, civ=civ, ruling=r):
            return f"{n(civ)} holds the {n(role)} card" + (f" (rule classic:{r})" if r else "")
        case ev.RoleTied(role=role, holder=h, tied=tied):
            return f"{' and '.join(n(c) for c in tied)} tie for the {n(role)} card: {n(h)} chooses"
        case ev.PhaseBegan(round=r, phase=phase):
            return f"Round {r}: the {phase} phase began"
        case ev.TurnOrder(order=order):
            return "Order of play: " + ", ".join(n(c) for c in order)
        case ev.Placed(civ=civ, item=item, province=p, resource=res, points=pts):
            what = n(item) if not p else (f"a caravan on {res}" if item == "caravan" else item)
            return f"{n(civ)} placed {what}{' in ' + n(p) if p else ''} ({pts} points)"
        case ev.IncomeCollected(civ=civ, cards=cards):
            return f"{n(civ)} collected {_cards(cards)}"
        case ev.CardsGained(civ=civ, power=card, cards=cards):
            return f"{n(civ)} gained {_cards(cards)} by the power of {n(card)} (rule classic:C16)"
        case ev.TradeAsked(civ=civ, count=count, traders=traders):
            return (f"{n(civ)} asked for {count} card{'s' * (count != 1)}; trading: "
                    + (", ".join(n(c) for c in traders) or "nobody"))
        case ev.CardsOffered(civ=civ, cards=None):
            return f"{n(civ)} offered cards face down"
        case ev.CardsOffered(civ=civ, cards=cards):
            return f"{n(civ)} offered {_cards(cards or ())} face down"
        case ev.OffersRevealed(offers=offers):
            return "Offers turned face up: " + "; ".join(f"{n(c)} {_cards(v)}" for c, v in offers.items())
        case ev.CardTaken(civ=civ, source=src, card=card):
            return f"{n(civ)} took {card} from {n(src)}"
        case ev.CardGiven(civ=civ, to=to, card=None):
            return f"{n(civ)} gave {n(to)} a card"
        case ev.CardGiven(civ=civ, to=to, card=card):
            return f"{n(civ)} gave {n(to)} {card}"
        case ev.TradeEnded(returned=returned):
            back = "; returned " + "; ".join(f"{n(c)} {_cards(v)}" for c, v in returned.items()) \
                if returned else ""
            return f"Trading ended{back}"
        case ev.GodsReturned():
            return "Every god card was returned"
        case ev.GodTaken(civ=civ, god=god, paid=paid):
            return f"{n(civ)} offered {_cards(paid)} to {n(god)}"
        case ev.GodInvoked(civ=civ, god=god, powered=True):
            return f"{n(civ)} invoked {n(god)} (its power: rule classic:C16); the card is face down"
        case ev.GodInvoked(civ=civ, god=god):
            return f"{n(civ)} invoked {n(god)} (no power: rule classic:C3); the card is face down"
        case ev.TurnEnded(civ=civ):
            return f"{n(civ)} ended its turn"
        case ev.ItemBuilt(civ=civ, item=item, province=p, power=card) if card:
            return f"{n(civ)} placed a {item} in {n(p)} for nothing by the power of {n(card)} (rule classic:C16)"
        case ev.ItemBuilt(civ=civ, item=item, province=p, resource=res, paid=paid):
            what = f"a caravan on {res}" if item == "caravan" else f"a {item}"
            return f"{n(civ)} built {what} in {n(p)}, paying {_cards(paid)}"
        case ev.InfluencePlaced(civ=civ, province=p, replaced=old, paid=paid):
            conv = f", replacing {n(old)}'s" if old else ""
            return f"{n(civ)} placed influence in {n(p)}{conv}, paying {_cards(paid)}"
        case ev.CardBought(civ=civ, card=card, paid=paid):
            return f"{n(civ)} bought {n(card)}, paying {_cards(paid)}"
        case ev.HandsDiscarded(kept=kept):
            return "Hands discarded; tax cards kept: " + ", ".join(f"{n(c)} {k}" for c, k in kept.items())
        case ev.TriremesSailed(civ=civ, count=c, source=src, sea=sea):
            return f"{n(civ)} sailed {c} trireme(s) from {n(src)} to {n(sea)}"
        case ev.NavalBattle(sea=sea, rolls=rolls, losses=losses):
            return (f"Naval battle in {n(sea)}: " + "; ".join(
                f"{n(c)} rolled {list(r)}, lost {losses.get(c, 0)}" for c, r in rolls.items()))
        case ev.Marched(civ=civ, unit=u, count=c, source=s, dest=d, via=via):
            by = f" by sea ({', '.join(n(x) for x in via)})" if via else ""
            return f"{n(civ)} moved {c} {u}(s) from {n(s)} to {n(d)}{by}"
        case ev.BlockadeDeclared(greek=g, civ=civ, count=c, unit=u, dest=d, via=via):
            return (f"{n(civ)} tries to break {n(g)}'s blockade: {c} {u}(s) on its triremes in "
                    f"{', '.join(n(s) for s in via)} bound for {n(d)}")
        case ev.BlockadeEnded(broken=True):
            return "The invasion keeps its chain of triremes and moves on"
        case ev.BlockadeEnded(broken=False):
            return "The chain of triremes is broken: the invading units go back to their start"
        case ev.GroundBattle(province=p, rolls=rolls, sixes=sixes, losses=losses, by_power=extra, owed=owed):
            parts = [f"{n(c)} rolled {list(r)} + {sixes.get(c, 0)} six(es)"
                     + (f" ({extra[c]} by powers)" if c in extra else "")
                     + (f", to choose {owed[c]} unit(s) to lose" if c in owed else f", lost {_units(losses.get(c))}")
                     for c, r in rolls.items()]
            return f"Battle in {n(p)}: " + "; ".join(parts)
        case ev.InvasionHeld(civ=civ, province=p):
            return f"{n(civ)}'s invasion of {n(p)} waits for the losses to be chosen (rule classic:C9)"
        case ev.LossesChosen(civ=civ, province=p, lost=lost):
            return f"{n(civ)} chose its losses in {n(p)}: {_units(lost)}"
        case ev.Sacked(civ=civ, province=p, building=b):
            return f"{n(civ)} sacked {n(p)}, destroying a {b}"
        case ev.Settled(civ=civ, province=p, how="occupy", claims=claims, due=due):
            tail = (": it names the buildings its units claim (rule classic:C7)" if due
                    else f", a unit on each building ({_claimed(claims)})" if claims else "")
            return f"{n(civ)} occupies {n(p)}{tail}"
        case ev.Settled(civ=civ, province=p):
            return f"{n(civ)} is converting {n(p)}"
        case ev.BuildingsClaimed(civ=civ, province=p, claims=claims):
            return f"{n(civ)} places its units in {n(p)} on: {_claimed(claims)} (rule classic:C7)"
        case ev.GameWon(civ=civ, condition=c, detail=d):
            return f"{n(civ)} won (rule classic:{c}): {d}"
    return type(event).__name__


describe = envelope.describing(_describe, n)  # the kernel's events in the kernel's words


def _loss_words(u: Any) -> str:
    """Units lost as the order grammar writes them: "2 legion 1 fortress"."""
    return " ".join(f"{getattr(u, k)} {k}" for k in ("legion", "fortress", "creature") if getattr(u, k))


def _units(u: Any) -> str:
    if u is None:
        return "nothing"
    parts = [f"{getattr(u, k)} {k}" for k in ("legion", "creature", "fortress") if getattr(u, k)]
    return ", ".join(parts) or "nothing"
