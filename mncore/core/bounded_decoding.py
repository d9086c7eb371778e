"""Event types whose numbers msgspec bounds as it decodes (bounds.Number), and a refused row read as before."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, get_args

import msgspec
import msgspec.inspect as mi

from mncore.core.bounds import MAX_NUMBER

_LISTS = (mi.ListType, mi.VarTupleType, mi.SetType, mi.FrozenSetType)
_OBJECTS = (mi.StructType, mi.DictType)
# msgspec's words for a number beyond bounds.Number's ceilings
_BEYOND = (f"Expected `int` <= {MAX_NUMBER} - ", f"Expected `int` >= {-MAX_NUMBER} - ")
# a JSON token; a number is taken only where a delimiter follows it (never where the text breaks off)
_TOKEN = re.compile(r'[ \t\n\r]*(?:("(?:[^"\\]|\\.)*")|(-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)(?=[ \t\n\r,\]}])'
                    r'|([{}\[\]:,])|(true|false|null))')
Path = tuple[str | int, ...]
# how many levels down a declared type may hold a Number (numbers_bounded holds each declaration to it):
# as_unbounded looks no deeper, so that a forged payload nested far deeper costs no more to read
DEEPEST = 16


def numbers_bounded(kind: type) -> bool:
    """Whether msgspec refuses, decoding `kind` from JSON, every number bounds.out_of_bounds would find
    in it: each integer it may hold is a bounds.Number at most DEEPEST levels down (no Struct holds
    itself), it holds no float or untyped value (msgspec takes a long integer into either) and no Struct
    in it lets an unknown field through."""
    return _bounded(mi.type_info(kind), (), 0)


def _bounded(t: mi.Type, within: tuple[type, ...], depth: int) -> bool:
    if isinstance(t, mi.StructType):
        if t.cls in within:  # a Struct inside itself: its numbers may sit at any depth
            return False
        return t.forbid_unknown_fields and not t.array_like and all(
            _bounded(f.type, (*within, t.cls), depth + 1) for f in t.fields)
    if isinstance(t, mi.IntType):
        return _is_number(t) and depth <= DEEPEST
    if isinstance(t, mi.DictType):  # its keys are JSON strings: out_of_bounds never reads them
        return _bounded(t.value_type, within, depth + 1)
    if isinstance(t, _LISTS):
        return _bounded(t.item_type, within, depth + 1)
    if isinstance(t, mi.TupleType):
        return all(_bounded(i, within, depth + 1) for i in t.item_types)
    if isinstance(t, mi.UnionType):  # one object and one array at most: a path finds its member
        return (sum(isinstance(m, _OBJECTS) for m in t.types) <= 1
                and sum(isinstance(m, (*_LISTS, mi.TupleType)) for m in t.types) <= 1
                and all(_bounded(m, within, depth) for m in t.types))
    if isinstance(t, mi.LiteralType):
        return all(not isinstance(v, int) or -MAX_NUMBER <= v <= MAX_NUMBER for v in t.values)
    return isinstance(t, mi.StrType | mi.BoolType | mi.NoneType)


def _is_number(t: mi.IntType) -> bool:
    """bounds.Number's ceilings and nothing else: without them the place takes any integer."""
    return (t.ge, t.le, t.gt, t.lt, t.multiple_of) == (-MAX_NUMBER, MAX_NUMBER, None, None, None)


def beyond_bounds(err: msgspec.ValidationError) -> bool:
    """Whether msgspec refused a number for bounds.Number's ceilings."""
    return str(err).startswith(_BEYOND)


def as_unbounded(decode: Callable[[str], Any], union: object, text: str) -> Any:
    """decode(text) as it was before bounds.Number: each integer beyond the ceilings at a place of one
    is written as 1 (spaces before it, so that every other byte keeps its offset), where any integer
    was taken; every other byte, and so the event or the error, is the one decoded before."""
    tag_field, kinds = _tagged(union)
    found, tag = _long_integers(text, tag_field)
    kind = kinds.get(tag) if tag is not None else None
    if kind is None:
        return decode(text)
    info = mi.type_info(kind)
    pieces, at = [], 0
    for path, start, end in found:
        if _number_at(info, path):
            pieces += [text[at:start], " " * (end - start - 1), "1"]
            at = end
    return decode("".join(pieces) + text[at:])


