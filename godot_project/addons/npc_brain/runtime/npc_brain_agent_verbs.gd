extends RefCounted
## An NpcBrainAgent's verbs: the action whose verb waits for the body to arrive, the request to
## the game (`action_requested`, timed out after `verb_timeout_s`), and the game's answers, sent
## with the next Decide (the protocol's VerbOutcome): a part of the agent, kept apart by concern.
## The verb asked and not answered yet is the agent's `requested_verb`.

var _agent: NpcBrainAgent
# The agent's `_wake_in(seconds, then)`: its timers go with it when it is freed.
var _wake_in: Callable
# An action whose verb waits for the body to arrive; the last verb action requested (once each).
var _due: NpcBrainAction = null
var _asked: String = ""
# The game's answers to verbs, for the next Decide.
var _outcomes: Array[Dictionary] = []


func _init(agent: NpcBrainAgent, wake_in: Callable) -> void:
	_agent = agent
	_wake_in = wake_in


## A decided action: its verb is asked for once the body is there (once per action).
func set_due(action: NpcBrainAction) -> void:
	var key := "%s@%s@%d" % [action.verb, action.verb_target, action.start_time]
	_due = action if action.verb != "" and key != _asked else null


## The body could not get to the action's place: its verb is remembered as not done.
func unreached() -> void:
	if _due != null:
		_add_outcome(_due.verb, _due.verb_target, false, "could not get there")
		_due = null


## Asks the game for the due verb (`action_requested`), if any: the body is there.
func request() -> void:
	if _due == null:
		return
	var action := _due
	_due = null
	_asked = "%s@%s@%d" % [action.verb, action.verb_target, action.start_time]
	if _agent.requested_verb != "":
		_time_out("not answered before the next verb, %s" % action.verb)
	_agent.requested_verb = action.verb
	_agent.requested_verb_target = action.verb_target
	NpcBrainLog.record("action_requested", {
		"npc": _agent.npc_id, "verb": action.verb, "args": action.verb_args,
		"target": action.verb_target, "game_time": NpcBrainGameClock.get_instance().now_rfc3339(),
	})
	_agent.action_requested.emit(action.verb, action.verb_args.duplicate())
	var asked := _asked
	var timeout := _agent.verb_timeout_s
	if timeout > 0.0:
		_wake_in.call(timeout, func() -> void:
			if _agent.requested_verb != "" and _asked == asked:
				_time_out("no answer from the game in %.0f s" % timeout))


## The game's answer to the requested verb.
func answer(done: bool, detail: String) -> void:
	if _agent.requested_verb == "":
		push_warning("NpcBrain: %s reported an action with no verb requested" % _agent.npc_id)
		return
	_add_outcome(_agent.requested_verb, _agent.requested_verb_target, done, detail)
	_agent.requested_verb = ""
	_agent.requested_verb_target = ""


## The outcomes for the next Decide (taken: a failed Decide gives them back with `keep`).
func take_outcomes() -> Array[Dictionary]:
	var outcomes := _outcomes
	_outcomes = []
	return outcomes


## Verb outcomes a failed Decide carried go with the next one when the brain was away
## (transient). A brain that refused the request (an outcome of a verb it no longer knows) would
## refuse them on every retry, and one that lost the NPC lost what asked for them: dropped, with
## a warning.
func keep(outcomes: Array[Dictionary], error: NpcBrainError) -> void:
	if outcomes.is_empty():
		return
	if error.get_kind() == NpcBrainError.Kind.TRANSIENT:
		_outcomes = outcomes + _outcomes
		return
	var verbs := PackedStringArray()
	for outcome in outcomes:
		verbs.append(str(outcome["name"]))
	push_warning("NpcBrain: %s; its verb outcomes (%s) are dropped, not sent again" % [
		error.describe(), ", ".join(verbs)])


func _time_out(reason: String) -> void:  # answered as not done, for the game
	var verb := _agent.requested_verb
	answer(false, reason)
	_agent.action_timed_out.emit(verb)


func _add_outcome(verb: String, target: String, done: bool, detail: String) -> void:
	_outcomes.append({"name": verb, "target": target, "done": done, "detail": detail})
	NpcBrainLog.record("action_done" if done else "action_failed", {
		"npc": _agent.npc_id, "verb": verb, "target": target, "detail": detail,
		"game_time": NpcBrainGameClock.get_instance().now_rfc3339(),
	})
