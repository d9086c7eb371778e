"""A game's life beside play: verify, upgrade of its log format, reveal of its secret, fork, rechain."""

from __future__ import annotations

from collections.abc import Sequence

from msgspec.structs import replace

from mncore.audits.verify import Head, Report
from mncore.core import log_lines as log
from mncore.core.chain import CURRENT, GENESIS_HASH, link
from mncore.core.dice import commitment
from mncore.core.errors import IntegrityFailure, InvalidCommand, StoreError
from mncore.core.kernel_acts import (
    RevealSecret,
    UpgradeLog,
)
from mncore.core.protocol import HOST, ForkRef
from mncore.games import reading
from mncore.games.log_reading import fold
from mncore.games.reading import Loaded, _batches, current, load
from mncore.games.writing import _new_rows, give
from mncore.pbem import trust
from mncore.secrecy import boundary
from mncore.store import Row, Store


def verify_game(store: Store, game_id: str, held: str | None = None) -> Report:
    """Verify a stored game, holding it to the head its store recorded and to a head a player kept."""
    store.require_game(game_id)
    heads: list[Head] = []
    recorded = store.recorded_head(game_id)
    if recorded is not None:
        heads.append(Head(source="the database's head record", seq=recorded[0], hash=recorded[1]))
    if held is not None:
        heads.append(Head(source="the head you hold", hash=held, last=False))
    from mncore.audits.verify_stream import verify_stored
    return verify_stored(store, game_id, heads)


def upgrade(store: Store, game_id: str) -> Loaded:
    """Rewrite a format-1 game into format 2, all at once, with an event recording its old head.

    The game is verified first (nothing is rewritten from a log that fails) and again after.
    """
    loaded = load(store, game_id)
    if loaded.version == CURRENT:
        raise InvalidCommand(f"game {game_id} is already in log format {CURRENT}")
    report = verify_game(store, game_id)
    if not report.ok:
        raise IntegrityFailure(report.first_bad or 1, f"{report.reason}; nothing was rewritten")
    seq, old_head = loaded.head
    command = UpgradeLog(from_version=loaded.version, previous_head=old_head)
    ruleset = loaded.ruleset
    events = trust.host_events(ruleset, loaded.state, trust.Ledger(), command, _batches(loaded) + 1)
    secret_hex = store.secret(game_id) or loaded.meta.secret  # an imported game may have revealed it
    secret = bytes.fromhex(secret_hex) if secret_hex else None
    added = [Row(seq=n_seq, type=n.type, payload=n.payload, recorded_at=n.recorded_at, actor=HOST,
                 batch=seq + 1, hash="", command=n.command, salts=n.salts)
             for n_seq, n in enumerate(_new_rows(ruleset, events, HOST, command, reading.utc_now(), seq + 1,
                                                 secret), start=seq + 1)]
    # format 2 hashes hidden fields as salted commitments: the old rows get their salts now
    old = [replace(r, salts=boundary.salts_for(
        ruleset, secret, r.seq, e, ruleset.decode_command(r.command) if r.command else None))
        for r, e in zip(loaded.rows, loaded.events, strict=True)]
    store.rewrite_log(game_id, (seq, old_head), rechain([*old, *added], CURRENT), CURRENT)
    log.info("log upgraded", game=game_id, old_head=old_head, events=seq + len(added))
    after = verify_game(store, game_id)
    if not after.ok:
        raise IntegrityFailure(after.first_bad or 1, f"the rewritten log fails: {after.reason}")
    return load(store, game_id)


def reveal(store: Store, game_id: str, force: bool = False) -> list[Row]:
    """Append the game's secret so that anyone can recompute every draw."""
    loaded = current(store, game_id)
    secret = store.secret(game_id)
    if not secret:
        raise StoreError(f"this database does not hold the secret of game {game_id} "
                         "(an imported game: only the database it was created in has it)")
    if not loaded.meta.over and not force:
        raise InvalidCommand(f"game {game_id} is still running: revealing the secret now lets every "
                             "player foresee the remaining draws; pass --force to reveal anyway (ruling K8)")
    return give(store, loaded, RevealSecret(secret=secret), answer=False).written


def fork(store: Store, game_id: str, at: int, new_id: str, secret: bytes) -> Loaded:
    """A sandbox copy of events 1..at of a game, marked as a fork; the original is untouched.

    The fork draws from its own new secret, never the original's (ruling K7).
    """
    src = load(store, game_id, at)
    if at < 1 or at > len(src.rows):
        raise InvalidCommand(f"game {game_id} has events 1 to {len(store.rows(game_id))}; "
                             f"cannot fork at {at}")
    ruleset = src.ruleset
    ref = ForkRef(game=game_id, at=at, head_hash=src.rows[-1].hash,
                  commitment=ruleset.meta(fold(ruleset, src.events[:1])).commitment)
    created = ruleset.fork_created(src.events[0], commitment(secret), ref)
    payloads = [ruleset.encode_event(created).decode()] + [r.payload for r in src.rows[1:]]
    events = [created, *src.events[1:]]
    # the fork's hidden fields are salted from its own secret, as its later events will be
    rows = rechain([replace(r, payload=p, salts=boundary.salts_for(
        ruleset, secret, r.seq, e, ruleset.decode_command(r.command) if r.command else None))
        for r, p, e in zip(src.rows, payloads, events, strict=True)], CURRENT)
    store.import_rows(new_id, reading.utc_now(), rows, CURRENT, secret=secret.hex())
    return load(store, new_id)


def rechain(rows: Sequence[Row], version: int) -> list[Row]:
    """The rows with their hashes computed anew in log format `version`."""
    out: list[Row] = []
    head = GENESIS_HASH
    for r in rows:
        head = link(version, head, seq=r.seq, type=r.type, actor=r.actor, batch=r.batch,
                    recorded_at=r.recorded_at, command=r.command, payload=r.payload, salts=r.salts)
        out.append(replace(r, hash=head))
    return out
