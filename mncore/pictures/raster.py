"""An SVG picture as PNG bytes, drawn by resvg (a library: no browser, no system graphics stack)."""

from __future__ import annotations

import resvg_py


def png(svg: str) -> bytes:
    """The picture at its own size; fonts are the system's (DejaVu Sans where installed)."""
    data = resvg_py.svg_to_bytes(svg_string=svg, background="#ffffff")
    return bytes(data)
