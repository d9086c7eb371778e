"""Signed blocks that survive mail: the wrap-proof armour, old one-line blocks, and blocks found in
mail however it was quoted, wrapped, encoded or turned into HTML (mncore/pbem/signing.py, mncore/pbem/mail/blocks.py)."""

from __future__ import annotations

import textwrap

from mailkit import letter, nonce
from mncore.core.errors import SigningRefused
from mncore.core.kernel_acts import SignedOrders
from mncore.pbem import signing
from mncore.pbem.mail import blocks

PRIVATE, PUBLIC = "1" * 64, signing.public_of("1" * 64)
HEAD = "ab" * 32
LONG = "build legion in Macedonia pay 2 wine 1 oil 1 metal and then 1 grain 1 coin from the market"


def signed(*orders: str) -> SignedOrders:
    return signing.sign(PRIVATE, game="g1", side="red", seq=12, head=HEAD, orders=orders,
                        nonce=nonce("blocks"))


def one_line_armour(block: SignedOrders) -> str:
    """A block as mn wrote it before the wrap-proof armour: one line a field (the Signature 139 wide)."""
    lines = [signing.BEGIN, f"Game: {block.game}", f"Side: {block.side}", f"Seq: {block.seq}",
             f"Head: {block.head}", f"Key: {block.key}", f"Nonce: {block.nonce}",
             *(f"Order: {o}" for o in block.orders), f"Signature: {block.signature}", signing.END]
    return "\n".join(lines) + "\n"


def test_no_line_of_a_block_is_wider_than_64_columns() -> None:
    """Mail wraps at 72 or 78 columns and quoting adds two a level: every armoured line fits in 64."""
    text = signing.armour(signed("pass", LONG))

    assert max(len(line) for line in text.splitlines()) <= signing.WIDTH == 64
    assert "More: " in text


def test_a_wrap_proof_block_reads_back_exactly_and_its_signature_holds() -> None:
    """Hex fields cut over lines of their name and a long order over More lines join back exactly."""
    block = signed("pass", LONG, "a  double  spaced order that is long enough to need cutting somewhere")

    back = signing.parse_block(signing.armour(block), "mail")

    assert back == block and signing.signature_ok(back)


def test_a_block_written_one_line_a_field_is_still_read() -> None:
    """Blocks made before the wrap-proof armour (139-column Signature line) parse and verify as before."""
    block = signed("pass")

    assert signing.parse_block(one_line_armour(block), "old") == block


def test_a_more_line_without_an_order_before_it_is_refused() -> None:
    """More continues an Order line only: after the Nonce it is a malformed block, its line named."""
    text = signing.armour(signed("pass")).replace("Order: pass", "More: pass")

    try:
        signing.parse_block(text, "mail")
    except SigningRefused as err:
        assert err.message == "mail, line 10: a More line continues an Order line"
    else:
        raise AssertionError("a stray More line was accepted")


def test_a_quoted_block_is_found_at_any_depth() -> None:
    """'> ' and '> > ' and '>>' quoting, as replies add it, is taken off every line of the block."""
    text = signing.armour(signed("pass"))
    for prefix in ("> ", "> > ", ">>", ">"):
        quoted = "I send my orders:\n" + "".join(prefix + ln + "\n" for ln in text.splitlines())

        found = blocks.repaired(quoted)

        assert [signing.parse_block(b, "mail") for b in found] == [signed("pass")]


def test_an_old_block_wrapped_by_mail_at_72_or_78_columns_is_repaired() -> None:
    """A client breaking the 139-column Signature line (at its space, or inside the hex) and a long
    order line at a space: the lines are joined again, and the signature proves nothing changed."""
    block = signed("pass", LONG)
    for width in (72, 78):
        at_spaces = "\n".join(textwrap.fill(ln, width) for ln in one_line_armour(block).splitlines())
        hard = "\n".join("\n".join(ln[i:i + width] for i in range(0, len(ln), width))
                         if ln.startswith("Signature") else textwrap.fill(ln, width)
                         for ln in one_line_armour(block).splitlines())
        for text in (at_spaces, hard):
            assert max(len(ln) for ln in text.splitlines()) <= width

            back = [signing.parse_block(b, "mail") for b in blocks.repaired(text)]

            assert back == [block] and signing.signature_ok(back[0])


def test_a_block_edited_in_transit_is_still_caught_after_repair() -> None:
    """Repair only joins lines: an order changed in the mail fails the signature."""
    text = signing.armour(signed("pass")).replace("Order: pass", "Order: muster hill")

    back = signing.parse_block(blocks.repaired(text)[0], "mail")

    assert not signing.signature_ok(back)


def test_blocks_in_quoted_printable_base64_and_html_only_mails_are_found() -> None:
    """The body's transfer encoding is undone, and an HTML-only mail is read as its text."""
    text = signing.armour(signed("pass"))
    html = "<html><body><p>My orders</p><div>" + text.replace("\n", "<br>\n") + "</div></body></html>"
    mails = [letter(text, cte="quoted-printable"), letter(text, cte="base64"), letter("", html=html),
             letter("> " + text.replace("\n", "\n> "), cte="quoted-printable")]

    for msg in mails:
        assert [signing.parse_block(b, "mail") for b in blocks.found(msg)] == [signed("pass")]


def test_a_plain_and_html_copy_of_one_block_count_once_and_a_signature_after_it_is_ignored() -> None:
    """multipart/alternative carries the block twice; the sender's '-- ' signature is outside it."""
    text = signing.armour(signed("pass"))
    msg = letter(f"Hello\n\n{text}\n-- \nAnn, Rome\n",
                 html="<pre>" + text.replace("&", "&amp;") + "</pre><p>-- Ann</p>")

    assert len(blocks.found(msg)) == 1


def test_a_block_sent_as_a_text_attachment_is_found() -> None:
    """A player whose client mangles bodies attaches the block as a .txt file."""
    msg = letter("see the attachment")
    msg.add_attachment(signing.armour(signed("pass")).encode(), maintype="text", subtype="plain",
                       filename="orders.txt")

    assert len(blocks.found(msg)) == 1
