"""writing.give, the one way a command enters a game: its outcome, and the service's answers folded forward."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from mncore.core.dice import seeded_secret
from mncore.core.errors import CommandRejected
from mncore.core.kernel_acts import SetStandingOrders
from mncore.core.protocol import NewGame
from mncore.games import by_mail, reading, writing
from mncore.rulesets.empires.seam import RULESET as EMPIRES
from mncore.store import Store, open_store


@pytest.fixture()
def store(tmp_path: Path) -> Store:
    """Rome, Greece and Carthage at the first decision: Carthage, the Trade Leader, plays a marker."""
    store = open_store(str(tmp_path / "g.db"), create=True)
    writing.create(store, EMPIRES, EMPIRES.new_game(NewGame(sides=("rome", "greece", "carthage"),
                                                         options={"display": "experienced"})),
                seeded_secret("orders"), "g")
    return store


def test_the_outcome_holds_the_rows_written_those_the_service_answered_and_the_game_after(store: Store) -> None:
    """Standing orders left (K6): the command's own batch, then the standing order the service applies
    at once, and the game after both, which is the game as the store folds it."""
    outcome = writing.give(store, "g", SetStandingOrders(side="carthage", orders=("trade 9", "trade 3")))

    assert [r.type for r in outcome.written] == ["StandingOrdersSet"]
    assert outcome.answered and {r.actor for r in outcome.answered if r.batch == r.seq} == {"standing"}
    assert outcome.rows == store.rows("g")[-len(outcome.rows):]
    assert outcome.after.head == (store.rows("g")[-1].seq, store.rows("g")[-1].hash)
    assert outcome.after.state == reading.load(store, "g").state and not outcome.opened


def test_without_answer_nothing_but_the_command_is_written(store: Store) -> None:
    outcome = writing.give(store, "g", SetStandingOrders(side="carthage", orders=("trade 3",)), answer=False)

    assert outcome.answered == [] and outcome.rows == outcome.written == store.rows("g")[-1:]


def test_the_service_answers_fold_forward_from_the_state_given_never_replaying_the_log(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """Forced answers on (K5): scripted orders given to the game's Current are answered by the service
    with no replay of the log (reading._replayed refuses), and the state each outcome carries is the
    stored log's."""
    by_mail.set_pace(store, "g", 0, {}, True)

    def replayed(*args: Any) -> Any:
        raise AssertionError("the log was replayed for an answer")

    monkeypatch.setattr(reading, "_replayed", replayed)
    rand, answered = random.Random(7), 0
    for _ in range(40):
        cur = reading.current(store, "g")
        pending = EMPIRES.pending(cur.state)
        if not pending:
            break
        side = pending[0].empire
        options = EMPIRES.options(cur.state, side)
        lines = [o.order for o in options if o.order] + [
            o.template.format(**{k: rand.choice(v) for k, v in o.parts.items()})
            for o in options if o.template and not o.template.startswith("fix")]
        for line in rand.sample(lines, len(lines)):
            try:
                outcome = writing.give(store, cur, writing.batch_command(cur, side, [line]))
            except CommandRejected:
                continue
            answered += len(outcome.answered)
            assert outcome.after.state == reading.current(store, "g").state
            break
    assert answered and any(r.actor == "forced" for r in store.rows("g"))
