"""The town on a tile grid, laid out deterministically from the tree, and paths over it.

town.json has no geometry, so the sim lays the town out itself: each sector is a block of rooms
(one room per arena, in one row, each room `ROOM_H` tiles tall and wide enough for its objects,
walls between rooms, a door in each room's bottom wall), blocks are packed left to right on
shelves `MAX_ROW_WIDTH` tiles wide, and every tile outside a block is street. Objects take one
interior tile each, row by row from the top-left. The same tree always gives the same map, so
runs are reproducible; the Godot town (tools/godot_town.py) has its own layout, and distances
there differ, which changes walking times but not what the brain is asked.

Walking: one tile per 10 game seconds (the paper's step), 4-neighbour BFS over walkable tiles.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
import hashlib

from brain_server.sim.data import Town

MAX_ROW_WIDTH = 80
STREET = 2
ROOM_H = 4  # interior rows
MIN_ROOM_W = 4
SECONDS_PER_TILE = 10

Tile = tuple[int, int]


@dataclass
class Grid:
    width: int
    height: int
    walkable: set[Tile] = field(default_factory=set)
    arena_tiles: dict[str, list[Tile]] = field(default_factory=dict)  # arena address -> interior tiles
    object_tiles: dict[str, Tile] = field(default_factory=dict)  # object address -> tile
    tile_arena: dict[Tile, str] = field(default_factory=dict)

    def world_message(self, town: Town, states: dict[str, str] | None = None) -> dict:
        """The RegisterWorld request body (proto3 JSON), with tiles, as Godot would send it."""
        states = states or {}
        sectors = []
        for s in town.sectors:
            arenas = []
            for a in s.arenas:
                address = f"{town.name}:{s.name}:{a.name}"
                objects = [{"name": o.name, "tiles": [_tile(self.object_tiles[f"{address}:{o.name}"])],
                            "state": states.get(f"{address}:{o.name}", o.state)} for o in a.objects]
                arenas.append({"name": a.name, "tiles": [_tile(t) for t in self.arena_tiles[address]],
                               "objects": objects})
            sectors.append({"name": s.name, "arenas": arenas, "residents": s.residents})
        return {"world": {"name": town.name, "width": self.width, "height": self.height, "sectors": sectors}}

    def destination(self, address: str, who: str) -> Tile | None:
        """Where to stand for an address: the object's tile, or a stable spot in the arena."""
        if address in self.object_tiles:
            return self.object_tiles[address]
        arena = ":".join(address.split(":")[:3])
        tiles = self.arena_tiles.get(arena)
        if not tiles:
            return None
        h = int.from_bytes(hashlib.sha256(f"{who}|{arena}".encode()).digest()[:4], "big")
        return tiles[h % len(tiles)]

    def path(self, start: Tile, goal: Tile) -> list[Tile]:
        """Tiles from start (excluded) to goal (included), shortest over walkable tiles; [] if none."""
        if start == goal:
            return []
        came: dict[Tile, Tile | None] = {start: None}
        queue = deque([start])
        while queue:
            here = queue.popleft()
            if here == goal:
                break
            x, y = here
            for nxt in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if nxt in self.walkable and nxt not in came:
                    came[nxt] = here
                    queue.append(nxt)
        if goal not in came:
            return []
        out = []
        node: Tile | None = goal
        while node is not None and node != start:
            out.append(node)
            node = came[node]
        return out[::-1]


def _tile(t: Tile) -> dict[str, int]:
    return {"x": t[0], "y": t[1]}


def layout(town: Town) -> Grid:
    """Blocks of rooms on shelves, streets around them; deterministic in the tree's order."""
    x, y, shelf_h, width = STREET, STREET, 0, 0
    placed: list[tuple[int, int, object]] = []
    for sector in town.sectors:
        room_ws = [max(MIN_ROOM_W, -(-len(a.objects) // (ROOM_H - 1)) + 1) for a in sector.arenas]
        block_w = sum(room_ws) + len(room_ws) + 1  # walls between and around
        block_h = ROOM_H + 2
        if x > STREET and x + block_w > MAX_ROW_WIDTH:
            x, y, shelf_h = STREET, y + shelf_h + STREET, 0
        placed.append((x, y, (sector, room_ws)))
        x += block_w + STREET
        shelf_h = max(shelf_h, block_h)
        width = max(width, x)
    height = y + shelf_h + STREET
    grid = Grid(width, height)
    blocked: set[Tile] = set()
    for bx, by, (sector, room_ws) in placed:  # type: ignore[misc]
        rx = bx
        block_w = sum(room_ws) + len(room_ws) + 1
        blocked |= {(i, j) for i in range(bx, bx + block_w) for j in range(by, by + ROOM_H + 2)}
        for arena, rw in zip(sector.arenas, room_ws, strict=True):
            address = f"{town.name}:{sector.name}:{arena.name}"
            interior = [(i, j) for j in range(by + 1, by + 1 + ROOM_H) for i in range(rx + 1, rx + 1 + rw)]
            door = (rx + 1 + rw // 2, by + ROOM_H + 1)
            grid.arena_tiles[address] = interior
            for t in interior:
                grid.tile_arena[t] = address
            grid.walkable |= set(interior) | {door}
            blocked.discard(door)
            for obj, t in zip(arena.objects, interior, strict=False):
                grid.object_tiles[f"{address}:{obj.name}"] = t
            rx += rw + 1
    grid.walkable |= {(i, j) for i in range(width) for j in range(height) if (i, j) not in blocked}
    return grid
