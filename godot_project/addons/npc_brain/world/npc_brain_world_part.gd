@tool
class_name TownPart
extends Node
## Base of the town's data nodes (Sector, Arena, GameObject): finds the Town above it and tells
## it to redraw and rebuild when the node's fields or place in the tree change.


func _enter_tree() -> void:
	notify_changed()


func _exit_tree() -> void:
	notify_changed()


## The Town this node belongs to, or null outside of one.
func get_town() -> Town:
	var node := get_parent()
	while node != null:
		if node is Town:
			return node
		node = node.get_parent()
	return null


## Refreshes warnings here and the town's drawing and walk grid.
func notify_changed() -> void:
	if not is_inside_tree():
		return
	update_configuration_warnings()
	var town := get_town()
	if town != null:
		town.mark_layout_changed()
