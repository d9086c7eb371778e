"""Build orders as text (builder, build, recruit, perseus, done, keep), and sentences for build events."""

from __future__ import annotations

from mncore.core.errors import InvalidCommand
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.commands import (
    AnyOrder,
    BuildBuilding,
    BuildControl,
    BuildTile,
    BuildUnit,
    ChooseBuilder,
    EndBuildTurn,
    KeepCommodities,
)
from mncore.rulesets.empires.display_names import tile_name, title
from mncore.rulesets.empires.game_data import load_ruleset, tile
from mncore.rulesets.empires.ids import (
    COIN,
    LEGENDARY_PREFIX,
    SPACE_KINDS,
    BuildingKind,
    TileId,
    Token,
    UnitKind,
    legendary,
)
from mncore.rulesets.empires.state import Bag, bag_tokens
from mncore.rulesets.empires.text.parsing import Ctx, is_number, need, shown, token_count
from mncore.rulesets.empires.typed_names import (
    resolve_commodity,
    resolve_empire,
    resolve_province,
    resolve_sea,
    resolve_tile,
)
from mncore.secrecy.seen import Withheld

BUILD_USAGE = ("build control in PROVINCE [with hammurabi] pay TOKENS | "
               "build legion|fortress in PROVINCE [with spartacus|gilgamesh|penthesilea|chiron] pay TOKENS | "
               "build trireme in SEA [with pharos] pay TOKENS | "
               "build caravan|market|temple|city|capital|legendary in PROVINCE [at SPACE] pay TOKENS | "
               "build WONDER pay TOKENS   (TOKENS: coin coin wine, 3 coin, legendary-wine)")
RECRUIT_USAGE = "recruit HERO [copy HERO] pay TOKENS   (e.g. recruit castor-pollux copy circe pay 8 coin)"
PERSEUS_USAGE = "perseus pyramids|HERO|WONDER [copy HERO] pay TOKENS   (build first and win, 10.perseus)"
KEYWORDS = ("in", "at", "with", "pay", "copy")
UNIT_NAMES: dict[str, UnitKind] = {"legion": "legion", "legions": "legion", "fortress": "fortress",
                                   "trireme": "trireme"}
BUILDING_NAMES: dict[str, BuildingKind] = {
    **{k: k for k in SPACE_KINDS}, "legendary-city": "legendary", "capital-city": "capital"}

# the first words of the builds that say where (built once: every build line asks)
_PLACED = frozenset(("control", *UNIT_NAMES, *BUILDING_NAMES))
# the verbs whose orders end in 'pay TOKENS' read by _segments and _pay alone (text.paid_apart)
PAID_VERBS = frozenset(("build", "recruit", "perseus"))


def _segments(words: list[str], usage: str) -> tuple[list[str], dict[str, list[str]]]:
    """Split an order's words at its keywords: the leading words and each keyword's words."""
    head: list[str] = []
    parts: dict[str, list[str]] = {}
    current = head
    for word in words:
        key = word.lower()
        if key in KEYWORDS:
            if key in parts:
                raise InvalidCommand(f"'{key}' given twice; usage: {usage}")
            current = parts.setdefault(key, [])
        else:
            current.append(word)
    for key, value in parts.items():
        if not value and key != "pay":
            raise InvalidCommand(f"'{key}' needs a name after it; usage: {usage}")
    return head, parts


def parse_tokens(words: list[str]) -> list[Token]:
    """'coin coin wine', '3 coin wine', 'legendary-wine', 'legendary wine', 'nothing' as tokens."""
    rs = load_ruleset()
    out: list[Token] = []
    i = 0
    while i < len(words):
        count_word = None
        if is_number(words[i]):
            count_word, i = words[i], i + 1
            if i >= len(words):
                raise InvalidCommand(f"'{shown(words[i - 1])}' needs a resource after it")
        word = words[i].lower()
        if word == "legendary" and i + 1 < len(words):
            i += 1
            token = legendary(resolve_commodity(rs, words[i]))
        elif word.startswith(LEGENDARY_PREFIX):
            token = legendary(resolve_commodity(rs, word.removeprefix(LEGENDARY_PREFIX)))
        elif word in ("coin", "coins"):
            token = COIN
        elif word == "nothing" and len(words) == 1:
            token = ""
        else:
            token = resolve_commodity(rs, words[i])
        # bounded by the supply before the list is made
        out += [token] * token_count(count_word, token, "pay count") if token else []
        i += 1
    return out


def _pay(parts: dict[str, list[str]]) -> Bag:
    return tokens_paid(parts.get("pay", []))


def tokens_paid(words: list[str]) -> Bag:
    """The words after 'pay' as the order's payment: each token counted, in the order first given."""
    paid: Bag = {}
    for t in parse_tokens(words):
        paid[t] = paid.get(t, 0) + 1
    return paid


