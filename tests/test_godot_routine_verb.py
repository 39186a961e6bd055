"""A declared verb done on the embedded default, in the real Godot 4.6 engine (web build, headless
Chromium): a brain with no LLM settings (what `npc-brain serve` runs out of the box: the embedded
SmolLM2, whose day plans and steps are the routine's code) and a lighthouse town of its own. The
keeper's routine takes her to the lamp room in the evening; the verb on its lamp says it is lit at
8 pm; her agent asks the game for it at the lamp, the game's script lights it, and she remembers."""

from __future__ import annotations

from pathlib import Path
import time

import pytest

from tests.test_godot_web import (
    _TILE_TEXTURE,
    _game_time,
    _host_npc,
    _host_persona,
    _host_scene_header,
    _memories,
    _needs_browser,
    _tile_map_data,
    _walkable_tiles,
)
from tests.waits import wait_until
from tools import godot_web

LAMP = "Point:Lighthouse:lamp room:lamp"
LAMP_TILE = (-3, -3)

# Rows y = -4..2, columns x = -8..7; '.' floor, '#' wall. The lighthouse's lamp room x -7..-2 and
# the cottage x 0..6, both y -3..-2; the quay y 0..1 is no arena.
_MAP = [
    "################",
    "#......#.......#",
    "#......#.......#",
    "###.#######.####",
    "#..............#",
    "#..............#",
    "################",
]
_ORIGIN = (-8, -4)


def _cells(char: str) -> list[tuple[int, int]]:
    ox, oy = _ORIGIN
    return [(ox + i, oy + j) for j, row in enumerate(_MAP) for i, c in enumerate(row) if c == char]


def _at(cell: tuple[int, int]) -> str:
    """The centre of a 16 px cell of layers at the origin."""
    return f"Vector2({cell[0] * 16 + 8}, {cell[1] * 16 + 8})"


_VERB = '''[ext_resource type="Script" path="res://keeper.gd" id="9_keeper"]
[ext_resource type="Script" path="res://addons/npc_brain/runtime/npc_brain_verb.gd" id="10_verb"]
[ext_resource type="Script" path="res://addons/npc_brain/runtime/npc_brain_verb_argument.gd" id="11_argument"]

[sub_resource type="Resource" id="Argument_flame"]
script = ExtResource("11_argument")
argument_name = "flame"
description = "how high the wick burns"
choices = PackedStringArray("full", "half")

[sub_resource type="Resource" id="Verb_light"]
script = ExtResource("10_verb")
verb_name = "light_lamp"
description = "Light the lighthouse lamp at 8 pm, as dusk falls, so the boats find the harbor."
place = 1
targets = PackedStringArray("lamp")
arguments = Array[ExtResource("11_argument")]([SubResource("Argument_flame")])
'''

# The game's side: it lights the lamp (the object's state) and says so; every state the lamp takes
# is printed as an event.
_KEEPER = '''extends Node

const LAMP := "<lamp>"

@onready var _agent: NpcBrainAgent = $"../NpcBrainAgent"


func _ready() -> void:
	_agent.action_requested.connect(_on_action_requested)
	_agent.world.layout_changed.connect(_on_layout_changed)


func _on_layout_changed() -> void:
	var state: String = _agent.world.get_object_state(LAMP)
	print("NPCBRAIN " + JSON.stringify({"event": "lamp", "state": state}))


func _on_action_requested(verb: String, args: Dictionary) -> void:
	if verb != "light_lamp":
		_agent.report_action_failed("nobody here knows how to %s" % verb)
		return
	_agent.world.set_object_state(_agent.requested_verb_target, "lit, its beam sweeping the sea")
	_agent.report_action_done("the lamp is lit, its flame %s" % args["flame"])
'''.replace("<lamp>", LAMP)