def _tagged(union: object) -> tuple[str | None, dict[str | int | None, type[msgspec.Struct]]]:
    """The tag's field of a tagged union's Structs, and each by its tag."""
    field: str | None = None
    kinds: dict[str | int | None, type[msgspec.Struct]] = {}
    for kind in get_args(union) or (union,):
        if isinstance(kind, type) and issubclass(kind, msgspec.Struct):
            config = kind.__struct_config__
            field, kinds[config.tag] = config.tag_field, kind
    return field, kinds


def _long_integers(text: str, tag_field: str | None) -> tuple[list[tuple[Path, int, int]], str | None]:
    """Each integer beyond the ceilings outside strings, with its path and offsets, at most DEEPEST
    levels down, and the top object's tag; the scan stops where the JSON breaks (msgspec stops there or
    before). Linear in the text: a path is made only for a long integer, and none deeper than a Number
    may sit (a forged payload nests as deep and as wide as it likes)."""
    found: list[tuple[Path, int, int]] = []
    tag: str | None = None
    stack: list[list[Any]] = []  # per open container: [is an object, key or index, a key is next]
    pos = 0
    while (m := _TOKEN.match(text, pos)) is not None:
        pos = m.end()
        string, number, mark, _ = m.groups()
        top = stack[-1] if stack else None
        if mark in ("{", "["):
            stack.append([mark == "{", None if mark == "{" else 0, mark == "{"])
        elif mark in ("}", "]"):
            if len(stack) <= 1:  # the top value closes: nothing after it is read
                break
            stack.pop()
        elif mark == ",":
            if top is not None and top[0]:
                top[2] = True
            elif top is not None:
                top[1] += 1
        elif mark is None and top is not None and top[0] and top[2]:  # a key
            if string is None:
                break
            top[1], top[2] = msgspec.json.decode(string), False
        elif number is not None and len(stack) <= DEEPEST and _beyond(number):
            found.append((tuple(f[1] for f in stack), m.start(2), m.start(2) + len(number)))
        elif string is not None and len(stack) == 1 and stack[0][1] == tag_field:
            tag = msgspec.json.decode(string)
    return found, tag


def _beyond(number: str) -> bool:
    digits = number.lstrip("-")
    return digits.isdigit() and (len(digits) > 7 or int(digits) > MAX_NUMBER)


def _number_at(t: mi.Type | None, path: Path) -> bool:
    """Whether the place path leads to in t is a bounds.Number (alone or beside null or others)."""
    for step in path:
        t = _member(t, _OBJECTS if isinstance(step, str) else (*_LISTS, mi.TupleType))
        if isinstance(t, mi.StructType) and isinstance(step, str):
            t = next((f.type for f in t.fields if f.encode_name == step), None)
        elif isinstance(t, mi.DictType) and isinstance(step, str):
            t = t.value_type
        elif isinstance(t, _LISTS) and isinstance(step, int):
            t = t.item_type
        elif isinstance(t, mi.TupleType) and isinstance(step, int):
            t = t.item_types[step] if step < len(t.item_types) else None
        else:
            return False
    members = t.types if isinstance(t, mi.UnionType) else (t,)
    return any(isinstance(m, mi.IntType) and _is_number(m) for m in members)


def _member(t: mi.Type | None, kinds: tuple[type, ...]) -> mi.Type | None:
    """The one member of a union a JSON object (or array) can be; t itself if it is no union."""
    if not isinstance(t, mi.UnionType):
        return t
    fits = [m for m in t.types if isinstance(m, kinds)]
    return fits[0] if len(fits) == 1 else None
