@tool
class_name NpcBrainWorldPart
extends Node
## Base of the world's nodes (NpcBrainSector, NpcBrainArena, NpcBrainObject): finds the
## NpcBrainWorld above it and tells it to redraw and rebuild when the node's fields or place in
## the tree change; warns about names the brain would refuse.


func _enter_tree() -> void:
	notify_changed()


func _exit_tree() -> void:
	notify_changed()


## Problems with the names of sibling parts (`what`: "sector", "arena", "object"): a name used
## twice (Ctrl+D on a house keeps its name), an empty name, a ':' (it separates addresses).
static func name_problems(parts: Array, what: String) -> PackedStringArray:
	var problems := PackedStringArray()
	var seen: Dictionary[String, bool] = {}
	for part: NpcBrainWorldPart in parts:
		var part_name := part.get_part_name()
		if part_name.strip_edges() == "":
			problems.append("A %s (%s) has an empty name." % [what, part.name])
		elif part_name.contains(":"):
			problems.append("The %s name \"%s\" has a ':' (it separates address parts)." % [
				what, part_name])
		if seen.has(part_name):
			problems.append("Two %ss are named \"%s\": names must be unique among siblings." % [
				what, part_name])
		seen[part_name] = true
	return problems


## The name used in addresses (overridden by each part).
func get_part_name() -> String:
	return String(name)


## Warnings about this part's own name: empty, with a ':', or the same as a sibling's.
func get_name_warnings() -> PackedStringArray:
	var warnings := PackedStringArray()
	var own := get_part_name()
	if own.strip_edges() == "" or own.contains(":"):
		warnings.append("The name \"%s\" is empty or has a ':' (it separates address parts)."
				% own)
	var parent := get_parent()
	if parent != null:
		for sibling in parent.get_children():
			if sibling != self and sibling.get_script() == get_script() \
					and (sibling as NpcBrainWorldPart).get_part_name() == own:
				warnings.append("%s has the same name \"%s\": the brain refuses the world." % [
					sibling.name, own])
	return warnings


## The NpcBrainWorld this node belongs to (an NpcBrainWorld3D's `tiles`), or null outside of one.
func get_world() -> NpcBrainWorld:
	var node := get_parent()
	while node != null:
		if node is NpcBrainWorld:
			return node
		if node is NpcBrainWorld3D:
			return node.tiles
		node = node.get_parent()
	return null


## Tells the world that an object's state changed: only the states are drawn again (the layout,
## the walk grid and the baked town stand).
func notify_state_changed() -> void:
	var world := get_world() if is_inside_tree() else null
	if world != null:
		world.mark_state_changed()


## Refreshes warnings here and beside, and the world's drawing and walk grid.
func notify_changed() -> void:
	if not is_inside_tree():
		return
	update_configuration_warnings()
	for sibling in get_parent().get_children():
		if sibling != self and sibling is NpcBrainWorldPart:
			sibling.update_configuration_warnings()
	var world := get_world()
	if world != null:
		world.mark_layout_changed()
