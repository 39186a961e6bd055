extends Node2D
## An NPC of the Harbor autoload (its parent): walks where its agent sends it, through the
## inn's door (a step from one part of the map to the other), and is shown only while the scene
## on screen draws the part of the map it is in (hidden, it is out of view, and the brain thinks
## coarser for it).

@export var speed: float = 96.0
@export var color: Color = Color.CORAL

var _path: Array[Vector2] = []

@onready var _agent: NpcBrainAgent = $NpcBrainAgent
@onready var _harbor: Node2D = get_parent()


func _ready() -> void:
	_agent.move_requested.connect(func(_address: String, target: Vector2) -> void:
		_path = _harbor.route(global_position, target))


func _physics_process(delta: float) -> void:
	var level := get_tree().current_scene
	visible = level != null and level.has_method("shows") and level.shows(global_position)
	if _path.is_empty():
		return
	if _harbor.part_of(_path[0]) != _harbor.part_of(global_position):
		global_position = _path[0]  # through the door
	else:
		global_position = global_position.move_toward(_path[0], speed * delta)
	if global_position.is_equal_approx(_path[0]):
		_path.remove_at(0)
		if _path.is_empty():
			_agent.report_arrived()


func _draw() -> void:
	draw_circle(Vector2.ZERO, 10.0, color)
