"""Move and Battle orders as text (mover, peace, move, attack, lose, pillage, occupy, hold, place, done),
and sentences for its events."""

from __future__ import annotations

from mncore.core.errors import InvalidCommand
from mncore.rulesets.empires import events as ev
from mncore.rulesets.empires.board import geo
from mncore.rulesets.empires.commands import (
    AnswerSeaBattle,  # Ptolemy (ruling R212)
    AnyOrder,
    Attack,
    ChooseLosses,
    ChooseMover,
    DeclarePeace,
    EndMoveTurn,
    HoldConquest,
    MoveLegions,
    MoveTriremes,
    OccupyBuildings,
    OccupyMarker,
    Pillage,
    PlaceCirceLegion,
)
from mncore.rulesets.empires.display_names import title
from mncore.rulesets.empires.game_data import load_ruleset
from mncore.rulesets.empires.ids import FACE_DOWN, Empire, ProvinceId
from mncore.rulesets.empires.state import GameState, bag_tokens
from mncore.rulesets.empires.text import barbarians  # the Punic War's Barbarian orders
from mncore.rulesets.empires.text.parsing import Ctx, Parser, bounded, is_number, need
from mncore.rulesets.empires.text.sandbox import parse_dice
from mncore.rulesets.empires.typed_names import normalise, resolve_empire, resolve_place, resolve_province, resolve_sea
from mncore.secrecy.seen import Withheld

USAGE = {
    "mover": "mover EMPIRE   (the Military Leader names the next empire to move and battle)",
    "peace": "peace with EMPIRE|barbarians | no peace   (Statue of Zeus)",
    "move": "move [N] trireme(s) SEA to SEA | move [N] legion(s) PROVINCE to PROVINCE [with centaurs|myrmidons] [across SEA]",
    "attack": "attack EMPIRE in SEA|PROVINCE [dice EMPIRE=N,N,... [EMPIRE=N,...]]   (dice: sandboxes)",
    "battle": "fight battle | refuse battle   (Ptolemy's holder, attacked at sea)",
    "lose": "lose [N] legion(s) [centaurs] [myrmidons] [fortress] in PLACE | lose fortress in PLACE",
    "pillage": "pillage SPACE in PROVINCE [take coin|legendary]",
    "occupy": "occupy SPACE [SPACE ...] in PROVINCE | occupy marker in PROVINCE [with sheba]",
    "hold": "hold PROVINCE   (a Conqueror chooses nothing new there this turn)",
    "place": "place legion on SPACE in PROVINCE   (Circe)",
    "done": "done   (end your Move and Battle turn)",
}


def _split(words: list[str], key: str, usage: str) -> tuple[list[str], list[str]]:
    """The words before and after the last `key`; InvalidCommand with the usage if it is missing."""
    lowered = [w.lower() for w in words]
    if key not in lowered:
        raise InvalidCommand(f"usage: {usage}")
    i = len(lowered) - 1 - lowered[::-1].index(key)
    before, after = words[:i], words[i + 1:]
    if not after:
        raise InvalidCommand(f"usage: {usage}")
    return before, after


def _count(words: list[str], singular: str, usage: str) -> tuple[int, list[str]]:
    """'[N] legion(s) ...' as (N, the rest)."""
    count_word = None
    if words and is_number(words[0]):
        count_word, words = words[0], words[1:]
    if not words or words[0].lower() not in (singular, singular + "s"):
        raise InvalidCommand(f"usage: {usage}")
    return _units(count_word, singular), words[1:]


def _units(word: str | None, unit: str) -> int:
    """A count of an empire's units, bounded by how many of them it has (Game Components)."""
    if word is None:
        return 1
    limit = load_ruleset().components.units.get(unit, 0)  # type: ignore[call-overload]
    return bounded(word, f"{unit} count", limit, f"an empire has {limit} {unit}s")


def resolve_space(state: GameState, pid: ProvinceId, text: str) -> str:
    """The space of a province that text names: its id, its city's name, or its kind when unique."""
    province = geo(state.geo_board).province(pid)
    key = normalise(text)
    for space in province.spaces:
        if key in (normalise(space.id), normalise(space.name or "")):
            return space.id
    kinds = [s.id for s in province.spaces if normalise(s.kind) == key]
    if len(kinds) == 1:
        return kinds[0]
    raise InvalidCommand(f"{province.name} has no space '{text}'; its spaces are: "
                         + ", ".join(s.id for s in province.spaces))


