@tool
@icon("res://addons/npc_brain/icons/agent.svg")
class_name NpcBrainAgent
extends Node
## An NPC's mind, for any body: add it as a child of your own CharacterBody2D or
## CharacterBody3D (any Node2D or Node3D), give it an `npc_id` and a `persona`, and connect its
## signals. It spawns the NPC in the brain once the world is registered, asks Decide when the
## brain said to (`askAgainAt`) or when the action ends, and tells the body what to do through
## signals. Moving stays the game's: on `move_requested` (`move_requested_3d` for a 3D body),
## walk there your way (NavigationAgent2D/3D, AStarGrid2D, a tween; NpcBrainNavigation2D/3D do
## it with a NavigationAgent2D/3D), then call `report_arrived()`, or `report_unreachable()` when
## there is no way. A body that never reports (stuck on a corner) is given up on after the
## arrival timeout (`walk_speed`, `arrival_grace_s`): the agent reports it unreachable itself.
##
## What the NPC perceives is sent with each Decide: the other agents, the nodes of the group
## "npc_brain_visible" (`VISIBLE_GROUP`: your player, say; meta "npc_brain_name" and
## "npc_brain_activity" name them and what they do) and the busy objects of its world, within
## `vision_radius` tiles and in its line of sight (walls block it, doors do not), in an arena or
## on open ground (unless `perceive_world` is off), plus what the game adds with `perceive()`
## (connect `perceiving`, emitted just before each Decide).
##
## Attention: each Decide says whether the player can see the NPC (`in_view`: its body on a
## screen, by a VisibleOnScreenNotifier2D/3D the agent adds to it; see `attention_mode`). Out
## of view, the brain thinks coarser and cheaper (hour-level plans, a conversation in one LLM
## call, perceptions rated in longer batches); when the NPC comes into view the agent asks
## Decide again at once (once per entry), so the brain restores the detail before the player
## notices. Far away (`crowd`: set by the game, or off screen beyond `crowd_distance`), it says
## ATTENTION_CROWD: the brain makes no LLM call for it until something concerns it.
##
## Persona edits: an NPC the brain knows with another persona (a trait or its home edited since)
## is updated, its memories and plans kept: `spawned(true)` as for a resumed one.
##
## Save games (NpcBrain.save_game/load_game): during a load the agent makes no calls; after it,
## it drops its action and spawns and decides again at the restored clock.
##
## Failures: a brain away or slow is retried with a growing delay (the NPC keeps its action);
## a brain that lost the world or the NPC gets them again; a request the brain refuses for good
## (say a name another NPC of the world has) is reported with push_error and `failed`,
## and the agent stops asking until `start()` is called again.

## The brain has the NPC (`resumed`: it already knew it, with its memories; its persona updated
## when it was edited since).
signal spawned(resumed: bool)
## A new decision arrived (the action is `decision.action`).
signal decided(decision: NpcBrainDecision)
## Go to `address`; `target` is the global position of the tile chosen there (2D bodies).
signal move_requested(address: String, target: Vector2)
## Go to `address`; `target` is the 3D position of the tile chosen there, at the body's height
## (3D bodies; see NpcBrainWorld.tile_size_3d).
signal move_requested_3d(address: String, target: Vector3)
## The body did not report arriving at `address` within the arrival timeout (`walk_speed`,
## `arrival_grace_s`): the agent reports it unreachable right after; stop walking there.
signal arrival_timed_out(address: String)
## This NPC says a line (show a speech bubble).
signal spoke(line: NpcBrainLine)
## The line this NPC is answering the player with, as far as the model has written it: show it
## growing in the bubble; `spoke` follows with the whole line (see `talk`). It may start over,
## from "" when the brain takes back a line the model began in its assistant voice.
signal line_progress(text_so_far: String)
## The player began talking to this NPC (`talk`): stop its body and turn it toward `speaker` (the
## node talking, when `talk` was given it) for your animation. It stands until `talk_released`.
signal talk_held(speaker: Node)
## The talk is over (the NPC's goodbye, `stop_talking()`, or the talk's `hold_s`, by default
## `talk_hold_s`, without a new talk): the NPC resumes its step (`move_requested` again when it
## was on its way; it asks no Decide while held, and asks again at its next tick).
signal talk_released
## The NPC's line answering `speaker_name` ended their conversation (after `spoke`; the line's
## `ends_conversation` says so too): close the dialogue box, or let the player walk on.
signal talk_ended(speaker_name: String)
## The NPC's action changed an object's state ("" when it releases it).
signal object_state_changed(address: String, state: String)
## Emitted just before each Decide: call `perceive()` for what the NPC sees now.
signal perceiving
## A call failed; permanent errors are also pushed with push_error.
signal failed(error: NpcBrainError)
## The NPC came into the player's view or left it (see `attention_mode`).
signal attention_changed(in_view: bool)
## The NPC does one of the game's verbs (see NpcBrainVerb; `args` typed as declared), now that
## its body is at the target (`requested_verb_target`): do it, then call `report_action_done()`
## or `report_action_failed()`. The NPC remembers the answer.
signal action_requested(verb: String, args: Dictionary)
## A verb unanswered in `verb_timeout_s`, or before the next: the NPC remembers it not done.
signal action_timed_out(verb: String)
## The agent asks the engine to say `line` aloud (`speak_aloud` on), in `voice` (an id of
## `DisplayServer.tts_get_voices()`; "": the platform's default): for a mouth's animation.
signal speaking(line: NpcBrainLine, voice: String)

