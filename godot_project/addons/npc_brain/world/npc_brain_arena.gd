@tool
@icon("res://addons/npc_brain/icons/arena.svg")
class_name NpcBrainArena
extends NpcBrainWorldPart
## A room or an area of an NpcBrainSector (kitchen, bedroom, cafe, park): a rectangle of floor
## tiles, with door tiles (gaps) in its walls when `walled`. Holds NpcBrainObjects.
## Type its `rect` in, or point `bounds` at a rectangle CollisionShape2D and drag that shape's
## handles in the 2D viewport. With a `floor_layer`, the floor is the cells painted on that
## TileMapLayer inside `rect` (with the `floor_tile` atlas tile, if set): any room shape.
## In an NpcBrainWorld3D, point `bounds_3d` at your room's box (an Area3D's CollisionShape3D):
## its x and z give the tiles, its height the floor.

## The arena's name in addresses ("world:sector:arena"); the node name if empty.
@export var arena_name: String = "":
	set(value):
		arena_name = value
		notify_changed()
## Floor tiles, in tile coordinates of the NpcBrainWorld grid. Walls run around it, one tile thick.
@export var rect: Rect2i = Rect2i(0, 0, 4, 4):
	set(value):
		rect = value
		notify_changed()
## Whether the addon adds a ring of walls around the floor (for maps without their own walls:
## a map with a `solid_layer` or colliders has them already).
@export var walled: bool = false:
	set(value):
		walled = value
		notify_changed()
## Wall tiles left open. A door between two arenas may be listed by either.
@export var doors: Array[Vector2i] = []:
	set(value):
		doors = value
		notify_changed()
@export var floor_color: Color = Color(0.76, 0.66, 0.5):
	set(value):
		floor_color = value
		notify_changed()
## A TileMapLayer (cells the size of the world's tiles) whose painted cells inside `rect` are
## the floor; empty: every tile of `rect`.
@export var floor_layer: TileMapLayer:
	set(value):
		if floor_layer != null and floor_layer.changed.is_connected(notify_changed):
			floor_layer.changed.disconnect(notify_changed)
		floor_layer = value
		if floor_layer != null:
			floor_layer.changed.connect(notify_changed)
		notify_changed()
## Only cells with this atlas tile are floor (-1, -1: any painted cell).
@export var floor_tile: Vector2i = Vector2i(-1, -1):
	set(value):
		floor_tile = value
		notify_changed()
## A CollisionShape2D with a RectangleShape2D (say of the Area2D your game already has for this
## room) that sets `rect`, snapped to the world's tiles: resize it with its handles.
@export var bounds: CollisionShape2D:
	set(value):
		bounds = value
		sync_bounds()
		_follow_bounds()
## In an NpcBrainWorld3D: a CollisionShape3D with a BoxShape3D (your room's Area3D's) that sets
## `rect`: the cells under it, on the floor of its center.
@export var bounds_3d: CollisionShape3D:
	set(value):
		bounds_3d = value
		sync_bounds()
		_follow_bounds()


func _ready() -> void:
	sync_bounds()
	_follow_bounds()


# In the editor, follow the shape while it is dragged (nothing tells a node another moved), from
# the moment it is assigned.
func _follow_bounds() -> void:
	set_process(Engine.is_editor_hint() and (bounds != null or bounds_3d != null))


func _process(_delta: float) -> void:
	sync_bounds()


## Sets `rect` from `bounds` (the tiles its rectangle covers) or `bounds_3d`, when it has one.
func sync_bounds() -> void:
	var world := get_world()
	if bounds_3d != null and world != null and world.space != null:
		var boxed := world.space.box_to_rect(bounds_3d)
		if boxed.has_area() and boxed != rect:
			rect = boxed
		return
	if bounds == null or world == null or not bounds.is_inside_tree():
		return
	var shape := bounds.shape as RectangleShape2D
	if shape == null:
		return
	var half := shape.size * 0.5
	var to_grid := (world.grid.get_transform().affine_inverse()
			* world.global_transform.affine_inverse())
	var a := to_grid * (bounds.global_transform * -half) / world.tile_size
	var b := to_grid * (bounds.global_transform * half) / world.tile_size
	var from := Vector2i(a.min(b).round())
	var fitted := Rect2i(from, (Vector2i(a.max(b).round()) - from).max(Vector2i.ONE))
	if fitted != rect:
		rect = fitted


## The name used in addresses.
func get_arena_name() -> String:
	return arena_name if arena_name != "" else String(name)


## The NpcBrainSector this arena belongs to, or null.
func get_sector() -> NpcBrainSector:
	return get_parent() as NpcBrainSector


## The arena's NpcBrainObject children.
func get_objects() -> Array[NpcBrainObject]:
	var objects: Array[NpcBrainObject] = []
	for child in get_children():
		if child is NpcBrainObject:
			objects.append(child)
	return objects


## All floor tiles, row by row.
func get_floor_tiles() -> Array[Vector2i]:
	var tiles: Array[Vector2i] = []
	for y in range(rect.position.y, rect.end.y):
		for x in range(rect.position.x, rect.end.x):
			if floor_layer == null or is_floor(Vector2i(x, y)):
				tiles.append(Vector2i(x, y))
	return tiles


## Whether `tile` is floor of this arena.
func is_floor(tile: Vector2i) -> bool:
	if not rect.has_point(tile):
		return false
	if floor_layer == null:
		return true
	var world := get_world()
	var cell := world.grid.tile_to_layer_cell(floor_layer, tile) if world != null else tile
	if floor_layer.get_cell_source_id(cell) == -1:
		return false
	return floor_tile.x < 0 or floor_layer.get_cell_atlas_coords(cell) == floor_tile


## The ring of tiles just outside the floor, where walls (and doors) are; empty if not walled.
func get_wall_ring() -> Array[Vector2i]:
	var ring: Array[Vector2i] = []
	if not walled:
		return ring
	var grown := rect.grow(1)
	for y in range(grown.position.y, grown.end.y):
		for x in range(grown.position.x, grown.end.x):
			var tile := Vector2i(x, y)
			if not rect.has_point(tile):
				ring.append(tile)
	return ring


## The name used in addresses.
func get_part_name() -> String:
	return get_arena_name()


func _get_configuration_warnings() -> PackedStringArray:
	var warnings := get_name_warnings() + get_structure_warnings()
	var world := get_world()
	if world != null and world.grid.outside_grid("The arena", rect) != "":
		warnings.append(world.grid.outside_grid("The arena", rect))
	return warnings


## What is wrong with this part itself (names aside).
func get_structure_warnings() -> PackedStringArray:
	var warnings := PackedStringArray()
	if not get_parent() is NpcBrainSector:
		warnings.append("An NpcBrainArena must be a child of a NpcBrainSector.")
	if bounds != null and not bounds.shape is RectangleShape2D:
		warnings.append("`bounds` needs a RectangleShape2D.")
	if bounds_3d != null and not bounds_3d.shape is BoxShape3D:
		warnings.append("`bounds_3d` needs a BoxShape3D.")
	if rect.size.x <= 0 or rect.size.y <= 0:
		warnings.append("The arena's rect is empty.")
	var ring := get_wall_ring()
	for door in doors:
		if walled and not ring.has(door):
			warnings.append("Door %s is not on this arena's wall ring %s." % [door, rect.grow(1)])
	var world := get_world()
	if world != null and world.grid.layer_problem(floor_layer) != "":
		warnings.append(world.grid.layer_problem(floor_layer))
	return warnings
