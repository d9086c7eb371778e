"""mn new, status, show, replay, log, order, options, reveal, fork: playing and reading games."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, get_args

import click

from mncli.common import (
    as_option,
    emit_json,
    is_export_path,
    json_option,
    kept_option,
    no_kept,
    open_store,
    order_lines,
    ruleset_option,
    side_arg,
    to_builtins,
)
from mncore.core.actors import act_label
from mncore.core.dice import new_secret, seeded_secret
from mncore.core.errors import CommandRejected, InvalidCommand, SigningRefused
from mncore.core.kernel_acts import PublishKeys
from mncore.core.kernel_state import seated, undone_seqs
from mncore.core.name_matching import resolve_side_in_game, sides_in_words, suggest
from mncore.core.protocol import NewGame, Ruleset
from mncore.games import reading
from mncore.pbem import draw_keys, turns
from mncore.rulesets import registry
from mncore.secrecy import boundary
from mncore.store import Row

if TYPE_CHECKING:
    from mncore.games import writing


@click.command("new")
@click.option("--empire", "empires", multiple=True, metavar="EMPIRE",
              help="A side (empire) in play; repeat it for each, as many as the ruleset plays.")
@click.option("--player", "players", multiple=True, metavar="EMPIRE=NAME|NAME",
              help="Who plays an empire (EMPIRE=NAME), or with --random a player's name.")
@click.option("--random", "random_empires", is_flag=True,
              help="Draw each --player NAME's empire at random from the game's secret.")
@click.option("--seed", default=None, metavar="TEXT",
              help="Use a known secret made from TEXT (tests, sandboxes): NOT a fair-play game.")
@click.option("--board", "board_file", type=click.Path(dir_okay=False), default=None,
              help="A board file of your own (checked first; see mn map check).")
@click.option("--display", type=click.Choice(["first-game", "experienced"]), default="first-game",
              show_default=True, help="The hero and wonder display of set-up step 5.")
@click.option("--option", "game_options", multiple=True, metavar="KEY=VALUE",
              help="One of the ruleset's own options, e.g. variant=long (docs/classic.md).")
@click.option("--setup", "setup", default=None, metavar="NAME",
              help="A set-up variant of the ruleset (mn rules lists them); it plays its own empires, "
                   "so --empire may be left out [default: the standard one].")
@click.option("--expansion", "expansions", multiple=True, metavar="NAME",
              help="An expansion of the ruleset to play with (repeatable; Empires: the Legendary Cities).")
@click.option("--id", "game_id", default=None, help="The new game's id [default: a random one].")
@click.option("--position", "position_file", type=click.Path(dir_okay=False), default=None,
              help="Start a sandbox game at the position in this file (docs/positions.md).")
@click.option("--keys-dir", "keys_dir", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="Make a key pair per side: publish the public keys in the log, write each private "
                   "key to DIR/GAME-SIDE.key (mode 0600) for its player; orders may then be signed.")
@click.option("--public-key", "public_keys", multiple=True, metavar="SIDE=HEX",
              help="Publish a key a player made (mn keygen) for SIDE instead of making one.")
@click.option("--signed-only", is_flag=True,
              help="Take signed orders only (mn order --signed): refuse every unsigned order.")
@click.option("--draw-scheme", "draw_scheme", type=click.Choice(sorted(draw_keys.SCHEMES)), default=None,
              hidden=True, help="How the service's acts and a phase's end draw (rulings K10, K11); an "
                                "older scheme only to play again a game recorded under it, which its "
                                "log then says.")
@ruleset_option
@click.pass_context
def new(ctx: click.Context, empires: tuple[str, ...], players: tuple[str, ...], random_empires: bool,
        seed: str | None, board_file: str | None, display: str, setup: str | None,
        game_options: tuple[str, ...], expansions: tuple[str, ...], game_id: str | None,
        position_file: str | None, keys_dir: str | None, public_keys: tuple[str, ...], signed_only: bool,
        draw_scheme: str | None, ruleset_name: str) -> None:
    """Create a game and print its id alone on stdout.

    \b
    mn new --empire EMPIRE --empire EMPIRE ... [--player EMPIRE=NAME ...]
    mn new --random --player NAME --player NAME ...
    mn new --position FILE [--seed TEXT]   (a sandbox game at a position)
    mn new --ruleset NAME ...              (another game on the same kernel)
    mn new ... --keys-dir DIR [--signed-only]  (players sign their orders: docs/security.md)
    mn new ... --expansion NAME [--expansion NAME]  (the ruleset's expansions)
    """
    ruleset = registry.by_name(ruleset_name)
    keyed = bool(keys_dir or public_keys or signed_only)
    if position_file is not None and keyed:
        raise InvalidCommand("a game started at a position is a sandbox: it takes no keys")
    if draw_scheme is not None and not keyed:
        raise InvalidCommand("--draw-scheme is the scheme of a game with keys: give --keys-dir or "
                             "--public-key too")
    if position_file is not None:
        from mncli.audit_cmds import new_from_position
        click.echo(new_from_position(ctx, ruleset, position_file, seed, game_id,
                                     bool(empires or players or random_empires or board_file or setup
                                          or expansions)))
        return
    options = {"display": display} if display != "first-game" else {}
    for item in game_options:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise InvalidCommand(f"--option {item}: write KEY=VALUE")
        options[key.strip()] = value.strip()
    if setup is not None:
        options["setup"] = setup
    if expansions:
        options["expansions"] = ",".join(expansions)
    spec = NewGame(sides=empires, players=players, random_sides=random_empires, board_file=board_file,
                   fair_play=seed is None, options=options)
    cmd = ruleset.new_game(spec)
    secret = seeded_secret(seed) if seed is not None else new_secret()
    from mncore.games import writing  # the commands that write import it, not every command (a lean start)
    if keyed:
        made = _new_with_keys(ctx, ruleset, cmd, secret, game_id or writing.new_game_id(), keys_dir,
                              public_keys, signed_only,
                              draw_keys.SCHEMES[draw_scheme] if draw_scheme else draw_keys.LATEST)
    else:
        made = writing.create(lambda: open_store(ctx, create=True), ruleset, cmd, secret, game_id).game_id
    click.echo(made)
    for notice in reading.current(open_store(ctx), made).meta.notices:  # stderr: stdout is the id alone
        click.echo(f"Note: {notice}", err=True)


def _new_with_keys(ctx: click.Context, ruleset: Ruleset, cmd: Any, secret: bytes, game_id: str,
                   keys_dir: str | None, public_keys: tuple[str, ...], signed_only: bool,
                   draws: int) -> str:
    """Create a game whose second batch publishes a key per side; the private keys made here are
    written before the game is stored and removed again if it cannot be."""
    from mncore.games import writing
    from mncore.pbem import signing  # imported by the commands that sign, not by every command

    _, state = writing.creation(ruleset, cmd, secret)
    sides = ruleset.meta(state).sides
    given: dict[str, str] = {}
    for item in public_keys:
        side_text, sep, key = item.partition("=")
        if not sep:
            raise InvalidCommand(f"--public-key {item}: write SIDE=HEX")
        side = ruleset.resolve_side(side_text)
        if side not in sides:
            raise InvalidCommand(f"--public-key {item}: {ruleset.side_name(side)} is not in this game")
        if not signing.valid_public_key(key.strip().lower()):
            raise InvalidCommand(f"--public-key {item}: not an Ed25519 public key (64 hex digits)")
        given[side] = key.strip().lower()
    missing = [s for s in sides if s not in given]
    if missing and keys_dir is None:
        raise InvalidCommand(f"keys are needed for {', '.join(ruleset.side_name(s) for s in missing)}: "
                             "give --keys-dir DIR to make them (or --public-key SIDE=HEX)")
    made = signing.make_key_files(keys_dir, game_id, missing) if keys_dir and missing else {}
    keys = PublishKeys(keys={s: given[s] if s in given else made[s][1] for s in sides},
                       signed_only=signed_only, draws=draws)
    try:
        loaded = writing.create(lambda: open_store(ctx, create=True), ruleset, cmd, secret, game_id, keys)
    except BaseException:
        signing.remove_key_files(made)
        raise
    for side, (path, _) in made.items():
        click.echo(f"wrote {path}: the private key of {ruleset.side_name(side)}; hand it to its "
                   "player alone", err=True)
    return loaded.game_id


@click.command("status")
@click.argument("game_id", metavar="GAME")
@click.option("--now", "now", default=None, metavar="TIME",
              help="The time to judge deadlines at (ISO 8601) [default: the clock].")
@json_option
@click.pass_context
def status(ctx: click.Context, game_id: str, now: str | None, as_json: bool) -> None:
    """Round, phase, who must act and what decision is pending; with deadlines (mn deadline), since
    when each side has been waited for, and who is overdue since when."""
    store = open_store(ctx)
    loaded = reading.current(store, game_id)
    at = turns.parse_time(now) if now else reading.utc_now()
    waiting: dict[str, turns.Waiting] = {}
    if loaded.ledger.pbem:  # a game by mail (imported only then: a lean start)
        from mncore.games import by_mail
        waiting = by_mail.waiting(store, game_id, loaded)
    if as_json:
        doc = boundary.view(loaded.ruleset, loaded.state, None)  # only the public keys below
        out: dict[str, Any] = {k: doc[k] for k in ("game", "round", "phase", "fair_play", "sandbox", "winner",
                                   "pending", "titles") if k in doc}
        ledger = loaded.ledger
        out["head"] = {"seq": loaded.head[0], "hash": loaded.head[1]}
        out["signing"] = ({"keys": ledger.keys, "signed_only": ledger.signed_only,
                           "draws": draw_keys.scheme_name(ledger.draws)} if ledger.published else None)
        if waiting:
            out["waiting"] = [{"side": w.side, "since": w.since, "since_event": w.since_seq, "due": w.due,
                               "overdue": w.due is not None and turns.is_past(w.due, at)}
                              for w in waiting.values()]
        emit_json(out)
    else:
        click.echo(loaded.ruleset.status_text(seated(loaded.ruleset, loaded.state, loaded.kernel.email)))
        _deadlines(loaded.ruleset, waiting, at)
        _sign_hint(loaded)


def _deadlines(ruleset: Ruleset, waiting: dict[str, turns.Waiting], at: str) -> None:
    """Since when each side is waited for, its deadline, and who is overdue since when (K4)."""
    timed = [w for w in waiting.values() if w.due is not None]
    if not timed:
        return
    click.echo(f"Deadlines (at {at[:19]}Z):")
    for w in timed:
        due = str(w.due)
        state = f"OVERDUE since {due[:19]}Z" if turns.is_past(due, at) else f"due {due[:19]}Z"
        click.echo(f"  {ruleset.side_name(w.side)}: waited for since {w.since[:19]}Z (event "
                   f"{w.since_seq}), {state}")


def _sign_hint(loaded: reading.Current) -> None:
    """In a game with keys, what a player copies into mn sign: the game, its last event and hash."""
    ledger = loaded.ledger
    if not ledger.published:
        return
    seq, head = loaded.head
    click.echo(f"Sign orders with: mn sign --key KEYFILE --game {loaded.game_id} --seq {seq} "
               f"--head {head} ORDER..." + ("  (only signed orders are taken)"
                                            if ledger.signed_only else ""))


@click.command("show")
@click.argument("game_id", metavar="GAME|EXPORT.jsonl|REPORT.eml")
@as_option(help="See the game as this empire does (others' resources hidden). Default: host view.")
@json_option
@kept_option
@click.pass_context
def show(ctx: click.Context, game_id: str, as_empire: str | None, as_json: bool, kept_file: str | None) -> None:
    """The board, tracks, titles, tiles and resources, as an empire may see them.

    A player's own export (or the report mail that carries it) is shown with no database, verified
    first: the board as that empire sees it at the export's last event.
    """
    if is_export_path(game_id):
        from mncore.client import exported  # a player's export: read only then (a lean start)
        sg = exported.open_as(game_id, as_empire, kept_file)
        doc = exported.made(sg, lambda: boundary.view(sg.ruleset, exported.state_at(sg), sg.side))
        if as_json:
            emit_json(doc)
        else:
            click.echo(exported.made(sg, lambda: sg.ruleset.show_text(doc)))
        return
    no_kept(kept_file)
    loaded = reading.current(open_store(ctx), game_id)
    _show(loaded, as_empire, as_json)
    if not as_json:
        _sign_hint(loaded)


@click.command("replay")
@click.argument("game_id", metavar="GAME")
@click.option("--to", "to", type=int, required=True, help="The last event to apply.")
@as_option(help="See the state as this empire did.")
@json_option
@click.pass_context
def replay_cmd(ctx: click.Context, game_id: str, to: int, as_empire: str | None, as_json: bool) -> None:
    """The state as of event N."""
    store = open_store(ctx)
    store.require_game(game_id)
    last = store.head(game_id)[0]
    if not 1 <= to <= last:
        raise InvalidCommand(f"--to {to}: game {game_id} has events 1 to {last}")
    _show(reading.load(store, game_id, to), as_empire, as_json)


def _show(loaded: reading.Loaded | reading.Current, as_empire: str | None, as_json: bool) -> None:
    ruleset = loaded.ruleset
    state = seated(ruleset, loaded.state, loaded.kernel.email)  # who holds each seat now (K14)
    doc = boundary.view(ruleset, state, side_arg(ruleset, loaded.state, as_empire))
    if as_json:
        emit_json(doc)
    else:
        click.echo(ruleset.show_text(doc))


@click.command("log")
@click.argument("game_id", metavar="GAME|EXPORT.jsonl|REPORT.eml")
@click.option("--from", "start", type=int, default=1, show_default=True)
@click.option("--to", "end", type=int, default=None)
@click.option("--round", "rounds", type=int, multiple=True, metavar="N",
              help="Only the events of round N (repeat for several rounds).")
@click.option("--type", "types", multiple=True, metavar="TYPE",
              help="Only events of this type, e.g. BattleFought (any case; repeat for several).")
@as_option(help="The log as this empire may read it (hidden offers and draws withheld).")
@json_option
@kept_option
@click.pass_context
def log_cmd(ctx: click.Context, game_id: str, start: int, end: int | None, rounds: tuple[int, ...],
            types: tuple[str, ...], as_empire: str | None, as_json: bool, kept_file: str | None) -> None:
    """One readable sentence per event, with its sequence number.

    A player's own export (mn export --as, or the report mail that carries it) is read with no
    database: verified against its header's head (and the mail's receipt) first, each event told as
    that empire may read it.
    """
    if is_export_path(game_id):
        _log_export(game_id, start, end, rounds, types, as_empire, as_json, kept_file)
        return
    no_kept(kept_file)
    loaded = reading.load(open_store(ctx), game_id)
    ruleset = loaded.ruleset
    viewer = side_arg(ruleset, loaded.state, as_empire)
    opened = loaded.meta.secret is not None
    wanted = _event_types(ruleset, types)
    # the round of each event is the round of the state it leads to, hence a fold from the start
    in_round = {}
    if rounds:
        for r, state in zip(loaded.rows, turns.states(ruleset, loaded.rows, loaded.events)):
            in_round[r.seq] = ruleset.meta(state).round
    docs = []
    gone = undone_seqs(loaded.kernel.email)
    marks = turns.service_marks(loaded.rows)
    for r, event in zip(loaded.rows, loaded.events):
        if r.seq < start or (end is not None and r.seq > end):
            continue
        if (wanted and r.type not in wanted) or (rounds and in_round[r.seq] not in rounds):
            continue
        # every line made for one side passes the redaction boundary
        if as_json:
            docs.append(boundary.log_doc(ruleset, r, viewer, opened, loaded.version))
            if r.seq in gone:
                docs[-1]["undone"] = True
        else:
            text = boundary.describe(ruleset, event, viewer, opened)
            click.echo(f"{r.seq:>5}  {'[undone] ' if r.seq in gone else ''}{act_mark(marks.get(r.seq, ''))}{text}")
    if as_json:
        emit_json(docs)


def _log_export(path: str, start: int, end: int | None, rounds: tuple[int, ...], types: tuple[str, ...],
                as_empire: str | None, as_json: bool, kept_file: str | None) -> None:
    """mn log of a player's export: what it holds, told as its empire reads it."""
    if rounds or types or as_json:
        raise InvalidCommand("--round, --type and --json need a stored game; of an export, mn log "
                             "prints every event's sentence (--from, --to)")
    from mncore.client import exported  # a player's export: read only then (a lean start)
    sg = exported.open_as(path, as_empire, kept_file)
    for line in exported.log_lines(sg, start, end):
        click.echo(line)


