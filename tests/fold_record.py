"""Records what tests/test_fold_same.py holds the fold to: the state after every event, as digests.

python tests/fold_record.py   (run from the checkout: it rewrites tests/folds/)

For each golden game (fixtures/*.jsonl) the digest of the state's msgpack encoding (which keeps each
dict's order, so a view or `mn show` listing it is held too) after every event; for a few games the
scripted players draw (tests/folds/random-*.jsonl.gz), their events as well, so that a later change to
the rules or the players cannot change what the fold is held to. Recorded on main before the fold's
pass (issue 27); a change that means to change a state produced records them again.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mncore.games import transfer  # noqa: E402
from mncore.games.log_reading import decode_rows  # noqa: E402
from mncore.pbem import turns  # noqa: E402
from mncore.rulesets.empires.players.autoplay import choose  # noqa: E402
from mncore.rulesets.empires.seam import RULESET  # noqa: E402
from mncore.rulesets.empires.state import GameState  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
FOLDS = ROOT / "tests" / "folds"
FIXTURES = sorted(p for p in (ROOT / "fixtures").glob("*.jsonl") if not p.name.startswith("classic"))
# (seed, players, style): three, four and five empires, each style of the scripted players
RANDOM_GAMES = [(11, 3, "random"), (22, 4, "builder"), (33, 5, "general"), (44, 5, "random")]
ORDERS = 1500  # orders of each random game at most


def digest(state: GameState) -> str:
    """A short digest of the state's encoding (msgpack keeps every dict's order)."""
    return hashlib.blake2b(RULESET.encode_state(state), digest_size=8).hexdigest()


def digests(events: Iterable[Any], state: GameState | None = None) -> list[str]:
    """The digest of the state after each event, folded with the ruleset's evolve from state."""
    state = RULESET.initial("") if state is None else state
    out = []
    for e in events:
        state = RULESET.evolve(state, e)
        out.append(digest(state))
    return out


def golden_events(path: Path) -> list[Any]:
    """The events a golden game's log folds (those an undo took back left out), as mn replays them."""
    _, rows = transfer.parse_export(path.read_bytes(), path.name)
    _, events = decode_rows(rows, path.name)
    return [e for _, e in turns.live(rows, events)]


def random_events(seed: int, players: int, style: str) -> list[Any]:
    """The events of a game the scripted players draw (at most ORDERS orders)."""
    from support import FIVE, FOUR, THREE, new_game
    play = new_game({3: THREE, 4: FOUR, 5: FIVE}[players], seed=str(seed))
    state, rand = play.state, random.Random(seed)
    for _ in range(ORDERS):
        choice = choose(state, rand, play.rng(), style=style)
        if choice is None:
            break
        play.given(*choice.events)
        state = play.state
        if state.winner is not None:
            break
    return list(play.events)


def main() -> None:
    FOLDS.mkdir(exist_ok=True)
    golden = {p.name: digests(golden_events(p)) for p in FIXTURES}
    (FOLDS / "golden.json").write_text(json.dumps(golden, indent=0, sort_keys=True) + "\n")
    for seed, players, style in RANDOM_GAMES:
        events = random_events(seed, players, style)
        lines = [json.dumps({"event": RULESET.encode_event(e).decode(), "after": d})
                 for e, d in zip(events, digests(events), strict=True)]
        name = FOLDS / f"random-{seed}-{players}-{style}.jsonl.gz"
        name.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode(), mtime=0))


if __name__ == "__main__":
    main()
