"""The leak search for the classic game: no output made for one civilisation holds another's face-down
offer or the Director's card to another (3.2.2, 3.2.6), plainly or as a hash of a candidate."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from mncore.core import chain
from mncore.core.chain import GENESIS_HASH
from mncore.core.dice import seeded_secret
from mncore.games import writing
from mncore.rulesets.classic.players.autoplay import play_stored
from mncore.rulesets.classic.players.demo import STYLES, demo_command
from mncore.rulesets.classic.seam import RULESET
from mncore.secrecy import boundary
from mncore.store import Row, open_store
from test_leaks import HEX, _candidate_hashes, _truncated_copy, mn, own_order

TIME = re.compile(r"\d{4}-\d\d-\d\dT[0-9:.]+\+00:00")


def _played(tmp: Path, players: int, orders: int, seed: str) -> tuple[Path, str, tuple[str, ...]]:
    db = tmp / f"g{players}.db"
    cmd = demo_command(players)
    store = open_store(str(db), create=True)
    secret = seeded_secret(seed)
    loaded = writing.create(store, RULESET, cmd, secret, "g")
    play_stored(store, loaded, secret, random.Random(seed), orders, dict(zip(cmd.civs, STYLES)))
    return db, "g", cmd.civs


def _hidden_from(db: Path, gid: str, viewer: str, mine: bool = False) -> list[tuple[Row, str, Any]]:
    """(row, field, plain value) of every hidden field viewer may not see (with mine: may see)."""
    out = []
    for r in open_store(str(db)).rows(gid):
        for h in boundary.row_hidden(RULESET, r):
            if (viewer in h.visible_to) == mine:
                root, parts = chain.split_field(h.field)
                text = r.payload if root == chain.PAYLOAD else r.command
                out.append((r, h.field, chain.get_path(json.loads(text or "null"), parts)))
    return out


def _outputs(db: Path, gid: str, viewer: str, tmp: Path) -> dict[str, str]:
    last = len(open_store(str(db)).rows(gid))
    bundle = tmp / f"{viewer}.bundle"
    out = {
        "log": mn(db, "log", gid, "--as", viewer), "log --json": mn(db, "log", gid, "--as", viewer, "--json"),
        "export": mn(db, "export", gid, "--as", viewer), "show": mn(db, "show", gid, "--as", viewer, "--json"),
        "position": mn(db, "position", gid, "--as", viewer),
        "replay": mn(db, "replay", gid, "--to", str(max(1, last - 2)), "--as", viewer, "--json"),
        "check": mn(db, "check", gid, "--as", viewer, "done", "--json"),
        "check own": mn(db, "check", gid, "--as", viewer, *own_order(db, gid, viewer), "--json"),
        "draw": mn(db, "draw", gid, "--as", viewer, "-o", "-"),
    }
    for seq in range(max(1, last - 6), last + 1):
        out[f"explain {seq}"] = mn(db, "explain", gid, str(seq), "--as", viewer, "--json")
    mn(db, "dispute", gid, "--at", str(last), "-o", str(bundle), "--as", viewer)
    out["dispute"] = bundle.read_text()
    return out


def _snippet(field: str, value: Any) -> str:
    """How a face-down offer would read in a JSON output ("cards":["oil","tax"]); a single card's
    name is public elsewhere (cards taken), so the hashes and the twins cover the Director's card."""
    key = field.rsplit("/", 1)[-1]
    return f'"{key}":{json.dumps(value, separators=(",", ":"))}' if key == "cards" else ""


def _assert_no_leak(db: Path, gid: str, viewer: str, outputs: dict[str, str]) -> None:
    rows = open_store(str(db)).rows(gid)
    own = {_snippet(f, v) for _, f, v in _hidden_from(db, gid, viewer, mine=True)}
    for name, text in outputs.items():
        shown = set(HEX.findall(text))
        for row, field, value in _hidden_from(db, gid, viewer):
            previous = [GENESIS_HASH] + [r.hash for r in rows[max(0, row.seq - 2):row.seq - 1]]
            hit = _candidate_hashes(row, field, value, previous) & shown
            assert not hit, f"{name} for {viewer}: a hash of event {row.seq}'s {field} is in it"
            snippet = _snippet(field, value)
            assert not snippet or snippet in own or snippet not in text.replace(" ", ""), (name, row.seq)


@pytest.mark.parametrize(("players", "seed"), [(3, "leak-3"), (4, "leak-4"), (6, "leak-6")])
def test_no_output_made_for_a_civilisation_holds_anothers_hidden_cards(tmp_path: Path, players: int,
                                                                        seed: str) -> None:
    """Scripted games stopped while offers lie face down and after the Director's card: every output
    made for each civilisation holds no other's hidden card, plainly or hashed."""
    db, gid, civs = _played(tmp_path, players, 60, seed)
    rows = open_store(str(db)).rows(gid)
    stops = sorted({r.seq for r in rows if r.type in ("CardsOffered", "CardGiven")})
    assert stops, "the scripted game reached no face-down offer"
    for stop in [stops[0], stops[len(stops) // 2], stops[-1]]:
        at = tmp_path / f"at{stop}.db"
        _truncated_copy(db, gid, stop, at)
        for viewer in civs:
            _assert_no_leak(at, gid, viewer, _outputs(at, gid, viewer, tmp_path))


def _twin(tmp: Path, name: str, rome_offers: str) -> Path:
    db = tmp / f"{name}.db"
    for args in (("new", "--ruleset", "classic", "--empire", "rome", "--empire", "greece", "--empire",
                  "carthage", "--seed", "twin", "--id", "t"),
                 ("order", "t", "--as", "carthage", "ask 2"), ("order", "t", "--as", "rome", rome_offers)):
        mn(db, *args)
    return db


def test_two_games_differing_only_in_a_face_down_offer_read_alike_to_the_others(tmp_path: Path) -> None:
    """Rome offers tax wine in one game, oil wine in its twin: Greece's and Carthage's outputs are the
    same but for hashes and clock times (3.2.2: the cards are face down until every trader offered)."""
    a, b = _twin(tmp_path, "a", "offer tax wine"), _twin(tmp_path, "b", "offer oil wine")

    for viewer in ("greece", "carthage"):
        left, right = _outputs(a, "t", viewer, tmp_path), _outputs(b, "t", viewer, tmp_path)
        for name in left:
            if name != "dispute":  # a bundle's digest covers its hashes
                norm_l = TIME.sub("T", HEX.sub("H", left[name]))
                norm_r = TIME.sub("T", HEX.sub("H", right[name]))
                assert norm_l == norm_r, (viewer, name)
    assert "tax" in mn(a, "show", "t", "--as", "rome", "--json") and mn(a, "log", "t", "--as", "rome") != \
        mn(b, "log", "t", "--as", "rome")
