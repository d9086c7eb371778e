"""One self-contained HTML page of a game: the board at every event, stepped with a slider or the keys (mn html)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from html import escape
from importlib import resources
from typing import Any

from mncore.audits.verify import Report
from mncore.core.protocol import Audits, Changes, Pictures, Ruleset
from mncore.games.reading import Loaded
from mncore.pbem import turns
from mncore.secrecy import boundary
from mncore.store import Row

DASHES = ("", "6,3", "2,3", "8,3,2,3", "1,2")  # each side's line has its own pattern, not only a colour


class Frames:
    """Every frame's picture as runs into one table of distinct lines: consecutive pictures share
    almost all their lines, so a long game stays small (the page joins them back)."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._index: dict[str, int] = {}
        self.frames: list[list[int]] = []

    def add(self, picture: str) -> None:
        runs: list[int] = []  # start, length, start, length...
        for line in picture.splitlines():
            i = self._index.setdefault(line, len(self.lines))
            if i == len(self.lines):
                self.lines.append(line)
            if runs and runs[-2] + runs[-1] == i:
                runs[-1] += 1
            else:
                runs += [i, 1]
        self.frames.append(runs)

    def picture(self, n: int) -> str:
        """Frame n (from 0) joined back, as the page's script does."""
        runs = self.frames[n]
        return "\n".join(self.lines[k] for s, c in zip(runs[::2], runs[1::2]) for k in range(s, s + c))


def game_page(loaded: Loaded, viewer: str | None, report: Report) -> str:
    """The page of a game for viewer (None: the host), every frame drawn from viewer's view only."""
    ruleset: Ruleset = loaded.ruleset
    states = (ruleset.named(s, loaded.game_id) for s in turns.states(ruleset, loaded.rows, loaded.events))
    return page(ruleset, loaded.game_id, loaded.rows, loaded.events, states, viewer,
                loaded.meta.secret is not None, report)


def page(ruleset: Ruleset, game_id: str, rows: Sequence[Row], events: Sequence[Any], states: Iterable[Any],
         viewer: str | None, opened: bool, report: Report) -> str:
    """game_page() of rows, their events and the state after each (an undo steps back: rulings K1,
    K3), from a stored game or a side's own export (mncore/client/exported.py)."""
    if not isinstance(ruleset, Pictures):
        raise TypeError(f"{ruleset.name} draws no pictures")
    # the one redaction boundary: commands viewer may not read whole are left out of explanations
    readable = boundary.rows_for(ruleset, rows, viewer, opened)
    frames, shown, rounds = Frames(), [], {}
    state = None
    for row, event, state in zip(rows, events, states):
        seen = boundary.seen_state(ruleset, state, viewer)
        if isinstance(ruleset, Changes):  # each frame marks what its own event did
            frames.add(ruleset.draw_changes(seen, [boundary.seen_event(ruleset, event, viewer, opened)]))
        else:
            frames.add(ruleset.draw_svg(seen))
        round_ = ruleset.meta(state).round
        rounds[round_] = ruleset.series(seen)  # the last event of each round stands for it
        explained = ""
        if isinstance(ruleset, Audits):
            explained = ruleset.render_explanation(boundary.explain(ruleset, readable, row.seq, viewer, opened))
        shown.append({"seq": row.seq, "round": round_,
                      "text": boundary.describe(ruleset, event, viewer, opened),
                      "explain": explained})
    meta = ruleset.meta(state)
    who = f"as {ruleset.side_name(viewer)} sees it" if viewer else "host view"
    data = {"lines": frames.lines, "frames": frames.frames, "events": shown}
    values = {"title": escape(f"Game {game_id} — {who}"), "verified": escape(_verified(report)),
              "verified_class": "ok" if report.ok else "failed",
              "proven": "".join(f"<li>{escape(line)}</li>" for line in _proven(report)),
              "chart": _chart(rounds, meta.sides, ruleset),
              # "</" would end the script element the data sits in; JSON reads "<\/" as "</"
              "data": json.dumps(data, separators=(",", ":")).replace("</", "<\\/")}
    template = resources.files("mncore.pictures").joinpath("page.html").read_text()
    return re.sub(r"\{\{(\w+)\}\}", lambda m: values[m[1]], template)


def _verified(report: Report) -> str:
    """One short line; what was proven is listed under it, on demand (_proven)."""
    if not report.ok:
        return f"Verification FAILED at event {report.first_bad}"
    return f"Verified: {report.events} events (details)"


def _proven(report: Report) -> list[str]:
    if not report.ok:
        return [str(report.reason)]
    return [line[:1].upper() + line[1:] for line in report.proven]


def _chart(rounds: dict[int, dict[str, dict[str, float]]], sides: tuple[str, ...], ruleset: Any) -> str:
    """One small line chart per series over the rounds, a cursor line at the current round."""
    if not rounds:
        return ""
    first, last = min(rounds), max(rounds)
    names = list(next(iter(rounds.values())))
    top = max([1.0] + [v for r in rounds.values() for s in r.values() for v in s.values()])
    w, h, left, right = 400, 120, 28, 70
    x0, x1 = left, w - right

    def x(r: int) -> float:
        return x0 + (x1 - x0) * (r - first) / max(last - first, 1)

    out = []
    for name in names:
        parts = [f'<svg class="chart" viewBox="0 0 {w} {h}" data-first="{first}" data-last="{last}" '
                 f'data-x0="{x0}" data-x1="{x1}" role="img" aria-label="{escape(name)} over the rounds">',
                 f'<text x="{x0}" y="12" font-weight="bold" font-size="12">{escape(name)}</text>',
                 f'<line x1="{x0}" y1="{h - 18}" x2="{x1}" y2="{h - 18}" stroke="#999"/>',
                 f'<text x="{x0}" y="{h - 4}" font-size="10">round {first}</text>',
                 f'<text x="{x1}" y="{h - 4}" font-size="10" text-anchor="end">round {last}</text>',
                 f'<text x="{x0 - 4}" y="24" font-size="10" text-anchor="end">{top:g}</text>']
        ends: list[tuple[float, str]] = []
        for i, side in enumerate(sides):
            points = [(x(r), h - 18 - (h - 40) * values[name].get(side, 0) / top)
                      for r, values in sorted(rounds.items())]
            path = " ".join(f"{px:.1f},{py:.1f}" for px, py in points)
            colour = ruleset.side_colour(side)
            parts.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2" '
                         f'stroke-dasharray="{DASHES[i % len(DASHES)]}" data-side="{escape(side)}"/>')
            ends.append((points[-1][1], f'{escape(ruleset.side_name(side))} {rounds[last][name].get(side, 0):g}'))
        y = 0.0
        for end_y, label in sorted(ends):  # the names at the lines' ends, never on top of each other
            y = max(end_y + 4, y + 11)
            parts.append(f'<text x="{x1 + 4}" y="{y:.1f}" font-size="10">{label}</text>')
        parts.append(f'<line class="cursor" x1="{x0}" y1="16" x2="{x0}" y2="{h - 18}" stroke="#000" '
                     'stroke-width="1" stroke-dasharray="3,2"/></svg>')
        out.append("".join(parts))
    return "\n".join(out)