## What the brain is told about the player's view of this NPC.
enum AttentionMode {
	PROJECT_DEFAULT, ## The project setting npc_brain/agents/attention (Auto unless set).
	AUTO, ## In view while its body is on a screen (with a short settling delay).
	ALWAYS_IN_VIEW, ## Always full detail (a companion the player always cares about).
	ALWAYS_OUT_OF_VIEW, ## Always coarse (a background NPC, whatever the camera shows).
}

## Node2Ds and Node3Ds in this group are perceived by agents near them (see above).
const VISIBLE_GROUP := "npc_brain_visible"
## Every agent joins this group (in the editor too, for the world's checks).
const GROUP := "npc_brain_agent"
## Perceptions one Decide carries at most (the brain refuses more): in a crowd, the nearest.
const MAX_PERCEPTIONS := 64
## First calls a second the brain takes from a town loading together (a larger town spreads its
## agents' first calls over more than `start_spread_s`).
const FIRST_CALLS_PER_S := 100.0
# The agent's parts, by concern.
const Senses := preload("npc_brain_agent_senses.gd")
const Talk := preload("npc_brain_agent_talk.gd")
const Verbs := preload("npc_brain_agent_verbs.gd")
const Voice := preload("npc_brain_agent_voice.gd")

## Stable id the brain knows the NPC by, e.g. "isabella_rodriguez".
@export var npc_id: String = "":
	set(value):
		npc_id = value
		update_configuration_warnings()
## Who the NPC is.
@export var persona: NpcBrainPersona:
	set(value):
		persona = value
		update_configuration_warnings()
## The world it lives in; empty: the first NpcBrainWorld in the scene, found as the agent is
## ready (so a sibling's `_ready` can use it), or when it starts if none was there yet.
@export var world: NpcBrainWorld
## Start when the world is registered; off: call `start()` yourself.
@export var autostart: bool = true
## The game's verbs only this NPC may use, besides its world's `verbs` (see NpcBrainVerb).
@export var verbs: Array[NpcBrainVerb] = []

@export_group("Walking")
## The slowest your body walks, in tiles per real second: after `move_requested`, the agent waits
## for `report_arrived()` as long as the way there (the world's grid path, or the straight
## line) takes at this speed, plus `arrival_grace_s`, then reports it unreachable itself and
## moves on. 0: wait forever.
@export var walk_speed: float = 1.0
## Real seconds added to the arrival timeout (turning, waiting for a door, a slow start).
@export var arrival_grace_s: float = 5.0

## Real seconds the game has to answer a verb (`report_action_done`/`report_action_failed`)
## before the agent reports it failed itself ("no answer from the game"). 0: wait forever.
@export var verb_timeout_s: float = 60.0

## Real seconds the NPC waits for the player's next line before it walks on (a `talk()` may set
## its own).
@export var talk_hold_s: float = 20.0

@export_group("Perception")
## Other NPCs, visible nodes and busy objects within this many tiles, in its line of sight, are
## perceived.
@export var vision_radius: float = 8.0
## The brain keeps the nearest this many perceived events per decision.
@export var attention_bandwidth: int = 8
## The brain skips events among the last this many it observed.
@export var retention: int = 8
## Perceive the world's other agents and busy objects by itself.
@export var perceive_world: bool = true

@export_group("Attention")
## Whether the brain thinks about this NPC in full detail (in view) or coarser (out of view).
@export var attention_mode: AttentionMode = AttentionMode.PROJECT_DEFAULT:
	set(value):
		attention_mode = value
		if _started:
			_update_attention()
## Real seconds on screen before the NPC counts as in view (and asks Decide early).
@export var in_view_after_s: float = 0.2
## Real seconds off every screen before it counts as out of view: a glance away, or a camera
## jiggling at an edge, keeps it in view (and asks nothing).
@export var out_of_view_after_s: float = 2.0
## Off screen and farther than this from the camera (pixels in 2D, meters in 3D), the NPC is a
## crowd (Auto mode). 0: never.
@export var crowd_distance: float = 0.0

@export_group("Retries")
## Real seconds to wait after a failed call; doubles with each failure in a row (with jitter)
## up to `max_retry_delay_s`. The NPC keeps its last action meanwhile.
@export var retry_delay_s: float = 1.0
@export var max_retry_delay_s: float = 8.0
## Real seconds at least between two Decide calls while thinking, whatever `askAgainAt` says.
@export var min_thinking_interval_s: float = 0.5
## Real seconds over which a scene's agents make their first call: each waits its own share of
## it (from its npc_id), so a town that loads together does not ask the brain in one frame. At
## least a second per `FIRST_CALLS_PER_S` agents in the game.
@export var start_spread_s: float = 1.0

