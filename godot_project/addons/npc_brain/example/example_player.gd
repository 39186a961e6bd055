extends CharacterBody2D
## You: arrow keys to walk. NPCs that can see you do (the group "npc_brain_visible");
## T opens the dialogue box (the scene's `Dialogue`) on the nearest one: type, Enter, and it
## answers in its own words.

@export var speed: float = 160.0


func _ready() -> void:
	add_to_group(NpcBrainAgent.VISIBLE_GROUP)
	set_meta("npc_brain_name", "the player")


func _physics_process(_delta: float) -> void:
	velocity = Input.get_vector("ui_left", "ui_right", "ui_up", "ui_down") * speed
	move_and_slide()


func _unhandled_key_input(event: InputEvent) -> void:
	var key := event as InputEventKey
	if key == null or not key.pressed or key.keycode != KEY_T:
		return
	var nearest: NpcBrainAgent = null
	for agent in NpcBrain.get_agents():
		var distance := agent.get_body().global_position.distance_to(global_position)
		if distance < 96.0 and (nearest == null or distance
				< nearest.get_body().global_position.distance_to(global_position)):
			nearest = agent
	if nearest != null:
		$"../Dialogue".open(nearest, self)


func _draw() -> void:
	draw_circle(Vector2.ZERO, 10.0, Color.WHITE)