def _power(parts: dict[str, list[str]]) -> TileId | None:
    words = parts.get("with")
    return resolve_tile(load_ruleset(), " ".join(words)) if words else None


def _builder(ctx: Ctx, words: list[str]) -> AnyOrder:
    need(words, 1, "builder EMPIRE   (the Culture Leader names the next builder)")
    return ChooseBuilder(empire=ctx.empire, builder=resolve_empire(load_ruleset(), words[0]))


def _build(ctx: Ctx, words: list[str]) -> AnyOrder:
    head, parts = _segments(words, BUILD_USAGE)
    if not head:
        raise InvalidCommand(f"usage: {BUILD_USAGE}")
    what = head[0].lower()
    board = ctx.state.geo_board
    if what in _PLACED and (len(head) > 1 or "in" not in parts):
        raise InvalidCommand(f"say where: build {what} in PLACE ...; usage: {BUILD_USAGE}")
    if what == "control":
        _only(parts, ("in", "with", "pay"), BUILD_USAGE)
        return BuildControl(empire=ctx.empire, province=resolve_province(board, " ".join(parts["in"])),
                            pay=_pay(parts), power=_power(parts))
    if what in UNIT_NAMES:
        _only(parts, ("in", "with", "pay"), BUILD_USAGE)
        kind = UNIT_NAMES[what]
        place = " ".join(parts["in"])
        where = resolve_sea(board, place) if kind == "trireme" else resolve_province(board, place)
        return BuildUnit(empire=ctx.empire, kind=kind, place=where, pay=_pay(parts),
                         power=_power(parts))
    if what in BUILDING_NAMES:
        _only(parts, ("in", "at", "with", "pay"), BUILD_USAGE)
        space = " ".join(parts["at"]).lower() if "at" in parts else None
        return BuildBuilding(empire=ctx.empire, kind=BUILDING_NAMES[what],
                             province=resolve_province(board, " ".join(parts["in"])), space=space,
                             pay=_pay(parts), power=_power(parts))
    return _tile_order(ctx, head, parts, BUILD_USAGE, perseus=False)


def _only(parts: dict[str, list[str]], allowed: tuple[str, ...], usage: str) -> None:
    extra = [k for k in parts if k not in allowed]
    if extra:
        raise InvalidCommand(f"'{extra[0]}' does not belong in this order; usage: {usage}")


def _tile_order(ctx: Ctx, head: list[str], parts: dict[str, list[str]], usage: str,
                perseus: bool) -> AnyOrder:
    if not head:
        raise InvalidCommand(f"usage: {usage}")
    _only(parts, ("copy", "pay"), usage)
    rs = load_ruleset()
    copy = resolve_tile(rs, " ".join(parts["copy"])) if "copy" in parts else None
    return BuildTile(empire=ctx.empire, tile=resolve_tile(rs, " ".join(head)), pay=_pay(parts),
                     copy=copy, perseus=perseus)


def _recruit(ctx: Ctx, words: list[str]) -> AnyOrder:
    head, parts = _segments(words, RECRUIT_USAGE)
    return _tile_order(ctx, head, parts, RECRUIT_USAGE, perseus=False)


def _perseus(ctx: Ctx, words: list[str]) -> AnyOrder:
    head, parts = _segments(words, PERSEUS_USAGE)
    return _tile_order(ctx, head, parts, PERSEUS_USAGE, perseus=True)


def _keep_tokens(words: list[str], usage: str) -> tuple[Token, ...]:
    if not words:
        raise InvalidCommand(f"usage: {usage}")
    return tuple(sorted(parse_tokens(words))) if words != ["nothing"] else ()


def _done(ctx: Ctx, words: list[str]) -> AnyOrder:
    usage = "done [keep COMMODITY [COMMODITY] | keep nothing]   (keep: Hanging Gardens only)"
    if not words:
        return EndBuildTurn(empire=ctx.empire)
    if words[0].lower() != "keep":
        raise InvalidCommand(f"usage: {usage}")
    return EndBuildTurn(empire=ctx.empire, keep=_keep_tokens(words[1:], usage))


def _keep(ctx: Ctx, words: list[str]) -> AnyOrder:
    usage = "keep COMMODITY [COMMODITY] | keep nothing   (Hanging Gardens, 11.hanging-gardens)"
    return KeepCommodities(empire=ctx.empire, keep=_keep_tokens(words, usage))


VERBS = {"builder": _builder, "build": _build, "recruit": _recruit, "perseus": _perseus,
         "done": _done, "keep": _keep}


