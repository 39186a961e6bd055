class_name NpcMind
extends Node
## Connects its parent Npc to the brain: spawns it (SpawnNpc), then asks Decide whenever it has
## no action or the game time the brain named is up (checked each game minute), walks it to the
## address of the answer, shows the action and dialogue, and applies object state changes.
##
## The brain answers at once with what the NPC has and thinks in the background: it names when
## to ask again (`askAgainAt`: the action's end, or sooner while it is thinking). While it thinks
## (a provisional action, or `thinking`), the NPC shows it, walks to the provisional address, and
## asks again at that time even on its way; otherwise it finishes its walk first.

## Emitted with the Action message (proto3 JSON) of each decision.
signal decided(action: Dictionary)

## Real seconds to wait after a failed call before trying again; doubles with each failure
## in a row (with jitter) up to `max_retry_delay_s`. The NPC keeps its last action meanwhile.
@export var retry_delay_s: float = 1.0
@export var max_retry_delay_s: float = 8.0
## Real seconds at least between two Decide calls while thinking, whatever `askAgainAt` says.
@export var min_thinking_interval_s: float = 0.5

## The latest decision: its Action message and trace id (for the inspector).
var last_action: Dictionary = {}
var last_trace_id: String = ""
## Whether the brain is still thinking about this NPC's action (see `Decision.is_tentative`).
var thinking: bool = false

var _npc: Npc
var _spawned: bool = false
var _busy: bool = false
## Game time (Unix seconds) to ask Decide again; -1 without an action.
var _ask_at: int = -1
## No call before this real time (backoff after failures, pacing while thinking).
var _retry_at_msec: int = 0
var _failures: int = 0


## Starts the NPC's life: call once the world is registered with the brain.
func start() -> void:
	_npc = get_parent() as Npc
	_npc.arrived.connect(_on_npc_arrived)
	GameClock.minute_passed.connect(_on_minute_passed)
	_tick()


func _on_minute_passed(_unix_time: int) -> void:
	_tick()


func _on_npc_arrived(address: String, tile: Vector2i) -> void:
	EventLog.record("arrived", {
		"npc": _npc.npc_id, "address": address, "tile": [tile.x, tile.y],
		"at": _npc.town.address_at(tile), "game_time": GameClock.now_rfc3339(),
	})


func _tick() -> void:
	if _busy or Time.get_ticks_msec() < _retry_at_msec:
		return
	if not _spawned:
		_spawn()
	elif GameClock.now() >= _ask_at and (thinking or not _npc.is_walking()):
		_decide()


func _spawn() -> void:
	_busy = true
	var reply := await BrainClient.call_rpc("SpawnNpc", _spawn_request(), _npc.npc_id)
	_busy = false
	if not reply.ok:
		_back_off()
		return
	_failures = 0
	_spawned = true
	EventLog.record("npc_spawned", {
		"npc": _npc.npc_id, "address": _npc.get_address(), "tile": [_npc.tile.x, _npc.tile.y],
	})
	_tick()


func _decide() -> void:
	_busy = true
	var request := {
		"npcId": _npc.npc_id,
		"gameTime": GameClock.now_rfc3339(),
		"address": _npc.get_address(),
		"tile": {"x": _npc.tile.x, "y": _npc.tile.y},
		"perceptions": _perceive(),
	}
	var reply := await BrainClient.call_rpc("Decide", request, _npc.npc_id)
	_busy = false
	if not reply.ok:
		if reply.code == "not_found":  # the brain lost this NPC (or the world): spawn again
			_spawned = false
		_back_off()
		return
	_failures = 0
	_apply(Decision.from_response(reply.data), reply.elapsed_ms)


func _back_off() -> void:
	_failures += 1
	var delay := minf(retry_delay_s * pow(2.0, _failures - 1), max_retry_delay_s)
	_retry_at_msec = Time.get_ticks_msec() + int(delay * randf_range(800.0, 1200.0))


