"""The difference between two states: tracks, titles, holdings, resources, tiles and victory."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import msgspec

from mncore.protocol import Change
from mncore.rulesets.empires.ids import TRACKS
from mncore.rulesets.empires.projections import holder_of, tracks
from mncore.rulesets.empires.state import Bag, EmpireState, GameState, ProvinceState
from mncore.rulesets.empires.text import title


def diff_states(a: GameState, b: GameState) -> list[Change]:
    """Every difference from a to b that a player would notice, in a fixed order (host view)."""
    out: list[Change] = []
    out += _scalar(("round",), a.round, b.round, "round")
    out += _scalar(("phase",), a.phase, b.phase, "phase")
    out += _tracks(a, b)
    for track in TRACKS:
        out += _scalar(("titles", track), a.titles.get(track), b.titles.get(track),
                       f"{title(track)} Leader")
    out += _provinces(a, b)
    out += _seas(a, b)
    empires_a: Mapping[Any, EmpireState] = a.empires
    empires_b: Mapping[Any, EmpireState] = b.empires
    for emp in _keys(empires_a, empires_b):
        ea, eb = empires_a.get(emp), empires_b.get(emp)
        out += _bag(("resources", emp), ea.resources if ea else {}, eb.resources if eb else {},
                    f"{title(emp)}'s resources")
        out += _scalar(("tiles", emp), list(ea.tiles) if ea else [], list(eb.tiles) if eb else [],
                       f"{title(emp)}'s heroes and wonders")
    out += _scalar(("display",), [d.tile for d in a.display], [d.tile for d in b.display], "display")
    out += _bag(("supply",), a.supply, b.supply, "reserve")
    win_a = msgspec.to_builtins(a.winner) if a.winner else None
    win_b = msgspec.to_builtins(b.winner) if b.winner else None
    out += _scalar(("winner",), win_a, win_b, "winner")
    return out


def _keys(*dicts: Mapping[Any, Any]) -> list[Any]:
    seen: list[Any] = []
    for d in dicts:
        seen += [k for k in d if k not in seen]
    return seen


def _shown(value: Any) -> str:
    if value is None or value == []:
        return "none"
    if isinstance(value, list):
        return ", ".join(title(str(v)) for v in value)
    if isinstance(value, dict) and "empires" in value:
        return f"{' and '.join(title(e) for e in value['empires'])} ({value['condition']})"
    return title(str(value)) if isinstance(value, str) else str(value)


def _scalar(what: tuple[str, ...], before: Any, after: Any, label: str,
            shown: Callable[[Any], str] = _shown) -> list[Change]:
    if before == after:
        return []
    return [Change(what=what, before=before, after=after,
                   text=f"{label}: {shown(before)} → {shown(after)}")]


def _as_is(value: str | None) -> str:
    """A phrase already in words ("temple held by Rome"): title-casing it would garble it."""
    return "none" if value is None else value


def _tracks(a: GameState, b: GameState) -> list[Change]:
    la: Mapping[Any, Mapping[Any, int]] = tracks(a) if a.board else {}
    lb: Mapping[Any, Mapping[Any, int]] = tracks(b) if b.board else {}
    out: list[Change] = []
    for emp in _keys(la, lb):
        for track in TRACKS:
            out += _scalar(("tracks", emp, track), la.get(emp, {}).get(track), lb.get(emp, {}).get(track),
                           f"{title(emp)}'s {track} level")
    return out


def _held(ps: ProvinceState | None) -> dict[str, str]:
    if ps is None:
        return {}
    return {sid: f"{kind} held by {title(h) if (h := holder_of(ps, sid)) else 'nobody'}"
            for sid, kind in sorted(ps.buildings.items())}


def _provinces(a: GameState, b: GameState) -> list[Change]:
    out: list[Change] = []
    names = {p.id: p.name for g in (a, b) if g.board for p in g.board.provinces}
    for pid in _keys(a.provinces, b.provinces):
        pa, pb = a.provinces.get(pid), b.provinces.get(pid)
        name = names.get(pid, pid)
        out += _scalar(("provinces", pid, "controller"), pa and pa.controller, pb and pb.controller,
                       f"{name}: control")
        ha, hb = _held(pa), _held(pb)
        for sid in _keys(ha, hb):
            out += _scalar(("provinces", pid, "buildings", sid), ha.get(sid), hb.get(sid),
                           f"{name}, {sid}", _as_is)
        legions_a: Mapping[Any, int] = pa.legions if pa else {}
        legions_b: Mapping[Any, int] = pb.legions if pb else {}
        for emp in _keys(legions_a, legions_b):
            out += _scalar(("provinces", pid, "legions", emp), legions_a.get(emp, 0),
                           legions_b.get(emp, 0), f"{name}: {title(emp)} legions")
        out += _scalar(("provinces", pid, "fortress"), pa and pa.fortress, pb and pb.fortress,
                       f"{name}: fortress")
        out += _scalar(("provinces", pid, "marker_occupier"), pa and pa.marker_occupier,
                       pb and pb.marker_occupier, f"{name}: control marker occupied by")
    return out


def _seas(a: GameState, b: GameState) -> list[Change]:
    out: list[Change] = []
    names = {s.id: s.name for g in (a, b) if g.board for s in g.board.seas}
    for sid in _keys(a.seas, b.seas):
        fa: Mapping[Any, int] = a.seas.get(sid, {})
        fb: Mapping[Any, int] = b.seas.get(sid, {})
        for emp in _keys(fa, fb):
            out += _scalar(("seas", sid, emp), fa.get(emp, 0), fb.get(emp, 0),
                           f"{names.get(sid, sid)}: {title(emp)} triremes")
    return out


def _bag(what: tuple[str, ...], before: Bag, after: Bag, label: str) -> list[Change]:
    if before == after:
        return []
    moves = []
    for token in sorted(set(before) | set(after)):
        n = after.get(token, 0) - before.get(token, 0)
        if n:
            moves.append(f"{n:+d} {token}")
    return [Change(what=what, before=dict(sorted(before.items())), after=dict(sorted(after.items())),
                   text=f"{label}: {', '.join(moves)}")]
