class_name NpcBrainAction
extends RefCounted
## What an NPC does now (the protocol's Action), typed: where, what, for how long, which
## objects it changes and what is said.

## `source` of an action chosen without the LLM while the NPC's plan is being made.
const PROVISIONAL := "ACTION_SOURCE_PROVISIONAL"

## e.g. "Isabella Rodriguez is brewing coffee".
var description: String = ""
## A short label, e.g. "☕ brewing coffee" (may be empty).
var emoji: String = ""
## Where: "world:sector:arena[:object]" (the world prefix may be missing; see
## NpcBrainPlaces.full_address).
var address: String = ""
## e.g. "ACTION_SOURCE_PLAN", `PROVISIONAL`; "" when not given.
var source: String = ""
var duration_minutes: int = 1
## Game time (Unix seconds) the action started; -1 when not given.
var start_time: int = -1
## Object states this action sets (released when the action ends).
var object_changes: Array[NpcBrainObjectChange] = []
## Lines of a conversation in progress.
var dialogue: Array[NpcBrainLine] = []
## The npc_id of the conversation partner while chatting, else "".
var chatting_with: String = ""
## A game verb to perform with this action (see NpcBrainVerb), else "".
var verb: String = ""
## The verb's arguments by name, typed as declared (String, float or int).
var verb_args: Dictionary = {}
## The address of the object or arena the verb applies to.
var verb_target: String = ""


## Reads an Action message in proto3 JSON.
static func from_proto(message: Dictionary) -> NpcBrainAction:
	var action := NpcBrainAction.new()
	action.description = str(message.get("description", ""))
	action.emoji = str(message.get("emoji", ""))
	action.address = str(message.get("address", ""))
	action.source = str(message.get("source", ""))
	action.duration_minutes = maxi(int(message.get("durationMinutes", 0)), 1)
	action.start_time = NpcBrainTime.parse_rfc3339(str(message.get("startTime", "")))
	action.chatting_with = str(message.get("chattingWith", ""))
	for change: Variant in message.get("objectStates", []):
		if change is Dictionary:
			action.object_changes.append(NpcBrainObjectChange.new(
					str(change.get("address", "")), str(change.get("state", ""))))
	var call: Variant = message.get("verb", {})
	if call is Dictionary and str(call.get("name", "")) != "":
		action.verb = str(call["name"])
		action.verb_target = str(call.get("target", ""))
		for value: Variant in call.get("arguments", []):
			if value is Dictionary:
				action.verb_args[str(value.get("name", ""))] = _typed(value)
	for line: Variant in message.get("dialogue", []):
		if line is Dictionary:
			action.dialogue.append(NpcBrainLine.new(str(line.get("speakerNpcId", "")),
					str(line.get("speakerName", "")), str(line.get("text", ""))))
	return action


## A VerbValue's value: proto3 JSON writes an int64 as a string.
static func _typed(value: Dictionary) -> Variant:
	if value.has("integer"):
		return int(str(value["integer"]))
	if value.has("number"):
		return float(value["number"])
	return str(value.get("choice", ""))


## What others see it doing: the description without "<name> is ", e.g. "brewing coffee".
func get_activity(name: String) -> String:
	var prefix := name + " is "
	return description.substr(prefix.length()) if description.begins_with(prefix) else description


## Game time the action ends (from `now` when it has no start), at least a minute after `now`.
func end_time(now: int) -> int:
	return maxi((start_time if start_time >= 0 else now) + duration_minutes * 60, now + 60)


## Whether it was chosen without the LLM while the NPC's plan is being made.
func is_provisional() -> bool:
	return source == PROVISIONAL
