"""mn serve's inbound listener: mail delivered by the host's own mail server over LMTP or SMTP (aiosmtpd).

A mail is taken only once it is written whole to the inbox Maildir (written to tmp/, flushed to disk,
then moved to new/), and only then answered 250; the service's cycle reads it from there like any
fetched mail: the same limits, each mail applied once by its key. A mail over max_bytes is refused 552
(declared with SIZE, or once its data passes the limit) and nothing is written. LMTP takes one
recipient a transaction (a second is told 452, to come in the next), so that each DATA has one reply.
"""

from __future__ import annotations

import os
import socket
import stat
import uuid
from collections.abc import Callable
from typing import Any

from mncore.core import log_lines
from mncore.core.errors import DataError
from mncore.pbem.mail import limits as mail_limits
from mncore.service.config import Config, address


class _Handler:
    """aiosmtpd's handler: each mail written to the spool, then `came` called (the service wakes)."""

    def __init__(self, spool: str, lmtp: bool, came: Callable[[], None]) -> None:
        self.spool = spool
        self.lmtp = lmtp
        self.came = came

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str,
                          rcpt_options: list[str]) -> str:
        if self.lmtp and envelope.rcpt_tos:
            return "452 4.5.3 One recipient a transaction: send the next again"
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        data = envelope.original_content or b""
        try:
            where = write(self.spool, data)
        except OSError as err:
            log_lines.warning("serve.listen_failed", error=f"{type(err).__name__}: {err}")
            return "451 4.3.0 Cannot store the mail now: try again later"
        log_lines.info("serve.delivered", where=where, bytes=len(data), sender=envelope.mail_from)
        self.came()
        return "250 2.0.0 Taken"


def write(spool: str, data: bytes) -> str:
    """The mail written into the Maildir's new/ whole and on disk before it counts as taken; its name.
    SMTP's CRLF line ends become LF, as in every Maildir."""
    name = f"{uuid.uuid4().hex}.{os.getpid()}.{socket.gethostname().replace('/', '_')}"
    tmp, new = os.path.join(spool, "tmp", name), os.path.join(spool, "new", name)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.replace(b"\r\n", b"\n"))
            f.flush()
            os.fsync(f.fileno())
        os.rename(tmp, new)
    except OSError:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    folder = os.open(os.path.join(spool, "new"), os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)
    return new


class Listener:
    """The LMTP and SMTP servers of a configuration, each in its own thread; stop() ends them."""

    def __init__(self, conf: Config, came: Callable[[], None]) -> None:
        assert conf.listen is not None and conf.inbox.kind == "maildir"  # config.load saw to it
        self.conf = conf
        self.came = came
        self.controllers: list[Any] = []

    def start(self) -> None:
        """Listen; DataError naming the address if it cannot (in use, no such folder)."""
        listen, spool = self.conf.listen, self.conf.inbox.path
        assert listen is not None
        for sub in ("tmp", "new", "cur"):
            os.makedirs(os.path.join(spool, sub), exist_ok=True)
        try:
            for kind, text in (("lmtp", listen.lmtp), ("smtp", listen.smtp)):
                if text:
                    self.controllers.append(self._start(kind, text, spool))
        except DataError:
            self.stop()
            raise

    def _start(self, kind: str, text: str, spool: str) -> Any:
        from aiosmtpd.controller import Controller, UnixSocketController
        from aiosmtpd.lmtp import LMTP
        from aiosmtpd.smtp import SMTP

        where = address(text)
        handler = _Handler(spool, kind == "lmtp", self.came)
        server = LMTP if kind == "lmtp" else SMTP
        limits: dict[str, Any] = {"data_size_limit": self.conf.max_bytes, "enable_SMTPUTF8": True,
                  "server_hostname": "mn-serve", "ident": "mn serve"}
        line_limit = mail_limits.Limits().max_line + 2  # a line as the mail limits take it, with its CRLF

        class Make(Controller):
            def factory(self) -> Any:
                made = server(self.handler, **self.SMTP_kwargs)
                made.line_length_limit = line_limit
                return made

        class MakeUnix(UnixSocketController):
            def factory(self) -> Any:
                made = server(self.handler, **self.SMTP_kwargs)
                made.line_length_limit = line_limit
                return made

        controller: Any
        try:
            if isinstance(where, str):
                _free_socket(where, text)
                controller = MakeUnix(handler, unix_socket=where, **limits)
            else:
                controller = Make(handler, hostname=where[0], port=where[1], **limits)
            controller.start()
        except (OSError, RuntimeError, TimeoutError) as err:
            raise DataError(f"listen.{kind} = '{text}'", [f"cannot listen there ({type(err).__name__}: {err})"]) from None
        log_lines.info("serve.listening", kind=kind, where=text)
        return controller

    def stop(self) -> None:
        for controller in self.controllers:
            try:
                controller.stop()
            except (OSError, RuntimeError, AssertionError):
                pass
            path = getattr(controller, "unix_socket", "")
            if path and os.path.exists(path):
                os.unlink(path)
        self.controllers = []


def _free_socket(path: str, text: str) -> None:
    """A socket a stopped process left behind is removed; any other file there is refused, not removed."""
    if not os.path.lexists(path):
        return
    if not stat.S_ISSOCK(os.lstat(path).st_mode):
        raise DataError(f"listen.lmtp = '{text}'", [f"{path} exists and is no socket: not removed"])
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(path)
    except OSError:
        os.unlink(path)  # nobody listens on it: a socket left by a process that is gone
        return
    finally:
        probe.close()
    raise DataError(f"listen.lmtp = '{text}'", [f"another process listens on {path}"])
