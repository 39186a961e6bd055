@tool  # gdlint: ignore=max-public-methods
@icon("res://addons/npc_brain/icons/world.svg")
class_name NpcBrainWorld
extends Node2D
## The world the brain knows: a grid of tiles holding NpcBrainSector > NpcBrainArena >
## NpcBrainObject child nodes (the paper's spatial tree). Registers it with the brain when the
## game starts (RegisterWorld; retried while the brain is away, reported once when the brain
## refuses it) and answers the spatial questions NPCs ask: where is this address, what is at
## this tile. `find_path` walks an AStarGrid2D over it (walls solid, doors open) for games that
## want it; navigation otherwise stays the game's.
##
## Its tiles are your map's cells: give it the TileMapLayer your map is painted on as
## `map_layer`, and it reads the tile size, the cells in use (negative ones too), the layer's
## offset and scale from it; tile (x, y) is then that layer's cell (x, y). Without a map layer,
## tiles are `tile_size` pixels from this node's origin, `grid_origin` and `grid_size` the grid.
## Other layers (`solid_layer`, an arena's `floor_layer`) are converted cell by cell through their
## positions; a layer whose cells cannot match the tiles (another size, not square, shifted by a
## part of a tile) is a configuration warning. Addresses: "world:sector:arena" or
## "world:sector:arena:object", names as in the nodes' fields.

## Emitted (deferred, once per batch of edits) after the layout or an object's state changed.
signal layout_changed
## The brain has the world (each time it is registered, again after the brain lost it).
signal registered
## The brain refused the world for good (a duplicate name, an empty sector): fix the scene.
signal registration_failed(error: NpcBrainError)

## How the world draws itself.
enum Style {
	TOWN, ## Everything, with primitives: grass, floors, walls, doors, trees, objects, names.
	OVERLAY, ## Over a tile map: areas outlined, objects and names (the tile map draws the rest).
	NONE, ## Nothing (in the editor it still outlines areas).
}

## The group every NpcBrainWorld joins (agents without a `world` take the first).
const GROUP := "npc_brain_world"
const NO_TILE := Vector2i(-1, -1)
const DIRECTIONS: Array[Vector2i] = [Vector2i.LEFT, Vector2i.RIGHT, Vector2i.UP, Vector2i.DOWN]
## `agents_near` files the agents by squares of 2^this tiles a side (8).
const AGENT_SQUARE_SHIFT := 3
## Real milliseconds the agents' filed tiles are used for (a body walks a tile or less meanwhile).
const AGENT_FILING_MSEC := 100

## The world's name, the first part of every address.
@export var world_name: String = "world":
	set(value):
		world_name = value
		mark_layout_changed()
## The TileMapLayer your map is painted on: the grid is its cells in use (its used rectangle),
## its tile size and its transform (offset, scale). Set, it overrides `tile_size`,
## `grid_origin` and `grid_size`, and follows the layer as you paint.
@export var map_layer: TileMapLayer:
	set(value):
		if map_layer != null and map_layer.changed.is_connected(_read_map_layer):
			map_layer.changed.disconnect(_read_map_layer)
		map_layer = value
		if map_layer != null:
			map_layer.changed.connect(_read_map_layer)
		_read_map_layer()
## The grid's first tile (without a `map_layer`; may be negative). Left at (0, 0), the grid
## grows to hold every arena and object, wherever they are; set, it is the grid, and whatever
## lies outside it is warned about as the game starts.
@export var grid_origin: Vector2i = Vector2i.ZERO:
	set(value):
		grid_origin = value
		mark_layout_changed()
## Width and height of the grid, in tiles (without a `map_layer`).
@export var grid_size: Vector2i = Vector2i(40, 25):
	set(value):
		grid_size = value.max(Vector2i.ONE)
		mark_layout_changed()
## Size of a tile, in pixels (without a `map_layer`).
@export_range(8, 128) var tile_size: int = 16:
	set(value):
		tile_size = value
		mark_layout_changed()
