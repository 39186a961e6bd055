class_name NpcBrainLauncher
extends Node
## Starts the bundled brain with a desktop game (the autoload `NpcBrainLaunch`, before `NpcBrain`).
##
## In an exported desktop game whose folder holds the bundle (`npc-brain/`, copied there by the
## export plugin; `npc-brain bundle` builds it), it starts the brain on a free loopback port with a
## random token for this launch, its data under `user://npc_brain`, and points the client at it
## (the `npc_brain/brain/url` and `token` settings, for this run only) before the client starts.
## It waits for /healthz, starts the brain again with a growing pause if it dies, and stops it when
## the game quits; a game that crashes takes the brain with it (`serve --parent-pid`). In the
## editor, in a web build, with `--brain-url=` or without a bundle, it launches nothing: the
## client connects to its URL as before.

signal brain_ready(url: String)
signal brain_lost(reason: String)
signal brain_gave_up(reason: String)

const AUTOLOAD := "NpcBrainLaunch"
const FOLDER := "npc-brain"  ## beside the game's executable (macOS: in the app's Resources)
const DATA_DIR := "user://npc_brain"

var process: NpcBrainBrainProcess  ## null when the game connects to a URL instead

var _http: HTTPRequest
var _probing: bool = false


func _ready() -> void:
	var executable := bundled_executable()
	var launching := should_launch(OS.has_feature("template"), OS.has_feature("web"),
			NpcBrainLaunchArgs.get_value("brain-url"), FileAccess.file_exists(executable))
	NpcBrainLog.record("launcher", {"launch": launching, "web": OS.has_feature("web")})
	if launching:
		DirAccess.make_dir_recursive_absolute(ProjectSettings.globalize_path(DATA_DIR))
		launch(NpcBrainBrainProcess.new(NpcBrainProcessApi.new(), executable,
				ProjectSettings.globalize_path(DATA_DIR), OS.get_process_id()))


## Starts `brain_process` and points the client at it (for this run: the settings are not saved).
func launch(brain_process: NpcBrainBrainProcess) -> void:
	process = brain_process
	process.ready.connect(_on_ready)
	process.lost.connect(_on_lost)
	process.gave_up.connect(_on_gave_up)
	process.start(_now_s())
	ProjectSettings.set_setting(NpcBrainSettings.URL, process.url())
	ProjectSettings.set_setting(NpcBrainSettings.TOKEN, process.token)
	_http = HTTPRequest.new()
	_http.timeout = 2.0
	add_child(_http)
	_http.request_completed.connect(_on_health)


## Whether to start a brain: an exported desktop game with the bundle beside it and no URL given.
static func should_launch(
		exported: bool, web: bool, url_argument: String, bundle_exists: bool
) -> bool:
	return exported and not web and url_argument == "" and bundle_exists


## Where the bundle's executable is in an exported game.
static func bundled_executable() -> String:
	var name := "npc-brain.exe" if OS.has_feature("windows") else "npc-brain"
	var beside := OS.get_executable_path().get_base_dir()
	if OS.has_feature("macos"):
		beside = beside.path_join("../Resources").simplify_path()
	return beside.path_join(FOLDER).path_join(name)


func _process(_delta: float) -> void:
	if process == null:
		return
	var now := _now_s()
	process.tick(now)
	if not _probing and process.probe_due(now):
		_probing = _http.request(process.url() + "/healthz") == OK


func _notification(what: int) -> void:
	if what == NOTIFICATION_WM_CLOSE_REQUEST or what == NOTIFICATION_PREDELETE:
		stop()


func _exit_tree() -> void:
	stop()


## Stops the brain for good (also done when the game quits).
func stop() -> void:
	if process != null:
		process.stop()


func _on_health(
		result: int, code: int, _headers: PackedStringArray, _body: PackedByteArray
) -> void:
	_probing = false
	if process != null:
		process.health(result == HTTPRequest.RESULT_SUCCESS and code == 200, _now_s())


func _on_ready(url: String) -> void:
	NpcBrainLog.record("launcher_ready", {"url": url, "starts": process.starts})
	brain_ready.emit(url)


func _on_lost(reason: String) -> void:
	NpcBrainLog.error("launcher_lost", {"reason": reason, "failures": process.failures})
	brain_lost.emit(reason)


func _on_gave_up(reason: String) -> void:
	NpcBrainLog.error("launcher_gave_up", {"reason": reason})
	brain_gave_up.emit(reason)


static func _now_s() -> float:
	return Time.get_ticks_msec() / 1000.0
