@tool
class_name NpcBrainSettings
extends RefCounted
## The addon's project settings (Project > Project Settings > Npc Brain): their names, defaults
## and editor hints, in one place for the EditorPlugin that registers them and the runtime that
## reads them. A setting missing from project.godot reads as its default.

## Console verbosity (`LOG_EVENTS`, or `--npc-brain-log=off|errors|events|verbose`).
enum LogLevel {
	OFF, ## Nothing but the engine's own push_error/push_warning.
	ERRORS, ## Failed calls and refused worlds only.
	EVENTS, ## Every event, large payloads (the whole World message) left out.
	VERBOSE, ## Every event with every field.
}

## What agents tell the brain about the player's view (`ATTENTION`; an agent's own
## `attention_mode` beats it).
enum Attention {
	AUTO, ## In view while the NPC's body is on a screen, out of view otherwise.
	ALWAYS_IN_VIEW, ## Full detail for every NPC, whatever the player sees.
	ALWAYS_OUT_OF_VIEW, ## Coarse thinking for every NPC (a server, or a game without a view).
}

const URL := "npc_brain/brain/url"
const TOKEN := "npc_brain/brain/token"
const TIMEOUT_S := "npc_brain/brain/timeout_s"
const SLOW_AFTER_S := "npc_brain/brain/slow_after_s"
const TALK_TIMEOUT_S := "npc_brain/brain/talk_timeout_s"
const START_TIME := "npc_brain/clock/start_time"
const TIME_SCALE := "npc_brain/clock/time_scale"
const RETRY_DELAY_S := "npc_brain/world/retry_delay_s"
const LOG_EVENTS := "npc_brain/debug/log_events"
const ATTENTION := "npc_brain/agents/attention"

## name -> [default, Variant type, hint, hint string]
const ALL := {
	URL: ["", TYPE_STRING, PROPERTY_HINT_PLACEHOLDER_TEXT,
			"empty: the web page's origin, else http://127.0.0.1:8080"],
	TOKEN: ["", TYPE_STRING, PROPERTY_HINT_PASSWORD, ""],
	TIMEOUT_S: [15.0, TYPE_FLOAT, PROPERTY_HINT_RANGE, "1,120,0.5,suffix:s"],
	SLOW_AFTER_S: [5.0, TYPE_FLOAT, PROPERTY_HINT_RANGE, "0.5,60,0.5,suffix:s"],
	TALK_TIMEOUT_S: [60.0, TYPE_FLOAT, PROPERTY_HINT_RANGE, "1,600,1,suffix:s"],
	START_TIME: ["2026-02-13T07:00:00Z", TYPE_STRING, PROPERTY_HINT_PLACEHOLDER_TEXT,
			"RFC 3339, e.g. 2026-02-13T07:00:00Z"],
	TIME_SCALE: [60.0, TYPE_FLOAT, PROPERTY_HINT_RANGE, "0,3600,1,or_greater"],
	RETRY_DELAY_S: [3.0, TYPE_FLOAT, PROPERTY_HINT_RANGE, "0.5,60,0.5,suffix:s"],
	LOG_EVENTS: [LogLevel.ERRORS, TYPE_INT, PROPERTY_HINT_ENUM, "Off,Errors,Events,Verbose"],
	ATTENTION: [Attention.AUTO, TYPE_INT, PROPERTY_HINT_ENUM,
			"Auto,Always in view,Always out of view"],
}


## The setting's value, or its default when the project does not set it.
static func get_value(setting: String) -> Variant:
	return ProjectSettings.get_setting(setting, ALL[setting][0])


## Adds every setting with its default and hint (what the EditorPlugin does on enabling).
static func register_all() -> void:
	for setting: String in ALL:
		var spec: Array = ALL[setting]
		if not ProjectSettings.has_setting(setting):
			ProjectSettings.set_setting(setting, spec[0])
		ProjectSettings.set_initial_value(setting, spec[0])
		ProjectSettings.set_as_basic(setting, true)
		ProjectSettings.add_property_info({
			"name": setting, "type": spec[1], "hint": spec[2], "hint_string": spec[3],
		})
