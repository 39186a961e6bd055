"""A town whose inn's interior is another scene, in the real Godot 4.6 engine (web build, headless
Chromium): the addon's example (example/example_harbor*.tscn) run as the guide's "Interiors in
other scenes" section sets it up (the World and the NPCs in an autoload scene, a scene per part
of the map), against the stand-in brain of test_godot_web."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_godot_web import _needs_browser, _StandInBrain
from tools import godot_web

EXAMPLE = "res://addons/npc_brain/example"
HALL, SQUARE = "Harbor:Inn:hall", "Harbor:Street:square"

# A probe the test adds to the game (an autoload): it prints each scene the game changes to.
_PROBE = '''extends Node

var _scene: Node = null


func _process(_delta: float) -> void:
	var scene := get_tree().current_scene
	if scene != null and scene != _scene:
		_scene = scene
		print("NPCBRAIN " + JSON.stringify({"event": "scene", "scene": scene.name}))
'''


def _project(tmp_path: Path) -> Path:
    """A host game running the example: the Harbor scene autoloaded, the street the main scene."""
    project = godot_web.make_host_project(tmp_path / "game")
    (project / "probe.gd").write_text(_PROBE)
    settings = (project / "project.godot").read_text()
    for old, new in [('run/main_scene="res://town.tscn"', f'run/main_scene="{EXAMPLE}/example_harbor_street.tscn"'),
                     ('NpcBrainClock="*res://addons/npc_brain/runtime/npc_brain_clock.gd"\n',
                      'NpcBrainClock="*res://addons/npc_brain/runtime/npc_brain_clock.gd"\n'
                      f'Harbor="*{EXAMPLE}/example_harbor.tscn"\nProbe="*res://probe.gd"\n')]:
        assert settings.count(old) == 1, old
        settings = settings.replace(old, new)
    (project / "project.godot").write_text(settings)
    return godot_web.build_web(tmp_path / "web", project)


@pytest.mark.godot
@pytest.mark.slow
def test_an_npc_enters_an_interior_in_another_scene_lives_on_and_comes_back_out(tmp_path: Path) -> None:
    """Ann, on the street, is sent to the inn's hall: she walks to its door and steps through into
    the hall's part of the map, which the street scene does not draw, so she is hidden and out of
    view. The player follows her in (the game changes scene to the inn): she is in view there. The
    player goes back out (the inn's scene is unloaded): Ann lives on, still deciding, out of view.
    Sent back to the square, she comes out of the door and is in view on the street again. One
    agent throughout: spawned once, never freed."""
    _needs_browser()
    web_dir = _project(tmp_path)
    goal = {"address": HALL}

    def decide(method: str, request: dict) -> tuple[float, dict] | None:
        if method != "Decide":
            return None
        return 0.0, {"traceId": "t", "action": {
            "description": "going about the day", "address": goal["address"], "durationMinutes": 5,
            "startTime": request["gameTime"], "source": "ACTION_SOURCE_PLAN"}}

    def decides(since: int, attention: str) -> int:
        return sum(1 for m, r in brain.calls[since:] if m == "Decide" and r.get("attention") == attention)

    def arrived(address: str) -> bool:
        return any(e["event"] == "arrived" and e.get("address") == address for e in game.events)

    def scene(name: str) -> bool:
        return bool([e for e in game.events if e["event"] == "scene"][-1:] == [{"event": "scene", "scene": name}])

    with _StandInBrain(web_dir, decide) as brain, \
            godot_web.HeadlessGame(f"{brain.url}/?time-scale=300&npc-brain-log=events") as game:
        tail = lambda: "\n".join(game.lines[-30:])  # noqa: E731
        assert game.wait_until(lambda: arrived(HALL), timeout_s=120), tail()
        inside = len(brain.calls)
        assert game.wait_until(lambda: decides(inside, "ATTENTION_OUT_OF_VIEW") >= 1, timeout_s=60), tail()
        game.press("Enter")  # the player follows her in
        assert game.wait_until(lambda: scene("Inn"), timeout_s=30), tail()
        followed = len(brain.calls)
        assert game.wait_until(lambda: decides(followed, "ATTENTION_IN_VIEW") >= 1, timeout_s=60), tail()
        game.press("Enter")  # and goes back out, leaving her in the inn
        assert game.wait_until(lambda: scene("Street"), timeout_s=30), tail()
        left = len(brain.calls)
        assert game.wait_until(lambda: decides(left, "ATTENTION_OUT_OF_VIEW") >= 3, timeout_s=60), tail()
        seen = [r["attention"] for m, r in brain.calls[left:] if m == "Decide"]
        gone = seen.index("ATTENTION_OUT_OF_VIEW")  # off every screen for out_of_view_after_s (2 s)
        assert set(seen[gone:]) == {"ATTENTION_OUT_OF_VIEW"}, seen
        goal["address"] = SQUARE
        assert game.wait_until(lambda: arrived(SQUARE), timeout_s=60), tail()
        out = len(brain.calls)
        assert game.wait_until(lambda: decides(out, "ATTENTION_IN_VIEW") >= 1, timeout_s=60), tail()
    spawns = [r for m, r in brain.calls if m == "SpawnNpc"]
    assert [s["npcId"] for s in spawns] == ["ann"], spawns
    assert [m for m, _ in brain.calls].count("RegisterWorld") == 1
    world = next(r for m, r in brain.calls if m == "RegisterWorld")["world"]
    assert {s["name"] for s in world["sectors"]} == {"Street", "Inn"}, world
    entered = next(e for e in game.events if e["event"] == "arrived" and e.get("address") == HALL)
    came_out = next(e for e in game.events if e["event"] == "arrived" and e.get("address") == SQUARE)
    assert entered["at"] == HALL and came_out["at"] == SQUARE, (entered, came_out)
    assert [e["scene"] for e in game.events if e["event"] == "scene"] == ["Street", "Inn", "Street"], game.events
    assert not godot_web.engine_problems(game.lines), godot_web.engine_problems(game.lines)
