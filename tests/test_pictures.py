"""Board geometry, the SVG picture (mn draw) and the game page (mn html), without a browser."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections import Counter
from importlib import resources
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner, Result

from golden import fixture
from mncli.cli import main
from mncore import game
from mncore.pages import Frames
from mncore.rulesets.empires.board import board_digest, layout_of, load_board, reference_layout
from mncore.rulesets.empires.boardcheck import validate_layout
from mncore.rulesets.empires.ruleset import load_ruleset
from mncore.store import open_store

SVG = "{http://www.w3.org/2000/svg}"
HEX = re.compile(r"\b[0-9a-f]{12,64}\b")
THREE = ["--empire", "rome", "--empire", "greece", "--empire", "carthage"]


def mn(db: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["--db", str(db), *args])


@pytest.fixture(scope="module")
def golden_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("golden") / "g.db"
    assert mn(db, "import", str(fixture("6.2"))).exit_code == 0
    return db


def _layout_table() -> str:
    """The reference layout as a [layout] table of a board file."""
    text = resources.files("mncore.rulesets.empires.data").joinpath("layout.toml").read_text()
    body = [ln for ln in text.splitlines() if ln and not ln.startswith("#")]
    return "\n[layout]\n" + "\n".join(body) + "\n"


def _board_with_layout(tmp_path: Path, edit: str = "") -> Path:
    text = resources.files("mncore.rulesets.empires.data").joinpath("board.toml").read_text()
    path = tmp_path / "board.toml"
    path.write_text(text + _layout_table() + edit)
    return path


# --- geometry ----------------------------------------------------------------------------------------

def test_the_reference_board_encodes_as_the_recorded_games_embed_it() -> None:
    """The reference board has no layout field, so its digest is the one the golden games recorded."""
    first = json.loads(fixture("6.1").read_text().splitlines()[1])

    recorded = first["payload"]["board_digest"]

    assert board_digest(load_board()) == recorded
    assert b'"layout"' not in msgspec.json.encode(load_board())


def test_the_reference_layout_places_every_province_sea_and_space_inside_its_canvas() -> None:
    """Every province and sea of the reference board has a position; the layout check finds nothing."""
    board, layout = load_board(), reference_layout()

    assert validate_layout(board, layout) == []
    assert {p.id for p in board.provinces} | {s.id for s in board.seas} == set(layout.places)
    assert layout_of(board) is layout


def test_a_board_file_carries_its_own_layout_and_map_check_accepts_it(tmp_path: Path) -> None:
    """A [layout] table in a board file is decoded, checked and used to draw that board."""
    path = _board_with_layout(tmp_path)

    result = mn(tmp_path / "x.db", "map", "check", str(path))
    board = load_board(str(path))

    assert result.exit_code == 0, result.output
    assert layout_of(board) is board.layout
    assert board_digest(board) != board_digest(load_board())


def test_map_check_names_a_point_outside_the_canvas_and_an_unplaced_place(tmp_path: Path) -> None:
    """A label outside the canvas and a layout place that is no province or sea are each named."""
    path = _board_with_layout(tmp_path, 'places.narnia = { at = [10, 10] }\n')
    text = path.read_text().replace("places.gallia = { at = [", "places.gallia = { label = [5000, 1], at = [")
    path.write_text(text)

    result = mn(tmp_path / "x.db", "map", "check", str(path))

    assert result.exit_code == 2
    assert "layout.places.gallia.label: [5000.0, 1.0] is outside the canvas" in result.stderr
    assert "layout.places.narnia: no province or sea has this id" in result.stderr


# --- the picture ---------------------------------------------------------------------------------------

def _svg(db: Path, *args: str) -> ET.Element:
    result = mn(db, "draw", *args, "-o", "-")
    assert result.exit_code == 0, result.output
    return ET.fromstring(result.stdout)


@pytest.mark.parametrize("at", [1, 200, 675])
def test_the_svg_has_one_element_per_legion_trireme_fortress_and_building(golden_db: Path, at: int) -> None:
    """Counting the SVG's unit and building elements by province (or sea) and space gives the state."""
    root = _svg(golden_db, "golden-6-2", "--at", str(at))
    doc = json.loads(mn(golden_db, "replay", "golden-6-2", "--to", str(at), "--json").stdout)

    def count(kind: str, key: str) -> Counter[tuple[str, str]]:
        return Counter((e.get(f"data-{key}", ""), e.get("data-empire", "")) for e in root.iter()
                       if e.get("class") == kind)

    legions = Counter({(p, e): n for p, v in doc["provinces"].items() for e, n in v["legions"].items()})
    triremes = Counter({(s, e): n for s, v in doc["seas"].items() for e, n in v["triremes"].items()})
    fortresses = Counter({(p, v["fortress"]): 1 for p, v in doc["provinces"].items() if v["fortress"]})
    buildings = {(p, b["space"], b["holder"]) for p, v in doc["provinces"].items() for b in v["buildings"]}
    drawn = {(e.get("data-province"), e.get("data-space"), e.get("data-holder")) for e in root.iter()
             if e.get("class") == "building"}
    assert count("legion", "province") == legions
    assert count("trireme", "sea") == triremes
    assert count("fortress", "province") == fortresses
    assert drawn == buildings and len(drawn) == sum(1 for e in root.iter() if e.get("class") == "building")
    controllers = {e.get("data-province"): e.get("data-controller") or None for e in root.iter(f"{SVG}path")
                   if "province" in (e.get("class") or "").split()}
    assert controllers == {p: doc["provinces"].get(p, {}).get("controller") for p in controllers}


