@tool
@icon("res://addons/npc_brain/icons/persona.svg")
class_name NpcBrainPersona
extends Resource
## Who an NPC is (the protocol's Persona): edit it in the inspector of an NpcBrainAgent, save it
## as a .tres to share it, or read it from a JSON file with `from_dict`.

@export var display_name: String = ""
@export_range(0, 120) var age: int = 30
@export var traits: PackedStringArray = []
@export_multiline var identity: String = ""
@export_multiline var lifestyle: String = ""
## What the NPC is up to these days.
@export_multiline var currently: String = ""
## Address of its home arena, e.g. "Lin family's house:bedroom" (the world prefix is optional).
@export var home: String = ""
## Addresses of the areas it knows at spawn; empty means every arena of the world.
@export var known_areas: PackedStringArray = []
## Address of the arena it works at, if any, e.g. "Hobbs Cafe:cafe" (it knows it from spawn).
## Empty: the brain reads the workplace from `identity` and `lifestyle`.
@export var workplace: String = ""


## Every address the persona names (home, workplace, known areas), those left empty aside: what
## must be an arena of its world.
func addresses() -> PackedStringArray:
	var named := PackedStringArray([home, workplace] + Array(known_areas))
	return PackedStringArray(Array(named).filter(func(address: String) -> bool: return address != ""))


## A persona from a JSON object: `name`, `age`, `traits` (a list or "a, b"; also `innate`),
## `identity` (also `learned`), `lifestyle`, `currently`, `home` (also `living_area`),
## `known_areas`, `workplace`; a nested `persona` object is read too.
static func from_dict(data: Dictionary) -> NpcBrainPersona:
	var fields: Dictionary = data.duplicate()
	var nested: Variant = data.get("persona")
	if nested is Dictionary:
		fields.merge(nested)
	var persona := NpcBrainPersona.new()
	persona.display_name = str(fields.get("name", ""))
	persona.age = int(fields.get("age", persona.age))
	var trait_field: Variant = fields.get("traits", fields.get("innate", []))
	if trait_field is String:
		persona.traits = PackedStringArray(Array((trait_field as String).split(",", false)).map(
				func(word: String) -> String: return word.strip_edges()))
	elif trait_field is Array:
		persona.traits = PackedStringArray(trait_field)
	persona.identity = str(fields.get("identity", fields.get("learned", "")))
	persona.lifestyle = str(fields.get("lifestyle", ""))
	persona.currently = str(fields.get("currently", ""))
	persona.home = str(fields.get(
			"home", fields.get("living_area", fields.get("home_address", ""))))
	persona.workplace = str(fields.get("workplace", ""))
	var known: Variant = fields.get("known_areas", fields.get("knownAreas", []))
	if known is Array:
		persona.known_areas = PackedStringArray(known)
	return persona
