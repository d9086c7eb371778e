"""Views of a game for a viewer (the JSON contract of docs/json.md) and their text rendering."""

from __future__ import annotations

from typing import Any, cast

from mncore.rulesets.empires import atlas
from mncore.rulesets.empires.display_names import tile_name, title
from mncore.rulesets.empires.flow import describe_phase, public_pending
from mncore.rulesets.empires.game_data import load_ruleset
from mncore.rulesets.empires.ids import TRACKS, Empire, Track
from mncore.rulesets.empires.projections import holder_of, tracks, unit_count
from mncore.rulesets.empires.rules import barbarians
from mncore.rulesets.empires.rules.buildable import markers_left
from mncore.rulesets.empires.state import GameState, TradeStep, bag_total
from mncore.secrecy.seen import Seen, Withheld


def view(seen: Seen[GameState]) -> dict[str, Any]:
    """The state as the boundary lets its reader see it (redaction.seen_state): what it withholds (others'
    screens and offers, face-down tiles and cards) shown as withheld, by count where the count is public."""
    state, shut = seen.value, seen.withheld
    doc = _view(state, cast(Empire | None, seen.viewer), shut)
    doc["cities"] = _cities(state, cast(Empire | None, seen.viewer), shut) if state.cities is not None else None
    doc["barbarians"] = _barbarians(state)
    return doc


def _barbarians(state: GameState) -> dict[str, Any] | None:
    """The Punic War's Barbarians (atlas.barbarians): every piece of theirs is on the board, public."""
    b = state.barbarians
    if b is None:
        return None
    return {"legions": dict(sorted(b.legions.items())), "fortresses": sorted(b.fortresses),
            "triremes": dict(sorted(b.triremes.items())), "moves": dict(sorted(b.moves.items())),
            "peace": list(b.peace)}


def _barbarians_text(b: dict[str, Any]) -> list[str]:
    places = sorted({*b["legions"], *b["fortresses"]})
    land = "; ".join(f"{title(p)} " + ", ".join(
        ([f"{b['legions'][p]} legion{'s' * (b['legions'][p] != 1)}"] if b["legions"].get(p) else [])
        + (["fortress"] if p in b["fortresses"] else [])) for p in places)
    seas = "; ".join(f"{title(s)} {n} trireme{'s' * (n != 1)}" for s, n in b["triremes"].items())
    out = [f"Barbarians: {land or 'no land units'}" + (f"; at sea: {seas}" if seas else "")]
    if b["moves"]:
        out.append("  moves paid this round: " + ", ".join(f"{title(e)} {n}" for e, n in b["moves"].items()))
    if b["peace"]:
        out.append("  at peace this round with " + ", ".join(title(e) for e in b["peace"]) + " (Statue of Zeus)")
    return out


def _view(state: GameState, viewer: Empire | None, shut: Withheld) -> dict[str, Any]:
    levels = tracks(state)
    return {
        "game": state.game_id,
        "viewer": viewer,
        "round": state.round,
        "phase": state.phase,
        "fair_play": state.options.fair_play,
        "sandbox": state.options.sandbox,
        "setup": state.options.setup,
        "winner": None if state.winner is None else {
            "empires": list(state.winner.empires), "condition": state.winner.condition,
            "round": state.winner.round, "detail": state.winner.detail},
        "pending": [{"empire": p.empire, "kind": p.kind, "text": p.text} for p in public_pending(state)],
        "titles": dict(state.titles),
        "empires": {emp: _empire(state, emp, f"state/empires/{emp}/resources" not in shut, levels[emp])
                    for emp in state.empires},
        "provinces": {pid: _province(state, pid) for pid in sorted(state.provinces)},
        "seas": {sid: {"name": _sea_name(state, sid),
                       "triremes": {e: n for e, n in sorted(t.items()) if n}}
                 for sid, t in sorted(state.seas.items())},
        "display": [{"tile": None if f"state/display/{i}/tile" in shut else d.tile, "face_up": d.face_up}
                    for i, d in enumerate(state.display)],
        "exchange": {"holder": state.exchange_holder,
                     "played": [load_ruleset().components.exchange_markers[i]
                                for i in state.exchange_played]},
        "trade": _trade(state, shut),
        "supply": dict(sorted(state.supply.items())),
        "legendary_pile": len(state.legendary_pile),
        # the Punic War's face-up Foreign Trade commodities (atlas.punic-trade): public, as any face-up piece
        "foreign_trade": sorted(state.foreign_trade),
    }


