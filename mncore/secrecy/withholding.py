"""Withholding declared fields from a typed value (an event, a state): the mechanism of the redaction boundary."""

from __future__ import annotations

import types
from collections.abc import Sequence
from typing import Any, Union, get_args, get_origin

import msgspec
from msgspec.structs import replace

from mncore.core.protocol import Hidden


class DeclarationError(ValueError):
    """A declared hidden field names a path the value does not have: the declaration is wrong."""


def withhold(value: Any, hidden: Sequence[Hidden], root: int = 1) -> Any:
    """The value with each declared field withheld. A field reads as its declared `public` part; without
    one, an entry of a map is left out, and a field of a struct reads as its default, else null where
    its type admits it, else the empty value of its kind, so that nothing made of it can say what it held.
    `root`: how many leading parts of a field's name are not part of the value's path ("payload/...")."""
    for h in hidden:
        parts = h.field.split("/")[root:]
        if not parts:
            raise DeclarationError(f"{h.field}: a hidden field must be inside the value, not all of it")
        value = _put(value, parts, h)
    return value


def _put(node: Any, parts: list[str], h: Hidden) -> Any:
    head, rest = parts[0], parts[1:]
    if isinstance(node, msgspec.Struct):
        info = _field(node, head, h)
        inner = getattr(node, info.name)
        return replace(node, **{info.name: _put(inner, rest, h) if rest else _blank(inner, h, info)})
    if isinstance(node, dict):
        key = next((k for k in node if str(k) == head), None)
        if key is None:
            raise DeclarationError(f"{h.field}: no key {head!r} here")
        if not rest and h.public is None:
            return {k: v for k, v in node.items() if k != key}
        return {**node, key: _put(node[key], rest, h) if rest else h.public}
    if isinstance(node, tuple | list) and head.isdigit() and int(head) < len(node):
        i = int(head)
        item = _put(node[i], rest, h) if rest else _blank(node[i], h, None)
        return type(node)([*node[:i], item, *node[i + 1:]])
    raise DeclarationError(f"{h.field}: no part {head!r} in a {type(node).__name__}")


def struct_fields(cls: type[msgspec.Struct]) -> tuple[msgspec.structs.FieldInfo, ...]:
    """A Struct type's fields, read once per type: msgspec evaluates their annotations at each call."""
    found = _FIELDS.get(cls)
    if found is None:
        found = _FIELDS[cls] = msgspec.structs.fields(cls)
    return found


_FIELDS: dict[type, tuple[msgspec.structs.FieldInfo, ...]] = {}


def _field(node: msgspec.Struct, name: str, h: Hidden) -> msgspec.structs.FieldInfo:
    for info in struct_fields(type(node)):
        if name in (info.name, info.encode_name):
            return info
    raise DeclarationError(f"{h.field}: {type(node).__name__} has no field {name!r}")


def _blank(value: Any, h: Hidden, info: msgspec.structs.FieldInfo | None) -> Any:
    """What a withheld field or item reads as (see withhold)."""
    if h.public is not None:
        return h.public
    if info is not None and info.default is not msgspec.NODEFAULT:
        return info.default
    if info is not None and info.default_factory is not msgspec.NODEFAULT:
        return info.default_factory()
    if info is not None and _admits_none(info.type):
        return None
    if isinstance(value, bool):
        return False
    if isinstance(value, str | int | float | dict | tuple | list):
        return type(value)()
    raise DeclarationError(f"{h.field}: declare what others read in place of a {type(value).__name__}")


def _admits_none(annotation: Any) -> bool:
    if annotation is None or annotation is type(None) or annotation is Any:
        return True
    origin = get_origin(annotation)
    return origin in (Union, types.UnionType) and type(None) in get_args(annotation)
