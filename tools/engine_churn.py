"""NPCs that come and go, in the real engine: a Godot 4.6 web build (headless Chromium) whose
script adds NpcBrainAgents at runtime and frees them, round after round, against a brain. Half of
each round's agents are freed as soon as the brain has them (`spawned`), the other half while
their SpawnNpc is still in flight. After each round, once the calls under way are answered, the
script prints the engine's counts: nodes, objects, orphan nodes, the brain client's lanes and
children, its agents, and the engine's memory (`Performance.MEMORY_STATIC`). A game that frees its
NPCs gets back to the same counts every round; a lane, request or notifier left behind grows them.

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

const PER_ROUND := {per_round}

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
	var rounds := int(NpcBrainLaunchArgs.get_value("rounds", "10"))
	await _settle()
	_report(0)
	for round in rounds:
		await _churn()
		await _settle()
		_report(round + 1)
	print("NPCBRAIN " + JSON.stringify({{"event": "churn_done", "rounds": rounds}}))


func _churn() -> void:
	var bodies: Array = []  # untyped: it holds freed bodies too
	for i in PER_ROUND:
		var body: Node2D = _body_script.new()
		body.position = _world.tile_to_global(Vector2i(i % 20, int(i / 20.0)))
		var agent := NpcBrainAgent.new()
		agent.name = "NpcBrainAgent"
		agent.npc_id = "churner_%03d" % i
		agent.start_spread_s = 0.0
		agent.persona = NpcBrainPersona.new()
		agent.persona.display_name = "Churner %d" % i
		agent.persona.home = "Square:plaza"
		body.add_child(agent)
		if i % 2 == 0:
			agent.spawned.connect(func(_resumed: bool) -> void: body.queue_free())
		add_child(body)
		bodies.append(body)
	var client := NpcBrainClient.get_instance()
	while bodies.any(func(body: Variant) -> bool: return is_instance_valid(body)):
		for i in range(1, PER_ROUND, 2):  # the odd half: freed while its SpawnNpc is in flight
			var body: Variant = bodies[i]
			if is_instance_valid(body) and not body.is_queued_for_deletion() \\
					and client.is_busy("churner_%03d" % i):
				body.queue_free()
		await get_tree().process_frame


# Until the calls under way are answered (the lanes of freed agents close after theirs).
func _settle() -> void:
	var frames := 0
	while _lanes().any(func(lane: NpcBrainLane) -> bool: return lane.is_busy()) and frames < 600:
		frames += 1
		await get_tree().process_frame
	for i in 10:
		await get_tree().process_frame


# The brain client's lanes: an HTTPRequest and a Timer each.
func _lanes() -> Array[Node]:
	return NpcBrainClient.get_instance().get_children().filter(
			func(child: Node) -> bool: return child is NpcBrainLane)


func _report(round: int) -> void:
	var client := NpcBrainClient.get_instance()
	print("NPCBRAIN " + JSON.stringify({{
		"event": "churn", "round": round, "spawns": round * PER_ROUND,
		"nodes": Performance.get_monitor(Performance.OBJECT_NODE_COUNT),
		"objects": Performance.get_monitor(Performance.OBJECT_COUNT),
		"orphans": Performance.get_monitor(Performance.OBJECT_ORPHAN_NODE_COUNT),
		"memory": Performance.get_monitor(Performance.MEMORY_STATIC),
		"lanes": _lanes().size(), "client_children": client.get_child_count(),
		"agents": client.get_agent_count(),
		"agents_in_tree": get_tree().get_nodes_in_group(NpcBrainAgent.GROUP).size(),
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
    spawns and frees (whole rounds of PER_ROUND); its reports, round by round, and the engine's
    problem lines."""
    rounds = max(1, spawns // PER_ROUND)
    with godot_web.HeadlessGame(f"{http_url}/?rounds={rounds}&npc-brain-log=errors") as game:
        done = game.wait_for(lambda e: e["event"] == "churn_done", timeout_s=timeout_s)
        problems = godot_web.engine_problems(game.lines)
        tail = game.lines[-30:]
    reports = [e for e in game.events if e["event"] == "churn"]
    return {"spawns": rounds * PER_ROUND, "done": done is not None, "rounds": reports, "problems": problems[:20],
            "tail": [] if done else tail}


def table(report: dict[str, Any]) -> str:
    rows = ["round  spawns  nodes  objects  orphans  lanes  client children  agents  memory (MiB)"]
    for r in report["rounds"]:
        rows.append(f"{r['round']:>5}  {r['spawns']:>6}  {r['nodes']:>5.0f}  {r['objects']:>7.0f}  {r['orphans']:>7.0f}"
                    f"  {r['lanes']:>5}  {r['client_children']:>15}  {r['agents']:>6}  {r['memory'] / 2**20:>12.2f}")
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
