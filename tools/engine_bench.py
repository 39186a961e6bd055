"""A crowd in the real engine: N agents of the addon in a Godot 4.6 web build (headless Chromium)
against a real brain, as a game with a large town runs them. Reports whether every agent spawned
and acted, the HTTP requests a second the brain got (by method, with its time for each, from its
/metrics), the Decides a second the game applied, the errors the game saw, and the game's frame
time (between frames, and the engine's `Performance.TIME_PROCESS`: its longest process step of
each second), in two phases: the start (the world registered until every agent has decided) and a
steady window after it. Frame times are wall-clock: on a machine busy with other work they show
the share of the cores the page got; the page's CPU seconds (a second, and per Decide applied)
show what the game itself cost. Prints a table and writes JSON.

    .venv/bin/python -m tools.engine_bench --agents 1000 --seconds 20 --out runs/engine-bench.json

The game is generated (`build`): a 240 x 120 tile map of 18 wards (a houses arena and a yard
each, the screen showing the first ward and a half); its script instances `?agents=N` bodies with
an NpcBrainAgent each, spread over the wards, every agent with `crowd_distance` set, so those on
screen decide in view, those near it out of view and the rest (most) as a crowd, as the addon
tells them apart by itself. A tenth more live in the ward on screen, so there an agent sees (12
tiles) more than the 64 perceptions a Decide may carry. The addon's debug overlay (bar and
inspector) is on. Bodies glide where they are sent. Once a real second the script prints
`NPCBRAIN {"event": "bench_frames", ...}`: the frames' times since the last and the agents'
progress. The brain here is `npc-brain serve` against the fake endpoint (`npc_lab/fake_openai.py`)
in processes of their own, thinking in the background as a game's brain does.
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Callable
import json
import os
from pathlib import Path
import re
import sys
import tempfile
import time
from typing import Any
from urllib.request import urlopen

from brain_server.runtime.vitals import percentile
from npc_lab.realtime import FakeProcess
from npc_lab.sim.brain import BrainProcess
from tools import godot_web

MAX_AGENTS = 5000
TILE = 16
WARDS = (6, 3)  # columns, rows
WARD_TILES = 40
CROWD_DISTANCE_PX = 1000

_BODY = '''class_name CrowdBody
extends Node2D
## A crowd member: glides where its agent sends it (8 tiles a second), then reports arriving.
## The crowd's progress is counted as it happens (no one polls a thousand bodies).

static var spawned: int = 0
static var decided: int = 0
static var walked: int = 0
static var decisions: int = 0

var _moves: int = 0

@onready var _agent: NpcBrainAgent = $NpcBrainAgent


func _ready() -> void:
	_agent.move_requested.connect(_on_move_requested)
	_agent.spawned.connect(func(_resumed: bool) -> void: spawned += 1, CONNECT_ONE_SHOT)
	_agent.decided.connect(func(_decision: NpcBrainDecision) -> void: decided += 1, CONNECT_ONE_SHOT)
	_agent.decided.connect(func(_decision: NpcBrainDecision) -> void: decisions += 1)


func _draw() -> void:
	draw_rect(Rect2(-4, -4, 8, 8), Color(0.9, 0.8, 0.3))


func _on_move_requested(_address: String, target: Vector2) -> void:
	_moves += 1
	walked += int(_moves == 1)
	var tween := create_tween()
	tween.tween_property(self, "global_position", target, global_position.distance_to(target) / 128.0)
	tween.finished.connect(_agent.report_arrived)
'''

_BODY_SCENE = '''[gd_scene load_steps=3 format=3]

[ext_resource type="Script" path="res://body.gd" id="1_body"]
[ext_resource type="Script" path="res://addons/npc_brain/runtime/npc_brain_agent.gd" id="2_agent"]

[node name="Body" type="Node2D"]
script = ExtResource("1_body")

[node name="NpcBrainAgent" type="Node" parent="."]
script = ExtResource("2_agent")
walk_speed = 4.0
vision_radius = 12.0
crowd_distance = {crowd}
'''

_TOWN = '''extends Node2D
## Instances `?agents=N` bodies over the wards, then reports the frames and the agents' progress
## once a real second.

const BODY := preload("res://body.tscn")
const JOBS: Array[String] = ["farmer", "weaver", "baker", "smith", "carter", "brewer"]

var _frame_ms: PackedFloat32Array = []
var _last_usec: int = 0
var _decisions_seen: int = 0
var _reports: int = 0

@onready var _world: NpcBrainWorld = $World


func _ready() -> void:
	var count := NpcBrainLaunchArgs.get_value("agents", "10").to_int()
	var rng := RandomNumberGenerator.new()
	rng.seed = 32
	for i in count:
		var ward := 0 if i < count / 10 else i % {wards}  # the ward on screen is the busiest
		var column := ward % {columns}
		var row := ward / {columns}
		var job := JOBS[i % JOBS.size()]
		var persona := NpcBrainPersona.new()
		persona.display_name = "Crowd %d" % i
		persona.identity = "Crowd %d is a %s of ward %d." % [i, job, ward]
		persona.lifestyle = "wakes at 6 am, works until 6 pm, goes to bed at 10 pm"
		persona.home = "Ward%d:houses" % ward
		var body: Node2D = BODY.instantiate()
		var agent: NpcBrainAgent = body.get_node("NpcBrainAgent")
		agent.npc_id = "crowd_%04d" % i
		agent.persona = persona
		var tile := Vector2i(column * {ward_tiles} + rng.randi_range(4, 19),
				row * {ward_tiles} + rng.randi_range(4, 15))
		body.position = _world.grid.tile_to_global(tile)
		add_child(body)
	var report := Timer.new()
	report.wait_time = 1.0
	report.timeout.connect(_report)
	add_child(report)
	report.start()


func _process(_delta: float) -> void:
	var now := Time.get_ticks_usec()
	if _last_usec > 0:
		_frame_ms.append((now - _last_usec) / 1000.0)
	_last_usec = now


func _report() -> void:
	var report := {
		"event": "bench_frames", "msec": Time.get_ticks_msec(), "agents": NpcBrain.get_agent_count(),
		"spawned": CrowdBody.spawned, "decided": CrowdBody.decided, "walked": CrowdBody.walked,
		"decisions": CrowdBody.decisions - _decisions_seen, "registered": _world.is_registered(),
		"frame_ms": _rounded(_frame_ms),
		# the engine's longest process step (scripts, timers, signals, HTTP) of the last second
		"process_max_ms": snappedf(Performance.get_monitor(Performance.TIME_PROCESS) * 1000.0, 0.01),
	}
	_reports += 1
	if _reports % 10 == 0:  # polls every agent: a frame's work in a large town, so rarely
		var attention := {"in_view": 0, "out_of_view": 0, "crowd": 0}
		for agent in NpcBrain.get_agents():
			attention["in_view" if agent.in_view else ("crowd" if agent.crowd else "out_of_view")] += 1
		report["attention"] = attention
	print("NPCBRAIN " + JSON.stringify(report))
	_decisions_seen = CrowdBody.decisions
	_frame_ms.clear()


func _rounded(values: PackedFloat32Array) -> Array[float]:
	var out: Array[float] = []
	for value in values:
		out.append(snappedf(value, 0.01))
	return out
'''


def _scene() -> str:
    columns, rows = WARDS
    parts = ['[gd_scene load_steps=6 format=3]\n',
             '[ext_resource type="PackedScene" path="res://addons/npc_brain/debug/npc_brain_debug.tscn" id="5_debug"]',
             '[ext_resource type="Script" path="res://town.gd" id="1_town"]',
             '[ext_resource type="Script" path="res://addons/npc_brain/world/npc_brain_world.gd" id="2_world"]',
             '[ext_resource type="Script" path="res://addons/npc_brain/world/npc_brain_sector.gd" id="3_sector"]',
             '[ext_resource type="Script" path="res://addons/npc_brain/world/npc_brain_arena.gd" id="4_arena"]\n',
             '[node name="Town" type="Node2D"]\nscript = ExtResource("1_town")\n',
             f'[node name="World" type="Node2D" parent="."]\nscript = ExtResource("2_world")\nworld_name = "Crowd"\n'
             f'tile_size = {TILE}\ngrid_size = Vector2i({columns * WARD_TILES}, {rows * WARD_TILES})\nstyle = 2\n',
             '[node name="NpcBrainDebug" parent="." instance=ExtResource("5_debug")]\n']
    for ward in range(columns * rows):
        x, y = ward % columns * WARD_TILES, ward // columns * WARD_TILES
        parts.append(f'[node name="Ward{ward}" type="Node" parent="World"]\nscript = ExtResource("3_sector")\n'
                     f'sector_name = "Ward{ward}"\n')
        for name, rect in (("houses", (x + 4, y + 4, 16, 12)), ("yard", (x + 22, y + 22, 14, 14))):
            parts.append(f'[node name="{name}" type="Node" parent="World/Ward{ward}"]\nscript = ExtResource("4_arena")\n'
                         f'arena_name = "{name}"\nrect = Rect2i({", ".join(map(str, rect))})\nwalled = false\n')
    return "\n".join(parts)


def build(out_dir: Path) -> Path:
    """The crowd game's web folder (index.html, the runtime, game.pck) in `out_dir`/web."""
    columns, rows = WARDS
    project = godot_web.make_host_project(Path(out_dir) / "game")
    (project / "body.gd").write_text(_BODY, encoding="utf-8")
    (project / "body.tscn").write_text(_BODY_SCENE.format(crowd=float(CROWD_DISTANCE_PX)), encoding="utf-8")
    (project / "town.gd").write_text(_TOWN.replace("{wards}", str(columns * rows)).replace(
        "{columns}", str(columns)).replace("{ward_tiles}", str(WARD_TILES)), encoding="utf-8")
    (project / "town.tscn").write_text(_scene(), encoding="utf-8")
    return godot_web.build_web(Path(out_dir) / "web", project)


