@tool
@icon("res://addons/npc_brain/icons/sector.svg")
class_name NpcBrainSector
extends NpcBrainWorldPart
## A building or place of the world (Hobbs Cafe, a family's house, a park): holds Arenas.

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


## The sector's NpcBrainArena children.
func get_arenas() -> Array[NpcBrainArena]:
	var arenas: Array[NpcBrainArena] = []
	for child in get_children():
		if child is NpcBrainArena:
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


## The name used in addresses.
func get_part_name() -> String:
	return get_sector_name()


func _get_configuration_warnings() -> PackedStringArray:
	return get_name_warnings() + get_structure_warnings()


## What is wrong with this part itself (names aside).
func get_structure_warnings() -> PackedStringArray:
	var warnings := PackedStringArray()
	if not get_parent() is NpcBrainWorld:
		warnings.append("A NpcBrainSector must be a child of a NpcBrainWorld.")
	if get_arenas().is_empty():
		warnings.append("This sector has no NpcBrainArena children: NPCs cannot go anywhere in it.")
	elif not has_outside_door():
		warnings.append("No door leads out of this sector: add a door tile on an outer wall.")
	return warnings


## Problems of this sector, its arenas and their objects, each naming where (for
## NpcBrainWorld.validate).
func get_problems() -> PackedStringArray:
	var problems := PackedStringArray()
	var where := get_sector_name()
	for warning in get_structure_warnings():
		problems.append("%s: %s" % [where, warning])
	for warning in name_problems(get_arenas(), "arena"):
		problems.append("%s: %s" % [where, warning])
	for arena in get_arenas():
		var arena_where := "%s:%s" % [where, arena.get_arena_name()]
		for warning in arena.get_structure_warnings() + name_problems(arena.get_objects(), "object"):
			problems.append("%s: %s" % [arena_where, warning])
		for item in arena.get_objects():
			for warning in item.get_structure_warnings():
				problems.append("%s:%s: %s" % [arena_where, item.get_object_name(), warning])
	return problems
