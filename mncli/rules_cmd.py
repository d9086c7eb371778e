"""mn rules: the rules index and the rulings register, so that every citation can be looked up."""

from __future__ import annotations

import click

from mncli.common import emit_json, json_option, to_builtins
from mncore.errors import InvalidCommand
from mncore.rulebook import index, render_ruling, rulings


@click.command("rules")
@click.argument("section", required=False)
@json_option
def rules(section: str | None, as_json: bool) -> None:
    """Print the rules index and the rulings, or one SECTION (e.g. 4.2) or ruling (e.g. R1)."""
    idx, reg = index(), rulings()
    if section is None:
        if as_json:
            emit_json({"sections": idx, "rulings": [to_builtins(r) for r in reg.values()]})
            return
        click.echo("Rules index (empires-rulebook.md sections):")
        for sid, text in idx.items():
            click.echo(f"  {sid:<20} {text}")
        click.echo("\nRulings (docs/rulings.md):")
        for r in reg.values():
            click.echo(f"  {r.id:<20} {r.title}")
        return
    key = section.strip()
    key = key.upper() if key.lower().startswith("r") and key[1:].isdigit() else key
    if key in reg:
        if as_json:
            emit_json(to_builtins(reg[key]))
        else:
            click.echo(render_ruling(reg[key]).rstrip())
        return
    if key not in idx:
        near = [s for s in idx if s.startswith(key)]
        hint = f"; did you mean {', '.join(near[:8])}?" if near else "; mn rules lists them all"
        raise InvalidCommand(f"no section or ruling '{section}' in the rules index{hint}")
    citing = [r for r in reg.values() if key in r.clauses.split(":")[0] or f"{key}:" in r.clauses]
    if as_json:
        emit_json({"section": key, "title": idx[key], "rulings": [r.id for r in citing]})
        return
    click.echo(f"{key}  {idx[key]}")
    for r in citing:
        click.echo(f"  see ruling {r.id}: {r.title}")


COMMANDS = [rules]
