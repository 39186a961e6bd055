class_name NpcBrainPerception
extends RefCounted
## Something an NPC perceives, sent with its next Decide (the protocol's PerceivedEvent):
## "<subject> <predicate> <object>" at an address, `distance` tiles away.

var subject: String = ""
var predicate: String = "is"
var object: String = ""
var address: String = ""
## In tiles.
var distance: float = 0.0


func _init(
		who: String = "", doing: String = "", where: String = "", tiles_away: float = 0.0
) -> void:
	subject = who
	object = doing
	address = where
	distance = tiles_away


## The PerceivedEvent message in proto3 JSON.
func to_proto() -> Dictionary:
	return {
		"subject": subject, "predicate": predicate, "object": object,
		"description": "%s %s %s" % [subject, predicate, object], "address": address,
		"distance": distance,
	}