def _event_types(ruleset: Ruleset, texts: tuple[str, ...]) -> set[str]:
    """The event type names --type texts name, in any case; InvalidCommand for an unknown one."""
    known = {t.__name__.casefold(): t.__name__ for t in get_args(ruleset.event_type)}
    out = set()
    for text in texts:
        name = known.get(text.casefold())
        if name is None:
            close = suggest(text, {k: v for k, v in known.items()})
            hint = f"did you mean {' or '.join(close)}? " if close else ""
            raise InvalidCommand(f"--type {text}: no such event type; {hint}"
                                 f"expected one of: {', '.join(sorted(known.values()))}")
        out.add(name)
    return out


@click.command("order")
@click.argument("game_id", metavar="GAME")
@click.argument("orders", nargs=-1, metavar="ORDER...|-")
@as_option(help="The empire giving the orders (unsigned orders: the host gives them for it).")
@click.option("--signed", "signed_file", default=None, metavar="FILE|-",
              help="A signed order block (mn sign) from FILE or stdin: applied whole, as its side's.")
@click.pass_context
def order(ctx: click.Context, game_id: str, orders: tuple[str, ...], as_empire: str | None,
          signed_file: str | None) -> None:
    """Give one or more orders (or '-' to read one per line from stdin), decided together.

    All the orders are decided in turn on the evolving state and written as one batch, or none:
    a refused order names its number and text, and nothing is written. Lines 'queue ORDER' after
    them wait for the empire's coming decisions of the round (ruling K9). Then the game's service
    answers what it may by itself: decisions with one legal answer, standing orders
    (docs/standing-orders.md). Orders are described in docs/orders.md; `mn options` lists them.
    In a game with keys, orders given this way are recorded as the host's; a player's own are
    signed (mn sign) and given with --signed FILE: all the block's orders or none, exit 3 if the
    block is stale or was already applied (docs/security.md).
    """
    if signed_file is not None:
        if orders:
            raise InvalidCommand("give either ORDER... or --signed FILE, not both")
        _order_signed(ctx, game_id, signed_file, as_empire)
        return
    if not orders:
        raise InvalidCommand("give ORDER... (or '-' for stdin), or --signed FILE")
    if as_empire is None:
        raise InvalidCommand("--as EMPIRE is needed: whose orders are these?")
    lines = order_lines(orders)
    store = open_store(ctx)
    cur = reading.current(store, game_id)
    empire = resolve_side_in_game(cur.ruleset, cur.state, as_empire)
    from mncore.games import writing
    try:
        outcome = writing.give(store, cur, writing.batch_command(cur, empire, lines))
    except CommandRejected as err:
        if len(lines) == 1:  # several orders are named by number and text where they are decided
            err.message = f"'{lines[0]}': {err.message}"
        raise
    echo_outcome(outcome, empire)


