class_name NpcBrainLog
extends RefCounted
## Machine-readable console lines for tests and tools: `NPCBRAIN {"event": ..., ...}`.
##
## One JSON object per line, keys sorted, always with an "event" field. In a web export these
## lines reach the browser console; on desktop, stdout. How much is printed is the project
## setting `npc_brain/debug/log_events` (default: errors only), or the user argument
## `--npc-brain-log=off|errors|events|verbose` (`?npc-brain-log=verbose` on a web page).

const PREFIX := "NPCBRAIN "
const LOG_ARG := "npc-brain-log"
## Fields longer than this (as JSON) are left out below VERBOSE.
const MAX_FIELD_CHARS := 2000

static var _level: int = -1


## Prints one event line if the verbosity allows events of `level` (EVENTS by default).
static func record(
		event: String, fields: Dictionary = {},
		level: NpcBrainSettings.LogLevel = NpcBrainSettings.LogLevel.EVENTS
) -> void:
	var allowed := get_level()
	if level > allowed or allowed == NpcBrainSettings.LogLevel.OFF:
		return
	var payload := {"event": event}
	for key: String in fields:
		var text := JSON.stringify(fields[key])
		if allowed < NpcBrainSettings.LogLevel.VERBOSE and text.length() > MAX_FIELD_CHARS:
			payload[key + "_omitted_chars"] = text.length()
		else:
			payload[key] = fields[key]
	print(PREFIX + JSON.stringify(payload, "", true))


## An error event (printed unless the log is off).
static func error(event: String, fields: Dictionary = {}) -> void:
	record(event, fields, NpcBrainSettings.LogLevel.ERRORS)


## The verbosity in force.
static func get_level() -> NpcBrainSettings.LogLevel:
	if _level < 0:
		_level = _read_level()
	return _level as NpcBrainSettings.LogLevel


## Sets the verbosity for the rest of the run (tools, tests).
static func set_level(level: NpcBrainSettings.LogLevel) -> void:
	_level = level


static func _read_level() -> int:
	var names := NpcBrainSettings.LogLevel.keys().map(
			func(key: String) -> String: return key.to_lower())
	var from_args := NpcBrainLaunchArgs.get_value(LOG_ARG).to_lower()
	if from_args in names:
		return names.find(from_args)
	return clampi(int(NpcBrainSettings.get_value(NpcBrainSettings.LOG_EVENTS)), 0, names.size() - 1)
