"""A side's board folded from its own export: its events as it sees them, set right by the export's public facts.

An event folded as a side sees it (another side's face-down offer read as empty) can leave a public
fact wrong: the offering side's count of tokens, later the reserve that its discards fill. So an
export made for one side carries, on each line after which that side's fold of the events it sees
would show the board otherwise than the redaction boundary shows the real one (boundary.seen_state),
the parts of its state that differ, as replacements ("public facts"). They are computed by the host
from the seen state alone, so they carry nothing the side may not see, and a side's board from its
export equals the host's picture for it at every event by construction: the host folds exactly as
the side's reader does (`SideFold`) and writes a fact wherever the two would differ.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Iterator, Sequence
from typing import Any, Union, get_args, get_origin

import msgspec

from mncore.core import chain
from mncore.core.errors import DataError
from mncore.core.kernel_acts import UNDO_TYPES
from mncore.core.protocol import Ruleset
from mncore.pbem import turns
from mncore.secrecy import boundary
from mncore.secrecy.withholding import struct_fields
from mncore.store import Row

_UNIONS = (Union, types.UnionType)
Facts = list[list[Any]]  # [[path, value], ...]: the value at each path of the state's JSON replaced


class SideFold:
    """The fold a side's reader makes of its seen events, stepping back at an undo as turns.states does.

    It holds the state as the boundary shows it to the side (boundary.seen_state) after each event:
    what the side's own fold may have got wrong of a hidden fact is withheld again at once, so that
    neither the fold nor the facts that set it right ever name more than the side sees."""

    def __init__(self, ruleset: Ruleset, viewer: str) -> None:
        self.ruleset, self.viewer = ruleset, viewer
        self.state: Any = ruleset.initial("")
        self._before: dict[int, Any] = {}

    def step(self, row: Row, event: Any) -> Any:
        """The state after the row's event as the side sees it (before its facts)."""
        if row.batch == row.seq:
            self._before[row.seq] = self.state
        # a seen event may not fold on a seen state (a withheld token spent, a face-down tile drawn):
        # the state is then left as it was, and the event's facts set it right
        try:
            state = self.ruleset.evolve(self.state, event)
            self.state = boundary.seen_state(self.ruleset, state, self.viewer).value
        except Exception:  # noqa: BLE001, S110 - whatever the error, the facts set it right
            pass
        if row.type in UNDO_TYPES:
            batch = msgspec.json.decode(row.payload).get("batch")
            self.state = self._before.get(batch if isinstance(batch, int) else -1, self.state)
        return self.state

    def apply(self, facts: Facts, where: str) -> Any:
        """The state with the facts put in; DataError naming `where` if they are no part of such a state.

        A fact may hold what the boundary puts in place of a hidden value ({"withheld": 3}), which no
        typed state admits: each is converted to its field's type where it fits and put in as it is
        where it does not, as boundary.seen_state puts in a declared public part."""
        state = self.state
        try:
            for fact in facts:
                if not isinstance(fact, list) or len(fact) not in (1, 2) or not isinstance(fact[0], list):
                    raise TypeError(fact)
                state = _put(state, list(fact[0]), fact[1] if len(fact) == 2 else _DROP, type(state))
        except (KeyError, IndexError, TypeError, ValueError, StopIteration, RecursionError):
            raise DataError(where, ["its public facts are no part of the game's state (edited)"]) from None
        self.state = state
        return state


def public_facts(ruleset: Ruleset, rows: Sequence[Row], events: Sequence[Any], seen: Sequence[Any],
                 viewer: str) -> list[Facts]:
    """For each row, what the side's fold of `seen` (its events as it reads them) misses of the real
    state as the boundary shows it to viewer: [] where nothing."""
    fold = SideFold(ruleset, viewer)
    out: list[Facts] = []
    for row, real, event in zip(rows, turns.states(ruleset, rows, events), seen, strict=True):
        have = fold.step(row, event)
        want = boundary.seen_state(ruleset, real, viewer).value
        facts: Facts = []
        if _json(have) != _json(want):
            # put in as the reader gets them, through JSON (a map's int keys become text)
            facts = msgspec.json.decode(_json(diff(have, want)))
            fold.apply(facts, "the host's export")
        out.append(facts)
    return out


