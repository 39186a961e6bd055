class_name VillePlayer
extends Node2D
## The player's character: walks the town's grid with the arrow keys or WASD (walls block it).
## NPCs within their vision radius perceive it; click an NPC and use Talk to speak to it.

@export var display_name: String = "the player"
@export var color: Color = Color(1, 1, 1)
## Tiles per real second.
@export var speed: float = 8.0

var town: NpcBrainWorld
var tile: Vector2i = Vector2i.ZERO
var activity: String = "walking around"

var _goal: Vector2 = Vector2.ZERO
var _moving: bool = false


## Places the player on the town's grid (at its current position, or the nearest walkable tile).
func setup(the_town: NpcBrainWorld) -> void:
	town = the_town
	tile = town.grid.local_to_tile(town.to_local(global_position))
	global_position = town.to_global(town.grid.tile_center(tile))
	_goal = global_position
	add_to_group("player")


## The address of the arena the player stands in ("" on open ground).
func get_address() -> String:
	return town.places.address_at(tile) if town != null else ""


func _process(delta: float) -> void:
	if town == null:
		return
	if _moving:
		global_position = global_position.move_toward(_goal, speed * town.tile_size * delta)
		_moving = not global_position.is_equal_approx(_goal)
		return
	var focus := get_viewport().gui_get_focus_owner()
	if focus is LineEdit:
		return
	var step := Vector2i.ZERO
	if Input.is_key_pressed(KEY_LEFT) or Input.is_key_pressed(KEY_A):
		step = Vector2i.LEFT
	elif Input.is_key_pressed(KEY_RIGHT) or Input.is_key_pressed(KEY_D):
		step = Vector2i.RIGHT
	elif Input.is_key_pressed(KEY_UP) or Input.is_key_pressed(KEY_W):
		step = Vector2i.UP
	elif Input.is_key_pressed(KEY_DOWN) or Input.is_key_pressed(KEY_S):
		step = Vector2i.DOWN
	if step != Vector2i.ZERO and town.grid.is_walkable(tile + step):
		tile += step
		_goal = town.to_global(town.grid.tile_center(tile))
		_moving = true


func _draw() -> void:
	var points := PackedVector2Array()
	for i in 10:
		var radius := 11.0 if i % 2 == 0 else 5.0
		points.append(Vector2.from_angle(i * TAU / 10.0 - PI / 2.0) * radius)
	draw_colored_polygon(points, color)
	points.append(points[0])
	draw_polyline(points, Color(0.1, 0.1, 0.1), 1.5)
