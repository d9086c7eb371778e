"""The cyclic garbage collector paused while a burst of objects is made that holds no cycle to collect."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

_paused_at_start = False  # set by the `mn` script's start (mncli/start.py), cleared by resume()


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off for a bulk replay, decode or import.

    A fold allocates a state per event, which would trigger a collection every few hundred events,
    each scanning the young objects (the states and events it keeps) to find no cycle: what it drops
    is freed by reference counts. At the end, what it kept is moved to the oldest generation
    unscanned (freeze, then unfreeze), so the first allocation after does not pay the deferred scan.
    """
    if not gc.isenabled():  # nested, or the caller has its own reason
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        _settle()


def pause_start() -> None:
    """Off for a process's start: importing the command and its modules makes about 20,000 objects,
    none of them garbage, which the collector would scan several times (about 8 ms of a cold status)."""
    global _paused_at_start
    if gc.isenabled():
        gc.disable()
        _paused_at_start = True


def resume() -> None:
    """On again once the start is over, if pause_start turned it off; what the start made is moved to
    the oldest generation unscanned. A process that never paused it (a test's) is left as it is."""
    global _paused_at_start
    if _paused_at_start:
        _paused_at_start = False
        _settle()


def skip_last_scan() -> None:
    """At the `mn` script's end: the interpreter's last collections at exit would scan every object the
    process made (about 20 ms of a cold status) to free what the exit frees anyway. What must be shut
    is shut without them: a SQLite store's connection by its finalizer at exit (store/sqlite.py), every
    file the commands write by a `with`."""
    gc.freeze()


def _settle() -> None:
    gc.freeze()
    gc.unfreeze()
    gc.enable()