def _empire(state: GameState, emp: Empire, visible: bool, levels: dict[Track, int]) -> dict[str, Any]:
    es = state.empires[emp]
    return {
        "player": es.player,
        "resources": dict(sorted(es.resources.items())) if visible else None,
        "resource_count": bag_total(es.resources),
        "tracks": {t: levels[t] for t in TRACKS},
        "titles": [t for t in TRACKS if state.titles.get(t) == emp],
        "tiles": list(es.tiles),
        "copied": es.copied,
        "centaurs": es.centaurs,  # Chiron's Centaurs (atlas.chiron), not among the units
        "myrmidons": es.myrmidons,  # Achilles' Myrmidons (10.achilles), likewise
        "units": unit_count(state, emp),
        "control_markers_left": max(markers_left(state, emp), 0),  # the capital's is printed (R30)
    }


def _province(state: GameState, pid: str) -> dict[str, Any]:
    ps = state.provinces[pid]
    board = state.geo_board
    prov = next(p for p in board.provinces if p.id == pid)
    armies = {e for e, n in ps.legions.items() if n} | ({ps.fortress} if ps.fortress else set())
    return {
        "name": prov.name,
        "controller": ps.controller,
        "buildings": [{"space": sid, "kind": kind, "holder": holder_of(ps, sid),
                       "occupied_by": ps.occupied.get(sid),
                       "commodity": next((s.commodity for s in prov.spaces if s.id == sid), None)}
                      for sid, kind in sorted(ps.buildings.items())],
        "legions": {e: n for e, n in sorted(ps.legions.items()) if n},
        "fortress": ps.fortress,
        "marker_occupied_by": ps.marker_occupier,
        "circe": dict(sorted(ps.circe.items())),
        "at_war": len(armies) > 1,
    }


def _sea_name(state: GameState, sid: str) -> str:
    return next(s.name for s in state.geo_board.seas if s.id == sid)


def _cities(state: GameState, viewer: Empire | None, shut: Withheld) -> dict[str, Any]:
    """The expansions: objectives (public), deck and discard sizes, hands as their reader may see them."""
    from mncore.rulesets.empires.rules.cards import play_options
    cs = state.cities
    assert cs is not None
    draw = cs.draws[0] if cs.draws else None
    return {
        "expansions": list(cs.expansions),
        "objectives": {o: cs.fulfilled.get(o) for o in cs.objectives},
        "decks": {x: len(cards) for x, cards in cs.decks.items()},
        "discard": len(cs.discard),
        "hands": {e: (None if f"state/cities/hands/{e}" in shut else sorted(cs.hands.get(e, ())))
                  for e in state.empires},
        "hand_counts": {e: len(cs.hands.get(e, ())) for e in state.empires},
        "draw": None if draw is None else {
            "drawer": draw.drawer, "objective": draw.objective, "count": draw.count,
            "holder": draw.holder, "received": list(draw.received),
            "cards": (len(draw.hand) if "state/cities/draws/0/hand" in shut else list(draw.hand))},
        "may_play": ([o.order or o.template for o in play_options(state, viewer)]
                     if viewer is not None else []),
        "boosts": [{"empire": b.empire, "track": b.track, "amount": b.amount}
                   for b in cs.boosts if b.round == state.round],
        "protected": [s.province for s in cs.shields if s.round == state.round],
        "halicarnassus": cs.halicarnassus,
        **(_troia(state) if "troia" in cs.expansions else {}),
    }


def _troia(state: GameState) -> dict[str, Any]:
    """Troia's public facts: the Battle Victory markers and the War cards waiting for a battle (R234, R235)."""
    cs = state.cities
    assert cs is not None
    return {"victories": {e: cs.victories.get(e, 0) for e in state.empires},
            "battle_cards": [{"empire": t.empire, "played": t.played, "place": t.place} for t in cs.tactics]}


