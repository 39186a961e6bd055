@tool
class_name NpcBrainVerb
extends Resource
## Something your game lets its NPCs do beyond walking and using objects (the protocol's Verb):
## "ring_bell" on the chapel's bell, "open_shop" in the shop, "wave" anywhere. Declare verbs on
## the NpcBrainWorld (`verbs`, for every NPC) or on one NpcBrainAgent (`verbs`, for it alone).
## The brain's plans use a verb when its description fits what the NPC does; the agent then
## emits `action_requested(verb, args)` once its body is at the target, and the game answers
## `report_action_done(result)` or `report_action_failed(reason)`, which the NPC remembers.
## The brain checks every verb against this declaration: the game never receives another name,
## a target the verb does not apply to, or an argument out of its choices or range.

## Where it applies: the action's target.
enum Place {
	ANYWHERE, ## Wherever the NPC is (the target is its arena).
	OBJECT, ## On an object named in `targets` (any object when empty).
	ARENA, ## In an arena named in `targets` (any arena when empty).
}

## The name the model copies and `action_requested` gives: letters, digits and "_", e.g.
## "ring_bell".
@export var verb_name: String = ""
## What it does, in words the model reads to choose it, e.g. "Ring the chapel bell to tell
## the village the hour."
@export_multiline var description: String = ""
@export var place: Place = Place.ANYWHERE
## Names (or addresses) of the objects or arenas it applies to; empty: any.
@export var targets: PackedStringArray = []
## The npc ids that may use it; empty: every NPC it is declared for.
@export var users: PackedStringArray = []
@export var arguments: Array[NpcBrainVerbArgument] = []


## The verb as the protocol's Verb (proto3 JSON field names).
func to_proto() -> Dictionary:
	var args: Array[Dictionary] = []
	for argument in arguments:
		if argument != null:
			args.append(argument.to_proto())
	return {
		"name": verb_name, "description": description,
		"place": ["VERB_PLACE_ANYWHERE", "VERB_PLACE_OBJECT", "VERB_PLACE_ARENA"][place],
		"targets": Array(targets), "users": Array(users), "arguments": args,
	}


## A list of verbs as the protocol's repeated Verb, skipping empty slots.
static func list_to_proto(verbs: Array[NpcBrainVerb]) -> Array[Dictionary]:
	var out: Array[Dictionary] = []
	for verb in verbs:
		if verb != null:
			out.append(verb.to_proto())
	return out


## What the brain would refuse in this declaration, or what can never match in `world`, one
## sentence each (empty when nothing is): NpcBrainWorld.validate() lists them.
func get_problems(world: NpcBrainWorld) -> PackedStringArray:
	var problems := PackedStringArray()
	var label := "Verb \"%s\"" % verb_name
	var pattern := RegEx.create_from_string("^[A-Za-z_][A-Za-z0-9_]{0,63}$")
	if pattern.search(verb_name) == null:
		problems.append(label + ": name it with letters, digits and '_' (not starting with a digit).")
	if description.strip_edges() == "":
		problems.append(label + ": describe what it does; the model chooses verbs by their descriptions.")
	if place == Place.ANYWHERE and not targets.is_empty():
		problems.append(label + ": applies anywhere but names targets; set its place to Object or Arena.")
	var names := PackedStringArray()
	if place == Place.OBJECT:
		for arena in world.get_arenas():
			for item in arena.get_objects():
				names.append(item.get_object_name())
	elif place == Place.ARENA:
		for arena in world.get_arenas():
			names.append(arena.get_arena_name())
	for target in targets:
		if not names.has(target.get_slice(":", target.get_slice_count(":") - 1)):
			problems.append(label + ": no %s is named \"%s\"." % [
					"object" if place == Place.OBJECT else "arena", target])
	for argument in arguments:
		if argument == null:
			continue
		var name := "%s argument \"%s\"" % [label, argument.argument_name]
		if pattern.search(argument.argument_name) == null:
			problems.append(name + ": name it with letters, digits and '_'.")
		if argument.type == NpcBrainVerbArgument.Type.CHOICE and argument.choices.is_empty():
			problems.append(name + ": a Choice needs its choices.")
		if argument.type != NpcBrainVerbArgument.Type.CHOICE and argument.minimum > argument.maximum:
			problems.append(name + ": its minimum is above its maximum.")
	return problems
