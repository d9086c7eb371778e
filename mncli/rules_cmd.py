"""mn rules: the rules index and the rulings register, so that every citation can be looked up."""

from __future__ import annotations

import click

from mncli.common import emit_json, json_option, ruleset_option, to_builtins
from mncore.core.errors import InvalidCommand
from mncore.core.kernel_rulings import KERNEL_BOOK
from mncore.core.protocol import Ruleset
from mncore.core.rulebook import render_ruling
from mncore.rulesets import registry


@click.command("rules")
@click.argument("section", required=False)
@ruleset_option
@click.option("--rulesets", "list_rulesets", is_flag=True, help="List the rulesets this engine knows.")
@json_option
def rules(section: str | None, ruleset_name: str, list_rulesets: bool, as_json: bool) -> None:
    """Print the rules index and the rulings, or one SECTION (e.g. 4.2, empires:4.2) or ruling (R1,
    or the kernel's K1, kernel:K1: docs/kernel-rulings.md).

    A citation names its ruleset (`[rule empires:4.2]`); a bare one is read in --ruleset's rulebook.
    """
    if list_rulesets:
        _rulesets(as_json)
        return
    kernel = (KERNEL_BOOK.bare(section.strip()) or "").upper() if section else ""
    if kernel in KERNEL_BOOK.rulings:  # the service's own rulings (K1...), whatever the game
        ruling = KERNEL_BOOK.rulings[kernel]
        emit_json(to_builtins(ruling)) if as_json else click.echo(render_ruling(ruling).rstrip())
        return
    ruleset = registry.by_name(ruleset_name)
    if section is not None and ":" in section:
        ruleset = registry.by_name(section.split(":", 1)[0])
    book = ruleset.rulebook
    idx, reg = book.index, book.rulings
    if section is None:
        if as_json:
            emit_json({"ruleset": ruleset.id, "namespace": book.namespace, "sections": idx,
                       "rulings": [to_builtins(r) for r in reg.values()]})
            return
        click.echo(f"Rules index of {ruleset.name} ({book.source} sections, cited as "
                   f"{book.namespace}:SECTION):")
        for sid, text in idx.items():
            click.echo(f"  {sid:<20} {text}")
        click.echo("\nRulings (docs/rulings.md):" if book.doc else "\nRulings:")
        for r in reg.values():
            click.echo(f"  {r.id:<20} {r.title}")
        return
    _one(ruleset, section, as_json)


def _one(ruleset: Ruleset, section: str, as_json: bool) -> None:
    book = ruleset.rulebook
    key = (book.bare(section.strip()) or "").strip()
    key = key.upper() if key.lower().startswith("r") and key[1:].isdigit() else key
    if key in book.rulings:
        if as_json:
            emit_json(to_builtins(book.rulings[key]))
        else:
            click.echo(render_ruling(book.rulings[key]).rstrip())
        return
    if key not in book.index:
        near = [s for s in book.index if s.startswith(key)]
        hint = f"; did you mean {', '.join(near[:8])}?" if near else "; mn rules lists them all"
        raise InvalidCommand(f"no section or ruling '{section}' in the rules index of "
                             f"{ruleset.name}{hint}")
    citing = [r for r in book.rulings.values()
              if key in r.clauses.split(":")[0] or f"{key}:" in r.clauses]
    if as_json:
        emit_json({"section": key, "title": book.index[key], "rulings": [r.id for r in citing],
                   "text_at": book.text_at or None})
        return
    click.echo(f"{book.qualify(key)}  {book.index[key]}")
    if book.text_at:
        # the title is ours; the rule's own words are not ours to ship, so say where they are
        click.echo(f"  (a summary in our own words; mn does not ship the rule's text: read section "
                   f"{key} in {book.text_at})")
    for r in citing:
        click.echo(f"  see ruling {r.id}: {r.title}")


def _rulesets(as_json: bool) -> None:
    names = registry.known()
    if as_json:
        emit_json(names)
        return
    for name in names:
        click.echo(name)


COMMANDS = [rules]
