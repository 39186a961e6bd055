"""The example's dialogue box and the NPCs' voices in the real Godot 4.6 engine (web build, headless
Chromium), in the guide's game against a real brain: keys typed into the box reach the NPC
(`talk()`), its answer grows in the box as the brain streams it, Ctrl+Z takes back a line while
its answer streams (`take_back()`: gone from the box and from the brain's next prompt), its
goodbye (`talk_ended`) closes the box; with `speak_aloud` on an NPC's lines are voiced (`DisplayServer.tts_speak`, `speaking`),
with it off (the default) never. The same game shows what a harbour game built from the guide met:
the baked Overlay let the map show through, and the labels over heads are words, not emoji. An
object's state drawn again is only the states over the baked layer (the layer drawn again for each
state cost the Ville's page a second of software rendering a state: 1.7 cores for an open page)."""

from __future__ import annotations

from pathlib import Path

import pytest

from brain_server.prompts.converse_turn import END, GO_ON
from npc_lab import fake_openai
from tests.test_godot_web import ARTIFACTS, _needs_browser
from tests.test_talk_stream_godot import probed_game
from tools import godot_web

HELLO = "Hello Ada what are you doing today"
ANSWER = "I am wiping the counter before the lunch crowd comes in, and you are welcome to stay."
OOPS = "Your counter is a disgrace"
OOPS_ANSWER = "Well, I never heard such a thing from a customer in all my years behind this counter."
BYE = "Goodbye Ada"
GOODBYE = "Goodbye then, take care!"
TO_BEN = "Hi Ben how is the fishing"
BEN_ANSWER = "The fish are biting well this week."

# The test's side: once Ada has decided, it opens the scene's dialogue box on her (as the guide's
# player does with T) and prints what the box shows as her answer grows, when a line is whole and
# when the box closes; then it talks to Ben (his voice off) and prints his line.
PROBE = '''extends Node

signal ben_turn


func _ready() -> void:
	var ada: NpcBrainAgent = null
	var ben: NpcBrainAgent = null
	while ada == null or ben == null:
		await get_tree().create_timer(0.2).timeout
		ada = NpcBrain.find_agent("ada_park")
		ben = NpcBrain.find_agent("ben_stone")
	await ada.decided
	_say_baked(NpcBrainWorld.find_in(get_tree()))
	var scene := get_tree().current_scene
	var box: CanvasLayer = scene.get_node("Dialogue")
	for agent in [ada, ben]:
		agent.speaking.connect(func(line: NpcBrainLine, voice: String) -> void:
			_say({"event": "speaking", "npc": line.speaker_id, "text": line.text, "voice": voice}))
		agent.spoke.connect(func(line: NpcBrainLine) -> void:
			_say({"event": "probe_spoke", "npc": line.speaker_id, "text": line.text}))
	box.open(ada, scene.get_node("Player"))
	ada.line_progress.connect(func(_text: String) -> void:
		_say({"event": "box_progress", "text": box.get_text()}))
	ada.spoke.connect(func(_line: NpcBrainLine) -> void:
		_say({"event": "box_line", "text": box.get_text(), "visible": box.visible}),
		CONNECT_DEFERRED)
	box.closed.connect(func() -> void: _say({"event": "box_closed", "visible": box.visible}))
	box.taken_back.connect(func(text: String) -> void:
		_say({"event": "box_taken_back", "line": text, "text": box.get_text(),
			"input": box.get_node("%Input").text}))
	_say({"event": "probe_ready", "visible": box.visible, "title": box.get_node("%Title").text,
		"focus": box.get_node("%Input").has_focus()})
	await ben_turn
	var line := await ben.talk("<to_ben>")
	_say({"event": "ben_answered", "text": line.text if line != null else ""})


func _unhandled_key_input(event: InputEvent) -> void:
	var key := event as InputEventKey
	if key != null and key.pressed and key.keycode == KEY_F2:
		ben_turn.emit()


# The World's baked Overlay over the map: the alpha of each tile outside the arenas.
func _say_baked(world: NpcBrainWorld) -> void:
	await RenderingServer.frame_post_draw
	var baked := world.get_node("BakedLayer") as SubViewport
	var image := baked.get_texture().get_image()
	var grid := world.grid.get_rect()
	var alphas: Array[float] = []
	for y in range(grid.position.y, grid.end.y):
		for x in range(grid.position.x, grid.end.x):
			if world.places.arena_at(Vector2i(x, y)) == null:
				var at := (Vector2(Vector2i(x, y) - grid.position) + Vector2(0.5, 0.5)) * world.tile_size
				alphas.append(image.get_pixelv(Vector2i(at)).a)
	_say({"event": "probe_baked", "tiles": alphas.size(), "min_alpha": alphas.min()})
	# An object's state changes (as NPCs use things): only the states over the baked layer are
	# drawn again; the layer is not, nor the walk grid and the places rebuilt.
	var item: NpcBrainObject = null
	for arena in world.get_arenas():
		if not arena.get_objects().is_empty():
			item = arena.get_objects()[0]
			break
	var address := world.places.object_address(item)
	world.grid.is_walkable(item.tile)  # both built, as an NPC's walk builds them
	world.places.find_object(address)
	var states := world.get_node("States") as CanvasItem
	var drawn: Array[int] = [0, 0]  # the states, the baked layer's painter
	states.draw.connect(func() -> void: drawn[0] += 1)
	(baked.get_child(0) as CanvasItem).draw.connect(func() -> void: drawn[1] += 1)
	world.set_object_state(address, "being polished")
	var stale := [world.grid.stale, world.places.stale]
	await RenderingServer.frame_post_draw
	_say({"event": "probe_state", "state": world.get_object_state(address), "grid_stale": stale[0],
		"places_stale": stale[1], "states_drawn": drawn[0], "baked_drawn": drawn[1]})


func _say(fields: Dictionary) -> void:
	print("NPCBRAIN " + JSON.stringify(fields))
'''.replace("<to_ben>", TO_BEN)


