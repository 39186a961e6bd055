class_name NpcBrainGrid
extends RefCounted
## An NpcBrainWorld's tiles (its `grid`): where a tile lies in 2D and 3D, which tile a body or a
## layer's cell is on, and the walk grid (walls, doors, paths, line of sight). The World keeps its
## settings (`map_layer`, `tile_size`, `grid_origin`, `grid_size`, `solid_layer`); this object
## answers the questions about them, so the World's own surface stays the scene's: registration,
## objects' states, validation.

## The world whose tiles these are.
var world: NpcBrainWorld
## Whether the walls and the walk grid must be rebuilt before the next question (set by the
## World's `mark_layout_changed`).
var stale: bool = true

var _astar: AStarGrid2D = AStarGrid2D.new()
var _walls: Dictionary[Vector2i, bool] = {}


func _init(of_world: NpcBrainWorld) -> void:
	world = of_world


## The grid: its first tile and its size, in tiles (the map layer's used cells, if it has one).
## Without a map layer or a `grid_origin`, grown to hold every arena and object.
func get_rect() -> Rect2i:
	if world.space != null:
		return world.space.get_tile_grid()
	var grid := Rect2i(world.grid_origin, world.grid_size)
	if world.map_layer != null or world.grid_origin != Vector2i.ZERO:
		return grid
	for arena in world.get_arenas():
		grid = grid.merge(arena.rect)
		for item in arena.get_objects():
			grid = grid.merge(item.get_rect())
	return grid


## Why `what` (covering the tiles `rect`) is not on the grid, naming the setting that fixes it;
## "" when it is. Outside the grid NPCs can neither stand nor walk: every move there fails.
func outside_grid(what: String, rect: Rect2i) -> String:
	if world.space != null:
		return world.space.outside_grid(what, rect)
	var grid := get_rect()
	if grid.encloses(rect):
		return ""
	if world.map_layer != null:
		return ("%s %s is outside the grid %s, the cells painted on map_layer %s: paint the map"
				+ " under it, or move it onto the map.") % [what, rect, grid, world.map_layer.name]
	var fits := grid.merge(rect)
	return ("%s %s is outside the grid %s: set the World's grid_origin to %s and grid_size to %s"
			+ " (or grid_origin to (0, 0), and the grid grows to hold the arenas; or map_layer to"
			+ " the TileMapLayer your map is painted on).") % [
				what, rect, grid, fits.position, fits.size]


## From grid pixels (tile t's top-left corner at t * tile_size) to the World's coordinates: the
## identity without a `map_layer`, else the layer's transform and cell offset.
func get_transform() -> Transform2D:
	var layer := world.map_layer
	if layer == null or not layer.is_inside_tree() or not world.is_inside_tree():
		return Transform2D.IDENTITY
	var corner := layer.map_to_local(Vector2i.ZERO) - Vector2(world.tile_size, world.tile_size) * 0.5
	return (world.global_transform.affine_inverse() * layer.global_transform
			* Transform2D(0.0, corner))


## The whole grid in pixels, in the World's coordinates.
func get_rect_px() -> Rect2:
	var rect := get_rect()
	return get_transform() * Rect2(Vector2(rect.position * world.tile_size),
			Vector2(rect.size * world.tile_size))


## Center of a tile, in the World's coordinates.
func tile_center(tile: Vector2i) -> Vector2:
	return get_transform() * ((Vector2(tile) + Vector2(0.5, 0.5)) * world.tile_size)


## The tile under a point given in the World's coordinates.
func local_to_tile(point: Vector2) -> Vector2i:
	return Vector2i((get_transform().affine_inverse() * point / world.tile_size).floor())


## The global position of a tile's center.
func tile_to_global(tile: Vector2i) -> Vector2:
	return world.to_global(tile_center(tile))


## The tile under a global position.
func global_to_tile(global_point: Vector2) -> Vector2i:
	return local_to_tile(world.to_local(global_point))


## The tile a body stands on: a Node2D's global position, or a Node3D's x and z (see the World's
## `tile_size_3d`; in an NpcBrainWorld3D, its floor's tile).
func node_to_tile(node: Node) -> Vector2i:
	var body_3d := node as Node3D
	if body_3d != null and world.space != null:
		return world.space.position_to_tile(body_3d.global_position)
	if body_3d != null:
		var at := body_3d.global_position / world.tile_size_3d
		return Vector2i(floori(at.x), floori(at.z))
	return global_to_tile((node as Node2D).global_position)


## The 3D position of a tile's center, at `height`.
## In an NpcBrainWorld3D, on the tile's floor, as high above it as `height` is above its own.
func tile_to_position_3d(tile: Vector2i, height: float = 0.0) -> Vector3:
	if world.space != null:
		return world.space.tile_to_position(tile, height)
	var size := world.tile_size_3d
	return Vector3((tile.x + 0.5) * size, height, (tile.y + 0.5) * size)


