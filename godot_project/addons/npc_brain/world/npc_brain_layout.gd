class_name NpcBrainLayout
extends RefCounted
## The world as the engine lays it out, for tools that simulate it without the engine
## (`python -m tools.godot_web export-town` writes it to data/town_layout.json, which the
## headless sim walks): the World message, the tile size and the wall tiles inside the grid.
## Every other tile of the grid is walkable, in 4-neighbour steps, as NpcBrainGrid.find_path walks.


## {"world": NpcBrainWorld.to_proto(), "tile_size": pixels, "walls": [[x, y], ...] sorted}.
static func of(world: NpcBrainWorld) -> Dictionary:
	var bounds := world.grid.get_rect()
	var walls: Array[Array] = []
	for tile in world.grid.get_wall_tiles():
		if bounds.has_point(tile):
			walls.append([tile.x, tile.y])
	walls.sort()
	return {"world": world.to_proto(), "tile_size": world.tile_size, "walls": walls}
