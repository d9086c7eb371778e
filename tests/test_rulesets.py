"""The contract every registered ruleset keeps with the kernel, checked the same way for each."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import msgspec
import pytest

from mncore.core.dice import Rng, seeded_secret
from mncore.core.errors import CommandRejected
from mncore.core.protocol import NewGame, Option, Ruleset
from mncore.games import by_mail, lifecycle, reading, transfer, writing
from mncore.games.log_reading import fold
from mncore.rulesets import registry
from mncore.secrecy import boundary
from mncore.store import Store, open_store

# how to start each ruleset's contract game (a ruleset not listed starts from NewGame() alone)
SPECS: dict[str, NewGame] = {"empires": NewGame(sides=("rome", "greece", "carthage"), fair_play=False)}
MAX_ORDERS = 60  # a bound for games longer than a test should play


def rulesets() -> list[Ruleset]:
    return [registry.by_name(known.split(" ")[0]) for known in registry.known()]


def _lines(option: Option, rand: random.Random) -> list[str]:
    if option.order is not None:
        return [option.order]
    fillings = [option.template.format(**{k: rand.choice(v) for k, v in option.parts.items()})
                for _ in range(6)] if option.template and all(option.parts.values()) else []
    return fillings


def _accepted(ruleset: Ruleset, loaded: reading.Loaded, side: str, line: str, secret: bytes) -> Any:
    cmd = ruleset.parse_order(line, loaded.state, side)
    ruleset.decide(loaded.state, cmd, Rng(secret, loaded.head[1]))
    return cmd


def play(ruleset: Ruleset, store: Store, seed: str) -> reading.Loaded:
    """Create a game, then give orders chosen from options() until it is over or the bound."""
    secret = seeded_secret(seed)
    spec = SPECS.get(ruleset.short, NewGame(fair_play=False))
    loaded = writing.create(store, ruleset, ruleset.new_game(spec), secret, "c1")
    rand = random.Random(seed)
    for _ in range(MAX_ORDERS):
        waiting = sorted({p.empire for p in ruleset.pending(loaded.state)})
        if loaded.meta.over or not waiting:
            break
        side = rand.choice(waiting)
        options = ruleset.options(loaded.state, side)
        for o in options:
            if o.order is not None:  # a whole order line offered is always accepted
                _accepted(ruleset, loaded, side, o.order, secret)
        chosen = None
        lines = [ln for o in options for ln in _lines(o, rand)]
        rand.shuffle(lines)
        for line in lines:
            try:
                chosen = _accepted(ruleset, loaded, side, line, secret)
                break
            except CommandRejected:
                continue
        assert chosen is not None, f"{side} is awaited but none of its options is accepted"
        loaded = writing.give(store, loaded, chosen, answer=False).after
    return loaded


@pytest.fixture(params=rulesets(), ids=lambda r: r.short)
def played(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Ruleset, Store, reading.Loaded]:
    ruleset: Ruleset = request.param
    store = open_store(str(tmp_path / "c.db"), create=True)
    return ruleset, store, play(ruleset, store, f"contract-{ruleset.short}")


def test_the_toy_and_the_builtins_are_registered() -> None:
    """The contract runs over every ruleset the registry knows, the toy included."""
    assert {r.short for r in rulesets()} >= {"empires", "toy"}


def test_options_are_accepted_and_the_game_ends_or_reaches_the_bound(
        played: tuple[Ruleset, Store, reading.Loaded]) -> None:
    """Scripted play from options() goes on to a win (the toy) or the bound, every option accepted."""
    ruleset, _, loaded = played

    assert loaded.meta.over or len({r.batch for r in loaded.rows}) > MAX_ORDERS // 2
    if ruleset.short == "toy":
        assert loaded.meta.over and loaded.meta.result


def test_the_log_replays_to_the_same_state_after_a_json_round_trip(
        played: tuple[Ruleset, Store, reading.Loaded]) -> None:
    """Encoding every event and decoding it again folds into the very same state."""
    ruleset, _, loaded = played

    events = [ruleset.decode_event(ruleset.encode_event(e)) for e in loaded.events]
    again = ruleset.named(fold(ruleset, events), loaded.game_id)

    assert msgspec.to_builtins(again) == msgspec.to_builtins(loaded.state)
    assert ruleset.view(boundary.as_host(again)) == ruleset.view(boundary.as_host(loaded.state))


def test_verify_passes_and_recomputes_every_draw_once_revealed(
        played: tuple[Ruleset, Store, reading.Loaded]) -> None:
    """The log verifies; after the reveal every command is decided again, draws included."""
    _, store, loaded = played

    lifecycle.reveal(store, loaded.game_id, force=True)
    report = lifecycle.verify_game(store, loaded.game_id)

    assert report.ok, report.reason
    assert report.secret_revealed and report.random_unchecked == 0
    assert report.commands_checked == len({r.batch for r in store.rows(loaded.game_id)})


def test_export_then_import_is_byte_identical(played: tuple[Ruleset, Store, reading.Loaded],
                                              tmp_path: Path) -> None:
    """A game exported, imported into another database and exported again gives the same bytes."""
    _, _, loaded = played
    data = b"".join(line + b"\n" for line in transfer.export_lines(loaded))

    header, rows = transfer.check_import(data, "c1.jsonl")
    other = transfer.import_game(open_store(str(tmp_path / "other.db"), create=True), header, rows)

    assert b"".join(line + b"\n" for line in transfer.export_lines(other)) == data
    assert transfer.verify_export(data, "c1.jsonl").ok


def test_an_undo_of_every_later_batch_goes_back_to_the_state_before_them(
        played: tuple[Ruleset, Store, reading.Loaded]) -> None:
    """Every ruleset carries the kernel's play-by-email events: the host's correction of the second
    half of the contract game folds to the state the first half folded to, and verifies."""
    ruleset, store, loaded = played
    starts = [r.seq for r in loaded.rows if r.batch == r.seq and r.seq > 2 and r.actor != "host"]
    middle = starts[len(starts) // 2]
    before = reading.load(store, "c1", middle - 1).state

    by_mail.correct(store, "c1", middle, "the contract's test")

    assert reading.current(store, "c1").state == before
    assert reading.load(store, "c1").state == before
    assert lifecycle.verify_game(store, "c1").ok
