"""The kernel owns its envelope: no ruleset holds, folds, decides or words a kernel event or command."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import get_args

import msgspec
import pytest

from mncore.core import envelope, kernel_acts
from mncore.core.dice import commitment
from mncore.rulesets import registry
from mncore.rulesets.classic import commands as ccm
from mncore.rulesets.classic import events as cev
from mncore.rulesets.empires import commands as ecm
from mncore.rulesets.empires import events as eev
from mncore.rulesets.empires.game_data import RULESET_ID
from toy import model as tm

IDS = [r.id for r in (*registry.builtin(), registry.get(tm.RULESET_ID))]
ROOT = Path(__file__).resolve().parent.parent
# the modules beside the kernel: each ruleset's package, and the toy
OUTSIDE = [*sorted((ROOT / "mncore" / "rulesets").rglob("*.py")), *sorted((ROOT / "tests" / "toy").glob("*.py"))]
KERNEL_NAMES = {c.__name__ for c in (*kernel_acts.KERNEL_EVENTS, *kernel_acts.ALL_KERNEL_COMMANDS)} | {
    "PbemEvent", "PbemCommand", "PBEM_COMMANDS", "KERNEL_COMMANDS", "kernel_only", "reveal_events",
    "upgrade_events", "kernel_sentence"}


def _names(path: Path) -> set[str]:
    """Every name a module reads, imports or matches (a `case X()` is a Name too)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, ast.Attribute):
            found.add(node.attr)
        elif isinstance(node, ast.alias):
            found.add(node.name.rsplit(".", 1)[-1])
    return found


@pytest.mark.parametrize("path", OUTSIDE, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_ruleset_module_handles_a_kernel_event_or_command(path: Path) -> None:
    """No case, import or reference to the kernel's events and commands outside the kernel: no ruleset
    reducer has a no-op case for them, no seam decides them, no text words them."""
    assert sorted(_names(path) & KERNEL_NAMES) == []


@pytest.mark.parametrize("own", [eev.AnyEvent, ecm.AnyCommand, cev.AnyEvent, ccm.AnyCommand, tm.AnyEvent,
                                 tm.AnyCommand], ids=["empires events", "empires commands",
                                                      "classic events", "classic commands", "toy events",
                                                      "toy commands"])
def test_the_rulesets_unions_hold_only_their_games_types(own: object) -> None:
    kernel = {*kernel_acts.KERNEL_EVENTS, *kernel_acts.ALL_KERNEL_COMMANDS}
    assert sorted(c.__name__ for c in get_args(own) if c in kernel) == []


@pytest.mark.parametrize("rid", IDS)
def test_the_kernel_decodes_and_folds_its_own_beside_every_ruleset(rid: str) -> None:
    """A stored kernel event decodes through the ruleset's codec to the kernel's type, encodes back to
    the same bytes, and leaves the game's state as it was, the secret's reveal too: the kernel folds
    them into its own state (mncore/core/kernel_state.py), and a ruleset's Meta never holds the secret."""
    ruleset = registry.get(rid)
    secret = "ab" * 32
    state = ruleset.initial(commitment(bytes.fromhex(secret)))
    for event in (kernel_acts.KeysPublished(keys={"a": "0" * 64}, signed_only=True, draws=2),
                  kernel_acts.PaceSet(hours=24, phases={"trade": 12}, forced=True),
                  kernel_acts.BatchUndone(side="a", batch=3, through=5),
                  kernel_acts.LogUpgraded(from_version=1, previous_head="f" * 64),
                  kernel_acts.SecretRevealed(secret=secret)):
        data = msgspec.json.encode(event, order="deterministic")
        decoded = ruleset.decode_event(data)
        assert type(decoded) is type(event) and ruleset.encode_event(decoded) == data
        assert ruleset.evolve(state, decoded) is state
    assert ruleset.meta(state).secret is None


@pytest.mark.parametrize("rid", IDS)
def test_the_kernel_words_its_own_events_for_every_ruleset(rid: str) -> None:
    """The same sentence for a kernel event whatever the game, the sides in the ruleset's names."""
    from mncore.secrecy import boundary
    ruleset = registry.get(rid)
    event = kernel_acts.SecretRevealed(secret="ab")
    assert boundary.describe(ruleset, event, None, True) == (
        "The game's secret was revealed: every draw can now be checked")


def test_a_kernel_command_is_decided_by_the_kernel_only() -> None:
    """The rulesets' codecs take the kernel's commands; the envelope names them as the kernel's."""
    block = kernel_acts.UndoBatch(side="red", batch=3)
    assert envelope.is_kernel_command(block) and not envelope.is_kernel_command(tm.Pass(side="red"))
    assert envelope.is_kernel_event(kernel_acts.PaceSet()) and not envelope.is_kernel_event(tm.Passed(side="red"))


def test_a_fold_that_passes_the_kernels_events_itself_is_handed_out_bare() -> None:
    """Empires' evolve returns the state for a kernel event from its own table (envelope.kernel_passed):
    the envelope adds no call around it; a ruleset that did not declare so is wrapped."""
    from mncore.rulesets.empires.evolve import evolve

    empires = envelope.evolving(evolve)
    assert empires is evolve
    toy = registry.get(tm.RULESET_ID)
    assert toy.evolve is not toy.own_evolve  # type: ignore[attr-defined]
    state = registry.get(RULESET_ID).initial("")
    assert all(empires(state, e) is state for e in (kernel_acts.PaceSet(hours=24, phases={}, forced=False),
                                                   kernel_acts.SecretRevealed(secret="ab" * 32)))