def _lighthouse_scene() -> str:
    """The point: a lighthouse (its lamp room, the lamp), a cottage, the quay between; Lena the
    keeper on the quay, her persona saying when she is at the lighthouse; the verb on the lamp,
    declared on the World; keeper.gd on her body answering for the game."""
    persona = _host_persona("lena_lind", "Lena Lind", "Cottage:room").replace(
        'home = ', 'identity = "Lena Lind keeps the lighthouse on the point."\nlifestyle = "Lena wakes up at 7 am, '
        'is at the lighthouse from 2 pm to 10 pm, and goes to bed at 11 pm."\nhome = ')
    return "\n".join([_host_scene_header("2d") + _VERB, _TILE_TEXTURE, _walkable_tiles("TileSet_point"), persona, f'''[node name="Point" type="Node2D"]

[node name="Ground" type="TileMapLayer" parent="."]
tile_map_data = {_tile_map_data(_cells("."), (0, 0))}
tile_set = SubResource("TileSet_point")

[node name="Walls" type="TileMapLayer" parent="."]
tile_map_data = {_tile_map_data(_cells("#"), (1, 0))}
tile_set = SubResource("TileSet_point")

[node name="World" type="Node2D" parent="." node_paths=PackedStringArray("map_layer", "solid_layer")]
script = ExtResource("3_world")
world_name = "Point"
map_layer = NodePath("../Ground")
solid_layer = NodePath("../Walls")
verbs = Array[ExtResource("10_verb")]([SubResource("Verb_light")])

[node name="Lighthouse" type="Node" parent="World"]
script = ExtResource("4_sector")

[node name="LampRoom" type="Node" parent="World/Lighthouse"]
script = ExtResource("5_arena")
arena_name = "lamp room"
rect = Rect2i(-7, -3, 6, 2)

[node name="Lamp" type="Node" parent="World/Lighthouse/LampRoom"]
script = ExtResource("6_object")
object_name = "lamp"
tile = Vector2i{LAMP_TILE}
state = "dark"

[node name="Cottage" type="Node" parent="World"]
script = ExtResource("4_sector")

[node name="Room" type="Node" parent="World/Cottage"]
script = ExtResource("5_arena")
arena_name = "room"
rect = Rect2i(0, -3, 7, 2)

[node name="Bed" type="Node" parent="World/Cottage/Room"]
script = ExtResource("6_object")
object_name = "bed"
tile = Vector2i(5, -3)

[node name="Player" type="CharacterBody2D" parent="."]
position = {_at((6, 1))}
script = ExtResource("8_player")
''', _host_npc("Lena", "lena_lind", "2D", f"{_at((0, 0))}\ncollision_layer = 2", "CircleShape2D_npc", 4.0,
               "walk_speed = 2.0\narrival_grace_s = 1.0\nattention_mode = 2\n"),
        '[node name="Keeper" type="Node" parent="Lena"]\nscript = ExtResource("9_keeper")\n'])


@pytest.mark.godot
@pytest.mark.slow
def test_on_the_embedded_default_the_keeper_lights_the_declared_lamp_and_remembers_it(brain_factory,
                                                                                        tmp_path: Path) -> None:
    """No LLM settings: the embedded SmolLM2's brain plans Lena's day and its steps by routine code
    (from her persona: at the lighthouse from 2 pm to 10 pm, dinner there at 6). At 19:40 her
    19:00-22:00 block in the lamp room holds the lamp's verb's 8 pm, so at 20:00 her agent, at the
    lamp, emits action_requested("light_lamp") with the first choice of its argument; keeper.gd
    lights the lamp (its state changes) and reports it, and the next Decide makes it her memory."""
    _needs_browser()
    project = godot_web.make_host_project(tmp_path / "game")
    (project / "town.tscn").write_text(_lighthouse_scene())
    (project / "keeper.gd").write_text(_KEEPER)
    web_dir = godot_web.build_web(tmp_path / "web", project)
    brain = brain_factory(web_root=web_dir, llm_base_url=None, llm_model=None, background_thinking=None)
    started = time.monotonic()
    url = f"{brain.http_url}/?time-scale=60&start-time=2026-02-13T19:40:00Z&npc-brain-log=events"
    with godot_web.HeadlessGame(url) as game:
        done = game.wait_for(lambda e: e["event"] == "action_done", timeout_s=240)
        assert done, "\n".join(game.lines[-40:])
        remembered = wait_until(lambda: [m for m in _memories(brain.http_url, "lena_lind") if "did light_lamp" in m],
                                what="Lena remembered lighting the lamp", poll_s=1)
    print(f"routine verb test: {time.monotonic() - started:.1f} s in the engine")
    [asked] = [e for e in game.events if e["event"] == "action_requested"]
    assert asked["npc"] == "lena_lind" and asked["verb"] == "light_lamp" and asked["target"] == LAMP, asked
    when = _game_time(asked["game_time"])
    assert when.hour == 20, asked
    assert asked["args"] == {"flame": "full"}, asked  # the routine's choice: the first
    arrived = [e for e in game.events if e["event"] == "arrived" and e.get("address") == LAMP]
    assert arrived and arrived[0]["tile"] == list(LAMP_TILE), arrived
    states = [e["state"] for e in game.events if e["event"] == "lamp"]
    assert "lit, its beam sweeping the sea" in states, states
    assert done["verb"] == "light_lamp" and done["detail"] == "the lamp is lit, its flame full", done
    assert remembered == [f"Lena Lind did light_lamp at {LAMP}: the lamp is lit, its flame full"], remembered
    assert any("starting the embedded SmolLM2" in line for line in brain.output), brain.output[:20]
    assert not godot_web.engine_problems(game.lines), godot_web.engine_problems(game.lines)