def test_a_per_empire_picture_hides_face_down_tiles_and_others_resources(golden_db: Path) -> None:
    """Rome's picture names no face-down tile and shows the others' resources as counts only."""
    host = _svg(golden_db, "golden-6-2", "--at", "300")
    rome = _svg(golden_db, "golden-6-2", "--at", "300", "--as", "rome")
    doc = json.loads(mn(golden_db, "replay", "golden-6-2", "--to", "300", "--json").stdout)
    text = ET.tostring(rome, encoding="unicode")

    hidden = [d["tile"] for d in doc["display"] if not d["face_up"]]
    assert hidden and all(f"({t.replace('-', ' ').title()}" not in text for t in hidden)
    assert {e.get("data-empire") for e in rome.iter() if "resources" in (e.get("class") or "")} == {"rome"}
    assert len([e for e in host.iter() if "resources" in (e.get("class") or "").split()]) == 3


def test_draw_refuses_an_event_the_game_does_not_have(golden_db: Path) -> None:
    """--at beyond the log is bad input (exit 2) naming the events there are."""
    result = mn(golden_db, "draw", "golden-6-2", "--at", "9999", "-o", "-")

    assert result.exit_code == 2 and "has events 1 to 675" in result.stderr


# --- the page ------------------------------------------------------------------------------------------

def test_frames_join_back_to_each_picture() -> None:
    """The page's table of distinct lines and runs gives back every picture exactly."""
    pictures = ["a\nb\nc", "a\nb\nd\nc", "x", "a\nb\nc"]
    frames = Frames()

    for p in pictures:
        frames.add(p)

    assert [frames.picture(i) for i in range(len(pictures))] == pictures
    assert len(frames.lines) == 5


def _page_data(html: str) -> dict[str, object]:
    found = re.search(r'<script type="application/json" id="game-data">(.*?)</script>', html, re.S)
    assert found is not None
    data: dict[str, object] = json.loads(found[1])
    return data


@pytest.mark.slow
def test_the_page_is_self_contained_and_holds_every_event(golden_db: Path, tmp_path: Path) -> None:
    """One file, no network address, one frame and sentence per event; its size is a few bytes per line."""
    out = tmp_path / "g.html"

    result = mn(golden_db, "html", "golden-6-2", "-o", str(out))

    assert result.exit_code == 0, result.output
    html = out.read_text()
    data = _page_data(html)
    assert len(data["frames"]) == len(data["events"]) == 675  # type: ignore[arg-type]
    assert not re.search(r'(src|href)="(https?:)?//', html) and "@import" not in html
    assert "Verified: 675 events" in html
    assert out.stat().st_size < 1_500_000


def _play_to_offer(db: Path, offer: str, keys: Path | None = None) -> None:
    """A game stopped in the Trade phase with Rome's offer face down; with keys, the orders given
    unsigned are recorded as the host's, which must hide no less."""
    extra = ("--keys-dir", str(keys)) if keys is not None else ()
    assert mn(db, "new", *THREE, "--seed", "pages", "--id", "g", *extra).exit_code == 0
    assert mn(db, "order", "g", "--as", "carthage", "trade 1").exit_code == 0
    result = mn(db, "order", "g", "--as", "rome", offer)
    assert result.exit_code == 0, result.output


@pytest.mark.slow
@pytest.mark.parametrize("keyed", [False, True], ids=["unkeyed", "keyed"])
def test_a_per_empire_page_of_a_game_in_progress_holds_no_hidden_fact(tmp_path: Path, keyed: bool) -> None:
    """Greece's page is the same whichever tokens Rome offered face down; it holds neither the secret
    nor a face-down tile's name, and no other empire's resources."""
    pages = []
    for offer in ("offer wine", "offer metal"):
        db = tmp_path / f"{offer[6:]}.db"
        _play_to_offer(db, offer, tmp_path / f"keys-{offer[6:]}" if keyed else None)
        out = tmp_path / f"{offer[6:]}.html"
        assert mn(db, "html", "g", "--as", "greece", "-o", str(out)).exit_code == 0
        pages.append(out.read_text())
        host = json.loads(mn(db, "show", "g", "--json").stdout)
        secret = open_store(str(db)).secret("g") or ""
        face_down = [d["tile"] for d in host["display"] if not d["face_up"]]
        loaded = game.load(open_store(str(db)), "g")
        assert secret and secret not in pages[-1]
        names = [x.name for x in load_ruleset().tiles if x.id in face_down]
        assert face_down and not [n for n in names if n in pages[-1]], "a face-down tile is named"
        assert "resources-rome" not in pages[-1] and "resources-greece" in pages[-1]
        assert loaded.state.step.offers["rome"]
    # the verification line names each log's head hash, which differs as the payloads do
    assert HEX.sub("H", pages[0]) == HEX.sub("H", pages[1])
