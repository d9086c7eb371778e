"""What the mn serve tests share: a certificate, an SMTP server requiring STARTTLS and AUTH, Dovecot."""

from __future__ import annotations

import datetime as dt
import email
import email.policy
import ipaddress
import os
import pwd
import shutil
import signal
import ssl
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from mailkit import free_port

USER, PASSWORD = "host@example.org", "s3cret-for-tests"


def certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 (cert.pem, key.pem): the clients trust it as their CA."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = dt.datetime.now(dt.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - dt.timedelta(days=1))
            .not_valid_after(now + dt.timedelta(days=2))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                           critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


@dataclass
class Smtp:
    """A running SMTP server: where it listens, the mails it took, how many logins it refused."""

    host: str
    port: int
    received: list[EmailMessage] = field(default_factory=list)
    refused_logins: int = 0
    failing: bool = False  # answer every DATA with a temporary failure (451)
    deliver: Any = None  # called with each mail taken (e.g. into a mailbox)

    def by_id(self) -> dict[str, int]:
        """How many times each Message-ID arrived."""
        out: dict[str, int] = {}
        for m in self.received:
            key = str(m.get("Message-ID"))
            out[key] = out.get(key, 0) + 1
        return out


@contextmanager
def smtp_tls(folder: Path) -> Iterator[Smtp]:
    """aiosmtpd on loopback, requiring STARTTLS and then AUTH (USER, PASSWORD) before any mail."""
    from aiosmtpd.controller import Controller
    from aiosmtpd.smtp import AuthResult, LoginPassword

    cert, key = certificate(folder)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    server = Smtp("127.0.0.1", free_port())

    def authenticator(smtp: Any, session: Any, envelope: Any, mechanism: str, data: Any) -> AuthResult:
        ok = isinstance(data, LoginPassword) and data.login == USER.encode() and data.password == PASSWORD.encode()
        server.refused_logins += not ok
        return AuthResult(success=ok)

    class Handler:
        async def handle_DATA(self, smtp: Any, session: Any, envelope: Any) -> str:
            if server.failing:
                return "451 Try again later"
            msg = email.message_from_bytes(envelope.content, policy=email.policy.default)
            assert isinstance(msg, EmailMessage)
            server.received.append(msg)
            if server.deliver is not None:
                server.deliver(msg, envelope.content)
            return "250 Message accepted for delivery"

    controller = Controller(Handler(), hostname="127.0.0.1", port=server.port, tls_context=context,
                            require_starttls=True, authenticator=authenticator, auth_required=True,
                            auth_require_tls=True)
    controller.start()
    try:
        yield server
    finally:
        controller.stop()


# --- Dovecot ---------------------------------------------------------------------------------------

DOVECOT = "/usr/sbin/dovecot"


def why_no_dovecot() -> str | None:
    if not os.access(DOVECOT, os.X_OK):
        return "Dovecot is not installed (apt-get install dovecot-imapd; .ci/run does)"
    try:
        pwd.getpwnam("dovecot")
        pwd.getpwnam("dovenull")
    except KeyError:
        return "the dovecot and dovenull users are missing (Debian's dovecot-core makes them)"
    return None


@dataclass
class Imap:
    port: int
    maildir: Path  # the host's mailbox, as Dovecot keeps it
    cert: Path


@contextmanager
def dovecot() -> Iterator[Imap]:
    """Dovecot on loopback over implicit TLS with one user (USER, PASSWORD), its mail a Maildir."""
    # not under pytest's tmp_path: its folders are the tester's alone, and Dovecot's own users
    # (dovecot, dovenull, the mail user) must reach the users file and the mailbox
    base = Path(tempfile.mkdtemp(prefix="mn-dovecot-"))
    os.chmod(base, 0o755)
    cert, key = certificate(base)
    me = pwd.getpwuid(os.getuid())
    mail_user = pwd.getpwnam("nobody") if me.pw_uid == 0 else me
    home = base / "home"
    maildir = home / "Maildir"
    for sub in ("cur", "new", "tmp"):
        (maildir / sub).mkdir(parents=True)
    for p in [home, maildir, *(maildir / s for s in ("cur", "new", "tmp"))]:
        os.chown(p, mail_user.pw_uid, mail_user.pw_gid)
    (base / "users").write_text(f"{USER}:{{PLAIN}}{PASSWORD}\n")
    port = free_port()
    conf = base / "dovecot.conf"
    internal = "dovecot" if me.pw_uid == 0 else me.pw_name
    conf.write_text(f"""
base_dir = {base}/run
state_dir = {base}/state
log_path = {base}/log
protocols = imap
listen = 127.0.0.1
ssl = required
ssl_cert = <{cert}
ssl_key = <{key}
disable_plaintext_auth = yes
auth_mechanisms = plain login
default_internal_user = {internal}
default_login_user = {"dovenull" if me.pw_uid == 0 else me.pw_name}
default_internal_group = {"dovecot" if me.pw_uid == 0 else pwd.getpwuid(os.getuid()).pw_name}
first_valid_uid = {mail_user.pw_uid}
mail_location = maildir:{maildir}
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {base}/users
}}
userdb {{
  driver = static
  args = uid={mail_user.pw_uid} gid={mail_user.pw_gid} home={home}
}}
service imap-login {{
  inet_listener imap {{
    port = 0
  }}
  inet_listener imaps {{
    address = 127.0.0.1
    port = {port}
    ssl = yes
  }}
}}
service anvil {{
  chroot =
}}
service imap-login {{
  chroot =
}}
""")
    os.chmod(base, 0o755)
    # dovecot goes into the background itself: its output to a file, not to a pipe it would hold open
    with open(base / "start.log", "wb") as out:
        subprocess.run([DOVECOT, "-c", str(conf)], check=True, stdout=out, stderr=out, timeout=30)
    try:
        _wait_port(port)
        yield Imap(port=port, maildir=maildir, cert=cert)
    finally:
        pid_file = base / "run" / "master.pid"
        if pid_file.exists():
            pid = int(pid_file.read_text().split()[0])
            os.kill(pid, signal.SIGTERM)
            for _ in range(50):
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    break
                time.sleep(0.1)
        shutil.rmtree(base, ignore_errors=True)


def _wait_port(port: int) -> None:
    import socket
    for _ in range(100):
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError(f"Dovecot did not listen on 127.0.0.1:{port}")


def deliver_to(maildir: Path, uid: int = -1, gid: int = -1) -> Any:
    """A delivery into a Maildir's new/ (as a mail server's local delivery does)."""
    import mailbox

    def put(msg: EmailMessage, raw: bytes) -> None:
        box = mailbox.Maildir(str(maildir), create=False)
        key = box.add(raw)
        path = maildir / "new" / key
        if path.exists() and uid >= 0:
            os.chown(path, uid, gid)
    return put
