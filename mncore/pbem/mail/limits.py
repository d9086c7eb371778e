"""Mail read within limits: its size, lines, MIME parts and nesting counted as its bytes stream in."""

from __future__ import annotations

import email.errors
import email.policy
import re
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from email.message import EmailMessage

import msgspec

from mncore.core.errors import DataError

CHUNK = 64 * 1024  # bytes read at a time: what is held beyond the mail's own bytes
MIB = 1024 * 1024

# the email package's own header and line-end patterns (email.feedparser), so that the parts and
# nesting counted here are the ones its parser would build
_HEADER = re.compile(rb"^(From |[\041-\071\073-\176]*:|[\t ])")
_EOL = re.compile(rb"(\r\n|\r|\n)")
_QUOTED_FROM = re.compile(rb"(?m)^>(>*From )")
_ANSWER_HEADERS = (b"from:", b"reply-to:", b"subject:", b"message-id:")


class Limits(msgspec.Struct, frozen=True, kw_only=True):
    """What one mail may hold; the defaults pass a report mail of a 3,000-event game quoted back whole."""

    max_bytes: int = 8 * MIB
    max_line: int = 4_000
    # the email parser keeps an object per line: 8 MiB of one-byte lines took it 310 MiB and 2 s
    max_lines: int = 200_000
    max_parts: int = 100
    max_depth: int = 10
    # a gzipped attachment (mn serve's report JSON and export) is unpacked at most this far, all of a
    # mail's together: a few kilobytes that unpack to gigabytes (a decompression bomb) are refused
    max_unpacked: int = 64 * MIB


class Refusal(msgspec.Struct, frozen=True, kw_only=True):
    """A mail refused unparsed: the limit it passed, and the headers its answer needs (nothing else)."""

    reason: str
    sender: str = ""
    subject: str = ""
    message_id: str = ""


def size_text(n: int) -> str:
    """A byte count as a host writes it: 8 MiB, 512 KiB, 1,500 bytes."""
    for unit, scale in (("MiB", MIB), ("KiB", 1024)):
        if n >= scale and n % scale == 0:
            return f"{n // scale:,} {unit}"
    return f"{n:,} bytes"


@dataclass
class _Frame:
    """An open container: a multipart (its '--boundary' line), a message/* body, or a delivery status."""

    separator: bytes | None
    digest: bool = False  # a multipart/digest: its parts are messages unless they say otherwise
    status: bool = False  # message/delivery-status: each block of header lines is a part


