@tool
class_name Sector
extends TownPart
## A building or place of the town (Hobbs Cafe, a family's house, a park): holds Arenas.

## The sector's name in addresses ("world:sector:arena"); the node name if empty.
@export var sector_name: String = "":
	set(value):
		sector_name = value
		notify_changed()
## Names of the NPCs who live here; the brain keeps other NPCs out of its private arenas.
@export var residents: PackedStringArray = []


## The name used in addresses.
func get_sector_name() -> String:
	return sector_name if sector_name != "" else String(name)


## The sector's Arena children.
func get_arenas() -> Array[Arena]:
	var arenas: Array[Arena] = []
	for child in get_children():
		if child is Arena:
			arenas.append(child)
	return arenas


## Whether some walled arena has a door leading outside the sector (or none is walled).
func has_outside_door() -> bool:
	var footprint: Dictionary[Vector2i, bool] = {}
	var doors: Array[Vector2i] = []
	var walled := false
	for arena in get_arenas():
		walled = walled or arena.walled
		doors.append_array(arena.doors)
		var grown := arena.rect.grow(1)
		for y in range(grown.position.y, grown.end.y):
			for x in range(grown.position.x, grown.end.x):
				footprint[Vector2i(x, y)] = true
	if not walled:
		return true
	for door in doors:
		for step: Vector2i in [Vector2i.LEFT, Vector2i.RIGHT, Vector2i.UP, Vector2i.DOWN]:
			if not footprint.has(door + step):
				return true
	return false


func _get_configuration_warnings() -> PackedStringArray:
	var warnings := PackedStringArray()
	if not get_parent() is Town:
		warnings.append("A Sector must be a child of a Town.")
	if get_arenas().is_empty():
		warnings.append("This sector has no Arena children: NPCs cannot go anywhere in it.")
	elif not has_outside_door():
		warnings.append("No door leads out of this sector: add a door tile on an outer wall.")
	return warnings
