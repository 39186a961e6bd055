#!/usr/bin/env python3
"""Generate `godot_project/town/the_ville.tscn` (the Town: the addon's NpcBrainWorld with its
sectors, arenas and objects) from `godot_project/data/town.json`.

The output is a plain scene of editable nodes (the npc_brain addon's NpcBrainWorld >
NpcBrainSector > NpcBrainArena > NpcBrainObject): after generating it once, developers edit it
in the Godot editor, and the scene is the town's source of truth from then on. This tool never
overwrites those edits: when the scene exists and is not exactly what it would generate from
town.json, it refuses (write elsewhere with --out to compare); `--force` replaces it but keeps
the old scene as `<scene>.orig`.

Layout: each sector is a block of rooms in one or two rows (doors on the outer walls, facing the
streets), blocks are packed on shelves separated by two-tile streets; outdoor sectors (parks,
gardens) are open areas. Objects line the walls of their arena.

    python tools/godot_town.py [--town godot_project/data/town.json] [--out .../the_ville.tscn]

town.json is read and validated by `npc_lab.residents` (its format: docs/residents.md). After
editing the scene, `python -m tools.godot_web export-town` refreshes the layout the headless sim walks.
"""

from __future__ import annotations

import argparse
import colorsys
from dataclasses import dataclass
import hashlib
import json
import math
from pathlib import Path
import re
import sys

from npc_lab.residents import TOWN_PATH, Town, TownArena, TownSector

ROOT = Path(__file__).resolve().parent.parent
PROJECT = ROOT / "godot_project"
TOWN_JSON = TOWN_PATH
OUT = PROJECT / "town" / "the_ville.tscn"

ASPECT = 960 / 600  # the screen above the HUD bar
STREET = 2  # tiles between blocks
ROOMS_PER_ROW = 3  # a sector with this many indoor arenas gets two rows of rooms
OUTDOOR_WORDS = ("park", "garden", "yard", "field", "lawn", "plaza", "square")


def read_town(path: Path) -> Town:
    return Town.model_validate(json.loads(path.read_text(encoding="utf-8")))


# --------------------------------------------------------------------------------------------
# Layout
# --------------------------------------------------------------------------------------------


@dataclass
class PlacedArena:
    spec: TownArena
    rect: tuple[int, int, int, int]  # x, y, w, h (floor)
    walled: bool
    doors: list[tuple[int, int]]
    objects: list[tuple[str, tuple[int, int]]]  # object name, tile


def _is_outdoor(sector: TownSector, arena: TownArena) -> bool:
    words = f"{sector.name} {arena.name}".lower()
    return any(word in arena.name.lower() for word in OUTDOOR_WORDS) or (
        "park" in words and len(sector.arenas) == 1)


def _arena_size(arena: TownArena) -> tuple[int, int]:
    per_row = max(1, math.ceil(len(arena.objects) / 2))
    return max(5, per_row * 2 + 1), 5


def _place_objects(arena: TownArena, x: int, y: int, w: int, h: int) -> list[tuple[str, tuple[int, int]]]:
    placed = []
    per_row = max(1, math.ceil(len(arena.objects) / 2))
    for i, item in enumerate(arena.objects):
        row, col = divmod(i, per_row)
        placed.append((item, (x + 1 + col * 2, y if row == 0 else y + h - 1)))
    return placed