def echo_outcome(outcome: writing.Outcome[Any], viewer: str | None) -> None:
    """What a command wrote and what the service answered after it, as viewer may read it; the receipt."""
    echo_rows(outcome.after.ruleset, outcome.rows, viewer, outcome.opened)
    receipt(outcome.after)


def echo_rows(ruleset: Ruleset, rows: list[Row], viewer: str | None, opened: bool) -> None:
    """Rows just written, one sentence each as viewer may read it, the service's acts marked."""
    marks = turns.service_marks(rows)
    for r in rows:
        text = boundary.describe(ruleset, ruleset.decode_event(r.payload), viewer, opened)
        click.echo(f"{r.seq:>5}  {act_mark(marks.get(r.seq, ''))}{text}")


def act_mark(actor: str) -> str:
    """How a log line shows an act the service took for a side: [forced], [deadline], [standing]."""
    label = act_label(actor)
    return f"[{label}] " if label else ""


def receipt(loaded: reading.Loaded | reading.Current) -> None:
    """The receipt a player keeps: with it, `mn verify --head` catches a log later cut or rewritten."""
    seq, head = loaded.head
    click.echo(f"Receipt: game {loaded.game_id}, event {seq}, head {head}")


def _order_signed(ctx: click.Context, game_id: str, source: str, as_empire: str | None) -> None:
    from mncore.games import writing
    from mncore.pbem import signing

    text = _read_text(source)
    block = signing.parse_block(text, "stdin" if source == "-" else source)
    store = open_store(ctx)
    cur = reading.current(store, game_id)
    if as_empire is not None and cur.ruleset.resolve_side(as_empire) != block.side:
        raise SigningRefused(f"the block is signed as {block.side}, not --as {as_empire}")
    echo_outcome(writing.give(store, cur, block), block.side)


