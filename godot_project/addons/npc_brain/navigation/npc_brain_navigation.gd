@tool
class_name NpcBrainNavigation
extends Node
## Base of NpcBrainNavigation2D and NpcBrainNavigation3D, which walk an NpcBrainAgent's body
## with the game's NavigationAgent2D/3D: the body follows the navigation agent's path (a
## CharacterBody2D/3D by `velocity` and `move_and_slide()`, any other body by its position);
## `navigation_finished` reports arrived, or unreachable when the mesh ends short of the
## target. A body held up for good (an obstacle the mesh does not know) is the agent's arrival
## timeout's: the agent reports it unreachable and this node stops walking.

## The agent it walks for; empty: the NpcBrainAgent beside it.
@export var agent: NpcBrainAgent

var _navigation: Node = null


func _ready() -> void:
	set_physics_process(false)
	if Engine.is_editor_hint():
		return
	agent = agent if agent != null else _sibling("NpcBrainAgent") as NpcBrainAgent
	_navigation = _get_navigation()
	if agent == null or _navigation == null or not _has_body():
		push_error("%s %s: put it under the body, beside an NpcBrainAgent and a %s" % [
			get_script().get_global_name(), get_path(), _navigation_class()])
		return
	_connect_agent()
	agent.arrival_timed_out.connect(_stop.unbind(1))
	agent.talk_held.connect(_stop.unbind(1))  # it walks on with the agent's next move_requested
	_navigation.navigation_finished.connect(_on_navigation_finished)


func _physics_process(delta: float) -> void:
	if _navigation.is_navigation_finished():
		return
	var body: Variant = get_parent()
	var next: Variant = _navigation.get_next_path_position()
	var speed := _get_speed()
	if body is CharacterBody2D or body is CharacterBody3D:
		body.velocity = body.global_position.direction_to(next) * speed
		body.move_and_slide()
	else:
		body.global_position = body.global_position.move_toward(next, speed * delta)


func _get_configuration_warnings() -> PackedStringArray:
	var warnings := PackedStringArray()
	if not _has_body():
		warnings.append("Put it under the body the NPC walks with.")
	if agent == null and _sibling("NpcBrainAgent") == null:
		warnings.append("Add an NpcBrainAgent beside it (or set `agent`).")
	if _get_navigation() == null:
		warnings.append("Add a %s beside it (or set `navigation_agent`)." % _navigation_class())
	return warnings


## Sends the body to `target` (a Vector2 or Vector3) on the navigation mesh.
func walk_to(target: Variant) -> void:
	_navigation.target_position = target
	set_physics_process(true)


# The first sibling of the class (engine class or class_name) `type`, or null.
func _sibling(type: String) -> Node:
	if get_parent() == null:
		return null
	for sibling in get_parent().get_children():
		var script := sibling.get_script() as Script
		if sibling.is_class(type) or (script != null and script.get_global_name() == type):
			return sibling
	return null


func _on_navigation_finished() -> void:
	if not is_physics_processing():
		return
	_stop()
	if _navigation.is_target_reached():
		agent.report_arrived()
	else:
		agent.report_unreachable("the navigation mesh ends %.1f short of the target" %
				_navigation.get_final_position().distance_to(_navigation.target_position))


func _stop() -> void:
	set_physics_process(false)
	var body: Variant = get_parent()
	if body is CharacterBody2D:
		body.velocity = Vector2.ZERO
	elif body is CharacterBody3D:
		body.velocity = Vector3.ZERO


# Overridden: the navigation agent, its class, the speed, whether the parent is the right kind
# of body, and the agent's signal to follow.
func _get_navigation() -> Node:
	return null


func _get_speed() -> float:
	return 0.0


func _navigation_class() -> String:
	return ""


func _has_body() -> bool:
	return false


func _connect_agent() -> void:
	pass