def _trade(state: GameState, shut: Withheld) -> dict[str, Any] | None:
    step = state.step
    if not isinstance(step, TradeStep) or step.value is None:
        return None
    offers: dict[str, Any] = {}
    for emp, bag in sorted(step.offers.items()):
        withheld = f"state/step/offers/{emp}" in shut
        offers[emp] = {"hidden": bag_total(bag)} if withheld else dict(sorted(bag.items()))
    return {"value": step.value, "revealed": step.revealed, "offers": offers,
            "claimant": step.claimant,
            **({"discarding": step.discarding} if step.discarding else {}),
            "claimed": {e: dict(sorted(b.items())) for e, b in sorted(step.claimed.items())}}


# --- text -------------------------------------------------------------------------------------------

def status_text(state: GameState) -> str:
    lines = [f"Game {state.game_id}: round {state.round}, {describe_phase(state)} phase"]
    variant = atlas.variant(state.options.setup)
    if variant is not None:
        lines.append(f"Set-up: {variant.id} — {variant.name} [rule empires:{variant.section}]")
    if not state.options.fair_play:
        lines.append("NOT a fair-play game: its secret is known (seed) or it is a sandbox.")
    if state.winner is not None:
        who = " and ".join(title(e) for e in state.winner.empires)
        lines.append(f"Game over: {who} won by {state.winner.condition} in round "
                     f"{state.winner.round}. {state.winner.detail}".rstrip())
        return "\n".join(lines)
    waiting = public_pending(state)
    lines.append("Waiting for:" if waiting else "Waiting for nobody.")
    for p in waiting:
        lines.append(f"  {title(p.empire)} ({state.empires[cast(Empire, p.empire)].player}): {p.kind} — {p.text}")
    return "\n".join(lines)


def show_text(doc: dict[str, Any]) -> str:
    out = [f"Game {doc['game']} — round {doc['round']}, {doc['phase']} phase"
           + (f" — as seen by {title(doc['viewer'])}" if doc["viewer"] else " — host view")]
    if doc["winner"]:
        out.append(f"WON by {' and '.join(title(e) for e in doc['winner']['empires'])} "
                   f"({doc['winner']['condition']})")
    out.append("")
    # the player column is as wide as the longest name, so that long names keep the columns aligned
    width = max([10, *(len(e["player"]) for e in doc["empires"].values())]) + 1
    out.append(f"Empire      {'Player':<{width}} Trade Culture Military  Titles              Tiles")
    for emp, e in doc["empires"].items():
        t = e["tracks"]
        out.append(f"{title(emp):<11} {e['player']:<{width}} {_lvl(t['trade']):>5} "
                   f"{_lvl(t['culture']):>7} {_lvl(t['military']):>8}  "
                   f"{', '.join(e['titles']) or '-':<19} {', '.join(tile_name(x) for x in e['tiles'])}"
                   + (f" (the Centaurs in {e['centaurs']})" if e.get("centaurs") else "")
                   + (f" (the Myrmidons in {e['myrmidons']})" if e.get("myrmidons") else ""))
    out.append("")
    out.append("Resources:")
    for emp, e in doc["empires"].items():
        res = e["resources"]
        shown = ", ".join(f"{n} {title(k)}" for k, n in res.items()) if res is not None else "hidden"
        out.append(f"  {title(emp):<10} {e['resource_count']:>2}: {shown}")
    out.append("")
    out.append("Provinces:")
    for p in doc["provinces"].values():
        if not (p["controller"] or p["legions"] or p["fortress"] or p["buildings"]):
            continue
        owner = title(p["controller"]) if p["controller"] else "uncontrolled"
        blds = ", ".join(_building(b) for b in p["buildings"])
        units = ", ".join(f"{n} {title(e)} legion{'s' if n > 1 else ''}" for e, n in p["legions"].items())
        if p["fortress"]:
            units = ", ".join(x for x in (units, f"{title(p['fortress'])} fortress") if x)
        extra = " AT WAR" if p["at_war"] else ""
        if p["marker_occupied_by"]:
            extra += f" (marker occupied by {title(p['marker_occupied_by'])})"
        out.append(f"  {p['name']:<12} {owner:<12} {blds or '-'}; {units or 'no units'}{extra}")
    seas = [(s["name"], s["triremes"]) for s in doc["seas"].values() if s["triremes"]]
    if seas:
        out.append("Seas:")
        for name, tri in seas:
            out.append(f"  {name:<16} " + ", ".join(f"{n} {title(e)} trireme{'s' if n > 1 else ''}"
                                                    for e, n in tri.items()))
    up = [tile_name(d["tile"]) for d in doc["display"] if d["face_up"]]
    down = sum(1 for d in doc["display"] if not d["face_up"])
    out.append(f"Display: {', '.join(up)}" + (f"; {down} face down" if down else ""))
    if doc["trade"]:
        tr = doc["trade"]
        offers = "; ".join(f"{title(e)}: " + (f"{o['hidden']} hidden" if "hidden" in o
                                             else ", ".join(f"{n} {k}" for k, n in o.items()) or "nothing")
                           for e, o in tr["offers"].items())
        out.append(f"Trade for {tr['value']}: {offers or 'no offers yet'}")
    variant = atlas.variant(doc["setup"])
    if variant is not None and variant.foreign_trade:
        out.append("Foreign Trade: " + (", ".join(f"Legendary {title(c)}" for c in doc["foreign_trade"])
                                        or "nothing face up"))
    changed = barbarians.changed_powers(doc["setup"])
    if changed:  # the tiles whose power this set-up changes, in its own words (atlas.punic-wonders)
        out.append("Powers changed in this set-up (atlas.punic-wonders):")
        out += [f"  {t.name}: {barbarians.power_text(doc['setup'], t)}" for t in changed]
    if doc.get("cities"):
        out += _cities_text(doc["cities"])
    if doc.get("barbarians"):
        out += _barbarians_text(doc["barbarians"])
    return "\n".join(out)