## A TileMapLayer whose painted cells are walls (besides the walled arenas' own); they also
## block NPCs' sight.
@export var solid_layer: TileMapLayer:
	set(value):
		if solid_layer != null and solid_layer.changed.is_connected(mark_layout_changed):
			solid_layer.changed.disconnect(mark_layout_changed)
		solid_layer = value
		if solid_layer != null:
			solid_layer.changed.connect(mark_layout_changed)
		mark_layout_changed()
## For 3D games: meters per tile. A Node3D at (x, y, z) stands on tile (x, z) / tile_size_3d
## (from the 3D origin), and a tile's center is at height 0 there.
@export var tile_size_3d: float = 1.0
## Register with the brain when the game starts (off: call `register()` yourself).
@export var register_on_ready: bool = true
## The game's verbs every NPC of this world may use (see NpcBrainVerb; each verb's `users`
## narrows it, and an agent adds its own `verbs`).
@export var verbs: Array[NpcBrainVerb] = []
## How it draws (NONE leaves the drawing to your map; OVERLAY outlines the areas over it;
## TOWN draws a whole town with primitives, for prototypes without a map).
@export var style: Style = Style.NONE:
	set(value):
		style = value
		mark_layout_changed()
## Validates the world (names, doors, overlaps) and writes its layout to `layout_path`.
@export_tool_button("Validate and export layout", "Save") var export_layout_button := export_layout
## Where the button writes the layout (the World message, walls): for tools and tests.
@export_file("*.json") var layout_path: String = ""

## When running (not in the editor), draw the static town once into a texture instead of every
## frame: much faster with hundreds of labels, redrawn only when the layout or a state changes.
@export var bake_when_running: bool = true

@export_group("Colors")
@export var grass_color: Color = Color(0.42, 0.62, 0.33)
@export var wall_color: Color = Color(0.29, 0.24, 0.22)
@export var door_color: Color = Color(0.71, 0.5, 0.28)
@export var label_color: Color = Color(1, 1, 1, 0.92)

## The NpcBrainWorld3D this world keeps the tiles of (set by it), or null: its sectors are that
## node's children, its grid and a 3D body's tile that node's (floors stacked, see there).
var space: NpcBrainWorld3D = null

var _dirty: bool = true
var _notify_pending: bool = false
var _grid: AStarGrid2D = AStarGrid2D.new()
var _walls: Dictionary[Vector2i, bool] = {}
var _doors: Dictionary[Vector2i, bool] = {}
var _arenas_by_address: Dictionary[String, NpcBrainArena] = {}
var _objects_by_address: Dictionary[String, NpcBrainObject] = {}
var _arena_by_tile: Dictionary[Vector2i, NpcBrainArena] = {}
var _walkable_floor: Dictionary[NpcBrainArena, Array] = {}
# The agents by where they stand, filed when asked (agents_near, taken_tiles) at most every
# AGENT_FILING_MSEC: in a town of a thousand, each Decide and each move would otherwise ask every
# body where it is.
var _filed_msec: int = -AGENT_FILING_MSEC
var _agent_tiles: Dictionary[NpcBrainAgent, Vector2i] = {}
var _agent_squares: Dictionary[Vector2i, Array] = {}
var _taken_counts: Dictionary[Vector2i, int] = {}
var _baked: SubViewport = null
var _baked_painter: Node2D = null
var _registered: bool = false
var _registered_msec: int = 0
var _registering: bool = false


func _enter_tree() -> void:
	add_to_group(GROUP)


func _ready() -> void:
	_read_map_layer()
	if Engine.is_editor_hint():
		return
	if bake_when_running and style != Style.NONE:
		_bake()
	_register_on_ready.call_deferred()


## The first NpcBrainWorld in the tree, or null.
static func find_in(tree: SceneTree) -> NpcBrainWorld:
	for node in tree.get_nodes_in_group(GROUP):
		if node is NpcBrainWorld:
			return node
	return null


## Whether the brain has the world now.
func is_registered() -> bool:
	return _registered


## When the brain accepted the world (`Time.get_ticks_msec()`): the agents' first calls are spread
## from this instant, however long their own handlers of `registered` ran after it.
func get_registered_msec() -> int:
	return _registered_msec


