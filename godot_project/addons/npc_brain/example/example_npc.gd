extends CharacterBody2D
## A townsperson: its NpcBrainAgent child decides what it does; this body walks there (the
## world's grid path here: use your own navigation if you have one) and shows what it does
## and says.

@export var speed: float = 96.0
@export var color: Color = Color.CORAL

var _path: PackedVector2Array = []

@onready var _agent: NpcBrainAgent = $NpcBrainAgent
@onready var _label: Label = $Label


func _ready() -> void:
	_agent.move_requested.connect(_on_move_requested)
	_agent.decided.connect(func(_decision: NpcBrainDecision) -> void:
		_label.text = _agent.get_label())
	_agent.spoke.connect(func(line: NpcBrainLine) -> void: _label.text = "\"%s\"" % line.text)
	_agent.line_progress.connect(func(text: String) -> void:  # "": still thinking what to say
		_label.text = "\"%s\"" % text if text != "" else "...")


func _physics_process(delta: float) -> void:
	if _path.is_empty():
		return
	global_position = global_position.move_toward(_path[0], speed * delta)
	if global_position.is_equal_approx(_path[0]):
		_path.remove_at(0)
		if _path.is_empty():
			_agent.report_arrived()


func _draw() -> void:
	draw_circle(Vector2.ZERO, 10.0, color)


func _on_move_requested(_address: String, target: Vector2) -> void:
	_path = _agent.world.grid.find_path_points(global_position, target)
	if _path.is_empty():
		_agent.report_unreachable()
