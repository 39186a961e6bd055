"""Wyncombe: a village of our own laid out as a ring (houses, shops, school and inn around a
large central green, a lane between), unlike Saltmarsh's rows of rooms and the Ville's streets.
Its event is by day and outdoors: a cricket match on the Green, Saturday 2-4 pm. The map is built
here and kept as `tests/data/wyncombe/town_layout.json`; the eight residents and the scenario
are the resident and scenario files beside it.

    .venv/bin/python -m tests.wyncombe   # writes town_layout.json again from RING
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data" / "wyncombe"
LAYOUT = DATA / "town_layout.json"
RESIDENTS = DATA / "residents"
SCENARIO = DATA / "cricket_match.json"
NAME = "Wyncombe"
ROOM_W, ROOM_H, SIDE = 5, 4, 5  # a ring of SIDE x SIDE slots; the inner (SIDE-2)^2 are the Green
GREEN = ("Village Green", "green", ["pitch", "pavilion bench", "scoreboard"])
# Around the ring, clockwise from the north-west corner: (sector, its residents, arena, objects).
RING: list[tuple[str, list[str], str, list[str]]] = [
    ("Varga house", ["Ines Varga"], "bedroom", ["bed"]),
    ("Bakehouse", [], "bakery", ["oven", "counter"]),
    ("Pryce cottage", ["Owen Pryce"], "bedroom", ["bed"]),
    ("School", [], "classroom", ["blackboard", "desks"]),
    ("Moss house", ["Dalia Moss"], "bedroom", ["bed", "desk"]),
    ("Post Office", [], "counter room", ["counter", "sorting rack"]),
    ("Oduya flat", ["Bram Oduya"], "bedroom", ["bed"]),
    ("Surgery", [], "waiting room", ["chairs", "desk"]),
    ("Fisk house", ["Lena Fisk"], "bedroom", ["bed"]),
    ("Workshop", [], "workshop", ["workbench", "lathe"]),
    ("Reyes cottage", ["Tomas Reyes"], "bedroom", ["bed"]),
    ("Plough Inn", [], "taproom", ["bar", "fireplace"]),
    ("Hale cottage", ["Agnes Hale"], "bedroom", ["bed", "armchair"]),
    ("Plough Inn", [], "garden", ["tables"]),
    ("Pike rooms", ["Jonah Pike"], "bedroom", ["bed"]),
    ("St Aldhelm's", [], "nave", ["pews", "organ"]),
]


def ring_slots(side: int) -> list[tuple[int, int]]:
    """The border slots of a side x side grid, clockwise from the top-left corner."""
    top = [(i, 0) for i in range(side)]
    right = [(side - 1, j) for j in range(1, side)]
    bottom = [(i, side - 1) for i in range(side - 2, -1, -1)]
    left = [(0, j) for j in range(side - 2, 0, -1)]
    return top + right + bottom + left


def _room(name: str, x0: int, y0: int, w: int, h: int, objects: list[str]) -> dict[str, Any]:
    tiles = [{"x": x, "y": y} for y in range(y0, y0 + h) for x in range(x0, x0 + w)]
    things = [{"name": o, "state": "", "tiles": [{"x": x0 + 1 + 2 * j, "y": y0 + 1}]} for j, o in enumerate(objects)]
    return {"name": name, "tiles": tiles, "objects": things}


def build_layout() -> dict[str, Any]:
    """The village as an engine would export it: every arena's tiles, every object's tile, no walls."""
    sectors: dict[str, dict[str, Any]] = {}
    for (i, j), (sector, residents, arena, objects) in zip(ring_slots(SIDE), RING, strict=True):
        room = _room(arena, 1 + i * (ROOM_W + 1), 1 + j * (ROOM_H + 1), ROOM_W, ROOM_H, objects)
        sectors.setdefault(sector, {"name": sector, "residents": residents, "arenas": []})["arenas"].append(room)
    inner = (SIDE - 2)
    green = _room(GREEN[1], 1 + ROOM_W + 1, 1 + ROOM_H + 1, inner * (ROOM_W + 1) - 1, inner * (ROOM_H + 1) - 1, GREEN[2])
    sectors[GREEN[0]] = {"name": GREEN[0], "residents": [], "arenas": [green]}
    return {"tile_size": 24, "walls": [], "world": {"name": NAME, "width": SIDE * (ROOM_W + 1) + 1,
                                                      "height": SIDE * (ROOM_H + 1) + 1, "sectors": list(sectors.values())}}


if __name__ == "__main__":
    LAYOUT.write_text(json.dumps(build_layout(), indent=None) + "\n")
