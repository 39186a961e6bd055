"""What the brain accepts from a caller, one rule per kind of value (docs/reliability.md, "Bad
input", has the table). Every string and list a request carries into the store or a prompt passes
one of these before the service uses it:

- prose (`text`): whispers, player lines, questions, descriptions, identities: at most MAX_TEXT
  characters; line breaks and tabs are accepted and folded to spaces where the text is kept
  (`folded`: each is one line of a prompt), other control characters are refused;
- one-line values (`line`): perceived subjects, predicates, objects, object states, addresses:
  at most MAX_LABEL characters, no control characters at all (a line break would start a line of
  its own in a prompt: "Name: ..." lines, dialogue lines);
- names (`name`): worlds, sectors, arenas, objects, residents, personas, traits, the player's
  speaker name: at most MAX_NAME characters, one line, and no ':' (addresses join names with ':',
  so a name with one would make two places share an address);
- ids: `npc_id` full-matches NPC_ID; trace ids are looked up, never echoed whole;
- lists (`count`): at most their limit.

Too long or too many answers resource_exhausted (the caller sent too much), anything else
invalid_argument. Every message repeats at most MAX_ECHO characters of what it refuses (`shown`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from datetime import UTC, datetime
import math
import re

from google.protobuf.message import Message

from brain_server.model.errors import BrainError, Status, invalid
from brain_server.model.verbs import Verb, VerbArgument
from brain_server.model.world import World

MAX_TEXT = 4000
MAX_LABEL = 200
MAX_NAME = 100
MAX_ECHO = 80
MAX_PERCEPTIONS = 64
MAX_BATCH = 1000  # Decides in one DecideBatch: a frame's worth for a large town, a body of a few MiB at most
MAX_TRAITS = 32
MAX_KNOWN_AREAS = 1000
MAX_WORLD_PLACES = 20_000  # sectors, arenas and objects of one world together
SLOT = re.compile(r"^[A-Za-z0-9_\-]{1,64}$")  # a save slot's name is a file's name on every OS
NPC_ID = re.compile(r"^[A-Za-z0-9_.\-]{1,64}$")  # full-matched; the lab's pydantic models use the pattern
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_CONTROL_IN_PROSE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# Names Windows reserves for devices, with or without an extension ("NUL.txt"): a file or folder
# named so cannot be made there, so a slot or world with one could not be saved or copied.
_RESERVED = re.compile(r"^(CON|PRN|AUX|NUL|COM[0-9¹²³]|LPT[0-9¹²³])(\..*)?$", re.IGNORECASE)


def shown(value: str, limit: int = MAX_ECHO) -> str:
    """A caller's value as an error message repeats it: quoted, and cut after `limit` characters."""
    return repr(value) if len(value) <= limit else f"{value[:limit]!r}... ({len(value)} characters)"


def _length(field: str, value: str, limit: int, required: bool) -> None:
    if required and not value.strip():
        raise invalid(f"{field} is empty")
    if len(value) > limit:
        raise BrainError(Status.RESOURCE_EXHAUSTED, f"{field} has {len(value)} characters; the limit is {limit}")


def text(field: str, value: str, *, required: bool = False, limit: int = MAX_TEXT) -> str:
    """Prose: line breaks and tabs allowed, no other control characters."""
    _length(field, value, limit, required)
    if _CONTROL_IN_PROSE.search(value):
        raise invalid(f"{field} contains a control character: send plain text")
    return value


def folded(value: str) -> str:
    """Prose as a prompt shows it: one line (line breaks and tabs to one space), so what a caller
    sends can never start a line of its own there ("SYSTEM: ..."); kept so too."""
    return " ".join(value.split())


def line(field: str, value: str, *, required: bool = False, limit: int = MAX_LABEL) -> str:
    """One line: no line breaks, tabs or other control characters."""
    _length(field, value, limit, required)
    if _CONTROL.search(value):
        raise invalid(f"{field} {shown(value)} contains a line break or control character: send one line")
    return value


