"""Player keys and signed order blocks: Ed25519 (the `cryptography` package) in strict armoured text.

A block is what a player sends the host: plain text that survives email, every field on its own line,
signed over a canonical encoding of its fields (`message()`), so that any edit fails the signature.
A key file holds one side's private key for one game. Formats and threat model: docs/security.md.
"""

from __future__ import annotations

import os
import re
import secrets
from collections.abc import Sequence

import msgspec

from mncore.core.errors import DataError, SigningRefused
from mncore.core.kernel_acts import SignedOrders

BEGIN = "-----BEGIN MARE NOSTRUM ORDERS-----"
END = "-----END MARE NOSTRUM ORDERS-----"
KEY_BEGIN = "-----BEGIN MARE NOSTRUM PRIVATE KEY-----"
KEY_END = "-----END MARE NOSTRUM PRIVATE KEY-----"
# a domain tag, so that a signature over a block can never pass for a signature over anything else
DOMAIN = b"mare-nostrum signed orders v1\n"
NONCE_BYTES = 16

_HEX64 = re.compile(r"[0-9a-f]{64}")
_HEX128 = re.compile(r"[0-9a-f]{128}")
_NONCE = re.compile(rf"[0-9a-f]{{{2 * NONCE_BYTES}}}")
_SEQ = re.compile(r"[1-9][0-9]{0,11}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class _Signed(msgspec.Struct, frozen=True, kw_only=True):
    """What a signature covers, in this field order: every field of the block but the signature."""

    game: str
    side: str
    seq: int
    head: str
    key: str
    nonce: str
    orders: tuple[str, ...]


_ENCODER = msgspec.json.Encoder()


def message(block: SignedOrders) -> bytes:
    """The bytes a block's signature covers: the domain tag, then canonical JSON of its fields."""
    return DOMAIN + _ENCODER.encode(_Signed(game=block.game, side=block.side, seq=block.seq,
                                            head=block.head, key=block.key, nonce=block.nonce,
                                            orders=block.orders))


def draw_key(block: SignedOrders) -> str:
    """What keys the draws of a signed batch, with the game's secret: its signature (docs/security.md).

    The signature binds the head the player answered and the player's fresh nonce; the host cannot
    make another without the player's key, and the player cannot foresee the draws without the secret.
    """
    return "signed:" + block.signature


# --- keys ----------------------------------------------------------------------------------------

def new_keypair() -> tuple[str, str]:
    """A fresh Ed25519 key pair: (private key, public key), each 32 bytes as hex."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    key = Ed25519PrivateKey.generate()
    private = key.private_bytes_raw().hex()
    return private, public_of(private)


def public_of(private: str) -> str:
    """The public key of a private key (hex)."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    key = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(private))
    return key.public_key().public_bytes_raw().hex()


def valid_public_key(text: str) -> bool:
    """Whether text is 64 lowercase hex digits that decode as an Ed25519 public key."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    if not _HEX64.fullmatch(text):
        return False
    try:
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(text))
    except ValueError:
        return False
    return True


def signature_ok(block: SignedOrders) -> bool:
    """Whether the block's signature is valid for its own fields under its own key."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    if not (_HEX64.fullmatch(block.key) and _HEX128.fullmatch(block.signature)):
        return False
    try:
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(block.key)).verify(
            bytes.fromhex(block.signature), message(block))
    except (InvalidSignature, ValueError):
        return False
    return True


def sign(private: str, *, game: str, side: str, seq: int, head: str, orders: Sequence[str],
         nonce: str | None = None) -> SignedOrders:
    """A block of orders signed with a side's private key; a fresh nonce unless one is given (tests)."""
    lines = tuple(o.strip() for o in orders)
    unsigned = SignedOrders(game=game, side=side, seq=seq, head=head, key=public_of(private),
                            nonce=nonce or secrets.token_hex(NONCE_BYTES), orders=lines,
                            signature="0" * 128)
    problems = _field_problems(unsigned)
    if problems:
        raise SigningRefused(f"cannot sign: {problems[0]}")
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    key = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(private))
    return msgspec.structs.replace(unsigned, signature=key.sign(message(unsigned)).hex())


def _field_problems(block: SignedOrders) -> list[str]:
    out = []
    for name in ("game", "side"):
        value = getattr(block, name)
        if not value or value != value.strip() or _CONTROL.search(value) or " " in value:
            out.append(f"{name} '{value}' must be one word")
    if not _HEX64.fullmatch(block.head):
        out.append(f"head '{block.head}' must be a hash of 64 lowercase hex digits (your report's receipt shows it)")
    if not 1 <= block.seq < 10 ** 12:
        out.append(f"seq {block.seq} must be an event number from 1")
    if not _NONCE.fullmatch(block.nonce):
        out.append(f"the nonce must be {2 * NONCE_BYTES} lowercase hex digits")
    if not block.orders:
        out.append("a block needs at least one order")
    for n, line in enumerate(block.orders, start=1):
        if not line or line != line.strip() or _CONTROL.search(line):
            out.append(f"order {n} '{line}' must be one non-empty line")
    return out


