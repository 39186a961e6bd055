"""The world's spatial tree as Godot sent it, and the addresses it makes valid.

Addresses read `world:sector:arena` or `world:sector:arena:object`, as in the paper's code.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

from brain_server.model.verbs import Verb

SEPARATOR = ":"

# An address written into a label in brackets: names, each with a letter, joined by the separator
# with no space beside it (so "(till 17:00)" is a clock and "(note: bring a cake)" is prose).
_NAMED = r"(?=[^():]*[^\W\d_])[^():\s](?:[^():]*[^():\s])?"
_ADDRESS_SAID = re.compile(rf"\s*\({_NAMED}(?:{SEPARATOR}{_NAMED})+\)")


class Tile(BaseModel):
    x: int
    y: int


class GameObject(BaseModel):
    name: str
    tiles: list[Tile] = Field(default_factory=list)
    state: str = ""


class Arena(BaseModel):
    name: str
    tiles: list[Tile] = Field(default_factory=list)
    objects: list[GameObject] = Field(default_factory=list)


class Sector(BaseModel):
    name: str
    arenas: list[Arena] = Field(default_factory=list)
    residents: list[str] = Field(default_factory=list)


class World(BaseModel):
    name: str
    width: int = 0
    height: int = 0
    sectors: list[Sector] = Field(default_factory=list)
    # The game's verbs its NPCs may use (brain_server/model/verbs.py).
    verbs: list[Verb] = Field(default_factory=list)

    def arena_addresses(self) -> list[str]:
        return [join(self.name, s.name, a.name) for s in self.sectors for a in s.arenas]

    def object_addresses(self) -> list[str]:
        return [join(self.name, s.name, a.name, o.name) for s in self.sectors for a in s.arenas for o in a.objects]

    def addresses(self) -> set[str]:
        return set(self.arena_addresses()) | set(self.object_addresses())

    def counts(self) -> tuple[int, int, int]:
        arenas = sum(len(s.arenas) for s in self.sectors)
        objects = sum(len(a.objects) for s in self.sectors for a in s.arenas)
        return len(self.sectors), arenas, objects


def join(*parts: str) -> str:
    return SEPARATOR.join(parts)


def arena_of(address: str) -> str:
    """The arena part of an address (`world:sector:arena`), objects stripped."""
    return SEPARATOR.join(address.split(SEPARATOR)[:3])


def sector_of(address: str) -> str:
    """The sector part of an address (`world:sector`), arena and objects stripped."""
    return SEPARATOR.join(address.split(SEPARATOR)[:2])


def place_names(address: str) -> tuple[str, str]:
    """The names of an address's sector and arena ("" where it has none)."""
    sector, arena = [*address.split(SEPARATOR), "", ""][1:3]
    return sector, arena


def without_addresses(label: str) -> str:
    """A model's activity without the address it copied in from the prompt's schedule lines: blind22
    planned "having lunch (Cauldwell:Lock House:Dominic Pollard's bedroom)" from yesterday's
    "- 12:00-13:00 having lunch (Cauldwell:Lock House:...)", and players read it so in 1-5% of the
    actions of every town. Where the item is is its address's to say; the label says what is done."""
    return _ADDRESS_SAID.sub("", label).strip() or label.strip()
