@tool
class_name Npc
extends Node2D
## An NPC's body: a circle with its name and current action, walking the Town's grid tile by
## tile. Place it in the editor on the tile where it starts. Its NpcMind child (the `Mind`
## node) talks to the brain and tells it where to go.

## Emitted when the NPC reaches the tile it was sent to for `address`.
signal arrived(address: String, tile: Vector2i)

## Added to the action label while the brain is still thinking (the web runtime has no emoji).
const THINKING_SUFFIX := " (thinking...)"

## Stable id the brain knows the NPC by, e.g. "isabella_rodriguez".
@export var npc_id: String = ""
@export var color: Color = Color(0.9, 0.4, 0.35):
	set(value):
		color = value
		queue_redraw()
## Walking speed in tiles per (real) second.
@export_range(0.5, 20.0) var walk_speed: float = 4.0
## Seconds a line of dialogue stays in the speech bubble.
@export var speech_seconds: float = 6.0

@export_group("Perception")
## Other NPCs and busy objects within this many tiles (in the same arena) are perceived.
@export var vision_radius: float = 8.0
## The brain keeps the nearest this many perceived events per decision.
@export var attention_bandwidth: int = 8
## The brain skips events among the last this many it observed.
@export var retention: int = 8

@export_group("Persona")
@export var display_name: String = "":
	set(value):
		display_name = value
		if is_node_ready():
			_name_label.text = value
@export_range(0, 120) var age: int = 30
@export var traits: PackedStringArray = []
@export_multiline var identity: String = ""
@export_multiline var lifestyle: String = ""
## What the NPC is up to these days.
@export_multiline var currently: String = ""
## Address of its home arena, e.g. "Lin family's house:bedroom" (the world prefix is optional).
@export var home: String = ""
## Addresses of the areas it knows at spawn; empty means every arena of the town.
@export var known_areas: PackedStringArray = []

## The town it walks in (set by `setup`).
var town: Town
## The tile it stands on (the last one reached while walking).
var tile: Vector2i = Vector2i.ZERO
## Address of the arena it is in (kept while crossing doors and open ground).
var current_address: String = ""
## What it is doing, for others' perception: "brewing coffee" (from "X is brewing coffee").
var activity: String = "idle"
## Where it was last sent.
var target_address: String = ""

var _path: Array[Vector2i] = []
var _speech_until_msec: int = 0
var _rng := RandomNumberGenerator.new()

@onready var mind: NpcMind = $Mind
@onready var _name_label: Label = $NameLabel
@onready var _action_label: Label = $ActionLabel
@onready var _speech_label: Label = $SpeechLabel


func _ready() -> void:
	_name_label.text = display_name
	_action_label.text = ""
	_speech_label.hide()
	_rng.seed = hash(npc_id)


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
	var initials := "".join(Array(display_name.split(" ", false)).map(
			func(word: String) -> String: return word.left(1)))
	var font := ThemeDB.fallback_font
	draw_string(font, Vector2(-radius, 4), initials, HORIZONTAL_ALIGNMENT_CENTER, radius * 2, 9)


## Fills the persona fields from a resident's JSON (data/residents/*.json). Accepts `id` or
## `npc_id`, `name`, `age`, `traits` (a list or "a, b"; also `innate`), `identity` (also
## `learned`), `lifestyle`, `currently`, `home` (also `living_area`), `known_areas`, `color`.
func apply_persona(persona: Dictionary, fallback_id: String = "") -> void:
	var nested: Variant = persona.get("persona")
	var fields: Dictionary = persona.duplicate()
	if nested is Dictionary:
		fields.merge(nested)
	display_name = str(fields.get("name", fallback_id.capitalize()))
	npc_id = str(fields.get("npc_id", fields.get("id", fields.get("npcId", ""))))
	if npc_id == "":
		npc_id = display_name.to_snake_case().replace(" ", "_") if display_name != "" else fallback_id
	age = int(fields.get("age", age))
	var trait_field: Variant = fields.get("traits", fields.get("innate", []))
	if trait_field is String:
		traits = PackedStringArray(Array((trait_field as String).split(",", false)).map(
				func(word: String) -> String: return word.strip_edges()))
	elif trait_field is Array:
		traits = PackedStringArray(trait_field)
	identity = str(fields.get("identity", fields.get("learned", "")))
	lifestyle = str(fields.get("lifestyle", ""))
	currently = str(fields.get("currently", ""))
	home = str(fields.get("home", fields.get("living_area", fields.get("home_address", ""))))
	var known: Variant = fields.get("known_areas", fields.get("knownAreas", []))
	if known is Array:
		known_areas = PackedStringArray(known)
	var perception: Variant = fields.get("perception")
	if perception is Dictionary:
		vision_radius = float(perception.get("vision_radius", vision_radius))
		attention_bandwidth = int(perception.get("attention_bandwidth", attention_bandwidth))
		retention = int(perception.get("retention", retention))
	var color_field: Variant = fields.get("color")
	if color_field is String and Color.html_is_valid(color_field):
		color = Color.html(color_field)
	else:
		color = Color.from_hsv(float(hash(npc_id) % 1000) / 1000.0, 0.55, 0.9)


