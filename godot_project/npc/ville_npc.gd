@tool
class_name VilleNpc
extends Node2D
## A resident of the Ville: a circle with its name and current action, walking the world's
## grid tile by tile (NpcBrainGrid.find_path) wherever its NpcBrainAgent (the `Agent` child)
## is sent, with a speech bubble for what it says. Place it in the editor on the tile where it
## starts, or let main.gd spawn it from a resident's JSON file.

## Emitted when the NPC reaches the tile it was sent to.
signal arrived(tile: Vector2i)

@export var color: Color = Color(0.9, 0.4, 0.35):
	set(value):
		color = value
		queue_redraw()
## Walking speed in tiles per (real) second at 60x; faster with the clock.
@export_range(0.5, 20.0) var walk_speed: float = 4.0
## Seconds a line of dialogue stays in the speech bubble.
@export var speech_seconds: float = 6.0

## The world it walks in (set by `setup`).
var world: NpcBrainWorld

var _path: Array[Vector2i] = []
var _speech_until_msec: int = 0

@onready var agent: NpcBrainAgent = $Agent
@onready var _name_label: Label = $NameLabel
@onready var _action_label: Label = $ActionLabel
@onready var _speech_label: Label = $SpeechLabel


func _ready() -> void:
	_name_label.text = get_display_name()
	_action_label.text = ""
	_speech_label.hide()
	if Engine.is_editor_hint():
		return
	agent.decided.connect(_on_agent_decided)
	agent.move_requested.connect(_on_agent_move_requested)
	agent.spoke.connect(func(line: NpcBrainLine) -> void: say(line.text))
	agent.perceiving.connect(_on_agent_perceiving)


func _process(delta: float) -> void:
	if Engine.is_editor_hint():
		return
	if _speech_label.visible and Time.get_ticks_msec() > _speech_until_msec:
		_speech_label.hide()
	if not _path.is_empty():
		_walk(delta)


func _draw() -> void:
	var radius := 9.0
	draw_circle(Vector2(0, 3), radius, Color(0, 0, 0, 0.25))
	draw_circle(Vector2.ZERO, radius, color)
	draw_arc(Vector2.ZERO, radius, 0.0, TAU, 24, color.darkened(0.5), 2.0, true)
	var initials := "".join(Array(get_display_name().split(" ", false)).map(
			func(word: String) -> String: return word.left(1)))
	var font := ThemeDB.fallback_font
	draw_string(font, Vector2(-radius, 4), initials, HORIZONTAL_ALIGNMENT_CENTER, radius * 2, 9)


## The persona's name ("" without one).
func get_display_name() -> String:
	var mind := get_node_or_null("Agent") as NpcBrainAgent
	return mind.persona.display_name if mind != null and mind.persona != null else ""


## Sets up the agent from a resident's JSON (data/residents/*.json; see
## NpcBrainPersona.from_dict): also `id` or `npc_id`, `perception`, `color`. Call before adding
## the NPC to the tree.
func apply_persona(data: Dictionary, fallback_id: String = "") -> void:
	var mind: NpcBrainAgent = get_node("Agent")
	mind.persona = NpcBrainPersona.from_dict(data)
	if mind.persona.display_name == "":
		mind.persona.display_name = fallback_id.capitalize()
	var id := str(data.get("npc_id", data.get("id", data.get("npcId", ""))))
	if id == "":
		id = mind.persona.display_name.to_snake_case().replace(" ", "_")
	mind.npc_id = id if id != "" else fallback_id
	var perception: Variant = data.get("perception")
	if perception is Dictionary:
		mind.vision_radius = float(perception.get("vision_radius", mind.vision_radius))
		mind.attention_bandwidth = int(
				perception.get("attention_bandwidth", mind.attention_bandwidth))
		mind.retention = int(perception.get("retention", mind.retention))
	var color_field: Variant = data.get("color")
	if color_field is String and Color.html_is_valid(color_field):
		color = Color.html(color_field)
	else:
		color = Color.from_hsv(float(hash(mind.npc_id) % 1000) / 1000.0, 0.55, 0.9)


## Snaps the NPC to the tile under it in `the_world` and joins the "npcs" group.
func setup(the_world: NpcBrainWorld) -> void:
	world = the_world
	global_position = world.grid.tile_to_global(world.grid.global_to_tile(global_position))
	add_to_group("npcs")


## Whether it is on its way somewhere.
func is_walking() -> bool:
	return not _path.is_empty()


## The action label's text as shown over its head.
func get_action_text() -> String:
	return _action_label.text


## Shows a line of dialogue in its speech bubble for `speech_seconds`.
func say(text: String) -> void:
	_speech_label.text = _displayable(text)
	_speech_label.show()
	NpcBrainLog.record("speech", {"npc": agent.npc_id, "text": text})
	_speech_until_msec = Time.get_ticks_msec() + int(speech_seconds * 1000.0)


func _on_agent_decided(decision: NpcBrainDecision) -> void:
	_action_label.text = _displayable(agent.get_label())
	_action_label.tooltip_text = decision.action.description


func _on_agent_move_requested(_address: String, target: Vector2) -> void:
	# On its way: set out from the tile it is stepping onto, so it never cuts between tiles.
	var from: Vector2i = (_path[0] if not _path.is_empty()
			else world.grid.global_to_tile(global_position))
	var path := world.grid.find_path(from, world.grid.global_to_tile(target))
	if path.is_empty():
		_path.clear()
		agent.report_unreachable("no path from %s" % from)
		return
	_path = path if is_walking() else path.slice(1)
	if _path.is_empty():
		_arrive.call_deferred()


# The player is perceived by the NPCs in its arena, within their vision radius.
func _on_agent_perceiving() -> void:
	var here := agent.get_address()
	var tile := world.grid.global_to_tile(global_position)
	for node in get_tree().get_nodes_in_group("player"):
		var player := node as VillePlayer
		if player == null or player.get_address() != here:
			continue
		var distance := Vector2(player.tile).distance_to(tile)
		if distance <= agent.vision_radius:
			agent.perceive(player.display_name, player.activity, here, distance)


func _walk(delta: float) -> void:
	var clock := NpcBrainGameClock.get_instance()
	if not clock.is_ticking():
		return
	# Faster with the clock (walk_speed is per real second at 60x), several tiles per frame.
	var budget := walk_speed * world.tile_size * delta * maxf(clock.time_scale / 60.0, 1.0)
	while budget > 0.0 and not _path.is_empty():
		var goal := world.grid.tile_to_global(_path[0])
		var step := minf(budget, global_position.distance_to(goal))
		global_position = global_position.move_toward(goal, step)
		budget -= step
		if not global_position.is_equal_approx(goal):
			return
		_path.pop_front()
		if _path.is_empty():
			_arrive()


func _arrive() -> void:
	arrived.emit(world.grid.global_to_tile(global_position))
	agent.report_arrived()


# The web runtime has no system fonts to fall back on (no emoji): drop what the font lacks.
func _displayable(text: String) -> String:
	if not OS.has_feature("web"):
		return text
	var font := _action_label.get_theme_font("font")
	var kept := PackedStringArray()
	for character in text:
		if font.has_char(character.unicode_at(0)):
			kept.append(character)
	return "".join(kept).replace("  ", " ")
