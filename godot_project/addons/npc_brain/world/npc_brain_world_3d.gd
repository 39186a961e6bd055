@tool
@icon("res://addons/npc_brain/icons/world.svg")
class_name NpcBrainWorld3D
extends Node3D
## The world the brain knows, for a 3D game: NpcBrainSector > NpcBrainArena > NpcBrainObject
## child nodes as under an NpcBrainWorld, laid on a grid of `cell_size` m cells on the ground
## plane (x and z, from `grid_origin`) and stacked in `levels` floors of `floor_height` m. An
## arena's `bounds_3d` (the BoxShape3D of your room's Area3D) and an object's `marker_3d` (a
## Marker3D) set their tiles and floor; agents read their body's floor from its height.
##
## The brain's grid is flat: floor L is the band of rows L * (grid_size.y + 1) below floor 0,
## with a row of walls between bands, so stacked rooms are different tiles, far apart, and an NPC
## does not see through a floor. Everything else (registration, addresses, targets, sight, the
## start-time warnings) is the NpcBrainWorld's: this node keeps one, internal, as `tiles`, and
## agents find it as they find a 2D world (leave their `world` empty, or set it to `tiles`).

## A body up to this part of a floor below a floor's height still stands on that floor.
const LEVEL_SLACK := 0.05

## The world's name, the first part of every address.
@export var world_name: String = "world":
	set(value):
		world_name = value
		tiles.world_name = value
## Meters per tile, along x and z.
@export var cell_size: float = 1.0:
	set(value):
		cell_size = maxf(value, 0.01)
		tiles.tile_size_3d = cell_size
		tiles.mark_layout_changed()
## The grid's first tile along x and z (a tile's x is floor(x / cell_size)): anything outside
## the grid is warned about as the game starts.
@export var grid_origin: Vector2i = Vector2i.ZERO:
	set(value):
		grid_origin = value
		tiles.mark_layout_changed()
## The grid's size in tiles, along x and z.
@export var grid_size: Vector2i = Vector2i(40, 25):
	set(value):
		grid_size = value.max(Vector2i.ONE)
		tiles.mark_layout_changed()
## The ground floor's height, in meters.
@export var ground_height: float = 0.0:
	set(value):
		ground_height = value
		tiles.mark_layout_changed()
## Meters from one floor to the next: a point y m high is on floor
## floor((y - ground_height) / floor_height).
@export var floor_height: float = 3.0:
	set(value):
		floor_height = maxf(value, 0.01)
		tiles.mark_layout_changed()
## How many floors the grid has (the ground floor is 0).
@export_range(1, 64) var levels: int = 1:
	set(value):
		levels = maxi(value, 1)
		tiles.mark_layout_changed()
## Register with the brain when the game starts (off: call `tiles.register()` yourself).
@export var register_on_ready: bool = true:
	set(value):
		register_on_ready = value
		tiles.register_on_ready = value
## The game's verbs every NPC of this world may use (see NpcBrainVerb).
@export var verbs: Array[NpcBrainVerb] = []:
	set(value):
		verbs = value
		tiles.verbs = value

## The NpcBrainWorld that holds the tiles, registers and answers the agents (internal).
var tiles: NpcBrainWorld = NpcBrainWorld.new()


func _init() -> void:
	tiles.name = "Tiles"
	tiles.space = self
	tiles.visible = false
	tiles.layout_changed.connect(update_configuration_warnings)
	add_child(tiles, false, Node.INTERNAL_MODE_FRONT)


## The brain's grid: floors stacked along y, a wall row between two.
func get_tile_grid() -> Rect2i:
	return Rect2i(grid_origin, Vector2i(grid_size.x, levels * (grid_size.y + 1) - 1))


## The floor a height is on (may be outside 0 .. levels - 1).
func level_at(height: float) -> int:
	return floori((height - ground_height) / floor_height + LEVEL_SLACK)


## The brain's tile of a global position: its x and z cell, moved down to its floor's band.
func position_to_tile(point: Vector3) -> Vector2i:
	var cell := Vector2i(floori(point.x / cell_size), floori(point.z / cell_size))
	return cell + Vector2i(0, level_at(point.y) * (grid_size.y + 1))


## The floor of a brain tile (its band; may be outside 0 .. levels - 1).
func tile_level(tile: Vector2i) -> int:
	return floori(float(tile.y - grid_origin.y) / (grid_size.y + 1))


## A tile's center on its floor, as high above that floor as `height` is above its own (a body
## keeps its height over the floor it walks on).
func tile_to_position(tile: Vector2i, height: float = 0.0) -> Vector3:
	var level := tile_level(tile)
	var above := height - (ground_height + level_at(height) * floor_height)
	var row := tile.y - level * (grid_size.y + 1)
	return Vector3((tile.x + 0.5) * cell_size, ground_height + level * floor_height + above,
			(row + 0.5) * cell_size)


