"""The kernel's own state (mncore/core/kernel_state.py): beside every ruleset's, never in it; the same folded
whole or batch by batch."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner, Result

from mncli.cli import main
from mncore.core.kernel_state import KernelState, Ledger, PlayByEmail, queue
from mncore.games import reading
from mncore.pbem import trust
from mncore.rulesets import registry
from mncore.store import open_store
from toy import model as tm

IDS = [r.id for r in (*registry.builtin(), registry.get(tm.RULESET_ID))]
# what the kernel folds, by the names it folds them under (the ledger's own by those that name signing:
# its `acted` and `draws` are words a game may use for its own, as the toy's `acted` does)
KERNEL_FIELDS = ({f.name for t in (KernelState, PlayByEmail) for f in msgspec.structs.fields(t)}
                 | {"keys", "nonces", "signed_only", "published"})
assert KERNEL_FIELDS < {f.name for t in (KernelState, Ledger, PlayByEmail) for f in msgspec.structs.fields(t)}


@pytest.mark.parametrize("rid", IDS)
def test_no_ruleset_state_has_a_kernel_field(rid: str) -> None:
    """No field of a ruleset's state is one the kernel folds: the secret, keys, pace, undos, orders."""
    state = registry.get(rid).initial("c" * 64)
    fields = {f.name for f in msgspec.structs.fields(type(state))}
    assert "secret" in KERNEL_FIELDS and sorted(fields & KERNEL_FIELDS) == []


def _mn(db: Path, *args: str) -> Result:
    result = CliRunner().invoke(main, ["--db", str(db), *args])
    assert result.exit_code == 0, result.output
    return result


def _signed(db: Path, keys: Path, side: str, *lines: str) -> None:
    at = json.loads(_mn(db, "status", "g", "--json").stdout)["head"]
    block = keys.parent / f"{side}-{at['seq']}.txt"
    _mn(db, "sign", "--key", str(keys / f"g-{side}.key"), "--game", "g", "--seq", str(at["seq"]),
        "--head", at["hash"], "--nonce", hashlib.sha256(f"{side}{at['seq']}".encode()).hexdigest()[:32],
        "-o", str(block), *lines)
    _mn(db, "order", "g", "--signed", str(block))


def test_the_kernel_state_after_a_replay_equals_the_one_folded_batch_by_batch(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A snapshot after every batch holds the kernel's state as each command folded it forward from the
    one before (writing.give); read back at the head it equals the whole log's replay (reading.load), over
    keys, a pace, standing and queued orders, an undo with its consents and the secret's reveal."""
    monkeypatch.setenv("MN_SNAPSHOT_EVERY", "1")
    db, keys = tmp_path / "mn.db", tmp_path / "keys"
    three = ["--empire", "rome", "--empire", "greece", "--empire", "carthage"]
    steps: list[Callable[[], object]] = [
        lambda: _mn(db, "new", *three, "--seed", "k", "--id", "g", "--keys-dir", str(keys)),
        lambda: _mn(db, "deadline", "g", "--hours", "48", "--phase", "build=72", "--forced"),
        lambda: _mn(db, "standing", "g", "--as", "greece", "offer coin coin coin"),
        lambda: _signed(db, keys, "carthage", "trade 3", "offer coin gold gold",
                        "queue claim coin from rome", "queue claim gold from greece"),
        lambda: _mn(db, "order", "g", "--as", "rome", "offer coin grain grain"),
        lambda: _mn(db, "undo", "g", "--as", "carthage"),  # its queued claim, alone (K1)
        lambda: _mn(db, "undo", "g", "--as", "rome"),  # after the offers were revealed: a request (K2)
        lambda: _mn(db, "consent", "g", "--as", "carthage", "--batch", "15"),
        lambda: _mn(db, "consent", "g", "--as", "greece", "--batch", "15"),
        lambda: _mn(db, "reveal", "g", "--force"),
    ]
    seen: list[KernelState] = []
    for n, step in enumerate(steps):
        step()
        store = open_store(str(db))
        cur = reading.current(store, "g")
        replayed = reading.load(store, "g")
        # read back from the snapshot the command wrote (mn new writes none: it appends nothing)
        assert cur.snapshot_seq == (cur.head[0] if n else 0)
        reading.read_nonces(store, cur)  # kept apart in the snapshot, read only when asked for
        assert cur.kernel == replayed.kernel == trust.kernel_of(replayed.ruleset, replayed.rows)
        seen.append(cur.kernel)

    last = seen[-1]
    assert last.ledger.published and set(last.ledger.keys) == {"rome", "greece", "carthage"}
    assert last.email.pace.hours == 48 and last.email.pace.forced
    assert last.email.standing == {"greece": ("offer coin coin coin",)}
    assert seen[3].email.queues["carthage"][0].orders == ("claim coin from rome", "claim gold from greece")
    assert queue(seen[3].email, "carthage", 1) == ("claim coin from rome", "claim gold from greece")
    assert last.email.undone == ((17, 17), (15, 21)) and not seen[4].email.undone
    assert {s for _, s in last.email.consents[15]} == {"rome", "carthage", "greece"}
    # Rome's offer taken back with the claims after it: Carthage's queue waits whole again (K9)
    assert queue(seen[4].email, "carthage", 1) == ("claim gold from greece",)
    assert queue(last.email, "carthage", 1) == ("claim coin from rome", "claim gold from greece")
    assert last.secret is not None and reading.load(store, "g").meta.secret == last.secret
    assert all(k.secret is None for k in seen[:-1])

    # the kernel's state, not the game's, knows the secret is out: a second reveal is refused, nothing written
    again = CliRunner().invoke(main, ["--db", str(db), "reveal", "g", "--force"])
    assert again.exit_code == 1 and "the secret was already revealed" in again.stderr
    assert reading.load(open_store(str(db)), "g").head == replayed.head


def test_a_kernel_fold_is_kernel_step_row_by_row_and_leaves_the_state_it_began_from(tmp_path: Path) -> None:
    """trust.KernelFold (game.current's fold after a snapshot) copies the ledger once and advances it in place:
    over the recorded game by mail (keys, signed blocks, undos, a correction, a reveal) it gives kernel_step's
    state after every row, and the state it began from, held by its caller, is left as it was."""
    db = tmp_path / "mn.db"
    _mn(db, "import", str(Path(__file__).resolve().parent.parent / "fixtures" / "pbem-4.jsonl"))
    store = open_store(str(db))
    loaded = reading.load(store, store.games()[0].id)
    rows, ruleset = loaded.rows, loaded.ruleset
    start = len(rows) // 3
    began = trust.kernel_of(ruleset, rows[:start])
    before = msgspec.json.encode(began)
    fold, stepped = trust.KernelFold(began), began
    batches = sum(r.batch == r.seq for r in rows[:start])
    for r in rows[start:]:
        batches += r.batch == r.seq
        fold.step(ruleset, r, batches)
        stepped = trust.kernel_step(stepped, ruleset, r, batches)
        assert fold.kernel == stepped
    assert msgspec.json.encode(began) == before and fold.kernel.ledger.nonces and fold.kernel == loaded.kernel