@export_group("Voice")
## Say its lines aloud (to the player and to other NPCs) through the engine's text-to-speech
## (`DisplayServer.tts_speak`, desktop and web; turn on the project setting
## audio/general/text_to_speech). Captions stay yours (`spoke`, `line_progress`).
@export var speak_aloud: bool = false
## Its voice, an id of `DisplayServer.tts_get_voices()`; empty, or a voice this platform lacks:
## one of the platform's voices for the game's language, picked by a stable hash of `npc_id`.
@export var voice_id: String = ""

## The latest decision, or null.
var decision: NpcBrainDecision = null
## Whether the brain is still thinking about this NPC's action (see `is_tentative`).
var thinking: bool = false
## Whether the player can see it, as the next Decide tells the brain (see `attention_mode`).
var in_view: bool = false
## Far from the player while out of view: the brain thinks nothing for it (ATTENTION_CROWD).
var crowd: bool = false
## Where it was last sent (a full address), and the tile chosen there.
var target_address: String = ""
var target_tile: Vector2i = NpcBrainWorld.NO_TILE
## The verb the game was asked to do (`action_requested`) and has not answered yet, else "";
## and the address it applies to.
var requested_verb: String = ""
var requested_verb_target: String = ""

var _started: bool = false
var _stopped: bool = false
var _spawned: bool = false
var _busy: bool = false
var _moving: bool = false
## Counts the moves asked: an arrival timeout applies only to the move that set it.
var _move_serial: int = 0
## Came into view: ask Decide at the next opportunity, whatever `_ask_at` and walking say.
var _ask_early: bool = false
var _view_watch: NpcBrainViewWatch = null
## Game time (Unix seconds) to ask Decide again; -1 without an action.
var _ask_at: int = -1
var _action_end: int = -1
## No call before this real time (backoff after failures, pacing while thinking).
var _retry_at_msec: int = 0
var _failures: int = 0
var _address: String = ""
var _senses := Senses.new(self)
## Object states this NPC's action set: address -> state.
var _held_states: Dictionary[String, String] = {}
var _pushed_errors: Dictionary[String, bool] = {}
var _rng := RandomNumberGenerator.new()
## The engine timers waking this agent (ticks, asks, arrival, verb and talk timeouts): expired at
## once, their callbacks dropped, when it is freed.
var _timers: Array[SceneTreeTimer] = []
var _verbs := Verbs.new(self, _wake_in)
var _talk := Talk.new(self, _walk_on, _wake_in)
var _voice := Voice.new(self)


func _enter_tree() -> void:
	add_to_group(GROUP)
	if not Engine.is_editor_hint() and npc_id != "":
		NpcBrainClient.get_instance().set_agent(npc_id, self)


func _exit_tree() -> void:
	if Engine.is_editor_hint():
		return
	if is_instance_valid(world) and world.is_inside_tree():
		_release_states({})
	if is_instance_valid(world):
		world.places.forget_agent(self)
	var client := NpcBrainClient.get_instance()
	if client != null and client.find_agent(npc_id) == self:
		client.set_agent(npc_id, null)


# Freed (despawned, its scene unloaded): its line to the player stops, its timers expire with
# nothing to call, its Decide waiting for a batch is dropped and its lanes close. The brain keeps
# the NPC, living on out of view; an agent with its npc_id added later resumes it.
func _notification(what: int) -> void:
	if what != NOTIFICATION_PREDELETE or Engine.is_editor_hint():
		return
	_talk.cancel()
	for timer in _timers:
		for connection in timer.timeout.get_connections():
			timer.timeout.disconnect(connection["callable"])
		timer.time_left = 0.0
	_timers.clear()
	var client := NpcBrainClient.get_instance(true)
	if client != null and client.find_agent(npc_id) == null:
		client.release_lanes(npc_id)


func _ready() -> void:
	if Engine.is_editor_hint():
		return
	_rng.seed = hash(npc_id)
	spoke.connect(_voice.speak)
	if world == null:
		world = NpcBrainWorld.find_in(get_tree())
	if autostart:
		start.call_deferred()


## Starts (or, after a permanent failure, restarts) the NPC's life once the world is registered.
func start() -> void:
	_stopped = false
	if _started:
		_tick()
		return
	if world == null:
		world = NpcBrainWorld.find_in(get_tree())
	if world == null or npc_id == "" or persona == null or not _has_body():
		_fail_locally("needs an npc_id, a persona, a Node2D or Node3D parent and an NpcBrainWorld"
				+ " in the scene")
		return
	_started = true
	NpcBrainClient.get_instance().set_agent(npc_id, self)
	NpcBrainGameClock.get_instance().minute_passed.connect(_on_minute_passed)
	NpcBrainClient.get_instance().game_loaded.connect(_on_game_loaded)
	world.registered.connect(_on_world_registered)
	_address = world.places.address_at(get_tile())
	_update_attention()
	_wait_own_turn()


