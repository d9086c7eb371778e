"""Player keys and signed orders (docs/security.md): mn new --keys-dir, mn sign, mn order --signed,
the refusals, dice keyed by the signature, and verify re-checking every signature and actor."""

from __future__ import annotations

import hashlib
import json
import os
import random
import stat
from pathlib import Path
from typing import Any

import msgspec
import pytest
from click.testing import CliRunner, Result

from mncli.cli import main
from mncore.audits.verify import verify_rows
from mncore.core.dice import Rng, seeded_secret
from mncore.games import lifecycle, reading
from mncore.pbem import signing, trust
from mncore.rulesets.empires.players.autoplay import choose
from mncore.store import Row, open_store
from toy import RULESET as TOY


def mn(db: Path, *args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(main, ["--db", str(db), *args], input=input)


def doc(db: Path, *args: str) -> Any:
    result = mn(db, *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def nonce(*parts: object) -> str:
    """A fixed nonce, so that a test's signatures and so its dice are the same every run."""
    return hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest()[:32]


@pytest.fixture()
def db(tmp_path: Path) -> Path:
    return tmp_path / "signed.db"


@pytest.fixture()
def keys(tmp_path: Path) -> Path:
    return tmp_path / "keys"


def new_toy(db: Path, keys: Path, game_id: str = "t1", *extra: str) -> str:
    result = mn(db, "new", "--ruleset", "toy", "--empire", "red", "--empire", "blue", "--seed", "toy",
                "--id", game_id, "--keys-dir", str(keys), *extra)
    assert result.exit_code == 0, result.output
    return result.stdout.strip()


@pytest.fixture()
def toy(db: Path, keys: Path) -> str:
    return new_toy(db, keys)


def head(db: Path, game_id: str) -> tuple[str, str]:
    at = doc(db, "status", game_id)["head"]
    return str(at["seq"]), at["hash"]


def sign(db: Path, keys: Path, game_id: str, side: str, *orders: str, at: tuple[str, str] | None = None,
         n: object = 0) -> Path:
    """A block signed through mn sign with the side's key file, against the current head by default."""
    seq, hash_ = at or head(db, game_id)
    out = keys.parent / f"block-{game_id}-{side}-{seq}-{n}.txt"
    result = mn(db.parent / "no-database-here.db", "sign", "--key", str(keys / f"{game_id}-{side}.key"),
                "--game", game_id, "--seq", seq, "--head", hash_, "--nonce", nonce(game_id, side, seq, n),
                "-o", str(out), *orders)
    assert result.exit_code == 0, result.output
    return out


def private(keys: Path, game_id: str, side: str) -> signing.KeyFile:
    return signing.read_key_file(str(keys / f"{game_id}-{side}.key"))


def library_block(keys: Path, game_id: str, side: str, db: Path, orders: tuple[str, ...],
                  signer: str | None = None, game_field: str | None = None) -> Path:
    """A block made with the library, for what mn sign will not do: sign as a side with another key."""
    seq, hash_ = head(db, game_id)
    key = private(keys, game_id, signer or side).private
    block = signing.sign(key, game=game_field or game_id, side=side, seq=int(seq), head=hash_,
                         orders=orders, nonce=nonce("lib", side, seq))
    out = keys.parent / "forged.txt"
    out.write_text(signing.armour(block))
    return out


# --- keys ------------------------------------------------------------------------------------------

def test_new_publishes_a_key_per_side_and_writes_each_private_key_for_its_owner_only(
        db: Path, keys: Path, toy: str) -> None:
    """mn new --keys-dir: KeysPublished is the second batch; each key file is 0600 and matches it."""
    rows = open_store(str(db)).rows(toy)
    published = json.loads(rows[4].payload)

    assert toy == "t1" and rows[4].type == "KeysPublished" and rows[4].batch == 5
    assert rows[4].actor == "host" and json.loads(rows[4].command or "")["type"] == "PublishKeys"
    for side in ("red", "blue"):
        path = keys / f"t1-{side}.key"
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
        assert published["keys"][side] == private(keys, "t1", side).public
    assert published["draws"] == 2  # ruling K11, recorded for every game made with keys
    assert doc(db, "status", toy)["signing"] == {"keys": published["keys"], "signed_only": False,
                                                 "draws": "k11"}
    assert mn(db, "verify", toy).exit_code == 0


def test_new_never_overwrites_a_key_file_and_leaves_none_behind_when_it_fails(
        db: Path, keys: Path, toy: str, tmp_path: Path) -> None:
    """The same id again: refused; the first game's keys are untouched, no stray key file is left."""
    before = {p.name: p.read_text() for p in keys.iterdir()}

    same_dir = mn(db, "new", "--ruleset", "toy", "--seed", "x", "--id", "t1", "--keys-dir", str(keys))
    other_dir = mn(db, "new", "--ruleset", "toy", "--seed", "x", "--id", "t1",
                   "--keys-dir", str(tmp_path / "k2"))

    assert same_dir.exit_code == 2 and "keys are never overwritten" in same_dir.stderr
    assert other_dir.exit_code == 2 and "a game 't1' already exists" in other_dir.stderr
    assert {p.name: p.read_text() for p in keys.iterdir()} == before
    assert list((tmp_path / "k2").iterdir()) == []


def test_signed_only_needs_keys(db: Path) -> None:
    """--signed-only without --keys-dir or every side's --public-key: exit 2, no database made."""
    result = mn(db, "new", "--ruleset", "toy", "--seed", "x", "--signed-only")

    assert result.exit_code == 2 and "give --keys-dir DIR" in result.stderr
    assert not db.exists()


def test_a_player_may_bring_their_own_key(db: Path, tmp_path: Path) -> None:
    """mn keygen makes a key file and prints its public key; mn new --public-key publishes it."""
    red = mn(db, "keygen", "--game", "t9", "--side", "red", "-o", str(tmp_path / "red.key"))
    blue = mn(db, "keygen", "--game", "t9", "--side", "blue", "-o", str(tmp_path / "blue.key"))
    made = mn(db, "new", "--ruleset", "toy", "--seed", "x", "--id", "t9", "--signed-only",
              "--public-key", f"red={red.stdout.strip()}", "--public-key", f"blue={blue.stdout.strip()}")

    assert made.exit_code == 0, made.output
    assert doc(db, "status", "t9")["signing"]["keys"] == {"red": red.stdout.strip(),
                                                          "blue": blue.stdout.strip()}


# --- mn sign -----------------------------------------------------------------------------------------

def test_sign_needs_no_database_and_makes_a_strict_armoured_block(db: Path, keys: Path, toy: str) -> None:
    """mn sign reads only the key file; its block names game, side, seq, head, key, nonce, orders."""
    seq, hash_ = head(db, toy)
    nowhere = db.parent / "nowhere.db"

    result = mn(nowhere, "sign", "--key", str(keys / "t1-red.key"), "--seq", seq, "--head", hash_,
                "muster hill")

    assert result.exit_code == 0, result.output
    assert not nowhere.exists()
    block = signing.parse_block(result.stdout, "stdout")
    assert (block.game, block.side, block.seq, block.head, block.orders) == (
        "t1", "red", int(seq), hash_, ("muster hill",))
    assert block.key == private(keys, "t1", "red").public and signing.signature_ok(block)
    assert result.stdout.splitlines()[0] == signing.BEGIN and result.stdout.splitlines()[-1] == signing.END


def test_sign_refuses_an_edited_key_file_and_another_games_id(db: Path, keys: Path, toy: str) -> None:
    """A key file whose public key is not its private key's, or --game not the key's: exit 2."""
    path = keys / "t1-red.key"
    other = private(keys, "t1", "blue").public
    edited = keys.parent / "edited.key"
    edited.write_text(path.read_text().replace(private(keys, "t1", "red").public, other))

    bad_key = mn(db, "sign", "--key", str(edited), "--seq", "5", "--head", "0" * 64, "pass")
    bad_game = mn(db, "sign", "--key", str(path), "--game", "t2", "--seq", "5", "--head", "0" * 64, "pass")

    assert bad_key.exit_code == 2 and "is not the public key of its Private key" in bad_key.stderr
    assert bad_game.exit_code == 2 and "is the key of red in game t1, not in game t2" in bad_game.stderr


# --- whole games ---------------------------------------------------------------------------------------

def test_a_signed_toy_game_plays_to_a_win_through_mn_sign_and_mn_order_signed(
        db: Path, keys: Path, tmp_path: Path) -> None:
    """Every order signed by its side (mn sign) and given with mn order --signed, to a win; then the
    reveal, and verify re-checks every signature and recomputes every draw; export and import too."""
    toy = new_toy(db, keys, "t1", "--signed-only")
    given = 0
    for n in range(40):
        status = doc(db, "status", toy)
        if status["winner"]:
            break
        side = status["pending"][0]["side"]
        lines = [o["order"] for o in doc(db, "options", toy, "--as", side)]
        musters = [ln for ln in lines if ln.startswith("muster")]
        line = (musters[-1] if side == "red" else musters[0]) if musters else lines[0]
        result = mn(db, "order", toy, "--signed", str(sign(db, keys, toy, side, line, n=n)))
        assert result.exit_code == 0, result.output
        given += 1
    rows = open_store(str(db)).rows(toy)
    reveal = mn(db, "reveal", toy)
    verify = mn(db, "verify", toy)
    export = mn(db, "export", toy, "-o", str(tmp_path / "t1.jsonl"))
    imported = mn(tmp_path / "other.db", "import", str(tmp_path / "t1.jsonl"))

    assert doc(db, "status", toy)["winner"] and any(r.type == "ClashFought" for r in rows)
    assert {r.actor for r in rows if r.batch > 5} == {"red", "blue"}
    assert reveal.exit_code == 0 and verify.exit_code == 0, verify.output
    assert f"{given} signed order blocks carry a valid signature" in verify.stdout
    assert "every random outcome recomputes" in verify.stdout
    assert export.exit_code == 0 and imported.exit_code == 0, imported.output
    assert mn(tmp_path / "other.db", "verify", "t1").exit_code == 0


EMPIRES = ("rome", "greece", "carthage")


def test_a_signed_empires_game_plays_to_a_win_then_verifies_with_every_draw(
        db: Path, tmp_path: Path) -> None:
    """Scripted players choose the orders; each block is signed with mn sign (several orders in one
    block where its empire acts again) and given with mn order --signed; reveal; verify."""
    seed = "k"  # a short game: about 200 blocks
    for side in EMPIRES:
        key = hashlib.sha256(f"{seed}-{side}".encode()).hexdigest()
        signing.write_key_file(str(tmp_path / f"{side}.key"), signing.KeyFile(
            game="e1", side=side, public=signing.public_of(key), private=key))
    publics = [f"{s}={signing.read_key_file(str(tmp_path / f'{s}.key')).public}" for s in EMPIRES]
    made = mn(db, "new", *[x for s in EMPIRES for x in ("--empire", s)], "--seed", seed, "--id", "e1",
              "--signed-only", *[x for p in publics for x in ("--public-key", p)])
    assert made.exit_code == 0, made.output
    store, secret, rand = open_store(str(db)), seeded_secret(seed), random.Random(seed)
    loaded, blocks, several = reading.load(store, "e1"), 0, 0
    while loaded.state.winner is None:
        assert blocks < 2000, "no winner"
        lines = _block_for(loaded, rand, secret, tmp_path, seed, blocks)
        seq, hash_ = loaded.head
        empire = lines[0]
        block = mn(db, "sign", "--key", str(tmp_path / f"{empire}.key"), "--seq", str(seq), "--head", hash_,
                   "--nonce", nonce(seed, blocks, len(lines) - 2), *lines[1:])
        given = mn(db, "order", "e1", "--signed", "-", input=block.stdout)
        assert given.exit_code == 0, given.output
        loaded, blocks, several = reading.load(store, "e1"), blocks + 1, several + (len(lines) > 2)
    reveal = mn(db, "reveal", "e1")
    verify = mn(db, "verify", "e1")

    assert several > 0
    assert reveal.exit_code == 0 and verify.exit_code == 0, verify.output
    assert f"{blocks} signed order blocks carry a valid signature" in verify.stdout
    assert "every random outcome recomputes" in verify.stdout


def _block_for(loaded: reading.Loaded, rand: random.Random, secret: bytes, keys: Path, seed: str,
               n: int) -> list[str]:
    """[empire, line, ...]: one scripted order, and a second for the same empire when it acts again
    and the two are accepted together under the dice that block's own signature gives."""
    first = choose(loaded.state, rand, Rng(secret, "choose"), "builder")
    assert first is not None
    key = signing.read_key_file(str(keys / f"{first.empire}.key")).private
    seq, hash_ = loaded.head

    def decided(lines: list[str]) -> Any:
        block = signing.sign(key, game="e1", side=first.empire, seq=seq, head=hash_, orders=lines,
                             nonce=nonce(seed, n, len(lines) - 1))
        return trust.decide_block(loaded.ruleset, loaded.state, block, secret)[1]

    after = decided([first.line])
    if {p.empire for p in loaded.ruleset.pending(after)} == {first.empire} and after.winner is None:
        second = choose(after, rand, Rng(secret, "choose"), "builder")
        if second is not None:
            try:
                decided([first.line, second.line])
                return [first.empire, first.line, second.line]
            except Exception:
                pass  # refused under the pair's own dice: the first order goes alone
    return [first.empire, first.line]


# --- refusals: each names its reason, exits non-zero and writes nothing ------------------------------

def refused(db: Path, game_id: str, *args: str, input: str | None = None) -> Result:
    before = mn(db, "export", game_id).stdout
    result = mn(db, "order", game_id, *args, input=input)
    assert mn(db, "export", game_id).stdout == before, "a refused order wrote something"
    return result


def test_a_block_signed_with_another_sides_key_is_refused(db: Path, keys: Path, toy: str) -> None:
    """Red's orders signed with Blue's key: exit 2, 'wrong key', nothing written."""
    block = library_block(keys, toy, "red", db, ("muster hill",), signer="blue")

    result = refused(db, toy, "--signed", str(block))

    assert result.exit_code == 2
    assert "wrong key: the block is signed with blue's key, not with red's published key" in result.stderr


def test_a_block_signed_with_a_key_this_game_never_published_is_refused(
        db: Path, keys: Path, toy: str) -> None:
    """A key of the player's own making that the game does not know: exit 2, nothing written."""
    seq, hash_ = head(db, toy)
    stranger, _ = signing.new_keypair()
    path = keys.parent / "stranger.txt"
    path.write_text(signing.armour(signing.sign(stranger, game=toy, side="red", seq=int(seq),
                                                head=hash_, orders=["muster hill"])))

    result = refused(db, toy, "--signed", str(path))

    assert result.exit_code == 2 and "which is not this game's, not with red's" in result.stderr


def test_a_block_for_another_game_is_refused(db: Path, keys: Path, toy: str) -> None:
    """A block signed for game t2 (with t2's key) given to t1: exit 2, 'signed for game t2'."""
    new_toy(db, keys, "t2")
    block = sign(db, keys, "t2", "red", "muster hill")

    result = refused(db, toy, "--signed", str(block))

    assert result.exit_code == 2
    assert "Error: the block is signed for game t2, not game t1\n" == result.stderr


def test_a_block_with_an_edited_line_is_refused(db: Path, keys: Path, toy: str) -> None:
    """An order line changed after signing: exit 2, the signature does not match."""
    block = sign(db, keys, toy, "red", "muster hill")
    block.write_text(block.read_text().replace("Order: muster hill", "Order: muster ford"))

    result = refused(db, toy, "--signed", str(block))

    assert result.exit_code == 2
    assert "the signature does not match the block: a line was edited" in result.stderr


def test_a_block_with_a_line_removed_is_refused_naming_the_line(db: Path, keys: Path, toy: str) -> None:
    """A malformed block (its Nonce line gone): exit 2, the file and line named."""
    block = sign(db, keys, toy, "red", "muster hill")
    block.write_text("".join(ln for ln in block.read_text().splitlines(keepends=True)
                             if not ln.startswith("Nonce:")))

    result = refused(db, toy, "--signed", str(block))

    assert result.exit_code == 2
    assert f"{block}, line 9: expected the Nonce line, found 'Order'" in result.stderr


def test_a_replayed_block_is_applied_once(db: Path, keys: Path, toy: str) -> None:
    """The same block twice: the first is applied, the second exits 3 saying so, nothing written."""
    block = sign(db, keys, toy, "red", "muster hill")

    first = mn(db, "order", toy, "--signed", str(block))
    second = refused(db, toy, "--signed", str(block))

    head = open_store(str(db)).head(toy)[1]
    assert first.exit_code == 0
    assert first.stdout == f"    6  Red mustered a unit in Hill\nReceipt: game {toy}, event 6, head {head}\n"
    assert second.exit_code == 3
    assert "was already applied at event 6; each block is applied once" in second.stderr


def test_a_block_is_stale_once_its_side_has_acted_since(db: Path, keys: Path, toy: str) -> None:
    """Two blocks of Red's against the same head: the second one given is stale (exit 3)."""
    at = head(db, toy)
    hill = sign(db, keys, toy, "red", "muster hill", at=at, n=1)
    ford = sign(db, keys, toy, "red", "muster ford", at=at, n=2)
    assert mn(db, "order", toy, "--signed", str(hill)).exit_code == 0

    result = refused(db, toy, "--signed", str(ford))

    assert result.exit_code == 3
    assert "stale: the block answers event 5, but red has given orders since (at event 6)" in result.stderr


def test_a_block_is_stale_when_its_sides_pending_decision_changed(db: Path, keys: Path, toy: str) -> None:
    """Red signs while it has nothing to decide; after Blue's order Red must muster: stale, exit 3."""
    assert mn(db, "order", toy, "--signed", str(sign(db, keys, toy, "red", "muster hill"))).exit_code == 0
    early = sign(db, keys, toy, "red", "muster ford")  # at event 6: Blue's turn
    assert mn(db, "order", toy, "--signed", str(sign(db, keys, toy, "blue", "pass"))).exit_code == 0

    result = refused(db, toy, "--signed", str(early))

    assert result.exit_code == 3
    assert ("stale: the block answers event 6, when red was to decide: nothing; now red is to "
            "decide: muster a unit or pass") in result.stderr


def test_a_block_may_answer_an_older_head_while_its_decision_is_still_pending(
        db: Path, keys: Path, tmp_path: Path) -> None:
    """Not stale: the log moved on by the host's act only, and Red's decision is the same."""
    toy = new_toy(db, keys, "t1")
    block = sign(db, keys, toy, "red", "muster hill")
    assert mn(db, "reveal", toy, "--force").exit_code == 0

    result = mn(db, "order", toy, "--signed", str(block))

    assert result.exit_code == 0, result.output


def test_a_block_naming_a_head_not_in_this_log_is_refused(db: Path, keys: Path, toy: str) -> None:
    """A head hash the log never had (another game's, or a rewritten log's): exit 2."""
    block = sign(db, keys, toy, "red", "muster hill", at=("5", "ab" * 32))

    result = refused(db, toy, "--signed", str(block))

    assert result.exit_code == 2 and "the block answers another game's log" in result.stderr


def test_an_unsigned_order_in_a_signed_only_game_is_refused(db: Path, keys: Path) -> None:
    """--signed-only: mn order --as red 'muster hill' exits 2 and writes nothing."""
    toy = new_toy(db, keys, "t1", "--signed-only")

    result = refused(db, toy, "--as", "red", "muster hill")

    assert result.exit_code == 2 and "this game takes signed orders only" in result.stderr


def test_a_block_is_applied_whole_or_not_at_all(db: Path, keys: Path, toy: str) -> None:
    """Red's block of two orders, the second refused (Blue's turn): exit 1, the first not written."""
    block = sign(db, keys, toy, "red", "muster hill", "muster ford")

    result = refused(db, toy, "--signed", str(block))

    assert result.exit_code == 1
    assert "order 2 ('muster ford'): it is Blue's turn to muster, not Red's" in result.stderr


def test_unsigned_orders_in_a_game_with_keys_are_the_hosts(db: Path, keys: Path, toy: str) -> None:
    """Without a signature the order is recorded as given by the host; signed, as the side's."""
    assert mn(db, "order", toy, "--as", "red", "muster hill").exit_code == 0
    assert mn(db, "order", toy, "--signed", str(sign(db, keys, toy, "blue", "pass"))).exit_code == 0

    actors = [(e["seq"], e["actor"]) for e in doc(db, "log", toy, "--from", "6")]

    assert actors == [(6, "host"), (7, "blue"), (8, "blue")]
    assert mn(db, "verify", toy).exit_code == 0


def test_a_signed_blocks_dice_come_from_its_signature_and_the_secret(db: Path, keys: Path) -> None:
    """The stored clash rolls are those of Rng(secret, 'signed:' + signature); another nonce, other
    orders or another head would give another signature, and so other dice."""
    toy = new_toy(db, keys, "t1")
    for side, line in (("red", "muster ford"), ("blue", "muster ford")):
        assert mn(db, "order", toy, "--as", side, line).exit_code == 0
    while doc(db, "status", toy)["phase"] != "clash":
        side = doc(db, "status", toy)["pending"][0]["side"]
        assert mn(db, "order", toy, "--as", side, "pass").exit_code == 0
    side = doc(db, "status", toy)["pending"][0]["side"]
    path = sign(db, keys, toy, side, "clash ford")
    block = signing.parse_block(path.read_text(), "block")
    loaded = reading.load(open_store(str(db)), toy)
    rng = Rng(seeded_secret("toy"), "signed:" + block.signature)
    expected = {s: rng.roll((1, 2, 3, 4, 5, 6)) for s in loaded.state.present("ford")}

    assert mn(db, "order", toy, "--signed", str(path)).exit_code == 0
    clash = json.loads(open_store(str(db)).rows(toy)[len(loaded.rows)].payload)
    assert clash["type"] == "ClashFought" and clash["rolls"] == expected


# --- verify: a forged row fails ------------------------------------------------------------------------

def played(db: Path, keys: Path, toy: str) -> list[Row]:
    """Red's signed muster, Blue's unsigned (the host's) pass."""
    assert mn(db, "order", toy, "--signed", str(sign(db, keys, toy, "red", "muster hill"))).exit_code == 0
    assert mn(db, "order", toy, "--as", "blue", "pass").exit_code == 0
    return open_store(str(db)).rows(toy)


def forged(rows: list[Row], seq: int, **changes: Any) -> tuple[int | None, str | None]:
    """The log with one row changed and every hash recomputed (a host rewriting its own database).

    A forger who swaps a command drops the salts of fields the new command lacks, as the service would.
    """
    out = [msgspec.structs.replace(r, **_salted(r, changes)) if r.seq == seq else r for r in rows]
    report = verify_rows(lifecycle.rechain(out, 2), 2)
    return report.first_bad, report.reason


def _salted(row: Row, changes: dict[str, Any]) -> dict[str, Any]:
    command = changes.get("command")
    if command is None or "salts" in changes:
        return changes
    fields = json.loads(command)
    return {**changes, "salts": {f: s for f, s in row.salts.items()
                                 if not f.startswith("command/") or f.split("/")[1] in fields}}


def test_verify_refuses_an_unsigned_order_recorded_as_the_sides(db: Path, keys: Path, toy: str) -> None:
    """The host's unsigned pass relabelled as Blue's own: verify fails at that event."""
    rows = played(db, keys, toy)

    assert forged(rows, 7, actor="blue") == (7, "is recorded as blue's, but its command carries no "
                                                "signature: an unsigned order is the host's")


def test_verify_refuses_a_signed_block_whose_command_was_edited(db: Path, keys: Path, toy: str) -> None:
    """A stored block's order changed (and the event with it): its signature no longer matches."""
    rows = played(db, keys, toy)
    command = (rows[5].command or "").replace("muster hill", "muster ford")

    bad, reason = forged(rows, 6, command=command)

    assert bad == 6 and "the signature does not match the block" in (reason or "")


def test_verify_refuses_a_signed_batch_relabelled_to_another_actor(db: Path, keys: Path, toy: str) -> None:
    """Red's signed batch recorded as the host's or as Blue's: verify fails at that event."""
    rows = played(db, keys, toy)

    assert forged(rows, 6, actor="host")[0] == 6
    assert forged(rows, 6, actor="blue") == (6, "is recorded as blue's, but the command of its batch "
                                                "is red's to give")


def test_verify_refuses_a_block_applied_twice(db: Path, keys: Path, toy: str) -> None:
    """The host replays Red's block into its own log later on: verify names the second copy."""
    rows = played(db, keys, toy)
    copy = msgspec.structs.replace(rows[5], seq=len(rows) + 1, batch=len(rows) + 1)

    report = verify_rows(lifecycle.rechain([*rows, copy], 2), 2)

    assert report.first_bad == len(rows) + 1 and "was already applied at event 6" in (report.reason or "")


def test_verify_refuses_keys_published_after_play_began(db: Path, keys: Path, toy: str) -> None:
    """A second KeysPublished (a host swapping in a key of its own) fails verification."""
    rows = played(db, keys, toy)
    again = msgspec.structs.replace(rows[4], seq=len(rows) + 1, batch=len(rows) + 1)

    report = verify_rows(lifecycle.rechain([*rows, again], 2), 2)

    assert report.first_bad == len(rows) + 1 and "already published" in (report.reason or "")


def test_verify_refuses_an_unsigned_order_in_a_signed_only_game(db: Path, keys: Path) -> None:
    """A host that writes an unsigned order into a --signed-only game's log is caught by verify."""
    toy = new_toy(db, keys, "t1", "--signed-only")
    rows = played_signed_only(db, keys, toy)
    unsigned = TOY.encode_command(TOY.parse_order("pass", None, "blue")).decode()

    bad, reason = forged(rows, 7, command=unsigned, actor="host")

    assert (bad, reason) == (7, "an order without a signature, in a game that takes signed orders only")


def played_signed_only(db: Path, keys: Path, toy: str) -> list[Row]:
    for side, line in (("red", "muster hill"), ("blue", "pass")):
        assert mn(db, "order", toy, "--signed", str(sign(db, keys, toy, side, line))).exit_code == 0
    return open_store(str(db)).rows(toy)


def test_another_sides_export_shows_an_unsigned_order_only_as_far_as_it_hides_nothing(
        db: Path, keys: Path, toy: str) -> None:
    """export --as blue: Red's unsigned order is recorded as the host's; what it hides would be
    committed whoever recorded it (mncore/secrecy/boundary.py), and a muster hides nothing."""
    assert mn(db, "order", toy, "--as", "red", "muster hill").exit_code == 0

    line = json.loads(mn(db, "export", toy, "--as", "blue").stdout.splitlines()[6])

    assert line["actor"] == "host" and line["command"]["type"] == "Muster"
    assert "withheld" not in line or not line["withheld"]


def test_verify_refuses_a_stale_block_the_host_applied(db: Path, keys: Path, toy: str) -> None:
    """Red's second block for the decision it already took, written in by the host: verify fails."""
    rows = played(db, keys, toy)
    late = signing.sign(private(keys, toy, "red").private, game=toy, side="red", seq=5,
                        head=rows[4].hash, orders=["muster ford"], nonce=nonce("late"))
    extra = msgspec.structs.replace(rows[5], seq=len(rows) + 1, batch=len(rows) + 1,
                                    command=TOY.encode_command(late).decode())

    report = verify_rows(lifecycle.rechain([*rows, extra], 2), 2)

    assert report.first_bad == len(rows) + 1
    assert "stale: the block answers event 5, but red has given orders since (at event 6)" in (
        report.reason or "")
