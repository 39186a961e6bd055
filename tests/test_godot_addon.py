"""The addon in the shapes of game issue 45 names, in the real Godot 4.6 engine (its web runtime in
headless Chromium) against a stand-in brain: worlds built in code that warn about what lies
outside their grid, and NPCs spawned and freed at runtime."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_godot_web import _needs_browser, _StandInBrain
from tools import godot_web

# A body that glides where its agent sends it, then reports it is there.
_GLIDER = '''extends Node2D

@onready var _agent: NpcBrainAgent = $NpcBrainAgent


func _ready() -> void:
	_agent.move_requested.connect(_on_move_requested)


func _on_move_requested(_address: String, target: Vector2) -> void:
	var tween := create_tween()
	tween.tween_property(self, "global_position", target, 0.3)
	tween.finished.connect(_agent.report_arrived)
'''

# Two worlds built in code, never opened in an editor. "Fixed" sets its grid (grid_origin 2, 0; 10
# by 6 tiles) and holds an arena, its object and an NPC outside it; "Grown" leaves grid_origin at
# (0, 0) and holds arenas at negative tiles and beyond its grid_size: its grid grows to hold them.
_CODE_BUILT = '''extends Node2D


func _ready() -> void:
	var fixed := _world("Fixed", Vector2i(2, 0), Vector2i(10, 6))
	_arena(fixed, "Home", "room", Rect2i(3, 1, 3, 3))
	var yard := _arena(fixed, "Out", "yard", Rect2i(-6, -2, 3, 3))
	var well := NpcBrainObject.new()
	well.name = "well"
	well.tile = Vector2i(-5, -1)
	yard.add_child(well)
	_npc(fixed, "stray", "Home:room", Vector2i(-10, 0))
	var grown := _world("Grown", Vector2i.ZERO, Vector2i(40, 25))
	_arena(grown, "Home", "room", Rect2i(-12, -8, 4, 4))
	_arena(grown, "Shop", "shop", Rect2i(45, 2, 3, 3))
	_npc(grown, "walker", "Home:room", Vector2i(-11, -7))
	print("NPCBRAIN " + JSON.stringify({"event": "validated", "world": "Fixed",
			"problems": Array(fixed.validate())}))
	print("NPCBRAIN " + JSON.stringify({"event": "validated", "world": "Grown",
			"problems": Array(grown.validate())}))


func _world(world_name: String, origin: Vector2i, size: Vector2i) -> NpcBrainWorld:
	var world := NpcBrainWorld.new()
	world.name = world_name
	world.world_name = world_name
	world.grid_origin = origin
	world.grid_size = size
	add_child(world)
	return world


func _arena(world: NpcBrainWorld, sector_name: String, arena_name: String,
		rect: Rect2i) -> NpcBrainArena:
	var sector := world.get_node_or_null(sector_name) as NpcBrainSector
	if sector == null:
		sector = NpcBrainSector.new()
		sector.name = sector_name
		world.add_child(sector)
	var arena := NpcBrainArena.new()
	arena.name = arena_name
	arena.rect = rect
	sector.add_child(arena)
	return arena


func _npc(world: NpcBrainWorld, npc_id: String, home: String, tile: Vector2i) -> void:
	var body: Node2D = load("res://glider.gd").new()
	body.position = world.tile_to_global(tile)
	var agent := NpcBrainAgent.new()
	agent.name = "NpcBrainAgent"
	agent.npc_id = npc_id
	agent.world = world
	agent.persona = NpcBrainPersona.new()
	agent.persona.display_name = npc_id.capitalize()
	agent.persona.home = home
	body.add_child(agent)
	add_child(body)
'''

_SCENE = '''[gd_scene format=3]

[ext_resource type="Script" path="res://{script}" id="1_main"]

[node name="Main" type="Node2D"]
script = ExtResource("1_main")
'''


def _project(tmp_path: Path, scripts: dict[str, str], main: str) -> Path:
    """A fresh host game (the addon enabled) whose main scene runs `main` of `scripts`; its web build."""
    project = godot_web.make_host_project(tmp_path / "game")
    for name, source in scripts.items():
        (project / name).write_text(source)
    (project / "town.tscn").write_text(_SCENE.format(script=main))
    return godot_web.build_web(tmp_path / "web", project)


@pytest.mark.godot
@pytest.mark.slow
def test_a_code_built_world_warns_at_start_about_what_lies_outside_its_grid(tmp_path: Path) -> None:
    """A world built in code whose grid is set: its arena, that arena's object and an NPC outside
    the grid are each a warning as the game starts and a problem from `validate()`, naming the
    setting that fixes it. A world without a grid_origin takes its grid from the arenas it holds
    (negative tiles, beyond grid_size): it tells the brain that grid and its NPC arrives."""
    _needs_browser()
    web_dir = _project(tmp_path, {"glider.gd": _GLIDER, "main.gd": _CODE_BUILT}, "main.gd")

    def decide(method: str, request: dict) -> tuple[float, dict] | None:
        if method != "Decide" or request["npcId"] != "walker":
            return None
        return 0.0, {"traceId": "shop", "action": {
            "description": "Walker is shopping", "address": "Grown:Shop:shop", "durationMinutes": 600,
            "startTime": request["gameTime"], "source": "ACTION_SOURCE_PLAN"}}

    with _StandInBrain(web_dir, decide) as brain, \
            godot_web.HeadlessGame(f"{brain.url}/?npc-brain-log=events") as game:
        arrived = game.wait_for(lambda e: e["event"] in ("arrived", "unreachable") and e["npc"] == "walker",
                                timeout_s=60)
        assert arrived, "\n".join(game.lines[-30:])
    assert arrived["event"] == "arrived" and arrived["at"] == "Grown:Shop:shop", arrived
    fix = ("set the World's grid_origin to (-6, -2) and grid_size to (18, 8) (or grid_origin to (0, 0), and the"
           " grid grows to hold the arenas; or map_layer to the TileMapLayer your map is painted on).")
    expected = [
        f"Arena Fixed:Out:yard [P: (-6, -2), S: (3, 3)] is outside the grid [P: (2, 0), S: (10, 6)]: {fix}",
        "Object Fixed:Out:yard:well [P: (-5, -1), S: (1, 1)] is outside the grid [P: (2, 0), S: (10, 6)]: set"
        " the World's grid_origin to (-5, -1)",
        "NPC stray, standing on [P: (-10, 0), S: (1, 1)] is outside the grid [P: (2, 0), S: (10, 6)]: set the"
        " World's grid_origin to (-10, 0)",
    ]
    warnings = godot_web.engine_problems(game.lines)
    assert len(warnings) == 3, warnings
    for warning, sentence in zip(warnings, expected, strict=True):
        assert f"NpcBrainWorld Fixed: {sentence}" in warning, (warning, sentence)
    validated = {e["world"]: e["problems"] for e in game.events if e["event"] == "validated"}
    assert validated["Grown"] == [], validated
    assert len(validated["Fixed"]) == 3, validated
    for problem, sentence in zip(validated["Fixed"], expected, strict=True):
        assert problem.startswith(sentence), (problem, sentence)
    worlds = {r["world"]["name"]: r["world"] for m, r in brain.calls if m == "RegisterWorld"}
    assert (worlds["Grown"]["width"], worlds["Grown"]["height"]) == (60, 33), worlds["Grown"]
    assert (worlds["Fixed"]["width"], worlds["Fixed"]["height"]) == (10, 6), worlds["Fixed"]