## The attention mode in effect (`attention_mode`, or the project's default for PROJECT_DEFAULT).
func get_attention_mode() -> AttentionMode:
	if attention_mode != AttentionMode.PROJECT_DEFAULT:
		return attention_mode
	var setting := int(NpcBrainSettings.get_value(NpcBrainSettings.ATTENTION))
	return (AttentionMode.AUTO + clampi(setting, 0, 2)) as AttentionMode


## The 2D body it moves (its parent), or null for a 3D body.
func get_body() -> Node2D:
	return get_parent() as Node2D


## The 3D body it moves (its parent), or null for a 2D body.
func get_body_3d() -> Node3D:
	return get_parent() as Node3D


## The world tile the body stands on.
func get_tile() -> Vector2i:
	return world.grid.node_to_tile(get_parent())


## The address of the arena it is in (kept while crossing doors and open ground; its home
## before it has been anywhere).
func get_address() -> String:
	var here := world.places.address_at(get_tile())
	if here != "":
		_address = here
	return _address if _address != "" else world.places.full_address(persona.home)


## What others see it doing, e.g. "brewing coffee".
func get_activity() -> String:
	return decision.action.get_activity(persona.display_name) if decision != null else "idle"


## A label for over its head: its activity ("brewing coffee"), with "(thinking...)" while the
## brain is still making up its mind. Given a `font` that draws every character of the brain's
## emoji, the emoji instead: the engine's default font has none, and a web export has no system
## font to fall back on (it would show empty boxes).
func get_label(font: Font = null) -> String:
	if decision == null:
		return ""
	var emoji := decision.action.emoji.strip_edges()
	var drawn := font != null and emoji != ""
	if drawn:
		for character in emoji:
			drawn = drawn and font.has_char(character.unicode_at(0))
	return (emoji if drawn else get_activity()) + (" (thinking...)" if thinking else "")


## Whether it is on its way to `target_address` (between move_requested and a report).
func is_moving() -> bool:
	return _moving

## Adds something the NPC perceives to its next Decide.
func perceive(subject: String, doing: String, address: String = "", distance: float = 0.0) -> void:
	_senses.add(NpcBrainPerception.new(
			subject, doing, address if address != "" else get_address(), distance))


## The body reached `target_address` (call it when your navigation finishes).
func report_arrived() -> void:
	_moving = false
	_move_serial += 1
	var tile := get_tile()
	var fields := {
		"npc": npc_id, "address": target_address, "tile": [tile.x, tile.y],
		"at": world.places.address_at(tile), "game_time": NpcBrainGameClock.get_instance().now_rfc3339(),
	}
	if get_body_3d() != null:
		var at := get_body_3d().global_position
		fields["position"] = [at.x, at.y, at.z]
	NpcBrainLog.record("arrived", fields)
	_verbs.request()
	_tick()


## The body cannot get to `target_address`; it asks again when the action ends (and tries
## again if the brain sends it there again).
func report_unreachable(reason: String = "") -> void:
	_moving = false
	_move_serial += 1
	var tile := get_tile()
	NpcBrainLog.error("unreachable", {
		"npc": npc_id, "address": target_address, "tile": [tile.x, tile.y], "reason": reason,
	})
	target_address = ""  # the next decision for it tries again
	target_tile = NpcBrainWorld.NO_TILE
	_verbs.unreached()


## The game did the verb of `action_requested`; `result` says what came of it, in words the
## NPC remembers, e.g. "the bell rang twelve times".
func report_action_done(result: String = "") -> void:
	_verbs.answer(true, result)


## The game could not do the verb of `action_requested`; `reason` says why, in words the NPC
## remembers, e.g. "the bell rope is broken".
func report_action_failed(reason: String) -> void:
	_verbs.answer(false, reason)


## The player (or anyone the brain does not drive) says `text` to this NPC; returns its reply
## as a line it speaks (also emitted with `spoke`), or null when the call failed or was stopped.
## A line that ends the conversation has `ends_conversation` set, and `talk_ended` follows it.
## The reply streams (TalkStream): `line_progress` shows it as the model writes it. Talking
## again while it answers stops the line under way first. The talk holds the NPC (`talk_held`)
## until its goodbye, `stop_talking()`, or `hold_s` real seconds after its line with no new talk
## (negative: the agent's `talk_hold_s`).
func talk(text: String, speaker_name: String = "the player", speaker: Node = null,
		hold_s: float = -1.0) -> NpcBrainLine:
	return await _talk.talk(text, speaker_name, speaker, hold_s)


# Released from a talk: on its way when the player stopped it, it walks on.
func _walk_on() -> void:
	if _moving:
		_move_serial += 1
		_time_arrival(get_tile(), _move_serial)
		_send_body()


## The player is done (closed the dialogue, walked off): stops the line the NPC is answering
## with, if any (the brain stops the model; the NPC remembers both lines as far as written;
## `talk` returns null for it), and the NPC walks on (`talk_released`).
func stop_talking() -> void:
	_talk.cancel()
	_talk.end_hold()