def seen_row(ruleset: Any, row: Row, withheld: list[str], side: str | None, opened: bool,
             source: str) -> tuple[Row, Any]:
    """A line of an export made for side as that side reads it: the row (a command it may not read
    whole: None) and its event as the boundary shows it (boundary.seen_event). The host folds these
    very events to write the export's public facts; the side's reader (mncore/client/exported.py)
    reads its export with it."""
    event = _event(ruleset, row, [f for f in withheld if chain.split_field(f)[0] == chain.PAYLOAD], source)
    seen = boundary.seen_event(ruleset, event, side, opened).value
    command = row.command if not any(chain.split_field(f)[0] == chain.COMMAND for f in withheld) else None
    return msgspec.structs.replace(row, payload=ruleset.encode_event(seen).decode(), command=command,
                                   salts={}), seen


def _event(ruleset: Any, row: Row, fields: list[str], source: str) -> Any:
    """The row's event with each withheld payload field put back as the blank of its type (the
    first value of a literal, else empty, else null): the boundary then withholds it again."""
    if not fields:
        return ruleset.decode_event(row.payload)
    doc = msgspec.json.decode(row.payload)
    kinds = _kinds(ruleset.event_type)
    try:
        for field in fields:
            parts = chain.split_field(field)[1]
            chain.set_path(doc, parts, _blank(_at(kinds[doc["type"]], parts)))
        return ruleset.decode_event(msgspec.json.encode(doc))
    except (KeyError, TypeError, chain.CommitError, msgspec.DecodeError, msgspec.ValidationError):
        raise DataError(source, [f"event {row.seq}: a withheld field of its {row.type} reads as no "
                                 "value its type admits"]) from None


@functools.cache
def _kinds(event_type: Any) -> dict[Any, Any]:
    """The event union's structs by tag, read once: msgspec's inspection walks every type anew."""
    return {i.tag: i for i in _union(msgspec.inspect.type_info(event_type))
            if isinstance(i, msgspec.inspect.StructType)}


def _union(info: Any) -> list[Any]:
    return list(info.types) if isinstance(info, msgspec.inspect.UnionType) else [info]


def _at(info: Any, parts: list[str]) -> Any:
    """The type at a field's path inside a type (struct fields by their JSON names)."""
    for part in parts:
        kinds = [t for t in _union(info) if not isinstance(t, msgspec.inspect.NoneType)] or [info]
        # a union of structs (a tagged union): the one that has the field
        info = next((t for t in kinds if isinstance(t, msgspec.inspect.StructType)
                     and any(part in (f.name, f.encode_name) for f in t.fields)), kinds[0])
        if isinstance(info, msgspec.inspect.StructType):
            info = next(f.type for f in info.fields if part in (f.name, f.encode_name))
        elif isinstance(info, msgspec.inspect.DictType):
            info = info.value_type
        elif isinstance(info, msgspec.inspect.ListType | msgspec.inspect.VarTupleType):
            info = info.item_type
        elif isinstance(info, msgspec.inspect.TupleType):
            info = info.item_types[int(part)]
        else:
            raise TypeError(part)
    return info


def _blank(info: Any) -> Any:
    i = msgspec.inspect
    kinds = _union(info)
    if any(isinstance(t, i.NoneType) for t in kinds):
        return None
    t = kinds[0]
    if isinstance(t, i.LiteralType):
        return t.values[0]
    blanks = {i.StrType: "", i.IntType: 0, i.FloatType: 0.0, i.BoolType: False, i.DictType: {},
              i.ListType: [], i.VarTupleType: [], i.AnyType: None}
    for kind, value in blanks.items():
        if isinstance(t, kind):
            return value
    raise TypeError(type(t).__name__)


def line_facts(ruleset: Ruleset, rows: Sequence[Row], events: Sequence[Any], lines: Sequence[Any],
               viewer: str) -> list[Facts]:
    """public_facts of an export's lines made for viewer (game.ExportLine), each read as its reader reads it."""
    seen, opened = [], False
    for line in lines:
        opened = opened or line.type == "SecretRevealed"
        row = Row(seq=line.seq, type=line.type, payload=bytes(line.payload).decode(), recorded_at=line.recorded_at,
                  actor=line.actor, batch=line.batch, hash=line.hash)
        seen.append(seen_row(ruleset, row, list(line.withheld), viewer, opened, "the export")[1])
    return public_facts(ruleset, rows, events, seen, viewer)


def side_states(ruleset: Ruleset, rows: Sequence[Row], seen: Sequence[Any], facts: dict[int, Facts],
                viewer: str, source: str) -> Iterator[Any]:
    """The state after each row as viewer's reader folds it (every fact put in)."""
    fold = SideFold(ruleset, viewer)
    for row, event in zip(rows, seen, strict=True):
        fold.step(row, event)
        yield fold.apply(facts.get(row.seq, []), f"{source}: event {row.seq}")


