"""Undo and consent by mail: a signed block whose one line is `undo` or `consent N` (rulings K1, K2).

The log takes undo and consent as the service's own commands (game.undo, game.consent), which carry
no signature; so the block is checked here as mn order --signed checks one (this game, its side's
published key, unedited, never used before, signed against an event of this log) and kept, with the
event it caused, in the mail book beside the database: the evidence that the player asked.
"""

from __future__ import annotations

import re

from mncore import game, signing, trust
from mncore.errors import AlreadyApplied, SigningRefused, StaleOrders
from mncore.host import SignedOrders
from mncore.mail.book import GameBook
from mncore.store import Row, Store

_CONSENT = re.compile(r"consent ([1-9][0-9]{0,11})")


def is_act(block: SignedOrders) -> bool:
    """Whether a block asks for an undo or gives a consent rather than giving orders."""
    return len(block.orders) == 1 and (block.orders[0] == "undo" or bool(_CONSENT.fullmatch(block.orders[0])))


def _checked(loaded: game.Loaded, block: SignedOrders, page: GameBook) -> None:
    """Refuse the block unless it is this game's, its side's, unedited, new and answers this log."""
    block = signing.block_from_command(block)
    ledger = trust.ledger_of(loaded.ruleset, loaded.rows)
    if block.game != loaded.game_id:
        raise SigningRefused(f"the block is signed for game {block.game}, not game {loaded.game_id}")
    if not ledger.published or block.side not in ledger.keys:
        raise SigningRefused(f"game {loaded.game_id} has no published key for '{block.side}'")
    if block.key != ledger.keys[block.side]:
        raise SigningRefused(f"wrong key: the block is not signed with {block.side}'s published key "
                             f"{ledger.keys[block.side][:16]}…")
    if not signing.signature_ok(block):
        raise SigningRefused("the signature does not match the block: a line was edited, added or "
                             "removed after it was signed")
    used = ledger.nonces.get(block.nonce) or page.acts.get(block.nonce)
    if used:
        raise AlreadyApplied(f"this block (nonce {block.nonce[:12]}…) was already applied at event "
                             f"{used}; each block is applied once: nothing was written")
    rows = loaded.rows
    if block.seq > len(rows) or rows[block.seq - 1].hash != block.head:
        raise SigningRefused(f"the block answers event {block.seq} with head {block.head[:16]}…, "
                             "which is not an event of this log")


def apply(store: Store, block: SignedOrders, page: GameBook) -> tuple[list[Row], list[str], int]:
    """Take back the side's last batch, or give its consent, as the block asks: the rows written,
    the sides whose consent is still wanted (K2) and the first event of the batch concerned.

    An undo answers the head it was signed against: if the side gave orders after it, the block
    would take back a batch its player had not seen, and is refused as stale."""
    loaded = game.load(store, block.game)
    _checked(loaded, block, page)
    line = block.orders[0]
    if line == "undo":
        last = game.last_batch(loaded, block.side)
        if last > block.seq:
            raise StaleOrders(f"stale: the undo answers event {block.seq}, but {block.side}'s last "
                              f"batch is at event {last}, after it. Sign again against the current "
                              "head (mn status)")
        rows, missing = game.undo(store, block.game, block.side)
    else:
        match = _CONSENT.fullmatch(line)
        assert match is not None  # is_act() let only these two shapes through
        last = int(match[1])
        rows, missing = game.consent(store, block.game, block.side, last)
    page.acts[block.nonce] = rows[0].seq if rows else loaded.head[0]
    page.evidence[block.nonce] = signing.armour(block)
    return rows, missing, last