## The player takes back their last line (typed by mistake, or the NPC's answer was stopped):
## the answer under way stops, and the brain withdraws that line and the NPC's answer to it, so
## neither reaches its later lines nor its memory of the conversation. Returns the line taken
## back, or "" when the call failed (`failed`: no open conversation, or no line left in it).
func take_back(speaker_name: String = "the player") -> String:
	return await _talk.take_back(speaker_name)


## Whether the NPC is answering the player now.
func is_talking() -> bool:
	return _talk.is_talking()


## Asks the NPC a question; it answers from its memories ("" when the call failed).
func interview(question: String) -> String:
	var reply := await NpcBrainClient.get_instance().call_rpc("Interview", {
		"npcId": npc_id, "question": question,
		"gameTime": NpcBrainGameClock.get_instance().now_rfc3339()},
		npc_id + NpcBrainClient.PLAYER_LANE_SUFFIX)
	if not reply.ok:
		failed.emit(NpcBrainError.from_reply("Interview", reply, npc_id))
	return str(reply.data.get("answer", ""))


## Plants a thought in the NPC's memory (its inner voice); false when the call failed.
func whisper(text: String) -> bool:
	var reply := await NpcBrainClient.get_instance().call_rpc("Whisper", {
		"npcId": npc_id, "text": text,
		"gameTime": NpcBrainGameClock.get_instance().now_rfc3339()},
		npc_id + NpcBrainClient.PLAYER_LANE_SUFFIX)
	if not reply.ok:
		failed.emit(NpcBrainError.from_reply("Whisper", reply, npc_id))
	return reply.ok


func _get_configuration_warnings() -> PackedStringArray:
	var warnings := PackedStringArray()
	if npc_id == "":
		warnings.append("Set npc_id: the id the brain knows this NPC by.")
	if persona == null or persona.display_name == "":
		warnings.append("Give it a persona with a name (New NpcBrainPersona).")
	elif persona.home == "":
		warnings.append("The persona has no home address (\"sector:arena\").")
	else:
		var in_world := world if world != null else NpcBrainWorld.find_in(get_tree())
		for address in persona.addresses():
			if in_world != null and in_world.places.find_arena(address) == null:
				warnings.append("%s is not an arena of %s." % [address, in_world.world_name])
	if not _has_body():
		warnings.append("An NpcBrainAgent moves its parent: make it a child of a 2D or 3D body.")
	return warnings


func _has_body() -> bool:
	return get_parent() is Node2D or get_parent() is Node3D


func _on_minute_passed(_unix_time: int) -> void:
	_tick()


# After a save game was loaded: the brain is back in the saved timeline, so the action, its
# objects and the walk are dropped; spawning again gives the brain this NPC's persona as the game
# has it now (or the NPC, if it was spawned after the save), then Decide at the restored clock.
func _on_game_loaded(_slot: String, _save: Dictionary) -> void:
	if is_instance_valid(world) and world.is_inside_tree():
		_release_states({})
	decision = null
	thinking = false
	_spawned = false
	_ask_early = false
	_ask_at = -1
	_action_end = -1
	_failures = 0
	_retry_at_msec = 0
	_moving = false
	_move_serial += 1
	target_address = ""
	target_tile = NpcBrainWorld.NO_TILE
	_senses.clear()
	_wait_own_turn()


func _on_world_registered() -> void:
	_wait_own_turn(world.get_registered_msec())


## Calls the brain after its own share of the start spread from `since_msec` (-1: now), a common
## instant so that agents whose handler ran later in a large tree keep their place.
func _wait_own_turn(since_msec: int = -1) -> void:
	if since_msec < 0:
		since_msec = Time.get_ticks_msec()
	var agents := NpcBrainClient.get_instance().get_agent_count()
	var spread := maxf(start_spread_s, float(agents) / FIRST_CALLS_PER_S)
	# From a digest, not hash(): String.hash() of "guard_1" and "guard_2" differ by 1, so a town of
	# numbered NPCs would take one instant of the spread.
	var share := float(npc_id.md5_text().substr(0, 6).hex_to_int() % 1000) / 1000.0
	var wait := spread * share
	NpcBrainLog.record("own_turn", {"npc": npc_id, "wait_s": wait, "spread_s": spread},
			NpcBrainSettings.LogLevel.VERBOSE)
	_retry_at_msec = maxi(_retry_at_msec, since_msec + int(wait * 1000.0))
	_wake_in(maxf(float(_retry_at_msec - Time.get_ticks_msec()) / 1000.0, 0.0))


