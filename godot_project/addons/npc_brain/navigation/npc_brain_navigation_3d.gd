@tool
@icon("res://addons/npc_brain/icons/agent.svg")
class_name NpcBrainNavigation3D
extends NpcBrainNavigation
## Walks an NpcBrainAgent's 3D body with your NavigationAgent3D: on `move_requested_3d` the
## target (the chosen tile's x and z) is put on your navigation mesh at the height the mesh has
## there (a ramp, an upper floor), then walked to (see NpcBrainNavigation). Put it under the
## body, beside the NpcBrainAgent and the NavigationAgent3D.

## The navigation agent that finds the way; empty: the NavigationAgent3D beside it.
@export var navigation_agent: NavigationAgent3D
## Walking speed, in meters per second.
@export var speed: float = 3.0
## How far above and below the target the mesh is looked for, in meters (in an
## NpcBrainWorld3D, at most half its `floor_height`: the target is on its floor already).
@export var height_reach: float = 50.0


## Where `target` lies on the navigation mesh: the mesh's point on the vertical line through it
## (within `height_reach`); the target itself where the mesh has none.
func project_on_mesh(target: Vector3) -> Vector3:
	var space: NpcBrainWorld3D = agent.world.space if agent != null and agent.world != null else null
	var reach := Vector3.UP * (minf(height_reach, space.floor_height * 0.5) if space != null
			else height_reach)
	var on_mesh := NavigationServer3D.map_get_closest_point_to_segment(
			(_get_navigation() as NavigationAgent3D).get_navigation_map(),
			target + reach, target - reach, true)
	return on_mesh if Vector2(on_mesh.x - target.x, on_mesh.z - target.z).length() < 0.01 else target


func _get_navigation() -> Node:
	return navigation_agent if navigation_agent != null else _sibling("NavigationAgent3D")


func _get_speed() -> float:
	return speed


func _navigation_class() -> String:
	return "NavigationAgent3D"


func _has_body() -> bool:
	return get_parent() is Node3D


func _connect_agent() -> void:
	agent.move_requested_3d.connect(func(_address: String, target: Vector3) -> void:
		walk_to(project_on_mesh(target)))
