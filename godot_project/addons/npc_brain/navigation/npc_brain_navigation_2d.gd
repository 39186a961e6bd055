@tool
@icon("res://addons/npc_brain/icons/agent.svg")
class_name NpcBrainNavigation2D
extends NpcBrainNavigation
## Walks an NpcBrainAgent's 2D body with your NavigationAgent2D: on `move_requested` the
## navigation agent's target becomes the position the brain chose (see NpcBrainNavigation).
## Put it under the body, beside the NpcBrainAgent and the NavigationAgent2D.

## The navigation agent that finds the way; empty: the NavigationAgent2D beside it.
@export var navigation_agent: NavigationAgent2D
## Walking speed, in pixels per second.
@export var speed: float = 64.0


func _get_navigation() -> Node:
	return navigation_agent if navigation_agent != null else _sibling("NavigationAgent2D")


func _get_speed() -> float:
	return speed


func _navigation_class() -> String:
	return "NavigationAgent2D"


func _has_body() -> bool:
	return get_parent() is Node2D


func _connect_agent() -> void:
	agent.move_requested.connect(func(_address: String, target: Vector2) -> void:
		walk_to(target))
