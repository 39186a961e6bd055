"""Saltmarsh: a small harbour town of our own (not the Ville) for the information-flow tests. Its
map is laid out here (rooms as rectangles in rows, corridors between them, an object on a tile of
its room) and kept as `tests/data/saltmarsh/town_layout.json`, the file a Godot export would be;
its eight residents and its scenario (a lantern walk) are resident and scenario files beside it.

    .venv/bin/python -m tests.saltmarsh   # writes town_layout.json again from SECTORS
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data" / "saltmarsh"
LAYOUT = DATA / "town_layout.json"
RESIDENTS = DATA / "residents"
SCENARIO = DATA / "lantern_walk.json"
NAME = "Saltmarsh"
ROOM_W, ROOM_H, PER_ROW = 6, 5, 6
# (sector, its residents (private when any), [(arena, [objects])])
SECTORS: list[tuple[str, list[str], list[tuple[str, list[str]]]]] = [
    ("Marsh cottage", ["Odile Marsh"], [("bedroom", ["bed"]), ("kitchen", ["stove", "table"])]),
    ("Vos house", ["Piet Vos"], [("bedroom", ["bed"]), ("kitchen", ["stove"])]),
    ("Roe flat", ["Mina Roe"], [("bedroom", ["bed"])]),
    ("Grell house", ["Tobias Grell"], [("bedroom", ["bed", "desk"])]),
    ("Ostrova rooms", ["Hana Ostrova"], [("bedroom", ["bed"])]),
    ("Kask loft", ["Ruben Kask"], [("bedroom", ["bed"])]),
    ("Brandt house", ["Lotte Brandt"], [("bedroom", ["bed"])]),
    ("Sarre house", ["Emil Sarre"], [("bedroom", ["bed", "piano"])]),
    ("Lighthouse", [], [("lamp room", ["lens", "logbook"])]),
    ("Harbour", [], [("quay", ["bollard", "nets"]), ("boat shed", ["workbench", "hull"])]),
    ("Market Hall", [], [("market", ["fish stall", "fruit stall"]), ("bakery", ["oven", "counter"])]),
    ("School", [], [("classroom", ["blackboard", "desks"])]),
    ("Tide Inn", [], [("taproom", ["bar", "fireplace"])]),
    ("Chapel", [], [("nave", ["organ", "pews"])]),
]


def build_layout() -> dict[str, Any]:
    """The town as an engine would export it: every arena's tiles, every object's tile, no walls
    (rooms are told apart by their tiles; corridors one tile wide run between them)."""
    arenas = [(s, a, objects) for s, _, rooms in SECTORS for a, objects in rooms]
    rows = (len(arenas) + PER_ROW - 1) // PER_ROW
    width, height = PER_ROW * (ROOM_W + 1) + 1, rows * (ROOM_H + 1) + 1
    sectors: dict[str, dict[str, Any]] = {}
    for i, (sector, arena, objects) in enumerate(arenas):
        x0, y0 = 1 + (i % PER_ROW) * (ROOM_W + 1), 1 + (i // PER_ROW) * (ROOM_H + 1)
        tiles = [{"x": x, "y": y} for y in range(y0, y0 + ROOM_H) for x in range(x0, x0 + ROOM_W)]
        things = [{"name": o, "state": "", "tiles": [{"x": x0 + 1 + 2 * j, "y": y0 + 1}]} for j, o in enumerate(objects)]
        residents = next(r for s, r, _ in SECTORS if s == sector)
        sectors.setdefault(sector, {"name": sector, "residents": residents, "arenas": []})["arenas"].append(
            {"name": arena, "tiles": tiles, "objects": things})
    return {"tile_size": 24, "walls": [],
            "world": {"name": NAME, "width": width, "height": height, "sectors": list(sectors.values())}}


if __name__ == "__main__":
    LAYOUT.write_text(json.dumps(build_layout(), indent=None) + "\n")