def layout_sector(sector: TownSector, ox: int, oy: int) -> tuple[list[PlacedArena], int, int]:
    """Places a sector's arenas with the block's outer top-left wall at (ox, oy): (arenas, w, h)."""
    indoor = [a for a in sector.arenas if not _is_outdoor(sector, a)]
    outdoor = [a for a in sector.arenas if _is_outdoor(sector, a)]
    rows = [indoor] if indoor else []
    if len(indoor) >= ROOMS_PER_ROW:  # two rows of rooms, doors on both streets
        half = math.ceil(len(indoor) / 2)
        rows = [indoor[:half], indoor[half:]]
    placed: list[PlacedArena] = []
    width = 0
    y = oy + 1
    for r, row in enumerate(rows):
        height = max(_arena_size(a)[1] for a in row)
        x = ox + 1
        for arena in row:
            w = _arena_size(arena)[0]
            # One row: doors open on the street below; two rows: the top row's on the street above.
            door_y = y - 1 if r == 0 and len(rows) > 1 else y + height
            door = (x + w // 2, door_y)
            placed.append(PlacedArena(arena, (x, y, w, height), True, [door],
                                      _place_objects(arena, x, y, w, height)))
            x += w + 1
        width = max(width, x - ox)
        y += height + 1
    for arena in outdoor:
        w, h = _arena_size(arena)
        w, h = w + 2, h + 1
        x = ox + width if placed else ox
        placed.append(PlacedArena(arena, (x, oy, w, h), False, [], _place_objects(arena, x + 1, oy + 1, w - 2, h - 2)))
        width = x + w - ox
        y = max(y, oy + h)
    return placed, width, y - oy


def layout_town(sectors: list[TownSector]) -> tuple[list[tuple[TownSector, list[PlacedArena]]], int, int]:
    """The shelf width whose town is closest to the screen's aspect ratio (then the smallest)."""
    def badness(row_width: int) -> tuple[float, int]:
        _, w, h = layout_shelves(sectors, row_width)
        return abs(math.log((w / h) / ASPECT)), w * h
    return layout_shelves(sectors, min(range(40, 201, 4), key=badness))


def layout_shelves(sectors: list[TownSector], max_row_width: int
                   ) -> tuple[list[tuple[TownSector, list[PlacedArena]]], int, int]:
    out = []
    x, y, shelf_height, grid_w = STREET, STREET, 0, 0
    for sector in sectors:
        _, w, h = layout_sector(sector, 0, 0)
        if x > STREET and x + w > max_row_width:
            x, y, shelf_height = STREET, y + shelf_height + STREET, 0
        arenas, w, h = layout_sector(sector, x, y)
        out.append((sector, arenas))
        x += w + STREET
        shelf_height = max(shelf_height, h)
        grid_w = max(grid_w, x)
    return out, grid_w, y + shelf_height + STREET


# --------------------------------------------------------------------------------------------
# Scene text
# --------------------------------------------------------------------------------------------


def node_name(name: str) -> str:
    cleaned = re.sub(r"[^A-Za-z0-9 ]", "", name).title().replace(" ", "")
    return cleaned or "Node"


def resident_id(name: str) -> str:
    """The npc id of a resident named `name` (the id its persona file in data/residents has)."""
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


def _color(seed: str, saturation: float, value: float) -> str:
    hue = int(hashlib.sha256(seed.encode()).hexdigest()[:4], 16) / 65535.0
    r, g, b = colorsys.hsv_to_rgb(hue, saturation, value)
    return f"Color({r:.2f}, {g:.2f}, {b:.2f}, 1)"


def _q(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def scene_text(world: str, placed: list[tuple[TownSector, list[PlacedArena]]], grid: tuple[int, int]) -> str:
    lines = [
        "[gd_scene load_steps=5 format=3]",
        "",
        '[ext_resource type="Script" path="res://addons/npc_brain/world/npc_brain_world.gd" id="1_town"]',
        '[ext_resource type="Script" path="res://addons/npc_brain/world/npc_brain_sector.gd" id="2_sector"]',
        '[ext_resource type="Script" path="res://addons/npc_brain/world/npc_brain_arena.gd" id="3_arena"]',
        '[ext_resource type="Script" path="res://addons/npc_brain/world/npc_brain_object.gd" id="4_object"]',
        "",
        '[node name="Town" type="Node2D"]',
        'script = ExtResource("1_town")',
        f"world_name = {_q(world)}",
        f"grid_size = Vector2i({grid[0]}, {grid[1]})",
        "tile_size = 24",
        "style = 0",
        "",
    ]
    used: set[str] = set()

    def unique(base: str, parent: str) -> str:
        candidate, n = base, 2
        while f"{parent}/{candidate}" in used:
            candidate, n = f"{base}{n}", n + 1
        used.add(f"{parent}/{candidate}")
        return candidate

    for sector, arenas in placed:
        s_node = unique(node_name(sector.name), ".")
        lines += [f'[node name="{s_node}" type="Node" parent="."]', 'script = ExtResource("2_sector")',
                  f"sector_name = {_q(sector.name)}"]
        if sector.residents:
            ids = ", ".join(_q(resident_id(r)) for r in sector.residents)
            lines.append(f"residents = PackedStringArray({ids})")
        lines.append("")
        for arena in arenas:
            a_node = unique(node_name(arena.spec.name), s_node)
            x, y, w, h = arena.rect
            floor = _color(arena.spec.name, 0.18, 0.86) if arena.walled else "Color(0.5, 0.72, 0.4, 1)"
            lines += [f'[node name="{a_node}" type="Node" parent="{s_node}"]', 'script = ExtResource("3_arena")',
                      f"arena_name = {_q(arena.spec.name)}", f"rect = Rect2i({x}, {y}, {w}, {h})"]
            if arena.walled:
                lines.append("walled = true")
            if arena.doors:
                doors = ", ".join(f"Vector2i({dx}, {dy})" for dx, dy in arena.doors)
                lines.append(f"doors = Array[Vector2i]([{doors}])")
            lines += [f"floor_color = {floor}", ""]
            parent = f"{s_node}/{a_node}"
            for item, (ox, oy) in arena.objects:
                o_node = unique(node_name(item), parent)
                lines += [f'[node name="{o_node}" type="Node" parent="{parent}"]', 'script = ExtResource("4_object")',
                          f"object_name = {_q(item)}", f"tile = Vector2i({ox}, {oy})",
                          f"color = {_color(item, 0.45, 0.55)}", ""]
    return "\n".join(lines)


class EditedSceneError(RuntimeError):
    """The scene differs from what town.json generates: it holds edits made in the editor."""


def generate(town_json: Path = TOWN_JSON, out: Path = OUT, *, force: bool = False) -> dict[str, int | str]:
    """Write the scene for `town_json` to `out`. An existing `out` that differs from it (edited
    in the editor) raises EditedSceneError unless `force`, which first copies it to `<out>.orig`.
    `written` in the result: "new", "unchanged" (already what it generates) or "replaced"."""
    town = read_town(town_json)
    placed, width, height = layout_town(town.sectors)
    text = scene_text(town.name, placed, (width, height))
    written = "new"
    if out.exists():
        current = out.read_text(encoding="utf-8")
        if current == text:
            written = "unchanged"
        elif not force:
            raise EditedSceneError(
                f"{out} has edits made in the editor (it is not what {town_json.name} generates): nothing "
                "written. Generate elsewhere with --out to compare, or --force to replace it (the old "
                f"scene is kept as {out.name}.orig).")
        else:
            out.with_name(out.name + ".orig").write_text(current, encoding="utf-8")
            written = "replaced"
    if written != "unchanged":
        out.write_text(text, encoding="utf-8")
    return {"sectors": len(town.sectors), "arenas": sum(len(s.arenas) for s in town.sectors),
            "objects": sum(len(a.objects) for s in town.sectors for a in s.arenas), "width": width, "height": height,
            "written": written}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--town", type=Path, default=TOWN_JSON)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--force", action="store_true", help="replace an edited scene (kept as <scene>.orig)")
    args = parser.parse_args(argv)
    try:
        print(json.dumps(generate(args.town, args.out, force=args.force)), file=sys.stderr)
    except EditedSceneError as exc:
        print(f"godot_town: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
