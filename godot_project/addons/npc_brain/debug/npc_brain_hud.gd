@icon("res://addons/npc_brain/icons/brain.svg")
class_name NpcBrainHud
extends CanvasLayer
## The debug bar (part of the optional overlay `npc_brain_debug.tscn`): the game clock with
## pause and speeds, how many NPCs are in the player's view (the brain thinks about the others
## coarser; see NpcBrainAgent.attention_mode), the brain's state (online; slow in amber; OFFLINE
## in red; REFUSED in red when the brain refused the world or an NPC for good: fix the scene)
## and the latest news.
## Anchored along the bottom of the screen at any size; `theme` styles it; its keys are the
## InputMap actions `npc_brain_pause` and `npc_brain_speed_1`..`_5` (Space, 1-5 unless the
## game maps them).

## Height of the bar at the bottom of the screen, in pixels.
const BAR_HEIGHT := 40.0
## Time scales offered (game seconds per real second).
const SCALES: Array[float] = [1.0, 10.0, 60.0, 300.0, 1200.0]
const ONLINE_COLOR := Color(0.8, 0.85, 0.9)
const SLOW_COLOR := Color(1, 0.8, 0.35)
const OFFLINE_COLOR := Color(1, 0.45, 0.4)
## The overlay's InputMap actions and their default keys.
const ACTIONS := {
	"npc_brain_pause": KEY_SPACE, "npc_brain_speed_1": KEY_1, "npc_brain_speed_2": KEY_2,
	"npc_brain_speed_3": KEY_3, "npc_brain_speed_4": KEY_4, "npc_brain_speed_5": KEY_5,
	"npc_brain_close": KEY_ESCAPE,
}

## Styles the bar (fonts, colors, button boxes); empty: the project's theme.
@export var theme: Theme

var _bar: ColorRect
var _clock: Label
var _in_view: Label
var _status: Label
var _pause_button: Button
var _scale_buttons: Array[Button] = []
var _count_queued: bool = false


## Adds the overlay's InputMap actions the game does not define, with their default keys.
static func ensure_actions() -> void:
	for action: String in ACTIONS:
		if InputMap.has_action(action):
			continue
		InputMap.add_action(action)
		var key := InputEventKey.new()
		key.keycode = ACTIONS[action]
		InputMap.action_add_event(action, key)


func _ready() -> void:
	ensure_actions()
	_build()
	var clock := NpcBrainGameClock.get_instance()
	var client := NpcBrainClient.get_instance()
	clock.minute_passed.connect(_on_minute_passed)
	client.status_changed.connect(_on_brain_status_changed)
	client.call_failed.connect(_on_call_failed)
	client.agent_attention_changed.connect(_on_agent_attention_changed)
	_status.text = "brain: connecting to %s" % client.base_url
	_refresh_controls()
	_watch_world.call_deferred()


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
	var clock := NpcBrainGameClock.get_instance()
	clock.paused = not clock.paused
	_refresh_controls()
	# Where each NPC stands in the window: tools and tests click there while the game is paused.
	var screen: Dictionary[String, Array] = {}
	var in_view: Array[String] = []
	var window := get_viewport().get_screen_transform()
	var to_screen := window * get_viewport().get_canvas_transform()
	for agent in NpcBrainClient.get_instance().get_agents():
		if agent.get_body() != null:  # 2D bodies
			var at := to_screen * agent.get_body().global_position
			screen[agent.npc_id] = [at.x, at.y]
		if agent.in_view:
			in_view.append(agent.npc_id)
	in_view.sort()
	var bar := window * _bar.get_global_rect()
	NpcBrainLog.record("clock", {
		"paused": clock.paused, "time_scale": clock.time_scale, "npcs_on_screen": screen,
		"npcs_in_view": in_view, "bar": [bar.position.x, bar.position.y, bar.size.x, bar.size.y],
	})


## Sets the game clock's speed (game seconds per real second).
func set_time_scale(scale: float) -> void:
	var clock := NpcBrainGameClock.get_instance()
	clock.time_scale = scale
	_refresh_controls()
	NpcBrainLog.record("clock", {"paused": clock.paused, "time_scale": clock.time_scale})


func _unhandled_input(event: InputEvent) -> void:
	if event.is_action_pressed("npc_brain_pause"):
		toggle_pause()
	else:
		for i in SCALES.size():
			if event.is_action_pressed("npc_brain_speed_%d" % (i + 1)):
				set_time_scale(SCALES[i])
				get_viewport().set_input_as_handled()
		return
	get_viewport().set_input_as_handled()