def _mover(ctx: Ctx, words: list[str]) -> AnyOrder:
    need(words, 1, USAGE["mover"])
    return ChooseMover(empire=ctx.empire, mover=resolve_empire(load_ruleset(), words[0]))


def _peace(ctx: Ctx, words: list[str]) -> AnyOrder:
    if len(words) < 2 or words[0].lower() != "with":
        raise InvalidCommand(f"usage: {USAGE['peace']}")
    if [w.lower() for w in words[1:]] == ["barbarians"]:  # the Punic War (ruling R67)
        return barbarians.peace(ctx)
    return DeclarePeace(empire=ctx.empire, opponent=resolve_empire(load_ruleset(), " ".join(words[1:])))


def _no(ctx: Ctx, words: list[str]) -> AnyOrder:
    if [w.lower() for w in words] != ["peace"]:
        raise InvalidCommand(f"usage: {USAGE['peace']}")
    return DeclarePeace(empire=ctx.empire, opponent=None)


def _move(ctx: Ctx, words: list[str]) -> AnyOrder:
    usage = USAGE["move"]
    head, to = _split(words, "to", usage)
    board = ctx.state.geo_board
    if head and (head[0].lower().startswith("trireme") or head[1:2] and
                 head[1].lower().startswith("trireme")):
        count, src = _count(head, "trireme", usage)
        if not src:
            raise InvalidCommand(f"usage: {usage}")
        return MoveTriremes(empire=ctx.empire, from_sea=resolve_sea(board, " ".join(src)),
                            to_sea=resolve_sea(board, " ".join(to)), count=count)
    count, src = _count(head, "legion", usage)
    if not src:
        raise InvalidCommand(f"usage: {usage}")
    lowered = [w.lower() for w in to]
    across = ""
    if "across" in lowered[1:]:  # Odysseus' sea (10.odysseus)
        at = lowered.index("across", 1)
        across, to, lowered = resolve_sea(board, " ".join(to[at + 1:])), to[:at], lowered[:at]
    centaurs = lowered[-2:] == ["with", "centaurs"]  # atlas.chiron
    myrmidons = lowered[-2:] == ["with", "myrmidons"]  # 10.achilles
    to = to[:-2] if centaurs or myrmidons else to
    return MoveLegions(empire=ctx.empire, from_province=resolve_province(board, " ".join(src)),
                       to_province=resolve_province(board, " ".join(to)), count=count, centaurs=centaurs,
                       myrmidons=myrmidons, across=across)


def _attack(ctx: Ctx, words: list[str]) -> AnyOrder:
    usage = USAGE["attack"]
    if words and words[0].lower() == "barbarians":  # the Punic War (ruling R66)
        return barbarians.parse_attack(ctx, words[1:])
    lowered = [w.lower() for w in words]
    dice: dict[Empire, tuple[int, ...]] = {}
    if "dice" in lowered:
        at = lowered.index("dice")
        words, specs = words[:at], words[at + 1:]
        if not specs:
            raise InvalidCommand(f"usage: {usage}")
        for spec in specs:
            emp, _, faces = spec.partition("=")
            dice[resolve_empire(load_ruleset(), emp)] = parse_dice([faces], usage)
    who, where = _split(words, "in", usage)
    if not who:
        raise InvalidCommand(f"usage: {usage}")
    return Attack(empire=ctx.empire, opponent=resolve_empire(load_ruleset(), " ".join(who)),
                  place=resolve_place(ctx.state.geo_board, " ".join(where)), dice=dice)


def _lose(ctx: Ctx, words: list[str]) -> AnyOrder:
    usage = USAGE["lose"]
    units, where = _split(words, "in", usage)
    legions, fortress, centaurs, myrmidons, i = 0, False, False, False, 0
    while i < len(units):
        word = units[i].lower()
        n = 1
        if is_number(word) and i + 1 < len(units):
            n, i = _units(word, "legion"), i + 1
            word = units[i].lower()
        if word in ("legion", "legions"):
            legions += n
        elif word == "fortress" and n == 1 and not fortress:
            fortress = True
        elif word == "centaurs" and n == 1 and not centaurs:
            centaurs = True  # one of the legions lost (atlas.chiron)
        elif word == "myrmidons" and n == 1 and not myrmidons:
            myrmidons = True  # one of the legions lost (10.achilles)
        else:
            raise InvalidCommand(f"usage: {usage}")
        i += 1
    if not units:
        raise InvalidCommand(f"usage: {usage}")
    return ChooseLosses(empire=ctx.empire, place=resolve_place(ctx.state.geo_board, " ".join(where)),
                        legions=legions, fortress=fortress, centaurs=centaurs, myrmidons=myrmidons)


