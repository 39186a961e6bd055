@tool
class_name Town
extends Node2D
## The town: a grid of tiles holding Sectors > Arenas > GameObjects (its child nodes), drawn
## with primitives. Builds an AStarGrid2D over the grid (walls solid, doors open) and answers
## the spatial questions NPCs ask: where is this address, what is at this tile, how to get there.
##
## Addresses: "world:sector:arena" or "world:sector:arena:object", names as in the nodes' fields.

## Emitted (deferred, once per batch of edits) after the layout or an object's state changed.
signal layout_changed

const NO_TILE := Vector2i(-1, -1)
const DIRECTIONS: Array[Vector2i] = [Vector2i.LEFT, Vector2i.RIGHT, Vector2i.UP, Vector2i.DOWN]

## The world's name, the first part of every address.
@export var world_name: String = "the_ville":
	set(value):
		world_name = value
		mark_layout_changed()
## Width and height of the grid, in tiles.
@export var grid_size: Vector2i = Vector2i(40, 25):
	set(value):
		grid_size = value.max(Vector2i.ONE)
		mark_layout_changed()
## Size of a tile, in pixels.
@export_range(8, 128) var tile_size: int = 24:
	set(value):
		tile_size = value
		mark_layout_changed()

## When running (not in the editor), draw the static town once into a texture instead of every
## frame: much faster with hundreds of labels, redrawn only when the layout or a state changes.
@export var bake_when_running: bool = true

@export_group("Colors")
@export var grass_color: Color = Color(0.42, 0.62, 0.33)
@export var wall_color: Color = Color(0.29, 0.24, 0.22)
@export var door_color: Color = Color(0.71, 0.5, 0.28)
@export var label_color: Color = Color(1, 1, 1, 0.92)

var _dirty: bool = true
var _notify_pending: bool = false
var _grid: AStarGrid2D = AStarGrid2D.new()
var _walls: Dictionary[Vector2i, bool] = {}
var _doors: Dictionary[Vector2i, bool] = {}
var _arenas_by_address: Dictionary[String, Arena] = {}
var _objects_by_address: Dictionary[String, GameObject] = {}
var _baked: SubViewport = null
var _baked_painter: Node2D = null


func _ready() -> void:
	if bake_when_running and not Engine.is_editor_hint():
		_bake()


## Marks the layout as changed: redraws, and rebuilds the walk grid when next needed.
func mark_layout_changed() -> void:
	_dirty = true
	queue_redraw()
	if _baked != null:
		_baked.size = Vector2i(grid_size * tile_size)
		_baked_painter.queue_redraw()
		_baked.render_target_update_mode = SubViewport.UPDATE_ONCE
	if not _notify_pending and is_inside_tree():
		_notify_pending = true
		_emit_layout_changed.call_deferred()


## The Sector children.
func get_sectors() -> Array[Sector]:
	var sectors: Array[Sector] = []
	for child in get_children():
		if child is Sector:
			sectors.append(child)
	return sectors


## Every Arena of every Sector.
func get_arenas() -> Array[Arena]:
	var arenas: Array[Arena] = []
	for sector in get_sectors():
		arenas.append_array(sector.get_arenas())
	return arenas


## The whole grid in pixels, in this node's coordinates.
func get_rect_px() -> Rect2:
	return Rect2(Vector2.ZERO, Vector2(grid_size * tile_size))


## Center of a tile, in this node's coordinates.
func tile_center(tile: Vector2i) -> Vector2:
	return (Vector2(tile) + Vector2(0.5, 0.5)) * tile_size


## The tile under a point given in this node's coordinates.
func local_to_tile(point: Vector2) -> Vector2i:
	return Vector2i((point / tile_size).floor())


## Whether an NPC can stand on the tile (inside the grid, not a wall).
func is_walkable(tile: Vector2i) -> bool:
	_ensure_built()
	return _grid.is_in_boundsv(tile) and not _grid.is_point_solid(tile)


