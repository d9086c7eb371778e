"""An SVG picture as a small PNG for a mail: drawn by resvg, stored as indexed colour by Pillow (libraries: no browser)."""

from __future__ import annotations

import io

import resvg_py
from PIL import Image

WIDTH = 1400  # pixels: the board's smallest labels stay legible (about 8 px high); its own width is 2006
COLOURS = 64  # a board has few flat colours: 64 keep every fill and the text's edges, at a fifth of the bytes


def png(svg: str, width: int = WIDTH, colours: int = COLOURS) -> bytes:
    """The picture scaled to `width` pixels, in at most `colours` colours, undithered so that text stays
    crisp; fonts are the system's (DejaVu Sans where installed)."""
    drawn = bytes(resvg_py.svg_to_bytes(svg_string=svg, background="#ffffff", width=width))
    image = Image.open(io.BytesIO(drawn)).convert("RGB")
    indexed = image.quantize(colors=colours, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    out = io.BytesIO()
    indexed.save(out, "PNG", optimize=True)
    return out.getvalue()
