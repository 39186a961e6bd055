class_name NpcBrainWorldPainter
extends RefCounted
## Draws an NpcBrainWorld with CanvasItem primitives (from its _draw(), or into its baked
## layer): grass, doors, objects with their names and states, sector and arena names. No
## textures needed.

const LABEL_SIZE := 11
const OBJECT_LABEL_SIZE := 9
const SECTOR_LABEL_SIZE := 13

var _world: NpcBrainWorld
var _canvas: CanvasItem
var _font: Font = ThemeDB.fallback_font
var _ts: float
var _transform: Transform2D
var _with_states: bool = true


## Paints `world` on `canvas` (the world itself by default, from its _draw()); `transform` takes
## grid pixels (tile t's corner at t * tile_size) to the canvas (see NpcBrainGrid.get_transform).
func _init(
		world: NpcBrainWorld, canvas: CanvasItem = null,
		transform: Transform2D = Transform2D.IDENTITY
) -> void:
	_world = world
	_canvas = canvas if canvas != null else world
	_ts = world.tile_size
	_transform = transform


## Draws the world in its `style` (outlines only for NONE in the editor); without `with_states`,
## the objects' states are left to `paint_states`.
func paint(with_states: bool = true) -> void:
	_with_states = with_states
	var style := _world.style
	if style == NpcBrainWorld.Style.NONE and not Engine.is_editor_hint():
		return
	_canvas.draw_set_transform_matrix(_transform)
	if style != NpcBrainWorld.Style.TOWN:
		_paint_overlay()
		return
	_paint_ground()
	for arena in _world.get_arenas():
		_paint_floor(arena)
	_paint_walls()
	_paint_trees()
	for arena in _world.get_arenas():
		for item in arena.get_objects():
			_paint_object(item)
	for sector in _world.get_sectors():
		_paint_sector_label(sector)


## Draws only the objects' states (over a baked town, which leaves them out).
func paint_states() -> void:
	if _world.style == NpcBrainWorld.Style.NONE:
		return
	_canvas.draw_set_transform_matrix(_transform)
	for arena in _world.get_arenas():
		for item in arena.get_objects():
			_paint_state(item)


# Over a tile map: each arena outlined and named, objects boxed and named, sectors named.
func _paint_overlay() -> void:
	for arena in _world.get_arenas():
		var area := _tile_rect(arena.rect.position, arena.rect.size)
		if arena.floor_layer != null:  # any shape: each floor tile
			for tile in arena.get_floor_tiles():
				_canvas.draw_rect(_tile_rect(tile), Color(arena.floor_color, 0.18))
		else:
			_canvas.draw_rect(area, Color(arena.floor_color, 0.18))
		_canvas.draw_rect(area, arena.floor_color.darkened(0.2), false, 2.0)
		_text(area.position + Vector2(4, area.size.y - 5), arena.get_arena_name(), LABEL_SIZE,
				Color(1, 1, 1, 0.75))
		for item in arena.get_objects():
			_paint_object(item)
	for sector in _world.get_sectors():
		_paint_sector_label(sector)


func _tile_rect(tile: Vector2i, size: Vector2i = Vector2i.ONE) -> Rect2:
	return Rect2(Vector2(tile) * _ts, Vector2(size) * _ts)


func _paint_ground() -> void:
	var grass := _world.grass_color
	var grid := _world.grid.get_rect()
	_canvas.draw_rect(_tile_rect(grid.position, grid.size), grass)
	for y in range(grid.position.y, grid.end.y):
		for x in range(grid.position.x, grid.end.x):
			var speck := (x * 7 + y * 13) % 5
			if speck == 0:
				_canvas.draw_rect(_tile_rect(Vector2i(x, y)), grass.darkened(0.035))
			elif speck == 3:
				var tuft := Vector2(x + 0.3, y + 0.6) * _ts
				_canvas.draw_line(tuft, tuft + Vector2(2, -5), grass.darkened(0.25), 1.0)
				_canvas.draw_line(tuft + Vector2(4, 0), tuft + Vector2(5, -4), grass.darkened(0.25))


func _paint_floor(arena: NpcBrainArena) -> void:
	var area := _tile_rect(arena.rect.position, arena.rect.size)
	var floor_color := arena.floor_color
	_canvas.draw_rect(area, floor_color)
	# Planks / paving: faint lines every tile.
	var line := floor_color.darkened(0.12)
	for x in range(arena.rect.position.x + 1, arena.rect.end.x):
		_canvas.draw_line(Vector2(x * _ts, area.position.y), Vector2(x * _ts, area.end.y), line)
	for y in range(arena.rect.position.y + 1, arena.rect.end.y):
		_canvas.draw_line(Vector2(area.position.x, y * _ts), Vector2(area.end.x, y * _ts), line)
	if not arena.walled:
		_canvas.draw_rect(area, floor_color.darkened(0.3), false, 2.0)
	var label_at := area.position + Vector2(4, area.size.y - 5)
	_text(label_at, arena.get_arena_name(), LABEL_SIZE, Color(1, 1, 1, 0.75))