func _apply(decision: Decision, elapsed_ms: int) -> void:
	var action := decision.action
	last_action = action
	last_trace_id = decision.trace_id
	thinking = decision.is_tentative()
	var town := _npc.town
	var address := town.full_address(decision.address)
	var now := GameClock.now()
	_ask_at = decision.next_ask(now)
	if thinking:
		_retry_at_msec = Time.get_ticks_msec() + int(min_thinking_interval_s * 1000.0)
	_npc.show_action(decision.emoji, decision.description, thinking)
	for change: Dictionary in action.get("objectStates", []):
		var object_address := town.full_address(str(change.get("address", "")))
		if town.set_object_state(object_address, str(change.get("state", ""))):
			EventLog.record("object_state", {
				"address": object_address, "state": str(change.get("state", "")),
			})
	for line: Dictionary in action.get("dialogue", []):
		_speaker(str(line.get("speakerNpcId", ""))).say(str(line.get("text", "")))
		EventLog.record("dialogue", {
			"npc": _npc.npc_id, "speaker": str(line.get("speakerName", "")),
			"text": str(line.get("text", "")),
		})
	EventLog.record("decision", {
		"npc": _npc.npc_id, "address": address, "trace": decision.trace_id,
		"description": decision.description, "emoji": decision.emoji, "source": decision.source,
		"duration_minutes": decision.duration_minutes, "game_time": GameTime.to_rfc3339(now),
		"latency_ms": elapsed_ms, "thinking": thinking, "shown": _npc.get_action_text(),
		"ask_again_at": GameTime.to_rfc3339(_ask_at),
	})
	decided.emit(action)
	if _npc.target_address == address:
		return  # already there or on its way (asked again while thinking): no pacing about the room
	var from := _npc.tile
	if not _npc.go_to(address):
		EventLog.record("unreachable", {
			"npc": _npc.npc_id, "address": address, "tile": [from.x, from.y],
		})
	elif _npc.is_walking():
		var to := _npc.get_destination()
		EventLog.record("walking", {
			"npc": _npc.npc_id, "address": address, "from": [from.x, from.y], "to": [to.x, to.y],
			"game_time": GameTime.to_rfc3339(now),
		})


# The NPC who says a line (the bubble goes over their head), this one if unknown.
func _speaker(npc_id: String) -> Npc:
	for node in get_tree().get_nodes_in_group("npcs"):
		if node is Npc and (node as Npc).npc_id == npc_id:
			return node
	return _npc


func _spawn_request() -> Dictionary:
	var town := _npc.town
	var known: Array[String] = []
	for area in _npc.known_areas:
		known.append(town.full_address(area))
	if known.is_empty():
		for arena in town.get_arenas():
			known.append(town.arena_address(arena))
	return {
		"worldName": town.world_name,
		"npcId": _npc.npc_id,
		"persona": {
			"name": _npc.display_name,
			"age": _npc.age,
			"traits": Array(_npc.traits),
			"identity": _npc.identity,
			"lifestyle": _npc.lifestyle,
			"currently": _npc.currently,
			"home": town.full_address(_npc.home),
			"knownAreas": known,
		},
		"address": _npc.get_address(),
		"tile": {"x": _npc.tile.x, "y": _npc.tile.y},
		"perception": {
			"visionRadius": _npc.vision_radius,
			"attentionBandwidth": _npc.attention_bandwidth,
			"retention": _npc.retention,
		},
	}


# What the NPC sees: other NPCs and objects in use, within _npc.vision_radius and in its arena.
func _perceive() -> Array[Dictionary]:
	var events: Array[Dictionary] = []
	var here := _npc.get_address()
	for node in get_tree().get_nodes_in_group("npcs"):
		var other := node as Npc
		if other == null or other == _npc or other.get_address() != here:
			continue
		var distance := Vector2(other.tile).distance_to(_npc.tile)
		if distance <= _npc.vision_radius:
			events.append(_event(other.display_name, other.activity, here, distance))
	for node in get_tree().get_nodes_in_group("player"):
		var player := node as Player
		if player == null or player.get_address() != here:
			continue
		var distance := Vector2(player.tile).distance_to(_npc.tile)
		if distance <= _npc.vision_radius:
			events.append(_event(player.display_name, player.activity, here, distance))
	for item in _npc.town.objects_near(_npc.tile, _npc.vision_radius):
		var address := _npc.town.object_address(item)
		if item.state == "" or not address.begins_with(here + ":"):
			continue
		var distance := INF
		for tile in item.get_tiles():
			distance = minf(distance, Vector2(tile).distance_to(_npc.tile))
		events.append(_event(item.get_object_name(), item.state, address, distance))
	return events


func _event(subject: String, doing: String, address: String, distance: float) -> Dictionary:
	return {
		"subject": subject, "predicate": "is", "object": doing,
		"description": "%s is %s" % [subject, doing], "address": address, "distance": distance,
	}
