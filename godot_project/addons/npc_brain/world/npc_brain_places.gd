class_name NpcBrainPlaces
extends RefCounted
## An NpcBrainWorld's places (its `places`): the addresses of its arenas and objects
## ("world:sector:arena" or "world:sector:arena:object", names as in the nodes' fields), what is
## at a tile, where an NPC should stand for an address, and who stands where (the agents filed by
## squares, for sight and for the tiles others have taken).

## `agents_near` files the agents by squares of 2^this tiles a side (8).
const AGENT_SQUARE_SHIFT := 3
## Real milliseconds the agents' filed tiles are used for (a body walks a tile or less meanwhile).
const AGENT_FILING_MSEC := 100

## The world whose places these are.
var world: NpcBrainWorld
## Whether the addresses must be read again before the next question (set by the World's
## `mark_layout_changed`).
var stale: bool = true

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


func _init(of_world: NpcBrainWorld) -> void:
	world = of_world


## "world:sector:arena" of an arena.
func arena_address(arena: NpcBrainArena) -> String:
	var sector := arena.get_sector()
	var sector_name := sector.get_sector_name() if sector != null else "?"
	return ":".join([world.world_name, sector_name, arena.get_arena_name()])


## "world:sector:arena:object" of an object.
func object_address(game_object: NpcBrainObject) -> String:
	var arena := game_object.get_arena()
	var base := arena_address(arena) if arena != null else world.world_name + ":?:?"
	return base + ":" + game_object.get_object_name()


## Prefixes the world name when an address starts at the sector ("Hobbs Cafe:cafe").
func full_address(address: String) -> String:
	if address == "" or address.begins_with(world.world_name + ":"):
		return address
	return world.world_name + ":" + address


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
		for sector in world.get_sectors():
			if sector.get_sector_name() == parts[1] and not sector.get_arenas().is_empty():
				return sector.get_arenas()[0]
	return null


## The object of a "world:sector:arena:object" address; null if unknown or not an object's.
func find_object(address: String) -> NpcBrainObject:
	_ensure_built()
	return _objects_by_address.get(full_address(address))


## Objects with at least one tile within `radius` tiles of `tile`.
func objects_near(tile: Vector2i, radius: float) -> Array[NpcBrainObject]:
	var near: Array[NpcBrainObject] = []
	for arena in world.get_arenas():
		for item in arena.get_objects():
			if item.get_tiles().any(
					func(t: Vector2i) -> bool: return Vector2(t).distance_to(tile) <= radius):
				near.append(item)
	return near


## The tile an NPC at `from` should walk to for `address`: the object's free tile nearest to it
## for an object, a random free floor tile for an arena. NpcBrainWorld.NO_TILE if the address is
## unknown.
func resolve_target(
		address: String, from: Vector2i, taken: Array[Vector2i], rng: RandomNumberGenerator
) -> Vector2i:
	var game_object := find_object(address)
	if game_object != null:
		var candidates := game_object.get_tiles().filter(world.grid.is_walkable)
		var free := candidates.filter(func(tile: Vector2i) -> bool: return not taken.has(tile))
		return _nearest(free if not free.is_empty() else candidates, from)
	var arena := find_arena(address)
	if arena == null:
		return NpcBrainWorld.NO_TILE
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
		return NpcBrainWorld.NO_TILE
	return free[rng.randi_range(0, free.size() - 1)]


## The world's agents within `radius` tiles of `tile`, each with the tile it stands on: agent ->
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


## The tiles of `address`'s arena that the world's agents other than `agent` stand on or walk
## to (for `resolve_target`).
func taken_tiles(address: String, agent: NpcBrainAgent) -> Array[Vector2i]:
	_file_agents()
	var taken: Array[Vector2i] = []
	var arena := find_arena(address)
	if arena == null:
		return taken
	var own_tile: Vector2i = _agent_tiles.get(agent, NpcBrainWorld.NO_TILE)
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


# The addresses, the arena of each floor tile (the first arena's, where two overlap) and each
# arena's walkable floor.
func _ensure_built() -> void:
	if not stale:
		return
	stale = false
	_arenas_by_address.clear()
	_objects_by_address.clear()
	_arena_by_tile.clear()
	_walkable_floor.clear()
	for arena in world.get_arenas():
		_arenas_by_address[arena_address(arena)] = arena
		for item in arena.get_objects():
			_objects_by_address[object_address(item)] = item
		var walkable: Array[Vector2i] = []
		for tile in arena.get_floor_tiles():
			if not _arena_by_tile.has(tile):
				_arena_by_tile[tile] = arena
			if world.grid.is_walkable(tile):
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
	var to_tiles := (world.grid.get_transform().affine_inverse()
			* world.global_transform.affine_inverse())
	for agent in NpcBrainClient.get_instance().get_agents():
		if agent.world != world or not agent.is_inside_tree():
			continue
		var body := agent.get_parent() as Node2D
		var tile := (Vector2i((to_tiles * body.global_position / world.tile_size).floor())
				if body != null else world.grid.node_to_tile(agent.get_parent()))
		_agent_tiles[agent] = tile
		var square := Vector2i(tile.x >> AGENT_SQUARE_SHIFT, tile.y >> AGENT_SQUARE_SHIFT)
		if not _agent_squares.has(square):
			_agent_squares[square] = []
		_agent_squares[square].append(agent)
		_taken_counts[tile] = _taken_counts.get(tile, 0) + 1
		if agent.target_tile != NpcBrainWorld.NO_TILE:
			_taken_counts[agent.target_tile] = _taken_counts.get(agent.target_tile, 0) + 1


func _nearest(tiles: Array, from: Vector2i) -> Vector2i:
	var best := NpcBrainWorld.NO_TILE
	var best_distance := INF
	for tile: Vector2i in tiles:
		var distance := Vector2(tile).distance_squared_to(from)
		if distance < best_distance:
			best = tile
			best_distance = distance
	return best