func _update_attention() -> void:
	var mode := get_attention_mode()
	if mode == AttentionMode.AUTO and _view_watch == null:
		_view_watch = NpcBrainViewWatch.new()
		_view_watch.name = "ViewWatch"
		_view_watch.in_view_after_s = in_view_after_s
		_view_watch.out_of_view_after_s = out_of_view_after_s
		_view_watch.crowd_distance = crowd_distance
		_view_watch.changed.connect(_on_view_changed)
		_view_watch.crowd_changed.connect(func(far: bool) -> void: crowd = far)
		add_child(_view_watch, false, Node.INTERNAL_MODE_BACK)
		var body := get_parent()
		_view_watch.watch(body, world.tile_size_3d if body is Node3D else float(world.tile_size))
	match mode:
		AttentionMode.AUTO:
			_set_in_view(_view_watch.in_view)
		AttentionMode.ALWAYS_IN_VIEW:
			_set_in_view(true)
		_:
			_set_in_view(false)


func _on_view_changed(on_screen: bool) -> void:
	if get_attention_mode() == AttentionMode.AUTO:
		_set_in_view(on_screen)


func _set_in_view(value: bool) -> void:
	if value == in_view:
		return
	in_view = value
	NpcBrainLog.record("attention", {
		"npc": npc_id, "in_view": in_view,
		"mode": AttentionMode.keys()[get_attention_mode()].to_lower(),
		"game_time": NpcBrainGameClock.get_instance().now_rfc3339(),
	})
	attention_changed.emit(in_view)
	NpcBrainClient.get_instance().agent_attention_changed.emit(self, in_view)
	if in_view and decision != null:
		_ask_early = true  # the brain restores the detail before the player notices
		_tick()


func _tick() -> void:
	if not _started or _stopped:
		return
	var now := NpcBrainGameClock.get_instance().now()
	if not _held_states.is_empty() and _action_end >= 0 and now >= _action_end:
		_release_states({})
	if _busy or Time.get_ticks_msec() < _retry_at_msec or not world.is_registered():
		return
	if NpcBrainClient.get_instance().is_loading():
		return
	if not _spawned:
		_spawn()
	elif _talk.held:
		return  # no new step while a talk holds it: the first tick after the talk asks
	elif _ask_early or (now >= _ask_at and (thinking or not _moving)):
		_decide()


# The agent's own calls are answered to a method, not awaited: an agent freed while one is under
# way leaves nothing waiting (see NpcBrainClient.answer_to).
func _spawn() -> void:
	_busy = true
	var client := NpcBrainClient.get_instance()
	client.answer_to(client.call_rpc.bind("SpawnNpc", _spawn_request(), npc_id), _on_spawn_answered)


func _on_spawn_answered(reply: NpcBrainReply) -> void:
	_busy = false
	if NpcBrainClient.get_instance().is_loading():
		return  # a save game is loading: spawned again after it
	if not reply.ok:
		_handle_failure("SpawnNpc", reply)
		return
	_failures = 0
	_spawned = true
	var tile := get_tile()
	var updated := bool(reply.data.get("updated", false))
	var resumed := updated or bool(reply.data.get("resumed", false))
	NpcBrainLog.record("npc_spawned", {
		"npc": npc_id, "address": get_address(), "tile": [tile.x, tile.y], "resumed": resumed,
		"updated": updated, "changed": reply.data.get("changed", []),
	})
	spawned.emit(resumed)
	_tick()


## Calls `then` (a tick by default) after `seconds` of real time, besides each game minute and
## each arrival. The agent's parts time their waits with it too: a freed agent drops them all.
func _wake_in(seconds: float, then: Callable = _tick) -> void:
	if seconds >= INF or not is_inside_tree():
		return
	_timers = _timers.filter(func(timer: SceneTreeTimer) -> bool: return timer.time_left > 0.0)
	var timer := get_tree().create_timer(seconds + 0.001, false)
	timer.timeout.connect(then)
	_timers.append(timer)


## Ticks at `askAgainAt`. The game clock and timers count frames their own ways (they drift by a
## frame or so): a wake-up before the ask is due waits the rest.
func _wake_at_ask() -> void:
	var clock := NpcBrainGameClock.get_instance()
	if clock.now() < _ask_at:
		_wake_in(maxf(clock.real_seconds_until(_ask_at), 0.01), _wake_at_ask)
		return
	_tick()


func _decide() -> void:
	_busy = true
	_ask_early = false
	perceiving.emit()
	var tile := get_tile()
	var request := {
		"npcId": npc_id,
		"gameTime": NpcBrainGameClock.get_instance().now_rfc3339(),
		"address": get_address(),
		"tile": {"x": tile.x, "y": tile.y},
		"perceptions": _senses.collect(),
		"attention": "ATTENTION_IN_VIEW" if in_view else (
				"ATTENTION_CROWD" if crowd else "ATTENTION_OUT_OF_VIEW"),
	}
	var outcomes := _verbs.take_outcomes()
	if not outcomes.is_empty():
		request["verbOutcomes"] = outcomes
	var client := NpcBrainClient.get_instance()
	client.answer_to(client.decide.bind(request), _on_decide_answered.bind(outcomes))


