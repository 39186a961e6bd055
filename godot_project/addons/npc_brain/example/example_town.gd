extends Node2D
## The town's root: a corner label says what the brain is up to, in red when something is
## wrong (the brain away, or the world refused).

@onready var _world: NpcBrainWorld = $World
@onready var _status: Label = $Status


func _ready() -> void:
	_show("connecting to the brain...", Color.WHITE)
	_world.registered.connect(_show.bind("the brain knows the town", Color.WHITE))
	_world.registration_failed.connect(func(error: NpcBrainError) -> void:
		_show(error.describe(), Color.RED))
	NpcBrain.status_changed.connect(func(state: NpcBrainClient.State, detail: String) -> void:
		if state == NpcBrainClient.State.FAILING:
			_show("brain offline (%s): retrying" % detail, Color.RED))


func _show(text: String, color: Color) -> void:
	_status.text = text
	_status.modulate = color
