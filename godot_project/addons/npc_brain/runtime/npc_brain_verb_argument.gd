@tool
class_name NpcBrainVerbArgument
extends Resource
## One argument of an NpcBrainVerb (the protocol's VerbArgument): a choice among `choices`, or a
## number (whole with INTEGER) from `minimum` to `maximum`. The brain sends only values that fit.

enum Type {
	CHOICE, ## One of `choices`; `action_requested` gives it as a String.
	NUMBER, ## A number from `minimum` to `maximum`, given as a float.
	INTEGER, ## A whole number from `minimum` to `maximum`, given as an int.
}

## The argument's name, as `action_requested`'s `args` key, e.g. "times".
@export var argument_name: String = ""
## What it means, in words the model reads, e.g. "how many strokes".
@export var description: String = ""
@export var type: Type = Type.CHOICE
## The values a CHOICE may take, e.g. ["loud", "soft"].
@export var choices: PackedStringArray = []
## The range of a NUMBER or INTEGER.
@export var minimum: float = 0.0
@export var maximum: float = 100.0


## The argument as the protocol's VerbArgument (proto3 JSON field names).
func to_proto() -> Dictionary:
	var message := {
		"name": argument_name, "description": description,
		"type": ["VERB_ARGUMENT_TYPE_CHOICE", "VERB_ARGUMENT_TYPE_NUMBER",
				"VERB_ARGUMENT_TYPE_INTEGER"][type],
	}
	if type == Type.CHOICE:
		message["choices"] = Array(choices)
	else:
		message["minimum"] = minimum
		message["maximum"] = maximum
	return message
