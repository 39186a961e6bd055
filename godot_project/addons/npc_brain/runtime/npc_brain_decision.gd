class_name Decision
extends RefCounted
## A Decide answer (DecideResponse, proto3 JSON) read once: the action, when to ask again, and
## whether the NPC is still thinking. The brain may leave out `askAgainAt` and `thinking`.

## `source` of an action chosen without the LLM while the NPC's plan is being made.
const PROVISIONAL := "ACTION_SOURCE_PROVISIONAL"

## The Action message as it came (for the inspector).
var action: Dictionary = {}
var trace_id: String = ""
## Address as the brain wrote it (the world prefix may be missing).
var address: String = ""
var description: String = ""
var emoji: String = ""
## e.g. "ACTION_SOURCE_PLAN", `PROVISIONAL`; "" when not given.
var source: String = ""
var duration_minutes: int = 1
## Game time (Unix seconds) the action started; -1 when not given.
var start_time: int = -1
## Game time (Unix seconds) to call Decide again (`askAgainAt`); -1 when not given.
var ask_again_at: int = -1
## Background thinking that will change this action is under way (`thinking`).
var thinking: bool = false


## Reads a DecideResponse in proto3 JSON.
static func from_response(data: Dictionary) -> Decision:
	var decision := Decision.new()
	var action: Variant = data.get("action", {})
	decision.action = action if action is Dictionary else {}
	decision.trace_id = str(data.get("traceId", ""))
	decision.address = str(decision.action.get("address", ""))
	decision.description = str(decision.action.get("description", ""))
	decision.emoji = str(decision.action.get("emoji", ""))
	decision.source = str(decision.action.get("source", ""))
	decision.duration_minutes = maxi(int(decision.action.get("durationMinutes", 0)), 1)
	decision.start_time = GameTime.parse_rfc3339(str(decision.action.get("startTime", "")))
	decision.ask_again_at = GameTime.parse_rfc3339(str(data.get("askAgainAt", "")))
	decision.thinking = bool(data.get("thinking", false))
	return decision


## Whether the NPC is still making up its mind: a provisional action, or thinking under way.
func is_tentative() -> bool:
	return thinking or source == PROVISIONAL


## Game time the action ends (from `now` when it has no start), at least a minute after `now`.
func end_time(now: int) -> int:
	return maxi((start_time if start_time >= 0 else now) + duration_minutes * 60, now + 60)


## Game time to call Decide again: `askAgainAt` or the action's end, whichever comes first.
func next_ask(now: int) -> int:
	var end := end_time(now)
	return mini(ask_again_at, end) if ask_again_at >= 0 else end