## Sends the world to the brain (RegisterWorld) until it answers: retried every
## `npc_brain/world/retry_delay_s` while the brain is away; a refusal (the world is wrong) is
## pushed as an error and `registration_failed`, and not retried. Emits `registered`; starts
## the game clock.
func register() -> void:
	if _registering:
		return
	_registering = true
	_warn_what_does_not_fit()
	var client := NpcBrainClient.get_instance()
	var world := to_proto()
	var reply := await client.call_rpc("RegisterWorld", {"world": world})
	while not reply.ok and not NpcBrainError.from_reply("RegisterWorld", reply).is_permanent():
		var delay := float(NpcBrainSettings.get_value(NpcBrainSettings.RETRY_DELAY_S))
		await get_tree().create_timer(delay).timeout
		world = to_proto()
		reply = await client.call_rpc("RegisterWorld", {"world": world})
	_registering = false
	if not reply.ok:
		var error := NpcBrainError.from_reply("RegisterWorld", reply)
		var problems := validate()
		var shown := " ".join(problems.slice(0, 5)) + (
				" (%d more)" % (problems.size() - 5) if problems.size() > 5 else "")
		push_error("NpcBrain: the brain refused world \"%s\": %s (%s). Fix the scene: %s" % [
			world_name, reply.message, reply.code, shown])
		registration_failed.emit(error)
		return
	_registered = true
	_registered_msec = Time.get_ticks_msec()
	var ids: Array[String] = []
	for agent in client.get_agents():
		if agent.world == self or agent.world == null:
			ids.append(agent.npc_id)
	NpcBrainLog.record("world_registered", {
		"world": world, "response": reply.data, "npcs": ids, "msec": _registered_msec,
	})
	NpcBrainGameClock.get_instance().running = true
	registered.emit()


func _register_on_ready() -> void:
	if register_on_ready:
		register()


## Registers the world again (the brain lost it, e.g. restarted on an empty store); agents
## wait for `registered`, then spawn again.
func register_again() -> void:
	if _registering:
		return
	_registered = false
	register()


## Marks the layout as changed: redraws, and rebuilds the walk grid when next needed.
func mark_layout_changed() -> void:
	_dirty = true
	queue_redraw()
	if _baked != null:
		_place_baked()
		_baked_painter.queue_redraw()
		_baked.render_target_update_mode = SubViewport.UPDATE_ONCE
	if not _notify_pending and is_inside_tree():
		_notify_pending = true
		_emit_layout_changed.call_deferred()


## The state of the object at `address` ("" when idle or unknown).
func get_object_state(address: String) -> String:
	var game_object := find_object(address)
	return game_object.state if game_object != null else ""


## The tile under a global position.
func global_to_tile(global_point: Vector2) -> Vector2i:
	return local_to_tile(to_local(global_point))


## The grid: its first tile and its size, in tiles (the map layer's used cells, if it has one).
## Without a map layer or a `grid_origin`, grown to hold every arena and object.
func get_grid_rect() -> Rect2i:
	if space != null:
		return space.get_tile_grid()
	var grid := Rect2i(grid_origin, grid_size)
	if map_layer != null or grid_origin != Vector2i.ZERO:
		return grid
	for arena in get_arenas():
		grid = grid.merge(arena.rect)
		for item in arena.get_objects():
			grid = grid.merge(item.get_rect())
	return grid


## Why `what` (covering the tiles `rect`) is not on the grid, naming the setting that fixes it;
## "" when it is. Outside the grid NPCs can neither stand nor walk: every move there fails.
func outside_grid(what: String, rect: Rect2i) -> String:
	if space != null:
		return space.outside_grid(what, rect)
	var grid := get_grid_rect()
	if grid.encloses(rect):
		return ""
	if map_layer != null:
		return ("%s %s is outside the grid %s, the cells painted on map_layer %s: paint the map"
				+ " under it, or move it onto the map.") % [what, rect, grid, map_layer.name]
	var fits := grid.merge(rect)
	return ("%s %s is outside the grid %s: set the World's grid_origin to %s and grid_size to %s"
			+ " (or grid_origin to (0, 0), and the grid grows to hold the arenas; or map_layer to"
			+ " the TileMapLayer your map is painted on).") % [
				what, rect, grid, fits.position, fits.size]


