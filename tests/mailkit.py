"""What the mail tests share: a keyed toy game, signed blocks, mails that carry them, a local SMTP server."""

from __future__ import annotations

import email
import email.policy
import hashlib
import json
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from mncli.cli import main
from mncore.pbem import signing
from mncore.pbem.mail.inbox import arrival


def mn(db: Path, *args: str, input: str | bytes | None = None) -> Result:
    return CliRunner().invoke(main, ["--db", str(db), *args], input=input)


def doc(db: Path, *args: str) -> Any:
    result = mn(db, *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def nonce(*parts: object) -> str:
    """A fixed nonce, so that a test's signatures (and dice) are the same every run."""
    return hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest()[:32]


def new_toy(db: Path, keys: Path, game_id: str = "t1") -> str:
    result = mn(db, "new", "--ruleset", "toy", "--empire", "red", "--empire", "blue", "--seed", "toy",
                "--id", game_id, "--keys-dir", str(keys), "--player", "red=Ann", "--player", "blue=Ben")
    assert result.exit_code == 0, result.output
    for side, who in (("red", "ann@example.org"), ("blue", "ben@example.org"),
                      ("host", "host@example.org")):
        assert mn(db, "mail", "address", game_id, side, who).exit_code == 0
    return game_id


def head(db: Path, game_id: str) -> tuple[int, str]:
    at = doc(db, "status", game_id)["head"]
    return int(at["seq"]), str(at["hash"])


def block(db: Path, keys: Path, game_id: str, side: str, *orders: str, n: object = 0,
          signer: str | None = None, at: tuple[int, str] | None = None) -> str:
    """A block signed with the side's key file (or another side's: signer) against the head."""
    seq, hash_ = at or head(db, game_id)
    key = signing.read_key_file(str(keys / f"{game_id}-{signer or side}.key"))
    return signing.armour(signing.sign(key.private, game=game_id, side=side, seq=seq, head=hash_,
                                       orders=orders, nonce=nonce(game_id, side, seq, n)))


def letter(body: str, sender: str = "ann@example.org", subject: str = "orders",
           cte: str | None = None, html: str | None = None, msg_id: str = "<m1@example.org>") -> EmailMessage:
    """A player's mail: a plain body (quoted-printable or base64 if asked), an HTML copy if given."""
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"], msg["Message-ID"] = sender, "host@example.org", subject, msg_id
    if body:
        msg.set_content(body, cte=cte) if cte else msg.set_content(body)
        if html is not None:
            msg.add_alternative(html, subtype="html")
    elif html is not None:
        msg.set_content(html, subtype="html")
    return msg


def read_eml(path: Path) -> EmailMessage:
    msg = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
    assert isinstance(msg, EmailMessage)
    return msg


def answers(outbox: Path) -> list[EmailMessage]:
    """The messages waiting in an outbox's new/, oldest first."""
    return [read_eml(p) for p in sorted((outbox / "new").iterdir(), key=lambda p: arrival(p.name))]


def body(msg: EmailMessage) -> str:
    part = msg.get_body(("plain",))
    assert part is not None
    return str(part.get_content())


def free_port() -> int:
    """A port nobody listens on now, on loopback."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def smtp_server() -> Iterator[tuple[str, int, list[EmailMessage]]]:
    """A real SMTP server (aiosmtpd) on loopback; yields its host, port and the mails it received."""
    from aiosmtpd.controller import Controller

    received: list[EmailMessage] = []

    class Handler:
        async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
            msg = email.message_from_bytes(envelope.content, policy=email.policy.default)
            assert isinstance(msg, EmailMessage)
            received.append(msg)
            return "250 Message accepted for delivery"

    controller = Controller(Handler(), hostname="127.0.0.1", port=free_port())
    controller.start()
    try:
        yield "127.0.0.1", int(controller.port), received
    finally:
        controller.stop()
