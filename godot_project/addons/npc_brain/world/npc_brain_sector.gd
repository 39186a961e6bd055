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
## The npc ids of the NPCs who live here; the brain keeps other NPCs out of its arenas. A
## persona's name works too (sent as its NPC's id), with a warning.
@export var residents: PackedStringArray = []:
	set(value):
		residents = value
		update_configuration_warnings()


## The name used in addresses.
func get_sector_name() -> String:
	return sector_name if sector_name != "" else String(name)


## `residents` as npc ids: a persona name of one of `agents` (by npc id) becomes its id.
func get_resident_ids(agents: Dictionary[String, NpcBrainAgent]) -> PackedStringArray:
	var ids := PackedStringArray()
	for resident in residents:
		ids.append(_id_named(resident, agents) if not agents.has(resident) else resident)
	return ids


## What is wrong with `residents` given the scene's `agents` (by npc id): names instead of ids,
## ids no agent has.
func resident_problems(agents: Dictionary[String, NpcBrainAgent]) -> PackedStringArray:
	var problems := PackedStringArray()
	for resident in residents:
		if agents.has(resident):
			continue
		var id := _id_named(resident, agents)
		if id != resident:
			problems.append("resident \"%s\" is a name: write its npc id \"%s\"." % [resident, id])
		else:
			problems.append("resident \"%s\" is no NPC's npc_id in this scene." % resident)
	return problems


func _id_named(resident: String, agents: Dictionary[String, NpcBrainAgent]) -> String:
	for id in agents:
		var persona := agents[id].persona
		if persona != null and persona.display_name == resident:
			return id
	return resident


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
	if not (get_parent() is NpcBrainWorld or get_parent() is NpcBrainWorld3D):
		warnings.append("A NpcBrainSector must be a child of a NpcBrainWorld or NpcBrainWorld3D.")
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