## From grid pixels (tile t's top-left corner at t * tile_size) to this node's coordinates:
## the identity without a `map_layer`, else the layer's transform and cell offset.
func get_grid_transform() -> Transform2D:
	if map_layer == null or not map_layer.is_inside_tree() or not is_inside_tree():
		return Transform2D.IDENTITY
	var corner := map_layer.map_to_local(Vector2i.ZERO) - Vector2(tile_size, tile_size) * 0.5
	return (global_transform.affine_inverse() * map_layer.global_transform
			* Transform2D(0.0, corner))


## The world tile a cell of `layer` lies on (its center's tile).
func layer_cell_to_tile(layer: TileMapLayer, cell: Vector2i) -> Vector2i:
	if layer == map_layer:
		return cell
	return global_to_tile(layer.to_global(layer.map_to_local(cell)))


## The cell of `layer` under a world tile's center.
func tile_to_layer_cell(layer: TileMapLayer, tile: Vector2i) -> Vector2i:
	if layer == map_layer:
		return tile
	return layer.local_to_map(layer.to_local(tile_to_global(tile)))


## Why the cells of `layer` cannot match this world's tiles one to one ("" when they can): a
## shape other than square, another size once scaled, or cells shifted by a part of a tile.
func layer_problem(layer: TileMapLayer) -> String:
	if layer == null or layer.tile_set == null:
		return ""
	if layer.tile_set.tile_shape != TileSet.TILE_SHAPE_SQUARE:
		return "%s has no square tiles: the world's tiles are squares." % layer.name
	if not (layer.is_inside_tree() and is_inside_tree()):
		return ""
	var origin := to_global(tile_center(Vector2i.ZERO))
	var right := to_global(tile_center(Vector2i.RIGHT)) - origin
	var down := to_global(tile_center(Vector2i.DOWN)) - origin
	var cell := Vector2(layer.tile_set.tile_size)
	var their_right := layer.global_transform.basis_xform(Vector2(cell.x, 0.0))
	var their_down := layer.global_transform.basis_xform(Vector2(0.0, cell.y))
	if not (their_right.is_equal_approx(right) and their_down.is_equal_approx(down)):
		return "%s's cells are %s px, the world's tiles %s px: they cannot match." % [
			layer.name, (their_right + their_down).abs(), (right + down).abs()]
	var center := layer.to_global(layer.map_to_local(Vector2i.ZERO))
	var snapped := to_global(tile_center(global_to_tile(center)))
	if not center.is_equal_approx(snapped):
		return "%s's cells are shifted from the world's tiles by %s px: align them." % [
			layer.name, center - snapped]
	return ""


## The tile a body stands on: a Node2D's global position, or a Node3D's x and z (see
## `tile_size_3d`).
func node_to_tile(node: Node) -> Vector2i:
	var body_3d := node as Node3D
	if body_3d != null and space != null:
		return space.position_to_tile(body_3d.global_position)
	if body_3d != null:
		var at := body_3d.global_position / tile_size_3d
		return Vector2i(floori(at.x), floori(at.z))
	return global_to_tile((node as Node2D).global_position)


## The 3D position of a tile's center, at `height`.
## In an NpcBrainWorld3D, on the tile's floor, as high above it as `height` is above its own.
func tile_to_position_3d(tile: Vector2i, height: float = 0.0) -> Vector3:
	if space != null:
		return space.tile_to_position(tile, height)
	return Vector3((tile.x + 0.5) * tile_size_3d, height, (tile.y + 0.5) * tile_size_3d)


## The global position of a tile's center.
func tile_to_global(tile: Vector2i) -> Vector2:
	return to_global(tile_center(tile))


## The NpcBrainSector children.
func get_sectors() -> Array[NpcBrainSector]:
	var sectors: Array[NpcBrainSector] = []
	for child in (space if space != null else self).get_children():
		if child is NpcBrainSector:
			sectors.append(child)
	return sectors


