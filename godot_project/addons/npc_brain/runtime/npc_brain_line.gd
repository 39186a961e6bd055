class_name NpcBrainLine
extends RefCounted
## One line of a conversation, for a speech bubble over its speaker.

## The speaker's npc_id ("" for someone the brain does not drive, such as the player).
var speaker_id: String = ""
var speaker_name: String = ""
var text: String = ""
## True on the NPC's line that ends its conversation with the player (`talk`: a goodbye, or the
## conversation's line limit); talking again starts a new conversation.
var ends_conversation: bool = false


func _init(speaker_npc_id: String = "", name: String = "", said: String = "") -> void:
	speaker_id = speaker_npc_id
	speaker_name = name
	text = said
