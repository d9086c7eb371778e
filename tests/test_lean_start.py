"""What a cold `mn status` loads (issue 27, a lean start): no module it never uses, and the types whose
decoders it builds carry evaluated annotations, not strings msgspec must compile. No time is asserted:
bench/cold.py measures; these pin the causes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import msgspec
from click.testing import CliRunner

from mncli.cli import main

# loaded only by the commands that use them: creating a game, writing, mail, bots, pictures, checking a
# user's board, an event's sentence
NOT_AT_STATUS = ("secrets", "random", "dataclasses", "mncore.bots", "mncore.pbem.by_mail",
                 "mncore.games.writing", "mncore.games.exported", "mncore.pictures.svg",
                 "mncore.rulesets.empires.boardcheck", "mncore.rulesets.empires.text",
                 "mncore.rulesets.empires.players")

_PROBE = """
import json, sys
from mncli.cli import main
try:
    main(sys.argv[1:])
except SystemExit as done:
    code = done.code
print(json.dumps({"code": code, "modules": sorted(sys.modules)}), file=sys.stderr)
"""


def _status_modules(db: Path, game: str) -> tuple[int, set[str]]:
    run = subprocess.run([sys.executable, "-c", _PROBE, "--db", str(db), "status", game],
                         capture_output=True, text=True, check=False)
    doc = json.loads(run.stderr.strip().splitlines()[-1])
    return doc["code"], set(doc["modules"])


def test_status_loads_nothing_it_does_not_use(tmp_path: Path) -> None:
    db = tmp_path / "mn.db"
    made = CliRunner().invoke(main, ["--db", str(db), "new", "--empire", "rome", "--empire", "greece",
                                     "--empire", "carthage", "--seed", "lean", "--id", "g"])
    assert made.exit_code == 0, made.output
    code, modules = _status_modules(db, "g")
    assert code in (0, None)
    assert "mncore.rulesets.empires.seam" in modules  # the probe did read the game
    loaded = sorted(m for m in modules for unwanted in NOT_AT_STATUS
                    if m == unwanted or m.startswith(unwanted + "."))
    assert loaded == []


_COLLECTED = """
import gc, json, sys
seen = []
gc.callbacks.append(lambda phase, info: phase == "start" and seen.append(info["generation"]))
from mncli.start import main
try:
    main()
except SystemExit:
    pass
print(json.dumps({"generations": seen, "enabled": gc.isenabled(), "frozen": gc.get_freeze_count()}),
      file=sys.stderr)
"""


def test_the_mn_script_starts_without_the_collector_and_skips_its_last_scans(tmp_path: Path) -> None:
    """mncli/start.py (the `mn` script): no collection while the command and the ruleset load (a
    cold status made about 45 without), the collector on again once the command is found, and what
    the process made frozen at its end, so that the exit's last collections scan none of it."""
    db = tmp_path / "mn.db"
    made = CliRunner().invoke(main, ["--db", str(db), "new", "--empire", "rome", "--empire", "greece",
                                     "--empire", "carthage", "--seed", "lean", "--id", "g"])
    assert made.exit_code == 0, made.output
    run = subprocess.run([sys.executable, "-c", _COLLECTED, "--db", str(db), "status", "g"],
                         capture_output=True, text=True, check=False)
    doc = json.loads(run.stderr.strip().splitlines()[-1])

    assert run.stdout.startswith("Game g: round 1, Trade Resources phase\n")
    assert 2 not in doc["generations"] and len(doc["generations"]) <= 3
    assert doc["enabled"] is True
    assert doc["frozen"] > 10_000


def test_the_mn_script_leaves_its_database_closed(tmp_path: Path) -> None:
    """With the exit's collections skipped, the store's connection (in a cycle with its statement cache)
    is still closed, by its finalizer, its write-ahead log folded into the file, so that a copy of the
    file alone holds the game (tests/test_killed_writes.py copies one). Without the finalizer the freeze
    left it open, the log beside the file."""
    db = tmp_path / "mn.db"
    made = subprocess.run([sys.executable, "-m", "mncli", "--db", str(db), "new", "--empire", "rome", "--empire",
                           "greece", "--empire", "carthage", "--seed", "lean", "--id", "g"],
                          capture_output=True, text=True, check=False)
    assert made.returncode == 0, made.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mn.db"]


def test_decoded_types_carry_evaluated_annotations() -> None:
    """The state's, the events' and the ruleset data's Structs: `from __future__ import annotations`
    would make msgspec compile every annotation again at each start (about 5 ms of a cold status)."""
    from mncore.core.kernel_state import KernelState
    from mncore.rulesets.empires.events import CODEC
    from mncore.rulesets.empires.game_data import Ruleset
    from mncore.rulesets.empires.state import GameState

    seen: set[type] = set()
    strings: list[str] = []

    def walk(tp: object) -> None:
        if isinstance(tp, type) and issubclass(tp, msgspec.Struct):
            if tp in seen:
                return
            seen.add(tp)
            strings.extend(f"{tp.__module__}.{tp.__name__}.{name}"
                           for name, note in vars(tp).get("__annotations__", {}).items() if isinstance(note, str))
            for field in msgspec.structs.fields(tp):
                walk(field.type)
        for arg in getattr(tp, "__args__", ()):
            walk(arg)

    for root in (GameState, CODEC.type, Ruleset, KernelState):
        walk(root)
    assert len(seen) > 100
    assert strings == []


def test_a_recorded_display_is_written_back_as_recorded() -> None:
    """Every recorded log's options name the display even where it is the default: decoding and encoding
    them again gives the same bytes (the canonical encoding the chain covers), with the annotations
    evaluated at import as without."""
    from mncore.rulesets.empires.state import Options

    for recorded in (b'{"display":"first-game","setup":"alternative-3"}', b'{"setup":"alternative-3"}',
                     b'{"display":"experienced"}'):
        assert msgspec.json.encode(msgspec.json.decode(recorded, type=Options)) == recorded