## Every NpcBrainArena of every NpcBrainSector.
func get_arenas() -> Array[NpcBrainArena]:
	var arenas: Array[NpcBrainArena] = []
	for sector in get_sectors():
		arenas.append_array(sector.get_arenas())
	return arenas


## The whole grid in pixels, in this node's coordinates.
func get_rect_px() -> Rect2:
	var rect := get_grid_rect()
	return get_grid_transform() * Rect2(Vector2(rect.position * tile_size),
			Vector2(rect.size * tile_size))


## Center of a tile, in this node's coordinates.
func tile_center(tile: Vector2i) -> Vector2:
	return get_grid_transform() * ((Vector2(tile) + Vector2(0.5, 0.5)) * tile_size)


## The tile under a point given in this node's coordinates.
func local_to_tile(point: Vector2) -> Vector2i:
	return Vector2i((get_grid_transform().affine_inverse() * point / tile_size).floor())


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


## "world:sector:arena" of an arena.
func arena_address(arena: NpcBrainArena) -> String:
	var sector := arena.get_sector()
	var sector_name := sector.get_sector_name() if sector != null else "?"
	return ":".join([world_name, sector_name, arena.get_arena_name()])


## "world:sector:arena:object" of an object.
func object_address(game_object: NpcBrainObject) -> String:
	var arena := game_object.get_arena()
	var base := arena_address(arena) if arena != null else world_name + ":?:?"
	return base + ":" + game_object.get_object_name()


## Prefixes the world name when an address starts at the sector ("Hobbs Cafe:cafe").
func full_address(address: String) -> String:
	if address == "" or address.begins_with(world_name + ":"):
		return address
	return world_name + ":" + address


## The arena whose floor holds the tile, or null (walls, doors, open ground).
func arena_at(tile: Vector2i) -> NpcBrainArena:
	_ensure_built()
	return _arena_by_tile.get(tile)


## Address of the arena at the tile, or "" where there is none.
func address_at(tile: Vector2i) -> String:
	var arena := arena_at(tile)
	return arena_address(arena) if arena != null else ""


## The arena of an address (of the arena itself or of one of its objects); null if unknown.
## A "world:sector" address gives the sector's first arena.
func find_arena(address: String) -> NpcBrainArena:
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
func find_object(address: String) -> NpcBrainObject:
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
	var floor_tiles: Array = _walkable_floor.get(arena, [])
	var free: Array[Vector2i] = []
	for tile: Vector2i in floor_tiles:
		if not object_tiles.has(tile) and not taken.has(tile):
			free.append(tile)
	if free.is_empty():
		free.assign(floor_tiles)
	if free.is_empty():
		return NO_TILE
	return free[rng.randi_range(0, free.size() - 1)]


## This world's agents within `radius` tiles of `tile`, each with the tile it stands on: agent ->
## tile (as filed, at most AGENT_FILING_MSEC ago).
func agents_near(tile: Vector2i, radius: float) -> Dictionary[NpcBrainAgent, Vector2i]:
	_file_agents()
	var near: Dictionary[NpcBrainAgent, Vector2i] = {}
	var reach := Vector2i.ONE * ceili(radius)
	var low := tile - reach
	var high := tile + reach
	for square_y in range(low.y >> AGENT_SQUARE_SHIFT, (high.y >> AGENT_SQUARE_SHIFT) + 1):
		for square_x in range(low.x >> AGENT_SQUARE_SHIFT, (high.x >> AGENT_SQUARE_SHIFT) + 1):
			for agent: Variant in _agent_squares.get(Vector2i(square_x, square_y), []):
				if not is_instance_valid(agent) or not agent.is_inside_tree():  # gone since filed
					continue
				var at: Vector2i = _agent_tiles[agent]
				if Vector2(at).distance_to(tile) <= radius:
					near[agent] = at
	return near


