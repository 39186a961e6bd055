extends Node
## Does the game's own verbs for the NpcBrainAgent beside it: add it to an NPC's body. Declare
## each verb (an NpcBrainVerb) on the World's `verbs` or the agent's; the agent asks for one
## with `action_requested` once its body is at the target, and remembers the answer.

@onready var _agent: NpcBrainAgent = $"../NpcBrainAgent"


func _ready() -> void:
	_agent.action_requested.connect(_on_action_requested)


func _on_action_requested(verb: String, args: Dictionary) -> void:
	match verb:
		"ring_bell":  # declared with the arguments "times" (INTEGER) and "tone" (CHOICE)
			_agent.report_action_done("the bell rang %d times, %s" % [args["times"], args["tone"]])
		"share_meal":  # agreed with the player: "Let's share a meal at the table at 12:30"
			_agent.world.set_object_state(_agent.requested_verb_target, "a meal for two laid out")
			_agent.report_action_done("shared a meal at the table")
		_:
			_agent.report_action_failed("nobody here knows how to %s" % verb)
