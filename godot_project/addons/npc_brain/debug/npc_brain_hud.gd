class_name VilleHud
extends CanvasLayer
## The bottom bar: the game clock with its controls (pause, time scale), the brain's connection
## and the latest news. Keys: Space pauses, 1-5 pick a time scale.

## Height of the bar at the bottom of the screen, in pixels.
const BAR_HEIGHT := 40.0
## Time scales offered (game seconds per real second).
const SCALES: Array[float] = [1.0, 10.0, 60.0, 300.0, 1200.0]
const ONLINE_COLOR := Color(0.8, 0.85, 0.9)
const SLOW_COLOR := Color(1, 0.8, 0.35)
const OFFLINE_COLOR := Color(1, 0.45, 0.4)

var _pause_button: Button
var _scale_buttons: Array[Button] = []

@onready var _bar: ColorRect = $Bar
@onready var _clock: Label = $Bar/Clock
@onready var _status: Label = $Bar/Status


func _ready() -> void:
	NpcBrainClock.minute_passed.connect(_on_minute_passed)
	NpcBrain.status_changed.connect(_on_brain_status_changed)
	_clock.text = NpcBrainTime.to_label(NpcBrainClock.now())
	_status.text = "brain: connecting to %s" % NpcBrain.base_url
	_build_controls()


## Shows a failure the developer must fix (the brain refused the world or a request for good),
## in red; it stays until the brain's state changes.
func show_failure(error: NpcBrainError) -> void:
	var text := "brain REFUSED %s (%s): %s" % [error.method, error.code, error.message]
	_status.add_theme_color_override("font_color", OFFLINE_COLOR)
	show_message(text)
	NpcBrainLog.error("hud_status", {"state": "REFUSED", "text": text})


## Shows a line of news on the bar.
func show_message(text: String) -> void:
	_status.text = text


## Pauses or resumes the game clock.
func toggle_pause() -> void:
	NpcBrainClock.paused = not NpcBrainClock.paused
	_refresh_controls()
	# Where each NPC stands on screen: tools and tests click there while the game is paused.
	var screen: Dictionary[String, Array] = {}
	var to_screen := get_viewport().get_canvas_transform()
	for node in get_tree().get_nodes_in_group("npcs"):
		var npc := node as VilleNpc
		var at := to_screen * npc.global_position
		screen[npc.agent.npc_id] = [at.x, at.y]
	NpcBrainLog.record("clock", {
		"paused": NpcBrainClock.paused, "time_scale": NpcBrainClock.time_scale, "npcs_on_screen": screen,
	})


## Sets the game clock's speed (game seconds per real second).
func set_time_scale(scale: float) -> void:
	NpcBrainClock.time_scale = scale
	_refresh_controls()
	NpcBrainLog.record("clock", {
		"paused": NpcBrainClock.paused, "time_scale": NpcBrainClock.time_scale})


func _unhandled_key_input(event: InputEvent) -> void:
	var key := event as InputEventKey
	if key == null or not key.pressed or key.echo:
		return
	if key.keycode == KEY_SPACE:
		toggle_pause()
	elif key.keycode >= KEY_1 and key.keycode < KEY_1 + SCALES.size():
		set_time_scale(SCALES[key.keycode - KEY_1])
	else:
		return
	get_viewport().set_input_as_handled()


func _build_controls() -> void:
	var box := HBoxContainer.new()
	box.position = Vector2(200, 6)
	box.add_theme_constant_override("separation", 2)
	_bar.add_child(box)
	_pause_button = _button(box, "Pause", toggle_pause)
	for scale in SCALES:
		_scale_buttons.append(_button(box, "%dx" % scale, set_time_scale.bind(scale)))
	_status.offset_left = 470.0
	_refresh_controls()


func _button(box: HBoxContainer, text: String, action: Callable) -> Button:
	var button := Button.new()
	button.text = text
	button.focus_mode = Control.FOCUS_NONE
	button.add_theme_font_size_override("font_size", 12)
	button.pressed.connect(action)
	box.add_child(button)
	return button


func _refresh_controls() -> void:
	_pause_button.text = "Play" if NpcBrainClock.paused else "Pause"
	for i in SCALES.size():
		_scale_buttons[i].disabled = is_equal_approx(SCALES[i], NpcBrainClock.time_scale)
	_clock.text = NpcBrainTime.to_label(NpcBrainClock.now())


func _on_minute_passed(unix_time: int) -> void:
	_clock.text = NpcBrainTime.to_label(unix_time)


func _on_brain_status_changed(state: NpcBrainClient.State, detail: String) -> void:
	var text := "brain: connecting to %s" % NpcBrain.base_url
	var color := ONLINE_COLOR
	match state:
		NpcBrainClient.State.ONLINE:
			text = "brain online at %s" % NpcBrain.base_url
		NpcBrainClient.State.SLOW:
			text = "brain slow (%s): NPCs carry on, thinking takes longer" % detail
			color = SLOW_COLOR
		NpcBrainClient.State.FAILING:
			text = "brain OFFLINE (%s): NPCs keep their last action, retrying" % detail
			color = OFFLINE_COLOR
	_status.add_theme_color_override("font_color", color)
	show_message(text)
	NpcBrainLog.record("hud_status", {"state": NpcBrain.state_name(), "text": text})
