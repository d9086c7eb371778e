"""Board geometry, the SVG picture (mn draw) and the game page (mn html), without a browser."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections import Counter
from importlib import resources
from pathlib import Path
from typing import Any

import msgspec
import pytest
from click.testing import CliRunner, Result

from golden import fixture
from mncli.cli import main
from mncore.games import reading
from mncore.pictures.pages import Frames
from mncore.rulesets.empires.board import board_digest, layout_of, load_board, reference_layout
from mncore.rulesets.empires.boardcheck import validate_layout
from mncore.rulesets.empires.game_data import load_ruleset
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
        loaded = reading.load(open_store(str(db)), "g")
        assert secret and secret not in pages[-1]
        names = [x.name for x in load_ruleset().tiles if x.id in face_down]
        assert face_down and not [n for n in names if n in pages[-1]], "a face-down tile is named"
        assert "resources-rome" not in pages[-1] and "resources-greece" in pages[-1]
        assert loaded.state.step.offers["rome"]
    # the verification line names each log's head hash, which differs as the payloads do
    assert HEX.sub("H", pages[0]) == HEX.sub("H", pages[1])


# --- the real coastline: places where their namesakes lie ----------------------------------------------

# Where the drawn neighbourhood cannot be the board's: (a, b) the board links that no drawing keeps,
# and the neighbours a drawing makes that the board does not link. Each has its reason (docs/board.md).
NOT_DRAWN = {("cilicia", "judea")}  # Syria's coast lies between them, and Syria borders both
DRAWN_ONLY = {("asia", "thracia"),  # the Bosporus and the Dardanelles are narrower than a pixel
              ("arabia", "mesopotamia"), ("cappadocia", "syria")}  # four provinces meet in a point


def _areas(setup: str | None = None) -> Any:
    from mncore.rulesets.empires import board_svg
    from mncore.rulesets.empires.atlas import board_for
    board = board_for(setup, load_board()) if setup else load_board()
    return board, board_svg._areas(board)


def test_the_coastline_is_natural_earth_with_its_source_and_licence_beside_it() -> None:
    """The land is package data with its notice; Italy, Sicily, Crete and Cyprus are among its polygons."""
    from mncore.pictures import coast
    notice = resources.files("mncore.data").joinpath("coast.md").read_text()
    size = len(resources.files("mncore.data").joinpath("coast.json").read_bytes())
    land = [list(map(list, polygon)) for polygon in coast.land_lonlat()]

    assert "Natural Earth" in notice and "public domain" in notice and "world-atlas 2.0.2" in notice
    assert size < 40_000
    for lon, lat in [(12.5, 41.9), (14.0, 37.5), (24.9, 35.25), (33.0, 35.0), (16.6, 40.8)]:
        assert coast.inside((lon, lat), land), (lon, lat)
    for lon, lat in [(12.0, 40.0), (18.0, 36.0), (34.0, 43.0), (50.5, 41.0)]:  # seas and the Caspian
        assert not coast.inside((lon, lat), land), (lon, lat)


@pytest.mark.parametrize("setup", [None, "atlantis", "2003"])
def test_every_place_has_its_region_holding_its_site_and_its_name(setup: str | None) -> None:
    """Each province is a share of the land holding its site, each sea a share of the water; each name
    lies inside its region, its letters' box (turned with it) sampled every 3 pixels along its edges,
    at 8 pixels or more (6 on the 2003 board's narrower picture); no two names' boxes meet (turned
    boxes)."""
    if setup == "2003":
        from mncore.rulesets.classic.board_svg import _areas as classic_areas
        from mncore.rulesets.classic.board_svg import point
        from mncore.rulesets.classic.components import load_board as classic_board
        board, areas, smallest = classic_board(), classic_areas(classic_board()), 6.0
        names = {p.id: p.name for p in board.province} | {s.id: s.name for s in board.sea}
        sites = {pid: point(pid) or (-1.0, -1.0) for pid in names}
    else:
        board, areas = _areas(setup)
        names, smallest = {p.id: p.name for p in (*board.provinces, *board.seas)}, 8.0
        sites = {pid: areas.layout.places[pid].at for pid in names}

    for pid in names:
        assert areas.regions[pid] and areas.inside(pid, sites[pid]), pid
        label = areas.labels[pid]
        assert label.size >= smallest, pid
        outside = [q for q in _rim(label, names[pid]) if not areas.inside(pid, q)]
        assert outside == [], pid
    assert _meeting({pid: _quad(lb, names[pid]) for pid, lb in areas.labels.items()}) == []


def _quad(label: Any, text: str, box: Any = None) -> Any:
    """A name's box (its letters' box, or text_box's), turned as it is drawn."""
    from mncore.pictures import labels
    make = box or labels.text_box
    return labels.turned(make(label.x, label.y, text, label.size), (label.x, label.y), label.angle)


def _rim(label: Any, text: str) -> list[tuple[float, float]]:
    from mncore.pictures import labels
    return list(labels.rim(_quad(label, text, labels.ink_box)))


def _meeting(quads: dict[str, Any]) -> list[tuple[str, str]]:
    from mncore.pictures import labels
    items = sorted(quads.items())
    return [(a, b) for i, (a, qa) in enumerate(items) for b, qb in items[i + 1:] if labels.meet(qa, qb)]


def _drawn_neighbours(areas: Any, step: int = 4) -> set[tuple[str, str]]:
    """Pairs of places whose regions meet along at least three sample steps of the canvas."""
    def who(p: tuple[float, float]) -> str:
        for pid in areas.provinces:
            if areas.inside(pid, p):
                return str(pid)
        if p in areas._land:
            return ""
        return next((sid for sid in areas.seas if areas.inside(sid, p)), "")

    grid = {(x, y): who((x + 0.5, y + 0.5)) for x in range(0, int(areas.layout.width), step)
            for y in range(0, int(areas.layout.height), step)}
    meets: Counter[tuple[str, str]] = Counter()
    for (x, y), a in grid.items():
        for b in (grid.get((x + step, y)), grid.get((x, y + step))):
            if a and b and a != b:
                meets[(min(a, b), max(a, b))] += 1
    return {pair for pair, n in meets.items() if n >= 3}


@pytest.mark.slow
def test_the_drawn_regions_neighbour_as_the_board_links_them() -> None:
    """Every border and coast of the reference board is drawn, and no other, but for the named few."""
    board, areas = _areas()
    links = {(min(a, b), max(a, b)) for p in board.provinces for b in (*p.borders, *p.seas) for a in [p.id]}
    links |= {(min(s.id, b), max(s.id, b)) for s in board.seas for b in s.borders}

    drawn = _drawn_neighbours(areas)

    assert links - drawn == NOT_DRAWN
    assert drawn - links == DRAWN_ONLY


def _geography_board(tmp_path: Path, edit: tuple[str, str] | None = None) -> Path:
    """The reference board with the shipped geography (its Atlantis places left out) as its [layout]."""
    text = resources.files("mncore.rulesets.empires.data").joinpath("board.toml").read_text()
    geo = resources.files("mncore.rulesets.empires.data").joinpath("geography.toml").read_text()
    atlantis = ("fretum-gaditanum", "oceanus-atlanticus", "gadeira", "hesperides", "mestoria",
                "insulae-fortunatae", "places.atlantis")
    body = [ln for ln in geo.splitlines() if ln and not ln.startswith("#") and not any(a in ln for a in atlantis)]
    table = "\n[layout]\n" + "\n".join(body) + "\n"
    if edit:
        table = table.replace(*edit)
    path = tmp_path / "board.toml"
    path.write_text(text + table)
    return path


def test_a_board_file_on_the_real_coast_is_checked_and_drawn(tmp_path: Path) -> None:
    """A [layout] with a projection: map check accepts it, and the board is drawn on the coastline."""
    from mncore.rulesets.empires.board_svg import _areas as areas_of
    path = _geography_board(tmp_path)

    result = mn(tmp_path / "x.db", "map", "check", str(path))
    board = load_board(str(path))

    assert result.exit_code == 0, result.output
    assert not isinstance(board.layout, msgspec.UnsetType) and board.layout.projection is not None
    assert areas_of(board).land


def test_map_check_names_a_province_site_in_the_sea_and_a_sea_site_on_land(tmp_path: Path) -> None:
    """On the real coast, a province's site must be on land and a sea's in the water."""
    path = _geography_board(tmp_path, ("places.latium = { at = [12.9, 42.2] }", "places.latium = { at = [11.0, 41.0] }"))
    text = path.read_text().replace("places.mare-tyrrhenum = { at = [11.8, 40.3] }",
                                    "places.mare-tyrrhenum = { at = [14.0, 41.5] }")
    path.write_text(text)

    result = mn(tmp_path / "x.db", "map", "check", str(path))

    assert result.exit_code == 2
    assert "layout.places.latium.at: [11.0, 41.0] is in the sea, not on the province's land" in result.stderr
    assert "layout.places.mare-tyrrhenum.at: [14.0, 41.5] is on land, not in the sea" in result.stderr


@pytest.mark.parametrize("at", [1, 200, 675])
def test_no_two_names_overlap_and_the_legend_is_drawn(golden_db: Path, at: int) -> None:
    """Computed from the SVG: the names' boxes (font size x characters, turned by their transform)
    meet no other name's; no line leads to a name."""
    root = _svg(golden_db, "golden-6-2", "--at", str(at))

    boxes = label_boxes(root)

    assert len(boxes) == 39
    assert _meeting(boxes) == []
    assert not [e for e in root.iter() if "leader" in (e.get("class") or "").split()]
    legend = next(e for e in root.iter() if e.get("id") == "legend")
    assert "caravan space" in "".join(legend.itertext()) and "Rome" in "".join(legend.itertext())


ROTATE = re.compile(r"rotate\(([-\d.]+) ([-\d.]+) ([-\d.]+)\)")


def label_boxes(root: ET.Element) -> dict[str, Any]:
    """Each name's box from its element: about 0.62 em a character, from 0.8 em above the baseline,
    turned about its baseline centre by its transform's rotate(angle x y)."""
    from mncore.pictures.labels import Label
    out = {}
    for e in root.iter(f"{SVG}text"):
        if "label" in (e.get("class") or "").split():
            turn = ROTATE.fullmatch(e.get("transform", "rotate(0 0 0)"))
            assert turn is not None, e.get("transform")
            label = Label(float(e.get("x", "0")), float(e.get("y", "0")), float(e.get("font-size", "11")),
                          float(turn.group(1)))
            out[e.get("data-place", "")] = _quad(label, e.text or "")
    return out


# --- what changed ----------------------------------------------------------------------------------------

def test_draw_since_marks_moves_battles_builds_conquests_and_losses(golden_db: Path) -> None:
    """Between events 380 and 420 of the golden game: each move an arrow from its province to the next,
    each battle, build, control taken and unit lost a mark where it happened, as the log tells them."""
    root = _svg(golden_db, "golden-6-2", "--at", "420", "--since", "380")
    log = json.loads(mn(golden_db, "log", "golden-6-2", "--from", "381", "--to", "420", "--json").stdout)

    def marks(cls: str) -> list[ET.Element]:
        return [e for e in root.iter() if e.get("class") == cls]

    events = [e["event"] for e in log]
    moved = {(e["empire"], e["from_province"], e["to_province"]) for e in events if e["type"] == "LegionsMoved"}
    moved |= {(e["empire"], e["from_sea"], e["to_sea"]) for e in events if e["type"] == "TriremesMoved"}
    assert {(m.get("data-empire"), m.get("data-from"), m.get("data-to")) for m in marks("move")} == moved
    assert {m.get("data-place") for m in marks("battle")} == {e["place"] for e in events if e["type"] == "BattleFought"}
    built = [e for e in events if e["type"] in ("UnitBuilt", "BuildingBuilt")]
    assert len(marks("build")) == len(built) and built
    assert len(marks("conquest")) == sum(1 for e in events if e["type"] == "ControlBuilt"
                                         or e["type"] == "ControlConverted" and e.get("replaced", True))
    lost = [e for e in events if e["type"] == "UnitsLost"]
    assert len(marks("loss")) == sum(bool(e.get("legions")) + bool(e.get("triremes")) + bool(e.get("fortress"))
                                     for e in lost) + sum(1 for e in events if e["type"] == "Pillaged")
    summary = next(e for e in root.iter() if e.get("class") == "small changed-summary")
    assert summary.text is not None and summary.text.startswith("Marked: what the last 40 events did: ")


def test_draw_since_refuses_an_event_not_before_at(golden_db: Path) -> None:
    result = mn(golden_db, "draw", "golden-6-2", "--at", "10", "--since", "10", "-o", "-")

    assert result.exit_code == 2 and "--since 10: must be an event before 10 (0 for the start)" in result.stderr


@pytest.mark.slow
@pytest.mark.parametrize("keyed", [False, True], ids=["unkeyed", "keyed"])
def test_a_picture_for_one_side_is_the_same_whatever_it_may_not_see(tmp_path: Path, keyed: bool) -> None:
    """Twin games differing in a face-down offer only: Greece's pictures (the board now, and marked with
    what changed since the start) are byte-identical; Rome's, which sees its own offer, are not."""
    pictures: dict[str, list[str]] = {"greece": [], "rome": []}
    for offer in ("offer wine", "offer metal"):
        db = tmp_path / f"{offer[6:]}.db"
        _play_to_offer(db, offer, tmp_path / f"keys-{offer[6:]}" if keyed else None)
        for side in pictures:
            for since in ([], ["--since", "1"]):
                result = mn(db, "draw", "g", "--as", side, *since, "-o", "-")
                assert result.exit_code == 0, result.output
                pictures[side].append(result.stdout)

    assert pictures["greece"][:2] == pictures["greece"][2:]
    assert pictures["rome"][:2] != pictures["rome"][2:]


@pytest.mark.slow
def test_the_kept_names_are_what_the_search_finds_today() -> None:
    """Each ruleset's data/labels.json holds, for every shipped board and nothing else, the names and
    marks a fresh search gives today (after a change: python -m mncore.rulesets.empires.board_svg, and
    python -m mncore.rulesets.classic.board_svg)."""
    from mncore.pictures import kept_labels
    from mncore.rulesets.classic import board_svg as classic_svg
    from mncore.rulesets.classic.components import load_board as classic_board
    from mncore.rulesets.empires import board_svg

    assert kept_labels._read(board_svg.LABELS_FILE) == board_svg.shipped_names()
    fresh = classic_svg._Areas(classic_board(), fresh=True)
    assert kept_labels._read(classic_svg.LABELS_FILE) == {fresh.labels_key(): fresh.kept()}


def test_every_shipped_board_draws_its_kept_names_and_a_changed_board_is_searched(monkeypatch: Any) -> None:
    """No search for a set-up's board or the 2003 board; a board whose one name changed finds no kept
    entry and is searched (as any user's board file)."""
    from mncore.rulesets.classic import board_svg as classic_svg
    from mncore.rulesets.classic.components import load_board as classic_board
    from mncore.rulesets.empires import atlas, board_svg

    searched: list[str] = []

    def search(ruleset: str) -> Any:
        def labels(self: Any, names: Any) -> dict[str, Any]:
            searched.append(ruleset)
            return {}
        return labels

    monkeypatch.setattr(board_svg._Areas, "_labels", search("empires"))
    monkeypatch.setattr(classic_svg._Areas, "_labels", search("2003"))
    drawn: list[Any] = [board_svg._Areas(atlas.board_for(name, load_board())) for name in atlas.names()]
    drawn.append(classic_svg._Areas(classic_board()))
    assert searched == []
    assert all(len(areas.labels) >= 39 for areas in drawn)

    board = load_board()
    renamed = msgspec.structs.replace(
        board, provinces=(msgspec.structs.replace(board.provinces[0], name="Galliae"), *board.provinces[1:]))
    board_svg._Areas(renamed)
    assert searched == ["empires"]


def test_the_2003_board_is_drawn_on_the_real_coast_with_islets_as_discs() -> None:
    """The classic board: every province an area (its share of the land, or a disc for an islet the map
    is too coarse for or too small for its name) holding its place, and a name each (where the names
    go: test_every_place_has_its_region_holding_its_site_and_its_name)."""
    from mncore.rulesets.classic.board_svg import _areas as classic_areas
    from mncore.rulesets.classic.board_svg import point
    from mncore.rulesets.classic.components import load_board as classic_board
    board = classic_board()
    areas = classic_areas(board)

    places = [p.id for p in board.province] + [s.id for s in board.sea]
    assert all(areas.regions[pid] and areas.inside(pid, point(pid) or (-1.0, -1.0)) for pid in places)
    assert areas.discs == {"atlantis", "rhodus"}  # Plato's island, and Rhodes too small for its name
    assert sorted(areas.labels) == sorted(places)


def test_turned_boxes_meet_only_where_they_overlap() -> None:
    """Two thin boxes crossed as an X meet; the same boxes side by side, turned 45 degrees, do not,
    though their upright bounds do; boxes that only touch do not meet."""
    from mncore.pictures import labels
    bar = (-20.0, -2.0, 20.0, 2.0)

    crossed = labels.meet(labels.turned(bar, (0, 0), 45), labels.turned(bar, (0, 0), -45))
    apart = labels.meet(labels.turned(bar, (0, 0), 45), labels.turned((-20.0, 4.0, 20.0, 8.0), (0, 0), 45))
    touching = labels.meet(labels.square(bar), labels.square((20.0, -2.0, 30.0, 2.0)))

    assert crossed and not apart and not touching
    assert labels.bounds(labels.turned(bar, (0, 0), 45))[0] < labels.bounds(
        labels.turned((-20.0, 4.0, 20.0, 8.0), (0, 0), 45))[2]  # their upright bounds overlap


def test_a_shape_answers_every_point_as_the_exact_test_does() -> None:
    """coast.Shape's cells answer a grid of points over Italy, Sicily and the Adriatic exactly as the
    even-odd test over every edge does."""
    from mncore.pictures import coast
    _, areas = _areas()
    land = areas.land
    shape = coast.Shape(land)
    points = [(x + 0.37, y + 0.61) for x in range(600, 900, 3) for y in range(100, 420, 3)]

    assert [p in shape for p in points] == [coast.inside(p, land) for p in points]
    assert any(p in shape for p in points) and not all(p in shape for p in points)