# --- the armoured block ----------------------------------------------------------------------------

WIDTH = 64  # no armoured line is longer: mail wraps at 72 or 78 columns, quoting adds "> " a level
_HEX_PIECE = 32  # a hex field is cut into pieces of this many digits, one line each
_HEX_FIELDS = ("Head", "Key", "Nonce", "Signature")
MORE = "More"  # the field that continues the Order line before it


def armour(block: SignedOrders) -> str:
    """The block as text, one field a line between BEGIN and END lines (ends with a newline).

    No line is longer than WIDTH, so that mail never wraps it: a hex field is cut into lines of
    the same name (joined back without a separator), a long order continues on More lines (joined
    back with one space). Blocks written before this (one line a field) are read as they were.
    """
    lines = [BEGIN, f"Game: {block.game}", f"Side: {block.side}", f"Seq: {block.seq}"]
    for name, value in (("Head", block.head), ("Key", block.key), ("Nonce", block.nonce)):
        lines += _hex_lines(name, value)
    for order in block.orders:
        first, *rest = _cut(order, WIDTH - len("Order: "))
        lines += [f"Order: {first}", *(f"{MORE}: {r}" for r in rest)]
    lines += [*_hex_lines("Signature", block.signature), END]
    return "\n".join(lines) + "\n"


def _hex_lines(name: str, value: str) -> list[str]:
    return [f"{name}: {value[i:i + _HEX_PIECE]}" for i in range(0, len(value), _HEX_PIECE)] or [f"{name}: "]


def _cut(text: str, width: int) -> list[str]:
    """Text cut at single spaces into pieces of at most width characters where it can be; joining
    the pieces with one space gives the text back exactly (a double space is never a cut)."""
    pieces: list[str] = []
    while len(text) > width:
        cuts = [i for i in range(1, min(width, len(text) - 1) + 1)
                if text[i] == " " and text[i - 1] != " " and text[i + 1] != " "]
        if not cuts:
            break
        pieces.append(text[:cuts[-1]])
        text = text[cuts[-1] + 1:]
    return [*pieces, text]


def parse_block(text: str, source: str) -> SignedOrders:
    """The one block in text (lines outside BEGIN/END are ignored); SigningRefused naming the line.

    Strict: the fields in their order, one space after each colon, nothing else between BEGIN and
    END. Only line ends are forgiven (CR LF, trailing blanks), as mail may change them. A hex field
    may run over several lines of its name, an order over More lines (armour). The signature is
    not checked here.
    """
    lines = [ln.rstrip("\r").rstrip(" \t") for ln in text.split("\n")]
    begins = [i for i, ln in enumerate(lines) if ln == BEGIN]
    ends = [i for i, ln in enumerate(lines) if ln == END]
    if not begins or not ends:
        raise SigningRefused(f"{source}: no signed order block (a '{BEGIN}' line and an "
                             f"'{END}' line); make one with mn sign")
    if len(begins) > 1 or len(ends) > 1:
        raise SigningRefused(f"{source}: more than one signed block; give one block at a time")
    first, last = begins[0], ends[0]
    if last < first:
        raise SigningRefused(f"{source}, line {last + 1}: END comes before BEGIN")
    pairs = _fields(lines, first, last, source)
    header = ["Game", "Side", "Seq", "Head", "Key", "Nonce"]
    orders = max(1, len(pairs) - len(header) - 1)
    shape = [*header, *["Order"] * orders, "Signature"]
    for (n, name, _), want in zip(pairs, shape):
        if name != want:
            raise SigningRefused(f"{source}, line {n}: expected the {want} line, found '{name}'")
    if len(pairs) < len(shape):
        raise SigningRefused(f"{source}, line {last + 1}: the block ends without its "
                             f"{shape[len(pairs)]} line")
    fields: dict[str, list[str]] = {}
    for _, name, value in pairs:
        fields.setdefault(name, []).append(value)
    if not _SEQ.fullmatch(fields["Seq"][0]):
        raise SigningRefused(f"{source}: Seq '{fields['Seq'][0]}' is not an event number")
    block = SignedOrders(game=fields["Game"][0], side=fields["Side"][0], seq=int(fields["Seq"][0]),
                         head=fields["Head"][0], key=fields["Key"][0], nonce=fields["Nonce"][0],
                         orders=tuple(fields["Order"]), signature=fields["Signature"][0])
    problems = _field_problems(block)
    if not _HEX64.fullmatch(block.key):
        problems.append("Key must be 64 lowercase hex digits")
    if not _HEX128.fullmatch(block.signature):
        problems.append("Signature must be 128 lowercase hex digits")
    if problems:
        raise SigningRefused(f"{source}: {'; '.join(problems)}")
    return block


