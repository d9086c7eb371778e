"""A three-empire game for the mn serve tests, and scripted players who answer its mails."""

from __future__ import annotations

import json
import os
import random
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from mailkit import mn, nonce
from mncore.core.dice import Rng
from mncore.core.errors import CommandRejected
from mncore.core.protocol import Option
from mncore.games import reading
from mncore.pbem import signing
from mncore.pbem.mail import outbox
from mncore.rulesets.empires.players.autoplay import candidate_lines
from mncore.rulesets.empires.seam import RULESET
from mncore.store import open_store

SIDES = ("rome", "greece", "carthage")
_GUESS = Rng(b"a scripted player's guess", "serve-tests")


def new_game(db: str, keys: Path, gid: str = "g1", hours: int = 48) -> None:
    args = ["new", "--id", gid, "--seed", "serve", "--keys-dir", str(keys), "--signed-only"]
    for side in SIDES:
        args += ["--empire", side]
    assert mn(Path(db) if "://" not in db else db, *args).exit_code == 0  # type: ignore[arg-type]
    assert mn(db, "deadline", gid, "--hours", str(hours), "--forced").exit_code == 0  # type: ignore[arg-type]


def write_config(path: Path, text: str) -> Path:
    path.write_text(text)
    os.chmod(path, 0o600)
    return path


def report_json(msg: EmailMessage) -> Any:
    """The report's JSON attachment, unpacked if it came gzipped (mn serve's NAME.json.gz)."""
    data = next((d for name, d in outbox.attachments(msg).items() if name.endswith(".json")), None)
    return None if data is None else json.loads(data)


def answer(db: str, keys: Path, msg: EmailMessage, n: int) -> str | None:
    """A scripted player's signed block answering a report mail: the first of its options the rules
    take now (tried on the game as the host holds it: a stand-in for a player who knows the rules),
    or None when the report asks nothing of it."""
    doc = report_json(msg)
    if doc is None or not doc.get("options"):
        return None
    gid, side = doc["receipt"]["game"], str(msg["X-MN-Side"])
    store = open_store(db)
    try:
        cur = reading.current(store, gid)
        if cur.head[0] != doc["receipt"]["seq"]:
            return None  # the game moved on: a newer mail will ask again
        rand = random.Random(n)
        for o in doc["options"]:
            for line in candidate_lines(Option(**o), rand):
                try:
                    RULESET.decide(cur.state, RULESET.parse_order(line, cur.state, side), _GUESS)
                except CommandRejected:
                    continue
                key = signing.read_key_file(str(keys / f"{gid}-{side}.key"))
                return signing.armour(signing.sign(key.private, game=gid, side=side, seq=doc["receipt"]["seq"],
                                                   head=doc["receipt"]["head"], orders=(line,),
                                                   nonce=nonce(gid, side, doc["receipt"]["seq"], n)))
    finally:
        store.close()
    return None


def reply(to_host: str, msg: EmailMessage, text: str) -> EmailMessage:
    out = EmailMessage()
    out["From"], out["To"] = str(msg["To"]), to_host
    out["Subject"] = f"Re: {msg['Subject']}"
    out["In-Reply-To"] = str(msg["Message-ID"])
    out["Message-ID"] = f"<{nonce(text)}@players.example.org>"
    out.set_content(f"Here are my orders.\n\n{text}")
    return out