## The brain's tiles a BoxShape3D covers: its x and z, snapped to cells, on the floor of its
## center; an empty rectangle without a box.
func box_to_rect(shape: CollisionShape3D) -> Rect2i:
	var extent := _box_extent(shape)
	var cells: Rect2i = extent[0]
	return Rect2i(cells.position + Vector2i(0, extent[1] * (grid_size.y + 1)), cells.size)


## The wall rows between floors (NPCs neither stand on them nor see through them).
func get_floor_walls() -> Array[Vector2i]:
	var walls: Array[Vector2i] = []
	for level in range(1, levels):
		var y := grid_origin.y + level * (grid_size.y + 1) - 1
		for x in range(grid_origin.x, grid_origin.x + grid_size.x):
			walls.append(Vector2i(x, y))
	return walls


## Every arena, object and agent (of `agents`) outside the grid, its x and z or its floor, by
## address or npc id, naming the settings that fix it (for the world's start-time warnings and
## `validate()`). Shapes and markers are judged where they are: their cells outside the grid would
## otherwise read as another floor's.
func grid_problems(agents: Array) -> PackedStringArray:
	var problems := PackedStringArray()
	for arena in tiles.get_arenas():
		var what := "Arena " + tiles.places.arena_address(arena)
		if arena.bounds_3d != null and arena.bounds_3d.is_inside_tree():
			var extent := _box_extent(arena.bounds_3d)
			problems.append(_cells_problem("%s (its bounds %s)" % [what, arena.bounds_3d.name],
					extent[0], extent[1]))
		else:
			problems.append(outside_grid(what, arena.rect))
		for item in arena.get_objects():
			what = "Object " + tiles.places.object_address(item)
			if item.marker_3d != null and item.marker_3d.is_inside_tree():
				problems.append(_point_problem("%s (its marker %s)" % [what, item.marker_3d.name],
						item.marker_3d.global_position))
			else:
				problems.append(outside_grid(what, item.get_rect()))
	for agent: NpcBrainAgent in agents:
		var body := agent.get_parent() as Node3D
		if body != null:
			problems.append(_point_problem("NPC " + agent.npc_id, body.global_position))
	return PackedStringArray(Array(problems).filter(func(p: String) -> bool: return p != ""))


## Why `what` (covering the brain's tiles `rect`) is not on one floor of the grid, naming the
## settings that fix it; "" when it is.
func outside_grid(what: String, rect: Rect2i) -> String:
	var level := tile_level(rect.position)
	var row := rect.position.y - level * (grid_size.y + 1)
	return _cells_problem(what, Rect2i(Vector2i(rect.position.x, row), rect.size), level)


func _point_problem(what: String, point: Vector3) -> String:
	var cell := Vector2i(floori(point.x / cell_size), floori(point.z / cell_size))
	return _cells_problem("%s at %s" % [what, point], Rect2i(cell, Vector2i.ONE), level_at(point.y))


func _cells_problem(what: String, cells: Rect2i, level: int) -> String:
	if level >= 0 and level < levels and Rect2i(grid_origin, grid_size).encloses(cells):
		return ""
	return ("%s (cells %s on floor %d) is outside the grid (cells %s, floors 0 to %d, %s m"
			+ " high): set the NpcBrainWorld3D's grid_origin, grid_size, levels or floor_height"
			+ " to hold it, or move it.") % [
				what, cells, level, Rect2i(grid_origin, grid_size), levels - 1, floor_height]


# [the x and z cells a BoxShape3D covers (Rect2i), the floor of its center (int)].
func _box_extent(shape: CollisionShape3D) -> Array:
	var box := shape.shape as BoxShape3D
	if box == null or not shape.is_inside_tree():
		return [Rect2i(), 0]
	var low := Vector3.INF
	var high := -Vector3.INF
	for corner in 8:
		var local := box.size * 0.5 * Vector3(
				1 - 2 * (corner & 1), 1 - 2 * ((corner >> 1) & 1), 1 - 2 * ((corner >> 2) & 1))
		var at := shape.global_transform * local
		low = low.min(at)
		high = high.max(at)
	var from := Vector2i(roundi(low.x / cell_size), roundi(low.z / cell_size))
	var to := Vector2i(roundi(high.x / cell_size), roundi(high.z / cell_size))
	return [Rect2i(from, (to - from).max(Vector2i.ONE)), level_at((low.y + high.y) * 0.5)]


func _get_configuration_warnings() -> PackedStringArray:
	return tiles.validate()
