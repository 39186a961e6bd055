@tool
@icon("res://addons/npc_brain/icons/object.svg")
class_name NpcBrainObject
extends NpcBrainWorldPart
## Something NPCs use (a bed, a stove, the cafe counter): the leaf of the spatial tree.
## It covers `size` tiles from `tile` inside its NpcBrainArena; NPCs walk onto it to use it.
## Type `tile` in, or point `marker` at a Marker2D (or any Node2D) and drag that; in an
## NpcBrainWorld3D, `marker_3d` at a Marker3D (or any Node3D): its x and z, on its floor.

## The object's name in addresses ("world:sector:arena:object"); the node name if empty.
@export var object_name: String = "":
	set(value):
		object_name = value
		notify_changed()
## Top-left tile, in tile coordinates of the NpcBrainWorld grid.
@export var tile: Vector2i = Vector2i.ZERO:
	set(value):
		tile = value
		notify_changed()
@export var size: Vector2i = Vector2i.ONE:
	set(value):
		size = value.max(Vector2i.ONE)
		notify_changed()
## The object's state in natural language ("brewing coffee"); empty means idle. The brain
## changes it through Decide's object_states.
@export var state: String = "":
	set(value):
		state = value
		notify_state_changed()
@export var color: Color = Color(0.55, 0.38, 0.24):
	set(value):
		color = value
		notify_changed()
## A Node2D (a Marker2D, your prop's sprite) whose position sets `tile`: drag it in the viewport.
@export var marker: Node2D:
	set(value):
		marker = value
		sync_marker()
		_follow_marker()
## In an NpcBrainWorld3D: a Node3D (a Marker3D, your prop) whose position sets `tile`.
@export var marker_3d: Node3D:
	set(value):
		marker_3d = value
		sync_marker()
		_follow_marker()


func _ready() -> void:
	sync_marker()
	_follow_marker()


# In the editor, follow the marker while it is dragged (nothing tells a node another moved), from
# the moment it is assigned.
func _follow_marker() -> void:
	set_process(Engine.is_editor_hint() and (marker != null or marker_3d != null))


func _process(_delta: float) -> void:
	sync_marker()


## Sets `tile` from `marker` or `marker_3d` (the tile under it), when it has one.
func sync_marker() -> void:
	var world := get_world()
	if marker_3d != null and world != null and world.space != null and marker_3d.is_inside_tree():
		var under_3d := world.space.position_to_tile(marker_3d.global_position)
		if under_3d != tile:
			tile = under_3d
		return
	if marker == null or world == null or not marker.is_inside_tree():
		return
	var under := world.grid.global_to_tile(marker.global_position)
	if under != tile:
		tile = under


## The name used in addresses.
func get_object_name() -> String:
	return object_name if object_name != "" else String(name)


## The NpcBrainArena this object belongs to, or null.
func get_arena() -> NpcBrainArena:
	return get_parent() as NpcBrainArena


## The tiles the object covers.
func get_tiles() -> Array[Vector2i]:
	var tiles: Array[Vector2i] = []
	for y in range(tile.y, tile.y + size.y):
		for x in range(tile.x, tile.x + size.x):
			tiles.append(Vector2i(x, y))
	return tiles


## The covered tiles as a rectangle.
func get_rect() -> Rect2i:
	return Rect2i(tile, size)


## The name used in addresses.
func get_part_name() -> String:
	return get_object_name()


func _get_configuration_warnings() -> PackedStringArray:
	return get_name_warnings() + get_structure_warnings()


## What is wrong with this part itself (names aside).
func get_structure_warnings() -> PackedStringArray:
	var warnings := PackedStringArray()
	var arena := get_arena()
	if arena == null:
		warnings.append("A NpcBrainObject must be a child of an NpcBrainArena.")
	elif not get_tiles().all(arena.is_floor):
		warnings.append("The object %s is outside its arena's floor %s." % [get_rect(), arena.rect])
	return warnings