def _fields(lines: list[str], first: int, last: int, source: str) -> list[tuple[int, str, str]]:
    """The fields between BEGIN and END as (line number, name, value): consecutive lines of one hex
    field joined, each More line joined to the Order before it with one space."""
    out: list[tuple[int, str, str]] = []
    for i in range(first + 1, last):
        name, sep, value = lines[i].partition(": ")
        if not sep:
            raise SigningRefused(f"{source}, line {i + 1}: '{lines[i]}' is not 'Name: value'")
        prev = out[-1] if out else None
        if name == MORE:
            if prev is None or prev[1] != "Order":
                raise SigningRefused(f"{source}, line {i + 1}: a More line continues an Order line")
            out[-1] = (prev[0], prev[1], f"{prev[2]} {value}")
        elif prev is not None and name == prev[1] and name in _HEX_FIELDS:
            out[-1] = (prev[0], name, prev[2] + value)
        else:
            out.append((i + 1, name, value))
    return out


def block_from_command(command: SignedOrders) -> SignedOrders:
    """A stored block, held to the same strictness as a block read from text (verify)."""
    problems = _field_problems(command)
    if problems:
        raise SigningRefused("; ".join(problems))
    return command


# --- key files -------------------------------------------------------------------------------------

class KeyFile(msgspec.Struct, frozen=True, kw_only=True):
    """One side's key pair for one game, as its player keeps it."""

    game: str
    side: str
    public: str
    private: str


def key_text(key: KeyFile) -> str:
    """A key file's text: a comment saying what it is, then the armoured fields."""
    return "\n".join([
        f"# The private key of side {key.side} in game {key.game}: whoever holds it gives that",
        "# side's orders. Keep it secret; sign orders with: mn sign --key THIS-FILE ...",
        KEY_BEGIN, f"Game: {key.game}", f"Side: {key.side}", f"Public: {key.public}",
        f"Private: {key.private}", KEY_END]) + "\n"


def write_key_file(path: str, key: KeyFile) -> None:
    """Write a key file readable by its owner only (0600); refuses to replace an existing file."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise DataError(path, ["a file is already there; keys are never overwritten"]) from None
    except OSError as err:
        raise DataError(path, [f"cannot write it ({err.strerror})"]) from None
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(key_text(key))


def read_key_file(path: str) -> KeyFile:
    """A key file, strictly read; DataError naming what is wrong (its public and private must agree)."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as err:
        raise DataError(path, [f"cannot read it ({err.strerror})"]) from None
    except UnicodeDecodeError:
        raise DataError(path, ["not a mare-nostrum key file (not UTF-8 text)"]) from None
    lines = [ln.rstrip("\r").rstrip(" \t") for ln in text.split("\n")]
    if lines.count(KEY_BEGIN) != 1 or lines.count(KEY_END) != 1:
        raise DataError(path, [f"not a mare-nostrum key file (one '{KEY_BEGIN}' and one "
                               f"'{KEY_END}' line expected)"])
    inside = lines[lines.index(KEY_BEGIN) + 1:lines.index(KEY_END)]
    names = ["Game", "Side", "Public", "Private"]
    if len(inside) != len(names):
        raise DataError(path, [f"a key file holds {', '.join(names)}, one a line"])
    values = []
    for n, (name, line) in enumerate(zip(names, inside, strict=True), start=lines.index(KEY_BEGIN) + 2):
        got, sep, value = line.partition(": ")
        if got != name or not sep or not value:
            raise DataError(path, [f"line {n}: expected '{name}: ...'"])
        values.append(value)
    key = KeyFile(game=values[0], side=values[1], public=values[2], private=values[3])
    if not _HEX64.fullmatch(key.private) or not valid_public_key(key.public):
        raise DataError(path, ["Public and Private must each be 64 lowercase hex digits"])
    if public_of(key.private) != key.public:
        raise DataError(path, ["its Public key is not the public key of its Private key (edited?)"])
    return key


def make_key_files(folder: str, game: str, sides: Sequence[str]) -> dict[str, tuple[str, str]]:
    """A fresh key pair for each side, its private key written to FOLDER/GAME-SIDE.key (0600);
    side -> (path, public key). All or nothing: a file that cannot be written removes the others."""
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
    except OSError as err:
        raise DataError(folder, [f"cannot make the keys folder ({err.strerror})"]) from None
    out: dict[str, tuple[str, str]] = {}
    try:
        for side in sides:
            private, public = new_keypair()
            path = os.path.join(folder, f"{game}-{side}.key")
            write_key_file(path, KeyFile(game=game, side=side, public=public, private=private))
            out[side] = (path, public)
    except BaseException:
        remove_key_files(out)
        raise
    return out


def remove_key_files(made: dict[str, tuple[str, str]]) -> None:
    """Remove key files made for a game that was not created after all."""
    for path, _ in made.values():
        try:
            os.unlink(path)
        except OSError:
            pass  # already gone: nothing to undo