def _scripted(body: dict, purpose: str | None) -> object:
    """The fake model's answers: the NPCs' lines to the player as the test writes them, everything
    else as the fake makes it up."""
    said = str(body["messages"][-1].get("content", ""))
    answers = {HELLO: f"{ANSWER}\n{GO_ON}", OOPS: f"{OOPS_ANSWER}\n{GO_ON}", BYE: f"{GOODBYE}\n{END}", TO_BEN: f"{BEN_ANSWER}\n{GO_ON}"}
    latest = max(answers, key=lambda line: said.rfind(f'"{line}"'))  # the history quotes the earlier ones
    if purpose == "converse_turn" and f'"{latest}"' in said:
        return answers[latest]
    return fake_openai.answer(body, purpose)


def _story(game: godot_web.HeadlessGame) -> str:
    """The probe's, the box's and the talks' events, for a failure's message."""
    kinds = ("probe", "box", "talk", "speaking", "ben", "heard", "failed", "error")
    return "\n".join(str(e) for e in game.events if e["event"].startswith(kinds))[-6000:]


@pytest.mark.godot
@pytest.mark.slow
def test_the_dialogue_box_streams_the_answer_closes_on_goodbye_and_voices_only_speakers(
        brain_factory, fake_llm, monkeypatch, tmp_path: Path) -> None:
    _needs_browser()
    project = probed_game(tmp_path / "game", PROBE, "\n[audio]\n\ngeneral/text_to_speech=true\n")
    scene = project / "town.tscn"
    assert scene.read_text().count('npc_id = "ada_park"\n') == 1
    scene.write_text(scene.read_text().replace('npc_id = "ada_park"\n', 'npc_id = "ada_park"\nspeak_aloud = true\n'))
    monkeypatch.setattr(fake_llm, "answer", _scripted)
    brain = brain_factory(web_root=godot_web.build_web(tmp_path / "web", project))
    with godot_web.HeadlessGame(f"{brain.http_url}/?time-scale=60&npc-brain-log=events") as game:
        ready = game.wait_for(lambda e: e["event"] == "probe_ready", timeout_s=120)
        assert ready, _story(game)
        fake_llm.tokens_per_s = 8  # a line takes seconds to write: it reaches the box in pieces
        start = len(game.events)
        game.type(HELLO)
        game.press("Enter")
        heard = game.wait_for(lambda e: e["event"] == "box_line" and ANSWER in e["text"], timeout_s=150, since=start)
        assert heard, _story(game)
        game.screenshot(ARTIFACTS / "godot-dialogue-box.png")  # for a person to look at
        progress = [e["text"] for e in game.events[start:] if e["event"] == "box_progress"]
        oops = len(game.events)
        game.type(OOPS)
        game.press("Enter")
        answering = game.wait_for(lambda e: e["event"] == "box_progress" and "Ada Park: Well," in e["text"],
                                  timeout_s=150, since=oops)
        assert answering, _story(game)
        game.press("Control+z")
        taken = game.wait_for(lambda e: e["event"] == "box_taken_back", timeout_s=150, since=oops)
        assert taken, _story(game)
        game.press("Control+a")
        game.press("Backspace")
        game.type(BYE)
        game.press("Enter")
        closed = game.wait_for(lambda e: e["event"] == "box_closed", timeout_s=150, since=start)
        assert closed, _story(game)
        game.press("F2")
        ben = game.wait_for(lambda e: e["event"] == "ben_answered", timeout_s=150)
        assert ben, _story(game)
    assert ready["visible"] and ready["title"] == "Ada Park" and ready["focus"], ready
    said = f"You: {HELLO}\nAda Park: "
    assert len(progress) >= 3 and all(text.startswith(said) for text in progress), progress
    grown = [text.removeprefix(said) for text in progress if text != said + "..."]
    assert len(grown) >= 2 and all(b.startswith(a) and a != b for a, b in zip(grown, grown[1:], strict=False)), grown
    assert heard["text"] == said + ANSWER and heard["visible"], heard
    assert not closed["visible"], closed
    assert taken == {"event": "box_taken_back", "line": OOPS, "text": said + ANSWER, "input": OOPS}, taken
    bye_prompt = [r for r in fake_llm.chat_requests("converse_turn") if f'"{BYE}"' in str(r["body"]["messages"])]
    assert bye_prompt and OOPS not in str(bye_prompt[-1]["body"]["messages"]), bye_prompt
    assert ben["text"] == BEN_ANSWER, ben
    voiced = [e for e in game.events if e["event"] == "speaking"]
    spoken = [e for e in game.events if e["event"] == "probe_spoke"]
    assert {(e["npc"], e["text"]) for e in voiced} == {(e["npc"], e["text"]) for e in spoken if e["npc"] == "ada_park"}
    assert ("ada_park", ANSWER) in {(e["npc"], e["text"]) for e in voiced}, voiced
    assert ("ben_stone", BEN_ANSWER) in {(e["npc"], e["text"]) for e in spoken}, spoken
    assert not [e for e in voiced if e["npc"] != "ada_park"], voiced
    # The guide's Overlay (baked, as by default) lets the map show: transparent where it draws nothing.
    baked = next(e for e in game.events if e["event"] == "probe_baked")
    assert baked["tiles"] > 0 and baked["min_alpha"] == 0, baked
    state = next(e for e in game.events if e["event"] == "probe_state")
    assert state["state"] == "being polished" and state["states_drawn"] >= 1 and state["baked_drawn"] == 0, state
    assert not state["grid_stale"] and not state["places_stale"], state
    # The labels over the NPCs' heads are words the web runtime's font draws, not the brain's emoji.
    decisions = [e for e in game.events if e["event"] == "decision"]
    assert decisions and any(e["emoji"] for e in decisions), decisions
    for e in decisions:
        activity = e["description"].removeprefix({"ada_park": "Ada Park", "ben_stone": "Ben Stone",
                                                  "cleo_reyes": "Cleo Reyes"}[e["npc"]] + " is ")
        assert e["shown"] == activity + " (thinking...)" * e["thinking"], e
    assert not godot_web.engine_problems(game.lines), godot_web.engine_problems(game.lines)
