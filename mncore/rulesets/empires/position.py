"""Positions: a whole game situation as a TOML file, read into a GameState and written back from one."""

from __future__ import annotations

import re
import tomllib
from collections import Counter
from pathlib import Path
from typing import Any

import msgspec
from msgspec.structs import replace

import mncore
from mncore.core.bounds import set_aside_out_of_bounds
from mncore.core.dice import Rng
from mncore.core.errors import DataError, InvalidCommand
from mncore.core.toml_text import toml_text
from mncore.rulesets.empires import atlas
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.board import Board, board_digest, load_board
from mncore.rulesets.empires.boardcheck import validate_board
from mncore.rulesets.empires.commands import CreateFromPosition
from mncore.rulesets.empires.flow import rules_for, settle
from mncore.rulesets.empires.game_data import RULESET_ID, RULESET_VERSION, load_ruleset
from mncore.rulesets.empires.ids import COMMODITIES, Commodity, Empire, commodity_of, is_legendary
from mncore.rulesets.empires.positioncheck import holdings, place_name, supply_limit, validate_position
from mncore.rulesets.empires.state import (
    Bag,
    CitiesState,  # the Legendary City expansions
    EmpireState,
    GameState,
    Options,
    ProvinceState,
    bag_sub,
)
from mncore.secrecy.seen import Seen, Withheld

# Fields of GameState that are the game's identity, options or randomness: never part of a position
# (`fixed`: a sandbox's outcomes fixed by orders, checked when given; ruling R7).
NOT_IN_POSITION = ("game_id", "board_digest", "options", "commitment", "secret", "fixed")
_PATH = re.compile(r"^(?P<what>.*?)(?: - at `\$(?P<path>[^`]*)`)?$")
_UNKNOWN = re.compile(r"^Object contains unknown field `(?P<field>[^`]*)`$")
_MISSING = re.compile(r"^Object missing required field `(?P<field>[^`]*)`$")


# --- reading -----------------------------------------------------------------------------------------

def read_position(path: str) -> GameState:
    """The state a position file describes; DataError listing every problem (nothing is written)."""
    try:
        data = Path(path).read_bytes()
    except OSError as err:
        raise DataError(path, [f"cannot read the position file: {err.strerror or err}"]) from None
    return decode_position(data, path, Path(path).resolve().parent)


