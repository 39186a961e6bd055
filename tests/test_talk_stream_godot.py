"""TalkStream in the real Godot 4.6 engine (web build, headless Chromium): the guide's game, a
probe that talks to Ada as the player, stops her answer at its first words (`stop_talking`), then
hears the next one out, piece by piece (`line_progress`, then `spoke`), and says goodbye (the line
that ends the conversation says so: `ends_conversation`, `talk_ended`)."""

from __future__ import annotations

from pathlib import Path
import re

import pytest

from brain_server.prompts.converse_turn import END
from npc_lab import fake_openai
from tests.test_godot_web import _needs_browser
from tools import godot_web

PROBE = '''extends Node
## The test's player: once Ada has her first action and S is pressed, says hello, stops her
## answer after two words, then says sorry and hears the next answer out; B: says goodbye.

signal go
signal bye

var _pieces: Array[String] = []
var _stopped: bool = false
var _ended: Array[String] = []


func _ready() -> void:
	var ada: NpcBrainAgent = null
	while ada == null:
		await get_tree().create_timer(0.2).timeout
		for agent in NpcBrain.get_agents():
			if agent.npc_id == "ada_park":
				ada = agent
	await ada.decided
	ada.failed.connect(func(error: NpcBrainError) -> void:
		NpcBrainLog.record("probe_failed", {"code": error.code, "message": error.message}))
	NpcBrainLog.record("probe_ready")
	await go
	ada.line_progress.connect(_on_progress.bind(ada))
	var stopped := await ada.talk("Hello! What are you up to?")
	NpcBrainLog.record("probe_stopped", {"line": stopped != null, "pieces": _pieces.duplicate()})
	_pieces.clear()
	ada.talk_ended.connect(func(speaker: String) -> void: _ended.append(speaker))
	var line := await ada.talk("Sorry, go on.")
	NpcBrainLog.record("probe_spoke", {
		"text": line.text if line != null else "", "pieces": _pieces,
		"ends": line != null and line.ends_conversation, "ended": _ended.duplicate()})
	await bye
	var last := await ada.talk("Bye!")
	NpcBrainLog.record("probe_bye", {"ends": last != null and last.ends_conversation, "ended": _ended})


func _unhandled_key_input(event: InputEvent) -> void:
	var key := event as InputEventKey
	if key != null and key.pressed and key.keycode == KEY_S:
		go.emit()
	elif key != null and key.pressed and key.keycode == KEY_B:
		bye.emit()


func _on_progress(text: String, ada: NpcBrainAgent) -> void:
	_pieces.append(text)
	if text.split(" ", false).size() >= 2 and not _stopped:
		_stopped = true
		_pieces.append("(stopped)")
		ada.stop_talking()
'''


def probed_game(folder: Path, probe: str, project_settings: str = "") -> Path:
    """The guide's game with `probe` as the autoload TalkProbe (the test's player) and a minute's
    deadline for a call (on a loaded machine a line's retrieval alone can take seconds);
    `project_settings`: more of project.godot's sections."""
    project = godot_web.make_host_project(folder, settings={"brain/timeout_s": "60.0"})
    (project / "talk_probe.gd").write_text(probe, encoding="utf-8")
    settings = project / "project.godot"
    settings.write_text(settings.read_text().replace(
        'NpcBrainClock="*res://addons/npc_brain/runtime/npc_brain_clock.gd"\n',
        'NpcBrainClock="*res://addons/npc_brain/runtime/npc_brain_clock.gd"\nTalkProbe="*res://talk_probe.gd"\n')
        + project_settings)
    return project


def _answering(line: str, fake_llm: fake_openai.FakeOpenAI) -> dict:
    """The turn request that answers the player's `line`: the town's NPCs talk among themselves
    too, so the last turn request may be theirs."""
    bodies = [r["body"] for r in fake_llm.chat_requests("converse_turn")]
    return [b for b in bodies if f'"{line}"' in b["messages"][-1]["content"]][-1]


@pytest.mark.godot
@pytest.mark.slow
def test_a_players_line_arrives_in_pieces_and_a_stop_ends_it(brain_factory, fake_llm, tmp_path: Path) -> None:
    _needs_browser()
    project = probed_game(tmp_path / "game", PROBE)
    brain = brain_factory(web_root=godot_web.build_web(tmp_path / "web", project))
    with godot_web.HeadlessGame(f"{brain.http_url}/?time-scale=60&npc-brain-log=events") as game:
        assert game.wait_for(lambda e: e["event"] == "probe_ready", timeout_s=90), "\n".join(game.lines[-30:])
        fake_llm.tokens_per_s = 6  # a slow model from here on: a line takes seconds
        game.press("s")
        spoke = game.wait_for(lambda e: e["event"] == "probe_spoke", timeout_s=150)
        assert spoke, "\n".join(game.lines[-30:])
        sorry = _answering("Sorry, go on.", fake_llm)
        fake_llm.queue(*[{"content": "Goodbye then, take care!\n[end]"}] * 3, purpose="converse_turn")  # spares for NPCs
        game.press("b")
        bye = game.wait_for(lambda e: e["event"] == "probe_bye", timeout_s=150)
        assert bye, "\n".join(game.lines[-30:])
    stopped = next(e for e in game.events if e["event"] == "probe_stopped")
    assert not stopped["line"] and stopped["pieces"][-1] == "(stopped)", stopped
    said = stopped["pieces"][-2]
    assert fake_llm.streams_cut == 1, "the model went on after the stop"
    assert not [e for e in game.events if e["event"] == "probe_failed"], game.events[-5:]
    pieces = spoke["pieces"]
    assert len(pieces) >= 3 and all(b.startswith(a) and a != b for a, b in zip(pieces, pieces[1:], strict=False)), pieces
    assert pieces[-1] == spoke["text"] and "{" not in spoke["text"], spoke
    dialogue = sorry["messages"][-1]["content"]
    # She remembers her line as far as the brain had it when the stop came (the game saw a prefix of it).
    assert re.search(f': "{re.escape(said)}[^"]*—"', dialogue), dialogue
    assert not godot_web.engine_problems(game.lines), godot_web.engine_problems(game.lines)
    ended = fake_openai.answer(sorry, "converse_turn").endswith(END)  # the fake's own tag for that line
    assert spoke["ends"] is ended and spoke["ended"] == ["the player"] * ended, spoke
    assert bye["ends"] is True and bye["ended"] == ["the player"] * (ended + 1), bye