## The tiles of `address`'s arena that this world's agents other than `agent` stand on or walk
## to (for `resolve_target`).
func taken_tiles(address: String, agent: NpcBrainAgent) -> Array[Vector2i]:
	_file_agents()
	var taken: Array[Vector2i] = []
	var arena := find_arena(address)
	if arena == null:
		return taken
	var own_tile: Vector2i = _agent_tiles.get(agent, NO_TILE)
	for y in range(arena.rect.position.y, arena.rect.end.y):
		for x in range(arena.rect.position.x, arena.rect.end.x):
			var tile := Vector2i(x, y)
			var count: int = _taken_counts.get(tile, 0)
			count -= int(tile == own_tile) + int(tile == agent.target_tile)
			if count > 0:
				taken.append(tile)
	return taken


## Called by NpcBrainAgent when it leaves the tree: filed nowhere until the next filing.
func forget_agent(agent: NpcBrainAgent) -> void:
	if not _agent_tiles.has(agent):
		return
	var tile := _agent_tiles[agent]
	_agent_tiles.erase(agent)
	var square := Vector2i(tile.x >> AGENT_SQUARE_SHIFT, tile.y >> AGENT_SQUARE_SHIFT)
	if _agent_squares.has(square):
		_agent_squares[square].erase(agent)


## Called by NpcBrainAgent when it sets out for `tile`: the agents that choose a tile before the
## next filing avoid it too.
func note_target(tile: Vector2i) -> void:
	_taken_counts[tile] = _taken_counts.get(tile, 0) + 1


## Objects with at least one tile within `radius` tiles of `tile`.
func objects_near(tile: Vector2i, radius: float) -> Array[NpcBrainObject]:
	var near: Array[NpcBrainObject] = []
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
			"residents": Array(sector.get_resident_ids(_agents_in_tree())),
		})
	var grid := get_grid_rect()
	return {
		"name": world_name, "width": grid.size.x, "height": grid.size.y, "sectors": sectors,
		"verbs": NpcBrainVerb.list_to_proto(verbs),
	}


## What is wrong with the world for the brain, one sentence each (empty when nothing is):
## duplicate or empty names, ':' in names, sectors without arenas, overlapping arenas, arenas,
## objects and agents outside the grid, and agents whose home or known areas are not in it.
## Call it after building a world in code: the editor's warnings never see that one.
func validate() -> PackedStringArray:
	var problems := PackedStringArray()
	if world_name.contains(":") or world_name.strip_edges() == "":
		problems.append("The world's name \"%s\" is empty or has a ':'." % world_name)
	if get_sectors().is_empty():
		problems.append("Add NpcBrainSector children (with arenas and objects) to build the world.")
	problems.append_array(NpcBrainWorldPart.name_problems(get_sectors(), "sector"))
	problems.append_array(_layer_problems([map_layer, solid_layer]))
	problems.append_array(_grid_problems())
	var agents := _agents_in_tree()
	for sector in get_sectors():
		problems.append_array(sector.get_problems())
		if not agents.is_empty():
			for problem in sector.resident_problems(agents):
				problems.append("%s: %s" % [sector.get_sector_name(), problem])
	var owner_of: Dictionary[Vector2i, String] = {}
	for arena in get_arenas():
		for tile in arena.get_floor_tiles():
			if owner_of.has(tile):
				problems.append("Arenas %s and %s overlap at %s." % [
					owner_of[tile], arena_address(arena), tile])
				break
			owner_of[tile] = arena_address(arena)
	var declared: Array[NpcBrainVerb] = verbs.duplicate()
	if is_inside_tree():
		for node in get_tree().get_nodes_in_group(NpcBrainAgent.GROUP):
			problems.append_array(_agent_problems(node as NpcBrainAgent))
			declared.append_array((node as NpcBrainAgent).verbs)
	for verb in declared:
		if verb != null:
			problems.append_array(verb.get_problems(self))
	return problems


## Validates the world and writes its layout (`NpcBrainLayout.of`) to `layout_path` (when set):
## what the editor's button does. Returns the problems found (also pushed as warnings).
func export_layout() -> PackedStringArray:
	var problems := validate()
	for problem in problems:
		push_warning("NpcBrainWorld %s: %s" % [world_name, problem])
	if layout_path != "":
		var file := FileAccess.open(layout_path, FileAccess.WRITE)
		if file == null:
			push_error("NpcBrainWorld: cannot write %s (%s)" % [
				layout_path, error_string(FileAccess.get_open_error())])
		else:
			file.store_string(JSON.stringify(NpcBrainLayout.of(self), " ") + "\n")
	print("NpcBrainWorld %s: %d sectors, %d arenas, %d problems%s" % [
		world_name, get_sectors().size(), get_arenas().size(), problems.size(),
		", layout written to " + layout_path if layout_path != "" else ""])
	return problems


