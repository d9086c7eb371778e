"""The classic board in words and JSON for `mn map --ruleset classic`: provinces, seas, borders."""

from __future__ import annotations

from typing import Any

from mncore.core.name_matching import resolve
from mncore.rulesets.classic.components import Board, load_board

NOTE = ("RECONSTRUCTED, NOT THE PRINTED BOARD: the 2003 board with the Mythology board on its western "
        "edge, rebuilt from geography and the places the rules name (docs/board.md); correct it with a "
        "board file of your own (mn new --ruleset classic --board FILE).")


def _place(board: Board, text: str) -> str:
    entries = {p.id: [p.name] for p in board.province} | {s.id: [s.name] for s in board.sea}
    return resolve("province or sea", text, entries)


def map_text(place: str | None, board_file: str | None) -> str:
    board = load_board(board_file)
    if place is not None:
        return "\n".join(_lines(board, _place(board, place)))
    lines = [board.name, NOTE if board.reconstructed else "", "",
             f"Provinces ({len(board.province)})"]
    for p in board.province:
        lines += _lines(board, p.id)
    lines += ["", f"Seas ({len(board.sea)})"]
    for s in board.sea:
        lines += _lines(board, s.id)
    return "\n".join(line for line in lines if line is not None)


def _lines(board: Board, pid: str) -> list[str]:
    if board.is_sea(pid):
        sea = board.sea_of(pid)
        coasts = [p.name for p in board.province if pid in p.seas]
        return [f"  {sea.name}: seas {', '.join(board.name_of(s) for s in sea.adjacent)}; "
                f"coasts {', '.join(coasts)}"]
    p = board.prov(pid)
    tags = ([f"capital of {p.capital}"] if p.capital else []) + (["island"] if p.island else [])
    return [f"  {p.name}{' (' + ', '.join(tags) + ')' if tags else ''}: {p.cities} city site(s); "
            f"resources {', '.join(p.resources) or 'none'}; borders "
            f"{', '.join(board.name_of(x) for x in p.land) or 'none'}; seas "
            f"{', '.join(board.name_of(s) for s in p.seas) or 'none'}"]


def map_json(place: str | None, board_file: str | None) -> Any:
    board = load_board(board_file)
    if place is None:
        return board
    pid = _place(board, place)
    return board.sea_of(pid) if board.is_sea(pid) else board.prov(pid)


def check_board_file(path: str) -> str:
    """A summary of a valid board file; InvalidCommand listing every problem otherwise."""
    board = load_board(path)
    return (f"{path}: ok — {len(board.province)} provinces, {len(board.sea)} seas "
            f"(digest {board.digest()[:16]})")
