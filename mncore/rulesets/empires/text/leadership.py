"""Leadership orders as text (title TRACK to EMPIRE), and sentences for title events."""

from __future__ import annotations

from mncore.core.errors import InvalidCommand
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.commands import AnyOrder, AwardTitle
from mncore.rulesets.empires.display_names import title
from mncore.rulesets.empires.game_data import load_ruleset
from mncore.rulesets.empires.ids import TRACKS, Empire, Track
from mncore.rulesets.empires.text.parsing import Ctx
from mncore.rulesets.empires.typed_names import resolve, resolve_empire
from mncore.secrecy.seen import Withheld

USAGE = "title trade|culture|military to EMPIRE   (the previous holder breaks a tie, 5.0)"


def _title(ctx: Ctx, words: list[str]) -> AnyOrder:
    if len(words) != 3 or words[1].lower() != "to":
        raise InvalidCommand(f"usage: {USAGE}")
    track = resolve("track", words[0], {t: (t,) for t in TRACKS})
    return AwardTitle(empire=ctx.empire, track=track,  # type: ignore[arg-type]
                      to=resolve_empire(load_ruleset(), words[2]))


VERBS = {"title": _title}


def format_order(order: AnyOrder) -> str | None:
    match order:
        case AwardTitle(track=track, to=to):
            return f"title {track} to {to}"
    return None


def _levels(levels: dict[Empire, int]) -> str:
    return ", ".join(f"{title(e)} {_shown(n)}" for e, n in sorted(levels.items(), key=lambda x: -x[1]))


def _shown(n: int) -> str:
    """A track level as the board shows it: 15+3 past XV (5.0)."""
    return f"15+{n - 15}" if n > 15 else str(n)


def describe(event: ev.AnyEvent, withheld: Withheld) -> str | None:
    match event:
        case ev.TitleClaimed(track=track, empire=emp, levels=levels, decided_by=by, drawn=drawn):
            how = (f", {title(by)} breaking the tie" if by else "") + (", drawn among the tied" if drawn else "")
            return f"{title(emp)} is the {_track(track)} Leader ({_levels(levels)}{how})."
        case ev.TitleTied(track=track, holder=holder, tied=tied, levels=levels):
            return (f"{' and '.join(title(e) for e in tied)} tie for the {_track(track)} Leader title "
                    f"({_levels(levels)}); {title(holder)}, its previous holder, decides.")
    return None


def _track(track: Track) -> str:
    return track.title()
