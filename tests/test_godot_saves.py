"""Edited personas and save games in the real Godot 4.6 engine (issue 28): the addon's agent keeps
an NPC whose persona was edited since the brain stored it, and `NpcBrain.save_game`/`load_game`
take the brain and the game clock back to a save. A real brain (the fake LLM) serves the game."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
import re

import pytest

from tests.test_godot_web import ARTIFACTS, _needs_browser, _scene_2d
from tools import godot_web

# The host game's NPC body: glides where its agent sends it. Given `?save-slot=NAME`, once the NPC
# has decided it saves under NAME, lets the clock run six real seconds, loads NAME and lists the
# saves, as a save menu would. It also says whether the guide's save menu compiles. Six, not two:
# after the load, Nora's SpawnNpc and Decide (a real brain's answers, seconds on a loaded machine)
# must land before the clock is back where the load found it.
_BODY = '''extends Node2D

@onready var _agent: NpcBrainAgent = $NpcBrainAgent


func _ready() -> void:
	var menu: GDScript = load("res://save_menu.gd")
	print("NPCBRAIN " + JSON.stringify({"event": "save_menu", "compiles": menu.can_instantiate()}))
	_agent.move_requested.connect(_on_move_requested)
	if NpcBrainLaunchArgs.get_value("save-slot") != "":
		_agent.decided.connect(_save_then_load, CONNECT_ONE_SHOT)


func _on_move_requested(_address: String, target: Vector2) -> void:
	var tween := create_tween()
	tween.tween_property(self, "global_position", target, 0.5)
	tween.finished.connect(_agent.report_arrived)


func _save_then_load(_decision: NpcBrainDecision) -> void:
	var slot := NpcBrainLaunchArgs.get_value("save-slot")
	var saved: NpcBrainReply = await NpcBrain.save_game(slot)
	if not saved.ok:
		return
	await get_tree().create_timer(6.0).timeout
	var loaded: NpcBrainReply = await NpcBrain.load_game(slot)
	var saves: NpcBrainReply = await NpcBrain.list_saves()
	print("NPCBRAIN " + JSON.stringify({"event": "host_saves", "loaded": loaded.ok,
			"saves": saves.data.get("saves", [])}))
'''

SAVE_MENU_RE = re.compile(r"```gdscript\n(extends VBoxContainer\n## A save menu.*?)```", re.S)


def _game(project: Path, trait: str) -> None:
    """The host game with one NPC, Nora, whose persona has the one trait `trait`."""
    scene = _scene_2d([("Nora", "nora", "Nora Near", "Home:room", 80, 80, "", "")])
    persona = 'display_name = "Nora Near"\n'
    assert scene.count(persona) == 1
    (project / "town.tscn").write_text(scene.replace(persona, f'{persona}traits = PackedStringArray("{trait}")\n'))


def _time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)


@pytest.mark.godot
@pytest.mark.slow
def test_an_edited_npc_keeps_acting_and_a_save_loads_with_the_clock(brain_factory, tmp_path: Path) -> None:
    """The game spawns Nora (kind) and she acts; the designer makes her grumpy and plays again:
    the brain updates her (traits changed), no error, she acts. That game saves to slot1, lets
    an hour of game time pass and loads slot1: the clock is back at the save's time, Nora spawns
    again (resumed) and decides from there (after her own share of the start spread: up to ten
    game minutes at 600x), and slot1 is listed."""
    _needs_browser()
    project = godot_web.make_host_project(tmp_path / "game")
    (project / "bot.gd").write_text(_BODY)
    menus = SAVE_MENU_RE.findall(godot_web.ADDON_GUIDE.read_text(encoding="utf-8"))
    assert len(menus) == 1, "the guide shows one save menu"
    (project / "save_menu.gd").write_text(menus[0])
    _game(project, "kind")
    web_dir = godot_web.build_web(tmp_path / "web", project)
    brain = brain_factory(web_root=web_dir)
    url = f"{brain.http_url}/?time-scale=600&npc-brain-log=events"

    with godot_web.HeadlessGame(url) as first:
        assert first.wait_for(lambda e: e["event"] == "decision", timeout_s=40), "\n".join(first.lines[-30:])
    spawned = next(e for e in first.events if e["event"] == "npc_spawned")
    assert not spawned["resumed"] and not spawned["updated"], spawned

    _game(project, "grumpy")
    godot_web.build_web(web_dir, project)
    with godot_web.HeadlessGame(f"{url}&save-slot=slot1") as game:
        done = game.wait_until(lambda: any(e["event"] == "host_saves" for e in game.events) and any(
            e["event"] == "decision" for e in game.events[_index(game.events, "game_loaded"):]), timeout_s=40)
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "godot-saves-console.log").write_text("\n".join(first.lines + game.lines) + "\n")
    assert done, "\n".join(game.lines[-40:])
    events = game.events
    assert not [e for e in first.events + events if e["event"] == "brain_error"], events
    respawned = [e for e in events if e["event"] == "npc_spawned"]
    assert respawned[0]["updated"] and respawned[0]["resumed"] and respawned[0]["changed"] == ["traits"], respawned

    saved = next(e for e in events if e["event"] == "game_saved")["save"]
    loaded_at = _index(events, "game_loaded")
    loaded = events[loaded_at]
    assert loaded["slot"] == saved["slot"] == "slot1" and loaded["save"]["gameTime"] == saved["gameTime"]
    assert loaded["game_time"] == saved["gameTime"], "the clock is back at the save's time"
    assert _time(loaded["clock_was"]) >= _time(saved["gameTime"]) + timedelta(minutes=15), loaded
    after = [e for e in events[loaded_at:] if e["event"] in ("npc_spawned", "decision")]
    assert after[0]["event"] == "npc_spawned" and after[0]["resumed"] and not after[0]["updated"], after
    decided_after = next(e for e in after if e["event"] == "decision")
    assert _time(saved["gameTime"]) <= _time(decided_after["game_time"]) < _time(loaded["clock_was"]), decided_after
    listed = next(e for e in events if e["event"] == "host_saves")
    assert listed["loaded"] and [s["slot"] for s in listed["saves"]] == ["slot1"], listed
    assert listed["saves"][0]["npcCount"] == 1, listed
    assert [e["compiles"] for e in events if e["event"] == "save_menu"] == [True], "the guide's save menu"
    problems = godot_web.engine_problems(first.lines + game.lines)
    assert not problems, "\n".join(problems[:20])


def _index(events: list[dict], name: str) -> int:
    """The index of the first event called `name`, or len(events)."""
    return next((i for i, e in enumerate(events) if e["event"] == name), len(events))


# The host game's NPC body for the minds in the game's own file: once the NPC has decided, it is
# whispered a codeword, the game saves with `file_path` (`?save-file=`), then forgets the brain's
# side (the slot deleted, the NPC reset), loads from the file and lists the NPC's memories; last it
# tries a damaged file, which the brain refuses.
_FILE_BODY = '''extends Node2D

@onready var _agent: NpcBrainAgent = $NpcBrainAgent


func _ready() -> void:
	_agent.decided.connect(_minds_through_a_file, CONNECT_ONE_SHOT)


func _memories() -> Array:
	var reply: NpcBrainReply = await NpcBrain.call_rpc("ListMemories",
			{"npcId": "nora", "limit": 1000})
	return reply.data.get("memories", []).map(
			func(m: Dictionary) -> String: return m["description"])


func _minds_through_a_file(_decision: NpcBrainDecision) -> void:
	var path := NpcBrainLaunchArgs.get_value("save-file")
	await NpcBrain.call_rpc("Whisper", {"npcId": "nora", "text": "The key is under the blue stone.",
			"gameTime": NpcBrainGameClock.get_instance().now_rfc3339()})
	var saved: NpcBrainReply = await NpcBrain.save_game("filed", null, path)
	var save: Dictionary = saved.data.get("save", {})
	var file_bytes := FileAccess.get_file_as_bytes(path).size()
	var ints := [typeof(save.get("npcCount")), typeof(save.get("memoryCount")),
			typeof(save.get("sizeBytes"))]
	var deleted: NpcBrainReply = await NpcBrain.delete_save("filed")
	await NpcBrain.call_rpc("ResetNpc", {"npcId": "nora"})
	var reset := await _memories()
	var loaded: NpcBrainReply = await NpcBrain.load_game("filed", null, path)
	var back := await _memories()
	var listed: NpcBrainReply = await NpcBrain.list_saves()
	var bad := FileAccess.open("user://minds/bad.npcsave", FileAccess.WRITE)
	bad.store_string("not a save")
	bad.close()
	var refused: NpcBrainReply = await NpcBrain.load_game("other", null, "user://minds/bad.npcsave")
	var after_refused := await _memories()
	var saves: Array = listed.data.get("saves", [])
	print("NPCBRAIN " + JSON.stringify({"event": "minds_in_a_file", "saved": saved.ok, "save": save,
			"file_bytes": file_bytes, "int_types": ints == [TYPE_INT, TYPE_INT, TYPE_INT],
			"deleted": deleted.data.get("deleted", false), "reset": reset, "loaded": loaded.ok,
			"back": back, "listed": saves.map(func(s: Dictionary) -> String: return s["slot"]),
			"list_ints": saves.all(func(s: Dictionary) -> bool: return typeof(s["sizeBytes"]) == TYPE_INT),
			"refused": refused.code, "after_refused": after_refused}))
'''


@pytest.mark.godot
@pytest.mark.slow
def test_save_game_writes_the_minds_into_the_games_own_file(brain_factory, tmp_path: Path) -> None:
    """`save_game(slot, null, "user://minds/save_1.npcsave")` writes the NPC minds into the game's
    file (ExportWorld); with the brain's slot deleted and Nora reset, `load_game` with that path
    brings her memories back (ImportWorld, then LoadWorld), the codeword whispered before the save
    included. The save's counts reach the game as ints, and a damaged file is refused
    (failed_precondition) with the world as it was."""
    _needs_browser()
    project = godot_web.make_host_project(tmp_path / "game")
    (project / "bot.gd").write_text(_FILE_BODY)
    _game(project, "kind")
    brain = brain_factory(web_root=godot_web.build_web(tmp_path / "web", project))
    url = f"{brain.http_url}/?time-scale=600&npc-brain-log=events&save-file=user://minds/save_1.npcsave"
    with godot_web.HeadlessGame(url) as game:
        done = game.wait_for(lambda e: e["event"] == "minds_in_a_file", timeout_s=60)
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "godot-save-file-console.log").write_text("\n".join(game.lines) + "\n")
    assert done, "\n".join(game.lines[-40:])
    save = done["save"]
    assert done["saved"] and done["file_bytes"] == save["sizeBytes"] > 0 and save["npcCount"] == 1, done
    assert done["int_types"] and done["list_ints"], "npcCount, memoryCount and sizeBytes reach the game as ints"
    assert done["deleted"] and not any("blue stone" in m for m in done["reset"]), done
    assert done["loaded"] and any("blue stone" in m for m in done["back"]), done
    assert len(done["back"]) >= save["memoryCount"] > 0, "every saved memory is back (and what came since)"
    assert done["listed"] == ["filed"], "the file came back as the slot it was loaded from"
    assert done["refused"] == "failed_precondition" and set(done["back"]) <= set(done["after_refused"]), done
    errors = [e for e in game.events if e["event"] == "brain_error"]
    assert [e["method"] for e in errors] == ["ImportWorld"], errors
    assert not [p for p in godot_web.engine_problems(game.lines) if "ImportWorld" not in p], game.lines