def _read_text(source: str) -> str:
    if source == "-":
        return sys.stdin.read()
    try:
        with open(source, encoding="utf-8") as f:
            return f.read()
    except OSError as err:
        raise InvalidCommand(f"{source}: cannot read it ({err.strerror})") from None
    except UnicodeDecodeError:
        raise SigningRefused(f"{source}: not a signed order block (not UTF-8 text)") from None


@click.command("options")
@click.argument("game_id", metavar="GAME|EXPORT.jsonl|REPORT.eml")
@as_option(help="The empire whose orders to list [default: the one the game waits for, if only one].")
@click.option("--all", "show_all", is_flag=True,
              help="List every value of each part, not the first few (see `more` in --json).")
@json_option
@kept_option
@click.pass_context
def options(ctx: click.Context, game_id: str, as_empire: str | None, show_all: bool, as_json: bool,
            kept_file: str | None) -> None:
    """What an empire may order now: each legal order, or a template with its legal parts.

    Without --as, the empire the game waits for; while it waits for several, --as must name one.

    A long list of values (ways to pay) is cut: the line after it says how many more there are,
    and --all lists them.

    Of a player's own export (or the report mail that carries it), with no database: that empire's
    orders on the board its export shows it at its last event.
    """
    if is_export_path(game_id):
        from mncore.client import exported  # a player's export: read only then (a lean start)
        sg = exported.open_as(game_id, as_empire, kept_file)
        ruleset, state, empire = sg.ruleset, exported.made(sg, lambda: exported.state_at(sg)), sg.side
        found = exported.made(sg, lambda: exported.options(sg, state))
    else:
        no_kept(kept_file)
        loaded = reading.current(open_store(ctx), game_id)
        ruleset, state = loaded.ruleset, loaded.state
        empire = (resolve_side_in_game(ruleset, state, as_empire) if as_empire is not None
                  else _awaited_side(ruleset, state))
        found = boundary.options(ruleset, state, empire)
    if as_json:
        emit_json([to_builtins(o) for o in found])
        return
    if not found:
        click.echo(f"{ruleset.side_name(empire)} has nothing to order now.")
    for o in found:
        if o.order:
            click.echo(o.order + (f"    # {o.note}" if o.note else ""))
            continue
        click.echo(f"{o.template}" + (f"    # {o.note}" if o.note else ""))
        for part, values in o.parts.items():
            more = o.more.get(part, ())
            click.echo(f"    {part}: {' | '.join((*values, *more) if show_all else values)}")
            if more and not show_all:
                click.echo(f"    ... {len(more)} more not shown: "
                           f"mn options {game_id} --as {empire} --all lists them")