func _paint_walls() -> void:
	var walls := _world.grid.get_wall_tiles()
	var top := _world.wall_color.lightened(0.25)
	for tile in walls:
		var cell := _tile_rect(tile)
		_canvas.draw_rect(cell, _world.wall_color)
		if not walls.has(tile + Vector2i.UP):
			_canvas.draw_rect(Rect2(cell.position, Vector2(_ts, 4)), top)
	for arena in _world.get_arenas():
		for door in arena.doors:
			if not walls.has(door):
				_paint_door(door, walls)


# A door: a wooden threshold, with jambs on the sides where the wall continues.
func _paint_door(door: Vector2i, walls: Dictionary[Vector2i, bool]) -> void:
	var cell := _tile_rect(door)
	_canvas.draw_rect(cell, _world.door_color)
	var plank := _world.door_color.darkened(0.2)
	var horizontal_wall := walls.has(door + Vector2i.LEFT) or walls.has(door + Vector2i.RIGHT)
	for i in range(1, 4):
		var f := i / 4.0
		if horizontal_wall:
			_canvas.draw_line(cell.position + Vector2(f * _ts, 0),
					cell.position + Vector2(f * _ts, _ts), plank)
		else:
			_canvas.draw_line(cell.position + Vector2(0, f * _ts),
					cell.position + Vector2(_ts, f * _ts), plank)
	var jamb := _world.wall_color.darkened(0.3)
	for step in NpcBrainWorld.DIRECTIONS:
		if walls.has(door + step):
			var edge := Vector2(step) * (_ts * 0.5 - 1.5) + cell.get_center()
			var span := Vector2(absf(step.y), absf(step.x)) * _ts * 0.5
			_canvas.draw_line(edge - span, edge + span, jamb, 3.0)


# A few trees on open ground, away from floors and doors (decoration only: not solid).
func _paint_trees() -> void:
	var built: Dictionary[Vector2i, bool] = _world.grid.get_wall_tiles().duplicate()
	for arena in _world.get_arenas():
		for tile in arena.get_floor_tiles() + arena.doors:
			built[tile] = true
	var grid := _world.grid.get_rect()
	for y in range(grid.position.y, grid.end.y):
		for x in range(grid.position.x, grid.end.x):
			var tile := Vector2i(x, y)
			if (x * 31 + y * 17) % 7 != 0 or _near_any(tile, built):
				continue
			var center := _tile_rect(tile).get_center()
			_canvas.draw_circle(center + Vector2(2, 4), _ts * 0.42, Color(0, 0, 0, 0.18))
			_canvas.draw_circle(center, _ts * 0.42, Color(0.2, 0.42, 0.2))
			_canvas.draw_circle(center - Vector2(3, 3), _ts * 0.24, Color(0.3, 0.55, 0.27))


func _near_any(tile: Vector2i, tiles: Dictionary[Vector2i, bool]) -> bool:
	for dy in range(-1, 2):
		for dx in range(-1, 2):
			if tiles.has(tile + Vector2i(dx, dy)):
				return true
	return false


func _paint_object(item: NpcBrainObject) -> void:
	var box := _object_box(item)
	_canvas.draw_rect(box, item.color)
	_canvas.draw_rect(box, item.color.darkened(0.45), false, 1.5)
	var center := Vector2(box.get_center().x, box.position.y + box.size.y * 0.5 + 3)
	var name_width := maxf(box.size.x + 40, 90)
	_text(center - Vector2(name_width / 2, 0), item.get_object_name(), OBJECT_LABEL_SIZE,
			_world.label_color, name_width, HORIZONTAL_ALIGNMENT_CENTER)
	if _with_states:
		_paint_state(item)


func _paint_state(item: NpcBrainObject) -> void:
	if item.state == "":
		return
	var box := _object_box(item)
	var state_at := Vector2(box.get_center().x - 70, box.end.y + 10)
	_text(state_at, "(" + item.state + ")", OBJECT_LABEL_SIZE, Color(1, 0.92, 0.55),
			140, HORIZONTAL_ALIGNMENT_CENTER)


# The object's box: its tiles, inset.
func _object_box(item: NpcBrainObject) -> Rect2:
	return _tile_rect(item.tile, item.size).grow(-3)


func _paint_sector_label(sector: NpcBrainSector) -> void:
	var arenas := sector.get_arenas()
	if arenas.is_empty():
		return
	var bounds := arenas[0].rect
	for arena in arenas:
		bounds = bounds.merge(arena.rect)
	var walled := arenas.any(func(arena: NpcBrainArena) -> bool: return arena.walled)
	# On the top wall for buildings, inside the top edge for open areas.
	var row := bounds.position.y - 1 if walled else bounds.position.y
	var at := Vector2(bounds.position.x * _ts + 4, row * _ts + _ts * 0.5 + 5)
	_text(at, sector.get_sector_name(), SECTOR_LABEL_SIZE, Color(1, 0.97, 0.85))


func _text(
		at: Vector2, text: String, size: int, color: Color, width: float = -1,
		align: HorizontalAlignment = HORIZONTAL_ALIGNMENT_LEFT
) -> void:
	_canvas.draw_string_outline(_font, at, text, align, width, size, 3, Color(0, 0, 0, 0.7))
	_canvas.draw_string(_font, at, text, align, width, size, color)
