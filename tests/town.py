"""A small test town and persona, as Godot would send them (proto3 JSON form)."""

from __future__ import annotations

from typing import Any

WORLD = "the Ville"


def tiles(x0: int, y0: int, x1: int, y1: int) -> list[dict[str, int]]:
    return [{"x": x, "y": y} for x in range(x0, x1) for y in range(y0, y1)]


def world_json() -> dict[str, Any]:
    return {"world": {"name": WORLD, "width": 20, "height": 12, "sectors": [
        {"name": "Hobbs Cafe", "arenas": [
            {"name": "cafe", "tiles": tiles(1, 1, 8, 6), "objects": [
                {"name": "cafe counter", "tiles": [{"x": 2, "y": 2}]},
                {"name": "coffee machine", "tiles": [{"x": 3, "y": 2}], "state": "idle"}]}]},
        {"name": "Isabella Rodriguez's apartment", "residents": ["Isabella Rodriguez"], "arenas": [
            {"name": "main room", "tiles": tiles(10, 1, 16, 6), "objects": [
                {"name": "bed", "tiles": [{"x": 11, "y": 2}]}, {"name": "desk", "tiles": [{"x": 14, "y": 2}]}]}]},
    ]}}


def spawn_json(npc_id: str = "isabella") -> dict[str, Any]:
    return {"worldName": WORLD, "npcId": npc_id, "address": f"{WORLD}:Isabella Rodriguez's apartment:main room",
            "persona": {"name": "Isabella Rodriguez", "age": 34, "traits": ["friendly", "outgoing"],
                        "identity": "Isabella runs Hobbs Cafe and loves bringing people together.",
                        "lifestyle": "goes to bed around 11pm, wakes up around 6am",
                        "home": f"{WORLD}:Isabella Rodriguez's apartment:main room",
                        "knownAreas": [f"{WORLD}:Hobbs Cafe:cafe"]}}
