"""NPCs that come and go, in the real engine: a Godot 4.6 web build (headless Chromium) whose
script adds NpcBrainAgents at runtime and frees them, round after round, against a brain: each
round's agents freed a quarter each while their SpawnNpc is in flight, once spawned (their first
Decide sent), once decided (walking, timers armed) and mid-talk; then a round with the brain down
(each freed while it backs off) and one during a save load. After each round, once the calls
under way are answered, the script prints the engine's counts: nodes, objects, orphan nodes, the
brain client's lanes, children, agents and Decides waiting, the agents the world has filed, and
the engine's memory (`Performance.MEMORY_STATIC`). A game that frees its NPCs gets back to the
same counts every round; a lane, request, timer or notifier left behind grows them.

    .venv/bin/python -m tools.engine_churn --spawns 1000 --out runs/engine-churn.json

The same hundred npc ids come back each round (an NPC despawned and spawned again: the brain
resumes it). The brain here is `npc-brain serve` against the fake endpoint, in processes of their own.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
import sys
import tempfile
from typing import Any

from npc_lab.realtime import FakeProcess
from npc_lab.sim.brain import BrainProcess
from tools import godot_web

PER_ROUND = 100

_BODY = '''extends Node2D
## A body that stands where it was put (its NPC never walks far before it is freed).

@onready var _agent: NpcBrainAgent = $NpcBrainAgent


func _ready() -> void:
	_agent.move_requested.connect(func(_address: String, _target: Vector2) -> void:
		_agent.report_arrived.call_deferred())
'''

_CHURN = '''extends Node2D
## Spawns `?rounds=` rounds of PER_ROUND agents and frees them; prints the counts after each.
## Each round frees its agents at four moments, a quarter each (`i % 4`): 0, while its SpawnNpc
## is in flight; 1, once spawned, with its first Decide sent; 2, once decided (walking, its
## timers armed); 3, mid-talk (a TalkStream open, a frame after `talk()`). Then one round with
## the brain down (every agent freed while it backs off after a refused call) and one during a
## save load (half freed once `game_loading` starts, the rest once spawned again after it).

const PER_ROUND := {per_round}
const DOWN_URL := "http://127.0.0.1:9"  # nothing listens: every call is refused
const SETTLE_MS := 180000  # a DecideBatch on two busy cores takes seconds; one that never ends shows

var _world: NpcBrainWorld
var _body_script: GDScript = load("res://body.gd")


func _ready() -> void:
	_world = NpcBrainWorld.new()
	_world.world_name = "Churn"
	var sector := NpcBrainSector.new()
	sector.name = "Square"
	var arena := NpcBrainArena.new()
	arena.name = "plaza"
	arena.rect = Rect2i(0, 0, 20, 20)
	sector.add_child(arena)
	_world.add_child(sector)
	add_child(_world)
	await _world.registered
	var client := NpcBrainClient.get_instance()
	var saved := await client.save_game("before_churn", _world)
	if not saved.ok:
		push_error("churn: cannot save: " + saved.message)
	var rounds := int(NpcBrainLaunchArgs.get_value("rounds", "10"))
	_report(0, "start", await _settle())
	for round in rounds:
		await _churn()
		_report(round + 1, "churn", await _settle())
	await _down_round()
	_report(rounds + 1, "brain_down", await _settle())
	await _load_round()
	_report(rounds + 2, "load", await _settle())
	print("NPCBRAIN " + JSON.stringify({{"event": "churn_done", "rounds": rounds + 2}}))


func _spawn_bodies() -> Array:
	var bodies: Array = []  # untyped: it holds freed bodies too
	for i in PER_ROUND:
		var body: Node2D = _body_script.new()
		body.position = _world.grid.tile_to_global(Vector2i(i % 20, int(i / 20.0)))
		var agent := NpcBrainAgent.new()
		agent.name = "NpcBrainAgent"
		agent.npc_id = "churner_%03d" % i
		agent.start_spread_s = 0.0
		agent.retry_delay_s = 4.0
		agent.persona = NpcBrainPersona.new()
		agent.persona.display_name = "Churner %d" % i
		agent.persona.home = "Square:plaza"
		body.add_child(agent)
		bodies.append(body)
	return bodies


func _churn() -> void:
	var bodies := _spawn_bodies()
	for i in PER_ROUND:
		var body: Node2D = bodies[i]
		var agent: NpcBrainAgent = body.get_node("NpcBrainAgent")
		match i % 4:
			0:  # else freed once spawned, should its SpawnNpc be answered before it is seen in flight
				agent.spawned.connect(func(_resumed: bool) -> void: body.queue_free())
			1:
				agent.spawned.connect(func(_resumed: bool) -> void: body.queue_free())
			2:
				agent.decided.connect(func(_decision: NpcBrainDecision) -> void: body.queue_free())
			3:
				agent.spawned.connect(func(_resumed: bool) -> void: _talk_and_free(body, agent))
		add_child(body)
	var client := NpcBrainClient.get_instance()
	while _any_alive(bodies):
		for i in range(0, PER_ROUND, 4):  # freed while its SpawnNpc is in flight
			var body: Variant = bodies[i]
			if _alive(body) and client.is_busy("churner_%03d" % i):
				body.queue_free()
		await get_tree().process_frame


func _talk_and_free(body: Node2D, agent: NpcBrainAgent) -> void:
	agent.talk("Hello there")
	await get_tree().process_frame
	body.queue_free()


# The brain is down for this round's agents (their calls go where nothing listens): each is freed
# once its call was refused, backing off with a retry timer armed.
func _down_round() -> void:
	var client := NpcBrainClient.get_instance()
	var url := client.base_url
	client.base_url = DOWN_URL
	var bodies := _spawn_bodies()
	for body: Node2D in bodies:
		var agent: NpcBrainAgent = body.get_node("NpcBrainAgent")
		agent.failed.connect(func(_error: NpcBrainError) -> void: body.queue_free())
		add_child(body)
	while _any_alive(bodies):
		await get_tree().process_frame
	client.base_url = url


# A save load under way: half the agents freed as it starts (their calls under way, the agents
# waiting), the other half once they spawned again after it.
func _load_round() -> void:
	var bodies := _spawn_bodies()
	var spawns := [0]
	for body: Node2D in bodies:
		var agent: NpcBrainAgent = body.get_node("NpcBrainAgent")
		agent.spawned.connect(func(_resumed: bool) -> void: spawns[0] += 1)
		add_child(body)
	while spawns[0] < PER_ROUND:
		await get_tree().process_frame
	var client := NpcBrainClient.get_instance()
	client.game_loading.connect(func(_slot: String) -> void:
		for i in range(0, PER_ROUND, 2):
			bodies[i].queue_free(), CONNECT_ONE_SHOT)
	var loaded := await client.load_game("before_churn", _world)
	if not loaded.ok:
		push_error("churn: cannot load: " + loaded.message)
	while spawns[0] < int(PER_ROUND * 1.5):
		await get_tree().process_frame
	for body: Variant in bodies:
		if _alive(body):
			body.queue_free()
	while _any_alive(bodies):
		await get_tree().process_frame


func _alive(body: Variant) -> bool:
	return is_instance_valid(body) and not body.is_queued_for_deletion()


func _any_alive(bodies: Array) -> bool:
	return bodies.any(func(body: Variant) -> bool: return is_instance_valid(body))


# Until the calls under way are answered (the lanes of freed agents close after theirs, a batch
# lane frees after its DecideBatch, however slow a loaded brain is), and the timers armed meanwhile
# have expired; at most SETTLE_MS, so a call that never ends shows in the round's counts. The
# milliseconds it took the brain.
func _settle() -> int:
	var client := NpcBrainClient.get_instance()
	var began := Time.get_ticks_msec()
	while _unsettled(client) and Time.get_ticks_msec() - began < SETTLE_MS:
		await get_tree().process_frame
	var took := Time.get_ticks_msec() - began
	for i in 10:
		await get_tree().process_frame
	return took


func _unsettled(client: NpcBrainClient) -> bool:
	return (_lanes().any(func(lane: NpcBrainLane) -> bool: return lane.is_busy())
			or client.get_child_count() > _lanes().size()
			or client.decides_due() > 0 or client.batches_in_flight() > 0)


# The brain client's lanes: an HTTPRequest and a Timer each.
func _lanes() -> Array[Node]:
	return NpcBrainClient.get_instance().get_children().filter(
			func(child: Node) -> bool: return child is NpcBrainLane)


func _report(round: int, kind: String, settle_ms: int) -> void:
	var client := NpcBrainClient.get_instance()
	print("NPCBRAIN " + JSON.stringify({{
		"event": "churn", "round": round, "kind": kind,
		"nodes": Performance.get_monitor(Performance.OBJECT_NODE_COUNT),
		"objects": Performance.get_monitor(Performance.OBJECT_COUNT),
		"orphans": Performance.get_monitor(Performance.OBJECT_ORPHAN_NODE_COUNT),
		"memory": Performance.get_monitor(Performance.MEMORY_STATIC),
		"lanes": _lanes().size(), "client_children": client.get_child_count(),
		"agents": client.get_agent_count(),
		"agents_in_tree": get_tree().get_nodes_in_group(NpcBrainAgent.GROUP).size(),
		"decides_due": client.decides_due(),
		"batches_in_flight": client.batches_in_flight(),
		"filed_agents": _world.places._agent_tiles.size(),
		"brain": client.state_name(), "settle_ms": settle_ms,
	}}))
'''

_SCENE = '''[gd_scene format=3]

[ext_resource type="Script" path="res://churn.gd" id="1_churn"]

[node name="Churn" type="Node2D"]
script = ExtResource("1_churn")
'''


def build(out_dir: Path) -> Path:
    """The churning game's web folder (index.html, the runtime, game.pck) in `out_dir`/web."""
    project = godot_web.make_host_project(Path(out_dir) / "game")
    (project / "body.gd").write_text(_BODY, encoding="utf-8")
    (project / "churn.gd").write_text(_CHURN.format(per_round=PER_ROUND), encoding="utf-8")
    (project / "town.tscn").write_text(_SCENE, encoding="utf-8")
    return godot_web.build_web(Path(out_dir) / "web", project)