## Tiles from `from` to `to` (both included) around walls; empty when there is no way.
func find_path(from: Vector2i, to: Vector2i) -> Array[Vector2i]:
	var path: Array[Vector2i] = []
	if not (is_walkable(from) and is_walkable(to)):
		return path
	path.assign(_grid.get_id_path(from, to))
	return path


## The wall tiles (doors excluded), as a set.
func get_wall_tiles() -> Dictionary[Vector2i, bool]:
	_ensure_built()
	return _walls


## "world:sector:arena" of an arena.
func arena_address(arena: Arena) -> String:
	var sector := arena.get_sector()
	var sector_name := sector.get_sector_name() if sector != null else "?"
	return ":".join([world_name, sector_name, arena.get_arena_name()])


## "world:sector:arena:object" of an object.
func object_address(game_object: GameObject) -> String:
	var arena := game_object.get_arena()
	var base := arena_address(arena) if arena != null else world_name + ":?:?"
	return base + ":" + game_object.get_object_name()


## Prefixes the world name when an address starts at the sector ("Hobbs Cafe:cafe").
func full_address(address: String) -> String:
	if address == "" or address.begins_with(world_name + ":"):
		return address
	return world_name + ":" + address


## The arena whose floor holds the tile, or null (walls, doors, open ground).
func arena_at(tile: Vector2i) -> Arena:
	for arena in get_arenas():
		if arena.rect.has_point(tile):
			return arena
	return null


## Address of the arena at the tile, or "" where there is none.
func address_at(tile: Vector2i) -> String:
	var arena := arena_at(tile)
	return arena_address(arena) if arena != null else ""


## The arena of an address (of the arena itself or of one of its objects); null if unknown.
## A "world:sector" address gives the sector's first arena.
func find_arena(address: String) -> Arena:
	_ensure_built()
	var parts := full_address(address).split(":")
	if parts.size() >= 3:
		return _arenas_by_address.get(":".join(parts.slice(0, 3)))
	if parts.size() == 2:
		for sector in get_sectors():
			if sector.get_sector_name() == parts[1] and not sector.get_arenas().is_empty():
				return sector.get_arenas()[0]
	return null


## The object of a "world:sector:arena:object" address; null if unknown or not an object's.
func find_object(address: String) -> GameObject:
	_ensure_built()
	return _objects_by_address.get(full_address(address))


## The tile an NPC at `from` should walk to for `address`: the object's free tile nearest to it
## for an object, a random free floor tile for an arena. NO_TILE if the address is unknown.
func resolve_target(
		address: String, from: Vector2i, taken: Array[Vector2i], rng: RandomNumberGenerator
) -> Vector2i:
	var game_object := find_object(address)
	if game_object != null:
		var candidates := game_object.get_tiles().filter(is_walkable)
		var free := candidates.filter(func(tile: Vector2i) -> bool: return not taken.has(tile))
		return _nearest(free if not free.is_empty() else candidates, from)
	var arena := find_arena(address)
	if arena == null:
		return NO_TILE
	var object_tiles: Dictionary[Vector2i, bool] = {}
	for item in arena.get_objects():
		for tile in item.get_tiles():
			object_tiles[tile] = true
	var floor_tiles := arena.get_floor_tiles().filter(is_walkable)
	var free := floor_tiles.filter(
			func(tile: Vector2i) -> bool: return not object_tiles.has(tile) and not taken.has(tile))
	if free.is_empty():
		free = floor_tiles
	if free.is_empty():
		return NO_TILE
	return free[rng.randi_range(0, free.size() - 1)]


## Objects with at least one tile within `radius` tiles of `tile`.
func objects_near(tile: Vector2i, radius: float) -> Array[GameObject]:
	var near: Array[GameObject] = []
	for arena in get_arenas():
		for item in arena.get_objects():
			if item.get_tiles().any(
					func(t: Vector2i) -> bool: return Vector2(t).distance_to(tile) <= radius):
				near.append(item)
	return near


## Sets an object's state by address; false if there is no such object.
func set_object_state(address: String, state: String) -> bool:
	var game_object := find_object(address)
	if game_object == null:
		return false
	game_object.state = state
	return true


