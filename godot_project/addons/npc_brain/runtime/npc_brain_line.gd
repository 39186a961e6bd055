class_name NpcBrainLine
extends RefCounted
## One line of a conversation, for a speech bubble over its speaker.

## The speaker's npc_id ("" for someone the brain does not drive, such as the player).
var speaker_id: String = ""
var speaker_name: String = ""
var text: String = ""


func _init(speaker_npc_id: String = "", name: String = "", said: String = "") -> void:
	speaker_id = speaker_npc_id
	speaker_name = name
	text = said