def _pillage(ctx: Ctx, words: list[str]) -> AnyOrder:
    usage = USAGE["pillage"]
    take = None
    lowered = [w.lower() for w in words]
    if len(words) >= 2 and lowered[-2] == "take":
        if lowered[-1] not in ("coin", "legendary"):
            raise InvalidCommand(f"usage: {usage}")
        take = lowered[-1]
        words = words[:-2]
    space, where = _split(words, "in", usage)
    if not space:
        raise InvalidCommand(f"usage: {usage}")
    pid = resolve_province(ctx.state.geo_board, " ".join(where))
    return Pillage(empire=ctx.empire, province=pid, space=resolve_space(ctx.state, pid, " ".join(space)),
                   take=take)  # type: ignore[arg-type]


def _occupy(ctx: Ctx, words: list[str]) -> AnyOrder:
    usage = USAGE["occupy"]
    sheba = False
    lowered = [w.lower() for w in words]
    if len(words) >= 2 and lowered[-2] == "with":
        if normalise(words[-1]) not in ("sheba", "queenofsheba"):
            raise InvalidCommand(f"usage: {usage}")
        sheba, words = True, words[:-2]
    spaces, where = _split(words, "in", usage)
    if not spaces:
        raise InvalidCommand(f"usage: {usage}")
    pid = resolve_province(ctx.state.geo_board, " ".join(where))
    if [w.lower() for w in spaces] == ["marker"]:
        return OccupyMarker(empire=ctx.empire, province=pid, sheba=sheba)
    if sheba:
        raise InvalidCommand("the Queen of Sheba converts a control marker: occupy marker in PROVINCE "
                             "with sheba")
    return OccupyBuildings(empire=ctx.empire, province=pid,
                           spaces=tuple(resolve_space(ctx.state, pid, s) for s in spaces))


def _hold(ctx: Ctx, words: list[str]) -> AnyOrder:
    if not words:
        raise InvalidCommand(f"usage: {USAGE['hold']}")
    return HoldConquest(empire=ctx.empire,
                        province=resolve_province(ctx.state.geo_board, " ".join(words)))


def _place(ctx: Ctx, words: list[str]) -> AnyOrder:
    usage = USAGE["place"]
    if len(words) < 4 or words[0].lower() != "legion" or words[1].lower() != "on":
        raise InvalidCommand(f"usage: {usage}")
    space, where = _split(words[2:], "in", usage)
    if not space:
        raise InvalidCommand(f"usage: {usage}")
    pid = resolve_province(ctx.state.geo_board, " ".join(where))
    return PlaceCirceLegion(empire=ctx.empire, province=pid,
                            space=resolve_space(ctx.state, pid, " ".join(space)))


def _fight(ctx: Ctx, words: list[str]) -> AnyOrder:
    if [w.lower() for w in words] != ["battle"]:
        raise InvalidCommand(f"usage: {USAGE['battle']}")
    return AnswerSeaBattle(empire=ctx.empire, fight=True)


def _refuse(ctx: Ctx, words: list[str]) -> AnyOrder:
    if [w.lower() for w in words] != ["battle"]:
        raise InvalidCommand(f"usage: {USAGE['battle']}")
    return AnswerSeaBattle(empire=ctx.empire, fight=False)


def _done(ctx: Ctx, words: list[str]) -> AnyOrder:
    need(words, 0, USAGE["done"])
    return EndMoveTurn(empire=ctx.empire)


