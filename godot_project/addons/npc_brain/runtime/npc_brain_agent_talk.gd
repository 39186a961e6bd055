extends RefCounted
## The player's talk with an NpcBrainAgent: the streamed line (TalkStream) and the hold that
## keeps the NPC where it is meanwhile (`talk_held` .. `talk_released`): a part of the agent,
## kept apart by concern.

## Held by a talk (between talk_held and talk_released); each line re-arms the release.
var held: bool = false

var _agent: NpcBrainAgent
# Called when a hold ends: the agent walks on if it was on its way.
var _walk_on: Callable
# The agent's `_wake_in(seconds, then)`: its timers go with it when it is freed.
var _wake_in: Callable
# The player's line being answered, until it ends or is stopped.
var _stream: NpcBrainStream = null
var _hold_serial: int = 0


func _init(agent: NpcBrainAgent, walk_on: Callable, wake_in: Callable) -> void:
	_agent = agent
	_walk_on = walk_on
	_wake_in = wake_in


## NpcBrainAgent.talk: the NPC's line, or null when the call failed or was stopped. The hold
## ends `hold_s` real seconds after the line without a new one (negative: `talk_hold_s`).
func talk(text: String, speaker_name: String, speaker: Node, hold_s: float) -> NpcBrainLine:
	cancel()
	_hold(speaker)
	var stream := NpcBrainClient.get_instance().open_stream("TalkStream", {
		"npcId": _agent.npc_id, "speakerName": speaker_name, "text": text,
		"gameTime": NpcBrainGameClock.get_instance().now_rfc3339()})
	_stream = stream
	stream.message_received.connect(_on_message)
	var reply: NpcBrainReply = await stream.finished
	if _stream == stream:
		_stream = null
	if reply.code == "canceled":
		return null
	_hold_serial += 1
	var serial := _hold_serial
	_wake_in.call(hold_s if hold_s >= 0.0 else _agent.talk_hold_s, func() -> void:
		if held and _hold_serial == serial:
			end_hold())
	if not reply.ok:
		_agent.failed.emit(NpcBrainError.from_reply("TalkStream", reply, _agent.npc_id))
		return null
	var whole: Dictionary = reply.data.get("line", {})
	var line := NpcBrainLine.new(_agent.npc_id, _agent.persona.display_name,
			str(whole.get("reply", "")))
	line.ends_conversation = bool(whole.get("endConversation", false))
	_agent.spoke.emit(line)
	if line.ends_conversation:
		_agent.talk_ended.emit(speaker_name)
		end_hold()
	return line


## The NPC walks on (its goodbye, `stop_talking`, `talk_hold_s` after its latest line).
func end_hold() -> void:
	if not held:
		return
	held = false
	NpcBrainLog.record("talk_released", {"npc": _agent.npc_id, "moving": _agent.is_moving()})
	_agent.talk_released.emit()
	_walk_on.call()


## Stops the line under way, if any (`talk` returns null for it).
func cancel() -> void:
	if _stream != null:
		var stream := _stream
		_stream = null
		stream.cancel()


## NpcBrainAgent.take_back: stops the line under way, then withdraws `speaker_name`'s last line
## and the NPC's answer (TakeBack); the line taken back, or "" when the call failed.
func take_back(speaker_name: String) -> String:
	cancel()
	var reply := await NpcBrainClient.get_instance().call_rpc("TakeBack", {
		"npcId": _agent.npc_id, "speakerName": speaker_name},
		_agent.npc_id + NpcBrainClient.PLAYER_LANE_SUFFIX)
	if not reply.ok:
		_agent.failed.emit(NpcBrainError.from_reply("TakeBack", reply, _agent.npc_id))
		return ""
	return str(reply.data.get("text", ""))


## Whether the NPC is answering the player now.
func is_talking() -> bool:
	return _stream != null


func _hold(speaker: Node) -> void:
	_hold_serial += 1  # no release while a line is under way
	if not held:
		held = true
		NpcBrainLog.record("talk_held", {"npc": _agent.npc_id, "moving": _agent.is_moving()})
		_agent.talk_held.emit(speaker)


func _on_message(message: Dictionary) -> void:
	if message.has("text"):
		_agent.line_progress.emit(str(message["text"]))
