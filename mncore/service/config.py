"""mn serve's configuration: a TOML file (docs/pbem.md, "The host's configuration"), every key checked.

Passwords come from environment variables (`password_env`) or from the file itself, and then only if
no one but its owner can read it. They are kept in this process alone: never logged, stored or mailed.
"""

from __future__ import annotations

import os
import stat
import tomllib
from typing import Any

import msgspec

from mncore.core.errors import DataError

SECURITY = ("starttls", "ssl", "none")
INBOXES = ("imap", "maildir", "mbox", "none")
DIGESTS = ("none", "phase", "round")
EXPORTS = ("none", "delta", "full")
ANSWERS = ("with-next", "at-once")
NOTICES = ("batch", "each", "phase", "none")


class Account(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """An SMTP or IMAP account (its password is read into `password` and shown nowhere)."""

    host: str = "localhost"
    port: int = 0  # 0: the usual port for its security (SMTP 587/465/25, IMAP 143/993/143)
    security: str = "starttls"
    user: str = ""
    password_env: str = ""  # the environment variable holding the password
    password: str = ""  # allowed only in a file that is private to its owner
    ca_file: str = ""  # a CA bundle to trust instead of the system's (a server with its own certificate)
    timeout: float = 30.0

    def __repr__(self) -> str:  # a password never reaches a log line or a traceback
        return f"Account({self.user or '-'}@{self.host}:{self.port}, {self.security})"


class Inbox(Account, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Where orders arrive: an IMAP mailbox, a Maildir, an mbox, or nowhere."""

    kind: str = "imap"
    folder: str = "INBOX"
    path: str = ""  # the Maildir or mbox
    idle: bool = False  # IMAP IDLE between cycles (else the poll interval)


class Policy(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What a game's players are mailed, and when (the host's choice, per game)."""

    digest: str = "round"  # a report to sides not waited on, once a phase or round (or never)
    # a notice (its report) when an event touches a side not waited on (attacked, a loss, a default, an
    # undo): the phase's in one mail once the phase is over, unless a report or digest carried them
    # first ("batch", kernel ruling K13), at each such event ("each"), at the first of each phase
    # ("phase": the later ones of the phase ride with the side's next mail), or never ("none")
    notices: str = "batch"
    reminders: tuple[float, ...] = (24.0, 2.0)  # hours before a deadline
    export: str = "delta"  # the side's export: none, delta (since its last acknowledged head), full
    picture: bool = False  # the board picture (SVG) attached
    gzip: bool = True  # the report's JSON and the export attached gzipped (NAME.gz), else as quoted-printable
    # an applied block's answer: with the side's next mail (its next report, a notice, the round's
    # digest at the latest), or at once; a refusal is always answered at once
    answers: str = "with-next"


class Listen(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Mail delivered to the service by the host's own mail server: LMTP and/or SMTP (listener.py)."""

    lmtp: str = ""  # "unix:/path/to/socket", or "127.0.0.1:PORT" (loopback only: LMTP has no login)
    smtp: str = ""  # "HOST:PORT"
    spool: str = ""  # the Maildir a mail is written to (then read as the inbox); default: inbox.path


class Retry(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Back-off when the mail server fails: first_seconds, doubled each time, up to attempts."""

    attempts: int = 6
    first_seconds: float = 60.0
    factor: float = 2.0
    max_seconds: float = 3600.0


class GameConf(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One game the service runs: its addresses (else the mail book's) and its policy."""

    addresses: dict[str, str] = {}
    policy: dict[str, Any] = {}


class Config(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The whole file."""

    db: str
    sender: str = "mn@localhost"  # the From of every mail
    poll_seconds: float = 60.0
    lease_seconds: float = 120.0  # how long a process holds the inbox or a game after its last cycle
    stale_seconds: float = 600.0  # a mail `sending` this long was interrupted: failed, never resent
    games: dict[str, GameConf] = {}  # empty: every running game with addresses in the mail book
    smtp: Account | None = None
    inbox: Inbox = Inbox(kind="none")
    listen: Listen | None = None
    policy: Policy = Policy()
    retry: Retry = Retry()
    max_bytes: int = 8 * 1024 * 1024  # a fetched mail larger than this is refused unread

    def policy_of(self, game_id: str) -> Policy:
        over = self.games[game_id].policy if game_id in self.games else {}
        if not over:
            return self.policy
        try:
            return msgspec.convert({**msgspec.to_builtins(self.policy), **over}, Policy)
        except msgspec.ValidationError as err:
            raise DataError(f"games.{game_id}.policy", [str(err)]) from None


MAX_CONFIG = 1 << 20  # bytes: a host's configuration of many games is a few kilobytes


def load(path: str) -> Config:
    """The configuration at path, checked; DataError naming the key at fault."""
    try:
        with open(path, "rb") as f:
            mode = os.fstat(f.fileno()).st_mode
            raw = f.read(MAX_CONFIG + 1)
        if len(raw) > MAX_CONFIG:
            raise DataError(path, [f"over {MAX_CONFIG} bytes: not a configuration file"])
        data = tomllib.loads(raw.decode("utf-8"))
    except OSError as err:
        raise DataError(path, [f"cannot read it ({err.strerror})"]) from None
    except UnicodeDecodeError:
        raise DataError(path, ["not UTF-8 text"]) from None
    except tomllib.TOMLDecodeError as err:
        raise DataError(path, [f"not TOML ({err})"]) from None
    try:
        conf = msgspec.convert(data, Config)
    except msgspec.ValidationError as err:
        raise DataError(path, [f"{err} (the keys: docs/pbem.md, 'The host's configuration')"]) from None
    _check(path, conf, mode)
    return _with_spool(_with_passwords(path, conf))


def _check(path: str, conf: Config, mode: int) -> None:
    problems = []
    accounts = [("smtp", conf.smtp), ("inbox", conf.inbox)]
    for name, acc in accounts:
        if acc is None:
            continue
        if acc.security not in SECURITY:
            problems.append(f"{name}.security = '{acc.security}': one of {', '.join(SECURITY)}")
        if acc.password and mode & (stat.S_IRWXG | stat.S_IRWXO):
            problems.append(f"{name}.password is in a file that others can read (mode {stat.S_IMODE(mode):o}): "
                            f"chmod 600 {path}, or give password_env instead")
    if conf.inbox.kind not in INBOXES:
        problems.append(f"inbox.kind = '{conf.inbox.kind}': one of {', '.join(INBOXES)}")
    if conf.inbox.kind in ("maildir", "mbox") and not conf.inbox.path:
        problems.append(f"inbox.path: a {conf.inbox.kind} needs its path")
    for where, p in [("policy", conf.policy), *((f"games.{g}.policy", conf.policy_of(g)) for g in conf.games)]:
        if p.digest not in DIGESTS:
            problems.append(f"{where}.digest = '{p.digest}': one of {', '.join(DIGESTS)}")
        if p.notices not in NOTICES:
            problems.append(f"{where}.notices = '{p.notices}': one of {', '.join(NOTICES)}")
        if p.answers not in ANSWERS:
            problems.append(f"{where}.answers = '{p.answers}': one of {', '.join(ANSWERS)}")
        if p.export not in EXPORTS:
            problems.append(f"{where}.export = '{p.export}': one of {', '.join(EXPORTS)}")
    if conf.listen is not None:
        problems += _listen_problems(conf.listen, conf.inbox)
    if conf.poll_seconds <= 0 or conf.lease_seconds <= 0:
        problems.append("poll_seconds and lease_seconds must be above 0")
    if problems:
        raise DataError(path, problems)


LOOPBACK = ("127.0.0.1", "::1", "localhost")


def address(text: str) -> tuple[str, int] | str:
    """A listener's address: (host, port), or the path of a Unix socket ("unix:/path"); ValueError
    saying what to write."""
    if text.startswith("unix:"):
        if not os.path.isabs(text[5:]):
            raise ValueError(f"'{text}': a Unix socket's path must be absolute (unix:/run/mn/lmtp.sock)")
        return text[5:]
    host, sep, port = text.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"'{text}': write HOST:PORT (127.0.0.1:2424) or unix:/PATH")
    return host, int(port)


def _listen_problems(listen: Listen, inbox: Inbox) -> list[str]:
    problems = []
    if not listen.lmtp and not listen.smtp:
        problems.append("listen: give lmtp, smtp or both (or leave [listen] out)")
    for name, text in (("lmtp", listen.lmtp), ("smtp", listen.smtp)):
        if not text:
            continue
        try:
            where = address(text)
        except ValueError as err:
            problems.append(f"listen.{name} = {err}")
            continue
        if name == "lmtp" and isinstance(where, tuple) and where[0] not in LOOPBACK:
            problems.append(f"listen.lmtp = '{text}': LMTP has no login, so it listens on a Unix socket or a "
                            f"loopback address ({', '.join(LOOPBACK)}) only")
        if name == "smtp" and isinstance(where, str):
            problems.append(f"listen.smtp = '{text}': SMTP listens on HOST:PORT; a Unix socket is for lmtp")
    if inbox.kind in ("imap", "mbox"):
        problems.append(f"listen: the listener writes into the Maildir the service reads as its inbox; "
                        f"inbox.kind = '{inbox.kind}' is none (use inbox.kind = \"maildir\", or no [inbox] "
                        "and listen.spool)")
    elif inbox.kind == "maildir" and listen.spool and listen.spool != inbox.path:
        problems.append("listen.spool: the inbox is a Maildir already: the listener writes into inbox.path "
                        "(leave listen.spool out)")
    elif inbox.kind == "none" and not listen.spool:
        problems.append("listen.spool: the Maildir the listener writes into (and the service reads), "
                        "as there is no [inbox]")
    try:
        import aiosmtpd  # noqa: F401
    except ImportError:
        problems.append("listen: needs the aiosmtpd package (pip install aiosmtpd)")
    return problems


def _with_spool(conf: Config) -> Config:
    """With a listener and no inbox, the inbox is the listener's spool (a Maildir)."""
    if conf.listen is None or conf.inbox.kind != "none":
        return conf
    return msgspec.structs.replace(conf, inbox=Inbox(kind="maildir", path=conf.listen.spool))


def _with_passwords(path: str, conf: Config) -> Config:
    out = conf
    for name in ("smtp", "inbox"):
        acc = getattr(out, name)
        if acc is None or not acc.password_env:
            continue
        value = os.environ.get(acc.password_env)
        if value is None:
            raise DataError(path, [f"{name}.password_env: the environment variable {acc.password_env} is not set"])
        out = msgspec.structs.replace(out, **{name: msgspec.structs.replace(acc, password=value)})
    return out