def show_tokens(tokens: Bag | tuple[Token, ...]) -> str:
    bag = tokens if isinstance(tokens, dict) else {t: tokens.count(t) for t in tokens}
    return " ".join(bag_tokens(bag)) or "nothing"


def _pay_text(pay: Bag) -> str:
    return f" pay {show_tokens(pay)}" if pay else ""


def format_order(order: AnyOrder) -> str | None:
    match order:
        case ChooseBuilder(builder=builder):
            return f"builder {builder}"
        case BuildControl(province=province, pay=pay, power=power):
            return f"build control in {province}" + (f" with {power}" if power else "") + _pay_text(pay)
        case BuildUnit(kind=kind, place=place, pay=pay, power=power):
            return f"build {kind} in {place}" + (f" with {power}" if power else "") + _pay_text(pay)
        case BuildBuilding(kind=kind, province=province, space=space, pay=pay, power=power):
            return (f"build {kind} in {province}" + (f" at {space}" if space else "")
                    + (f" with {power}" if power else "") + _pay_text(pay))
        case BuildTile(tile=tile_id, pay=pay, copy=copy, perseus=perseus):
            verb = "perseus" if perseus else ("recruit" if tile(load_ruleset(), tile_id).kind == "hero"
                                              else "build")
            return f"{verb} {tile_id}" + (f" copy {copy}" if copy else "") + _pay_text(pay)
        case EndBuildTurn(keep=keep):
            return "done" if keep is None else f"done keep {show_tokens(keep)}"
        case KeepCommodities(keep=keep):
            return f"keep {show_tokens(keep)}"
    return None


def describe(event: ev.AnyEvent, withheld: Withheld) -> str | None:
    match event:
        case ev.BuilderChosen(empire=emp, builder=builder):
            return (f"{title(emp)}, the Culture Leader, names {'itself' if builder == emp else title(builder)} "
                    "to build.")
        case ev.ControlBuilt(empire=emp, province=province, paid=paid, power=power):
            how = (f" for free with {title(power)}" if power and not paid else
                   (f" with {title(power)}" if power else "") + f", paying {show_tokens(paid)}")
            return f"{title(emp)} places a control marker in {_place(province)}{how}."
        case ev.UnitBuilt(empire=emp, kind=kind, place=place, paid=paid, count=count, power=power):
            units = f"{count} {kind}s" if count > 1 else f"a {kind}"
            how = (f" with {title(power)}" if power else "") + (f", paying {show_tokens(paid)}" if paid else
                                                                " at no cost")
            return f"{title(emp)} builds {units} in {_place(place)}{how}."
        case ev.BuildingBuilt(empire=emp, province=province, space=space, kind=kind, paid=paid, power=power):
            return (f"{title(emp)} builds a {_building(kind)} in {_place(province)} ({space}), "
                    + (f"with {title(power)}, " if power else "") + f"paying {show_tokens(paid)}.")
        case ev.TileGained():
            return _tile_sentence(event)
        case ev.CentaursBuilt(empire=emp, province=province, paid=paid):
            how = f"rebuilds them, paying {show_tokens(paid)}" if paid else "places them at no cost"
            return f"{title(emp)}'s Centaurs (Chiron): {title(emp)} {how} in {_place(province)}."
        case ev.BuildTurnEnded(empire=emp):
            return f"{title(emp)} has finished building."
        case ev.StorageChosen(empire=emp, keep=keep):
            if "payload/keep" in withheld:
                return f"{title(emp)} chooses what to keep with the Hanging Gardens."
            return f"{title(emp)} keeps {show_tokens(keep)} with the Hanging Gardens."
        case ev.ResourcesDiscarded(empire=emp, discarded=discarded, count=count):
            if "payload/discarded" in withheld:
                return f"{title(emp)} discards {count} unstored resource{'s' if count != 1 else ''}."
            return f"{title(emp)} discards {show_tokens(discarded)} at the end of the Build phase."
        case ev.TilesTurnedUp(tiles=tiles):
            return f"Turned face up on the display: {', '.join(tile_name(t) for t in tiles)}."
    return None


def _tile_sentence(event: ev.TileGained) -> str:
    info = tile(load_ruleset(), event.tile)
    verb = "recruits" if info.kind == "hero" else "builds"
    first = " building first with Perseus," if event.perseus else ""
    rank = f" (hero/wonder number {event.rank})" if event.rank else ""
    copy = f", copying {tile_name(event.copied)}'s power" if event.copied else ""
    return (f"{title(event.empire)}{first} {verb} {info.name}{rank}{copy}, "
            f"paying {show_tokens(event.paid)}.")


def _place(place_id: str) -> str:
    return title(place_id)


def _building(kind: str) -> str:
    return {"capital": "capital city", "legendary": "legendary city"}.get(kind, kind)
