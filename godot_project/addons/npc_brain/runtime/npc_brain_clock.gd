extends Node
## The game's clock (autoload `GameClock`): Godot owns time, the brain is told it on each call.
##
## Starts at `npc_brain/clock/start_time` (or `--start-time=`) and runs `time_scale` game seconds
## per real second (`npc_brain/clock/time_scale`, or `--time-scale=`) once `running` is set.

## Emitted once per game minute while running.
signal minute_passed(unix_time: int)

const START_SETTING := "npc_brain/clock/start_time"
const SCALE_SETTING := "npc_brain/clock/time_scale"
const DEFAULT_START := "2026-02-13T07:00:00Z"

## Game seconds per real second.
var time_scale: float = 60.0
## Whether the game has started (the world is registered).
var running: bool = false
## Paused by the player: time stands still, NPCs stop walking.
var paused: bool = false

var _unix_time: float = 0.0
var _last_minute: int = 0


func _ready() -> void:
	var start_text := LaunchArgs.get_value(
			"start-time", str(ProjectSettings.get_setting(START_SETTING, DEFAULT_START)))
	var start := GameTime.parse_rfc3339(start_text)
	if start < 0:
		push_warning("GameClock: bad start time %s, using %s" % [start_text, DEFAULT_START])
		start = GameTime.parse_rfc3339(DEFAULT_START)
	_unix_time = start
	_last_minute = floori(start / 60.0)
	var scale_text := LaunchArgs.get_value(
			"time-scale", str(ProjectSettings.get_setting(SCALE_SETTING, time_scale)))
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


## Game time now, in Unix seconds (UTC).
func now() -> int:
	return int(_unix_time)


## Game time now as RFC 3339 text, e.g. "2026-02-13T07:00:00Z".
func now_rfc3339() -> String:
	return GameTime.to_rfc3339(now())
