"""Peak memory and time of `mn mail ingest` on hostile mails, beside a normal mail, in the same run.

python bench/ingest.py [--quick] [--runs N]   (--runs: runs of each case, default 1; --quick: a 20 MB
body and a 5 MB line instead of 200 MB and 50 MB)

Each case is one `mn mail ingest FILE` in a fresh child process (a fresh copy of the game's database),
which reports its own peak RSS (Linux VmHWM: what the imports and the mail together held at most) and
its wall time. The mails are written into a temporary folder and deleted after: a 200 MB body, a 50 MB
line inside a signed block, 20,000 text parts (7.7 MB), 3,000 nested multiparts; beside them an
ordinary reply with a signed block, and the same block in a reply carrying the whole report back
(the report attached, and its three attachments). The anchor is issue 23's figures for the hostile
mails before the limits (the code that parsed whole mails), and the normal mail of this run.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from email.message import EmailMessage
from pathlib import Path
from typing import BinaryIO

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import figures  # noqa: E402

from mncore.pbem.mail.limits import Limits  # noqa: E402

MB = 1000 * 1000
HEADERS = (b"From: ann@example.org\nTo: host@example.org\nSubject: Re: orders\n"
           b"Message-ID: <bench@example.org>\nMIME-Version: 1.0\n")
# issue 23, measured with the code before the limits: (peak memory, seconds, what became of the mail)
BEFORE = {"200 MB body": "2.28 GB, 50 s", "50 MB line in a block": "592 MB",
          "20,000 text parts": "116 s", "3,000 nested multiparts": "refused after 17 s"}
_FIGURES = "MN-BENCH "


def _child(argv: list[str]) -> None:
    """In the child: run mn with argv, then print its own peak RSS and wall time as one JSON line."""
    from mncli.cli import main

    t0 = time.perf_counter()
    try:
        main(argv, prog_name="mn")
    except SystemExit as stop:
        code = stop.code
    peak = next(int(ln.split()[1]) for ln in Path("/proc/self/status").read_text().splitlines()
                if ln.startswith("VmHWM:"))
    print(_FIGURES + json.dumps({"kib": peak, "seconds": time.perf_counter() - t0, "exit": code}), flush=True)


def _mn(db: Path, *args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "mncli", "--db", str(db), *args], capture_output=True,
                          text=True, check=True)
    return done.stdout


def _game(folder: Path) -> tuple[Path, str, EmailMessage]:
    """A keyed Empires game, its report mails written; the database, a signed block of the empire
    that must decide (its first legal order), and that empire's report mail."""
    from mncore.pbem.mail import inbox

    db, keys = folder / "game.db", folder / "keys"
    _mn(db, "new", "--id", "g1", "--empire", "rome", "--empire", "greece", "--empire", "carthage",
        "--seed", "bench", "--keys-dir", str(keys), "--signed-only")
    for side in ("rome", "greece", "carthage", "host"):
        _mn(db, "mail", "address", "g1", side, f"{side}@example.org")
    _mn(db, "mail", "outbox", "g1", "--dir", str(folder / "reports"))
    for path in sorted((folder / "reports" / "new").iterdir()):
        mail = next(m for _, m in inbox.messages(str(path)))
        assert isinstance(mail, EmailMessage)
        text = str(mail.get_body(("plain",)).get_content())  # type: ignore[union-attr]
        legal = re.search(r"Your legal orders now.*\n  (.+)\n", text)
        if legal is None:
            continue
        seq, head = str(mail["X-MN-Receipt"]).split()
        side = str(mail["X-MN-Side"])
        block = _mn(db, "sign", "--key", str(keys / f"g1-{side}.key"), "--seq", seq, "--head", head,
                    legal[1])
        return db, block, mail
    raise SystemExit("no empire of the benchmark game has a decision to make")


def _ordinary(f: BinaryIO, block: str) -> None:
    f.write(HEADERS + b"\nMy orders:\n\n" + "".join(f"> {ln}\n" for ln in block.splitlines()).encode())


def _carried(report: EmailMessage) -> Callable[[BinaryIO, str], None]:
    def write(f: BinaryIO, block: str) -> None:
        f.write(_with_report(block, report))
    return write


def _with_report(block: str, report: EmailMessage) -> bytes:
    reply = EmailMessage()
    reply["From"], reply["To"], reply["Subject"] = "ann@example.org", "host@example.org", "Re: orders"
    reply.set_content(block)
    reply.add_attachment(report)
    for part in report.iter_attachments():
        data = part.get_payload(decode=True)
        assert isinstance(data, bytes)
        reply.add_attachment(data, maintype=part.get_content_maintype(), subtype=part.get_content_subtype(),
                             filename=part.get_filename())
    return bytes(reply)


