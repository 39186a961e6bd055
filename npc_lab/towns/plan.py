"""A town drawn as buildings on a tile grid, written out as the files the sim reads.

A town module lists its buildings (each a row of rooms behind one outer wall, a door from each room
to the street, or open ground with no walls at all), its residents and its event; `write` lays the
buildings out, checks that every room can be walked to from every other, and writes
`town_layout.json` (the shape a Godot export has), `residents/<npc_id>.json` and the scenario file.
Addresses in a town module are written without the town's name ("Mill:loft"); `write` roots them.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
import json
from pathlib import Path
import shutil
from typing import Any

TILE_SIZE = 24
PERCEPTION = {"vision_radius": 8, "attention_bandwidth": 8, "retention": 8}


@dataclass(frozen=True)
class Room:
    name: str
    objects: tuple[str, ...] = ()
    width: int = 5


@dataclass(frozen=True)
class Building:
    """Rooms side by side, `depth` tiles deep, with their outer wall's top-left corner at `at`.
    Doors open in the wall on the `door` side ("south" or "north"), one in the middle of each room."""

    name: str
    at: tuple[int, int]
    rooms: tuple[Room, ...]
    residents: tuple[str, ...] = ()
    depth: int = 4
    door: str = "south"
    walled: bool = True


@dataclass(frozen=True)
class Person:
    npc_id: str
    name: str
    age: int
    traits: tuple[str, ...]
    identity: str
    lifestyle: str
    currently: str
    home: str
    workplace: str
    known_areas: tuple[str, ...]  # besides home and workplace, which always come first


@dataclass(frozen=True)
class Event:
    """The scenario: who plans what, and what to measure. `text` is the host's intention, one
    sentence with the date, the time window and the place."""

    file: str
    name: str
    description: str
    start: str
    host: str
    text: str
    topic: str
    question: str
    place: str
    window: tuple[str, str]
    days: int = 2


@dataclass
class _Canvas:
    width: int
    height: int
    walls: set[tuple[int, int]] = field(default_factory=set)
    used: dict[tuple[int, int], str] = field(default_factory=dict)

    def claim(self, tile: tuple[int, int], what: str) -> None:
        x, y = tile
        if not (0 <= x < self.width and 0 <= y < self.height):
            raise ValueError(f"{what}: tile {tile} is outside the {self.width}x{self.height} map")
        if tile in self.used:
            raise ValueError(f"{what}: tile {tile} is already {self.used[tile]}")
        self.used[tile] = what


def _object_tiles(x0: int, y0: int, width: int, depth: int, back: int, count: int) -> list[tuple[int, int]]:
    """Where a room's objects stand: every other tile along the back wall, then the row in front of
    it; never the row by the door, so the way in stays free."""
    rows = [y0 + back + i * (1 if back == 0 else -1) for i in range(max(1, depth - 1))]
    spots = [(x0 + dx, y) for y in rows for dx in range(0, width, 2)]
    if count > len(spots):
        raise ValueError(f"room at ({x0}, {y0}) has room for {len(spots)} objects, not {count}")
    return spots[:count]


def _arena(canvas: _Canvas, label: str, room: Room, x0: int, y0: int, depth: int, door: str) -> dict[str, Any]:
    tiles = [(x, y) for y in range(y0, y0 + depth) for x in range(x0, x0 + room.width)]
    for t in tiles:
        canvas.claim(t, label)
    back = 0 if door == "south" else depth - 1
    spots = _object_tiles(x0, y0, room.width, depth, back, len(room.objects))
    return {"name": room.name, "tiles": [{"x": x, "y": y} for x, y in tiles],
            "objects": [{"name": o, "state": "", "tiles": [{"x": x, "y": y}]}
                        for o, (x, y) in zip(room.objects, spots, strict=True)]}


def _sector(canvas: _Canvas, b: Building) -> dict[str, Any]:
    if b.door not in ("south", "north"):
        raise ValueError(f"{b.name}: door must face south or north, not {b.door!r}")
    ax, ay = b.at
    inner = 1 if b.walled else 0
    arenas, x = [], ax + inner
    for room in b.rooms:
        arenas.append(_arena(canvas, f"{b.name}:{room.name}", room, x, ay + inner, b.depth, b.door))
        x += room.width + inner
    if b.walled:
        right, bottom = x - 1, ay + b.depth + 1
        front = bottom if b.door == "south" else ay
        doors, between, cx = set(), [], ax + 1
        for room in b.rooms:
            doors.add((cx + room.width // 2, front))
            cx += room.width + 1
            between.append(cx - 1)
        ring = [(i, j) for j in range(ay, bottom + 1) for i in range(ax, right + 1)
                if i in (ax, right) or j in (ay, bottom) or i in between]
        for tile in ring:
            if tile not in doors:
                canvas.claim(tile, f"{b.name}: wall")
                canvas.walls.add(tile)
    return {"name": b.name, "residents": list(b.residents), "arenas": arenas}


def _reachable(canvas: _Canvas, start: tuple[int, int]) -> set[tuple[int, int]]:
    seen, queue = {start}, deque([start])
    while queue:
        x, y = queue.popleft()
        for nxt in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if (0 <= nxt[0] < canvas.width and 0 <= nxt[1] < canvas.height and nxt not in canvas.walls
                    and nxt not in seen):
                seen.add(nxt)
                queue.append(nxt)
    return seen


def layout(name: str, size: tuple[int, int], buildings: list[Building],
           barriers: tuple[tuple[int, int, int, int], ...] = ()) -> dict[str, Any]:
    """town_layout.json: every arena's tiles, every object's tile, the walls; refused when two
    things share a tile or some room cannot be walked to from the others. `barriers` are
    rectangles (x0, y0, x1, y1, inclusive) nobody walks through, a river or a railway, except
    where an arena crosses them (a ford, a level crossing)."""
    canvas = _Canvas(*size)
    sectors = [_sector(canvas, b) for b in buildings]
    for x0, y0, x1, y1 in barriers:
        canvas.walls |= {(x, y) for x in range(x0, x1 + 1) for y in range(y0, y1 + 1) if (x, y) not in canvas.used}
    floors = [(t["x"], t["y"]) for s in sectors for a in s["arenas"] for t in a["tiles"][:1]]
    reach = _reachable(canvas, floors[0])
    shut = [f"{s['name']}:{a['name']}" for s in sectors for a in s["arenas"]
            if (a["tiles"][0]["x"], a["tiles"][0]["y"]) not in reach]
    if shut:
        raise ValueError(f"cannot be walked to: {', '.join(shut)}")
    return {"tile_size": TILE_SIZE, "walls": sorted([x, y] for x, y in canvas.walls),
            "world": {"name": name, "width": canvas.width, "height": canvas.height, "sectors": sectors}}


def resident(town: str, p: Person) -> dict[str, Any]:
    """A resident file: addresses rooted in `town`, home first among the known areas, then work."""
    def root(address: str) -> str:
        return f"{town}:{address}" if address else ""

    known = list(dict.fromkeys(a for a in (p.home, p.workplace, *p.known_areas) if a))
    return {"npc_id": p.npc_id, "name": p.name, "age": p.age, "traits": list(p.traits), "identity": p.identity,
            "lifestyle": p.lifestyle, "currently": p.currently, "home": root(p.home), "workplace": root(p.workplace),
            "known_areas": [root(a) for a in known], "perception": dict(PERCEPTION)}


def scenario(town: str, e: Event) -> dict[str, Any]:
    return {"name": e.name, "description": e.description, "start_time": e.start, "days": e.days,
            "whispers": [{"npc_id": e.host, "game_time": e.start, "text": e.text}],
            "measure": {"topic": e.topic, "question": e.question, "host": e.host, "place": f"{town}:{e.place}",
                        "window": list(e.window)}}


def write(folder: Path, name: str, size: tuple[int, int], buildings: list[Building], people: list[Person],
          event: Event, barriers: tuple[tuple[int, int, int, int], ...] = ()) -> None:
    """Writes the town's files into `folder` afresh (a resident dropped from the module goes too)."""
    town = layout(name, size, buildings, barriers)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "town_layout.json").write_text(json.dumps(town) + "\n")
    shutil.rmtree(folder / "residents", ignore_errors=True)
    (folder / "residents").mkdir()
    for p in people:
        (folder / "residents" / f"{p.npc_id}.json").write_text(json.dumps(resident(name, p), indent=2) + "\n")
    write_scenario(folder, name, event)


def write_scenario(folder: Path, town: str, event: Event) -> None:
    """Writes one event of the town (`scenario`) into `folder` as `<event.file>.json`."""
    (folder / f"{event.file}.json").write_text(json.dumps(scenario(town, event), indent=2) + "\n")
