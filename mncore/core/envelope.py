"""The kernel's envelope around a ruleset: its own events and commands decoded and folded beside the game's.

No ruleset's union holds a kernel event or command (mncore.core.kernel_acts): a ruleset's codecs are built here from
its own unions with the kernel's added, and its fold is wrapped so that the ruleset never sees a kernel
event (unless it declares that it returns the state unchanged for each of them itself, as Empires' one
lookup by event type does: passes_kernel_events). The kernel folds its own state from them beside the ruleset's (mncore/core/kernel_state.py: the secret,
the keys and signing ledger, the pace, undo, consent, standing and queued orders), so no field of a
ruleset's state is the kernel's and the game's state never changes for them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

import msgspec

from mncore.core.kernel_acts import (
    ALL_KERNEL_COMMANDS,
    KERNEL_EVENTS,
    KernelCommand,
    KernelEvent,
    kernel_sentence,
)
from mncore.core.kernel_acts import order_lines as order_lines

T = TypeVar("T")
S = TypeVar("S")

_ENCODER = msgspec.json.Encoder(order="deterministic")  # the log's bytes: sorted keys, no spaces
_KERNEL_EVENTS = frozenset(KERNEL_EVENTS)
_KERNEL_COMMANDS = frozenset(ALL_KERNEL_COMMANDS)


def is_kernel_event(event: Any) -> bool:
    return type(event) in _KERNEL_EVENTS


def is_kernel_command(command: Any) -> bool:
    return type(command) in _KERNEL_COMMANDS


class Codec(Generic[T]):
    """JSON for a ruleset's union `own` with the kernel's beside it: the bytes the log stores."""

    decode: Callable[[bytes | str], T]  # the decoder's own method, nothing between: a replay decodes every row

    def __init__(self, own: Any, kernel: Any) -> None:
        self.own = own
        self.type: Any = own | kernel  # the whole union a log may hold (schemas/)
        self.encode: Callable[[Any], bytes] = _ENCODER.encode

    def __getattr__(self, name: str) -> Any:
        # the decoder is built on first use (then found as an attribute): a command that decodes no
        # command never pays for walking the whole union's types (a lean start)
        if name != "decode":
            raise AttributeError(name)
        self.decode = msgspec.json.Decoder(self.type).decode
        return self.decode


def events(own: Any) -> Codec[Any]:
    """The codec of a log's events: the ruleset's union `own` and the kernel's."""
    return Codec(own, KernelEvent)


def commands(own: Any) -> Codec[Any]:
    """The codec of a log's commands: the ruleset's union `own` and the kernel's."""
    return Codec(own, KernelCommand)


# the rulesets' folds that pass over the kernel's events themselves (passes_kernel_events)
_PASSING: set[Callable[..., Any]] = set()


def passes_kernel_events(own: Callable[[S, Any], S]) -> Callable[[S, Any], S]:
    """Declare that a ruleset's fold returns the state unchanged for every kernel event itself: it
    looks each event's type up in a table made by kernel_passed. evolving then hands it out bare, one
    call less for each event of a replay."""
    _PASSING.add(own)
    return own


def kernel_passed(handlers: dict[type, Callable[[S, Any], S]]) -> dict[type, Callable[[S, Any], S]]:
    """A ruleset's handlers by event type with each kernel event's type added, its handler returning
    the state as it is (the kernel folds them into its own state)."""
    return {**handlers, **dict.fromkeys(KERNEL_EVENTS, _unchanged)}


def _unchanged(state: Any, event: Any) -> Any:
    return state


def evolving(own: Callable[[S, Any], S]) -> Callable[[S, Any], S]:
    """A ruleset's fold that passes over the kernel's events (`own` sees only the game's; the kernel
    folds its own into its state: mncore/core/kernel_state.py)."""
    if own in _PASSING:
        return own
    kernel = _KERNEL_EVENTS

    def evolve(state: S, event: Any) -> S:
        if type(event) in kernel:
            return state
        return own(state, event)
    return evolve


def describing(own: Callable[[Any, frozenset[str]], str],
               name: Callable[[str], str]) -> Callable[..., str]:
    """A ruleset's sentence for an event with the kernel's sentence for the kernel's events, whose
    sides are named by `name` (the ruleset's display names)."""

    def describe(event: Any, withheld: frozenset[str] = frozenset()) -> str:
        if type(event) in _KERNEL_EVENTS:
            return kernel_sentence(event, name, withheld)
        return own(event, withheld)
    return describe
