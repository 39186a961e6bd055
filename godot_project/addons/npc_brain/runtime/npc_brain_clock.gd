class_name NpcBrainGameClock
extends Node
## The game's clock (the addon's autoload `NpcBrainClock`): Godot owns time, the brain is told
## it on each call.
##
## Starts at `npc_brain/clock/start_time` (or `--start-time=`) and runs `time_scale` game seconds
## per real second (`npc_brain/clock/time_scale`, or `--time-scale=`) once `running` is set
## (NpcBrainWorld sets it when the brain has its world). A game with its own clock can drive
## this one instead: `running = false` and `set_time(unix_seconds)` each game minute.
##
## A jump of the clock (the player sleeps until morning) goes through `skip_time`, so the brain
## lives the skipped hours (plans, meetings, news, memories at their times) instead of a hole.

## Emitted once per game minute while running.
signal minute_passed(unix_time: int)
## The clock jumped from `from_time` to `to_time` (Unix seconds) and the brain lived the hours
## between (`reply.data`: SkipTimeResponse's counts), or could not (`reply.ok` false: its NPCs
## then start at the new time without those hours).
signal time_skipped(from_time: int, to_time: int, reply: NpcBrainReply)

## The autoload's name (the EditorPlugin registers it).
const AUTOLOAD := "NpcBrainClock"
const DEFAULT_START := "2026-02-13T07:00:00Z"

## Game seconds per real second.
var time_scale: float = 60.0
## Whether the game has started (the world is registered).
var running: bool = false
## Paused by the player: time stands still, NPCs stop walking.
var paused: bool = false

var _unix_time: float = 0.0
var _last_minute: int = 0


## The autoload, or null (with an error saying how to fix it) when the plugin is not enabled.
static func get_instance() -> NpcBrainGameClock:
	var tree := Engine.get_main_loop() as SceneTree
	var clock: NpcBrainGameClock = tree.root.get_node_or_null(AUTOLOAD) if tree != null else null
	if clock == null:
		push_error("NpcBrain: the autoload %s is missing: enable the plugin in Project > "
				% AUTOLOAD + "Project Settings > Plugins (it adds the autoloads).")
	return clock


func _ready() -> void:
	var start_text := NpcBrainLaunchArgs.get_value(
			"start-time", str(NpcBrainSettings.get_value(NpcBrainSettings.START_TIME)))
	var start := NpcBrainTime.parse_rfc3339(start_text)
	if start < 0:
		push_warning("NpcBrainClock: bad start time %s, using %s" % [start_text, DEFAULT_START])
		start = NpcBrainTime.parse_rfc3339(DEFAULT_START)
	_unix_time = start
	_last_minute = floori(start / 60.0)
	var scale_text := NpcBrainLaunchArgs.get_value(
			"time-scale", str(NpcBrainSettings.get_value(NpcBrainSettings.TIME_SCALE)))
	time_scale = maxf(scale_text.to_float(), 0.0)


func _process(delta: float) -> void:
	if not is_ticking():
		return
	_unix_time += delta * time_scale
	var minute := floori(_unix_time / 60.0)
	if minute != _last_minute:
		_last_minute = minute
		minute_passed.emit(now())


## Whether game time advances (started and not paused).
func is_ticking() -> bool:
	return running and not paused


## Sets the game time (Unix seconds, UTC); emits `minute_passed` when the minute changes.
func set_time(unix_time: int) -> void:
	_unix_time = unix_time
	var minute := floori(_unix_time / 60.0)
	if minute != _last_minute:
		_last_minute = minute
		minute_passed.emit(now())


## Jumps the clock to `unix_time` (later than now), after the brain has lived the skipped hours
## of `world_name`'s NPCs (SkipTime: at most a week, a few LLM calls per skipped hour; the call
## may take a while, so show a fade). Time stands still meanwhile. Returns the brain's reply.
func skip_time(unix_time: int, world_name: String) -> NpcBrainReply:
	var from_time := now()
	var was_paused := paused
	paused = true
	var reply := await NpcBrainClient.get_instance().call_rpc("SkipTime", {
		"worldName": world_name,
		"fromTime": NpcBrainTime.to_rfc3339(from_time),
		"toTime": NpcBrainTime.to_rfc3339(unix_time),
	})
	set_time(unix_time)
	paused = was_paused
	time_skipped.emit(from_time, unix_time, reply)
	return reply


## Game time now, in Unix seconds (UTC).
func now() -> int:
	return int(_unix_time)


## Real seconds until game time `unix_time` at the current speed; INF while time stands still.
func real_seconds_until(unix_time: int) -> float:
	if not is_ticking() or time_scale <= 0.0:
		return INF
	return maxf((unix_time - _unix_time) / time_scale, 0.0)


## Game time now as RFC 3339 text, e.g. "2026-02-13T07:00:00Z".
func now_rfc3339() -> String:
	return NpcBrainTime.to_rfc3339(now())
