extends Node2D
## Boots the Ville (the addon's demo): spawns the residents of `residents_dir` (one JSON persona
## per file) next to the NPCs placed in the scene. The addon does the rest: the NpcBrainWorld
## (`Town`) registers itself with the brain and starts the clock, each NPC's NpcBrainAgent
## spawns it and asks Decide, and the VilleNpc bodies walk where the agents send them.
##
## The camera frames the whole town (every NPC in view: the brain thinks about all of them in
## full detail), or follows the player, zoomed in (`F`, or `?follow-player` on the page): then
## only the NPCs around the player are in view and the brain thinks coarser about the others
## (NpcBrainAgent.attention_mode); each NPC that comes into view asks Decide again at once.

const NPC_SCENE := preload("res://npc/npc.tscn")
## Launch flag (`?export-town` on the page) that prints the town's layout and stops there.
const EXPORT_TOWN_FLAG := "export-town"
## Launch flag (`?follow-player` on the page) that starts with the camera following the player.
const FOLLOW_PLAYER_FLAG := "follow-player"
## The follow camera's zoom: about 27 x 18 tiles of the town's 104 x 62 in a 960x640 window.
const FOLLOW_ZOOM := 1.5

## Folder of resident personas (*.json); each becomes an NPC unless one with its id is placed.
@export_dir var residents_dir: String = "res://data/residents"

## Real seconds between `stats` console events (frame rate, walking NPCs).
@export var stats_interval_s: float = 5.0

var _follow_player: bool = false

@onready var _town: NpcBrainWorld = $Town
@onready var _npcs: Node2D = $Npcs
@onready var _camera: Camera2D = $Camera
@onready var _player: VillePlayer = $Player


func _ready() -> void:
	NpcBrainLog.record("boot", {
		"engine": Engine.get_version_info().string, "web": OS.has_feature("web"),
		"msec": Time.get_ticks_msec(), "game_time": NpcBrainClock.now_rfc3339(),
	})
	if NpcBrainLaunchArgs.has_flag(EXPORT_TOWN_FLAG):
		_town.register_on_ready = false
		NpcBrainLog.record("town_export", NpcBrainLayout.of(_town))
		return
	_spawn_residents()
	for npc in _get_npcs():
		npc.setup(_town)
	_player.setup(_town)
	_follow_player = NpcBrainLaunchArgs.has_flag(FOLLOW_PLAYER_FLAG)
	_frame_town()
	get_viewport().size_changed.connect(_frame_town)
	var stats_timer := Timer.new()
	stats_timer.wait_time = stats_interval_s
	stats_timer.timeout.connect(_record_stats)
	add_child(stats_timer)
	stats_timer.start()


## The NPCs of the town (placed in the scene or spawned from the residents' files).
func get_npcs() -> Array[VilleNpc]:
	return _get_npcs()


func _spawn_residents() -> void:
	if not DirAccess.dir_exists_absolute(residents_dir):
		return
	var placed: Dictionary[String, bool] = {}
	for npc in _get_npcs():
		placed[npc.agent.npc_id] = true
		placed[npc.get_display_name()] = true
	var files := Array(DirAccess.get_files_at(residents_dir))
	files.sort()
	var taken: Array[Vector2i] = []
	var rng := RandomNumberGenerator.new()
	rng.seed = 7
	for file: String in files:
		if not file.ends_with(".json"):
			continue
		var persona: Variant = JSON.parse_string(
				FileAccess.get_file_as_string(residents_dir.path_join(file)))
		if not persona is Dictionary:
			push_warning("%s is not a JSON object" % residents_dir.path_join(file))
			continue
		var npc: VilleNpc = NPC_SCENE.instantiate()
		npc.apply_persona(persona, file.get_basename())
		var agent: NpcBrainAgent = npc.get_node("Agent")
		if placed.has(agent.npc_id) or placed.has(agent.persona.display_name):
			npc.free()
			continue
		npc.name = agent.npc_id.to_pascal_case().validate_node_name()
		var start := _town.places.resolve_target(agent.persona.home, NpcBrainWorld.NO_TILE, taken, rng)
		if start == NpcBrainWorld.NO_TILE:
			start = _town.grid.local_to_tile(_town.grid.get_rect_px().get_center())
		taken.append(start)
		npc.position = _npcs.to_local(_town.to_global(_town.grid.tile_center(start)))
		_npcs.add_child(npc)


func _process(_delta: float) -> void:
	if _follow_player:
		_camera.position = _player.global_position


func _unhandled_input(event: InputEvent) -> void:
	var key := event as InputEventKey
	if key != null and key.pressed and not key.echo and key.keycode == KEY_F:
		_follow_player = not _follow_player
		_frame_town()


## Screen position of a point of the town (for tools and tests that click on things).
func to_screen(world_point: Vector2) -> Vector2:
	return get_viewport().get_canvas_transform() * world_point


func _frame_town() -> void:
	var area := _town.grid.get_rect_px()
	var town_rect := Rect2i(Rect2(_town.to_global(area.position), area.size))
	if _follow_player:
		_camera.zoom = Vector2(FOLLOW_ZOOM, FOLLOW_ZOOM)
		_camera.position = _player.global_position
		_set_camera_limits(town_rect.grow_side(SIDE_BOTTOM, int(NpcBrainHud.BAR_HEIGHT)))
		NpcBrainLog.record("view", {"zoom": FOLLOW_ZOOM, "following": "player"})
		return
	_set_camera_limits(Rect2i(-10000000, -10000000, 20000000, 20000000))
	var view := get_viewport_rect().size - Vector2(0, NpcBrainHud.BAR_HEIGHT)
	var zoom := minf(view.x / area.size.x, view.y / area.size.y)
	_camera.zoom = Vector2(zoom, zoom)
	_camera.position = (_town.to_global(area.get_center())
			+ Vector2(0, NpcBrainHud.BAR_HEIGHT * 0.5 / zoom))
	var origin := get_viewport_rect().size * 0.5 - _camera.position * zoom
	NpcBrainLog.record("view", {"zoom": zoom, "origin": [origin.x, origin.y],
			"tile_size": _town.tile_size})


# Keeps the follow camera over the town (none of the void beyond its edges).
func _set_camera_limits(limits: Rect2i) -> void:
	_camera.limit_left = limits.position.x
	_camera.limit_top = limits.position.y
	_camera.limit_right = limits.end.x
	_camera.limit_bottom = limits.end.y


func _record_stats() -> void:
	var npcs := _get_npcs()
	NpcBrainLog.record("stats", {
		"fps": Engine.get_frames_per_second(), "game_time": NpcBrainClock.now_rfc3339(),
		"npcs": npcs.size(),
		"walking": npcs.filter(func(n: VilleNpc) -> bool: return n.is_walking()).size(),
		"brain": NpcBrain.state_name(), "msec": Time.get_ticks_msec(),
	})


func _get_npcs() -> Array[VilleNpc]:
	var npcs: Array[VilleNpc] = []
	for child in _npcs.get_children():
		if child is VilleNpc:
			npcs.append(child)
	return npcs
