class_name NpcBrainBrainProcess
extends RefCounted
## The bundled brain's life as a process: started on a loopback port with a token of this launch,
## ready once /healthz answers, started again with a growing pause when it dies or never answers,
## stopped for good by `stop()`. It runs no process and sends no request itself: `api` does
## (NpcBrainProcessApi, or a stand-in in tests), and the caller reports each health answer and
## calls `tick()` with the time, so every step is driven and tested without a clock or an OS.

signal ready(url: String)  ## /healthz answered: the brain is serving at `url`
signal lost(reason: String)  ## it died or never answered; a restart is planned
signal gave_up(reason: String)  ## it failed too often in a row: no more restarts

enum Phase { STOPPED, STARTING, READY, WAITING }

const FIRST_PAUSE_S := 1.0  ## the pause before the first restart; doubled after each failure
const LONGEST_PAUSE_S := 30.0
const HEALTHY_AFTER_S := 60.0  ## serving this long forgives the failures before
const START_LIMIT_S := 180.0  ## from start to /healthz: the model's load, on a slow machine
const PROBE_EVERY_S := 0.25
const MAX_FAILURES := 8

var api: NpcBrainProcessApi
var executable: String
var data_dir: String
var parent_pid: int
var port: int = 0
var token: String = ""
var phase: Phase = Phase.STOPPED
var pid: int = -1
var failures: int = 0
var starts: int = 0

var _since_s: float = 0.0
var _next_probe_s: float = 0.0
var _restart_at_s: float = 0.0


func _init(process_api: NpcBrainProcessApi, brain_executable: String, brain_data_dir: String,
		game_pid: int) -> void:
	api = process_api
	executable = brain_executable
	data_dir = brain_data_dir
	parent_pid = game_pid


## The brain's URL: known before it starts, so the client can be pointed at it at once.
func url() -> String:
	return "http://127.0.0.1:%d" % port


## Chooses the port and token (once: restarts keep them, so the client's URL stays true)
## and starts it.
func start(now_s: float) -> void:
	if port == 0:
		port = api.free_port()
	if token == "":
		token = api.random_token()
	_launch(now_s)


## The command line it runs with; the token goes in its environment, never on the command line.
func arguments() -> PackedStringArray:
	return PackedStringArray([
		"serve", "--host", "127.0.0.1", "--http-port", str(port), "--grpc-port", "0",
		"--data-dir", data_dir, "--parent-pid", str(parent_pid)])


## Whether a /healthz request is due now (the caller sends it and reports with `health()`).
func probe_due(now_s: float) -> bool:
	if phase != Phase.STARTING or now_s < _next_probe_s:
		return false
	_next_probe_s = now_s + PROBE_EVERY_S
	return true


## A /healthz answer: `ok` when it said 200.
func health(ok: bool, now_s: float) -> void:
	if ok and phase == Phase.STARTING:
		phase = Phase.READY
		_since_s = now_s
		ready.emit(url())


## Watches the process: a death or a start that never answers plans a restart, made when due.
func tick(now_s: float) -> void:
	match phase:
		Phase.STARTING:
			if not api.is_running(pid):
				_failed(now_s, "the brain exited before it answered /healthz")
			elif now_s - _since_s > START_LIMIT_S:
				api.kill(pid)
				_failed(now_s, "the brain did not answer /healthz within %d s" % int(START_LIMIT_S))
		Phase.READY:
			if now_s - _since_s > HEALTHY_AFTER_S:
				failures = 0
			if not api.is_running(pid):
				_failed(now_s, "the brain exited")
		Phase.WAITING:
			if now_s >= _restart_at_s:
				_launch(now_s)


## Stops it for good (the game quits): no restart follows.
func stop() -> void:
	if phase in [Phase.STARTING, Phase.READY] and api.is_running(pid):
		api.kill(pid)
	phase = Phase.STOPPED
	pid = -1


## The pause before the next restart after `failures` failures in a row.
static func pause_after(failure_count: int) -> float:
	return minf(FIRST_PAUSE_S * pow(2.0, failure_count - 1), LONGEST_PAUSE_S)


func _launch(now_s: float) -> void:
	starts += 1
	pid = api.start(executable, arguments(), {"NPC_BRAIN_AUTH_TOKEN": token})
	phase = Phase.STARTING
	_since_s = now_s
	_next_probe_s = now_s
	if pid <= 0:
		_failed(now_s, "the brain could not be started: %s" % executable)


func _failed(now_s: float, reason: String) -> void:
	failures += 1
	pid = -1
	if failures >= MAX_FAILURES:
		phase = Phase.STOPPED
		gave_up.emit(reason)
		return
	phase = Phase.WAITING
	_restart_at_s = now_s + pause_after(failures)
	lost.emit(reason)
