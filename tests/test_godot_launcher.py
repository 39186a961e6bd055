"""NpcBrainLauncher in the real Godot 4.6 engine (the web runtime: it can start no process here).

NpcBrainBrainProcess, the launcher's dealings with the brain's process, runs against a stand-in
process API: started with a loopback port, a token in its environment and the game's pid, seen
ready on /healthz, started again with a doubling pause when it dies or never answers, stopped for
good, given up on after too many failures. The launcher node then runs the same against a stand-in
brain at the page's origin: its real health probes see it ready, see it again after a "death", and
it stops it. And the web build's own path: the launcher launches nothing and the client connects to
its URL. The desktop path (a real process started, the export plugin copying the bundle) cannot run
here: docs/shipping.md says so."""

from __future__ import annotations

import functools
import http.server
from pathlib import Path
import threading

import pytest

from tools import godot_web

pytestmark = [pytest.mark.godot, pytest.mark.slow]

CHECK_SCENE = """[gd_scene format=3]

[ext_resource type="Script" path="res://check.gd" id="1"]

[node name="Check" type="Node"]
script = ExtResource("1")
"""

CHECK_SCRIPT = '''extends Node
## Drives NpcBrainBrainProcess and NpcBrainLauncher against stand-ins; prints what held.


class StandInApi:
	extends NpcBrainProcessApi
	var next_pid := 100
	var running: Dictionary = {}
	var started: Array[Dictionary] = []
	var killed: Array[int] = []
	var port := 5555
	var refuse := false

	func start(path: String, arguments: PackedStringArray, env: Dictionary) -> int:
		started.append({"path": path, "arguments": Array(arguments), "env": env})
		if refuse:
			return -1
		next_pid += 1
		running[next_pid] = true
		return next_pid

	func is_running(pid: int) -> bool:
		return running.has(pid)

	func kill(pid: int) -> void:
		killed.append(pid)
		running.erase(pid)

	func free_port() -> int:
		return port


var checks: Dictionary = {}


func _ready() -> void:
	_process_logic()
	_giving_up()
	checks["should_launch"] = (NpcBrainLauncher.should_launch(true, false, "", true)
			and not NpcBrainLauncher.should_launch(false, false, "", true)
			and not NpcBrainLauncher.should_launch(true, true, "", true)
			and not NpcBrainLauncher.should_launch(true, false, "http://x:1", true)
			and not NpcBrainLauncher.should_launch(true, false, "", false))
	var pauses: Array[float] = []
	for failures in range(1, 8):
		pauses.append(NpcBrainBrainProcess.pause_after(failures))
	checks["pauses double to a ceiling"] = pauses == [1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0]
	checks["the client connects to the page, no brain launched"] = (
		NpcBrain.base_url == JavaScriptBridge.eval("window.location.origin", true)
		and get_node("/root/" + NpcBrainLauncher.AUTOLOAD).process == null)
	await _launcher_node()
	NpcBrainLog.record("launcher_check", {"checks": checks})


func _process_logic() -> void:
	var api := StandInApi.new()
	var p := NpcBrainBrainProcess.new(api, "/game/npc-brain/npc-brain", "/data", 4242)
	var readies: Array[String] = []
	var losses: Array[String] = []
	p.ready.connect(func(url: String) -> void: readies.append(url))
	p.lost.connect(func(reason: String) -> void: losses.append(reason))
	p.start(0.0)
	var first: Dictionary = api.started[0]
	var arguments: Array = first["arguments"]
	var token: String = first["env"]["NPC_BRAIN_AUTH_TOKEN"]
	checks["starts the bundle"] = first["path"] == "/game/npc-brain/npc-brain" and p.phase == p.Phase.STARTING
	checks["on loopback at its port"] = (_after(arguments, "--host") == "127.0.0.1"
			and _after(arguments, "--http-port") == "5555" and p.url() == "http://127.0.0.1:5555")
	checks["with the game's pid and its data dir"] = (_after(arguments, "--parent-pid") == "4242"
			and _after(arguments, "--data-dir") == "/data")
	checks["a random token, in its environment only"] = (token.length() == 64 and token == p.token
			and not token in " ".join(arguments))
	checks["probes paced"] = p.probe_due(0.0) and not p.probe_due(0.1) and p.probe_due(0.3)
	p.health(false, 0.5)
	checks["a failed probe is not ready"] = p.phase == p.Phase.STARTING and readies.is_empty()
	p.health(true, 1.0)
	checks["ready when /healthz answers"] = p.phase == p.Phase.READY and readies == ["http://127.0.0.1:5555"]
	checks["no probes once ready"] = not p.probe_due(2.0)
	api.running.erase(p.pid)
	p.tick(2.0)
	checks["a death is seen"] = p.phase == p.Phase.WAITING and losses.size() == 1 and p.failures == 1
	p.tick(2.9)
	checks["the pause is waited out"] = api.started.size() == 1
	p.tick(3.0)
	checks["started again after it"] = api.started.size() == 2 and p.phase == p.Phase.STARTING
	checks["with the same port and token"] = (api.started[1]["arguments"] == arguments
			and api.started[1]["env"] == first["env"])
	api.running.erase(p.pid)
	p.tick(3.5)
	p.tick(5.4)
	var before_second_pause := api.started.size()
	p.tick(5.5)
	checks["the pause doubles"] = p.failures == 2 and before_second_pause == 2 and api.started.size() == 3
	var silent := p.pid
	p.tick(5.5 + NpcBrainBrainProcess.START_LIMIT_S + 1.0)
	checks["one that never answers is killed"] = api.killed == [silent] and p.failures == 3
	var at := 5.5 + NpcBrainBrainProcess.START_LIMIT_S + 1.0 + NpcBrainBrainProcess.pause_after(3)
	p.tick(at)
	p.health(true, at)
	p.tick(at + NpcBrainBrainProcess.HEALTHY_AFTER_S + 1.0)
	checks["a long healthy run forgives"] = p.phase == p.Phase.READY and p.failures == 0
	var last := p.pid
	var count := api.started.size()
	p.stop()
	p.tick(at + 10000.0)
	checks["stop kills it for good"] = (api.killed.back() == last and p.phase == p.Phase.STOPPED
			and api.started.size() == count)


func _giving_up() -> void:
	var api := StandInApi.new()
	api.refuse = true
	var p := NpcBrainBrainProcess.new(api, "/missing", "/data", 1)
	var gave_up: Array[String] = []
	p.gave_up.connect(func(reason: String) -> void: gave_up.append(reason))
	p.start(0.0)
	for second in range(1000):
		p.tick(float(second))
	checks["gives up after too many failures"] = (gave_up.size() == 1 and p.phase == p.Phase.STOPPED
			and api.started.size() == NpcBrainBrainProcess.MAX_FAILURES)


func _launcher_node() -> void:
	var launcher := NpcBrainLauncher.new()
	add_child(launcher)
	checks["the node launches nothing in a web build"] = launcher.process == null
	var api := StandInApi.new()
	api.port = int(str(JavaScriptBridge.eval("window.location.port", true)))
	var p := NpcBrainBrainProcess.new(api, "/game/npc-brain/npc-brain", "/data", 7)
	launcher.launch(p)
	checks["points the client at it"] = (ProjectSettings.get_setting(NpcBrainSettings.URL) == p.url()
			and ProjectSettings.get_setting(NpcBrainSettings.TOKEN) == p.token)
	await launcher.brain_ready
	checks["the node sees it ready"] = p.starts == 1
	api.running.erase(p.pid)
	await launcher.brain_lost
	await launcher.brain_ready
	checks["the node starts it again"] = p.starts == 2 and api.started.size() == 2
	var pid := p.pid
	launcher.stop()
	checks["the node stops it"] = api.killed == [pid] and p.phase == p.Phase.STOPPED


static func _after(arguments: Array, flag: String) -> String:
	var at := arguments.find(flag)
	return str(arguments[at + 1]) if at >= 0 and at + 1 < arguments.size() else ""
'''