def _awaited_side(ruleset: Ruleset, state: Any) -> str:
    """The one side the game waits for; else a refusal naming the sides it waits for."""
    sides = list(dict.fromkeys(p.empire for p in ruleset.pending(state)))
    if len(sides) == 1:
        return sides[0]
    if not sides:
        raise InvalidCommand("the game waits for nobody; name the empire with --as")
    raise InvalidCommand(f"the game waits for {sides_in_words(ruleset, state, sides)}; name one with --as")


@click.command("reveal")
@click.argument("game_id", metavar="GAME")
@click.option("--force", is_flag=True, help="Reveal although the game is still running.")
@click.pass_context
def reveal(ctx: click.Context, game_id: str, force: bool) -> None:
    """Append the game's secret to its log, so that anyone can check every draw (mn verify)."""
    from mncore.games import lifecycle

    store = open_store(ctx)
    rows = lifecycle.reveal(store, game_id, force)
    ruleset = reading.current(store, game_id, 1).ruleset
    for r in rows:
        click.echo(f"{r.seq:>5}  {boundary.describe(ruleset, ruleset.decode_event(r.payload), None, True)}")


@click.command("fork")
@click.argument("game_id", metavar="GAME")
@click.option("--at", "at", type=int, required=True, help="The last event to copy.")
@click.option("--as", "new_id", required=True, metavar="NEW", help="The sandbox game's id.")
@click.option("--seed", default=None, metavar="TEXT", help="A known secret for the sandbox's draws.")
@click.pass_context
def fork(ctx: click.Context, game_id: str, at: int, new_id: str, seed: str | None) -> None:
    """A sandbox game holding events 1..N of GAME, marked as its fork; GAME is untouched."""
    from mncore.games import lifecycle

    store = open_store(ctx)
    secret = seeded_secret(seed) if seed is not None else new_secret()
    loaded = lifecycle.fork(store, game_id, at, new_id, secret)
    click.echo(loaded.game_id)


COMMANDS = [new, status, show, replay_cmd, log_cmd, order, options, reveal, fork]
