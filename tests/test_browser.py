"""The game page in a real headless Chromium: stepped with the keyboard, checked against mn's own views.

Needs Debian's `chromium` (CI installs it); skipped with the reason where it is missing. Screenshots of
the board at three moments go to test-artifacts/browser/ (or $MN_TEST_ARTIFACTS), kept after the run.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from browser import Browser, chromium_path
from golden import fixture
from mncli.cli import main
from mncore.pictures.labels import Quad, meet

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = Path(os.environ.get("MN_TEST_ARTIFACTS") or ROOT / "test-artifacts") / "browser"
GAME = "golden-6-2"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(chromium_path() is None, reason="no Chromium on this machine: install Debian's "
                       "`chromium` (apt-get install -y chromium; CI's .ci/run does) to run the browser tests"),
]


def mn(db: Path, *args: str) -> str:
    result = CliRunner().invoke(main, ["--db", str(db), *args])
    assert result.exit_code == 0, (args, result.output)
    return result.stdout


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("browser") / "g.db"
    mn(path, "import", str(fixture("6.2")))
    return path


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    executable = chromium_path()
    assert executable is not None
    b = Browser(executable)
    try:
        yield b
    finally:
        b.close()


def _page(db: Path, tmp: Path, *args: str) -> str:
    out = tmp / "page.html"
    mn(db, "html", GAME, *args, "-o", str(out))
    return out.as_uri()


def _shown(b: Browser) -> dict[str, Any]:
    """What the page shows now: the event, its sentence, and the board's marks read from the DOM."""
    shown: dict[str, Any] = b.evaluate("""(() => {
      const all = (q) => Array.from(document.querySelectorAll('#board ' + q));
      return {
        seq: document.getElementById('seq').textContent,
        round: document.getElementById('round').textContent,
        sentence: document.getElementById('sentence').textContent,
        explain: document.getElementById('explain').textContent,
        legions: all('.legion').map(e => [e.dataset.province, e.dataset.empire]),
        controllers: Object.fromEntries(all('path.province').map(e => [e.dataset.province, e.dataset.controller])),
        levels: all('.track').map(e => [e.dataset.track, e.dataset.empire, +e.dataset.level]),
        resources: all('.resources').map(e => e.dataset.empire),
        tiles: all('.tile').map(e => e.textContent),
      };
    })()""")
    return shown


def _check(b: Browser, db: Path, seq: int, viewer: str | None = None) -> dict[str, Any]:
    """The page shows event seq as `mn replay --to seq --json` (mn show at that event) and mn log do."""
    as_ = ["--as", viewer] if viewer else []
    doc = json.loads(mn(db, "replay", GAME, "--to", str(seq), *as_, "--json"))
    log = json.loads(mn(db, "log", GAME, "--from", str(seq), "--to", str(seq), *as_, "--json"))
    shown = _shown(b)

    assert shown["seq"] == str(seq)
    assert shown["round"] == str(doc["round"])
    assert shown["sentence"] == log[0]["text"]
    assert shown["explain"].startswith(f"Event {seq} (")
    legions = Counter({(p, e): n for p, v in doc["provinces"].items() for e, n in v["legions"].items()})
    assert Counter(tuple(x) for x in shown["legions"]) == legions
    assert {p: c or None for p, c in shown["controllers"].items()} == {
        p: doc["provinces"].get(p, {}).get("controller") for p in shown["controllers"]}
    assert sorted(tuple(x) for x in shown["levels"]) == sorted(
        (t, e, lvl) for e, v in doc["empires"].items() for t, lvl in v["tracks"].items())
    return shown