class _Origin(http.server.SimpleHTTPRequestHandler):
    """The page's files, and /healthz as a brain answers it (counted)."""

    health_answers: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        if self.path != "/healthz":
            return super().do_GET()
        self.health_answers.append(self.path)
        body = b'{"status": "serving"}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        return None

    def log_message(self, *args: object) -> None:
        pass


def _needs_browser() -> None:
    if not Path(godot_web.CHROMIUM).exists():
        pytest.skip(f"{godot_web.CHROMIUM} is not installed (apt-get install chromium)")
    pytest.importorskip("playwright.sync_api")


def test_the_launcher_starts_restarts_and_stops_a_stand_in_brain_and_a_web_build_launches_none(
        tmp_path: Path) -> None:
    _needs_browser()
    project = godot_web.make_host_project(tmp_path / "game")
    (project / "check.gd").write_text(CHECK_SCRIPT)
    (project / "town.tscn").write_text(CHECK_SCENE)
    web_dir = godot_web.build_web(tmp_path / "web", project)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Origin, directory=str(web_dir)))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/?npc-brain-log=events"
        with godot_web.HeadlessGame(url) as game:
            launched = game.wait_for(lambda e: e["event"] == "launcher", timeout_s=120)
            done = game.wait_for(lambda e: e["event"] == "launcher_check", timeout_s=120)
    finally:
        server.shutdown()
        server.server_close()
    assert launched == {"event": "launcher", "launch": False, "web": True}, "\n".join(game.lines[-30:])
    assert done, "\n".join(game.lines[-40:])
    failed = sorted(name for name, ok in done["checks"].items() if not ok)
    assert not failed and len(done["checks"]) == 25, (failed, len(done["checks"]))
    assert _Origin.health_answers, "the launcher never asked /healthz"
    lost = [e for e in game.events if e["event"] == "launcher_lost"]
    assert len(lost) == 1 and lost[0]["reason"] == "the brain exited", lost
    assert not godot_web.engine_problems([line for line in game.lines if "launcher_lost" not in line]), \
        godot_web.engine_problems(game.lines)