VERBS: dict[str, Parser] = {"mover": _mover, "peace": _peace, "no": _no, "move": _move,
                            "attack": _attack, "lose": _lose, "pillage": _pillage, "occupy": _occupy,
                            "hold": _hold, "place": _place, "done": _done, "fight": _fight, "refuse": _refuse}


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def format_order(order: AnyOrder) -> str | None:
    match order:
        case ChooseMover(mover=mover):
            return f"mover {mover}"
        case DeclarePeace(opponent=opponent):
            return f"peace with {opponent}" if opponent else "no peace"
        case MoveTriremes(from_sea=src, to_sea=dst, count=n):
            return f"move {_plural(n, 'trireme')} {src} to {dst}"
        case MoveLegions(from_province=src, to_province=dst, count=n, centaurs=centaurs, myrmidons=myrmidons,
                         across=across):
            return (f"move {_plural(n, 'legion')} {src} to {dst}" + (" with centaurs" if centaurs else "")
                    + (" with myrmidons" if myrmidons else "") + (f" across {across}" if across else ""))
        case Attack(opponent=opponent, place=place, dice=dice):
            fixed = " ".join(f"{emp}={','.join(map(str, faces))}" for emp, faces in dice.items())
            return f"attack {opponent} in {place}" + (f" dice {fixed}" if fixed else "")
        case ChooseLosses(place=place, legions=legions, fortress=fortress, centaurs=centaurs,
                          myrmidons=myrmidons):
            units = ([_plural(legions, "legion")] if legions else []) + (["centaurs"] if centaurs else []) + (
                ["myrmidons"] if myrmidons else []) + (["fortress"] if fortress else [])
            return f"lose {' '.join(units)} in {place}" if units else None
        case Pillage(province=pid, space=space, take=take):
            return f"pillage {space} in {pid}" + (f" take {take}" if take else "")
        case OccupyBuildings(province=pid, spaces=spaces):
            return f"occupy {' '.join(spaces)} in {pid}"
        case OccupyMarker(province=pid, sheba=sheba):
            return f"occupy marker in {pid}" + (" with sheba" if sheba else "")
        case HoldConquest(province=pid):
            return f"hold {pid}"
        case PlaceCirceLegion(province=pid, space=space):
            return f"place legion on {space} in {pid}"
        case AnswerSeaBattle(fight=fight):
            return "fight battle" if fight else "refuse battle"
        case EndMoveTurn():
            return "done"
    return None


# --- sentences ------------------------------------------------------------------------------------------

def _name(place: str) -> str:
    return title(place)


def _legions(n: int, centaurs: bool, myrmidons: bool = False) -> str:
    """'2 legions', or with Chiron's Centaurs among them 'the Centaurs' / '2 legions (the Centaurs among them)'."""
    named = [w for w, among in (("the Centaurs", centaurs), ("the Myrmidons", myrmidons)) if among]
    if not named:
        return _plural(n, "legion")
    return named[0] if n == 1 == len(named) else f"{_plural(n, 'legion')} ({' and '.join(named)} among them)"


def _side(side: ev.BattleSide, negated_by: dict[Empire, dict[str, int]]) -> str:
    dice = "+".join(str(d) for d in side.dice) or "no dice"
    mods = "".join(f" {'+' if v >= 0 else ''}{v} ({title(k)})" for k, v in sorted(side.modifiers.items()))
    extra = "".join(f", {n} extra die ({title(k)})" for k, n in sorted(side.extra_dice.items()))
    powers = negated_by.get(side.empire, {})
    by = "".join(f", {v} negated by {title(k)}" for k, v in sorted(powers.items()))
    fort = side.negated - sum(powers.values())
    neg = (f", {fort} negated by the fortress" if fort else "") + by
    return (f"{title(side.empire)} rolled {dice}{extra}{mods} = {side.total}: {side.scored} hit(s)"
            f"{neg}")


def _gains(gained: dict[str, int]) -> str:
    if not gained:
        return "nothing"
    tokens = ["a legendary commodity" if t == FACE_DOWN else t.replace("-", " ") for t in bag_tokens(gained)]
    return ", ".join(tokens)


