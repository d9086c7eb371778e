"""The role cards (2.1-2.3): who holds each, ties, the holder's choice, set-up's first holders."""

from __future__ import annotations

from mncore.core.errors import require
from mncore.rulesets.classic import commands as cm
from mncore.rulesets.classic import events as ev
from mncore.rulesets.classic.components import game_data
from mncore.rulesets.classic.ids import ROLES, Role
from mncore.rulesets.classic.rules.common import name, role_count
from mncore.rulesets.classic.state import State

ROLE_OF_PHASE: dict[str, Role] = {r.phase: r.id for r in game_data().role}


def first_holders(state: State) -> list[ev.AnyEvent]:
    """1.4: a civilisation's own role card; a card no player's civilisation brings goes to the most
    by its count, ties to the first in seat order (ruling C11)."""
    out: list[ev.AnyEvent] = []
    for role in ROLES:
        owner = next((c for c in state.civs if game_data().civ_of(c).role == role), "")
        if not owner:
            best = max(role_count(state, c, role) for c in state.civs)
            owner = next(c for c in state.civs if role_count(state, c, role) == best)
            out.append(ev.RoleAssigned(role=role, civ=owner, ruling="C11"))
        else:
            out.append(ev.RoleAssigned(role=role, civ=owner))
    return out


def assess(state: State, role: Role) -> list[ev.AnyEvent]:
    """2.1, 2.2: the most takes the card; a tie with the holder leaves it; others tied, he chooses."""
    holder = state.roles.get(role, "")
    counts = {c: role_count(state, c, role) for c in state.civs}
    best = max(counts.values())
    top = [c for c in state.civs if counts[c] == best]
    if holder in top:
        return []
    if len(top) == 1:
        return [ev.RoleAssigned(role=role, civ=top[0])]
    return [ev.RoleTied(role=role, holder=holder, tied=tuple(top))]


def award(state: State, cmd: cm.AwardRole) -> list[ev.AnyEvent]:
    """2.2: the holder gives the card to one of the others tied for it."""
    a = state.award
    require(a is not None, "2.2", "no role card waits to be awarded")
    assert a is not None
    require(cmd.civ == a.holder, "2.2", f"{name(state, a.holder)} awards the {name(state, a.role)} card")
    require(cmd.role == a.role, "2.2", f"the card to award is the {name(state, a.role)}")
    require(cmd.to in a.tied, "2.2", f"{name(state, cmd.to)} is not among those tied for it: "
                                     + ", ".join(name(state, c) for c in a.tied))
    return [ev.RoleAssigned(role=a.role, civ=cmd.to, ruling="2.2")]