def decode_position(data: bytes, source: str, base: Path | None = None) -> GameState:
    """Decode and check a position's TOML; `base` is where a relative board path is looked up."""
    try:
        doc = tomllib.loads(data.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise DataError(source, [f"not a valid TOML file: {err}"]) from None
    except RecursionError:
        raise DataError(source, ["not a valid TOML file: nested too deeply"]) from None
    except ValueError as err:  # an integer of more than 4,300 digits
        raise DataError(source, [f"not a valid TOML file: {err}"]) from None
    # numbers beyond any count, round or index are set aside before they size anything
    bounds = set_aside_out_of_bounds(doc)
    try:
        state = position_state(doc, source, base or Path.cwd())
    except DataError as err:
        if not bounds:
            raise
        raise DataError(source, [*bounds, *err.problems]) from None
    if bounds:
        raise DataError(source, bounds)
    return state


def position_state(doc: dict[str, Any], source: str, base: Path) -> GameState:
    """A position document (parsed TOML) as a checked GameState with every default filled in.

    Every problem is listed at once: each field and each table entry is decoded alone, the bad ones
    are set aside (an entry left empty, a field at its default), and the checks of the whole then
    run on what remains.
    """
    problems = [f"{k}: not part of a position (the game sets it)" for k in NOT_IN_POSITION if k in doc]
    board = _board(doc.get("board", "default"), base, problems)
    given = {k: v for k, v in doc.items() if k not in ("board", *NOT_IN_POSITION)}
    friendly = _with_defaults(given, board or load_board(), problems)
    decoded = _decodable(friendly, problems)
    try:
        state = msgspec.convert(decoded, GameState)
    except msgspec.ValidationError as err:  # a mismatch between fields that each decode alone
        raise DataError(source, [*problems, _validation_message(str(err))]) from None
    if board is None:  # the rest is checked against a board: none to check against
        raise DataError(source, problems)
    state = replace(state, board=board, board_digest=board_digest(board))
    state = _derived_defaults(state, doc)
    bad = {p.split(":", 1)[0].split(".", 1)[0].split("[", 1)[0] for p in problems}
    problems += [p for p in validate_position(state, explicit_supply="supply" in decoded)
                 if p.split(":", 1)[0].split(".", 1)[0] not in bad - {"empires", "provinces", "seas"}]
    if problems:
        raise DataError(source, problems)
    return state


def _decodable(doc: dict[str, Any], problems: list[str]) -> dict[str, Any]:
    """The document without its undecodable parts, each named in problems."""
    out: dict[str, Any] = {}
    for key, value in doc.items():
        if key in _ENTRIES and isinstance(value, dict):
            bad = _convert_entries({key: value})
            problems += bad
            # a bad entry stays, empty, so that the empires in play (and their count) still hold
            out[key] = {k: ({"player": str(v.get("player", k))} if key == "empires" else {})
                        if _entry_named(bad, key, k) else v for k, v in value.items()
                        if isinstance(v, dict) or not _entry_named(bad, key, k)}
            continue
        try:
            msgspec.convert({key: value}, GameState)
        except msgspec.ValidationError as err:
            problems.append(_validation_message(str(err)))
            if key in _FALLBACK:  # what a reader assumes, so that the other checks still run
                out[key] = _FALLBACK[key]
            continue
        out[key] = value
    return out


_FALLBACK: dict[str, object] = {"round": 1, "phase": "trade", "step": {"type": "trade"}}


def _entry_named(problems: list[str], table: str, key: str) -> bool:
    prefix = f"{table}.{key}"
    return any(p == prefix or p.startswith((prefix + ".", prefix + ":")) for p in problems)
def _board(spec: object, base: Path, problems: list[str]) -> Board | None:
    """The board a position names: "default", "setup:NAME" (the shipped board as a set-up variant
    plays it, atlas.py), a path (relative to the position file), or inline."""
    if spec == "default":
        return load_board()
    if isinstance(spec, str) and spec.startswith("setup:"):
        try:
            return atlas.board_for(spec.removeprefix("setup:"), load_board())
        except (DataError, InvalidCommand) as err:
            problems.append(f"board ({spec}): {err}")
            return None
    if isinstance(spec, str):
        path = Path(spec) if Path(spec).is_absolute() else base / spec
        try:
            return load_board(str(path))
        except DataError as err:
            problems += [f"board ({spec}): {p}" for p in err.problems]
            return None
    try:
        board = msgspec.convert(spec, Board)
    except msgspec.ValidationError as err:
        problems.append("board." + _validation_message(str(err)).removeprefix("$"))
        return None
    problems += [f"board: {p}" for p in validate_board(board, load_ruleset())]
    return board


def _with_defaults(doc: dict[str, Any], board: Board, problems: list[str]) -> dict[str, Any]:
    """Fill in what a user may leave out before decoding: names, the step's tag, short forms."""
    out = dict(doc)
    out.setdefault("ruleset_id", RULESET_ID)
    out.setdefault("ruleset_version", RULESET_VERSION)
    out.setdefault("round", 1)
    phase = out.setdefault("phase", "trade")
    step = out.get("step", {})
    if isinstance(step, dict):
        out["step"] = {"type": phase, **step}
    names = {e.id: e.name for e in load_ruleset().empires}
    empires = out.get("empires", {})
    if isinstance(empires, dict):
        out["empires"] = {emp: ({"player": names.get(emp, emp), **es} if isinstance(es, dict) else es)
                          for emp, es in empires.items()}
    provinces = out.get("provinces", {})
    if isinstance(provinces, dict):
        out["provinces"] = {pid: _province_defaults(pid, ps, board, problems)
                            for pid, ps in provinces.items()}
    display = out.get("display", [])
    if isinstance(display, list):
        # a bare tile id is a face-up tile
        out["display"] = [{"tile": d, "face_up": True} if isinstance(d, str) else d for d in display]
        shown = [{**d, "tile": _tile(d["tile"], f"display[{i}].tile", problems)}
                 if isinstance(d, dict) and isinstance(d.get("tile"), str) else d
                 for i, d in enumerate(out["display"])]
        out["display"] = [d for d in shown if not (isinstance(d, dict) and d.get("tile") is None)]
    if isinstance(out.get("empires"), dict):
        out["empires"] = {emp: _empire_tiles(emp, es, problems) for emp, es in out["empires"].items()}
    return out


def _empire_tiles(emp: str, es: object, problems: list[str]) -> object:
    """An empire's `tiles` and `copied` by any name orders accept ("sheba", "Ramses II")."""
    if not isinstance(es, dict):
        return es
    out = dict(es)
    if isinstance(es.get("tiles"), list):
        tiles = [_tile(t, f"empires.{emp}.tiles", problems) if isinstance(t, str) else t
                 for t in es["tiles"]]
        out["tiles"] = [t for t in tiles if t is not None]
    if isinstance(es.get("copied"), str):
        out["copied"] = _tile(es["copied"], f"empires.{emp}.copied", problems)
        if out["copied"] is None:
            del out["copied"]
    return out


def _tile(text: str, where: str, problems: list[str]) -> str | None:
    """The tile id a name stands for; None for an unknown name, a problem listing the ids."""
    from mncore.rulesets.empires.typed_names import resolve_tile
    try:
        return resolve_tile(load_ruleset(), text)
    except InvalidCommand as err:
        close = err.message.split("; did you mean ", 1)[1].split("?")[0] if "did you mean" in err.message else ""
        problems.append(f"{where}: unknown hero or wonder '{text}'"
                        + (f" (did you mean {close}?)" if close else "")
                        + f"; the tile ids: {', '.join(t.id for t in load_ruleset().tiles)}")
        return None


def _province_defaults(pid: str, ps: object, board: Board, problems: list[str]) -> object:
    """`buildings` may list space ids only: each space's own kind is built on it."""
    if not isinstance(ps, dict) or not isinstance(ps.get("buildings"), list):
        return ps
    spaces = {s.id: s.kind for p in board.provinces if p.id == pid for s in p.spaces}
    buildings = {}
    for sid in ps["buildings"]:
        if sid not in spaces:
            problems.append(f"provinces.{pid}.buildings: no space '{sid}' in {place_name(board, pid)}")
        else:
            buildings[sid] = spaces[sid]
    return {**ps, "buildings": buildings}


# msgspec names a dict entry `[...]`: each entry of these tables is decoded alone to name its key
_ENTRIES: dict[str, type] = {"empires": EmpireState, "provinces": ProvinceState, "seas": dict[Empire, int]}


def _convert_entries(doc: dict[str, Any]) -> list[str]:
    problems = []
    for name, kind in _ENTRIES.items():
        table = doc.get(name, {})
        if not isinstance(table, dict):
            continue
        for key, value in table.items():
            try:
                msgspec.convert(value, kind)
            except msgspec.ValidationError as err:
                message = _validation_message(str(err))
                sep = "" if message.startswith("(top level)") else "."
                problems.append(f"{name}.{key}{sep}{message.removeprefix('(top level)')}")
    return problems


def _derived_defaults(state: GameState, doc: dict[str, Any]) -> GameState:
    """Defaults computed from the rest: provinces and seas, reserve, legendary pile, 3.1.1 control."""
    board = state.geo_board
    covered = set(board.covered.get(str(len(state.empires)), ()))
    provinces = {p.id: ProvinceState() for p in board.provinces if p.region not in covered}
    provinces.update(state.provinces)
    seas: dict[str, dict[Empire, int]] = {s.id: {} for s in board.seas}
    seas.update(state.seas)
    state = replace(state, provinces=provinces, seas=seas)
    if "supply" not in doc:
        state = replace(state, supply=default_supply(state))
    if "legendary_pile" not in doc:
        state = replace(state, legendary_pile=default_pile(state))
    if "round_start_control" not in doc:
        state = replace(state, round_start_control=controlled(state))
    if "exchange_holder" not in doc:
        state = replace(state, exchange_holder=state.titles.get("trade"))
    from mncore.rulesets.empires.cities import available
    if state.cities is not None and set(state.cities.expansions) <= set(available()):
        state = replace(state, cities=default_cities(state.cities, doc.get("cities", {})))
    return state


def default_cities(cs: CitiesState, doc: dict[str, Any]) -> CitiesState:
    """The expansions' defaults: every Objective tile of one expansion, each deck less the cards held,
    discarded or being passed (lc.2)."""
    from mncore.rulesets.empires.cities import load_city
    if "objectives" not in doc and len(cs.expansions) == 1:
        cs = replace(cs, objectives=tuple(o.id for o in load_city(cs.expansions[0]).objectives))
    if "decks" not in doc:
        out = Counter([c for h in cs.hands.values() for c in h] + list(cs.discard)
                      + [c for d in cs.draws for c in d.hand])
        decks = {}
        for x in cs.expansions:
            left = []
            for c in load_city(x).deck_cards():
                if out[c]:
                    out[c] -= 1
                else:
                    left.append(c)
            decks[x] = tuple(left)
        cs = replace(cs, decks=decks)
    return cs


# --- defaults computed from the rest of the position ----------------------------------------------------

def default_supply(state: GameState) -> Bag:
    """The reserve: the component counts (the set-up's, with what a tile in play adds) minus every coin and
    ordinary commodity held."""
    total = supply_limit(state)
    ordinary = {t: n for t, n in holdings(state).items() if not is_legendary(t)}
    return {t: n for t, n in bag_sub(total, ordinary).items() if n > 0}


def default_pile(state: GameState) -> tuple[Commodity, ...]:
    """The legendary pile: every legendary commodity neither held nor discarded, in sorted order."""
    per = load_ruleset().components.legendary_per_commodity
    gone: Counter[str | None] = Counter()
    for t, n in holdings(state).items():
        if is_legendary(t):
            gone[commodity_of(t)] += n  # added, not counted one by one: n comes from the file
    gone.update(state.legendary_discard)
    gone.update(state.foreign_trade)
    return tuple(c for c in sorted(COMMODITIES) for _ in range(max(per - gone[c], 0)))


def controlled(state: GameState) -> dict[Empire, tuple[str, ...]]:
    """Who controls which provinces now (the 3.1.1 reference when the round starts)."""
    return {emp: tuple(sorted(p for p, ps in state.provinces.items() if ps.controller == emp))
            for emp in state.empires}


# --- writing -------------------------------------------------------------------------------------------

def position_doc(seen: Seen[GameState]) -> dict[str, Any]:
    """The position of a state as a document: every field that differs from what a reader assumes.

    For a side, what the boundary lets it see (redaction.seen_state, text/hidden.py): what it withholds
    is shown by its count (others' screens and offers, the legendary pile, decks, the discard pile and
    others' hands) or left out (face-down tiles' names, a fixed legendary commodity). Such a document is
    a view, not a position to load.
    """
    doc = _position_doc(seen.value)
    return doc if seen.viewer is None else _as_withheld(doc, seen.viewer, seen.withheld)


def _as_withheld(doc: dict[str, Any], viewer: str, shut: Withheld) -> dict[str, Any]:
    """The document with each withheld part shown as withheld: its stand-in's count, or nothing."""
    out: dict[str, Any] = _counts(doc, "state", shut)
    out["viewer"] = viewer
    for e, d in out.get("empires", {}).items():
        if isinstance(d.get("resources"), int):  # withheld: a count stands for the screen
            out["empires"][e] = {**{k: v for k, v in d.items() if k != "resources"}, "resource_count": d["resources"]}
    step = out.get("step")
    if isinstance(step, dict) and "offers" in step:
        step["offers"] = {e: ({"hidden": b} if isinstance(b, int) else b) for e, b in step["offers"].items()}
    if "display" in out:
        out["display"] = [{k: v for k, v in d.items() if not (k == "tile" and not d.get("face_up"))}
                          for d in out["display"]]
    if "fixed" in out:
        out["fixed"] = [{k: v for k, v in f.items() if v is not None} for f in out["fixed"]]
    return out


def _counts(node: Any, path: str, shut: Withheld) -> Any:
    """Each withheld part of the document as its size: a stand-in bag's total, a stand-in list's length."""
    if path in shut:
        return sum(node.values()) if isinstance(node, dict) else len(node) if isinstance(node, list) else None
    if isinstance(node, dict):
        return {k: _counts(v, f"{path}/{k}", shut) for k, v in node.items()}
    if isinstance(node, list):
        return [_counts(v, f"{path}/{i}", shut) for i, v in enumerate(node)]
    return node


def _position_doc(state: GameState) -> dict[str, Any]:
    doc: dict[str, Any] = {"ruleset_id": state.ruleset_id, "ruleset_version": state.ruleset_version}
    board = state.geo_board
    named = atlas.setup_of(board)
    doc["board"] = ("default" if board_digest(board) == board_digest(load_board())
                    else f"setup:{named}" if named else _trim(board))
    doc["round"], doc["phase"] = state.round, state.phase
    trimmed = _trim(replace(state, board=None))
    for name in (*NOT_IN_POSITION, "board", "round", "phase", *_derived_fields(state)):
        trimmed.pop(name, None)
    # empty provinces and seas are what a reader assumes for those left out
    for name in ("provinces", "seas"):
        trimmed[name] = {k: v for k, v in trimmed.get(name, {}).items() if v}
    doc.update({k: v for k, v in trimmed.items() if v != {}})
    derived = _derived_fields(state)
    for name in ("supply", "legendary_pile", "round_start_control"):
        if name not in derived:
            doc[name] = _trim(getattr(state, name))
    return doc


def _derived_fields(state: GameState) -> list[str]:
    """Fields equal to what the reader derives from the rest: left out of the document."""
    out = []
    if state.supply == default_supply(state):
        out.append("supply")
    if state.legendary_pile == default_pile(state):
        out.append("legendary_pile")
    if state.round_start_control == controlled(state):
        out.append("round_start_control")
    if state.exchange_holder == state.titles.get("trade"):
        out.append("exchange_holder")
    return out


def _trim(value: Any) -> Any:
    """Builtins of a value, leaving out every Struct field equal to its default."""
    if isinstance(value, msgspec.Struct):
        cfg = type(value).__struct_config__
        out: dict[str, Any] = ({cfg.tag_field: cfg.tag}
                               if isinstance(cfg.tag, str) and cfg.tag_field else {})
        for f in msgspec.structs.fields(value):
            v = getattr(value, f.name)
            if f.default is not msgspec.NODEFAULT and v == f.default:
                continue
            if f.default_factory is not msgspec.NODEFAULT and v == f.default_factory():
                continue
            out[f.encode_name] = _trim(v)
        return out
    if isinstance(value, dict):
        return {k: _trim(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_trim(v) for v in value]
    return value


def write_position(seen: Seen[GameState]) -> str:
    """The position of a state as TOML text, which read_position turns back into the same state;
    for a side, what it may see of it (not loadable)."""
    head = ("A Mare Nostrum: Empires position (docs/positions.md). Fields left out take their "
            "documented defaults.")
    if seen.viewer is not None:
        head = (f"What {seen.viewer} may see of a Mare Nostrum: Empires position: hidden parts are "
                "withheld, so it cannot be loaded.")
    return toml_text(position_doc(seen), head)


# --- a game from a position ---------------------------------------------------------------------------

def creation_events(cmd: CreateFromPosition, rng: Rng, commitment: str) -> list[ev.AnyEvent]:
    """The first events of a sandbox game started from a position, then what follows by itself."""
    from mncore.rulesets.empires.evolve import replay

    created = ev.GameCreated(
        engine_version=mncore.__version__, ruleset_id=cmd.position.ruleset_id,
        ruleset_version=cmd.position.ruleset_version, board=cmd.board,
        board_digest=board_digest(cmd.board),
        players={emp: es.player for emp, es in cmd.position.empires.items()},
        # a set-up variant's board plays that variant's rules (the Punic War's trade and victory)
        options=Options(fair_play=False, sandbox=True, setup=atlas.setup_of(cmd.board) or atlas.STANDARD),
        commitment=commitment)
    events: list[ev.AnyEvent] = [created, ev.PositionLoaded(state=cmd.position)]
    state = replay(events)
    if cmd.begins:
        opening = rules_for(state.phase).begin(state, rng, replay)
        events += opening
        state = replay(opening, state)
    return events + settle(state, rng)


# The phases whose work is done as they begin (1.1 collection, 5.0 the claims) and that rest only with a
# choice open in their step: with an empty step, a position there is the phase's start.
_BEGUN_BY_THEIR_WORK = ("collect", "leadership")


def creation_command(state: GameState) -> CreateFromPosition:
    """The command that starts a game at this position: the board apart, the rest as loaded."""
    begins = (state.winner is None and state.phase in _BEGUN_BY_THEIR_WORK
              and state.step == type(state.step)())
    return CreateFromPosition(board=state.geo_board, position=replace(
        state, board=None, board_digest="", game_id="", options=Options(), commitment=""),
        begins=begins)


# --- helpers -------------------------------------------------------------------------------------------

def _validation_message(message: str) -> str:
    """msgspec's "... - at `$.a.b`" as "a.b: ...", with unknown and missing fields said plainly."""
    m = _PATH.match(message)
    what, path = (m["what"], (m["path"] or "").lstrip(".")) if m else (message, "")
    for pattern, text in ((_UNKNOWN, "unknown field (misspelt?)"), (_MISSING, "required field missing")):
        found = pattern.match(what)
        if found:
            return f"{'.'.join(x for x in (path, found['field']) if x)}: {text}"
    return f"{path or '(top level)'}: {what}"