def _body(size: int) -> Callable[[BinaryIO, str], None]:
    def write(f: BinaryIO, block: str) -> None:
        f.write(HEADERS + b"\n" + block.encode())
        line = b"x" * 79 + b"\n"
        for _ in range(size // len(line)):
            f.write(line)
    return write


def _long_line(size: int) -> Callable[[BinaryIO, str], None]:
    def write(f: BinaryIO, block: str) -> None:
        lines = block.encode().split(b"\n")
        f.write(HEADERS + b"\n" + b"\n".join(lines[:5]) + b"\nMore: ")
        for _ in range(size // MB):
            f.write(b"a" * MB)
        f.write(b"\n" + b"\n".join(lines[5:]))
    return write


def _within(f: BinaryIO, block: str) -> None:
    """As many one-byte lines as the default line count lets through: what parsing costs at most."""
    f.write(HEADERS + b"\n" + block.encode())
    f.write(b"a\n" * (Limits().max_lines - HEADERS.count(b"\n") - block.count("\n") - 2))


def _widest(f: BinaryIO, block: str) -> None:
    """As many of the longest lines as the default size limit lets through."""
    f.write(HEADERS + b"\n" + block.encode())
    line = b"w" * (Limits().max_line - 1) + b"\n"
    f.write(line * ((Limits().max_bytes - len(HEADERS) - len(block) - 1) // len(line)))


def _lines(f: BinaryIO, block: str) -> None:
    f.write(HEADERS + b"\n" + block.encode())
    f.write(b"a\n" * (4 * MB))


def _parts(f: BinaryIO, block: str) -> None:
    f.write(HEADERS + b"Content-Type: multipart/mixed; boundary=\"sep\"\n\n")
    f.write(b"--sep\nContent-Type: text/plain\n\n" + block.encode() + b"\n")
    filler = b"a part of the mail, " * 17
    for n in range(19_999):
        f.write(b"--sep\nContent-Type: text/plain\n\npart %d: " % n + filler + b"\n")
    f.write(b"--sep--\n")


def _nested(f: BinaryIO, block: str) -> None:
    f.write(HEADERS)
    for n in range(3_000):
        f.write(b"Content-Type: multipart/mixed; boundary=b%d\n\n--b%d\n" % (n, n))
    f.write(b"Content-Type: text/plain\n\n" + block.encode())
    for n in reversed(range(3_000)):
        f.write(b"\n--b%d--\n" % n)


def _run(db: Path, mail: Path, scratch: Path) -> tuple[float, float, str]:
    """(peak RSS in MiB, seconds, what mn said of the mail) of one ingest in a child, on a fresh copy
    of the database (the block of a normal mail is applied each time)."""
    fresh = scratch / "run.db"
    for suffix in ("", ".mail.json"):
        shutil.copy(str(db) + suffix, str(fresh) + suffix)
    shutil.rmtree(scratch / "out", ignore_errors=True)
    done = subprocess.run([sys.executable, __file__, "--child", "--db", str(fresh), "mail", "ingest",
                           str(mail), "--outbox", str(scratch / "out")], capture_output=True, text=True)
    said = next((ln.split(": ", 1)[1] for ln in done.stdout.splitlines() if ln.startswith(str(mail))),
                done.stderr.strip()[-200:])
    got = json.loads(done.stdout.rsplit(_FIGURES, 1)[1])
    return got["kib"] / 1024, got["seconds"], said


def _outcome(said: str) -> str:
    limit = re.search(r"\((--max-[a-z]+)\)", said)
    return f"refused ({limit[1]})" if limit and "refused" in said else said.split(",")[0]


def main() -> None:
    ns = figures.args(__doc__, runs=1)
    big, line = (20 * MB, 5 * MB) if ns.quick else (200 * MB, 50 * MB)
    with tempfile.TemporaryDirectory(prefix="mn-ingest-") as tmp:
        folder = Path(tmp)
        db, block, report = _game(folder)
        cases: dict[str, Callable[[BinaryIO, str], None]] = {
            "normal mail": _ordinary, "normal mail, the report carried back": _carried(report),
            f"{big // MB} MB body": _body(big), f"{line // MB} MB line in a block": _long_line(line),
            "20,000 text parts": _parts, "3,000 nested multiparts": _nested,
            "4,000,000 one-byte lines (8 MB)": _lines, "one-byte lines up to the line count limit": _within,
            "the longest lines up to the size limit": _widest}
        anchor: tuple[float, float] | None = None
        for name, write in cases.items():
            path = folder / f"case-{len(os.listdir(folder))}.eml"
            with open(path, "wb") as f:
                write(f, block)
            size = path.stat().st_size
            runs = [_run(db, path, folder) for _ in range(ns.runs)]
            path.unlink()
            rss, secs = statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)
            anchor = anchor or (rss, secs)
            before = f" | before the limits (issue 23): {BEFORE[name]}" if name in BEFORE else ""
            print(f"{name} ({size / MB:,.1f} MB): {_outcome(runs[-1][2])}; peak RSS {rss:,.1f} MiB, "
                  f"{secs:.2f} s | normal mail: {anchor[0]:,.1f} MiB, {anchor[1]:.2f} s | ratio "
                  f"{rss / anchor[0]:.2f}x memory, {secs / anchor[1]:.2f}x time (medians, {ns.runs} "
                  f"run(s)){before}", flush=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        _child(sys.argv[2:])
    else:
        main()
