"""The town's tile grid as the Godot engine lays it out, and walking over it.

The map is `godot_project/data/town_layout.json`, exported from the Godot scene by the engine
itself (`python -m tools.godot_web export-town`; a test keeps it current), so walking distances
here are the game's. The rules are Godot's (`NpcBrainWorld`,
`godot_project/addons/npc_brain/world/npc_brain_world.gd`): a tile is walkable when it is inside
the grid and not a wall; NPCs step to the 4 neighbours (AStarGrid2D, DIAGONAL_MODE_NEVER), one
tile per 10 game seconds (the paper's step); an object's address leads to its walkable tile
nearest to the walker, an arena's to a floor tile no object stands on.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Collection
from dataclasses import dataclass, field
import hashlib
import math

from brain_server.model.world import arena_of, join
from npc_lab.residents import TownLayout

SECONDS_PER_TILE = 10

Tile = tuple[int, int]


@dataclass
class Grid:
    width: int
    height: int
    walls: set[Tile] = field(default_factory=set)
    arena_tiles: dict[str, list[Tile]] = field(default_factory=dict)  # arena address -> floor tiles
    object_tiles: dict[str, list[Tile]] = field(default_factory=dict)  # object address -> its tiles
    tile_arena: dict[Tile, str] = field(default_factory=dict)
    sector_arenas: dict[str, str] = field(default_factory=dict)  # "world:sector" -> its first arena
    world_name: str = ""
    _open: bytearray = field(default_factory=bytearray, repr=False)  # walkable by tile number, made on first use

    def walkable(self, tile: Tile) -> bool:
        return 0 <= tile[0] < self.width and 0 <= tile[1] < self.height and tile not in self.walls

    def world_message(self, town: TownLayout, states: dict[str, str] | None = None) -> dict:
        """The RegisterWorld request body (proto3 JSON): the world Godot registers, with object
        states overridden by `states` (object address -> state)."""
        world = town.world.model_copy(deep=True)
        for sector in world.sectors:
            for arena in sector.arenas:
                for item in arena.objects:
                    item.state = (states or {}).get(join(world.name, sector.name, arena.name, item.name), item.state)
        return {"world": world.model_dump(mode="json")}

    def full_address(self, address: str) -> str:
        """Prefixes the world's name when an address starts at the sector, as Godot does."""
        if not address or address.startswith(self.world_name + ":"):
            return address
        return f"{self.world_name}:{address}"

    def destination(self, address: str, who: str, start: Tile | None = None,
                    taken: Collection[Tile] = ()) -> Tile | None:
        """Where to stand for an address (Godot's NpcBrainPlaces.resolve_target): an object's walkable tile
        nearest to `start`, one not `taken` (by other NPCs' tiles and destinations) if it can; else
        a floor tile of the arena (of a "world:sector" address: the sector's first arena) that no
        object covers and is not taken, picked stably per walker; None if the address is unknown."""
        address = self.full_address(address)
        if address in self.object_tiles:
            tiles = [t for t in self.object_tiles[address] if self.walkable(t)]
            tiles = [t for t in tiles if t not in taken] or tiles
            if not tiles:
                return None
            return min(tiles, key=lambda t: math.dist(t, start)) if start else tiles[0]
        arena = self.sector_arenas.get(address) or arena_of(address)
        floor = [t for t in self.arena_tiles.get(arena, []) if self.walkable(t)]
        covered = {t for a, tiles in self.object_tiles.items() if arena_of(a) == arena for t in tiles}
        free = [t for t in floor if t not in covered and t not in taken] or floor
        if not free:
            return None
        h = int.from_bytes(hashlib.sha256(f"{who}|{arena}".encode()).digest()[:4], "big")
        return free[h % len(free)]

    def path(self, start: Tile, goal: Tile) -> list[Tile]:
        """Tiles from start (excluded) to goal (included), shortest over walkable tiles; [] if none.
        Breadth first over tile numbers rather than tuples: the real-time bench finds a path on
        every answer, on the event loop that times the calls (tuples took up to 14 ms a path)."""
        width, height = self.width, self.height
        if start == goal or not self.walkable(goal) or not (0 <= start[0] < width and 0 <= start[1] < height):
            return []
        if len(self._open) != width * height:
            self._open = bytearray(int(self.walkable((i % width, i // width))) for i in range(width * height))
        is_open, came = self._open, [-1] * (width * height)
        first, last = start[1] * width + start[0], goal[1] * width + goal[0]
        came[first] = first
        queue = deque([first])
        while queue:
            here = queue.popleft()
            if here == last:
                break
            x = here % width
            for nxt, inside in ((here + 1, x + 1 < width), (here - 1, x > 0), (here + width, here + width < len(came)),
                                (here - width, here >= width)):
                if inside and came[nxt] < 0 and is_open[nxt]:
                    came[nxt] = here
                    queue.append(nxt)
        if came[last] < 0:
            return []
        out = []
        node = last
        while node != first:
            out.append((node % width, node // width))
            node = came[node]
        return out[::-1]


def layout(town: TownLayout) -> Grid:
    """The walk grid of an exported town."""
    world = town.world
    grid = Grid(world.width, world.height, walls=set(town.walls), world_name=world.name)
    for sector in world.sectors:
        for arena in sector.arenas:
            address = join(world.name, sector.name, arena.name)
            grid.sector_arenas.setdefault(join(world.name, sector.name), address)
            grid.arena_tiles[address] = [(t.x, t.y) for t in arena.tiles]
            for t in arena.tiles:
                grid.tile_arena[(t.x, t.y)] = address
            for item in arena.objects:
                grid.object_tiles[join(address, item.name)] = [(t.x, t.y) for t in item.tiles]
    return grid
