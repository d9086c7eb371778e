"""The one boundary: a field added to a ruleset's declaration is withheld from every output made for a
side with no other change, and only the redaction boundary makes the values those outputs are built of."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from mncore.core.protocol import Hidden
from mncore.secrecy.seen import Seen
from test_toy import doc, mn, play_to_a_win
from toy import RULESET as TOY
from toy.model import ClashFought

ROOT = Path(__file__).resolve().parent.parent


DECLARED = type(TOY).hidden


def _with_clash_dice_hidden(event: Any) -> list[Hidden]:
    """The toy's declaration plus one line: a clash's dice are the host's alone."""
    extra = [Hidden(field="payload/rolls")] if isinstance(event, ClashFought) else []
    return [*DECLARED(TOY, event), *extra]


@pytest.fixture()
def dice_hidden(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(type(TOY), "hidden", lambda self, event: _with_clash_dice_hidden(event))


@pytest.fixture()
def played(tmp_path: Path) -> tuple[Path, str]:
    """A toy game between Red and Blue played to a win."""
    db = tmp_path / "toy.db"
    assert mn(db, "new", "--ruleset", "toy", "--empire", "red", "--empire", "blue", "--seed", "toy",
              "--id", "t1").exit_code == 0
    play_to_a_win(db, "t1")
    return db, "t1"


def _outputs(db: Path, game: str, side: str) -> dict[str, str]:
    """Every output the toy offers a side that holds events (it has no explanations or pictures)."""
    return {"log": mn(db, "log", game, "--as", side).stdout,
            "log --json": mn(db, "log", game, "--as", side, "--json").stdout,
            "export": mn(db, "export", game, "--as", side).stdout,
            "report": mn(db, "report", game, "--as", side, "--no-record").stdout,
            "report --json": mn(db, "report", game, "--as", side, "--no-record", "--format", "json").stdout}


def test_a_field_added_to_the_toys_declaration_is_withheld_from_every_output(
        dice_hidden: None, played: tuple[Path, str]) -> None:
    """One line in the toy's declaration hides a clash's dice: no side's log, export or report shows
    them, while the host's log still does."""
    db, game = played
    rows = json.loads(mn(db, "log", game, "--json").stdout)
    clashes = [r for r in rows if r["type"] == "ClashFought"]
    assert clashes, "the game had a clash"
    host_text = mn(db, "log", game).stdout
    assert re.search(r"rolled \d", host_text)

    for side in ("red", "blue"):
        for name, out in _outputs(db, game, side).items():
            assert not re.search(r"rolled \d", out), (side, name)
            for clash in clashes:
                rolls = json.dumps(clash["event"]["rolls"], separators=(",", ":"))
                assert f'"rolls":{rolls}' not in out.replace(" ", ""), (side, name)


def test_without_the_line_the_dice_are_public(played: tuple[Path, str]) -> None:
    """The same game without that line shows every side the dice: the line alone made the difference."""
    db, game = played
    assert re.search(r"rolled \d", mn(db, "log", game, "--as", "blue").stdout)
    assert doc(db, "status", game)["winner"]


def test_a_seen_value_is_made_by_the_boundary_only() -> None:
    """Seen refuses to be made without the boundary's mint, and no module but mncore/secrecy/boundary.py uses
    the mint: a sentence or view for a side cannot be built from a value that did not pass it."""
    with pytest.raises(TypeError, match="mncore.secrecy.boundary only"):
        Seen("an event", "red", frozenset(), object())
    users = [p.relative_to(ROOT).as_posix() for pkg in ("mncore", "mncli", "tests")
             for p in (ROOT / pkg).rglob("*.py") if "_MINT" in p.read_text() and p.name != "test_secrecy_boundary.py"]
    assert sorted(users) == ["mncore/secrecy/boundary.py", "mncore/secrecy/seen.py"]