func _build() -> void:
	_bar = ColorRect.new()
	_bar.name = "Bar"
	_bar.theme = theme
	_bar.color = Color(0.1, 0.11, 0.12, 0.96)
	_bar.set_anchors_and_offsets_preset(Control.PRESET_BOTTOM_WIDE)
	_bar.offset_top = -BAR_HEIGHT
	add_child(_bar)
	var row := HBoxContainer.new()
	row.set_anchors_and_offsets_preset(Control.PRESET_FULL_RECT)
	row.offset_left = 12.0
	row.offset_right = -12.0
	row.add_theme_constant_override("separation", 2)
	_bar.add_child(row)
	_clock = Label.new()
	_clock.custom_minimum_size = Vector2(186, 0)
	_clock.add_theme_color_override("font_color", Color(1, 0.95, 0.8))
	_clock.add_theme_font_size_override("font_size", 14)
	row.add_child(_clock)
	_pause_button = _button(row, "Pause", toggle_pause)
	for scale in SCALES:
		_scale_buttons.append(_button(row, "%dx" % scale, set_time_scale.bind(scale)))
	_in_view = Label.new()
	_in_view.name = "InView"
	_in_view.tooltip_text = "NPCs in the player's view: the brain thinks about the others coarser"
	_in_view.mouse_filter = Control.MOUSE_FILTER_PASS
	_in_view.add_theme_color_override("font_color", ONLINE_COLOR)
	_in_view.add_theme_font_size_override("font_size", 12)
	row.add_child(_in_view)
	_status = Label.new()
	_status.size_flags_horizontal = Control.SIZE_EXPAND_FILL
	_status.horizontal_alignment = HORIZONTAL_ALIGNMENT_RIGHT
	_status.text_overrun_behavior = TextServer.OVERRUN_TRIM_ELLIPSIS
	_status.clip_text = true
	_status.add_theme_color_override("font_color", ONLINE_COLOR)
	_status.add_theme_font_size_override("font_size", 13)
	row.add_child(_status)


func _button(box: HBoxContainer, text: String, action: Callable) -> Button:
	var button := Button.new()
	button.text = text
	button.focus_mode = Control.FOCUS_NONE
	button.size_flags_vertical = Control.SIZE_SHRINK_CENTER
	button.add_theme_font_size_override("font_size", 12)
	button.pressed.connect(action)
	box.add_child(button)
	return button


func _refresh_controls() -> void:
	var clock := NpcBrainGameClock.get_instance()
	_pause_button.text = "Play" if clock.paused else "Pause"
	for i in SCALES.size():
		_scale_buttons[i].disabled = is_equal_approx(SCALES[i], clock.time_scale)
	_clock.text = NpcBrainTime.to_label(clock.now())


func _watch_world() -> void:
	var world := NpcBrainWorld.find_in(get_tree())
	if world != null:
		world.registered.connect(_on_world_registered.bind(world))
		world.registration_failed.connect(show_failure)


func _on_world_registered(world: NpcBrainWorld) -> void:
	show_message("%s registered: %d sectors, %d arenas, %d NPCs" % [
		world.world_name, world.get_sectors().size(), world.get_arenas().size(),
		NpcBrainClient.get_instance().get_agents().size(),
	])
	_count_in_view()


func _on_agent_attention_changed(_agent: NpcBrainAgent, _now_in_view: bool) -> void:
	if not _count_queued:  # once a frame: a camera sweeping over a crowd changes hundreds
		_count_queued = true
		_count_in_view.call_deferred()


func _count_in_view() -> void:
	_count_queued = false
	var agents := NpcBrainClient.get_instance().get_agents()
	var seen := agents.filter(func(agent: NpcBrainAgent) -> bool: return agent.in_view).size()
	_in_view.text = "  %d/%d in view" % [seen, agents.size()]


func _on_minute_passed(unix_time: int) -> void:
	_clock.text = NpcBrainTime.to_label(unix_time)


# A request the brain refused for good (a persona clashing with the stored one, a bad token).
func _on_call_failed(error: NpcBrainError) -> void:
	if error.is_permanent() and error.method != "RegisterWorld":  # the world reports its own
		show_failure(error)


func _on_brain_status_changed(state: NpcBrainClient.State, detail: String) -> void:
	var client := NpcBrainClient.get_instance()
	var text := "brain: connecting to %s" % client.base_url
	var color := ONLINE_COLOR
	match state:
		NpcBrainClient.State.ONLINE:
			text = "brain online at %s" % client.base_url
		NpcBrainClient.State.SLOW:
			text = "brain slow (%s): NPCs carry on, thinking takes longer" % detail
			color = SLOW_COLOR
		NpcBrainClient.State.FAILING:
			text = "brain OFFLINE (%s): NPCs keep their last action, retrying" % detail
			color = OFFLINE_COLOR
	_status.add_theme_color_override("font_color", color)
	show_message(text)
	NpcBrainLog.record("hud_status", {"state": client.state_name(), "text": text})