def describe(event: ev.AnyEvent, withheld: Withheld) -> str | None:
    match event:
        case ev.MoverChosen(empire=emp, mover=mover):
            return f"{title(emp)}, the Military Leader, names {title(mover)} to move and battle."
        case ev.PeaceDeclared(empire=emp, opponent=opp, returned=returned, capital=capital):
            home = (f"; {sum(returned.values())} {title(opp)} legion(s) return to {_name(capital)}"
                    if returned else "")
            return f"{title(emp)} declares peace with {title(opp)} for this round (Statue of Zeus){home}."
        case ev.PeaceDeclined(empire=emp):
            return f"{title(emp)} declares no peace this round (Statue of Zeus)."
        case ev.TriremesMoved(empire=emp, from_sea=src, to_sea=dst, count=n):
            return f"{title(emp)} moves {_plural(n, 'trireme')} from {_name(src)} to {_name(dst)}."
        case ev.LegionsMoved(empire=emp, from_province=src, to_province=dst, count=n, by_sea=by_sea,
                             centaurs=centaurs, myrmidons=myrmidons, across=across, again=again):
            how = (f" by sea, crossing {_name(across)} without a trireme (Odysseus)" if across
                   else " by sea" if by_sea else "")
            twice = f" ({again} making a second step, Chariots)" if again else ""
            return (f"{title(emp)} moves {_legions(n, centaurs, myrmidons)} from {_name(src)} to {_name(dst)}"
                    f"{how}{twice}.")
        case ev.CentaursStruck(empire=emp, opponent=opp, place=place):
            return (f"{title(emp)}'s Centaurs destroy one {title(opp)} legion in {_name(place)} before the "
                    "battle (Chiron).")
        case ev.BattleFought(place=place, kind=kind, attacker=a, defender=d):
            return (f"{kind.title()} battle in {_name(place)}, {title(a.empire)} attacking "
                    f"{title(d.empire)}: {_side(a, event.negated_by)}; {_side(d, event.negated_by)}.")
        case ev.UnitsLost(empire=emp, place=place, legions=legions, triremes=triremes, fortress=fortress,
                          centaurs=centaurs, myrmidons=myrmidons):
            lost = ([_legions(legions, centaurs, myrmidons)] if legions else []) + (
                [_plural(triremes, "trireme")] if triremes else []) + (["its fortress"] if fortress else [])
            return f"{title(emp)} loses {' and '.join(lost) or 'nothing'} in {_name(place)}."
        case ev.OccupationsEnded(empire=emp, province=pid, spaces=spaces, marker=marker, circe=circe,
                                 reason=reason):
            what = list(spaces) + (["the control marker"] if marker else []) + [f"{s} (Circe)" for s in circe]
            return (f"{title(emp)}'s legions no longer occupy {', '.join(what)} in {_name(pid)}"
                    + (f": {reason}." if reason else "."))
        case ev.Pillaged(empire=emp, province=pid, space=space, gained=gained):
            return (f"{title(emp)} pillages the {space.replace('-', ' ')} in {_name(pid)} and gains "
                    f"{_gains(gained)}.")
        case ev.BuildingsOccupied(empire=emp, province=pid, spaces=spaces):
            return f"{title(emp)} occupies {', '.join(spaces)} in {_name(pid)}."
        case ev.MarkerOccupied(empire=emp, province=pid):
            return f"{title(emp)} occupies the control marker in {_name(pid)}."
        case ev.ConquestHeld(empire=emp, province=pid):
            return f"{title(emp)} holds {_name(pid)} without a new choice."
        case ev.ControlConverted(empire=emp, province=pid, previous=prev, replaced=replaced, sheba=sheba):
            if not replaced:
                return (f"{title(prev)}'s control marker in {_name(pid)} is removed; {title(emp)} no "
                        "longer reaches the province, which is now uncontrolled.")
            how = ", sacrificing a legion (Queen of Sheba)" if sheba else ""
            return f"{title(emp)} converts {title(prev)}'s control of {_name(pid)}{how}."
        case ev.CirceLegionPlaced(empire=emp, province=pid, space=space):
            return f"{title(emp)} places a legion on {space} in {_name(pid)} to act as a caravan (Circe)."
        case ev.MoveTurnEnded(empire=emp):
            return f"{title(emp)} ends its Move and Battle turn."
        case ev.SeaBattleOffered(empire=emp, opponent=opp, sea=sea):
            return (f"{title(emp)} attacks {title(opp)}'s triremes in {_name(sea)}; {title(opp)} may fight "
                    "or refuse the sea battle (Ptolemy).")
        case ev.SeaBattleAnswered(empire=emp, attacker=att, sea=sea, fight=True):
            return f"{title(emp)} fights {title(att)}'s attack in {_name(sea)} (Ptolemy)."
        case ev.SeaBattleAnswered(empire=emp, attacker=att, sea=sea):
            return f"{title(emp)} refuses {title(att)}'s attack in {_name(sea)}: no sea battle (Ptolemy)."
    return None