def _cities_text(c: dict[str, Any]) -> list[str]:
    from mncore.rulesets.empires.cities import card_info, load_city, objective_info
    objectives = "; ".join(f"{objective_info(o)[1].name} ({'fulfilled by ' + title(who) if who else 'open'})"
                           for o, who in c["objectives"].items())
    decks = ", ".join(f"{load_city(x).deck} deck {n}" for x, n in c["decks"].items())
    out = [f"Objectives: {objectives}", f"Bonus Cards: {decks}; discard pile {c['discard']}"]
    for emp, hand in c["hands"].items():
        n = c["hand_counts"][emp]
        shown = f": {', '.join(card_info(h)[1].name for h in hand)}" if hand else ""
        out.append(f"  {title(emp):<10} {n} card{'s' * (n != 1)}{shown}")
    d = c["draw"]
    if d:
        cards = (", ".join(card_info(x)[1].name for x in d["cards"]) if isinstance(d["cards"], list)
                 else f"{d['cards']} face down")
        who = title(d["holder"]) if d["holder"] else "nobody"
        out.append(f"Draw-and-pass: {title(d['drawer'])} drew {d['count']}; {who} chooses from {cards}"
                   if d["count"] else f"Draw-and-pass: {title(d['drawer'])} says how many cards it draws")
    if c["may_play"]:
        out.append("May play now: " + "; ".join(c["may_play"]))
    if c["halicarnassus"]:
        out.append(f"Halicarnassus stands in {c['halicarnassus']}")
    if "victories" in c:  # Troia (ruling R234, R235)
        out.append("Battle Victory markers: " + ", ".join(f"{title(e)} {n}" for e, n in c["victories"].items()))
        out += [f"{title(t['empire'])}'s {card_info(t['played'])[1].name} wait for the battle in {t['place']}"
                for t in c["battle_cards"]]
    return out


def _building(b: dict[str, Any]) -> str:
    """'caravan (wine)', 'market (Rome occupies)': a caravan names the commodity it brings."""
    kind = f"{b['kind']} ({b['commodity']})" if b.get("commodity") else b["kind"]
    return kind + (f" ({title(b['occupied_by'])} occupies)" if b["occupied_by"] else "")


def _lvl(n: int) -> str:
    """A level as the board shows it: above XV the marker flips to its '+' side (5.0)."""
    return f"15+{n - 15}" if n > 15 else str(n)