def measure(http_url: str, spawns: int, timeout_s: float = 600.0) -> dict[str, Any]:
    """Opens the churning game (built by `build`, served by the brain at `http_url`) for `spawns`
    agents added and freed (whole rounds of PER_ROUND, the last two of them the brain-down and
    the save-load rounds); its reports, round by round, and the engine's problem lines."""
    rounds = max(1, spawns // PER_ROUND - 2)
    with godot_web.HeadlessGame(f"{http_url}/?rounds={rounds}&npc-brain-log=errors&brain-timeout-s=60") as game:
        done = game.wait_for(lambda e: e["event"] == "churn_done", timeout_s=timeout_s)
        problems = godot_web.engine_problems(game.lines)
        tail = game.lines[-30:]
    reports = [{**e, "spawns": e["round"] * PER_ROUND} for e in game.events if e["event"] == "churn"]
    return {"spawns": (rounds + 2) * PER_ROUND, "done": done is not None, "rounds": reports,
            "problems": problems[:20], "tail": [] if done else tail}


def table(report: dict[str, Any]) -> str:
    rows = ["round  kind        spawns  nodes  objects  orphans  lanes  client children  agents  due  batches"
            "  filed  settled s"]
    for r in report["rounds"]:
        rows.append(f"{r['round']:>5}  {r['kind']:<10}  {r['spawns']:>6}  {r['nodes']:>5.0f}  {r['objects']:>7.0f}"
                    f"  {r['orphans']:>7.0f}  {r['lanes']:>5}  {r['client_children']:>15}  {r['agents']:>6}"
                    f"  {r['decides_due']:>3}  {r['batches_in_flight']:>7}  {r['filed_agents']:>5}"
                    f"  {r['settle_ms'] / 1000:>9.1f}")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="engine_churn", description=__doc__.split("\n\n")[0])
    parser.add_argument("--spawns", type=int, default=1000, help=f"agents spawned and freed (rounds of {PER_ROUND})")
    parser.add_argument("--out", type=Path, default=Path("runs") / "engine-churn.json")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder, FakeProcess(0.05, Path(folder) / "fake.log") as fake:
        web = build(Path(folder))
        settings = {"llm_base_url": fake.base_url, "llm_model": "fake-model", "data_dir": Path(folder) / "data",
                    "web_root": web, "log_level": "warning"}
        with BrainProcess(settings, Path(folder) / "brain.log") as brain:
            report = measure(brain.http_url, args.spawns)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1))
    print(table(report), f"written: {args.out}", sep="\n")
    return 0 if report["done"] and not report["problems"] else 1


if __name__ == "__main__":
    sys.exit(main())