## Snaps the NPC to the tile under it in `the_town` and joins the "npcs" group.
func setup(the_town: Town) -> void:
	town = the_town
	tile = town.local_to_tile(town.to_local(global_position))
	global_position = town.to_global(town.tile_center(tile))
	current_address = town.address_at(tile)
	add_to_group("npcs")


## The address it stands in, or its home when it stands on open ground at spawn.
func get_address() -> String:
	return current_address if current_address != "" else town.full_address(home)


## Whether it is on its way somewhere.
func is_walking() -> bool:
	return not _path.is_empty()


## The tile it is walking to, or the one it stands on.
func get_destination() -> Vector2i:
	return _path.back() if not _path.is_empty() else tile


## Sends it to the tile of `address` (the object's tile, else a free tile of the arena).
## Returns false when the address is unknown or unreachable; it then stays where it is.
func go_to(address: String) -> bool:
	var taken: Array[Vector2i] = []
	for node in get_tree().get_nodes_in_group("npcs"):
		var other := node as Npc
		if other != null and other != self:
			taken.append(other.tile)
			taken.append(other.get_destination())
	# On its way: set out from the tile it is stepping onto, so it never cuts between tiles.
	var from: Vector2i = tile if _path.is_empty() else _path[0]
	var target := town.resolve_target(address, from, taken, _rng)
	if target == Town.NO_TILE:
		return false
	var path := town.find_path(from, target)
	if path.is_empty():
		return false
	target_address = address
	_path = path if is_walking() else path.slice(1)
	if _path.is_empty():
		_arrive.call_deferred()
	return true


## Shows what it is doing: `label` is the brain's short emoji label, `description` the sentence;
## `thinking`: the brain is still making up its mind (a provisional action).
func show_action(label: String, description: String, thinking: bool = false) -> void:
	var prefix := display_name + " is "
	activity = description.substr(prefix.length()) if description.begins_with(prefix) else description
	var shown := _displayable(label).strip_edges()
	_action_label.text = (shown if shown != "" else activity) + (THINKING_SUFFIX if thinking else "")
	_action_label.tooltip_text = description


## The action label's text as shown over its head.
func get_action_text() -> String:
	return _action_label.text


## Shows a line of dialogue in its speech bubble for `speech_seconds`.
func say(text: String) -> void:
	_speech_label.text = _displayable(text)
	_speech_label.show()
	EventLog.record("speech", {"npc": npc_id, "text": text})
	_speech_until_msec = Time.get_ticks_msec() + int(speech_seconds * 1000.0)


func _walk(delta: float) -> void:
	if not GameClock.is_ticking():
		return
	# Faster with the clock (walk_speed is per real second at 60x), several tiles per frame if need be.
	var budget := walk_speed * town.tile_size * delta * maxf(GameClock.time_scale / 60.0, 1.0)
	while budget > 0.0 and not _path.is_empty():
		var goal := town.to_global(town.tile_center(_path[0]))
		var step := minf(budget, global_position.distance_to(goal))
		global_position = global_position.move_toward(goal, step)
		budget -= step
		if not global_position.is_equal_approx(goal):
			return
		tile = _path.pop_front()
		var here := town.address_at(tile)
		if here != "":
			current_address = here
		if _path.is_empty():
			_arrive()


func _arrive() -> void:
	arrived.emit(target_address, tile)


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