func _get_configuration_warnings() -> PackedStringArray:
	return validate()


# Said once per registration, as the game starts: layers whose cells cannot match the tiles (the
# walls or floors would silently be elsewhere), arenas, objects and agents outside the grid (their
# moves would all be unreachable), and residents given as persona names (they work, sent as their
# npc ids, but a name changes).
func _warn_what_does_not_fit() -> void:
	var layers: Array[TileMapLayer] = [map_layer, solid_layer]
	for arena in get_arenas():
		layers.append(arena.floor_layer)
	for problem in _layer_problems(layers) + _grid_problems():
		push_warning("NpcBrainWorld %s: %s" % [world_name, problem])
	var agents := _agents_in_tree()
	for sector in get_sectors():
		var ids := sector.get_resident_ids(agents)
		for i in ids.size():
			if ids[i] != sector.residents[i]:
				push_warning("NpcBrainWorld: %s's resident \"%s\" is a name: write its npc id \"%s\"."
						% [sector.get_sector_name(), sector.residents[i], ids[i]])


# What `layer_problem` finds in each of `layers` (each layer once; nulls skipped).
func _layer_problems(layers: Array[TileMapLayer]) -> PackedStringArray:
	var problems := PackedStringArray()
	var seen: Array[TileMapLayer] = []
	for layer in layers:
		if layer == null or seen.has(layer):
			continue
		seen.append(layer)
		var problem := layer_problem(layer)
		if problem != "":
			problems.append(problem)
	return problems


# Every arena, object and agent of this world outside the grid, by address (or npc id).
func _grid_problems() -> PackedStringArray:
	if space != null:
		return space.grid_problems(_agents_in_tree().values())
	var problems := PackedStringArray()
	for arena in get_arenas():
		problems.append(outside_grid("Arena " + arena_address(arena), arena.rect))
		for item in arena.get_objects():
			problems.append(outside_grid("Object " + object_address(item), item.get_rect()))
	for agent: NpcBrainAgent in _agents_in_tree().values():
		if agent.get_parent() is Node2D or agent.get_parent() is Node3D:
			problems.append(outside_grid("NPC %s, standing on" % agent.npc_id,
					Rect2i(node_to_tile(agent.get_parent()), Vector2i.ONE)))
	return PackedStringArray(Array(problems).filter(func(p: String) -> bool: return p != ""))


# This world's agents in the tree, by npc id.
func _agents_in_tree() -> Dictionary[String, NpcBrainAgent]:
	var agents: Dictionary[String, NpcBrainAgent] = {}
	if not is_inside_tree():
		return agents
	for node in get_tree().get_nodes_in_group(NpcBrainAgent.GROUP):
		var agent := node as NpcBrainAgent
		if agent != null and agent.npc_id != "" and (agent.world == null or agent.world == self):
			agents[agent.npc_id] = agent
	return agents


# The tile size, origin and used cells of the map layer.
func _read_map_layer() -> void:
	if map_layer == null or map_layer.tile_set == null:
		mark_layout_changed()
		return
	tile_size = map_layer.tile_set.tile_size.x
	var used := map_layer.get_used_rect()
	grid_origin = used.position
	grid_size = used.size


func _agent_problems(agent: NpcBrainAgent) -> PackedStringArray:
	var problems := PackedStringArray()
	if agent == null or agent.persona == null or (agent.world != null and agent.world != self):
		return problems
	for address in [agent.persona.home] + Array(agent.persona.known_areas):
		if address != "" and find_arena(address) == null:
			problems.append("NPC %s: %s is not an arena of this world." % [agent.npc_id, address])
	return problems