func _on_decide_answered(reply: NpcBrainReply, outcomes: Array[Dictionary]) -> void:
	_busy = false
	if NpcBrainClient.get_instance().is_loading():
		return  # decided in the timeline the load replaces
	if not reply.ok:
		_verbs.keep(outcomes, NpcBrainError.from_reply("Decide", reply, npc_id))
		_handle_failure("Decide", reply)
		return
	_failures = 0
	_apply(NpcBrainDecision.from_proto(reply.data, reply.elapsed_ms))
	if _ask_early:
		_tick()  # came into view while this Decide was out: ask again now, not at the next minute


func _handle_failure(method: String, reply: NpcBrainReply) -> void:
	var error := NpcBrainError.from_reply(method, reply, npc_id)
	failed.emit(error)
	match error.get_kind():
		NpcBrainError.Kind.RECOVERABLE:
			# The brain lost the NPC (not_found) or the whole world (failed_precondition, e.g. a
			# brain restarted on an empty store): register the world again, then spawn again.
			_spawned = false
			if error.code == "failed_precondition":
				world.register_again()
			_back_off()
		NpcBrainError.Kind.PERMANENT:
			_push_once(error)
			if method == "SpawnNpc":
				_stopped = true  # nothing changes until the developer does: call start() again
			else:
				_failures = 16  # keep asking, rarely: the next decision may not carry the cause
				_back_off()
		_:
			_back_off()


func _push_once(error: NpcBrainError) -> void:
	var text := "NpcBrain: " + error.describe()
	if error.code == "already_exists":
		text += (" (another NPC of this world has this name, or this npc_id lives in another"
				+ " world: give this NPC a new npc_id or name, or free the other with DeleteNpc)")
	if not _pushed_errors.has(text):
		_pushed_errors[text] = true
		push_error(text)


func _fail_locally(problem: String) -> void:
	var error := NpcBrainError.new()
	error.method = "start"
	error.code = "failed_precondition"
	error.npc_id = npc_id
	error.message = "%s %s" % [get_path(), problem]
	push_error("NpcBrain: " + error.message)
	failed.emit(error)


func _back_off() -> void:
	_failures += 1
	var delay := minf(retry_delay_s * pow(2.0, mini(_failures, 16) - 1), max_retry_delay_s)
	_retry_at_msec = Time.get_ticks_msec() + int(delay * randf_range(800.0, 1200.0))
	NpcBrainLog.record("backing_off", {"npc": npc_id, "failures": _failures, "retry_in_s": delay})


func _apply(new_decision: NpcBrainDecision) -> void:
	var partner_before := _partner_of(self)
	decision = new_decision
	thinking = decision.is_tentative()
	var action := decision.action
	var now := NpcBrainGameClock.get_instance().now()
	_ask_at = decision.next_ask(now)
	_action_end = action.end_time(now)
	# On time to the game second, not at the next minute: the brain spreads a town's asks over it.
	_wake_in(NpcBrainGameClock.get_instance().real_seconds_until(_ask_at), _wake_at_ask)
	if thinking:
		_retry_at_msec = Time.get_ticks_msec() + int(min_thinking_interval_s * 1000.0)
	var address := world.places.full_address(action.address)
	_verbs.set_due(action)
	_apply_object_states(action)
	var client := NpcBrainClient.get_instance()
	for line in action.dialogue:
		var speaker := client.find_agent(line.speaker_id)
		(speaker if speaker != null else self).spoke.emit(line)
		NpcBrainLog.record("dialogue", {
			"npc": npc_id, "speaker": line.speaker_name, "text": line.text,
		})
	NpcBrainLog.record("decision", {
		"npc": npc_id, "address": address, "trace": decision.trace_id,
		"description": action.description, "emoji": action.emoji, "source": action.source,
		"duration_minutes": action.duration_minutes, "game_time": NpcBrainTime.to_rfc3339(now),
		"latency_ms": decision.latency_ms, "thinking": thinking, "shown": get_label(),
		"ask_again_at": NpcBrainTime.to_rfc3339(_ask_at),
	})
	decided.emit(decision)
	if action.chatting_with != "":
		if action.chatting_with != partner_before:
			_join_chat(action.chatting_with)
	elif target_address != address:  # else already there or on its way: no pacing about
		_go(address)
	if not _moving:
		_verbs.request()


# A conversation with another NPC is held where they meet, not at the brain's address for it
# (the arena the NPC was last in, which on open ground it has left: walking back there parted the
# two as they talked). The first of the two to hear of it stands; the other walks up beside it,
# as the paper's initiator does, unless it stands beside it already or there is no way there.
# The next action moves each on, wherever that is.
func _join_chat(partner_id: String) -> void:
	var partner := NpcBrainClient.get_instance().find_agent(partner_id)
	var from := get_tile()
	var way: Array[Vector2i] = []
	if partner != null and _partner_of(partner) == npc_id and not partner.is_moving():
		way = world.grid.find_path(from, partner.get_tile())
	if way.size() > 2:  # the partner's tile last: stop on the one before it
		var beside := way[way.size() - 1]
		target_address = get_address()
		target_tile = way[way.size() - 2]
		_walk(from, {"to_meet": partner_id, "beside": [beside.x, beside.y]})
		return
	target_address = ""
	target_tile = from
	_moving = false
	_move_serial += 1
	if _talk.held:
		return
	var body_3d := get_body_3d()
	if body_3d != null:
		move_requested_3d.emit(get_address(), body_3d.global_position)
	else:
		move_requested.emit(get_address(), (get_parent() as Node2D).global_position)


