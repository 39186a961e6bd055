class_name NpcBrainObjectChange
extends RefCounted
## An object's new state set by an action, e.g. "the Ville:Hobbs Cafe:cafe:coffee machine" is
## "brewing coffee". An empty state means idle.

var address: String = ""
var state: String = ""


func _init(object_address: String = "", new_state: String = "") -> void:
	address = object_address
	state = new_state
