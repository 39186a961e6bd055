class_name NpcBrainDecision
extends RefCounted
## A Decide answer, typed: the action, when to ask again and whether the NPC is still thinking.
## The brain may leave out `askAgainAt` and `thinking`.

var action: NpcBrainAction = NpcBrainAction.new()
## Pass it to GetTrace to see how the decision was made.
var trace_id: String = ""
## Game time (Unix seconds) to call Decide again (`askAgainAt`); -1 when not given.
var ask_again_at: int = -1
## Background thinking that will change this action is under way (`thinking`).
var thinking: bool = false
## Real milliseconds the brain took to answer.
var latency_ms: int = 0


## Reads a DecideResponse in proto3 JSON.
static func from_proto(data: Dictionary, elapsed_ms: int = 0) -> NpcBrainDecision:
	var decision := NpcBrainDecision.new()
	var action: Variant = data.get("action", {})
	decision.action = NpcBrainAction.from_proto(action if action is Dictionary else {})
	decision.trace_id = str(data.get("traceId", ""))
	decision.ask_again_at = NpcBrainTime.parse_rfc3339(str(data.get("askAgainAt", "")))
	decision.thinking = bool(data.get("thinking", false))
	decision.latency_ms = elapsed_ms
	return decision


## Whether the NPC is still making up its mind: a provisional action, or thinking under way.
func is_tentative() -> bool:
	return thinking or action.is_provisional()


## Game time to call Decide again: `askAgainAt` (the brain spreads a town's asks past the ends of
## steps that end together), or the action's end when the brain did not say.
func next_ask(now: int) -> int:
	return maxi(ask_again_at, now + 60) if ask_again_at >= 0 else action.end_time(now)