def rpc_counts(http_url: str) -> Counter[str]:
    """Connect requests the brain has answered, by method, and the seconds it took over them
    ("<method> s"), from its /metrics."""
    with urlopen(f"{http_url}/metrics", timeout=30) as answer:
        text = answer.read().decode()
    counts: Counter[str] = Counter()
    for match in re.finditer(r'^npc_brain_(rpcs_total|rpc_duration_seconds_sum)\{([^}]*)\} (\S+)$', text, re.M):
        labels = dict(re.findall(r'(\w+)="([^"]*)"', match.group(2)))
        if labels.get("transport") == "connect":
            seconds = match.group(1) != "rpcs_total"
            counts[labels["method"] + (" s" if seconds else "")] += float(match.group(3))
    return counts


def chromium_cpu() -> Counter[str]:
    """CPU seconds used so far by this process's Chromium, by process type: `renderer` (the page:
    the engine's main loop and scripts), `gpu-process` (drawing, in software here) and the rest.
    Unlike wall-clock frame times, not inflated by other work on the machine."""
    procs: dict[int, tuple[int, float]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        procs[int(stat.parent.name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"))
    ours, grew = {os.getpid()}, True
    while grew:
        grown = ours | {pid for pid, (parent, _) in procs.items() if parent in ours}
        grew, ours = grown != ours, grown
    cpu: Counter[str] = Counter()
    for pid in ours - {os.getpid()}:
        try:  # Chromium's children rewrite theirs as one line: "chromium --type=renderer ..."
            command = (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if "chrom" in command.split(" ", 1)[0]:
            kind = match.group(1) if (match := re.search(r"--type=(\S+)", command)) else "browser"
            cpu[kind if kind in ("renderer", "gpu-process") else "other"] += procs[pid][1]
    return cpu


def _phase(reports: list[dict], rpcs: Counter[str], cpu: Counter[str], seconds: float) -> dict[str, Any]:
    frames = [v for r in reports for v in r["frame_ms"]]
    process = [r["process_max_ms"] for r in reports]
    decisions = sum(r["decisions"] for r in reports)
    requests = {m: int(n) for m, n in rpcs.items() if not m.endswith(" s") and n}
    return {
        "seconds": round(seconds, 1),
        "requests": requests, "requests_per_s": round(sum(requests.values()) / seconds, 1),
        "brain_ms_per_request": {m: round(1000 * rpcs[m + " s"] / n, 1) for m, n in requests.items()},
        "decides": decisions, "decides_per_s": round(decisions / seconds, 1),
        "frames": len(frames), "fps": round(len(frames) / seconds, 1),
        "frame_ms": {"p50": percentile(frames, 0.5), "p99": percentile(frames, 0.99), "max": max(frames, default=0.0)},
        "process_max_ms": {"p50": percentile(process, 0.5), "max": max(process, default=0.0)},
        "cpu_per_s": {kind: round(cpu[kind] / seconds, 2) for kind in ("renderer", "gpu-process", "other")},
        "page_cpu_ms_per_decide": round(1000 * cpu["renderer"] / decisions, 1) if decisions else None,
    }


def measure(http_url: str, agents: int, seconds: float = 20.0, start_timeout_s: float = 240.0,
            call_timeout_s: float | None = None) -> dict[str, Any]:
    """Opens the crowd game (built by `build`, served by the brain at `http_url`) with `agents`
    agents at 60x; the start lasts until every agent has decided (at most `start_timeout_s`),
    then `seconds` more are measured. The report also holds the engine's problem lines.
    `call_timeout_s`: the game's per-call timeout (`?brain-timeout-s`), else the addon's 15 s."""
    if not 1 <= agents <= MAX_AGENTS:
        raise ValueError(f"agents must be 1-{MAX_AGENTS}, not {agents}")
    timeout = f"&brain-timeout-s={call_timeout_s:g}" if call_timeout_s else ""
    with godot_web.HeadlessGame(f"{http_url}/?time-scale=60&agents={agents}{timeout}") as game:
        def first(predicate: Callable[[dict], bool], timeout_s: float) -> int | None:
            """The index in game.events of the first report for which `predicate` holds."""
            found = game.wait_for(lambda e: e["event"] == "bench_frames" and predicate(e), timeout_s=timeout_s)
            return None if found is None else next(i for i, e in enumerate(game.events) if e is found)

        registered = first(lambda e: e["registered"], 120)
        if registered is None:
            raise RuntimeError("the world was not registered in 120 s:\n" + "\n".join(game.lines[-30:]))
        start_at, start_rpcs, start_cpu = time.monotonic(), rpc_counts(http_url), chromium_cpu()
        everyone = first(lambda e: e["decided"] >= agents, start_timeout_s)
        steady_at, steady_rpcs, steady_cpu, steady = (time.monotonic(), rpc_counts(http_url), chromium_cpu(),
                                                      len(game.events))
        if everyone is not None:
            game.pump(seconds)
        end_at, end_rpcs, end_cpu = time.monotonic(), rpc_counts(http_url), chromium_cpu()
        events = list(game.events)
        problems = godot_web.engine_problems(game.lines)

    def reports(begin: int, end: int) -> list[dict]:
        return [e for e in events[begin:end] if e["event"] == "bench_frames"]

    last = reports(0, len(events))[-1]
    return {
        "agents": agents, "all_decided": everyone is not None,
        "spawned": last["spawned"], "decided": last["decided"], "walked": last["walked"],
        "attention": next((r["attention"] for r in reversed(reports(0, len(events))) if "attention" in r), {}),
        "start": _phase(reports(registered + 1, steady), steady_rpcs - start_rpcs, steady_cpu - start_cpu,
                        steady_at - start_at),
        "steady": _phase(reports(steady, len(events)), end_rpcs - steady_rpcs, end_cpu - steady_cpu,
                         end_at - steady_at)
        if everyone is not None else None,
        "brain_errors": dict(Counter(e["code"] for e in events if e["event"] == "brain_error")),
        "problems": problems[:20],
    }


def table(report: dict[str, Any]) -> str:
    rows = ["| phase | s | requests/s (by method: brain ms each) | Decides/s | fps | frame p50 / p99 / max ms | "
            "longest process step a second, p50 / max ms | page CPU s/s (drawing) | page CPU ms per Decide |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for name in ("start", "steady"):
        p = report[name]
        if p is None:
            continue
        methods = ", ".join(f"{m} {n}: {p['brain_ms_per_request'][m]}" for m, n in sorted(p["requests"].items()))
        rows.append(f"| {name} | {p['seconds']} | {p['requests_per_s']} ({methods}) | {p['decides_per_s']} | "
                    f"{p['fps']} | {p['frame_ms']['p50']} / {p['frame_ms']['p99']} / {p['frame_ms']['max']} | "
                    f"{p['process_max_ms']['p50']} / {p['process_max_ms']['max']} | "
                    f"{p['cpu_per_s']['renderer']} ({p['cpu_per_s']['gpu-process']}) | {p['page_cpu_ms_per_decide']} |")
    return (f"{report['agents']} agents: {report['spawned']} spawned, {report['decided']} decided, "
            f"{report['walked']} walked; attention {report['attention']}; errors the game saw "
            f"{report['brain_errors'] or 'none'}\n" + "\n".join(rows))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="engine_bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--agents", type=int, default=1000, help=f"agents in the game (1-{MAX_AGENTS})")
    parser.add_argument("--seconds", type=float, default=20.0, help="the steady window, wall seconds")
    parser.add_argument("--llm-latency", type=float, default=2.0, help="the fake endpoint's seconds per completion")
    parser.add_argument("--out", type=Path, default=Path("runs") / "engine-bench.json")
    args = parser.parse_args(argv)
    if not 1 <= args.agents <= MAX_AGENTS:
        parser.error(f"--agents must be 1-{MAX_AGENTS}")
    with tempfile.TemporaryDirectory() as folder, FakeProcess(args.llm_latency, Path(folder) / "fake.log") as fake:
        web = build(Path(folder))
        settings = {"llm_base_url": fake.base_url, "llm_model": "fake-model", "data_dir": Path(folder) / "data",
                    "web_root": web, "log_level": "warning"}
        with BrainProcess(settings, Path(folder) / "brain.log") as brain:
            report = measure(brain.http_url, args.agents, args.seconds)
    report["load_average"] = os.getloadavg()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1))
    print(table(report), f"load average {report['load_average']}", f"written: {args.out}", sep="\n")
    return 0 if report["all_decided"] and not report["problems"] else 1


if __name__ == "__main__":
    sys.exit(main())
