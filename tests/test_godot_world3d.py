"""NpcBrainWorld3D in the real Godot 4.6 engine (web build, headless Chromium): a 3D town built
as the addon guide's "A 3D world" section says, against the stand-in brain of test_godot_web."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_godot_web import _host_npc, _host_persona, _needs_browser, _seen, _StandInBrain
from tools import godot_web

_SCRIPTS = [("runtime/npc_brain_agent", "1_agent"), ("runtime/npc_brain_persona", "2_persona"),
            ("world/npc_brain_world_3d", "3_world"), ("world/npc_brain_sector", "4_sector"),
            ("world/npc_brain_arena", "5_arena"), ("world/npc_brain_object", "6_object"),
            ("navigation/npc_brain_navigation_3d", "7_nav")]

# A cafe (x 0..10, z 0..6) with a loft right above it (floor 1, 3 m up), joined by a ramp east of
# them (x 10..16, z 0..3, rising to 3 m), a landing (x 16..18) and a walkway back (z 3..6, 3 m up).
# A shed 7.5 m up (floor 2 of a two-floor grid) and the cafe's sign at z 9 (the grid is 7 deep)
# are outside the grid.
_TOWER = "[gd_scene format=3]\n\n" + "\n".join(
    f'[ext_resource type="Script" path="res://addons/npc_brain/{path}.gd" id="{rid}"]' for path, rid in _SCRIPTS) + '''

[sub_resource type="NavigationMesh" id="NavigationMesh_tower"]
vertices = PackedVector3Array(0, 0, 0, 10, 0, 0, 10, 0, 3, 0, 0, 3, 10, 0, 6, 0, 0, 6, 16, 3, 0, 16, 3, 3, 18, 3, 0, 18, 3, 3, 18, 3, 6, 16, 3, 6, 10, 3, 3, 10, 3, 6, 0, 3, 0, 10, 3, 0, 0, 3, 3, 0, 3, 6)
polygons = [PackedInt32Array(0, 1, 2, 3), PackedInt32Array(3, 2, 4, 5), PackedInt32Array(1, 6, 7, 2), PackedInt32Array(6, 8, 9, 7), PackedInt32Array(7, 9, 10, 11), PackedInt32Array(12, 7, 11, 13), PackedInt32Array(14, 15, 12, 16), PackedInt32Array(16, 12, 13, 17)]

[sub_resource type="BoxShape3D" id="BoxShape3D_room"]
size = Vector3(10, 3, 6)

[sub_resource type="CapsuleShape3D" id="CapsuleShape3D_npc"]
radius = 0.3
height = 1.6

''' + "\n".join(_host_persona(*p) for p in [("ann_up", "Ann Up", "Cafe:hall"), ("ben_down", "Ben Down", "Flat:loft"),
                                             ("cara_stays", "Cara Stays", "Cafe:hall")]) + '''
[node name="Tower" type="Node3D"]

[node name="NavigationRegion3D" type="NavigationRegion3D" parent="."]
navigation_mesh = SubResource("NavigationMesh_tower")

[node name="CafeArea" type="Area3D" parent="."]
position = Vector3(5, 1.5, 3)

[node name="CollisionShape3D" type="CollisionShape3D" parent="CafeArea"]
shape = SubResource("BoxShape3D_room")

[node name="LoftArea" type="Area3D" parent="."]
position = Vector3(5, 4.5, 3)

[node name="CollisionShape3D" type="CollisionShape3D" parent="LoftArea"]
shape = SubResource("BoxShape3D_room")

[node name="ShedArea" type="Area3D" parent="."]
position = Vector3(5, 7.5, 3)

[node name="CollisionShape3D" type="CollisionShape3D" parent="ShedArea"]
shape = SubResource("BoxShape3D_room")

[node name="CounterMarker" type="Marker3D" parent="."]
position = Vector3(7.5, 0, 1.5)

[node name="BedMarker" type="Marker3D" parent="."]
position = Vector3(2.5, 3, 4.5)

[node name="SignMarker" type="Marker3D" parent="."]
position = Vector3(5.5, 0, 9.5)

[node name="World" type="Node3D" parent="."]
script = ExtResource("3_world")
world_name = "Tower"
grid_size = Vector2i(20, 7)
floor_height = 3.0
levels = 2

[node name="Cafe" type="Node" parent="World"]
script = ExtResource("4_sector")

[node name="Hall" type="Node" parent="World/Cafe" node_paths=PackedStringArray("bounds_3d")]
script = ExtResource("5_arena")
arena_name = "hall"
bounds_3d = NodePath("../../../CafeArea/CollisionShape3D")

[node name="Counter" type="Node" parent="World/Cafe/Hall" node_paths=PackedStringArray("marker_3d")]
script = ExtResource("6_object")
object_name = "counter"
marker_3d = NodePath("../../../../CounterMarker")

[node name="Sign" type="Node" parent="World/Cafe/Hall" node_paths=PackedStringArray("marker_3d")]
script = ExtResource("6_object")
object_name = "sign"
marker_3d = NodePath("../../../../SignMarker")

[node name="Flat" type="Node" parent="World"]
script = ExtResource("4_sector")

[node name="Loft" type="Node" parent="World/Flat" node_paths=PackedStringArray("bounds_3d")]
script = ExtResource("5_arena")
arena_name = "loft"
bounds_3d = NodePath("../../../LoftArea/CollisionShape3D")

[node name="Bed" type="Node" parent="World/Flat/Loft" node_paths=PackedStringArray("marker_3d")]
script = ExtResource("6_object")
object_name = "bed"
marker_3d = NodePath("../../../../BedMarker")

[node name="Shed" type="Node" parent="World"]
script = ExtResource("4_sector")

[node name="Shed" type="Node" parent="World/Shed" node_paths=PackedStringArray("bounds_3d")]
script = ExtResource("5_arena")
arena_name = "shed"
bounds_3d = NodePath("../../../ShedArea/CollisionShape3D")
'''

# The arrival timeout goes by the brain's grid, where the floors are not joined: the ramp is longer.
_SLOW = "arrival_grace_s = 60.0\n"


@pytest.mark.godot
@pytest.mark.slow
def test_a_3d_town_with_two_floors_sends_npcs_to_the_right_floor(tmp_path: Path) -> None:
    """Two rooms right above each other (Area3D boxes on floors 0 and 1) are different tiles to
    the brain, 8 rows apart with a wall row between; objects take their tile and floor from
    Marker3Ds. Ann walks the NavigationMesh from the cafe up the ramp to the loft's bed, Ben from
    the loft down to the cafe's counter, each arriving at the right height. Cara, in the cafe
    right under Ben, sees Ann across the room but not Ben through the ceiling. The shed above the
    grid's floors and the sign beyond its depth are warned about at start, by address."""
    _needs_browser()
    project = godot_web.make_host_project(tmp_path / "game")
    npcs = [_host_npc("Ann", "ann_up", "3D", "Vector3(2.5, 0, 2.5)", "CapsuleShape3D_npc", 0.3, _SLOW),
            _host_npc("Ben", "ben_down", "3D", "Vector3(7.5, 3, 4.5)", "CapsuleShape3D_npc", 0.3, _SLOW),
            _host_npc("Cara", "cara_stays", "3D", "Vector3(7.5, 0, 4.5)", "CapsuleShape3D_npc", 0.3)]
    (project / "town.tscn").write_text(_TOWER + "\n" + "\n".join(npcs))
    web_dir = godot_web.build_web(tmp_path / "web", project)
    goals = {"ann_up": "Tower:Flat:loft:bed", "ben_down": "Tower:Cafe:hall:counter"}

    def decide(method: str, request: dict) -> tuple[float, dict] | None:
        if method != "Decide" or request["npcId"] not in goals:
            return None
        return 0.0, {"traceId": request["npcId"], "action": {
            "description": "going about the day", "address": goals[request["npcId"]], "durationMinutes": 600,
            "startTime": request["gameTime"], "source": "ACTION_SOURCE_PLAN"}}

    with _StandInBrain(web_dir, decide) as brain, \
            godot_web.HeadlessGame(f"{brain.url}/?time-scale=60&npc-brain-log=events") as game:
        assert game.wait_until(lambda: set(goals) <= {e["npc"] for e in game.events if e["event"] == "arrived"},
                               timeout_s=90), "\n".join(game.lines[-30:])
    world = next(r for m, r in brain.calls if m == "RegisterWorld")["world"]
    assert (world["width"], world["height"]) == (20, 15), world
    arenas = {a["name"]: a for s in world["sectors"] for a in s["arenas"]}
    hall = {(t["x"], t["y"]) for t in arenas["hall"]["tiles"]}
    loft = {(t["x"], t["y"]) for t in arenas["loft"]["tiles"]}
    assert hall == {(x, y) for x in range(10) for y in range(6)}, sorted(hall)
    assert loft == {(x, y + 8) for x in range(10) for y in range(6)}, sorted(loft)
    objects = {o["name"]: o["tiles"] for a in arenas.values() for o in a["objects"]}
    assert objects["counter"] == [{"x": 7, "y": 1}] and objects["bed"] == [{"x": 2, "y": 12}], objects

    spawns = {r["npcId"]: r for m, r in brain.calls if m == "SpawnNpc"}
    assert spawns["ben_down"]["address"] == "Tower:Flat:loft", spawns["ben_down"]
    assert spawns["cara_stays"]["address"] == "Tower:Cafe:hall", spawns["cara_stays"]
    arrived = {e["npc"]: e for e in game.events if e["event"] == "arrived"}
    ann, ben = arrived["ann_up"], arrived["ben_down"]
    assert ann["tile"] == [2, 12] and ann["at"] == "Tower:Flat:loft", ann
    assert ben["tile"] == [7, 1] and ben["at"] == "Tower:Cafe:hall", ben
    assert abs(ann["position"][1] - 3.0) < 0.3 and abs(ben["position"][1]) < 0.3, (ann, ben)

    first = {}
    for method, request in brain.calls:
        if method == "Decide":
            first.setdefault(request["npcId"], request)
    assert "Ann Up" in _seen(first["cara_stays"]) and "Ben Down" not in _seen(first["cara_stays"]), first
    assert "Cara Stays" not in _seen(first["ben_down"]), first["ben_down"]

    problems = godot_web.engine_problems(game.lines)
    assert len(problems) == 2, problems
    assert any("Arena Tower:Shed:shed (its bounds CollisionShape3D)" in p and "on floor 2" in p for p in problems), problems
    assert any("Object Tower:Cafe:hall:sign (its marker SignMarker)" in p and "grid_size" in p for p in problems), problems