func _go(address: String) -> void:
	target_address = address
	var from := get_tile()
	var taken := world.places.taken_tiles(address, self)
	target_tile = world.places.resolve_target(address, from, taken, _rng)
	if target_tile == NpcBrainWorld.NO_TILE:
		_moving = false
		report_unreachable("unknown address")
		return
	world.places.note_target(target_tile)
	_walk(from)


# The npc_id of the NPC `agent` is in a conversation with (its action's `chatting_with`), else "".
static func _partner_of(agent: NpcBrainAgent) -> String:
	return agent.decision.action.chatting_with if agent.decision != null else ""


# Sets the body walking from `from` to `target_tile` at `target_address`; `fields` say more in
# its walking event.
func _walk(from: Vector2i, fields: Dictionary = {}) -> void:
	_moving = true
	_move_serial += 1
	_time_arrival(from, _move_serial)
	if target_tile != from:
		var event := {
			"npc": npc_id, "address": target_address, "from": [from.x, from.y],
			"to": [target_tile.x, target_tile.y],
			"game_time": NpcBrainGameClock.get_instance().now_rfc3339(),
		}
		event.merge(fields)
		NpcBrainLog.record("walking", event)
	if not _talk.held:  # held by a talk: sent on when it ends
		_send_body()


func _send_body() -> void:
	var body_3d := get_body_3d()
	if body_3d != null:
		move_requested_3d.emit(target_address,
				world.grid.tile_to_position_3d(target_tile, body_3d.global_position.y))
	else:
		move_requested.emit(target_address, world.grid.tile_to_global(target_tile))


# Reports the move unreachable when the body has not arrived after the way's length at
# `walk_speed`, plus `arrival_grace_s` (unless it arrived, or another move started, before).
func _time_arrival(from: Vector2i, serial: int) -> void:
	if walk_speed <= 0.0:
		return
	var path := world.grid.find_path(from, target_tile)
	var tiles := float(path.size()) if not path.is_empty() else Vector2(from).distance_to(target_tile)
	_arm_arrival_timeout(tiles / walk_speed + arrival_grace_s, serial)


func _arm_arrival_timeout(timeout: float, serial: int) -> void:
	_wake_in(timeout, func() -> void:
		if not _moving or _move_serial != serial:
			return
		if not NpcBrainGameClock.get_instance().is_ticking() or _talk.held:
			_arm_arrival_timeout(timeout, serial)  # paused, or talking: bodies wait, so do we
			return
		arrival_timed_out.emit(target_address)
		report_unreachable("no arrival after %.1f s (the timeout)" % timeout)
		_tick())


func _apply_object_states(action: NpcBrainAction) -> void:
	var now_held: Dictionary[String, String] = {}
	for change in action.object_changes:
		var address := world.places.full_address(change.address)
		if world.set_object_state(address, change.state):
			now_held[address] = change.state
			NpcBrainLog.record("object_state", {"address": address, "state": change.state})
			object_state_changed.emit(address, change.state)
	_release_states(now_held)
	_held_states = now_held


# Sets the objects this NPC's action made busy back to idle, unless the new action keeps them
# (`keep`) or someone changed them since.
func _release_states(keep: Dictionary[String, String]) -> void:
	for address in _held_states:
		if keep.has(address) or world.get_object_state(address) != _held_states[address]:
			continue
		world.set_object_state(address, "")
		NpcBrainLog.record("object_state", {"address": address, "state": "", "released": true})
		object_state_changed.emit(address, "")
	_held_states = keep.duplicate()


func _spawn_request() -> Dictionary:
	var known: Array[String] = []
	for area in persona.known_areas:
		known.append(world.places.full_address(area))
	if known.is_empty():
		for arena in world.get_arenas():
			known.append(world.places.arena_address(arena))
	var workplace: String = (
		world.places.full_address(persona.workplace) if persona.workplace != "" else ""
	)
	var tile := get_tile()
	return {
		"worldName": world.world_name,
		"npcId": npc_id,
		"persona": {
			"name": persona.display_name,
			"age": persona.age,
			"traits": Array(persona.traits),
			"identity": persona.identity,
			"lifestyle": persona.lifestyle,
			"currently": persona.currently,
			"home": world.places.full_address(persona.home),
			"knownAreas": known,
			"workplace": workplace,
		},
		"address": get_address(),
		"tile": {"x": tile.x, "y": tile.y},
		"perception": {
			"visionRadius": vision_radius,
			"attentionBandwidth": attention_bandwidth,
			"retention": retention,
		},
		"verbs": NpcBrainVerb.list_to_proto(verbs),
	}

