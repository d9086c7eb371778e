"""Names of the classic game's things: civilisations, roles, phases, units, buildings, card kinds."""

from __future__ import annotations

from typing import Literal, get_args

RULESET_ID = "mare-nostrum-classic-2003"
RULESET_VERSION = 1
ALIASES = ("classic-2003", "classic", "mythology")

Civ = str  # a civilisation id from the game data ("rome", "atlantis")
Role = Literal["director", "priest", "politician", "general"]
ROLES: tuple[Role, ...] = get_args(Role)
Phase = Literal["", "setup", "commerce", "offering", "construction", "military"]
PHASES: tuple[Phase, ...] = ("commerce", "offering", "construction", "military")
Building = Literal["city", "caravan", "temple", "market"]
BUILDINGS: tuple[Building, ...] = get_args(Building)
Unit = Literal["legion", "trireme", "fortress", "creature"]
UNITS: tuple[Unit, ...] = get_args(Unit)
Item = Literal["city", "caravan", "temple", "market", "legion", "trireme", "fortress", "creature"]
ITEMS: tuple[Item, ...] = get_args(Item)
Mover = Literal["legion", "creature"]
Aftermath = Literal["", "sack", "occupy", "convert"]
Variant = Literal["standard", "long"]
Setup = Literal["basic", "advanced"]
TAX = "tax"  # the tax card; every other card is a commodity named after its resource