def diff(have: Any, want: Any, path: list[Any] | None = None) -> Facts:
    """The facts that turn the state `have` into `want`: [path, value] puts value at path (a new
    key of a map at its end), [path] drops a key of a map. A map whose kept keys come in another
    order (a picture may follow it) or a list of another length is put whole."""
    path = path or []
    if _json(have) == _json(want):
        return []
    if isinstance(have, msgspec.Struct) and type(have) is type(want):
        return [f for info in struct_fields(type(want))
                for f in diff(getattr(have, info.name), getattr(want, info.name), [*path, info.encode_name])]
    if isinstance(have, dict) and isinstance(want, dict):
        kept = [k for k in have if k in want]
        if kept + [k for k in want if k not in have] == list(want):
            return ([[[*path, str(k)]] for k in have if k not in want]
                    + [f for k in want for f in (diff(have[k], want[k], [*path, str(k)]) if k in have
                                                  else [[[*path, str(k)], msgspec.to_builtins(want[k])]])])
    if isinstance(have, tuple | list) and isinstance(want, tuple | list) and len(have) == len(want):
        return [f for i, (a, b) in enumerate(zip(have, want, strict=True)) for f in diff(a, b, [*path, i])]
    return [[path, msgspec.to_builtins(want)]]


_DROP = object()  # a fact [path]: the key is dropped from its map


def _put(node: Any, path: list[Any], value: Any, annotation: Any) -> Any:
    if not path:
        if value is _DROP:
            raise KeyError("a fact drops only a key of a map")
        return _typed(value, annotation)
    head, rest = path[0], path[1:]
    if isinstance(node, msgspec.Struct):
        info = next(f for f in struct_fields(type(node)) if head in (f.name, f.encode_name))
        return msgspec.structs.replace(node, **{info.name: _put(getattr(node, info.name), rest, value, info.type)})
    if isinstance(node, dict) and isinstance(head, str):
        key = next((k for k in node if str(k) == head), None)
        if key is None and not rest and value is not _DROP:  # a new key, at the end as the host's map has it
            return {**node, _typed(head, _arg(annotation, 0)): _typed(value, _arg(annotation, 1))}
        if key is None:
            raise KeyError(head)
        if not rest and value is _DROP:
            return {k: v for k, v in node.items() if k != key}
        return {**node, key: _put(node[key], rest, value, _arg(annotation, 1))}
    if isinstance(node, tuple | list) and isinstance(head, int) and not isinstance(head, bool):
        if not 0 <= head < len(node):
            raise IndexError(head)
        item = _put(node[head], rest, value, _arg(annotation, head if _fixed(annotation) else 0))
        return type(node)([*node[:head], item, *node[head + 1:]])
    raise KeyError(head)


def _typed(value: Any, annotation: Any) -> Any:
    """value as its type where it is one; else each part that is (a withheld stand-in, which no
    type admits, is kept as it is, a list as a tuple), as the boundary's withholding leaves them."""
    if annotation is not None:
        try:
            return msgspec.convert(value, annotation, strict=False)
        except (msgspec.ValidationError, TypeError):
            pass
    kinds = [a for a in (get_args(annotation) if get_origin(annotation) in _UNIONS else (annotation,))
             if a is not type(None)]
    cls = next((k for k in kinds if isinstance(k, type) and issubclass(k, msgspec.Struct)
                and _tag_fits(k, value)), None)
    if cls is not None and isinstance(value, dict):
        return cls(**{f.name: _typed(value[f.encode_name], f.type) for f in struct_fields(cls)
                      if f.encode_name in value})
    kind = kinds[0] if len(kinds) == 1 else None
    args = [a for a in get_args(kind) if a is not Ellipsis]
    if get_origin(kind) is dict and isinstance(value, dict) and len(args) == 2:
        return {_typed(k, args[0]) if isinstance(k, str) else k: _typed(v, args[1]) for k, v in value.items()}
    if isinstance(value, list):
        fixed = get_origin(kind) is tuple and Ellipsis not in get_args(kind)
        return tuple(_typed(v, args[i] if fixed and i < len(args) else (args[0] if args else None))
                     for i, v in enumerate(value))
    return value


def _tag_fits(cls: type[msgspec.Struct], value: Any) -> bool:
    config = cls.__struct_config__
    return config.tag_field is None or (isinstance(value, dict) and value.get(config.tag_field) == config.tag)


def _arg(annotation: Any, i: int) -> Any:
    args = get_args(annotation)
    return args[i] if len(args) > i and args[i] is not Ellipsis else None


def _fixed(annotation: Any) -> bool:
    args = get_args(annotation)
    return get_origin(annotation) is tuple and Ellipsis not in args


def _json(value: Any) -> bytes:
    return msgspec.json.encode(value)
