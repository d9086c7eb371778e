"""Signed order blocks found in mail: every text part read, quoting and wrapping undone, duplicates dropped.

Forgiving where mail is careless and nowhere else: the repaired text still goes through the strict
signing.parse_block and the signature check, so a repair can only recover a block as it was signed.
"""

from __future__ import annotations

import re
from email.message import EmailMessage, Message
from html.parser import HTMLParser

from mncore.pbem import signing

# one or more quoting marks at the start of a line ("> ", ">>", "> > "), as replies add them
_QUOTING = re.compile(r"^[ \t]*(?:>[ \t]?)+")
_FIELD = re.compile(r"^(Game|Side|Seq|Head|Key|Nonce|Order|More|Signature):( |$)")
_HEX_FIELDS = ("Head", "Key", "Nonce", "Signature")
_TEXT_FILES = (".txt", ".asc", ".text", ".sig")
_BREAKS = {"br", "p", "div", "pre", "tr", "li", "blockquote", "h1", "h2", "h3"}


class _Text(HTMLParser):
    """The text of an HTML body, one line per break, paragraph or block (enough to find a block)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._quoted = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _BREAKS:
            self.parts.append("\n")
        if tag == "blockquote":
            self._quoted += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in _BREAKS:
            self.parts.append("\n")
        if tag == "blockquote":
            self._quoted = max(0, self._quoted - 1)

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def html_text(html: str) -> str:
    """The text of an HTML mail body."""
    parser = _Text()
    parser.feed(html)
    parser.close()
    return "".join(parser.parts)


def texts(message: Message) -> list[str]:
    """Every text in a message a block may be in: its plain and HTML parts and text attachments,
    decoded (quoted-printable, base64, any charset)."""
    out: list[str] = []
    for part in message.walk():
        if part.is_multipart():
            continue
        kind = part.get_content_type()
        name = (part.get_filename() or "").lower()
        if kind not in ("text/plain", "text/html") and not name.endswith(_TEXT_FILES):
            continue
        text = _decoded(part)
        out.append(html_text(text) if kind == "text/html" else text)
    return out


def _decoded(part: Message) -> str:
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return str(part.get_payload())
    charset = part.get_content_charset() or "utf-8"
    try:
        return payload.decode(charset, errors="replace")
    except LookupError:  # a charset Python does not know: the block itself is ASCII
        return payload.decode("utf-8", errors="replace")


def repaired(text: str) -> list[str]:
    """Each block in a text, its quoting removed and its wrapped lines joined again.

    A line inside a block that starts no field continues the line before it: a hex field without a
    separator (wrapping cut a long hex line), anything else after one space (wrapping broke a line
    at a space, or after a field's name). Blank lines inside a block are dropped.
    """
    lines = [_QUOTING.sub("", ln.replace("\xa0", " ")).rstrip("\r").strip() for ln in text.split("\n")]
    out: list[str] = []
    inside: list[str] | None = None
    for line in lines:
        if line == signing.BEGIN:
            inside = []
        elif line == signing.END and inside is not None:
            out.append("\n".join([signing.BEGIN, *inside, signing.END]) + "\n")
            inside = None
        elif inside is not None and line:
            if _FIELD.match(line) or not inside:
                inside.append(line)
            else:
                last = inside[-1]
                glued = last.partition(":")[0] in _HEX_FIELDS and not last.endswith(":")
                inside[-1] += line if glued else " " + line
    return out


def found(message: Message | EmailMessage) -> list[str]:
    """The distinct blocks of a message, in order (a plain and an HTML copy of one block count once)."""
    seen: set[str] = set()
    out: list[str] = []
    for text in texts(message):
        for block in repaired(text):
            if block not in seen:
                seen.add(block)
                out.append(block)
    return out
