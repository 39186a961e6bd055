"""A verb agreed in conversation, in the real Godot 4.6 engine (web build, headless Chromium)
against a real brain and the prompt-reading stand-in model (no answer scripted): the player and
an NPC agree on a game verb the world declared; the brain's memo makes it a plan item, its steps
carry the verb; the agent asks the game for it, the guide's verbs.gd performs it (the object's
state changes) and the NPC remembers having done it."""

from __future__ import annotations

from pathlib import Path
import time

import pytest

from npc_lab.standin_openai import StandInOpenAI
from tests.test_godot_web import _HARBOR_NPCS, _game_time, _harbor_scene, _memories, _needs_browser
from tests.waits import wait_until
from tools import godot_web

TABLE = "Harbor:Bakery:shop:table"
PROPOSAL = "Let's share a meal at the bakery table at 12:30 today."

_MEAL_VERB = '''[ext_resource type="Script" path="res://verbs.gd" id="9_verbs"]
[ext_resource type="Script" path="res://addons/npc_brain/runtime/npc_brain_verb.gd" id="10_verb"]
[ext_resource type="Script" path="res://talk.gd" id="11_talk"]

[sub_resource type="Resource" id="Verb_meal"]
script = ExtResource("10_verb")
verb_name = "share_meal"
description = "Share a meal with someone at the bakery table."
place = 1
targets = PackedStringArray("table")
'''

# The game's side of the conversation: once Bob has decided, the player (standing by him) proposes
# the meal and says goodbye; every line heard, and the table's state as it changes, is printed (the
# agent's world is there in _ready).
_TALK = '''extends Node

const TABLE := "<table>"

@onready var _agent: NpcBrainAgent = $"../Bob/NpcBrainAgent"
@onready var _player: Node2D = $"../Player"


func _ready() -> void:
	_agent.world.layout_changed.connect(func() -> void:
		_say({"event": "table", "state": _agent.world.get_object_state(TABLE)}))
	await _agent.decided
	for text in ["<proposal>", "Great, see you then!"]:
		var line: NpcBrainLine = await _agent.talk(text, "the player", _player)
		_say({"event": "heard", "text": line.text, "ends": line.ends_conversation})


func _say(fields: Dictionary) -> void:
	print("NPCBRAIN " + JSON.stringify(fields))
'''.replace("<table>", TABLE).replace("<proposal>", PROPOSAL)


def _meal_scene() -> str:
    """The harbor with Bob alone, a table in the bakery's shop and the verb "share_meal" on it
    (declared on the World), the guide's verbs.gd on his body and the conversation's script."""
    scene = _harbor_scene([_HARBOR_NPCS[1]])
    for old, new in [
        ('id="8_player"]\n', 'id="8_player"]\n' + _MEAL_VERB),
        ('display_name = "Bob Bell"\n', 'display_name = "Bob Bell"\nidentity = "Bob Bell is a sailor who likes '
         'company."\nlifestyle = "Bob wakes up at 6 am, mends nets, and goes to bed at 10 pm."\n'),
        ('solid_layer = NodePath("../Walls")\n',
         'solid_layer = NodePath("../Walls")\nverbs = Array[ExtResource("10_verb")]([SubResource("Verb_meal")])\n'),
        ('tile = Vector2i(-10, -6)\n', 'tile = Vector2i(-10, -6)\n\n[node name="Table" type="Node" '
         'parent="World/Bakery/Shop"]\nscript = ExtResource("6_object")\nobject_name = "table"\ntile = Vector2i(-7, -6)\n'),
        ('npc_id = "bob_bell"\n', 'npc_id = "bob_bell"\nattention_mode = 2\n'),
        ('[node name="CollisionShape2D" type="CollisionShape2D" parent="Crate"]\n', ''),  # no crate in his way
    ]:
        assert scene.count(old) == 1, old
        scene = scene.replace(old, new)
    return scene + ('\n[node name="Verbs" type="Node" parent="Bob"]\nscript = ExtResource("9_verbs")\n'
                    '\n[node name="Talk" type="Node" parent="."]\nscript = ExtResource("11_talk")\n')


@pytest.mark.godot
@pytest.mark.slow
def test_a_verb_agreed_in_conversation_is_performed_and_remembered(brain_factory, tmp_path: Path) -> None:
    """At 11:50 the player proposes a meal at the bakery table at 12:30 and Bob (the stand-in
    model, reading its prompts) agrees; the conversation's memo gives him a plan item at 12:30,
    whose steps name the declared verb on the table. At 12:30 his agent, at the table, emits
    action_requested("share_meal"), the guide's verbs.gd lays the table (its state changes) and
    reports it done, and Bob remembers both the agreement and the meal (ListMemories, as the
    inspector reads them)."""
    _needs_browser()
    project = godot_web.make_host_project(tmp_path / "game")
    (project / "town.tscn").write_text(_meal_scene())
    (project / "talk.gd").write_text(_TALK)
    web_dir = godot_web.build_web(tmp_path / "web", project)
    with StandInOpenAI() as model:
        brain = brain_factory(web_root=web_dir, llm_base_url=model.base_url)
        started = time.monotonic()
        url = f"{brain.http_url}/?time-scale=60&start-time=2026-02-13T11:50:00Z&npc-brain-log=events"
        with godot_web.HeadlessGame(url) as game:
            done = game.wait_for(lambda e: e["event"] == "action_done", timeout_s=300)
            assert done, "\n".join(game.lines[-40:])
            remembered = wait_until(lambda: [m for m in _memories(brain.http_url, "bob_bell") if "did share_meal" in m],
                                    what="Bob remembered the meal", poll_s=1)
        print(f"agreed verb test: {time.monotonic() - started:.1f} s in the engine")
    heard = [e for e in game.events if e["event"] == "heard"]
    assert len(heard) == 2 and "12:30" in heard[0]["text"] and not heard[0]["ends"], heard
    assert heard[1]["ends"], heard
    [asked] = [e for e in game.events if e["event"] == "action_requested"]
    assert asked["npc"] == "bob_bell" and asked["verb"] == "share_meal" and asked["target"] == TABLE, asked
    when = _game_time(asked["game_time"])
    assert (when.hour, when.minute) >= (12, 30), asked
    arrived = [e for e in game.events if e["event"] == "arrived" and e.get("address") == TABLE]
    assert arrived and arrived[0]["tile"] == [-7, -6], arrived
    states = [e["state"] for e in game.events if e["event"] == "table"]
    assert "a meal for two laid out" in states, states
    assert states.index("in use") < states.index("a meal for two laid out"), states  # the step's, then the verb's
    assert done["detail"] == "shared a meal at the table" and done["verb"] == "share_meal", done
    assert remembered == [f"Bob Bell did share_meal at {TABLE}: shared a meal at the table"], remembered
    memories = _memories(brain.http_url, "bob_bell")
    assert any(m.startswith("Bob Bell heard from the player") and "12:30" in m for m in memories), memories
    problems = godot_web.engine_problems(game.lines)  # the harbor names a resident by name, as a user may
    assert len(problems) == 1 and 'resident "Bob Bell" is a name' in problems[0], problems