@dataclass
class Gate:
    """One mail's bytes, fed in chunks and held only while every limit holds: the first limit passed
    becomes the refusal, the bytes held so far are dropped, and whatever follows is ignored unread."""

    limits: Limits
    unquote_from: bool = False  # an mbox's '>From ' lines (mboxrd) lose one '>'
    refusal: str = ""
    size: int = 0
    parts: int = 0
    lines: int = 0
    held: bytearray = field(default_factory=bytearray)
    partial: bytes = b""
    stack: list[_Frame] = field(default_factory=list)
    in_headers: bool = True
    top: bool = True  # still in the mail's own header section
    content_type: list[bytes] = field(default_factory=list)
    collecting: bool = False
    answer: dict[bytes, list[bytes]] = field(default_factory=dict)
    answer_field: bytes = b""

    def feed(self, data: bytes) -> None:
        """Count and hold the next bytes of the mail; nothing more once a limit is passed."""
        if self.refusal or not data:
            return
        room = self.limits.max_bytes - self.size
        self.size += len(data)
        # the bytes within the limit are still read: the headers the refusal's answer needs are there
        self._lines(data[:room] if room < len(data) else data)
        if not self.refusal:
            self.held += data
        if not self.refusal and self.size > self.limits.max_bytes:
            self._refuse(f"the mail is over the {size_text(self.limits.max_bytes)} limit on its size "
                         f"(--max-bytes)")

    def _lines(self, data: bytes) -> None:
        buf = self.partial + data
        # a final '\r' may be the first half of '\r\n': it waits for the next chunk
        cut = len(buf) - 1 if buf.endswith(b"\r") else len(buf)
        pieces = _EOL.split(buf[:cut])
        for i in range(0, len(pieces) - 1, 2):
            self._line(pieces[i], pieces[i + 1])
            if self.refusal:
                return
        self.partial = pieces[-1] + buf[cut:]
        if len(self.partial) > self.limits.max_line + 1:
            self._refuse_line()

    def close(self) -> bytes | Refusal:
        """The whole mail's bytes if it kept within every limit, else what refused it."""
        if not self.refusal and self.partial:
            self._line(self.partial, b"")
        if self.refusal:
            return Refusal(reason=self.refusal, sender=self._header(b"reply-to:") or self._header(b"from:"),
                           subject=self._header(b"subject:")[:200], message_id=self._header(b"message-id:"))
        return _QUOTED_FROM.sub(rb"\1", self.held) if self.unquote_from else bytes(self.held)

    def _refuse(self, reason: str) -> None:
        self.refusal = reason
        self.held, self.partial, self.stack = bytearray(), b"", []  # the memory goes at once, not at the end

    def _refuse_line(self) -> None:
        self._refuse(f"a line of the mail is over the {self.limits.max_line:,}-byte limit on a line "
                     f"(--max-line)")

    def _line(self, text: bytes, eol: bytes) -> None:
        if len(text) > self.limits.max_line:
            return self._refuse_line()
        self.lines += 1
        if self.lines > self.limits.max_lines:
            return self._refuse(f"the mail has more than {self.limits.max_lines:,} lines, the limit "
                                f"(--max-lines)")
        if text.startswith(b"--") and self._separator(text.rstrip(b" \t")):
            return
        if self.in_headers:
            return self._header_line(text, eol)
        if self.stack and self.stack[-1].status and not text:
            self._part()

    def _separator(self, text: bytes) -> bool:
        """A '--boundary' line of an open multipart starts a part; '--boundary--' closes it (and all
        opened inside it)."""
        for i in range(len(self.stack) - 1, -1, -1):
            sep = self.stack[i].separator
            if sep is None or not text.startswith(sep):
                continue
            if text == sep:
                del self.stack[i + 1:]
                self._part()
                self._section()
                return True
            if text == sep + b"--":
                del self.stack[i:]
                self.in_headers = False
                return True
        return False

    def _part(self) -> None:
        self.parts += 1
        if self.parts > self.limits.max_parts:
            self._refuse(f"the mail has more than {self.limits.max_parts:,} MIME parts, the limit "
                         f"(--max-parts)")

    def _section(self) -> None:
        """A header section begins: a part's, or a message's inside this one."""
        self.in_headers, self.content_type, self.collecting = True, [], False

    def _header_line(self, text: bytes, eol: bytes) -> None:
        if not text or not _HEADER.match(text):
            return self._body_begins()
        folded = text[:1] in (b" ", b"\t")
        if not folded:
            self.collecting = not self.content_type and text[:13].lower() == b"content-type:"
            self.answer_field = next((h for h in _ANSWER_HEADERS if text[:len(h)].lower() == h), b"")
        if self.collecting:
            self.content_type.append(text + eol)
            if sum(map(len, self.content_type)) > self.limits.max_line:
                return self._refuse_line()
        if self.top and self.answer_field:
            self._keep_answer_header(text + eol)

    def _keep_answer_header(self, line: bytes) -> None:
        """The headers a refusal's answer needs, kept apart from the held bytes, each at most a line long."""
        lines = self.answer.setdefault(self.answer_field, [])
        if not lines or sum(map(len, lines)) + len(line) <= self.limits.max_line:
            lines.append(line)

    def _header(self, name: bytes) -> str:
        lines = self.answer.get(name)
        try:
            return str(_header_message(lines).get(name[:-1].decode(), "")).strip() if lines else ""
        except Exception:  # an unreadable header: the answer goes without it (to the host, untitled)
            return ""

    def _body_begins(self) -> None:
        """The header section has ended: open what its Content-Type says the body is."""
        self.in_headers, self.top = False, False
        parent = self.stack[-1] if self.stack else None
        kind = _body_kind(self.content_type, parent is not None and parent.digest)
        if kind is None:
            self._refuse("a Content-Type header of the mail cannot be read")
        elif kind[0] == "message/delivery-status":
            self._open(_Frame(separator=None, status=True))
        elif kind[0].startswith("message/"):
            self._open(_Frame(separator=None))
            self._section()
        elif kind[0].startswith("multipart/") and kind[1] is not None:
            self._open(_Frame(separator=b"--" + kind[1].encode("ascii", "surrogateescape"),
                              digest=kind[0] == "multipart/digest"))

    def _open(self, frame: _Frame) -> None:
        self.stack.append(frame)
        if len(self.stack) > self.limits.max_depth:
            self._refuse(f"the mail's MIME parts are nested more than {self.limits.max_depth:,} deep, the "
                         f"limit (--max-depth)")


def _header_message(lines: list[bytes], digest: bool = False) -> EmailMessage:
    """A message of one header field, read as the email parser reads it (the same policy, the same
    parameter rules), so that a boundary found here is the one the parser will use."""
    msg = EmailMessage(policy=email.policy.default)
    if digest:
        msg.set_default_type("message/rfc822")
    if lines:
        text = [line.decode("ascii", "surrogateescape") for line in lines]
        try:
            msg.set_raw(*email.policy.default.header_source_parse(text))
        except (ValueError, email.errors.MessageError):  # a field without a colon: no type stated
            pass
    return msg


def _body_kind(lines: list[bytes], digest: bool) -> tuple[str, str | None] | None:
    """The body's content type and boundary, read from its Content-Type as the email parser reads it;
    None if that cannot be read."""
    msg = _header_message(lines, digest)
    try:
        return msg.get_content_type(), msg.get_boundary()
    except Exception:  # the header parser raises more than MessageError; the mail is refused, not a traceback
        return None


def gated(chunks: Iterable[bytes], limits: Limits) -> bytes | Refusal:
    """One mail read from its chunks within the limits; reading stops at the first limit passed."""
    gate = Gate(limits)
    for chunk in chunks:
        gate.feed(chunk)
        if gate.refusal:
            break
    return gate.close()


def gunzip(data: bytes, limit: int, name: str) -> bytes:
    """A gzip member unpacked, never past `limit` bytes (then DataError, nothing more unpacked); DataError
    if it is not one whole gzip member."""
    out = bytearray()
    unpack = zlib.decompressobj(wbits=31)  # 31: the gzip header and trailer, checked
    try:
        pending = data
        while not unpack.eof:
            chunk = unpack.decompress(pending, limit + 1 - len(out))
            out += chunk
            if len(out) > limit:
                raise DataError(name, [f"unpacks past the {size_text(limit)} limit (max_unpacked): refused "
                                       "unread, a decompression bomb or no attachment of mn's"])
            pending = unpack.unconsumed_tail
            if not chunk and not pending:
                break
    except zlib.error as err:
        raise DataError(name, [f"not gzip data ({err})"]) from None
    if not unpack.eof or unpack.unused_data:
        raise DataError(name, ["not one whole gzip member (cut short, or with bytes after it)"])
    return bytes(out)