def test_the_host_page_steps_through_a_golden_game_with_the_keyboard(
        db: Path, browser: Browser, tmp_path: Path) -> None:
    """Arrow keys, Page Down, End and Home move through the events; at each stop the board, sentence
    and tracks are those of mn's own views; screenshots at the start, the middle and the end."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    browser.open(_page(db, tmp_path) + "#1")
    _check(browser, db, 1)
    browser.screenshot(ARTIFACTS / "host-event-1.png")

    browser.press("ArrowRight", 4)
    _check(browser, db, 5)
    browser.press("PageDown", 20)
    _check(browser, db, 205)
    browser.screenshot(ARTIFACTS / "host-event-205.png")
    browser.press("End")
    _check(browser, db, 675)
    browser.screenshot(ARTIFACTS / "host-event-675.png")
    browser.press("ArrowLeft")
    _check(browser, db, 674)
    browser.press("Home")
    _check(browser, db, 1)

    assert browser.evaluate("location.hash") == "#1"
    print(f"screenshots in {ARTIFACTS}")


def test_a_per_empire_page_shows_what_that_empire_may_know(db: Path, browser: Browser, tmp_path: Path) -> None:
    """Rome's page: Rome's resources only, face-down tiles unnamed, every stop as mn show --as rome."""
    browser.open(_page(db, tmp_path, "--as", "rome") + "#300")

    shown = _check(browser, db, 300, "rome")
    browser.press("ArrowRight", 3)
    _check(browser, db, 303, "rome")

    assert shown["resources"] == ["rome"]
    face_down = [t for t in shown["tiles"] if "face down" in t]
    assert face_down and all(t.endswith("face down") for t in face_down)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    browser.screenshot(ARTIFACTS / "rome-event-303.png")


def _pieces(b: Browser) -> dict[str, Any]:
    """The board's names with the boxes Chromium lays them out in, its pieces, and its legend."""
    found: dict[str, Any] = b.evaluate("""(() => {
      const all = (q) => Array.from(document.querySelectorAll('#board ' + q));
      const corners = (e) => {  // the box Chromium lays the name out in, turned by its transform
        const r = e.getBBox(), m = e.getCTM(), svg = e.ownerSVGElement;
        return [[r.x, r.y], [r.x + r.width, r.y], [r.x + r.width, r.y + r.height], [r.x, r.y + r.height]]
          .map(([x, y]) => { const p = svg.createSVGPoint(); p.x = x; p.y = y; const q = p.matrixTransform(m);
                             return [q.x, q.y]; });
      };
      return {
        names: all('text.label').map(e => [e.dataset.place, corners(e)]),
        leaders: all('.leader').length,
        legions: all('.legion').map(e => [e.dataset.province, e.dataset.empire]),
        triremes: all('.trireme').map(e => [e.dataset.sea, e.dataset.empire]),
        fortresses: all('.fortress').map(e => [e.dataset.province, e.dataset.empire]),
        buildings: all('.building').map(e => [e.dataset.province, e.dataset.space, e.dataset.holder]),
        legend: all('#legend').length,
        legendText: (document.querySelector('#board #legend') || {}).textContent || '',
      };
    })()""")
    return found


@pytest.mark.parametrize("seq", [1, 205, 675])
def test_three_points_of_a_golden_game_show_every_piece_and_names_that_never_overlap(
        db: Path, browser: Browser, tmp_path: Path, seq: int) -> None:
    """As Chromium lays the picture out: no two names' boxes meet (turned as drawn), no line leads to a
    name; every legion, trireme, fortress and
    building of the state (mn replay --json) has its element; the legend is there; a screenshot each."""
    browser.open(_page(db, tmp_path) + f"#{seq}")
    doc = json.loads(mn(db, "replay", GAME, "--to", str(seq), "--json"))

    shown = _pieces(browser)

    names: list[tuple[str, Quad]] = [(place, (a, b, c, d)) for place, [a, b, c, d] in shown["names"]]
    assert len(names) == 39
    meets = [(a[0], b[0]) for i, a in enumerate(names) for b in names[i + 1:] if meet(a[1], b[1])]
    assert meets == [] and shown["leaders"] == 0
    assert Counter(tuple(x) for x in shown["legions"]) == Counter(
        {(p, e): n for p, v in doc["provinces"].items() for e, n in v["legions"].items()})
    assert Counter(tuple(x) for x in shown["triremes"]) == Counter(
        {(s, e): n for s, v in doc["seas"].items() for e, n in v["triremes"].items()})
    assert sorted(tuple(x) for x in shown["fortresses"]) == sorted(
        (p, v["fortress"]) for p, v in doc["provinces"].items() if v["fortress"])
    assert sorted(tuple(x) for x in shown["buildings"]) == sorted(
        (p, b["space"], b["holder"] or "") for p, v in doc["provinces"].items() for b in v["buildings"])
    assert shown["legend"] == 1 and "caravan space" in shown["legendText"]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    browser.screenshot(ARTIFACTS / f"pieces-event-{seq}.png")
