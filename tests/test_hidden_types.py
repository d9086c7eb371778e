"""hidden_event's and hidden_command's fast paths (text/hidden.MAY_HIDE, MAY_HIDE_COMMAND) name exactly
the types their matches hide fields of."""

from __future__ import annotations

import ast
import inspect

from mncore.rulesets.empires import commands as cm
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.text import hidden


def _matched(fn: object) -> set[str]:
    """The class names of every class pattern in the function's match statement."""
    tree = ast.parse(inspect.getsource(fn))  # type: ignore[arg-type]
    return {n.cls.attr for n in ast.walk(tree) if isinstance(n, ast.MatchClass) and isinstance(n.cls, ast.Attribute)}


def test_the_fast_path_names_every_type_the_match_hides_fields_of() -> None:
    assert {t.__name__ for t in hidden.MAY_HIDE} == _matched(hidden.hidden_event)
    assert all(getattr(ev, t.__name__) is t for t in hidden.MAY_HIDE)
    assert {t.__name__ for t in hidden.MAY_HIDE_COMMAND} == _matched(hidden.hidden_command)
    assert all(getattr(cm, t.__name__) is t for t in hidden.MAY_HIDE_COMMAND)


def test_no_event_type_is_a_subclass_of_one_it_names() -> None:
    """A class pattern also matches subclasses; the fast path looks up the exact type."""
    for module, named in ((ev, hidden.MAY_HIDE), (cm, hidden.MAY_HIDE_COMMAND)):
        types = [t for t in vars(module).values() if isinstance(t, type) and t.__module__ == module.__name__]
        assert not [t for t in types if t not in named and issubclass(t, tuple(named))]