## The world tile a cell of `layer` lies on (its center's tile).
func layer_cell_to_tile(layer: TileMapLayer, cell: Vector2i) -> Vector2i:
	if layer == world.map_layer:
		return cell
	return global_to_tile(layer.to_global(layer.map_to_local(cell)))


## The cell of `layer` under a world tile's center.
func tile_to_layer_cell(layer: TileMapLayer, tile: Vector2i) -> Vector2i:
	if layer == world.map_layer:
		return tile
	return layer.local_to_map(layer.to_local(tile_to_global(tile)))


## Why the cells of `layer` cannot match the world's tiles one to one ("" when they can): a
## shape other than square, another size once scaled, or cells shifted by a part of a tile.
func layer_problem(layer: TileMapLayer) -> String:
	if layer == null or layer.tile_set == null:
		return ""
	if layer.tile_set.tile_shape != TileSet.TILE_SHAPE_SQUARE:
		return "%s has no square tiles: the world's tiles are squares." % layer.name
	if not (layer.is_inside_tree() and world.is_inside_tree()):
		return ""
	var origin := world.to_global(tile_center(Vector2i.ZERO))
	var right := world.to_global(tile_center(Vector2i.RIGHT)) - origin
	var down := world.to_global(tile_center(Vector2i.DOWN)) - origin
	var cell := Vector2(layer.tile_set.tile_size)
	var their_right := layer.global_transform.basis_xform(Vector2(cell.x, 0.0))
	var their_down := layer.global_transform.basis_xform(Vector2(0.0, cell.y))
	if not (their_right.is_equal_approx(right) and their_down.is_equal_approx(down)):
		return "%s's cells are %s px, the world's tiles %s px: they cannot match." % [
			layer.name, (their_right + their_down).abs(), (right + down).abs()]
	var center := layer.to_global(layer.map_to_local(Vector2i.ZERO))
	var snapped := world.to_global(tile_center(global_to_tile(center)))
	if not center.is_equal_approx(snapped):
		return "%s's cells are shifted from the world's tiles by %s px: align them." % [
			layer.name, center - snapped]
	return ""


## Whether an NPC can stand on the tile (inside the grid, not a wall).
func is_walkable(tile: Vector2i) -> bool:
	_ensure_built()
	return _astar.is_in_boundsv(tile) and not _astar.is_point_solid(tile)


## Tiles from `from` to `to` (both included) around walls; empty when there is no way.
func find_path(from: Vector2i, to: Vector2i) -> Array[Vector2i]:
	var path: Array[Vector2i] = []
	if not (is_walkable(from) and is_walkable(to)):
		return path
	path.assign(_astar.get_id_path(from, to))
	return path


## Global points (tile centers) from the tile under `from` to the tile under `to` (global
## positions), around walls; empty when there is no way.
func find_path_points(from: Vector2, to: Vector2) -> PackedVector2Array:
	var points := PackedVector2Array()
	for tile in find_path(global_to_tile(from), global_to_tile(to)):
		points.append(tile_to_global(tile))
	return points


## The wall tiles (doors excluded), as a set.
func get_wall_tiles() -> Dictionary[Vector2i, bool]:
	_ensure_built()
	return _walls


## Whether nothing blocks the sight from tile `from` to tile `to`: no wall (doors are open) on
## the tiles a straight line between their centers crosses.
func has_line_of_sight(from: Vector2i, to: Vector2i) -> bool:
	_ensure_built()
	if _walls.is_empty():
		return true
	var steps := maxi(absi(to.x - from.x), absi(to.y - from.y)) * 2
	for i in range(1, steps):
		var tile := Vector2i((Vector2(from).lerp(Vector2(to), float(i) / steps)
				+ Vector2(0.5, 0.5)).floor())
		if tile != from and tile != to and _walls.has(tile):
			return false
	return true


# Walls: the walled arenas' rings less every arena's floor, the solid layer's cells, less the
# doors, and an NpcBrainWorld3D's rows between floors; then the walk grid over them.
func _ensure_built() -> void:
	if not stale:
		return
	stale = false
	_walls.clear()
	var floors: Dictionary[Vector2i, bool] = {}
	var doors: Dictionary[Vector2i, bool] = {}
	for arena in world.get_arenas():
		for tile in arena.get_floor_tiles():
			floors[tile] = true
		for tile in arena.get_wall_ring():
			_walls[tile] = true
		for door in arena.doors:
			doors[door] = true
	for tile in floors.keys():
		_walls.erase(tile)
	if world.solid_layer != null:
		for cell in world.solid_layer.get_used_cells():
			_walls[layer_cell_to_tile(world.solid_layer, cell)] = true
	for tile in doors.keys():
		_walls.erase(tile)
	if world.space != null:
		for tile in world.space.get_floor_walls():
			_walls[tile] = true
	_astar.region = get_rect()
	_astar.cell_size = Vector2(world.tile_size, world.tile_size)
	_astar.diagonal_mode = AStarGrid2D.DIAGONAL_MODE_NEVER
	_astar.update()
	for tile in _walls:
		if _astar.is_in_boundsv(tile):
			_astar.set_point_solid(tile)
