extends Node2D
## Boots the town: registers its spatial tree with the brain (RegisterWorld, retried until the
## brain answers), then starts the game clock and every NPC's mind.

## Real seconds between RegisterWorld attempts while the brain is unreachable.
@export var retry_delay_s: float = 3.0

@onready var _town: Town = $Town
@onready var _npcs: Node2D = $Npcs
@onready var _hud: Hud = $Hud


func _ready() -> void:
	EventLog.record("boot", {
		"engine": Engine.get_version_info().string, "web": OS.has_feature("web"),
		"msec": Time.get_ticks_msec(), "game_time": GameClock.now_rfc3339(),
	})
	for npc in _get_npcs():
		npc.setup(_town)
	_register_world()


func _register_world() -> void:
	var world := _town.to_proto()
	var reply := await BrainClient.call_rpc("RegisterWorld", {"world": world})
	if not reply.ok:
		await get_tree().create_timer(retry_delay_s).timeout
		_register_world()
		return
	var ids: Array[String] = []
	for npc in _get_npcs():
		ids.append(npc.npc_id)
	EventLog.record("world_registered", {
		"world": world, "response": reply.data, "npcs": ids, "msec": Time.get_ticks_msec(),
	})
	_hud.show_message("%s registered: %d sectors, %d arenas, %d objects" % [
		_town.world_name, int(reply.data.get("sectorCount", 0)),
		int(reply.data.get("arenaCount", 0)), int(reply.data.get("objectCount", 0)),
	])
	GameClock.running = true
	for npc in _get_npcs():
		npc.mind.start()


func _get_npcs() -> Array[Npc]:
	var npcs: Array[Npc] = []
	for child in _npcs.get_children():
		if child is Npc:
			npcs.append(child)
	return npcs
