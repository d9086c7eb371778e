"""Scripted players who play through `mn play` as separate processes: each reads its own Maildir (where the
SMTP server delivers its mail), picks from mn play's numbered orders (or fills a typed template) by a
seeded random choice weighted by a playing style, types it on stdin and has mn play send the signed
reply over SMTP (STARTTLS, AUTH)."""

from __future__ import annotations

import email
import email.policy
import mailbox
import os
import random
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from mncore.pbem.turns import MAX_STANDING
from mncore.rulesets.empires.ids import TOKENS
from mncore.rulesets.empires.players.autoplay import STYLES

MN = [sys.executable, "-m", "mncli"]
_NUMBERED = re.compile(r"^\s+(\d+)\. (.+)$")
_HEAD = re.compile(r"verified against head ([0-9a-f]+)\)")
_PART = re.compile(r"\{(\w+)\}")
PROMPT = "Orders, one a line"


@dataclass
class Screen:
    """What mn play showed before it asked for orders."""

    head: str = ""
    numbered: list[str] = field(default_factory=list)
    templates: dict[str, dict[str, list[str]]] = field(default_factory=dict)  # template -> part -> values
    asked: bool = False  # it waits for orders on stdin
    over: bool = False
    text: str = ""


def read_screen(lines: list[str]) -> Screen:
    s = Screen(text="".join(lines))
    section, template = "", ""
    for line in lines:
        if (m := _HEAD.search(line)) and not s.head:
            s.head = m[1]
        if line.startswith("The game is over."):
            s.over = True
        if line.startswith("Your legal orders now:"):
            section = "numbered"
        elif line.startswith("Or type one of these"):
            section = "templates"
        elif line.startswith(("Your queued orders", PROMPT)):
            section = ""
            s.asked = s.asked or line.startswith(PROMPT)
        elif section == "numbered" and (m := _NUMBERED.match(line)):
            s.numbered.append(m[2].strip())
        elif section == "templates" and line.startswith("    ") and ":" in line:
            part, _, values = line.strip().partition(":")
            s.templates[template][part] = [v.strip() for v in values.split("|") if v.strip()]
        elif section == "templates" and line.startswith("  "):
            template = line.strip()
            s.templates[template] = {}
    return s


def pick(screen: Screen, style: str, rand: random.Random) -> str:
    """One input line: a number from the list or a template filled with listed parts, weighted by
    the style's liking of its first word (autoplay.STYLES, as the demo's players)."""
    weights = STYLES[style]
    lines = [(str(n), text) for n, text in enumerate(screen.numbered, start=1)]
    for template, parts in screen.templates.items():
        names = _PART.findall(template)
        if names and all(parts.get(p) for p in names):
            filled = template
            for p in names:
                filled = filled.replace("{" + p + "}", rand.choice(parts[p]))
            lines.append((filled, filled))
    if not lines:
        return ""
    chosen = rand.choices(lines, weights=[weights.get(t.split()[0].lower(), 1.0) for _, t in lines])[0]
    return chosen[0]


def standing(side: str, empires: list[str], rand: random.Random) -> list[str]:
    """A player's standing orders (ruling K6, docs/standing-orders.md), mailed once: whom it names to
    build and to move, whom it gives a tied title, then its claims (every resource from every other
    empire, in an order of its own, as many as the limit leaves room for)."""
    names = list(empires)
    rand.shuffle(names)
    fixed = [*(f"builder {e}" for e in names), *(f"mover {e}" for e in names),
             *(f"title {track} to {e}" for track in ("trade", "culture", "military") for e in names)]
    claims = [f"claim {t} from {e}" for t in TOKENS for e in empires if e != side]
    rand.shuffle(claims)
    return [f"standing {line}" for line in [*fixed, *claims]][:MAX_STANDING]