## The world's spatial tree as the protocol's World message (proto3 JSON field names).
func to_proto() -> Dictionary:
	var sectors: Array[Dictionary] = []
	for sector in get_sectors():
		var arenas: Array[Dictionary] = []
		for arena in sector.get_arenas():
			var objects: Array[Dictionary] = []
			for item in arena.get_objects():
				objects.append({
					"name": item.get_object_name(),
					"tiles": _tiles_to_proto(item.get_tiles()),
					"state": item.state,
				})
			arenas.append({
				"name": arena.get_arena_name(),
				"tiles": _tiles_to_proto(arena.get_floor_tiles()),
				"objects": objects,
			})
		sectors.append({
			"name": sector.get_sector_name(),
			"arenas": arenas,
			"residents": Array(sector.residents),
		})
	return {"name": world_name, "width": grid_size.x, "height": grid_size.y, "sectors": sectors}


func _get_configuration_warnings() -> PackedStringArray:
	var warnings := PackedStringArray()
	if get_sectors().is_empty():
		warnings.append("Add Sector children (with Arenas and GameObjects) to build the town.")
	var owner_of: Dictionary[Vector2i, String] = {}
	for arena in get_arenas():
		for tile in arena.get_floor_tiles():
			if owner_of.has(tile):
				warnings.append("Arenas %s and %s overlap at %s." % [
					owner_of[tile], arena_address(arena), tile])
				return warnings
			owner_of[tile] = arena_address(arena)
	return warnings


func _draw() -> void:
	if _baked != null:
		return
	_ensure_built()
	TownPainter.new(self).paint()


func _bake() -> void:
	_baked = SubViewport.new()
	_baked.name = "BakedLayer"
	_baked.disable_3d = true
	_baked.size = Vector2i(grid_size * tile_size)
	_baked.render_target_update_mode = SubViewport.UPDATE_ONCE
	_baked_painter = Node2D.new()
	_baked_painter.draw.connect(func() -> void:
		_ensure_built()
		TownPainter.new(self, _baked_painter).paint())
	_baked.add_child(_baked_painter)
	add_child(_baked)
	var sprite := Sprite2D.new()
	sprite.name = "Baked"
	sprite.centered = false
	sprite.texture = _baked.get_texture()
	add_child(sprite)
	queue_redraw()


func _emit_layout_changed() -> void:
	_notify_pending = false
	update_configuration_warnings()
	layout_changed.emit()


func _ensure_built() -> void:
	if not _dirty:
		return
	_dirty = false
	_walls.clear()
	_doors.clear()
	_arenas_by_address.clear()
	_objects_by_address.clear()
	var floors: Dictionary[Vector2i, bool] = {}
	for arena in get_arenas():
		_arenas_by_address[arena_address(arena)] = arena
		for item in arena.get_objects():
			_objects_by_address[object_address(item)] = item
		for tile in arena.get_floor_tiles():
			floors[tile] = true
		for tile in arena.get_wall_ring():
			_walls[tile] = true
		for door in arena.doors:
			_doors[door] = true
	for tile in floors.keys() + _doors.keys():
		_walls.erase(tile)
	_grid.region = Rect2i(Vector2i.ZERO, grid_size)
	_grid.cell_size = Vector2(tile_size, tile_size)
	_grid.diagonal_mode = AStarGrid2D.DIAGONAL_MODE_NEVER
	_grid.update()
	for tile in _walls:
		if _grid.is_in_boundsv(tile):
			_grid.set_point_solid(tile)


func _nearest(tiles: Array, from: Vector2i) -> Vector2i:
	var best := NO_TILE
	var best_distance := INF
	for tile: Vector2i in tiles:
		var distance := Vector2(tile).distance_squared_to(from)
		if distance < best_distance:
			best = tile
			best_distance = distance
	return best


func _tiles_to_proto(tiles: Array[Vector2i]) -> Array[Dictionary]:
	var out: Array[Dictionary] = []
	for tile in tiles:
		out.append({"x": tile.x, "y": tile.y})
	return out
