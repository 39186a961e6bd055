"""What the brain accepts from a caller, one rule per kind of value (docs/reliability.md, "Bad
input", has the table). Every string and list a request carries into the store or a prompt passes
one of these before the service uses it:

- prose (`text`): whispers, player lines, questions, descriptions, identities: at most MAX_TEXT
  characters; line breaks and tabs are fine (prompts quote prose), other control characters are not;
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

from collections.abc import Collection, Iterable
import re

from brain_server.errors import BrainError, Status, invalid

MAX_TEXT = 4000
MAX_LABEL = 200
MAX_NAME = 100
MAX_ECHO = 80
MAX_PERCEPTIONS = 64
MAX_TRAITS = 32
MAX_KNOWN_AREAS = 1000
MAX_WORLD_PLACES = 20_000  # sectors, arenas and objects of one world together
SLOT = re.compile(r"^[A-Za-z0-9_\-]{1,64}$")  # a save slot's name is a file's name on every OS
NPC_ID = re.compile(r"^[A-Za-z0-9_.\-]{1,64}$")  # full-matched; the lab's pydantic models use the pattern
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_CONTROL_IN_PROSE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


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
    return value