def guesses(screen: Screen, picked: str, rand: random.Random, most: int = 3) -> list[str]:
    """Lines to queue (ruling K9) after the one picked: other listed orders of the same verb, as a
    player guesses its coming decisions of the round (a guess the game refuses drops the queue)."""
    chosen = screen.numbered[int(picked) - 1] if picked.isdigit() else picked
    verb = chosen.split()[0]
    if verb in ("done", "end", "trade"):
        return []
    same = [line for line in screen.numbered if line.split()[0] == verb and line != chosen]
    return [f"queue {line}" for line in rand.sample(same, min(most, len(same)))]


@dataclass
class Player:
    """One empire's player: its key, its Maildir, its style, what it answered last."""

    side: str
    key: Path
    maildir: Path
    style: str
    rand: random.Random
    answered: str = ""  # the head of the report last answered
    seen: int = 0  # mails in its Maildir already looked at
    sent: int = 0
    refused_checks: int = 0  # mn play found a problem and signed nothing (a template filled wrongly)
    undo: bool = False  # the next turn that follows a batch of its own applied takes it back
    standing: list[str] = field(default_factory=list)  # its standing orders, mailed when it is first asked
    undone: int = 0
    log: list[str] = field(default_factory=list)

    def box(self) -> mailbox.Maildir:
        self.maildir.parent.mkdir(parents=True, exist_ok=True)
        return mailbox.Maildir(str(self.maildir), create=True)

    def news(self) -> list[email.message.EmailMessage]:
        """The mails come since it last looked (Maildir names sort by arrival within this test)."""
        files = sorted((self.maildir / "new").iterdir(), key=lambda p: p.stat().st_mtime_ns)
        out = []
        for path in files[self.seen:]:
            msg = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
            assert isinstance(msg, email.message.EmailMessage)
            out.append(msg)
        self.seen = len(files)
        return out


def turn(player: Player, smtp: tuple[str, int], ca: Path, env: dict[str, str]) -> str:
    """The player's turn from its Maildir: mn play shows the latest report; when it asks for orders
    and that report is not answered yet, a line is picked and sent. Returns what happened."""
    for _ in range(4):  # a template filled with parts that do not go together: mn play refuses, pick again
        proc = subprocess.Popen([*MN, "play", str(player.maildir), "--key", str(player.key), "--smtp",
                                 f"{smtp[0]}:{smtp[1]}", "--smtp-ca", str(ca), "--from",
                                 f"{player.side}@example.org"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=env, text=True)
        assert proc.stdout is not None and proc.stdin is not None
        shown: list[str] = []
        for line in proc.stdout:
            shown.append(line)
            if line.startswith(PROMPT):
                break
        screen = read_screen(shown)
        if not screen.asked or screen.head == player.answered:
            out, err = proc.communicate("\n", timeout=120)
            if not screen.asked and proc.returncode != 0:
                raise AssertionError(f"mn play for {player.side} failed ({proc.returncode}): {err}{out}")
            return "over" if screen.over else "nothing"
        if player.standing:
            line, typed = "standing", player.standing
        elif player.undo:
            line, typed = "undo", ["undo"]
        else:
            line = pick(screen, player.style, player.rand)
            if not line:  # nothing it can pick or fill: it waits for the deadline's default
                proc.communicate("\n", timeout=120)
                return "nothing"
            typed = [line, *guesses(screen, line, player.rand)]
        out, err = proc.communicate("".join(t + "\n" for t in typed) + "\n", timeout=120)
        if proc.returncode == 0 and "Sent to " in out:
            player.answered, player.sent = screen.head, player.sent + 1
            player.undone += line == "undo"
            player.undo = False if line == "undo" else player.undo
            player.standing = []
            player.log.append(f"{screen.head[:8]} {line}")
            return "sent"
        if proc.returncode == 1 and "nothing was signed" in out + err:
            player.refused_checks += 1
            continue
        raise AssertionError(f"mn play for {player.side} ({line!r}) exited {proc.returncode}: {err}{out[-2000:]}")
    return "nothing"


def player_env(user: str, password: str) -> dict[str, str]:
    return {**os.environ, "MN_SMTP_USER": user, "MN_SMTP_PASSWORD": password}
