extends Node2D
## A scene of the Harbor: the street, or the inn's hall. It draws its part of the map (the NPCs
## in that part are shown over it), and Enter takes the player through the door to `door_to`.

@export var part: Rect2 = Rect2(0, 0, 384, 256)
@export var color: Color = Color(0.42, 0.62, 0.33)
@export_file("*.tscn") var door_to: String = ""


## Whether this scene shows a point of the map (the Harbor's NPCs ask, to show themselves).
func shows(point: Vector2) -> bool:
	return part.has_point(point)


func _unhandled_input(event: InputEvent) -> void:
	if event.is_action_pressed("ui_accept") and door_to != "":
		get_tree().change_scene_to_file.call_deferred(door_to)


func _draw() -> void:
	draw_rect(part, color)