func _draw() -> void:
	if _baked != null:
		return
	_ensure_built()
	NpcBrainWorldPainter.new(self, self, get_grid_transform()).paint()


func _bake() -> void:
	_baked = SubViewport.new()
	_baked.name = "BakedLayer"
	_baked.disable_3d = true
	_baked.render_target_update_mode = SubViewport.UPDATE_ONCE
	_baked_painter = Node2D.new()
	_baked_painter.draw.connect(func() -> void:
		_ensure_built()
		NpcBrainWorldPainter.new(self, _baked_painter, Transform2D(0.0,
				-Vector2(get_grid_rect().position * tile_size))).paint())
	_baked.add_child(_baked_painter)
	add_child(_baked)
	var sprite := Sprite2D.new()
	sprite.name = "Baked"
	sprite.centered = false
	sprite.texture = _baked.get_texture()
	add_child(sprite)
	_place_baked()
	queue_redraw()


# The baked texture covers the grid, drawn where the grid lies.
func _place_baked() -> void:
	var grid := get_grid_rect()
	_baked.size = grid.size * tile_size
	var sprite := get_node_or_null("Baked") as Sprite2D
	if sprite != null:
		sprite.transform = (get_grid_transform()
				* Transform2D(0.0, Vector2(grid.position * tile_size)))


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
	_arena_by_tile.clear()
	_walkable_floor.clear()
	var floors: Dictionary[Vector2i, bool] = {}
	for arena in get_arenas():
		_arenas_by_address[arena_address(arena)] = arena
		for item in arena.get_objects():
			_objects_by_address[object_address(item)] = item
		for tile in arena.get_floor_tiles():
			floors[tile] = true
			if not _arena_by_tile.has(tile):  # the first arena's, where two overlap
				_arena_by_tile[tile] = arena
		for tile in arena.get_wall_ring():
			_walls[tile] = true
		for door in arena.doors:
			_doors[door] = true
	for tile in floors.keys():
		_walls.erase(tile)
	if solid_layer != null:
		for cell in solid_layer.get_used_cells():
			_walls[layer_cell_to_tile(solid_layer, cell)] = true
	for tile in _doors.keys():
		_walls.erase(tile)
	if space != null:
		for tile in space.get_floor_walls():
			_walls[tile] = true
	_grid.region = get_grid_rect()
	_grid.cell_size = Vector2(tile_size, tile_size)
	_grid.diagonal_mode = AStarGrid2D.DIAGONAL_MODE_NEVER
	_grid.update()
	for tile in _walls:
		if _grid.is_in_boundsv(tile):
			_grid.set_point_solid(tile)
	for arena in get_arenas():
		var walkable: Array[Vector2i] = []
		for tile in arena.get_floor_tiles():
			if _grid.is_in_boundsv(tile) and not _grid.is_point_solid(tile):
				walkable.append(tile)
		_walkable_floor[arena] = walkable


func _file_agents() -> void:
	var now := Time.get_ticks_msec()
	if now - _filed_msec < AGENT_FILING_MSEC:
		return
	_filed_msec = now
	_agent_tiles.clear()
	_agent_squares.clear()
	_taken_counts.clear()
	# global_to_tile for every 2D body, its transforms composed once
	var to_tiles := get_grid_transform().affine_inverse() * global_transform.affine_inverse()
	for agent in NpcBrainClient.get_instance().get_agents():
		if agent.world != self or not agent.is_inside_tree():
			continue
		var body := agent.get_parent() as Node2D
		var tile := (Vector2i((to_tiles * body.global_position / tile_size).floor())
				if body != null else node_to_tile(agent.get_parent()))
		_agent_tiles[agent] = tile
		var square := Vector2i(tile.x >> AGENT_SQUARE_SHIFT, tile.y >> AGENT_SQUARE_SHIFT)
		if not _agent_squares.has(square):
			_agent_squares[square] = []
		_agent_squares[square].append(agent)
		_taken_counts[tile] = _taken_counts.get(tile, 0) + 1
		if agent.target_tile != NO_TILE:
			_taken_counts[agent.target_tile] = _taken_counts.get(agent.target_tile, 0) + 1


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
