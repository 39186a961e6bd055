@tool
@icon("res://addons/npc_brain/icons/world.svg")
class_name NpcBrainWorld
extends Node2D
## The world the brain knows: a grid of tiles holding NpcBrainSector > NpcBrainArena >
## NpcBrainObject child nodes (the paper's spatial tree). Registers it with the brain when the
## game starts (RegisterWorld; retried while the brain is away, reported once when the brain
## refuses it) and keeps the objects' states. The spatial questions NPCs ask are its helpers':
## `grid` (NpcBrainGrid: which tile is where, walls, `find_path` over an AStarGrid2D, walls solid
## and doors open, for games that want it; navigation otherwise stays the game's) and `places`
## (NpcBrainPlaces: addresses, what is at a tile, where to stand, who stands where).
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
## frame: much faster with hundreds of labels, redrawn only when the layout changes (the
## objects' states are drawn over it).
@export var bake_when_running: bool = true

@export_group("Colors")
@export var grass_color: Color = Color(0.42, 0.62, 0.33)
@export var wall_color: Color = Color(0.29, 0.24, 0.22)
@export var door_color: Color = Color(0.71, 0.5, 0.28)
@export var label_color: Color = Color(1, 1, 1, 0.92)

## The NpcBrainWorld3D this world keeps the tiles of (set by it), or null: its sectors are that
## node's children, its grid and a 3D body's tile that node's (floors stacked, see there).
var space: NpcBrainWorld3D = null
## The tiles: coordinates, walls, paths and sight (see NpcBrainGrid).
var grid: NpcBrainGrid = NpcBrainGrid.new(self)
## The addresses, targets and who stands where (see NpcBrainPlaces).
var places: NpcBrainPlaces = NpcBrainPlaces.new(self)

var _notify_pending: bool = false
var _baked: SubViewport = null
var _baked_painter: Node2D = null
var _states_layer: Node2D = null
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
	grid.stale = true
	places.stale = true
	queue_redraw()
	if _baked != null:
		_place_baked()
		_baked_painter.queue_redraw()
		_baked.render_target_update_mode = SubViewport.UPDATE_ONCE
		_states_layer.queue_redraw()
	_notify_layout_changed()


## Marks an object's state as changed: the states are drawn again (over the baked town, which
## is not; drawing it again cost the web build's software renderer a second a state), and
## `layout_changed` is emitted; the walk grid and the places stand.
func mark_state_changed() -> void:
	if _baked != null:
		_states_layer.queue_redraw()
	else:
		queue_redraw()
	_notify_layout_changed()


func _notify_layout_changed() -> void:
	if not _notify_pending and is_inside_tree():
		_notify_pending = true
		_emit_layout_changed.call_deferred()


## The state of the object at `address` ("" when idle or unknown).
func get_object_state(address: String) -> String:
	var game_object := places.find_object(address)
	return game_object.state if game_object != null else ""

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

## Sets an object's state by address; false if there is no such object.
func set_object_state(address: String, state: String) -> bool:
	var game_object := places.find_object(address)
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
	var size := grid.get_rect().size
	return {
		"name": world_name, "width": size.x, "height": size.y, "sectors": sectors,
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
					owner_of[tile], places.arena_address(arena), tile])
				break
			owner_of[tile] = places.arena_address(arena)
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
		var problem := grid.layer_problem(layer)
		if problem != "":
			problems.append(problem)
	return problems


# Every arena, object and agent of this world outside the grid, by address (or npc id).
func _grid_problems() -> PackedStringArray:
	if space != null:
		return space.grid_problems(_agents_in_tree().values())
	var problems := PackedStringArray()
	for arena in get_arenas():
		problems.append(grid.outside_grid("Arena " + places.arena_address(arena), arena.rect))
		for item in arena.get_objects():
			problems.append(grid.outside_grid("Object " + places.object_address(item),
					item.get_rect()))
	for agent: NpcBrainAgent in _agents_in_tree().values():
		if agent.get_parent() is Node2D or agent.get_parent() is Node3D:
			problems.append(grid.outside_grid("NPC %s, standing on" % agent.npc_id,
					Rect2i(grid.node_to_tile(agent.get_parent()), Vector2i.ONE)))
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
	for address in agent.persona.addresses():
		if places.find_arena(address) == null:
			problems.append("NPC %s: %s is not an arena of this world." % [agent.npc_id, address])
	return problems


func _draw() -> void:
	if _baked != null:
		return
	NpcBrainWorldPainter.new(self, self, grid.get_transform()).paint()


func _bake() -> void:
	_baked = SubViewport.new()
	_baked.name = "BakedLayer"
	_baked.disable_3d = true
	_baked.transparent_bg = style == Style.OVERLAY  # over your map, not a slab hiding it
	_baked.render_target_update_mode = SubViewport.UPDATE_ONCE
	_baked_painter = Node2D.new()
	_baked_painter.draw.connect(func() -> void:
		NpcBrainWorldPainter.new(self, _baked_painter, Transform2D(0.0,
				-Vector2(grid.get_rect().position * tile_size))).paint(false))
	_baked.add_child(_baked_painter)
	add_child(_baked)
	var sprite := Sprite2D.new()
	sprite.name = "Baked"
	sprite.centered = false
	sprite.texture = _baked.get_texture()
	add_child(sprite)
	# The objects' states change as NPCs use them: drawn over the baked town, not into it.
	_states_layer = Node2D.new()
	_states_layer.name = "States"
	_states_layer.draw.connect(func() -> void:
		NpcBrainWorldPainter.new(self, _states_layer, grid.get_transform()).paint_states())
	add_child(_states_layer)
	_place_baked()
	queue_redraw()


# The baked texture covers the grid, drawn where the grid lies.
func _place_baked() -> void:
	var rect := grid.get_rect()
	_baked.size = rect.size * tile_size
	var sprite := get_node_or_null("Baked") as Sprite2D
	if sprite != null:
		sprite.transform = (grid.get_transform()
				* Transform2D(0.0, Vector2(rect.position * tile_size)))


func _emit_layout_changed() -> void:
	_notify_pending = false
	update_configuration_warnings()
	layout_changed.emit()

func _tiles_to_proto(tiles: Array[Vector2i]) -> Array[Dictionary]:
	var out: Array[Dictionary] = []
	for tile in tiles:
		out.append({"x": tile.x, "y": tile.y})
	return out