def name(field: str, value: str, *, required: bool = True) -> str:
    """A name: one line of at most MAX_NAME characters without ':'."""
    line(field, value, required=required, limit=MAX_NAME)
    if ":" in value:
        raise invalid(f"{field} {shown(value)} contains ':', which separates the parts of an address: "
                      "rename it without one")
    if value != value.strip():
        raise invalid(f"{field} {shown(value)} starts or ends with spaces")
    return value


def names(field: str, values: Iterable[str], *, limit: int) -> None:
    values = list(values)
    count(field, values, limit)
    for value in values:
        name(field, value)


def count(field: str, items: Collection[object], limit: int) -> None:
    if len(items) > limit:
        raise BrainError(Status.RESOURCE_EXHAUSTED, f"{field} has {len(items)} items; send at most {limit}")


def unique(field: str, values: Iterable[str], where: str) -> None:
    seen: set[str] = set()
    for value in values:
        if value in seen:
            raise invalid(f"two {field}s are named {shown(value)} {where}: names must be unique there")
        seen.add(value)


def npc_id(value: str) -> str:
    if not NPC_ID.fullmatch(value):
        raise invalid(f"npc_id {shown(value)} is invalid: use 1-64 letters, digits, '_', '-' or '.'")
    return value


def slot(value: str) -> str:
    if not SLOT.fullmatch(value):
        raise invalid(f"slot {shown(value)} is invalid: use 1-64 letters, digits, '_' or '-', e.g. \"slot_1\"")
    file_name("slot", value)
    return value


def file_name(field: str, value: str) -> str:
    """A name that becomes a file or folder name (save slots, worlds' save folders): not '.' or
    '..' (the folder itself, or the one above), nor a name Windows reserves for a device."""
    if value.strip() in (".", ".."):
        raise invalid(f"{field} {shown(value)} names a folder ('.' is this one, '..' the one above): "
                      "give it a name with a letter or digit")
    if _RESERVED.match(value.strip()):
        raise invalid(f"{field} {shown(value)} is a name Windows reserves for a device (CON, PRN, AUX, NUL, "
                      "COM1-COM9, LPT1-LPT9, with or without an extension): pick another")
    return value


def world(world: World) -> None:
    """Names that make addresses (no ':', one line), unique among their siblings; a bounded size.
    The world's name also names its saves' folder (`file_name`)."""
    name("world.name", world.name)
    file_name("world.name", world.name)
    if not world.sectors:
        raise invalid("world.sectors is empty: send at least one sector with an arena")
    places = sum(world.counts())
    if places > MAX_WORLD_PLACES:
        raise BrainError(Status.RESOURCE_EXHAUSTED, f"the world has {places} sectors, arenas and objects; "
                         f"send at most {MAX_WORLD_PLACES}")
    unique("sector", (s.name for s in world.sectors), "in a world")
    for sector in world.sectors:
        name("sector name", sector.name)
        names(f"sector {shown(sector.name)} residents", sector.residents, limit=MAX_WORLD_PLACES)
        if not sector.arenas:
            raise invalid(f"sector {shown(sector.name)} has no arenas: every sector needs at least one")
        unique("arena", (a.name for a in sector.arenas), f"in sector {shown(sector.name)}")
        for arena in sector.arenas:
            name("arena name", arena.name)
            unique("object", (o.name for o in arena.objects), f"in arena {shown(arena.name)}")
            for obj in arena.objects:
                name("object name", obj.name)
                line("object state", obj.state)
    verbs("world.verbs", world.verbs)


MAX_VERBS = 64  # declared on a world, or on one NPC
MAX_VERB_ARGUMENTS = 8
MAX_CHOICES = 32
VERB_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")  # full-matched: a name the model copies and the game matches


def verbs(field: str, declared: Sequence[Verb]) -> None:
    """A game's verb declarations: names a model can copy exactly, each argument's type usable
    (choices to pick from, a range that holds a number), targets and users that can match."""
    count(field, declared, MAX_VERBS)
    unique("verb", (v.name for v in declared), f"in {field}")
    for verb in declared:
        where = f"{field} {shown(verb.name)}"
        if not VERB_NAME.fullmatch(verb.name):
            raise invalid(f"{where}: a verb's name is 1-64 letters, digits or '_', not starting with a digit")
        line(f"{where} description", verb.description, required=True)  # one line of the prompts' verb lists
        count(f"{where} targets", verb.targets, MAX_WORLD_PLACES)
        for target in verb.targets:
            line(f"{where} target", target, required=True)
        count(f"{where} users", verb.users, MAX_WORLD_PLACES)
        for user in verb.users:
            npc_id(user)
        if verb.place == "anywhere" and verb.targets:
            raise invalid(f"{where} applies anywhere but names targets: set its place to object or arena")
        count(f"{where} arguments", verb.arguments, MAX_VERB_ARGUMENTS)
        unique("argument", (a.name for a in verb.arguments), f"of verb {shown(verb.name)}")
        for argument in verb.arguments:
            _argument(f"{where} argument {shown(argument.name)}", argument)


def no_clash(clashes: Sequence[str], npc_ids: Sequence[str] = ()) -> None:
    """Verbs a world and its NPCs (SpawnNpc's or those already spawned) declare by one name, differently."""
    if not clashes:
        return
    ids = ", ".join(map(repr, npc_ids))
    whose = f"NPC {ids} of the world" if npc_ids else "this NPC"
    fix = (f"SpawnNpc {ids} again without it (or with it renamed) before registering the world with it, or "
           "leave it out of the world") if npc_ids else "leave it out of this NPC's verbs, or give the NPC's its own name"
    raise invalid(f"verb {shown(clashes[0])} is declared by the world and by {whose}, differently: one name is "
                  f"one verb (a world's serves every NPC, and its users narrow it to some): {fix}")


def outcomes_declared(names: Iterable[str], declared: Sequence[str], npc_id: str) -> None:
    """Outcomes only of verbs the NPC could have been asked to do: the game's answer to a VerbCall."""
    for verb in names:
        if verb not in declared:
            which = f"its verbs are {', '.join(map(repr, declared))}" if declared else \
                "it has none (RegisterWorld's world.verbs and SpawnNpc's verbs declare them)"
            raise invalid(f"verb_outcomes.name {shown(verb)} is not a verb declared for NPC {npc_id!r}: {which}; "
                          "report the outcome of a verb the brain asked for (Action.verb), and let the game's "
                          "own actions reach the NPC as perceptions")


def _argument(where: str, argument: VerbArgument) -> None:
    if not VERB_NAME.fullmatch(argument.name):
        raise invalid(f"{where}: an argument's name is 1-64 letters, digits or '_', not starting with a digit")
    line(f"{where} description", argument.description)
    if argument.type == "choice":
        if not argument.choices:
            raise invalid(f"{where} is a choice without choices: list them")
        count(f"{where} choices", argument.choices, MAX_CHOICES)
        unique("choice", argument.choices, f"of {where}")
        for choice in argument.choices:
            line(f"{where} choice", choice, required=True, limit=MAX_NAME)
    elif argument.choices:
        raise invalid(f"{where} is a number with choices: make it a choice, or drop the choices")
    bounds = [b for b in (argument.minimum, argument.maximum) if b is not None]
    if argument.type == "choice" and bounds:
        raise invalid(f"{where} is a choice with a range: make it a number, or drop the range")
    if any(not math.isfinite(b) for b in bounds) or (len(bounds) == 2 and bounds[0] > bounds[1]):
        raise invalid(f"{where} has the range {argument.minimum}..{argument.maximum}: give finite bounds, "
                      "the minimum first")


def game_time(request: Message, field: str) -> datetime:
    """A game time the request must carry (a Timestamp field), in the years a game's calendar uses."""
    if not request.HasField(field):
        raise invalid(f"{field} is missing: send the game clock's time, e.g. \"2026-02-13T07:00:00Z\"")
    try:
        when: datetime = getattr(request, field).ToDatetime(tzinfo=UTC)
    except (ValueError, OverflowError) as exc:
        raise invalid(f"{field} is not a valid time: {exc}") from exc
    if not 1900 <= when.year <= 9000:
        raise invalid(f"{field} {when.isoformat()} is {'before 1900' if when.year < 1900 else 'after 9000'}: "
                      "send the game's calendar time")
    return when
